//! samebytes: fast drop-in `wc`, `cat`, `yes` and `grep`, proven
//! byte-identical to the reference implementations in `samebytes-spec`.
//!
//! Layout: [`sys`] holds every system call and every `unsafe` block (the
//! workspace denies `unsafe_code`, and `sys` alone allows it); [`io`]
//! holds the seams through which tools read and write; each tool has one
//! module with a thin binary in `src/bin`.

pub mod cat;
pub mod entry;
pub mod fdinput;
pub mod grep;
pub mod io;
pub mod manpage;
pub mod multicall;
pub mod sync;
#[allow(unsafe_code)]
pub mod sys;
pub mod utf8;
pub mod wc;
pub mod yes;

/// The program's arguments as bytes, without the program name.
pub fn args_bytes() -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    std::env::args_os().skip(1).map(|a| a.into_vec()).collect()
}

/// Is `POSIXLY_CORRECT` set in the environment?
pub fn posixly_correct() -> bool {
    std::env::var_os("POSIXLY_CORRECT").is_some()
}

/// `argv[0]`, as GNU tools name themselves in diagnostics; `fallback` if
/// there is none.
pub fn program_name(fallback: &str) -> String {
    std::env::args_os()
        .next()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| fallback.to_string())
}

/// The character set `setlocale(LC_ALL, "")` gives, as the tools see it.
pub fn locale() -> samebytes_spec::Locale {
    if sys::ctype_locale_is_utf8() {
        samebytes_spec::Locale::Utf8
    } else {
        samebytes_spec::Locale::C
    }
}

/// Standard output as the binaries write it: the descriptor itself, or,
/// if it was closed before start-up, a writer whose every write fails
/// with EBADF, as writes to the closed descriptor would have.
pub fn stdout_writer() -> Box<dyn std::io::Write> {
    if sys::stdout_was_closed() {
        Box::new(sys::ClosedWriter)
    } else {
        Box::new(sys::FdWriter::stdout())
    }
}
