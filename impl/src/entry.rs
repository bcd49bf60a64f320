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
    /// the name.  Returns the exit status.
    pub fn run(self, program: String, args: &[&'static [u8]]) -> i32 {
        match self {
            Tool::Wc => wc(program, args),
            Tool::Cat => cat(program, args),
            Tool::Yes => yes(program, args),
            Tool::Grep => grep(program, args),
        }
    }
}

/// How a tool runs: its name in messages, its arguments; its exit status.
pub type ToolRun = fn(String, &[&'static [u8]]) -> i32;

/// The whole of a tool-named binary's `main`: `run` is that tool's own
/// function ([`wc`], [`cat`], [`yes`], [`grep`]), named directly so that
/// the binary links that tool alone, even unoptimized (a 41 MB debug `yes`
/// did not start under the 5000 KiB address-space limit of a yes test).
pub fn tool_main(name: &str, run: ToolRun) -> ! {
    crate::sys::start_process();
    let program = crate::program_name(name);
    let status = run(program.clone(), &crate::sys::args_borrowed());
    let failure = Tool::from_name(name.as_bytes()).map_or(1, Tool::failure_status);
    exit_closing_stdout(&program, status, failure)
}

/// Exit with `status`, closing stdout first as GNU's `close_stdout` does
/// at exit: a close that fails (but for EBADF, a stdout that was never
/// open) is `PROGRAM: write error: REASON`, and the `failure` status.
pub fn exit_closing_stdout(program: &str, status: i32, failure: i32) -> ! {
    let status = match crate::sys::close_stdout_at_exit() {
        Err(e) if e.raw_os_error() != Some(libc::EBADF) && !crate::sys::stdout_was_closed() => {
            let text = crate::sys::error_text(&e);
            crate::io::diagnose(
                &mut std::io::stderr(),
                format!("{program}: write error: {text}\n").as_bytes(),
            );
            failure
        }
        _ => status,
    };
    std::process::exit(status)
}

fn owned(args: &[&[u8]]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.to_vec()).collect()
}

/// `wc`, as a process runs it.
pub fn wc(program: String, args: &[&[u8]]) -> i32 {
    use crate::wc::{run, SystemInputs, WcConfig};
    let env = WcEnv {
        locale: crate::locale(),
        posixly_correct: crate::posixly_correct(),
        program,
    };
    let mut stdout = crate::stdout_writer();
    let config = WcConfig::default();
    let mut stderr = std::io::stderr();
    run(
        &owned(args),
        &env,
        &mut SystemInputs,
        &mut *stdout,
        &mut stderr,
        &config,
    )
}

/// `cat`, as a process runs it.
pub fn cat(program: String, args: &[&[u8]]) -> i32 {
    use crate::cat::{run, CatConfig, SystemCat};
    let env = CatEnv {
        locale: crate::locale(),
        posixly_correct: crate::posixly_correct(),
        program,
    };
    let mut stdout = crate::stdout_writer();
    let config = CatConfig::default();
    let mut stderr = std::io::stderr();
    run(
        &owned(args),
        &env,
        &mut SystemCat::new(),
        &mut *stdout,
        &mut stderr,
        &config,
    )
}

/// `yes`, as a process runs it.
pub fn yes(program: String, args: &[&[u8]]) -> i32 {
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
    run(
        args,
        &env,
        &mut stdout,
        &mut std::io::stderr(),
        &config,
        debug,
    )
}

/// `grep`, as a process runs it.
pub fn grep(program: String, args: &[&[u8]]) -> i32 {
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
    let mut stderr = std::io::stderr();
    run(
        &owned(args),
        &env,
        &mut searcher,
        &mut *stdout,
        &mut stderr,
        &cfg,
    )
}
