//! `yes`: output a line repeatedly until killed.
#![no_main]

use samebytes::yes::{run, SystemOutput, YesConfig};
use samebytes_spec::yes::YesEnv;

/// The C entry point: Rust's runtime start-up is skipped for speed
/// (`samebytes::sys::start_process` says what it did that matters).
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    samebytes::sys::start_process();
    let env = YesEnv {
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("yes"),
    };
    let mut config = YesConfig::default();
    // Test hooks that change how the bytes travel, never which bytes:
    // the size a stdout pipe is grown to (0 leaves it alone, since pipes
    // are never shrunk), and a report
    // of the path on stderr.
    if let Some(size) = std::env::var_os("SAMEBYTES_YES_PIPE_SIZE") {
        config.pipe_size = size.to_str().and_then(|s| s.parse().ok()).unwrap_or(0);
    }
    let debug = std::env::var_os("SAMEBYTES_YES_DEBUG").is_some();
    let status = run(
        &samebytes::sys::args_borrowed(),
        &env,
        &mut SystemOutput::stdout(),
        &mut std::io::stderr(),
        &config,
        debug,
    );
    std::process::exit(status);
}
