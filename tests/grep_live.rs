//! grep on live streams, as a process: stdin is a pipe written burst by
//! burst, and at each pause (the binary asleep reading an empty stdin, or
//! gone) what has reached stdout and stderr, and whether it has exited,
//! must be what the spec says the bytes so far decide
//! (`samebytes_spec::grep::grep_at_pauses`).  The harness orders output
//! and writes; it times nothing (oracle/src/binary/live.rs).
//!
//! `SAMEBYTES_LIVE_GREP=PATH` runs these against another grep binary (an
//! older build, to watch them go red).  The hand-made cases run against
//! GNU grep (/usr/bin/grep) too.

mod common;

use std::path::PathBuf;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use samebytes_oracle::binary::live::LiveStdout;
use samebytes_oracle::binary::live_check::{check_grep_live, grep_runs_live, Strictness};
use samebytes_oracle::grep::{grep_case, ColorEnv, GrepCase};
use samebytes_spec::grep::GrepStdout;
use samebytes_spec::world::{Node, Stdin, World};

fn our_grep() -> PathBuf {
    match std::env::var_os("SAMEBYTES_LIVE_GREP") {
        Some(p) => PathBuf::from(p),
        None => common::binary("grep"),
    }
}

/// A case whose stdin is `bursts`, pausing after each.
fn live_case(args: &[&str], bursts: &[&[u8]]) -> GrepCase {
    let mut data = Vec::new();
    let mut pauses = Vec::new();
    for b in bursts {
        data.extend_from_slice(b);
        pauses.push(data.len());
    }
    GrepCase {
        args: args.iter().map(|a| a.as_bytes().to_vec()).collect(),
        utf8: true,
        world: World {
            stdin: Stdin {
                node: Node::Stream(data),
                offset: 0,
            },
            stdin_pauses: pauses,
            ..Default::default()
        },
        stdout: GrepStdout::Stream,
        read: Default::default(),
        write: Default::default(),
        buffer: 256 * 1024,
        colors: ColorEnv::default(),
    }
}

/// Check a hand-made case live on our binary; also that the spec has the
/// run print, report or exit before its input ends, so the check is not
/// empty.
fn live(args: &[&str], bursts: &[&[u8]], stdout: LiveStdout) {
    let case = live_case(args, bursts);
    let spec = samebytes_oracle::grep::spec_at_pauses(&case);
    let early = spec
        .iter()
        .take(spec.len().saturating_sub(1))
        .any(|d| d.exited || !d.outcome.stdout.is_empty() || !d.outcome.stderr.is_empty());
    assert!(early, "the spec decides nothing before the end: {spec:?}");
    let repro = || format!("{args:?} with bursts {bursts:?}");
    if let Err(m) = check_grep_live(&case, &our_grep(), stdout, Strictness::Exact, &[], &repro) {
        panic!("{m}");
    }
    // GNU grep does the same, but where it decides binary input on each
    // read (a NUL), and holds a pipe's output in stdio's buffer unless
    // `--line-buffered`.
    if bursts.iter().any(|b| b.contains(&0)) {
        return;
    }
    let strictness = match (stdout, args.contains(&"--line-buffered")) {
        (LiveStdout::Pipe, false) => Strictness::Prefix,
        _ => Strictness::Exact,
    };
    for gnu in samebytes_oracle::gnu::columns_or_panic() {
        if let Err(m) = check_grep_live(&case, &gnu.tool("grep"), stdout, strictness, &[], &repro) {
            panic!("GNU grep {}: {m}", gnu.label());
        }
    }
}

const LOG: &[&[u8]] = &[
    b"12:00:01 INFO starting\n",
    b"12:00:02 ERROR disk full\n",
    b"12:00:03 INFO retrying\n",
    b"12:00:04 ERROR disk still full\n",
    b"12:00:05 INFO listening on :8080\n",
    b"12:00:06 INFO request\n",
];

/// `tail -f app.log | grep ERROR` on a terminal: each line shows as it
/// arrives.
#[test]
fn a_terminal_shows_each_line_as_it_arrives() {
    live(&["ERROR"], LOG, LiveStdout::Terminal);
    live(&["-n", "-C1", "ERROR"], LOG, LiveStdout::Terminal);
}

/// `tail -f app.log | grep --line-buffered ERROR | next-stage`.
#[test]
fn line_buffered_output_passes_each_line_on_as_it_arrives() {
    live(&["--line-buffered", "ERROR"], LOG, LiveStdout::Pipe);
    live(
        &["--line-buffered", "-v", "-n", "INFO"],
        LOG,
        LiveStdout::Pipe,
    );
}

/// `tail -f server.log | grep -q 'listening on'`: a script waiting for a
/// service exits once the line has come.
#[test]
fn quiet_exits_when_the_line_arrives() {
    live(&["-q", "listening on"], LOG, LiveStdout::Pipe);
    live(&["-q", "listening on"], LOG, LiveStdout::DevNull);
}

/// `... | grep -m1 pattern` and `-l` on a live stream exit on the first
/// match.
#[test]
fn max_count_and_list_exit_on_the_match() {
    live(&["-m1", "ERROR"], LOG, LiveStdout::Pipe);
    live(&["-m1", "-A1", "ERROR"], LOG, LiveStdout::Terminal);
    live(&["-l", "ERROR"], LOG, LiveStdout::Pipe);
    live(&["-L", "ERROR"], LOG, LiveStdout::Pipe);
}

/// Lines typed at a terminal, a line a read: each match shows after its
/// line, with `-z`, `-P` and `-o` too.
#[test]
fn typed_lines_show_their_matches_after_each_line() {
    let typed: &[&[u8]] = &[b"foo\n", b"bar\n", b"foobar\n", b"baz\n"];
    live(&["foo"], typed, LiveStdout::Terminal);
    live(&["-o", "-P", "o+"], typed, LiveStdout::Terminal);
    let records: &[&[u8]] = &[b"foo\0", b"bar\0", b"foobar\0"];
    live(&["-z", "foo"], records, LiveStdout::Terminal);
}

/// A stream that turns binary: what came before its first pause is the
/// probe, and a match in the binary part is reported at once (then GNU's
/// drain waits for the end of the input).
#[test]
fn a_binary_part_is_decided_on_what_has_come() {
    let bursts: &[&[u8]] = &[b"foo 1\n", b"foo 2\nfo\0o 3\n", b"foo 4\n"];
    live(&["foo"], bursts, LiveStdout::Terminal);
    live(&["-n", "foo"], bursts, LiveStdout::Pipe);
    let first: &[&[u8]] = &[b"foo\0\n", b"foo\n"];
    live(&["foo"], first, LiveStdout::Pipe);
}

/// A burst read in many reads is still one burst: with a one-byte stream
/// buffer (`SAMEBYTES_GREP_BUFFER`, a test knob), the reads that take the
/// first burst apart do not end the probe; only a pause does.
#[test]
fn a_burst_read_a_byte_at_a_time_is_probed_whole() {
    let first: &[&[u8]] = &[b"foo 1\nfo\0o\n", b"foo 2\n"];
    let late: &[&[u8]] = &[b"foo 1\n", b"foo 2\nfo\0o\nfoo 3\n"];
    for bursts in [first, late] {
        for args in [&["foo"][..], &["-c", "foo"], &["-n", "-v", "x"]] {
            let case = live_case(args, bursts);
            let repro = || format!("{args:?} with bursts {bursts:?}, buffer 1");
            let env = [("SAMEBYTES_GREP_BUFFER", "1".to_string())];
            let run = |stdout| {
                check_grep_live(&case, &our_grep(), stdout, Strictness::Exact, &env, &repro)
            };
            for stdout in [LiveStdout::Pipe, LiveStdout::Terminal] {
                if let Err(m) = run(stdout) {
                    panic!("{m}");
                }
            }
        }
    }
}

/// Cases of the in-process generator that can run live, each against our
/// grep and the multicall binary as `grep`, on a pipe or a terminal.
#[test]
fn generated_cases_run_live_as_the_spec_says() {
    let cases: usize = std::env::var("GREP_LIVE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120);
    let grep = our_grep();
    let multicall = common::binary("samebytes");
    let mut runner = TestRunner::deterministic();
    let strategy = grep_case();
    let (mut ran, mut pauses) = (0, 0);
    let mut drawn = 0;
    while ran < cases && drawn < cases * 200 {
        drawn += 1;
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        if !grep_runs_live(&case) {
            continue;
        }
        let program = if ran % 2 == 0 { &grep } else { &multicall };
        let stdout = if ran % 3 == 0 {
            LiveStdout::Terminal
        } else {
            LiveStdout::Pipe
        };
        match check_grep_live(&case, program, stdout, Strictness::Exact, &[], &|| {
            case.reproducer()
        }) {
            Ok(n) => pauses += n,
            Err(m) => panic!("{m}"),
        }
        ran += 1;
    }
    eprintln!("{ran} live cases, {pauses} pauses checked ({drawn} drawn)");
    assert_eq!(ran, cases, "too few generated cases can run live");
}
