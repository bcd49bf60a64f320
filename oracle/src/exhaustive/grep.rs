//! grep, exhaustively: every input over [`ALPHABET`] up to the bound, as
//! a regular file operand, in the C and the UTF-8 locale, under a grid of
//! [`PATTERNS`] × all 2^10 sets of `-v -c -n -o -x -w -m1 -A1 -B1 -z`,
//! streamed and mapped, with a stream buffer (and the windows and
//! thresholds derived from it) of each capacity and every read schedule
//! that fits.

use std::cell::RefCell;
use std::rc::Rc;

use samebytes_spec::grep::GrepStdout;
use samebytes_spec::world::{Node, World};

use super::{byte_members, capacities, compositions, reads, Alphabet, Checker, Symbol, Tally};
use crate::grep::{run_impl_prepared, ColorEnv, FileStrategy, GrepCase, PreparedArgs};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::schedule::{ReadSchedule, WriteSchedule};

/// The patterns: a literal (the matcher's byte search), both anchors, any
/// character (one UTF-8 character, never an encoding error), and a
/// pattern that matches the empty string everywhere.
pub const PATTERNS: [&[u8]; 5] = [b"a", b"^a", b"a$", b".", b"a*"];

pub const FLAGS: [&[u8]; 10] = [
    b"-v", b"-c", b"-n", b"-o", b"-x", b"-w", b"-m1", b"-A1", b"-B1", b"-z",
];

/// The ASCII characters that are no word constituent, newline or NUL.
pub const ASCII_NON_WORD: &[(u8, u8)] = &[
    (0x01, 0x09),
    (0x0b, 0x2f),
    (0x3a, 0x40),
    (0x5b, 0x5e),
    (0x60, 0x60),
    (0x7b, 0x7f),
];

/// The classes grep tells apart under [`PATTERNS`].
pub static ALPHABET: Alphabet = &[
    Symbol {
        name: "a",
        rep: b"a",
        members: || vec![b"a".to_vec()],
        why: "the byte the patterns name",
    },
    Symbol {
        name: "word",
        rep: b"b",
        members: || {
            byte_members(
                &[(b'0', b'9'), (b'A', b'Z'), (b'_', b'_'), (b'b', b'z')],
                &[],
            )
        },
        why: "a word constituent the patterns do not name: matched by `.`, joins a word for -w",
    },
    Symbol {
        name: "other",
        rep: b" ",
        members: || byte_members(ASCII_NON_WORD, &[]),
        why: "an ASCII character that is no word constituent, newline or NUL: matched by `.`, \
              ends a word for -w",
    },
    Symbol {
        name: "nl",
        rep: b"\n",
        members: || vec![b"\n".to_vec()],
        why: "ends a line (but under -z)",
    },
    Symbol {
        name: "nul",
        rep: b"\0",
        members: || vec![b"\0".to_vec()],
        why: "makes a file binary (ends a line under -z)",
    },
    Symbol {
        name: "bad",
        rep: b"\xff",
        members: || byte_members(&[(0xc0, 0xc1), (0xf5, 0xff)], &[]),
        why: "never valid UTF-8: binary in UTF-8, a non-word byte in C",
    },
    Symbol {
        name: "letter2",
        rep: "é".as_bytes(),
        members: || {
            // Latin-1 letters, Latin Extended-A and Cyrillic, without the
            // two signs among them (× and ÷).
            (0xc0u32..=0x17f)
                .chain(0x400..=0x47f)
                .filter(|&c| c != 0xd7 && c != 0xf7)
                .filter_map(char::from_u32)
                .map(|c| c.to_string().into_bytes())
                .collect()
        },
        why: "a two-byte letter: one word character in UTF-8, two non-word bytes in C",
    },
];

/// Option set `index`: the locale, the pattern and the flags (bit `i` of
/// the index's low ten bits is `FLAGS[i]`).
fn option_set(index: usize) -> (bool, &'static [u8], Vec<Vec<u8>>) {
    let mask = index % 1024;
    let pattern = PATTERNS[index / 1024 % PATTERNS.len()];
    let utf8 = index / 1024 / PATTERNS.len() == 1;
    let flags = FLAGS
        .iter()
        .enumerate()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, f)| f.to_vec())
        .collect();
    (utf8, pattern, flags)
}

/// A case's command line, prepared (`samebytes::grep::prepare`: options,
/// patterns, matcher) once and searched with for every input, as the
/// binary prepares once and searches every operand: building the matcher
/// was 60% of a run.  The grids go option set by option set
/// ([`Checker::option_major`]), so a worker keeps the command line it is
/// on, told by its arguments and locale.
pub fn prepared(case: &GrepCase) -> Rc<PreparedArgs> {
    type Last = Option<((Vec<Vec<u8>>, bool), Rc<PreparedArgs>)>;
    thread_local! {
        static LAST: RefCell<Last> = const { RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some(((args, utf8), p)) if *args == case.args && *utf8 == case.utf8 => p.clone(),
            _ => {
                let p = Rc::new(PreparedArgs::new(case));
                *last = Some(((case.args.clone(), case.utf8), p.clone()));
                p
            }
        }
    })
}

/// A grid's case: `args` on `world`, stdout a stream, the whole input in
/// one read, and a stream buffer of `buffer` bytes.
pub fn grid_case(args: Vec<Vec<u8>>, utf8: bool, world: World, buffer: usize) -> GrepCase {
    GrepCase {
        args,
        utf8,
        world,
        stdout: GrepStdout::Stream,
        read: ReadSchedule::whole(),
        write: WriteSchedule::default(),
        buffer,
        colors: ColorEnv::default(),
    }
}

/// A world whose files `names` each hold `input`.
pub fn files_holding(names: &[&[u8]], input: &[u8]) -> World {
    let mut world = World::default();
    for name in names {
        world
            .files
            .insert(name.to_vec(), Node::Regular(input.to_vec()));
    }
    world
}

/// Check `case` (inputs of `len` bytes) against the spec at every
/// capacity of bound `n` and every read schedule, through each of
/// `strategies`.
pub fn check_every_schedule(
    mut case: GrepCase,
    len: usize,
    n: usize,
    strategies: &[FileStrategy],
    tally: &Tally,
) -> Result<(), Box<Mismatch>> {
    let expected = case.spec_outcome();
    tally.spec();
    let prepared = prepared(&case);
    for cap in capacities(n) {
        case.buffer = cap;
        // The stream buffer grows past its starting capacity for a
        // line longer than it, and then asks for more: every cut.
        for parts in compositions(len, len) {
            case.read = reads(&parts);
            for &strategy in strategies {
                let actual = run_impl_prepared(&case, strategy, &prepared);
                tally.run();
                let variant = format!("buffer {cap}, {strategy:?}, reads {parts:?}");
                compare_in_order("grep", &variant, &expected, &actual, &|| case.reproducer())?;
            }
        }
    }
    Ok(())
}

pub struct GrepChecker;

impl GrepChecker {
    fn case(input: &[u8], index: usize) -> GrepCase {
        let (utf8, pattern, flags) = option_set(index);
        let mut args = flags;
        args.extend([b"-e".to_vec(), pattern.to_vec(), b"f".to_vec()]);
        grid_case(args, utf8, files_holding(&[b"f"], input), 1)
    }
}

impl Checker for GrepChecker {
    fn tool(&self) -> &'static str {
        "grep"
    }

    fn alphabet(&self) -> Alphabet {
        ALPHABET
    }

    fn option_count(&self) -> usize {
        2 * PATTERNS.len() * 1024
    }

    fn option_major(&self) -> bool {
        true
    }

    fn option_sets(&self) -> String {
        format!(
            "C and UTF-8 × patterns {} × all sets of -v -c -n -o -x -w -m1 -A1 -B1 -z",
            PATTERNS.map(String::from_utf8_lossy).join(" ")
        )
    }

    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome {
        Self::case(input, index).spec_outcome()
    }

    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let both = [FileStrategy::Stream, FileStrategy::Mapped];
        check_every_schedule(Self::case(input, index), input.len(), n, &both, tally)
    }

    /// After a line of `b` (a word byte no pattern names): streamed and
    /// mapped at the binaries' buffer size, for the option sets whose
    /// flags are at most one of [`SHIFTED_FLAGS`] (the searcher's fast
    /// lanes are the literal and line searches, which context, `-n`,
    /// `-m1` and `-z` only follow).
    fn check_shifted(
        &self,
        input: &[u8],
        before: usize,
        index: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let mask = index % 1024;
        if mask.count_ones() > 1 || SHIFTED_FLAGS & mask != mask {
            return Ok(());
        }
        let mut data = super::filler_line(b'b', before);
        data.extend_from_slice(input);
        let mut case = Self::case(&data, index);
        case.buffer = samebytes::grep::GrepConfig::default().buffer;
        let expected = case.spec_outcome();
        tally.spec();
        let prepared = prepared(&case);
        for read in super::shifted_reads(before, input.len()) {
            case.read = read;
            for strategy in [FileStrategy::Stream, FileStrategy::Mapped] {
                let actual = run_impl_prepared(&case, strategy, &prepared);
                tally.shifted_run();
                let variant = format!("shifted by {before}, {strategy:?}, reads {:?}", case.read);
                compare_in_order("grep", &variant, &expected, &actual, &|| case.reproducer())?;
            }
        }
        Ok(())
    }
}

/// The flags the shifted mode takes one at a time (bits of an option
/// set's mask): `-v`, `-c`, `-o`, `-x`, `-w`.
const SHIFTED_FLAGS: usize = 0b11_1011;
