//! wc, exhaustively: every input over [`ALPHABET`] up to the bound, as a
//! regular file operand, under all 31 count sets in the C and the UTF-8
//! locale (and with `POSIXLY_CORRECT` for the 16 sets that count words),
//! through the slice path with windows of each capacity and the streaming
//! path with buffers of each capacity and every read schedule that fits.

use samebytes_spec::world::{Node, World};

use super::{
    byte_members, capacities, compositions, filler_line, reads, shifted_reads, Alphabet, Checker,
    Symbol, Tally,
};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::schedule::{ReadSchedule, WriteSchedule};
use crate::wc::{run_impl, run_spec, small_config, ImplPath, WcCase};
use samebytes::wc::WcConfig;

/// Every character of the listed code points, as UTF-8, but those with
/// the byte 0xA0, which separates words in the C locale.
fn chars(ranges: &[(u32, u32)]) -> Vec<Vec<u8>> {
    ranges
        .iter()
        .flat_map(|&(lo, hi)| lo..=hi)
        .filter_map(char::from_u32)
        .map(|c| c.to_string().into_bytes())
        .filter(|bytes| !bytes.contains(&0xa0))
        .collect()
}

/// Lead bytes of two-byte characters whose every completion (any
/// continuation byte) is a printable, width-1 letter that is no space:
/// U+00C0–U+017F and U+0400–U+047F.
const LETTER_LEADS: &[(u8, u8)] = &[(0xc3, 0xc5), (0xd0, 0xd1)];

/// The classes wc's counters tell apart.  In the C locale the bytes from
/// 0x80 up are two classes: 0xA0 (`a0`) and the rest (`cont`).
pub static ALPHABET: Alphabet = &[
    Symbol {
        name: "word",
        rep: b"a",
        members: || byte_members(&[(0x21, 0x7e)], &[]),
        why: "printable ASCII that is no space: width 1, part of a word, in both locales",
    },
    Symbol {
        name: "space",
        rep: b" ",
        members: || vec![b" ".to_vec()],
        why: "the one separator of width 1",
    },
    Symbol {
        name: "tab",
        rep: b"\t",
        members: || vec![b"\t".to_vec()],
        why: "a separator that moves -L to the next multiple of 8",
    },
    Symbol {
        name: "nl",
        rep: b"\n",
        members: || vec![b"\n".to_vec()],
        why: "counted by -l, ends a line for -L",
    },
    Symbol {
        name: "cr",
        rep: b"\r",
        members: || vec![b"\r".to_vec(), b"\x0c".to_vec()],
        why: "CR and FF: separators that end a line for -L without counting one",
    },
    Symbol {
        name: "vt",
        rep: b"\x0b",
        members: || vec![b"\x0b".to_vec()],
        why: "the separator of width 0",
    },
    Symbol {
        name: "ctl",
        rep: b"\x01",
        members: || byte_members(&[(0x00, 0x08), (0x0e, 0x1f), (0x7f, 0x7f)], &[]),
        why: "NUL, the other C0 controls and DEL: width 0, no separator",
    },
    Symbol {
        name: "cont",
        rep: b"\x80",
        members: || byte_members(&[(0x80, 0xbf)], &[0xa0]),
        why: "a continuation byte: an encoding error alone, a letter after `lead`",
    },
    Symbol {
        name: "a0",
        rep: b"\xa0",
        members: || vec![b"\xa0".to_vec()],
        why: "a continuation byte in UTF-8, but in the C locale the no-break space, \
              which separates words unless POSIXLY_CORRECT",
    },
    Symbol {
        name: "lead",
        rep: b"\xc3",
        members: || byte_members(LETTER_LEADS, &[]),
        why: "a two-byte lead whose every completion is a width-1 letter (LETTER_LEADS); \
              an encoding error before anything but a continuation byte",
    },
    Symbol {
        name: "bad",
        rep: b"\xff",
        members: || byte_members(&[(0xc0, 0xc1), (0xf5, 0xff)], &[]),
        why: "bytes that are never valid UTF-8 anywhere",
    },
    Symbol {
        name: "letter2",
        rep: "é".as_bytes(),
        members: || chars(&[(0xc0, 0x17f), (0x400, 0x47f)]),
        why: "a two-byte printable width-1 character that is no space",
    },
    Symbol {
        name: "nbsp",
        rep: "\u{a0}".as_bytes(),
        members: || vec!["\u{a0}".as_bytes().to_vec()],
        why: "U+00A0: a word separator unless POSIXLY_CORRECT (the only two-byte one)",
    },
    Symbol {
        name: "comb",
        rep: "\u{301}".as_bytes(),
        members: || chars(&[(0x300, 0x36f)]),
        why: "a combining mark: printable, width 0, part of a word",
    },
    Symbol {
        name: "wide",
        rep: "中".as_bytes(),
        members: || chars(&[(0x4e00, 0x9fa5)]),
        why: "a CJK ideograph: printable, width 2, part of a word",
    },
    Symbol {
        name: "wspace",
        rep: "\u{3000}".as_bytes(),
        members: || chars(&[(0x3000, 0x3000)]),
        why: "U+3000, the ideographic space: a separator of width 2",
    },
    Symbol {
        name: "trunc3",
        rep: b"\xe4\xb8",
        members: || {
            // The first two bytes of the ideographs U+4E00–U+9FFF: a
            // `cont` after them completes a width-2 ideograph.
            (0x4e00u32..=0x9fffu32)
                .step_by(64)
                .filter_map(char::from_u32)
                .map(|c| c.to_string().into_bytes()[..2].to_vec())
                .filter(|bytes| !bytes.contains(&0xa0))
                .collect()
        },
        why: "a three-byte sequence cut after two bytes: an encoding error, \
              or a wide ideograph when a continuation byte follows",
    },
];

/// The count sets: every non-empty subset of `-l -w -m -c -L`.
fn count_sets() -> Vec<Vec<u8>> {
    (1u32..32)
        .map(|mask| {
            let mut arg = b"-".to_vec();
            for (bit, flag) in b"lwmcL".iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    arg.push(*flag);
                }
            }
            arg
        })
        .collect()
}

pub struct WcChecker;

impl WcChecker {
    /// Option set `index`: count set `index / 3`, in the C locale, the
    /// UTF-8 locale, or the UTF-8 locale with `POSIXLY_CORRECT`.
    fn case(input: &[u8], index: usize) -> WcCase {
        let flags = &count_sets()[index / 3];
        let (utf8, posixly_correct) = [(false, false), (true, false), (true, true)][index % 3];
        let mut world = World::default();
        world
            .files
            .insert(b"f".to_vec(), Node::Regular(input.to_vec()));
        WcCase {
            args: vec![flags.clone(), b"f".to_vec()],
            utf8,
            posixly_correct,
            world,
            read: ReadSchedule::whole(),
            write: WriteSchedule::default(),
            buffer_size: 1,
            window_size: 1,
        }
    }

    /// Check one input under one option set at every capacity and read
    /// schedule.
    fn check_options(mut case: WcCase, n: usize, tally: &Tally) -> Result<(), Box<Mismatch>> {
        let expected = run_spec(&case);
        tally.spec();
        let len = input_len(&case);
        for cap in capacities(n) {
            case.buffer_size = cap;
            case.window_size = cap;
            case.read = ReadSchedule::whole();
            let cfg = small_config(&case);
            let actual = run_impl(&case, ImplPath::Slice, &cfg);
            tally.run();
            compare_in_order(
                "wc",
                &format!("slice, window {cap}"),
                &expected,
                &actual,
                &|| case.reproducer(),
            )?;
            for parts in compositions(len, cap) {
                case.read = reads(&parts);
                let actual = run_impl(&case, ImplPath::Stream, &cfg);
                tally.run();
                let variant = format!("stream, buffer {cap}, reads {parts:?}");
                compare_in_order("wc", &variant, &expected, &actual, &|| case.reproducer())?;
            }
        }
        Ok(())
    }
}

fn input_len(case: &WcCase) -> usize {
    match case.world.files.get(&b"f"[..]) {
        Some(Node::Regular(d)) => d.len(),
        _ => 0,
    }
}

impl Checker for WcChecker {
    fn tool(&self) -> &'static str {
        "wc"
    }

    fn alphabet(&self) -> Alphabet {
        ALPHABET
    }

    fn option_count(&self) -> usize {
        31 * 3
    }

    fn option_sets(&self) -> String {
        "31 count sets in C and UTF-8, and the 16 with -w under POSIXLY_CORRECT".into()
    }

    /// In the C locale every byte from 0x80 up but 0xA0 is one class (not
    /// printable, no space): a C set on an input with other high bytes
    /// is checked on the input with each of them made `cont`'s 0x80.
    /// `POSIXLY_CORRECT` only changes which characters separate words: a
    /// set that counts no words is checked without it.
    fn stand_in(&self, input: &[u8], index: usize) -> Option<(Vec<u8>, usize)> {
        let words = count_sets()[index / 3].contains(&b'w');
        match index % 3 {
            0 if input.iter().any(|&b| b > 0x80 && b != 0xa0) => Some((
                input
                    .iter()
                    .map(|&b| if b == 0xa0 { b } else { b.min(0x80) })
                    .collect(),
                index,
            )),
            2 if !words => Some((input.to_vec(), index - 1)),
            _ => None,
        }
    }

    fn exact(&self) -> bool {
        true
    }

    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome {
        run_spec(&Self::case(input, index))
    }

    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        Self::check_options(Self::case(input, index), n, tally)
    }

    /// After a line of `word` bytes: the file as one slice (the 8-byte
    /// lanes and 64-byte blocks at full size), the same split across
    /// threads from 48 bytes up, and streamed at the default buffer.
    fn check_shifted(
        &self,
        input: &[u8],
        before: usize,
        index: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let mut data = filler_line(b'a', before);
        data.extend_from_slice(input);
        let mut case = Self::case(&data, index);
        let expected = run_spec(&case);
        tally.spec();
        let split = WcConfig {
            parallel_min: 48,
            ..WcConfig::default()
        };
        let mut runs = vec![
            (
                "slice".to_string(),
                ImplPath::Slice,
                WcConfig::default(),
                ReadSchedule::whole(),
            ),
            (
                "slice, split".to_string(),
                ImplPath::Slice,
                split,
                ReadSchedule::whole(),
            ),
        ];
        for read in shifted_reads(before, input.len()) {
            runs.push((
                format!("stream, reads {read:?}"),
                ImplPath::Stream,
                WcConfig::default(),
                read,
            ));
        }
        for (name, path, cfg, read) in runs {
            case.read = read;
            let actual = run_impl(&case, path, &cfg);
            tally.shifted_run();
            let variant = format!("shifted by {before}, {name}");
            compare_in_order("wc", &variant, &expected, &actual, &|| case.reproducer())?;
        }
        Ok(())
    }
}
