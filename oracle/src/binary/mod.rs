//! The binary differential campaign: the built binaries, unmodified, run on
//! real files, pipes and sockets under the fault layer
//! (`samebytes-faultlayer`), compared with the spec on stdout, stderr and
//! exit status.  The layer's counters say which kernel paths each case
//! took and which faults those paths met; [`report`] tabulates them.

pub mod case;
pub mod live;
pub mod live_check;
pub mod offset;
pub mod report;
pub mod run;
pub mod tree;

use std::path::{Path, PathBuf};

use samebytes_spec::cat::{CatEnv, CatStdout};
use samebytes_spec::grep::{GrepEnv, GrepStdout};
use samebytes_spec::tree::Tree;
use samebytes_spec::wc::WcEnv;
use samebytes_spec::world::StdinLeft;
use samebytes_spec::yes::YesEnv;
use samebytes_spec::{Errno, Locale, Outcome, StdoutFailure};

pub use case::{generate, BinaryCase, StdoutKind, Tool};

use crate::faultplan::{Counts, OutputErrno};
use crate::mismatch::{compare_outcomes, Mismatch};

/// Where the binaries and the layer are: a cargo target folder's profile
/// folder (`target/release`).
#[derive(Clone, Debug)]
pub struct Binaries {
    pub dir: PathBuf,
    /// Every case under valgrind's memcheck (`campaign --memcheck`).
    pub memcheck: Option<run::Memcheck>,
}

impl Binaries {
    pub fn tool(&self, tool: Tool) -> PathBuf {
        self.dir.join(tool.name())
    }

    /// The multicall binary, which is each tool when started under the
    /// tool's name.
    pub fn multicall(&self) -> PathBuf {
        self.dir.join("samebytes")
    }

    /// The binary a case runs: half of the cases (odd seeds) run the
    /// multicall `samebytes` under the tool's name, the argv[0] dispatch
    /// an installation's links take, and the rest the tool's own binary.
    pub fn for_case(&self, case: &BinaryCase) -> PathBuf {
        if through_multicall(case) && self.memcheck.is_none() {
            self.multicall()
        } else {
            self.tool(case.tool)
        }
    }

    /// Any of the built binaries, by name (`yes`, `grep`, ...).
    pub fn tool_named(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn layer(&self) -> PathBuf {
        self.dir.join("libsamebytes_faultlayer.so")
    }

    /// Build the binaries and the layer with cargo in `profile` ("release"
    /// or "debug") and return where they are.  `target` is the target
    /// folder.
    pub fn build(target: &Path, profile: &str) -> Result<Binaries, String> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args([
            "build",
            "--quiet",
            "-p",
            "samebytes",
            "--bins",
            // `--bins` alone would filter the layer out too: it is a
            // library (cdylib) with no binary target.
            "--lib",
            "-p",
            "samebytes-faultlayer",
        ]);
        // The tests' own profile: `test` builds into `debug`, any other
        // (release, or cargo-mutants' `mutants`) into its own folder.
        if profile != "debug" {
            cmd.args(["--profile", profile]);
        }
        let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err("building the binaries and the fault layer failed".into());
        }
        let b = Binaries {
            dir: target.join(profile),
            memcheck: None,
        };
        let tools = Tool::ALL.map(|t| b.tool(t));
        for p in tools.iter().chain([&b.layer(), &b.multicall()]) {
            if !p.exists() {
                return Err(format!("{} was not built", p.display()));
            }
        }
        Ok(b)
    }
}

/// Does this case run through the multicall binary ([`Binaries::for_case`])?
pub fn through_multicall(case: &BinaryCase) -> bool {
    case.seed % 2 == 1
}

fn spec_errno(e: OutputErrno) -> Errno {
    match e {
        OutputErrno::NoSpace => Errno::NoSpace,
        OutputErrno::FileTooBig => Errno::FileTooBig,
        OutputErrno::QuotaExceeded => Errno::QuotaExceeded,
        OutputErrno::BrokenPipe => Errno::BrokenPipe,
        OutputErrno::Io => Errno::Io,
        OutputErrno::WouldBlock => Errno::WouldBlock,
    }
}

/// The spec's outcome for a case.  A recursive case's directories are
/// walked in the generator's order of names; a run walks them as the
/// kernel lists them ([`expected_with_stdin_left`] with the tree read
/// back, `run::Run::listed`).
pub fn expected(case: &BinaryCase) -> Outcome {
    expected_with_stdin_left(case, None).0
}

/// [`expected`], and for grep where the spec left stdin
/// (`samebytes_spec::grep::grep_leaving_stdin`); a recursive case's tree
/// is `listed` when given.
pub fn expected_with_stdin_left(
    case: &BinaryCase,
    listed: Option<&Tree>,
) -> (Outcome, Option<StdinLeft>) {
    let locale = if case.utf8 { Locale::Utf8 } else { Locale::C };
    let failure = match (case.faults.output_failure, case.reader_stops_after) {
        (Some((after, e)), _) => Some(StdoutFailure {
            limit: usize::try_from(after).unwrap_or(usize::MAX),
            errno: spec_errno(e),
        }),
        (None, Some(after)) => Some(StdoutFailure {
            limit: usize::try_from(after).unwrap_or(usize::MAX),
            errno: Errno::BrokenPipe,
        }),
        (None, None) => None,
    };
    // A closed stdout fails every write with EBADF.
    let failure = match case.stdout {
        StdoutKind::Closed => Some(StdoutFailure {
            limit: 0,
            errno: Errno::BadDescriptor,
        }),
        _ => failure,
    };
    let mut world = case.world.clone();
    world.stdout_close_fails = case.faults.close_failure.map(spec_errno);
    world.stderr_fails = case.stderr_full;
    let world = &world;
    let mut stdin_left = None;
    let outcome = match case.tool {
        Tool::Wc => samebytes_spec::wc::wc(&case.args, &WcEnv::new(locale, false), world, failure),
        Tool::Cat => {
            let stdout = match case.stdout {
                StdoutKind::File | StdoutKind::AppendFile => CatStdout::Regular,
                StdoutKind::Closed => CatStdout::Closed,
                _ => CatStdout::Stream,
            };
            samebytes_spec::cat::cat(
                &case.args,
                &CatEnv::new(locale, false),
                world,
                &stdout,
                failure,
            )
        }
        Tool::Grep => {
            // stdout is never one of the world's files.
            let stdout = match case.stdout {
                StdoutKind::DevNull => GrepStdout::DevNull,
                _ => GrepStdout::Stream,
            };
            let (outcome, at) = samebytes_spec::grep::grep_leaving_stdin(
                &case.args,
                &GrepEnv::new(locale),
                world,
                listed.or(case.tree.as_ref()),
                &stdout,
                failure,
            );
            stdin_left = Some(at);
            outcome
        }
        Tool::Yes => {
            let failure = failure.expect("yes cases always end by a stdout failure");
            samebytes_spec::yes::yes(&case.args, &YesEnv::new(false), failure)
        }
    };
    let outcome = if case.sigpipe_default {
        killed_by_sigpipe(case.tool, outcome)
    } else {
        outcome
    };
    (outcome, stdin_left)
}

/// With SIGPIPE at its default action, the write that would fail with
/// EPIPE kills the process instead: no message for it, and the status of
/// a death by SIGPIPE.  Every tool's message for that failure is its last
/// line on stderr, and names no other error than EPIPE (the generator puts
/// EPIPE only on pipes and sockets).
fn killed_by_sigpipe(tool: Tool, mut outcome: Outcome) -> Outcome {
    let program = tool.name();
    let messages = [
        format!("{program}: write error: Broken pipe\n"),
        // wc names no reason.
        format!("{program}: write error\n"),
        format!("{program}: standard output: Broken pipe\n"),
    ];
    for m in messages {
        if outcome.stderr.ends_with(m.as_bytes()) {
            outcome.stderr.truncate(outcome.stderr.len() - m.len());
            outcome.status = 128 + libc::SIGPIPE;
            break;
        }
    }
    outcome
}

/// Run one case and compare it with the spec.  Returns the layer's counts
/// either way.
pub fn check(case: &BinaryCase, bins: &Binaries) -> (Counts, Result<(), Box<Mismatch>>) {
    let got = run::run_under(
        case,
        &bins.for_case(case),
        &bins.layer(),
        bins.memcheck.as_ref(),
    );
    let (mut want, stdin_left) = expected_with_stdin_left(case, got.listed.as_ref());
    let variant = format!(
        "binary{}, stdout {:?}{}, faults {:?}, SIGPIPE {}, env {:?}{}",
        if through_multicall(case) && bins.memcheck.is_none() {
            " (samebytes as its argv[0] names it)"
        } else {
            ""
        },
        case.stdout,
        if case.stderr_full {
            ", stderr /dev/full"
        } else {
            ""
        },
        case.faults,
        if case.sigpipe_default {
            "default"
        } else {
            "ignored"
        },
        case.env,
        if got.hung { ", HUNG and killed" } else { "" }
    );
    // Two pipes do not say in which order their bytes were written; the
    // in-process drivers check the order, through the same unbuffered
    // writers the binaries use.
    let actual = Outcome::unplaced(
        got.stdout.clone().unwrap_or_default(),
        got.stderr,
        got.status,
    );
    if got.stdout.is_none() {
        // /dev/null keeps nothing to compare.
        want.stdout.clear();
    }
    // Where stdin was left follows from the messages the spec wrote.
    let want_offset = offset::expected_stdin_offset(case, &want, stdin_left);
    if case.stderr_full {
        // /dev/full keeps nothing either; the status still tells.
        want.stderr.clear();
    }
    let repro = || case.reproducer();
    let offsets = || {
        let want = want_offset?;
        let got = got.stdin_offset?;
        Mismatch::compare(
            case.tool.name(),
            &variant,
            crate::mismatch::Stream::StdinOffset,
            want.to_string().as_bytes(),
            got.to_string().as_bytes(),
            &repro,
        )
    };
    // An error must be reported, never retried down another path: under a
    // plan whose failures persist, a retry meets the same failure again on
    // the same descriptor, which the layer counts.
    let retries = || {
        Mismatch::compare(
            case.tool.name(),
            &variant,
            crate::mismatch::Stream::Retries,
            b"0",
            got.counts
                .total(crate::faultplan::Outcome::FailedAgain)
                .to_string()
                .as_bytes(),
            &repro,
        )
    };
    let result = compare_outcomes(case.tool.name(), &variant, &want, &actual, &repro)
        .and_then(|()| offsets().map_or(Ok(()), |m| Err(Box::new(m))))
        .and_then(|()| retries().map_or(Ok(()), |m| Err(Box::new(m))));
    (got.counts, result)
}
