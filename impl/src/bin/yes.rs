//! `yes`: output a line repeatedly until killed.
#![no_main]

/// The C entry point: Rust's runtime start-up is skipped for speed
/// (`samebytes::sys::start_process` says what it did that matters).
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    samebytes::entry::tool_main("yes", samebytes::entry::yes)
}
