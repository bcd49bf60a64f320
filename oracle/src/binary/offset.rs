//! Where a run leaves an inherited regular stdin, as far as GNU's rules
//! and the spec's outcome say.  A later reader of the same open file
//! starts there (`(wc; cat) < f`), so it is output too.
//!
//! - A tool that never reads stdin leaves it where it was.
//! - wc and cat read it to its end, or to the byte where a read failed
//!   when the spec reports that failure (wc counting bytes of a regular
//!   file by its size seeks over what it does not read; wc reading its
//!   list of names from stdin always meets the failure).
//! - grep seeks to the end when it is done with stdin, also after a read
//!   error (`finalize_input`), except that `-m`, once reached, puts it back
//!   just after the last selected line, and a run that exits before
//!   reading (`-m 0`, `-v ''`) leaves it where it was: the spec says which
//!   (`StdinLeft`).
//!
//! Not said (`None`): a stdout that fails (cat and grep stop reading early,
//! at a point the spec does not model), and grep with `-q`, `-l`, `-L` or
//! output to /dev/null (GNU leaves stdin wherever reading stopped, which
//! depends on its buffer size).

use samebytes_spec::world::{Node, StdinLeft};
use samebytes_spec::Outcome;

use super::case::{BinaryCase, Tool};

/// Does `operands` make the tool read stdin?
fn names_stdin(operands: &[Vec<u8>]) -> bool {
    operands.is_empty() || operands.iter().any(|o| o == b"-")
}

/// The offset the spec implies for `case`, whose outcome is `spec`.
pub fn expected_stdin_offset(
    case: &BinaryCase,
    spec: &Outcome,
    grep_stdin_left: Option<StdinLeft>,
) -> Option<u64> {
    let Node::Regular(data) = &case.world.stdin.node else {
        return None;
    };
    let closed_stdout = case.stdout == super::case::StdoutKind::Closed;
    if closed_stdout && case.tool == Tool::Cat {
        // cat's start-up `fstat` of stdout fails: it reads nothing.
        return Some(case.world.stdin.offset as u64);
    }
    if case.world.stdin_undescribed() && case.tool == Tool::Cat {
        // cat describes stdin before it reads it, and leaves one that
        // cannot be described unread.  (grep's spec says so itself.)
        return Some(case.world.stdin.offset as u64);
    }
    if case.faults.output_failure.is_some() || case.reader_stops_after.is_some() || closed_stdout {
        return None;
    }
    let start = case.world.stdin.offset as u64;
    let end = data.len().max(case.world.stdin.offset) as u64;
    // Where reading stopped: the failed read's offset if the spec reports
    // that failure for stdin, else the end.
    let stopped = || {
        // cat names stdin `-`, wc `'standard input'`.
        let reported = spec.stderr.split(|&b| b == b'\n').any(|l| {
            l.ends_with(b": -: Input/output error")
                || l.ends_with(b": 'standard input': Input/output error")
        });
        match case.world.read_errors.stdin {
            Some(at) if reported => at as u64,
            _ => end,
        }
    };
    match case.tool {
        Tool::Yes => Some(start),
        Tool::Wc => {
            let locale = if case.utf8 {
                samebytes_spec::Locale::Utf8
            } else {
                samebytes_spec::Locale::C
            };
            let env = samebytes_spec::wc::WcEnv::new(locale, false);
            match samebytes_spec::wc::parse_args(&case.args, &env) {
                samebytes_spec::wc::Invocation::Run(o) => {
                    let reads = match &o.files0_from {
                        Some(f) => f == b"-",
                        None => names_stdin(&o.operands),
                    };
                    // Counting bytes by the size seeks past what it does
                    // not read; a failed read there is where it stopped.
                    // A stdin `fstat` cannot size is read.
                    let by_size = o.select.bytes_only(locale)
                        && o.files0_from.is_none()
                        && !case.world.stdin_undescribed();
                    let from = samebytes_spec::wc::size_count_reads_from(
                        data.len(),
                        case.world.stdin.offset,
                    );
                    // A list of names on stdin is read to its end, or to
                    // the read that fails (reported as "cannot read file
                    // names from", not against stdin).
                    let list_on_stdin = o.files0_from.as_deref() == Some(b"-".as_slice());
                    Some(match (reads, by_size, from) {
                        (true, _, _) if list_on_stdin => {
                            case.world.read_errors.stdin.map_or(end, |at| at as u64)
                        }
                        (false, _, _) => start,
                        (true, true, Some(from)) => stopped().max(from as u64),
                        (true, _, _) => stopped(),
                    })
                }
                _ => Some(start),
            }
        }
        Tool::Cat => {
            let env = samebytes_spec::cat::CatEnv::new(samebytes_spec::Locale::C, false);
            match samebytes_spec::cat::parse_args(&case.args, &env) {
                samebytes_spec::cat::Invocation::Run(o) => Some(if names_stdin(&o.operands) {
                    stopped()
                } else {
                    start
                }),
                _ => Some(start),
            }
        }
        Tool::Grep => {
            let env = samebytes_spec::grep::GrepEnv::new(samebytes_spec::Locale::C);
            match samebytes_spec::grep::parse_args(&case.args, &env) {
                samebytes_spec::grep::Invocation::Run(o) => {
                    let dev_null = case.stdout == super::case::StdoutKind::DevNull;
                    let unsaid = o.effective(dev_null).done_on_match;
                    match (names_stdin(&o.operands), unsaid, grep_stdin_left?) {
                        (false, _, _) | (_, _, StdinLeft::Untouched) => Some(start),
                        (true, true, _) => None,
                        (true, false, StdinLeft::PutBack(at)) => Some(at as u64),
                        (true, false, StdinLeft::Read) => Some(end),
                    }
                }
                _ => Some(start),
            }
        }
    }
}
