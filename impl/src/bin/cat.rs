//! `cat`: concatenate files to standard output.
#![no_main]

use samebytes::cat::{run, CatConfig, SystemCat};
use samebytes_spec::cat::CatEnv;

/// The C entry point: Rust's runtime start-up is skipped for speed
/// (`samebytes::sys::start_process` says what it did that matters).
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    samebytes::sys::start_process();
    let env = CatEnv {
        locale: samebytes::locale(),
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("cat"),
    };
    let mut stdout = samebytes::stdout_writer();
    let mut stderr = std::io::stderr();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemCat::new(),
        &mut *stdout,
        &mut stderr,
        &CatConfig::default(),
    );
    std::process::exit(status);
}
