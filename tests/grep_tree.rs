//! Differential tests of recursive grep: generated trees (nested folders,
//! links to files, to folders, to ancestors and to nothing, unreadable
//! entries, devices, empty and binary files, names with spaces, newlines
//! and invalid UTF-8) searched by the spec on one thread and by the
//! implementation on one and on 2 to 5 threads, with random delays in
//! opens, listings and reads, so that the search threads finish in a
//! different order from run to run (`samebytes_oracle::grep::tree`).

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use samebytes_oracle::grep::tree::{check_grep_tree, TreeCase};

/// Cases from `SAMEBYTES_TREE_CASES`, 1500 by default.
fn cases() -> u32 {
    std::env::var("SAMEBYTES_TREE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn recursive_grep_matches_spec(seed in prop::collection::vec(any::<u8>(), 64..4096)) {
        let Ok(case) = TreeCase::arbitrary(&mut Unstructured::new(&seed)) else {
            return Ok(());
        };
        if let Err(m) = check_grep_tree(&case) {
            prop_assert!(false, "{}", m);
        }
    }
}

/// Every case decodes back to itself, so a reproducer replays the case
/// that failed.
#[test]
fn reproducers_replay_the_case() {
    let mut made = 0;
    for n in 0..200u32 {
        let seed: Vec<u8> = (0..2048u32)
            .map(|i| (i.wrapping_mul(n + 7) >> 3) as u8)
            .collect();
        let Ok(case) = TreeCase::arbitrary(&mut Unstructured::new(&seed)) else {
            continue;
        };
        let hex = case.reproducer();
        let hex = hex.rsplit(':').next().unwrap();
        assert_eq!(TreeCase::decode(hex).unwrap(), case);
        made += 1;
    }
    assert!(made > 100, "only {made} seeds made cases");
}
