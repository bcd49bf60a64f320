//! `grep`: print lines that match patterns.
#![no_main]

use samebytes::grep::{run, GrepConfig, SystemGrep};
use samebytes_spec::grep::GrepEnv;

/// The C entry point: Rust's runtime start-up is skipped for speed
/// (`samebytes::sys::start_process` says what it did that matters).
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    samebytes::sys::start_process();
    let var = |name: &str| {
        use std::os::unix::ffi::OsStringExt;
        std::env::var_os(name).map(|v| v.into_vec())
    };
    let env = GrepEnv {
        locale: samebytes::locale(),
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("grep"),
        grep_color: var("GREP_COLOR"),
        grep_colors: var("GREP_COLORS"),
        term: var("TERM"),
        stdout_is_terminal: std::io::IsTerminal::is_terminal(&std::io::stdout()),
    };
    let mut stdout = samebytes::stdout_writer();
    let mut stderr = std::io::stderr();
    let cfg = GrepConfig::from_env();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemGrep::configured(&cfg),
        &mut *stdout,
        &mut stderr,
        &cfg,
    );
    std::process::exit(status);
}
