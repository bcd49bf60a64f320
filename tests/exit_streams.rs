//! How the binaries leave, against the spec, under the fault layer: the
//! closes of stdout and stderr at exit (gnulib's `close_stdout`), a stderr
//! that takes nothing, `grep -q`'s exit at its first match, and a
//! directory listing that fails part way.  The binary campaign meets each
//! of these in a share of its cases; here each is forced, on cases the
//! campaign's generator makes, so that a few seconds check them all (the
//! mutation gate runs this file).

mod common;

use common::campaign_binaries as binaries;

use samebytes_oracle::binary::{check, generate, BinaryCase, StdoutKind, Tool};
use samebytes_oracle::faultplan::OutputErrno;
use samebytes_spec::world::{Node, Stdin};

/// Run `case` and fail on any difference from the spec.
fn agrees(case: &BinaryCase) {
    let (_, result) = check(case, binaries());
    if let Err(m) = result {
        panic!("{m}\n{case}");
    }
}

/// The generator's case of `tool` for `seed`, its writes all working and
/// its stdout open, so that only the close can fail.
fn writes_work(tool: Tool, seed: u64) -> BinaryCase {
    let mut case = generate(tool, seed);
    case.faults.output_failure = None;
    case.reader_stops_after = None;
    case.sigpipe_default = false;
    if case.stdout == StdoutKind::Closed {
        case.stdout = StdoutKind::Pipe;
    }
    case
}

/// Closing stdout fails at exit after every write worked: `TOOL: write
/// error: REASON` and the failure status, through the tool-named binaries
/// and the multicall one (odd seeds), whatever else the case does.
#[test]
fn a_failing_close_of_stdout_is_a_write_error() {
    for tool in [Tool::Wc, Tool::Cat, Tool::Grep] {
        for seed in 0..12 {
            let mut case = writes_work(tool, seed);
            case.faults.close_failure = Some(OutputErrno::Io);
            agrees(&case);
        }
    }
}

/// A stderr that takes nothing: the messages are lost, and a tool that
/// wrote one exits with its failure status.
#[test]
fn a_failing_stderr_is_the_failure_status() {
    for tool in [Tool::Wc, Tool::Cat, Tool::Grep] {
        for seed in 0..12 {
            let mut case = writes_work(tool, seed);
            case.stderr_full = true;
            agrees(&case);
        }
    }
}

/// A grep case with this command line over two files, `f0` holding a
/// selected line, and `missing`.
fn grep_over(args: &[&str], seed: u64) -> BinaryCase {
    let mut case = writes_work(Tool::Grep, seed);
    case.args = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    case.tree = None;
    case.world.files.clear();
    case.world.read_errors = Default::default();
    case.world.stat_fails.clear();
    case.world.stdin_stat_fails = false;
    case.world
        .files
        .insert(b"f0".to_vec(), Node::Regular(b"lorem ipsum\n".to_vec()));
    case.world.stdin = Stdin::default();
    case
}

/// `grep -q` leaves at its first match without closing anything, as GNU's
/// `_exit` does: status 0 though a message went to a failing stderr and
/// stdout's close would fail; without a match it closes as any tool does.
#[test]
fn grep_q_leaves_at_its_first_match_closing_nothing() {
    for seed in 0..6 {
        for args in [
            &["-q", "lorem", "missing", "f0"][..],
            &["-q", "zzz", "missing", "f0"],
            &["-c", "lorem", "missing", "f0"],
        ] {
            let mut case = grep_over(args, seed);
            case.stderr_full = seed % 2 == 0;
            case.faults.close_failure = (seed % 3 == 0).then_some(OutputErrno::NoSpace);
            agrees(&case);
        }
    }
}

/// Recursive cases whose directories' listings fail part way: grep walks
/// what was read, then reports the failure as it leaves the directory.
#[test]
fn a_listing_that_fails_part_way_is_walked_then_reported() {
    let mut checked = 0;
    for seed in 0..4000u64 {
        let case = writes_work(Tool::Grep, seed);
        let Some(tree) = &case.tree else { continue };
        if tree.list_errors.is_empty() {
            continue;
        }
        agrees(&case);
        checked += 1;
        if checked == 12 {
            return;
        }
    }
    panic!("only {checked} recursive cases with a failing listing in 4000 seeds");
}
