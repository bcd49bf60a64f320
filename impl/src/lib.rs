//! samebytes: fast drop-in `wc` (and later `cat`, `yes`, `grep`), proven
//! byte-identical to the reference implementations in `samebytes-spec`.
//!
//! Layout: [`sys`] holds every system call and every `unsafe` block; [`io`]
//! holds the seams through which tools read and write; each tool has one
//! module with a thin binary in `src/bin`.

pub mod fdinput;
pub mod io;
pub mod sys;
pub mod utf8;
pub mod wc;

/// The program's arguments as bytes, without the program name.
pub fn args_bytes() -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    std::env::args_os().skip(1).map(|a| a.into_vec()).collect()
}

/// Is `POSIXLY_CORRECT` set in the environment?
pub fn posixly_correct() -> bool {
    std::env::var_os("POSIXLY_CORRECT").is_some()
}
