//! Differential tests: samebytes wc against the spec, under adversarial
//! reads and writes, through the slice (mmap) and streaming paths.

use proptest::prelude::*;
use samebytes::wc::{Counter, Plan};
use samebytes_oracle::wc::{check_wc, wc_case, WcCase, TOKENS};
use samebytes_spec::wc::{count, Selection, WcEnv};
use samebytes_spec::Locale;

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whole command lines: options, several files, stdin, --files0-from,
    /// read schedules, short and failing writes, tiny buffers and windows.
    #[test]
    fn wc_matches_spec(case in wc_case()) {
        if let Err(m) = check_wc(&case) {
            prop_assert!(false, "{}", m);
        }
    }
}

fn token_data() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        8 => prop::sample::select(TOKENS).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => (prop::sample::select(vec![b'x', b' ', b'\n', b'\t', 0x80u8]), 1..600usize)
            .prop_map(|(b, n)| vec![b; n]),
    ];
    prop::collection::vec(token, 0..120).prop_map(|v| v.concat())
}

/// The counts a selection reports (the others are not computed).
fn selected(c: samebytes_spec::wc::Counts, s: &Selection) -> samebytes_spec::wc::Counts {
    samebytes_spec::wc::Counts {
        lines: if s.lines { c.lines } else { 0 },
        words: if s.words { c.words } else { 0 },
        chars: if s.chars { c.chars } else { 0 },
        bytes: if s.bytes { c.bytes } else { 0 },
        max_line_length: if s.max_line_length {
            c.max_line_length
        } else {
            0
        },
    }
}

fn all_selected() -> Selection {
    Selection {
        lines: true,
        words: true,
        chars: true,
        bytes: true,
        max_line_length: true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The counter alone, cut at every possible place into two feeds and
    /// fed one byte at a time, against the spec's whole-input count: the
    /// memchr-style check of every fast path at every boundary.
    #[test]
    fn counter_is_independent_of_feed_boundaries(
        data in token_data(),
        utf8 in any::<bool>(),
        posixly_correct in any::<bool>(),
        select_mask in 1u8..32,
    ) {
        let env = WcEnv::new(if utf8 { Locale::Utf8 } else { Locale::C }, posixly_correct);
        let select = Selection {
            lines: select_mask & 1 != 0,
            words: select_mask & 2 != 0,
            chars: select_mask & 4 != 0,
            bytes: select_mask & 8 != 0,
            max_line_length: select_mask & 16 != 0,
        };
        let plan = Plan::new(&select, env.locale, posixly_correct);
        let expected = count(&data, &env);
        let project = |c: samebytes_spec::wc::Counts| (
            if select.lines { c.lines } else { 0 },
            if select.words { c.words } else { 0 },
            if select.chars { c.chars } else { 0 },
            c.bytes,
            if select.max_line_length { c.max_line_length } else { 0 },
        );
        let step = (data.len() / 64).max(1);
        for cut in (0..=data.len()).step_by(step).chain([data.len()]) {
            let mut counter = Counter::new(plan);
            counter.feed(&data[..cut]);
            counter.feed(&data[cut..]);
            prop_assert_eq!(project(counter.finish()), project(expected), "cut at {}", cut);
        }
        let mut bytewise = Counter::new(plan);
        for b in data.chunks(1) {
            bytewise.feed(b);
        }
        prop_assert_eq!(project(bytewise.finish()), project(expected));
    }
}

/// Every alignment and length of the fast kernels' blocks (8-byte words,
/// 255-byte sum blocks, 32 KiB cache blocks) with each special byte at each
/// position, against the spec.
#[test]
fn counter_at_every_alignment_and_length() {
    let specials: &[&[u8]] = &[
        b"\n",
        b"\t",
        b"\r",
        b"\x0c",
        b"\x0b",
        b" ",
        b"\0",
        b"\x7f",
        b"\xa0",
        b"\xc3\xa9",
        b"\xe3\x80\x80",
        b"\xe2\x80",
        b"\xff",
        b"\xc2\xa0",
        b"\xe2\x80\xa8",
        // Stray lead bytes filling whole 8-byte words, the last of them
        // starting U+3000: the separator search must not pass over a word
        // because every byte in it is a lead.
        b"\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\xe3\x80\x80",
    ];
    // Everything (widths go character by character), and the default
    // counts (words go by stretches between separators).
    let defaults = Selection {
        chars: false,
        max_line_length: false,
        ..all_selected()
    };
    for (utf8, select) in [
        (false, all_selected()),
        (true, all_selected()),
        (true, defaults),
    ] {
        let env = WcEnv::new(if utf8 { Locale::Utf8 } else { Locale::C }, false);
        let plan = Plan::new(&select, env.locale, false);
        for len in (0..40usize).chain([63, 64, 65, 254, 255, 256, 257, 511, 1024]) {
            for special in specials {
                for at in [0, len / 3, len / 2, len.saturating_sub(1)] {
                    let mut data = vec![b'w'; len];
                    for (i, b) in data.iter_mut().enumerate() {
                        if i % 5 == 4 {
                            *b = b' ';
                        }
                    }
                    if at <= len {
                        data.splice(at..at, special.iter().copied());
                    }
                    for offset in 0..8 {
                        let mut padded = vec![b'p'; offset];
                        padded.extend_from_slice(&data);
                        let mut counter = Counter::new(plan);
                        counter.feed(&padded[offset..]);
                        let want = selected(count(&padded[offset..], &env), &select);
                        assert_eq!(
                            selected(counter.finish(), &select),
                            want,
                            "len {len} special {special:?} at {at} offset {offset} utf8 {utf8}"
                        );
                    }
                }
            }
        }
    }
}

/// A regression corpus of hand-picked cases the generators found or that
/// guard known-tricky rules; each is checked like any generated case.
#[test]
fn reproducers_replay_clean() {
    let cases = [
        // stdin is a directory and is named twice.
        WcCase {
            args: vec![b"-".to_vec(), b"-".to_vec()],
            utf8: true,
            posixly_correct: false,
            world: samebytes_spec::world::World {
                files: Default::default(),
                stdin: samebytes_spec::world::Stdin {
                    node: samebytes_spec::world::Node::Directory,
                    offset: 0,
                },
                read_errors: samebytes_spec::world::ReadErrors {
                    files: [(b"a".to_vec(), 3)].into(),
                    stdin: Some(0),
                    stdin_would_block: false,
                },
                ..Default::default()
            },
            read: Default::default(),
            write: Default::default(),
            buffer_size: 1,
            window_size: 1,
        },
    ];
    for case in cases {
        let encoded = case.encode();
        assert_eq!(WcCase::decode(&encoded).expect("round trip"), case);
        if let Err(m) = check_wc(&case) {
            panic!("{m}");
        }
    }
}

/// The binary's path for large regular files (two threads of pread, cut
/// after a newline) counts exactly what the spec counts, and small files
/// are not cut.  The slice path no longer has a two-thread shape: only
/// the shipped descriptor path does.
#[test]
fn regular_files_are_counted_in_halves_on_the_shipped_path() {
    use samebytes::fdinput::FdInput;
    use samebytes::io::Opened;
    use samebytes::wc::{count_opened, WcConfig};
    let cfg = WcConfig {
        parallel_min: 48,
        mmap_min: 0,
        ..WcConfig::default()
    };
    let plan = Plan::new(&all_selected(), Locale::Utf8, false);
    let mut buf = Vec::new();
    let big = "one two\nthr\u{e9}e \u{4e2d}\n".repeat(8).into_bytes();
    let small = b"one two\n".to_vec();
    let env = WcEnv::new(Locale::Utf8, false);
    let dir = std::env::temp_dir().join(format!("samebytes-wc-halves-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    for (data, path) in [(&big, "pread, 2 threads"), (&small, "mmap")] {
        let file = dir.join("input");
        std::fs::write(&file, data).expect("write input");
        let fd = FdInput::open(file.to_str().expect("utf-8 path").as_bytes()).expect("open");
        let counted = count_opened(Opened::Fd(fd), &plan, &cfg, &mut buf);
        assert_eq!(counted.path, path);
        assert_eq!(counted.counts, count(data, &env));
    }
    let _ = std::fs::remove_dir_all(dir);
}
