//! The spec's side of live runs (`super::live`): which generated cases can
//! run live, and the comparison of a run's pauses and end with what the
//! spec decides, for grep and cat.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use samebytes_spec::world::{Node, World};
use samebytes_spec::{Decided, Outcome};

use super::live::{run_live, LiveCommand, LiveRun, LiveStdout, BURST_MAX};
use super::run::Scratch;
use crate::mismatch::{compare_outcomes, Mismatch, Stream};

/// How strictly a live run's output at a pause is held to the spec's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Exactly what the spec decided (ours, which writes everything
    /// decided before a read that waits; GNU cat, which asks FIONREAD
    /// before each read; GNU grep on a terminal or with
    /// `--line-buffered`).
    Exact,
    /// A prefix of it: block-buffered output may still be held (GNU grep
    /// on a pipe).
    Prefix,
}

/// Can a command line and a world run live: arguments argv can carry (no
/// NUL), stdin a stream that pauses, small enough for one burst per pipe
/// write, nothing the real system cannot give (read errors, a
/// non-blocking stdin, named streams, unreadable files for a root that
/// reads everything), and no name the real system resolves otherwise
/// than the world does?
fn runs_live(args: &[Vec<u8>], w: &World) -> bool {
    args.iter().all(|a| !a.contains(&0))
        && matches!(&w.stdin.node, Node::Stream(d) if d.len() <= BURST_MAX)
        && !w.stdin_pauses().is_empty()
        && w.read_errors == Default::default()
        && w.files
            .values()
            .all(|n| matches!(n, Node::Regular(_) | Node::Directory))
        && names_agree(args, w)
}

/// Does every name an argument could carry resolve in the world's files,
/// made real in a scratch folder, as the world resolves it?  The world
/// knows its files by exact name, while the real system also resolves
/// `/`, `.`, `..`, `d/` and the like, so a generated operand such as `/`
/// would otherwise be a directory live and missing in the spec.  The
/// names checked are each argument and, for an option, whatever could be
/// its attached value (after `=`, or after any letter of `-abc`); a
/// pattern that happens to be such a name only costs the case its live
/// run.
fn names_agree(args: &[Vec<u8>], w: &World) -> bool {
    let scratch = Scratch::new();
    materialize(w, &scratch.0);
    let candidates = args.iter().flat_map(|a| {
        let attached: Vec<&[u8]> = match a.strip_prefix(b"--") {
            Some(long) => long
                .iter()
                .position(|&b| b == b'=')
                .map(|i| &long[i + 1..])
                .into_iter()
                .collect(),
            None if a.starts_with(b"-") => (1..a.len()).map(|i| &a[i..]).collect(),
            None => Vec::new(),
        };
        std::iter::once(a.as_slice()).chain(attached)
    });
    candidates.into_iter().all(|name| {
        let real = if name.is_empty() {
            Err(Some(libc::ENOENT))
        } else {
            std::fs::metadata(scratch.0.join(std::ffi::OsStr::from_bytes(name)))
                .map_err(|e| e.raw_os_error())
        };
        match (w.lookup(name), real) {
            (Ok(Node::Regular(_)), Ok(m)) => m.is_file(),
            (Ok(Node::Directory), Ok(m)) => m.is_dir(),
            (Err(samebytes_spec::Errno::NoEntry), Err(Some(e))) => e == libc::ENOENT,
            (Err(samebytes_spec::Errno::NameTooLong), Err(Some(e))) => e == libc::ENAMETOOLONG,
            _ => false,
        }
    })
}

/// A live case's stage: its files in a scratch folder, its stdin's bytes
/// and pauses, and the binary's environment.
struct Stage<'w> {
    scratch: Scratch,
    stdin: &'w [u8],
    pauses: Vec<usize>,
    env: Vec<(&'static str, String)>,
}

impl Stage<'_> {
    /// The world's files made, the locale's variable and `extra_env` set.
    fn new<'w>(world: &'w World, utf8: bool, extra_env: &[(&'static str, String)]) -> Stage<'w> {
        let scratch = Scratch::new();
        materialize(world, &scratch.0);
        let Node::Stream(stdin) = &world.stdin.node else {
            panic!("a live case's stdin is a stream");
        };
        let locale = if utf8 { "C.UTF-8" } else { "C" };
        let mut env = vec![("LC_ALL", locale.to_string())];
        env.extend(extra_env.iter().cloned());
        Stage {
            scratch,
            stdin,
            pauses: world.stdin_pauses(),
            env,
        }
    }

    /// Run `program` as `argv0` there, live.
    fn run(&self, program: &Path, argv0: &str, args: &[Vec<u8>], stdout: LiveStdout) -> LiveRun {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        run_live(&LiveCommand {
            program,
            argv0,
            args,
            env: &env,
            dir: &self.scratch.0,
            stdin: self.stdin,
            pauses: &self.pauses,
            stdout,
        })
    }
}

/// The world's files in `dir`.
fn materialize(world: &World, dir: &Path) {
    for (name, node) in &world.files {
        let path = dir.join(std::ffi::OsStr::from_bytes(name));
        match node {
            Node::Regular(d) => std::fs::write(&path, d).expect("write a case file"),
            _ => std::fs::create_dir_all(&path).expect("make a case folder"),
        }
    }
}

/// What one live run is compared with.
struct Expected<'a> {
    tool: &'static str,
    decided: &'a [Decided],
    outcome: Outcome,
    stdout: LiveStdout,
    strictness: Strictness,
}

/// Each pause, then the end.  Returns the pauses checked.
fn compare(
    want: Expected,
    got: LiveRun,
    variant: &str,
    reproducer: &dyn Fn() -> String,
) -> Result<usize, Box<Mismatch>> {
    let shown = |out: &[u8]| match want.stdout {
        LiveStdout::DevNull => Vec::new(),
        _ => out.to_vec(),
    };
    for (d, seen) in want.decided.iter().zip(&got.pauses) {
        let wanted = shown(&d.outcome.stdout);
        let stdout_fits = match want.strictness {
            Strictness::Exact => seen.stdout == wanted,
            Strictness::Prefix => wanted.starts_with(&seen.stdout),
        };
        if seen.exited != d.exited || !stdout_fits || seen.stderr != d.outcome.stderr {
            return Err(Box::new(Mismatch {
                tool: want.tool,
                variant: format!("{variant}, at the pause after {} bytes of stdin", d.at),
                stream: Stream::Pause,
                expected: crate::live::render(d.exited, &wanted, &d.outcome.stderr),
                actual: crate::live::render(seen.exited, &seen.stdout, &seen.stderr),
                reproducer: reproducer(),
            }));
        }
    }
    let mut outcome = want.outcome;
    outcome.stdout = shown(&outcome.stdout);
    let actual = Outcome::unplaced(got.stdout, got.stderr, got.status);
    compare_outcomes(want.tool, variant, &outcome, &actual, reproducer)?;
    Ok(want.decided.len())
}

fn variant(program: &Path, stdout: LiveStdout, got: &LiveRun) -> String {
    format!(
        "live binary {}, stdout {stdout:?}{}",
        program.display(),
        if got.hung { ", HUNG and killed" } else { "" }
    )
}

// ---------------------------------------------------------------------------
// grep

/// Can a grep case run live: a world that can, stdin read once (a second
/// `-` reads what the first left in the pipe, which the spec's model of
/// stdin does not know), and stdout a stream or /dev/null?
pub fn grep_runs_live(case: &crate::grep::GrepCase) -> bool {
    use samebytes_spec::grep::GrepStdout;
    let stdin_once = case.args.iter().filter(|a| a.as_slice() == b"-").count() < 2;
    runs_live(&case.args, &case.world) && stdin_once && !matches!(case.stdout, GrepStdout::File(_))
}

/// Run `program` (as `grep`) on a grep case live, with `stdout` and
/// `extra_env` (the fault layer's, say) in its environment, and compare
/// each pause and the end with the spec.  Returns the pauses checked.
pub fn check_grep_live(
    case: &crate::grep::GrepCase,
    program: &Path,
    stdout: LiveStdout,
    strictness: Strictness,
    extra_env: &[(&'static str, String)],
    reproducer: &dyn Fn() -> String,
) -> Result<usize, Box<Mismatch>> {
    use samebytes_spec::grep::{grep, grep_at_pauses, GrepStdout};
    let mut stage = Stage::new(&case.world, case.utf8, extra_env);
    for (name, value) in [
        ("GREP_COLORS", &case.colors.grep_colors),
        ("GREP_COLOR", &case.colors.grep_color),
    ] {
        if let Some(v) = value {
            stage
                .env
                .push((name, String::from_utf8_lossy(v).into_owned()));
        }
    }
    let stdout = match case.stdout {
        GrepStdout::DevNull => LiveStdout::DevNull,
        _ => stdout,
    };
    let got = stage.run(program, "grep", &case.args, stdout);
    let mut spec_env = case.env();
    spec_env.stdout_is_terminal = stdout == LiveStdout::Terminal;
    let spec_stdout = match stdout {
        LiveStdout::DevNull => GrepStdout::DevNull,
        _ => GrepStdout::Stream,
    };
    let (args, world) = (&case.args, &case.world);
    let decided = grep_at_pauses(args, &spec_env, world, &spec_stdout, None);
    let want = Expected {
        tool: "grep",
        decided: &decided,
        outcome: grep(args, &spec_env, world, &spec_stdout, None),
        stdout,
        strictness,
    };
    let variant = variant(program, stdout, &got);
    compare(want, got, &variant, reproducer)
}

// ---------------------------------------------------------------------------
// cat

/// Can a cat case run live: a world that can, stdout a stream?
pub fn cat_runs_live(case: &crate::cat::CatCase) -> bool {
    runs_live(&case.args, &case.world) && case.stdout == samebytes_spec::cat::CatStdout::Stream
}

/// Run `program` (as `cat`) on a cat case live, with `stdout` (a pipe or
/// a terminal) and `extra_env` in its environment, and compare each pause
/// and the end with the spec.  Returns the pauses checked.
pub fn check_cat_live(
    case: &crate::cat::CatCase,
    program: &Path,
    stdout: LiveStdout,
    extra_env: &[(&'static str, String)],
    reproducer: &dyn Fn() -> String,
) -> Result<usize, Box<Mismatch>> {
    use samebytes_spec::cat::{cat, cat_at_pauses, CatStdout};
    let mut stage = Stage::new(&case.world, case.utf8, extra_env);
    if case.posixly_correct {
        stage.env.push(("POSIXLY_CORRECT", "1".to_string()));
    }
    let got = stage.run(program, "cat", &case.args, stdout);
    let (args, world, cat_env) = (&case.args, &case.world, case.env());
    let decided = cat_at_pauses(args, &cat_env, world, &CatStdout::Stream, None);
    let want = Expected {
        tool: "cat",
        decided: &decided,
        outcome: cat(args, &cat_env, world, &CatStdout::Stream, None),
        stdout,
        strictness: Strictness::Exact,
    };
    let variant = variant(program, stdout, &got);
    compare(want, got, &variant, reproducer)
}

// ---------------------------------------------------------------------------
// In the binary campaign.

/// Does case `index` of the binary campaign run live?  A quarter of
/// grep's and cat's.
pub fn live_turn(tool: super::Tool, index: u64) -> bool {
    matches!(tool, super::Tool::Grep | super::Tool::Cat) && index % 4 == 3
}

/// Case `index` of `tool` as a live run, under the fault layer's short
/// reads and writes and interruptions: an in-process case drawn from the
/// campaign's seed until one can run live, on a pipe or a terminal,
/// through the tool's binary or the multicall one.  Returns the pauses
/// checked; `Ok(None)` when no drawn case could run live.
pub fn campaign_case(
    bins: &super::Binaries,
    tool: super::Tool,
    seed: u64,
    index: u64,
) -> Result<Option<usize>, Box<Mismatch>> {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = crate::campaign::runner_for(seed, tool, index);
    let plan = crate::faultplan::Plan {
        seed: seed ^ index,
        short: [0, 10, 50][(index % 3) as usize],
        eintr: [0, 5, 20][(index / 3 % 3) as usize],
        ..Default::default()
    };
    let env = [
        ("LD_PRELOAD", bins.layer().display().to_string()),
        (crate::faultplan::ENV, plan.render()),
    ];
    let stdout = match index / 4 % 2 {
        0 => LiveStdout::Pipe,
        _ => LiveStdout::Terminal,
    };
    let program = match index / 8 % 2 {
        0 => bins.tool(tool),
        _ => bins.multicall(),
    };
    for _ in 0..200 {
        let checked = match tool {
            super::Tool::Grep => {
                let Ok(tree) = crate::grep::grep_case().new_tree(&mut runner) else {
                    continue;
                };
                let case = tree.current();
                if !grep_runs_live(&case) {
                    continue;
                }
                let repro = || live_reproducer(tool, seed, index);
                check_grep_live(&case, &program, stdout, Strictness::Exact, &env, &repro)
            }
            _ => {
                let Ok(tree) = crate::cat::cat_case().new_tree(&mut runner) else {
                    continue;
                };
                let case = tree.current();
                if !cat_runs_live(&case) {
                    continue;
                }
                let repro = || live_reproducer(tool, seed, index);
                check_cat_live(&case, &program, stdout, &env, &repro)
            }
        };
        return checked.map(Some);
    }
    Ok(None)
}

/// `samebytes-oracle replay live:TOOL:SEED:INDEX`.
pub fn live_reproducer(tool: super::Tool, seed: u64, index: u64) -> String {
    format!(
        "samebytes-oracle replay live:{}:{seed}:{index}",
        tool.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> World {
        let mut w = World::default();
        w.files
            .insert(b"a".to_vec(), Node::Regular(b"x\n".to_vec()));
        w.files.insert(b"d".to_vec(), Node::Directory);
        w.stdin.node = Node::Stream(b"x\ny\n".to_vec());
        w.stdin_pauses = vec![2];
        w
    }

    /// Names the world resolves as the real system does, and names it
    /// does not (each seen as a campaign mismatch before the check, as
    /// `cat: /: Is a directory` live beside the spec's missing `/`).
    #[test]
    fn runs_live_only_where_the_world_resolves_as_the_system_does() {
        let w = world();
        let agree = |args: &[&[u8]]| {
            let args: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
            runs_live(&args, &w)
        };
        for same in [
            &[&b"a"[..], b"d"][..],
            &[b"missing", b"-n", b"--", b""],
            &[b"d/x"],
        ] {
            assert!(agree(same), "{same:?}");
        }
        for differ in [
            &[&b"/"[..]][..],
            &[b"."],
            &[b"../"],
            &[b"d/"],
            &[b"./a"],
            &[b"a/b"],
            &[b"--file=/"],
            &[b"-f/etc"],
        ] {
            assert!(!agree(differ), "{differ:?}");
        }
    }
}
