//! cat, exhaustively: every input over [`ALPHABET`] up to the bound, as a
//! regular file operand to a pipe, under every one of the 2^10 sets of
//! `-A -b -e -E -n -s -t -T -u -v` (run once per distinct formatting they
//! parse to), with read and write sizes of each capacity and every read
//! schedule that fits; then every short-write schedule of the output's
//! first bytes and a write failure at every offset.

use std::sync::OnceLock;

use samebytes_spec::cat::{CatEnv, CatStdout, Formatting, Invocation};
use samebytes_spec::world::{Node, World};
use samebytes_spec::Locale;

use super::{
    byte_members, capacities, compositions, reads, write_schedules, Alphabet, Checker, Symbol,
    Tally,
};
use crate::cat::{case_config, run_impl, run_spec, CatCase};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::schedule::{ReadSchedule, WriteSchedule};
use samebytes::cat::CatConfig;

/// The classes cat's formatter tells apart.  cat works on bytes in every
/// locale (GNU's `-v` is byte-wise), so the C locale stands for both.
pub static ALPHABET: Alphabet = &[
    Symbol {
        name: "print",
        rep: b"a",
        members: || byte_members(&[(0x20, 0x7e)], &[]),
        why: "printable ASCII, space included: copied as it is under every option",
    },
    Symbol {
        name: "tab",
        rep: b"\t",
        members: || vec![b"\t".to_vec()],
        why: "shown as ^I by -T, else copied",
    },
    Symbol {
        name: "nl",
        rep: b"\n",
        members: || vec![b"\n".to_vec()],
        why: "ends a line: numbering, -E's $, and -s's blank lines",
    },
    Symbol {
        name: "cr",
        rep: b"\r",
        members: || vec![b"\r".to_vec()],
        why: "^M under -v, and under -E before a newline (GNU shows CR LF as ^M$)",
    },
    Symbol {
        name: "ctl",
        rep: b"\x01",
        members: || {
            byte_members(
                &[(0x00, 0x08), (0x0b, 0x0c), (0x0e, 0x1f), (0x7f, 0x7f)],
                &[],
            )
        },
        why: "NUL, the C0 controls but tab, newline and CR, and DEL: ^ and one printable byte \
              under -v",
    },
    Symbol {
        name: "hctl",
        rep: b"\x81",
        members: || byte_members(&[(0x80, 0x9f), (0xff, 0xff)], &[]),
        why: "0x80-0x9F and 0xFF: M-^ and one printable byte under -v",
    },
    Symbol {
        name: "hprint",
        rep: b"\xe1",
        members: || byte_members(&[(0xa0, 0xfe)], &[]),
        why: "0xA0-0xFE: M- and one printable byte under -v",
    },
];

const FLAGS: [&[u8]; 10] = [
    b"-A", b"-b", b"-e", b"-E", b"-n", b"-s", b"-t", b"-T", b"-u", b"-v",
];

fn env() -> CatEnv {
    CatEnv::new(Locale::C, false)
}

/// One flag set standing for each distinct formatting the 1024 sets parse
/// to (the implementation parses with the spec's parser, so two sets that
/// parse alike run alike).
fn option_sets() -> &'static [Vec<Vec<u8>>] {
    static SETS: OnceLock<Vec<Vec<Vec<u8>>>> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut seen: Vec<Formatting> = Vec::new();
        let mut sets = Vec::new();
        for mask in 0u32..1024 {
            let args: Vec<Vec<u8>> = FLAGS
                .iter()
                .enumerate()
                .filter(|(bit, _)| mask & (1 << bit) != 0)
                .map(|(_, f)| f.to_vec())
                .collect();
            let Invocation::Run(opts) = samebytes_spec::cat::parse_args(&args, &env()) else {
                panic!("cat flags {args:?} do not parse");
            };
            if !seen.contains(&opts.format) {
                seen.push(opts.format);
                sets.push(args);
            }
        }
        sets
    })
}

pub struct CatChecker;

impl CatChecker {
    fn case(input: &[u8], flags: &[Vec<u8>]) -> CatCase {
        let mut world = World::default();
        world
            .files
            .insert(b"f".to_vec(), Node::Regular(input.to_vec()));
        let mut args = flags.to_vec();
        args.push(b"f".to_vec());
        CatCase {
            args,
            utf8: false,
            posixly_correct: false,
            world,
            stdout: CatStdout::Stream,
            read: ReadSchedule::whole(),
            write: WriteSchedule::default(),
            read_size: 1,
            write_size: 1,
        }
    }

    fn check_options(
        mut case: CatCase,
        len: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let expected = run_spec(&case);
        tally.spec();
        // The read side: every read and write size, every cut of the input.
        for read_size in capacities(n) {
            for write_size in capacities(n) {
                for parts in compositions(len, read_size) {
                    case.read = reads(&parts);
                    case.read_size = read_size;
                    case.write_size = write_size;
                    let actual = run_impl(&case, case.read.clone(), &case_config(&case));
                    tally.run();
                    let variant = format!("read {read_size} / write {write_size}, reads {parts:?}");
                    compare_in_order("cat", &variant, &expected, &actual, &|| case.reproducer())?;
                }
            }
        }
        // The write side, with whole reads.
        case.read = ReadSchedule::whole();
        for cap in capacities(n) {
            case.read_size = cap;
            case.write_size = cap;
            for write in write_schedules(expected.stdout.len(), n, cap) {
                case.write = write;
                let expected = if case.write.failure.is_some() {
                    tally.spec();
                    run_spec(&case)
                } else {
                    expected.clone()
                };
                let actual = run_impl(&case, ReadSchedule::whole(), &case_config(&case));
                tally.run();
                let variant = format!("read/write {cap}, writes {:?}", case.write);
                compare_in_order("cat", &variant, &expected, &actual, &|| case.reproducer())?;
            }
        }
        Ok(())
    }
}

impl Checker for CatChecker {
    fn tool(&self) -> &'static str {
        "cat"
    }

    fn alphabet(&self) -> Alphabet {
        ALPHABET
    }

    fn option_count(&self) -> usize {
        option_sets().len()
    }

    fn option_sets(&self) -> String {
        "the distinct formattings of all 1024 sets of -AbeEnstTuv".into()
    }

    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome {
        run_spec(&Self::case(input, &option_sets()[index]))
    }

    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        Self::check_options(
            Self::case(input, &option_sets()[index]),
            input.len(),
            n,
            tally,
        )
    }

    /// After a line of `a`: the default read and write sizes, whole reads
    /// and reads cut around the input.
    fn check_shifted(
        &self,
        input: &[u8],
        before: usize,
        index: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let mut data = super::filler_line(b'a', before);
        data.extend_from_slice(input);
        let mut case = Self::case(&data, &option_sets()[index]);
        let expected = run_spec(&case);
        tally.spec();
        for read in super::shifted_reads(before, input.len()) {
            case.read = read;
            let actual = run_impl(&case, case.read.clone(), &CatConfig::default());
            tally.shifted_run();
            let variant = format!("shifted by {before}, default sizes, reads {:?}", case.read);
            compare_in_order("cat", &variant, &expected, &actual, &|| case.reproducer())?;
        }
        Ok(())
    }
}
