//! yes, exhaustively: every command line over [`ALPHABET`] up to the
//! bound (a NUL splits operands), with and without `POSIXLY_CORRECT`,
//! under every warm-up write, warm-up and send size of each capacity, and
//! a stdout that fails at every offset of the first two lines and a bit
//! (with EPIPE after every cut of its first bytes into short writes, and
//! with ENOSPC).
//!
//! yes never reads, so the read side is its command line.

use samebytes::yes::YesConfig;

use super::{byte_members, capacities, compositions, Alphabet, Checker, Symbol, Tally};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::schedule::{WriteFailureKind, WriteStep};
use crate::yes::{run_impl, run_spec, YesCase};

/// The classes yes tells apart.  It copies its operands' bytes without
/// looking at them; only option parsing reads them.
pub static ALPHABET: Alphabet = &[
    Symbol {
        name: "byte",
        rep: b"y",
        members: || byte_members(&[(0x01, 0xff)], b"-hv="),
        why: "any byte an argument can hold but `-`, `h`, `v` and `=`: copied; \
              after `--` it names no long option (`--h` is --help, `--v` --version, \
              and `--=` an empty name that is ambiguous)",
    },
    Symbol {
        name: "dash",
        rep: b"-",
        members: || vec![b"-".to_vec()],
        why: "starts an option, or `--`",
    },
    Symbol {
        name: "next",
        rep: b"\0",
        members: || vec![b"\0".to_vec()],
        why: "not a byte of the line: it ends one argument and starts the next \
              (argv cannot hold NUL)",
    },
];

/// The arguments an input stands for.
pub fn args_of(input: &[u8]) -> Vec<Vec<u8>> {
    if input.is_empty() {
        return Vec::new();
    }
    input.split(|&b| b == 0).map(<[u8]>::to_vec).collect()
}

pub struct YesChecker;

impl YesChecker {
    fn case(input: &[u8], posixly_correct: bool, limit: usize) -> YesCase {
        YesCase {
            args: args_of(input),
            posixly_correct,
            steps: Vec::new(),
            limit,
            failure: WriteFailureKind::BrokenPipe,
            config: YesConfig::default(),
        }
    }

    fn configs(n: usize) -> Vec<YesConfig> {
        let mut out = Vec::new();
        for warm_up_write in capacities(n) {
            for warm_up in capacities(n) {
                for send in capacities(n) {
                    out.push(YesConfig {
                        warm_up_write,
                        warm_up,
                        pipe_size: send,
                        write_size: send,
                    });
                }
            }
        }
        out
    }

    fn check_case(case: &YesCase, n: usize, tally: &Tally) -> Result<(), Box<Mismatch>> {
        let expected = run_spec(case);
        tally.spec();
        for config in Self::configs(n) {
            let actual = run_impl(case, &config);
            tally.run();
            let variant = format!(
                "warm-up {}/{}, sends of {}, writes {:?}",
                config.warm_up_write, config.warm_up, config.pipe_size, case.steps
            );
            let mut replayed = case.clone();
            replayed.config = config;
            compare_in_order("yes", &variant, &expected, &actual, &|| {
                replayed.reproducer()
            })?;
        }
        Ok(())
    }
}

impl Checker for YesChecker {
    fn tool(&self) -> &'static str {
        "yes"
    }

    fn alphabet(&self) -> Alphabet {
        ALPHABET
    }

    fn option_count(&self) -> usize {
        2
    }

    fn option_sets(&self) -> String {
        "without and with POSIXLY_CORRECT".into()
    }

    fn max_jobs(&self) -> usize {
        1
    }

    /// The first 64 bytes of output.
    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome {
        run_spec(&Self::case(input, index == 1, 64))
    }

    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        // The line is at most the input and a newline, or "y\n".
        let line = input.len().max(1) + 1;
        let last = 2 * line.max(n) + 1;
        for limit in 0..=last {
            let mut case = Self::case(input, index == 1, limit);
            for parts in compositions(limit.min(n), n) {
                case.steps = parts.into_iter().map(WriteStep::Accept).collect();
                Self::check_case(&case, n, tally)?;
            }
            case.steps = Vec::new();
            case.failure = WriteFailureKind::NoSpace;
            Self::check_case(&case, n, tally)?;
        }
        Ok(())
    }

    /// yes reads nothing: its input is its command line, so the input
    /// follows `before` bytes of `y` in the first operand (a line that
    /// long), and the output is read for two lines and a byte at the
    /// binaries' sizes, so that whole lines fill the warm-up writes and
    /// the send buffer at every offset.
    fn check_shifted(
        &self,
        input: &[u8],
        before: usize,
        index: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let mut line = vec![b'y'; before];
        line.extend_from_slice(input);
        let limit = 2 * (line.len() + 1) + 1;
        let case = Self::case(&line, index == 1, limit);
        let expected = run_spec(&case);
        tally.spec();
        let actual = run_impl(&case, &YesConfig::default());
        tally.shifted_run();
        let variant = format!("shifted by {before}, default sizes");
        compare_in_order("yes", &variant, &expected, &actual, &|| case.reproducer())
    }
}
