//! cat on live streams, as a process: stdin is a pipe written burst by
//! burst, and at each pause what has reached stdout and stderr, and
//! whether cat has exited, must be what the spec says the bytes so far
//! decide (`samebytes_spec::cat::cat_at_pauses`): every byte that came,
//! formatted, but a `\r` that `-E` holds until the next byte shows whether
//! it ends a line.  Our cat, the multicall binary as `cat`, and GNU cat
//! (which asks FIONREAD before each read and writes what it holds when
//! nothing is ready) are held to it exactly (oracle/src/binary/live.rs).

mod common;

use std::path::{Path, PathBuf};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use samebytes_oracle::binary::live::LiveStdout;
use samebytes_oracle::binary::live_check::{cat_runs_live, check_cat_live};
use samebytes_oracle::cat::{cat_case, CatCase};
use samebytes_spec::cat::CatStdout;
use samebytes_spec::world::{Node, Stdin, World};

/// GNU cat of every build `SAMEBYTES_GNU` names.
fn gnu_cats() -> Vec<PathBuf> {
    samebytes_oracle::gnu::columns_or_panic()
        .iter()
        .map(|g| g.tool("cat"))
        .collect()
}

/// Ours, the multicall binary, and every GNU cat.
fn binaries() -> Vec<PathBuf> {
    let ours = [common::binary("cat"), common::binary("samebytes")];
    ours.into_iter().chain(gnu_cats()).collect()
}

/// Does GNU cat take this command line as ours does: none of our own
/// options (`--read-buffer-size`, `--write-buffer-size`, `--debug`, or
/// abbreviations of them), and not one that exits before reading
/// (help, version and usage texts differ; tests/cat_gnu.rs compares
/// those under its named rules)?
fn gnu_takes(case: &CatCase) -> bool {
    use samebytes_spec::cat::{parse_args, Invocation};
    let ours = |a: &Vec<u8>| {
        [&b"--r"[..], b"--w", b"--d"]
            .iter()
            .any(|p| a.starts_with(p))
    };
    !case.args.iter().any(ours) && matches!(parse_args(&case.args, &case.env()), Invocation::Run(_))
}

/// A case whose stdin is `bursts`, pausing after each.
fn live_case(args: &[&str], bursts: &[&[u8]]) -> CatCase {
    let mut data = Vec::new();
    let mut pauses = Vec::new();
    for b in bursts {
        data.extend_from_slice(b);
        pauses.push(data.len());
    }
    CatCase {
        args: args.iter().map(|a| a.as_bytes().to_vec()).collect(),
        utf8: true,
        posixly_correct: false,
        world: World {
            stdin: Stdin {
                node: Node::Stream(data),
                offset: 0,
            },
            stdin_pauses: pauses,
            ..Default::default()
        },
        stdout: CatStdout::Stream,
        read: Default::default(),
        write: Default::default(),
        read_size: 1,
        write_size: 1,
    }
}

fn live(program: &Path, args: &[&str], bursts: &[&[u8]], stdout: LiveStdout) {
    let case = live_case(args, bursts);
    let repro = || format!("{} {args:?} with bursts {bursts:?}", program.display());
    if let Err(m) = check_cat_live(&case, program, stdout, &[], &repro) {
        panic!("{m}");
    }
}

/// Partial lines, blank lines, a `\r` at the end of a burst and at the
/// start of the next, under every formatting that changes what a partial
/// line shows.
#[test]
fn each_burst_is_written_as_it_arrives() {
    let bursts: &[&[u8]] = &[
        b"first line\n",
        b"a partial",
        b" line ends\n\n",
        b"\n\nafter blanks\r",
        b"\nwith\tcr\r",
        b"x\n",
        b"\x01\x7f\xff\xc3",
        b"\xa9 end",
    ];
    let option_sets: &[&[&str]] = &[
        &[],
        &["-n"],
        &["-b"],
        &["-s"],
        &["-E"],
        &["-A"],
        &["-vET"],
        &["-ns"],
        &["-bsE"],
        &["-u"],
    ];
    for program in binaries() {
        for args in option_sets {
            for stdout in [LiveStdout::Pipe, LiveStdout::Terminal] {
                live(&program, args, bursts, stdout);
            }
        }
    }
}

/// Stdin between named files: the file before it is written before cat
/// waits on stdin.
#[test]
fn a_file_before_stdin_is_written_before_cat_waits() {
    let program = common::binary("cat");
    let mut case = live_case(&["-n", "f", "-", "f"], &[b"x", b"y\n"]);
    case.world
        .files
        .insert(b"f".to_vec(), Node::Regular(b"file\n".to_vec()));
    for program in [program.clone()].into_iter().chain(gnu_cats()) {
        let repro = || format!("{} {:?}", program.display(), case.args);
        if let Err(m) = check_cat_live(&case, &program, LiveStdout::Pipe, &[], &repro) {
            panic!("{m}");
        }
    }
}

/// Cases of the in-process generator that can run live, against our cat,
/// the multicall binary and GNU cat.
#[test]
fn generated_cases_run_live_as_the_spec_says() {
    let cases: usize = std::env::var("CAT_LIVE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let programs = binaries();
    let gnu = gnu_cats();
    let mut runner = TestRunner::deterministic();
    let strategy = cat_case();
    let (mut ran, mut drawn, mut pauses) = (0, 0, 0);
    while ran < cases && drawn < cases * 400 {
        drawn += 1;
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        if !cat_runs_live(&case) {
            continue;
        }
        let stdout = match ran % 2 {
            0 => LiveStdout::Pipe,
            _ => LiveStdout::Terminal,
        };
        for program in &programs {
            if gnu.contains(program) && !gnu_takes(&case) {
                continue;
            }
            let repro = || format!("{} {}", program.display(), case.reproducer());
            match check_cat_live(&case, program, stdout, &[], &repro) {
                Ok(n) => pauses += n,
                Err(m) => panic!("{m}"),
            }
        }
        ran += 1;
    }
    eprintln!(
        "{ran} live cases on {} binaries, {pauses} pauses checked ({drawn} drawn)",
        programs.len()
    );
    assert_eq!(ran, cases, "too few generated cases can run live");
}
