//! The binaries' entry points: one per tool, shared by the tool-named
//! binaries (`wc`, `cat`, `yes`, `grep`) and the multicall binary
//! `samebytes`, which picks the tool from the name it was started under
//! (`argv[0]`, through a symlink such as `sb-wc`) or from its first
//! argument (`samebytes wc -l`).  Both shapes run the same function with
//! the same arguments, so the binary campaign, which drives both, tests
//! what either ships.

use samebytes_spec::cat::CatEnv;
use samebytes_spec::grep::GrepEnv;
use samebytes_spec::wc::WcEnv;
use samebytes_spec::yes::YesEnv;

/// The tools samebytes provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Wc,
    Cat,
    Yes,
    Grep,
}

impl Tool {
    pub const ALL: [Tool; 4] = [Tool::Wc, Tool::Cat, Tool::Yes, Tool::Grep];

    pub fn name(self) -> &'static str {
        match self {
            Tool::Wc => "wc",
            Tool::Cat => "cat",
            Tool::Yes => "yes",
            Tool::Grep => "grep",
        }
    }

    /// The status the tool exits with when something failed (a write
    /// error among them): grep's `EXIT_TROUBLE`, the others' 1.
    pub fn failure_status(self) -> i32 {
        match self {
            Tool::Grep => 2,
            Tool::Wc | Tool::Cat | Tool::Yes => 1,
        }
    }

    pub fn from_name(name: &[u8]) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name().as_bytes() == name)
    }

    /// The tool a program name stands for: its last path component is the
    /// tool's name, or ends with it after a prefix (`sb-wc`, `gwc`), as an
    /// installation under a prefix names the links.  None of the four
    /// names ends another, so at most one matches.
    pub fn from_program_name(argv0: &[u8]) -> Option<Tool> {
        let base = argv0.rsplit(|&b| b == b'/').next().unwrap_or(argv0);
        Tool::ALL
            .into_iter()
            .find(|t| base.ends_with(t.name().as_bytes()))
    }

    /// Run this tool as a process would: `program` names it in messages
    /// (GNU tools use `argv[0]` as given), `args` are its arguments after
    /// the name.  Returns how it exits.
    pub fn run(self, program: String, args: &[&'static [u8]]) -> Exit {
        match self {
            Tool::Wc => wc(program, args),
            Tool::Cat => cat(program, args),
            Tool::Yes => yes(program, args),
            Tool::Grep => grep(program, args),
        }
    }
}

/// How a tool runs: its name in messages, its arguments; how it exits.
pub type ToolRun = fn(String, &[&'static [u8]]) -> Exit;

/// How a tool exits: with this status, and, as GNU's tools do at exit
/// (gnulib's `close_stdout`), closing stdout and stderr first, a failure
/// there giving the `failure` status ([`exit_closing_stdout`]); or at once,
/// closing nothing, as GNU grep does at `-q`'s first match (`_exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exit {
    pub status: i32,
    pub failure: i32,
    pub at_once: bool,
}

impl Exit {
    /// The exit of `tool` with `status`, closing its streams first.
    pub fn closing(tool: Tool, status: i32) -> Exit {
        Exit {
            status,
            failure: tool.failure_status(),
            at_once: false,
        }
    }
}

/// The whole of a tool-named binary's `main`: `run` is that tool's own
/// function ([`wc`], [`cat`], [`yes`], [`grep`]), named directly so that
/// the binary links that tool alone, even unoptimized (a 41 MB debug `yes`
/// did not start under the 5000 KiB address-space limit of a yes test).
pub fn tool_main(name: &str, run: ToolRun) -> ! {
    crate::sys::start_process();
    let program = crate::program_name(name);
    let exit = run(program.clone(), &crate::sys::args_borrowed());
    exit_closing_stdout(&program, exit)
}

/// Exit with `status`, closing stdout and stderr first as GNU's
/// `close_stdout` does at exit: a close of stdout that fails (not with
/// EBADF: a stdout never open is /dev/null here) is `PROGRAM: write error: REASON`
/// and the `failure` status; a stderr that failed a write, or fails to
/// close, is the `failure` status, silently.
pub fn exit_closing_stdout(program: &str, exit: Exit) -> ! {
    let Exit {
        mut status,
        failure,
        at_once,
    } = exit;
    if at_once {
        std::process::exit(status)
    }
    let not_ebadf = |e: &std::io::Error| e.raw_os_error() != Some(libc::EBADF);
    if let Err(e) = crate::sys::close_at_exit(libc::STDOUT_FILENO) {
        if not_ebadf(&e) {
            let text = crate::sys::error_text(&e);
            crate::io::diagnose(
                &mut crate::io::Stderr::new(),
                format!("{program}: write error: {text}\n").as_bytes(),
            );
            status = failure;
        }
    }
    let stderr_closed = crate::sys::close_at_exit(libc::STDERR_FILENO);
    if crate::io::stderr_failed() || stderr_closed.is_err_and(|e| not_ebadf(&e)) {
        status = failure;
    }
    std::process::exit(status)
}

fn owned(args: &[&[u8]]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.to_vec()).collect()
}

/// `wc`, as a process runs it.
pub fn wc(program: String, args: &[&[u8]]) -> Exit {
    use crate::wc::{run, SystemInputs, WcConfig};
    let env = WcEnv {
        locale: crate::locale(),
        posixly_correct: crate::posixly_correct(),
        program,
    };
    let mut stdout = crate::stdout_writer();
    let config = WcConfig::default();
    let mut stderr = crate::io::Stderr::new();
    let status = run(
        &owned(args),
        &env,
        &mut SystemInputs,
        &mut *stdout,
        &mut stderr,
        &config,
    );
    Exit::closing(Tool::Wc, status)
}

/// `cat`, as a process runs it.
pub fn cat(program: String, args: &[&[u8]]) -> Exit {
    use crate::cat::{run, CatConfig, SystemCat};
    let env = CatEnv {
        locale: crate::locale(),
        posixly_correct: crate::posixly_correct(),
        program,
    };
    let mut stdout = crate::stdout_writer();
    let config = CatConfig::default();
    let mut stderr = crate::io::Stderr::new();
    let status = run(
        &owned(args),
        &env,
        &mut SystemCat::new(),
        &mut *stdout,
        &mut stderr,
        &config,
    );
    Exit::closing(Tool::Cat, status)
}

/// `yes`, as a process runs it.
pub fn yes(program: String, args: &[&[u8]]) -> Exit {
    use crate::yes::{run, SystemOutput, YesConfig};
    let env = YesEnv {
        posixly_correct: crate::posixly_correct(),
        program,
    };
    let mut config = YesConfig::default();
    // Test hooks that change how the bytes travel, never which bytes: the
    // size a stdout pipe is grown to (0 leaves it alone, since pipes are
    // never shrunk), and a report of the path on stderr.
    if let Some(size) = std::env::var_os("SAMEBYTES_YES_PIPE_SIZE") {
        config.pipe_size = size.to_str().and_then(|s| s.parse().ok()).unwrap_or(0);
    }
    let debug = std::env::var_os("SAMEBYTES_YES_DEBUG").is_some();
    // `args` borrow argv itself: an operand of many megabytes is not
    // copied before `yes` joins the line.
    let mut stdout = SystemOutput::stdout();
    let status = run(
        args,
        &env,
        &mut stdout,
        &mut crate::io::Stderr::new(),
        &config,
        debug,
    );
    Exit::closing(Tool::Yes, status)
}

/// `grep`, as a process runs it.
pub fn grep(program: String, args: &[&[u8]]) -> Exit {
    use crate::grep::{run, GrepConfig, SystemGrep};
    let var = |name: &str| {
        use std::os::unix::ffi::OsStringExt;
        std::env::var_os(name).map(|v| v.into_vec())
    };
    let env = GrepEnv {
        locale: crate::locale(),
        posixly_correct: crate::posixly_correct(),
        program,
        grep_color: var("GREP_COLOR"),
        grep_colors: var("GREP_COLORS"),
        term: var("TERM"),
        stdout_is_terminal: std::io::IsTerminal::is_terminal(&std::io::stdout()),
    };
    let mut stdout = crate::stdout_writer();
    let cfg = GrepConfig::from_env();
    let mut searcher = SystemGrep::configured(&cfg);
    let mut stderr = crate::io::Stderr::new();
    let args = owned(args);
    let status = run(&args, &env, &mut searcher, &mut *stdout, &mut stderr, &cfg);
    // GNU grep leaves at `-q`'s first match with `_exit`, closing nothing.
    let quiet = matches!(
        samebytes_spec::grep::parse_args(&args, &env),
        samebytes_spec::grep::Invocation::Run(o) if o.quiet
    );
    Exit {
        at_once: quiet && status == 0,
        ..Exit::closing(Tool::Grep, status)
    }
}
