//! Differential tests: samebytes cat against the spec, under adversarial
//! reads and writes, with buffer sizes from one byte up.

use proptest::prelude::*;
use samebytes::cat::format::{Formatter, OutBuf};
use samebytes_oracle::cat::{cat_case, check_cat};
use samebytes_oracle::wc::TOKENS;
use samebytes_spec::cat::{Formatter as SpecFormatter, Formatting};

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whole command lines: every option in every spelling, several files,
    /// stdin, stdout a regular file that may also be an input, read
    /// schedules, short and failing writes, tiny and default buffers.
    #[test]
    fn cat_matches_spec(case in cat_case()) {
        if let Err(m) = check_cat(&case) {
            prop_assert!(false, "{}", m);
        }
    }
}

fn token_data() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        8 => prop::sample::select(TOKENS).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => (prop::sample::select(vec![b'x', b'\n', b'\t', b'\r', 0x80u8, 0xff]), 1..300usize)
            .prop_map(|(b, n)| vec![b; n]),
    ];
    prop::collection::vec(token, 0..150).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The formatter alone, with the input cut into arbitrary chunks,
    /// against the spec fed one byte at a time: every bulk copy, every
    /// word-at-a-time rendering and every carried state at every boundary.
    #[test]
    fn formatter_is_independent_of_chunk_boundaries(
        data in token_data(),
        mask in 0u8..64,
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let opts = Formatting {
            number: mask & 3 != 0,
            number_nonblank: mask & 2 != 0,
            squeeze_blank: mask & 4 != 0,
            show_ends: mask & 8 != 0,
            show_nonprinting: mask & 16 != 0,
            show_tabs: mask & 32 != 0,
        };
        let mut expected = Vec::new();
        let mut spec = SpecFormatter::new(opts);
        for &b in &data {
            spec.push(b, &mut expected);
        }
        spec.finish(&mut expected);

        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(data.len() + 1)).collect();
        at.sort_unstable();
        let mut actual = OutBuf::new();
        let mut f = Formatter::new(opts);
        let mut from = 0;
        for c in at {
            f.feed(&data[from..c], &mut actual);
            from = c;
        }
        f.feed(&data[from..], &mut actual);
        f.finish(&mut actual);
        prop_assert_eq!(actual.as_slice(), &expected[..]);
    }
}
