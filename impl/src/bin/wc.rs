//! `wc`: print newline, word, character and byte counts.
#![no_main]

use samebytes::wc::{run, SystemInputs, WcConfig};
use samebytes_spec::wc::WcEnv;

/// The C entry point: Rust's runtime start-up is skipped for speed
/// (`samebytes::sys::start_process` says what it did that matters).
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    samebytes::sys::start_process();
    let env = WcEnv {
        locale: samebytes::locale(),
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("wc"),
    };
    let mut stdout = samebytes::stdout_writer();
    let mut stderr = std::io::stderr();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemInputs,
        &mut *stdout,
        &mut stderr,
        &WcConfig::default(),
    );
    std::process::exit(status);
}
