//! GNU conformance: the spec against GNU yes (every build `SAMEBYTES_GNU`
//! names: by default the system's 9.1 and Debian trixie's 9.7), and the
//! built binary against the spec, on generated command lines read through
//! a real pipe for as many bytes as the case's limit and then closed (with
//! SIGPIPE ignored, so both report the write error); and on /dev/full, a
//! closed stdout and a file-size limit.
//!
//! `--help` and `--version` print samebytes' own text, so for them only the
//! status is compared (rule `help-and-version-text` in docs/differences.md).

mod common;

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{binary, dev_full, limit_file_size, Scratch};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use samebytes_oracle::schedule::WriteFailureKind;
use samebytes_oracle::yes::{yes_case, YesCase};
use samebytes_spec::yes::{parse_args, yes as spec_yes, Invocation};
use samebytes_spec::{Errno, Outcome, StdoutFailure};

/// GNU yes of every build `SAMEBYTES_GNU` names (samebytes_oracle::gnu),
/// with its label.
fn gnu_yes() -> Vec<(String, std::path::PathBuf)> {
    samebytes_oracle::gnu::columns_or_panic()
        .into_iter()
        .map(|g| (g.label(), g.tool("yes")))
        .collect()
}

fn os(args: &[Vec<u8>]) -> Vec<OsString> {
    args.iter()
        .map(|a| std::ffi::OsStr::from_bytes(a).to_os_string())
        .collect()
}

/// `program` as `yes`, with SIGPIPE ignored and POSIXLY_CORRECT as asked.
fn command(program: &Path, args: &[Vec<u8>], posixly_correct: bool) -> Command {
    let mut cmd = Command::new(program);
    cmd.arg0("yes").args(os(args)).stderr(Stdio::piped());
    if posixly_correct {
        cmd.env("POSIXLY_CORRECT", "1");
    } else {
        cmd.env_remove("POSIXLY_CORRECT");
    }
    samebytes_oracle::sys::before_exec(
        &mut cmd,
        samebytes_oracle::sys::ChildSetup {
            sigpipe_default: Some(false),
            ..Default::default()
        },
    );
    cmd
}

/// Run with stdout a pipe; read `limit` bytes (or to the end, if the run
/// ends first), then close the pipe and collect stderr and status.
fn run_through_pipe(program: &Path, case: &YesCase) -> Outcome {
    let (mut r, w) = std::io::pipe().expect("pipe");
    let child = command(program, &case.args, case.posixly_correct)
        .stdout(w)
        .spawn()
        .expect("spawn");
    let mut stdout = Vec::with_capacity(case.limit);
    (&mut r)
        .take(case.limit as u64)
        .read_to_end(&mut stdout)
        .expect("read");
    drop(r);
    let out = child.wait_with_output().expect("wait");
    Outcome::unplaced(stdout, out.stderr, out.status.code().unwrap_or(-1))
}

/// The spec for a pipe closed after `limit` bytes.
fn expected(case: &YesCase) -> Outcome {
    spec_yes(
        &case.args,
        &case.env(),
        StdoutFailure {
            limit: case.limit,
            errno: Errno::BrokenPipe,
        },
    )
}

/// Cases argv cannot carry: a NUL byte, a word over 128 KiB, or more than
/// 1 MiB in all.
fn unmaterialisable(case: &YesCase) -> bool {
    case.args
        .iter()
        .any(|a| a.contains(&0) || a.len() >= 128 << 10)
        || case.args.iter().map(Vec::len).sum::<usize>() > 1 << 20
}

fn show(o: &Outcome) -> String {
    format!(
        "status {}, stderr {:?}, {} bytes of stdout",
        o.status,
        String::from_utf8_lossy(&o.stderr),
        o.stdout.len()
    )
}

#[test]
fn spec_matches_gnu_yes_and_binary_matches_spec() {
    let mut runner = TestRunner::new(Config::default());
    let strategy = yes_case();
    let ours = binary("yes");
    let builds = gnu_yes();
    let (mut compared, mut help) = (0, 0);
    let cases = common::case_count("YES_GNU_CASES", 400);
    for _ in 0..cases {
        let mut case = strategy.new_tree(&mut runner).expect("case").current();
        if unmaterialisable(&case) {
            continue;
        }
        case.failure = WriteFailureKind::BrokenPipe;
        let exits = matches!(parse_args(&case.args, &case.env()), Invocation::Exit(_));
        if exits {
            // A finite output fits in the pipe before it can be closed: read
            // all of it.
            case.limit = 1 << 30;
        }
        let spec = expected(&case);
        let mine = run_through_pipe(&ours, &case);
        let what = format!("{:?}", case.reproducer());
        let help_text = matches!(
            parse_args(&case.args, &case.env()),
            Invocation::Exit(o) if o.status == 0
        );
        for (label, program) in &builds {
            let gnu = run_through_pipe(program, &case);
            if help_text {
                // help-and-version-text
                assert_eq!(gnu.status, spec.status, "GNU {label}, {what}");
            } else {
                assert!(
                    gnu == spec,
                    "GNU {label}: {}\nspec: {}\n{what}",
                    show(&gnu),
                    show(&spec)
                );
            }
        }
        if help_text {
            assert_eq!(mine.status, spec.status, "ours, {what}");
            help += 1;
            continue;
        }
        assert!(
            mine == spec,
            "ours: {}\nspec: {}\n{what}",
            show(&mine),
            show(&spec)
        );
        compared += 1;
    }
    eprintln!("{compared} cases compared with GNU, {help} help or version cases");
    assert!(compared >= cases / 2, "only {compared} cases compared");
    assert!(help >= 5, "only {help} help or version cases");
}

/// Run ours and every GNU build with stdout on `stdout()`: ours, and each
/// build's label with its run.
type YesRun = (String, Option<i32>);
fn both(args: &[&str], stdout: impl Fn() -> Stdio) -> (YesRun, Vec<(String, YesRun)>) {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let run = |p: &Path| {
        let out = command(p, &args, false)
            .stdout(stdout())
            .output()
            .expect("run");
        (
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let builds = gnu_yes().into_iter().map(|(l, p)| (l, run(&p))).collect();
    (run(&binary("yes")), builds)
}

#[test]
fn dev_full_matches_gnu() {
    for args in [
        &[][..],
        &["a", "b"],
        &["--help"],
        &["--version"],
        &["--", "-x"],
    ] {
        let full = || Stdio::from(dev_full());
        let (mine, builds) = both(args, full);
        for (label, gnu) in builds {
            assert_eq!(gnu, mine, "{args:?}, GNU {label}");
        }
        let spec = spec_yes(
            args,
            &samebytes_spec::yes::YesEnv::new(false),
            StdoutFailure {
                limit: 0,
                errno: Errno::NoSpace,
            },
        );
        assert_eq!(mine.0.as_bytes(), spec.stderr, "{args:?}");
    }
}

#[test]
fn closed_stdout_matches_gnu() {
    for args in [&[][..], &["--help"], &["-x"]] {
        let programs = gnu_yes()
            .into_iter()
            .chain([("ours".into(), binary("yes"))]);
        let outs: Vec<_> = programs
            .map(|(label, p)| {
                let out = Command::new("bash")
                    .args(["-c", "exec -a yes \"$0\" \"$@\" >&-"])
                    .arg(p)
                    .args(args)
                    .output()
                    .expect("run");
                (
                    label,
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                    out.status.code(),
                )
            })
            .collect();
        let (mine, builds) = outs.split_last().expect("ours");
        for gnu in builds {
            assert_eq!(
                (&gnu.1, gnu.2),
                (&mine.1, mine.2),
                "{args:?}, GNU {}",
                gnu.0
            );
        }
    }
}

#[test]
fn a_file_size_limit_matches_gnu() {
    let s = Scratch::new("yes-gnu-fsize");
    let limit: u64 = (1 << 20) + 4321;
    for args in [
        vec![],
        vec!["abc".to_string(), "d".to_string()],
        vec!["5".repeat(499)],
    ] {
        let mut results = Vec::new();
        let programs: Vec<_> = gnu_yes()
            .into_iter()
            .chain([("ours".into(), binary("yes"))])
            .collect();
        for (i, (_, program)) in programs.iter().enumerate() {
            let path = s.path.join(format!("out{i}"));
            let bytes: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
            let mut cmd = command(program, &bytes, false);
            cmd.stdout(File::create(&path).expect("create"));
            limit_file_size(&mut cmd, limit);
            let out = cmd.output().expect("run");
            results.push((
                std::fs::read(&path).expect("read"),
                String::from_utf8_lossy(&out.stderr).into_owned(),
                out.status.code(),
            ));
        }
        let mine = results.last().expect("ours");
        for (gnu, (label, _)) in results.iter().zip(&programs) {
            assert_eq!(gnu.0.len() as u64, limit, "{label}");
            assert!(
                gnu == mine,
                "{args:?}: GNU {label} {:?} / ours {:?}",
                (&gnu.1, gnu.2),
                (&mine.1, mine.2)
            );
        }
    }
}
