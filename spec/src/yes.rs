//! Reference `yes`, following current GNU coreutils.
//!
//! The rules, from the coreutils manual and `src/yes.c`:
//! - The operands are joined with single spaces and followed by a newline;
//!   with no operand the line is `y`.  The line is written forever.
//! - Options are `--help` and `--version` only, parsed by gnulib's
//!   `parse_gnu_standard_options_only` with `scan_all`: one `getopt_long`
//!   call with an empty short-option string.  So options are found anywhere
//!   before a `--` (arguments are permuted), unless `POSIXLY_CORRECT` makes
//!   the first operand end them; the first option found decides alone
//!   (help, version, or a usage error with status 1); and the `--` that
//!   ended the options is not an operand, while a later `--` is.
//! - Output ends only with a write error: `yes: standard output: reason`,
//!   status 1.  With SIGPIPE at its default a closed pipe kills the process
//!   instead, silently; that is outside this function, which models a sink
//!   that fails.
//! - `--help` and `--version` that cannot be written get `yes: write error:
//!   reason`, status 1, from `close_stdout`.
//!
//! The output is infinite, so [`yes`] takes the point where stdout fails
//! and returns the prefix written before it.  A stdout that never fails is
//! modelled by a failure after as many bytes as the caller wants to see.

use crate::getopt::{self, HasArg, Item, LongOpt, OptionTable};
use crate::{Outcome, StdoutFailure};

/// The process environment that matters to yes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YesEnv {
    pub posixly_correct: bool,
    /// `argv[0]`, used in every diagnostic.
    pub program: String,
}

impl YesEnv {
    pub fn new(posixly_correct: bool) -> YesEnv {
        YesEnv {
            posixly_correct,
            program: "yes".into(),
        }
    }
}

/// Repeat these operands, or exit at once with this outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation<'a> {
    Repeat(Vec<&'a [u8]>),
    Exit(Outcome),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OptId {
    Help,
    Version,
}

const LONGS: &[LongOpt<OptId>] = &[
    LongOpt {
        name: "help",
        has_arg: HasArg::No,
        id: OptId::Help,
    },
    LongOpt {
        name: "version",
        has_arg: HasArg::No,
        id: OptId::Version,
    },
];

/// The options this parser accepts, by name (for the manual page).
pub fn option_names() -> crate::getopt::OptionNames {
    crate::getopt::OptionNames::of::<OptId>(&[], LONGS)
}

/// The `--help` text.
pub fn help_text(program: &str) -> String {
    format!(
        "Usage: {program} [STRING]...\n  or:  {program} OPTION\n\
Repeatedly output a line with all specified STRING(s), or 'y'.

      --help        display this help and exit
      --version     output version information and exit

samebytes yes: a drop-in for GNU coreutils yes; see docs/differences.md.
"
    )
}

/// Is this word an option to getopt (rather than an operand)?
fn is_option(word: &[u8]) -> bool {
    word.len() >= 2 && word[0] == b'-'
}

/// Parse a yes command line (without the program name).  The operands are
/// borrowed, so a line of many megabytes is never copied here.
pub fn parse_args<'a, A: AsRef<[u8]>>(args: &'a [A], env: &YesEnv) -> Invocation<'a> {
    let program = &env.program;
    let mut operands = Vec::with_capacity(args.len());
    let mut scanning = true;
    for word in args.iter().map(AsRef::as_ref) {
        if scanning && word == b"--" {
            scanning = false;
            continue;
        }
        if scanning && is_option(word) {
            // The first option decides; no option takes an argument, so it
            // parses the same on its own.
            let table = OptionTable {
                shorts: &[],
                longs: LONGS,
            };
            let (items, error) = getopt::parse(program, &[word.to_vec()], &table, true);
            let (stdout, stderr, status) = match (items.first(), error) {
                (
                    Some(Item::Opt {
                        id: OptId::Help, ..
                    }),
                    _,
                ) => (help_text(program), Vec::new(), 0),
                (
                    Some(Item::Opt {
                        id: OptId::Version, ..
                    }),
                    _,
                ) => (crate::version_text("yes"), Vec::new(), 0),
                (_, message) => {
                    let try_help = format!("Try '{program} --help' for more information.\n");
                    (
                        String::new(),
                        [message.unwrap_or_default(), try_help.into_bytes()].concat(),
                        1,
                    )
                }
            };
            return Invocation::Exit(Outcome::new(stdout.into_bytes(), stderr, status));
        }
        if env.posixly_correct {
            scanning = false;
        }
        operands.push(word);
    }
    Invocation::Repeat(operands)
}

/// The pieces of the line yes repeats, in order: the operands with a space
/// between each and a newline after the last, or `y` and a newline.
pub fn line_pieces<'a>(operands: &[&'a [u8]]) -> Vec<&'a [u8]> {
    if operands.is_empty() {
        return vec![b"y", b"\n"];
    }
    let mut pieces = Vec::with_capacity(2 * operands.len());
    for (i, &op) in operands.iter().enumerate() {
        pieces.push(op);
        pieces.push(if i + 1 == operands.len() { b"\n" } else { b" " });
    }
    pieces
}

/// The line yes repeats.
pub fn line(operands: &[&[u8]]) -> Vec<u8> {
    line_pieces(operands).concat()
}

/// The first `len` bytes of the endless output of `line`.
pub fn prefix(line: &[u8], len: usize) -> Vec<u8> {
    let mut out = line.repeat(len / line.len() + 1);
    out.truncate(len);
    out
}

/// Run yes on a command line with a stdout that fails after
/// `stdout_failure.limit` bytes.
pub fn yes<A: AsRef<[u8]>>(args: &[A], env: &YesEnv, stdout_failure: StdoutFailure) -> Outcome {
    let program = &env.program;
    let reason = stdout_failure.errno.message();
    match parse_args(args, env) {
        Invocation::Exit(mut outcome) => {
            if outcome.clip_stdout(Some(stdout_failure)) {
                outcome.diagnose(format!("{program}: write error: {reason}\n").as_bytes());
                outcome.status = 1;
            }
            outcome
        }
        Invocation::Repeat(operands) => Outcome::new(
            prefix(&line(&operands), stdout_failure.limit),
            format!("{program}: standard output: {reason}\n").into_bytes(),
            1,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Errno;

    fn run(args: &[&str], posixly_correct: bool, limit: usize) -> Outcome {
        let env = YesEnv::new(posixly_correct);
        let failure = StdoutFailure {
            limit,
            errno: Errno::BrokenPipe,
        };
        yes(args, &env, failure)
    }

    #[test]
    fn the_line_joins_operands_or_is_y() {
        assert_eq!(run(&[], false, 5).stdout, b"y\ny\ny");
        assert_eq!(
            run(&["a", "", "b c"], false, 14).stdout,
            b"a  b c\na  b c\n"
        );
        assert_eq!(run(&["-"], false, 4).stdout, b"-\n-\n");
    }

    #[test]
    fn the_first_option_anywhere_before_dashdash_decides() {
        assert_eq!(run(&["a", "--help"], false, 1 << 20).status, 0);
        assert_eq!(run(&["a", "--hel", "-x"], false, 1 << 20).status, 0);
        let bad = run(&["a", "-x", "--help"], false, 1 << 20);
        assert_eq!(
            bad.stderr,
            b"yes: invalid option -- 'x'\nTry 'yes --help' for more information.\n"
        );
        assert_eq!(bad.status, 1);
        assert_eq!(
            run(&["a", "--", "--help", "--"], false, 16).stdout,
            b"a --help --\na --"
        );
        assert_eq!(run(&["a", "--help"], true, 9).stdout, b"a --help\n");
        assert_eq!(run(&["a", "--", "b"], true, 7).stdout, b"a -- b\n");
    }

    #[test]
    fn a_write_failure_ends_the_run() {
        let out = run(&["ab"], false, 0);
        assert_eq!(out.stdout, b"");
        assert_eq!(out.stderr, b"yes: standard output: Broken pipe\n");
        assert_eq!(out.status, 1);
        let help = run(&["--help"], false, 3);
        assert_eq!(help.stdout, b"Usa");
        assert_eq!(help.stderr, b"yes: write error: Broken pipe\n");
    }
}
