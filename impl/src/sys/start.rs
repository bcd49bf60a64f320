//! Start-up without Rust's runtime: which standard descriptors were
//! closed, the arguments borrowed from argv, and the C `main` the binaries
//! define.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

// ---------------------------------------------------------------------------
// Start-up.  The binaries skip Rust's runtime start-up (`#![no_main]`): on a
// one-line input it cost a fifth of GNU's whole run (reading
// /proc/self/maps for the stack guard, a signal stack, handlers).  What it
// did that the tools rely on is done by [`start_process`]; SIGPIPE, which
// the runtime would have ignored, is simply left as the parent gave it, as
// GNU tools leave it (killed silently when it is at its default, EPIPE when
// the parent ignored it).

// Closed standard descriptors: a closed stdin or stdout is seen by GNU
// tools as EBADF (`cat >&-`: "cat: standard output: Bad file descriptor").
// A constructor in `.init_array` records which ones were closed, and
// `start_process` then reopens them on /dev/null, as Rust's runtime does,
// so that no file we open takes their numbers.

static STDIN_WAS_CLOSED: AtomicBool = AtomicBool::new(false);
static STDOUT_WAS_CLOSED: AtomicBool = AtomicBool::new(false);

extern "C" fn record_closed_standard_fds() {
    for (fd, flag) in [
        (libc::STDIN_FILENO, &STDIN_WAS_CLOSED),
        (libc::STDOUT_FILENO, &STDOUT_WAS_CLOSED),
    ] {
        // SAFETY: F_GETFD only queries the descriptor's flags.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        flag.store(closed, Ordering::Relaxed);
    }
}

#[used]
#[link_section = ".init_array"]
static RECORD_CLOSED_FDS: extern "C" fn() = record_closed_standard_fds;

/// Was stdin closed when the process started?
pub fn stdin_was_closed() -> bool {
    STDIN_WAS_CLOSED.load(Ordering::Relaxed)
}

/// Was stdout closed when the process started?
pub fn stdout_was_closed() -> bool {
    STDOUT_WAS_CLOSED.load(Ordering::Relaxed)
}

/// A writer for a stdout that was closed at start-up: every write fails
/// with EBADF, as it would have.
pub struct ClosedWriter;

impl Write for ClosedWriter {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(libc::EBADF))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// The arguments without copies: glibc calls `.init_array` functions with
// (argc, argv, envp), the same pointers `main` gets.  `yes` joins operands
// of many megabytes; borrowing them from argv keeps one copy of the line in
// memory instead of three (argv, std's copy, the line).

static ARGC: AtomicUsize = AtomicUsize::new(0);
static ARGV: AtomicPtr<*const libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn record_argv(
    argc: libc::c_int,
    argv: *mut *const libc::c_char,
    _envp: *const *const libc::c_char,
) {
    ARGC.store(usize::try_from(argc).unwrap_or(0), Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

type InitArrayFn = extern "C" fn(libc::c_int, *mut *const libc::c_char, *const *const libc::c_char);

#[used]
#[link_section = ".init_array"]
static RECORD_ARGV: InitArrayFn = record_argv;

/// The program's arguments, without the program name, borrowed from argv.
pub fn args_borrowed() -> Vec<&'static [u8]> {
    let (argc, argv) = (ARGC.load(Ordering::Relaxed), ARGV.load(Ordering::Relaxed));
    if argv.is_null() {
        // Not started by glibc's loader (no arguments were passed to the
        // constructor): fall back to std's copies, kept for the process.
        use std::os::unix::ffi::OsStringExt;
        return std::env::args_os()
            .skip(1)
            .map(|a| &*Vec::leak(a.into_vec()))
            .collect();
    }
    (1..argc)
        .map(|i| {
            // SAFETY: glibc passes the argv `main` receives: `argc` valid
            // pointers to NUL-terminated strings in the initial stack, which
            // live as long as the process.  Nothing in samebytes or std
            // writes to them, so shared 'static borrows are sound.
            unsafe { std::ffi::CStr::from_ptr(*argv.add(i)).to_bytes() }
        })
        .collect()
}

/// What the binaries need done before anything else, in place of Rust's
/// runtime start-up: stdin, stdout and stderr, if closed, are reopened on
/// /dev/null (after the constructor above recorded which were closed), so
/// that a file we open never becomes descriptor 0, 1 or 2.
pub fn start_process() {
    for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
        // SAFETY: F_GETFD only queries the descriptor.  open is given a
        // valid NUL-terminated path; with every lower descriptor open, the
        // lowest free one is `fd` itself, and it is kept open for the rest
        // of the process (as Rust's runtime keeps it).
        unsafe {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
            {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
    }
}

/// Define a binary's C `main`, which glibc calls in place of Rust's
/// runtime start-up (`#![no_main]` in the binary), to run `$body` and
/// exit with the `c_int` it gives.  `#[no_mangle]` counts as unsafe code
/// (two symbols of one name would be undefined behaviour), so it is
/// written here, where `unsafe_code` is allowed, and the binaries deny it.
#[macro_export]
macro_rules! c_main {
    ($body:expr) => {
        /// The C entry point: Rust's runtime start-up is skipped for speed
        /// (`samebytes::sys::start_process` says what it did that matters).
        #[allow(unsafe_code)]
        #[no_mangle]
        pub extern "C" fn main(
            _argc: ::std::ffi::c_int,
            _argv: *const *const ::std::ffi::c_char,
        ) -> ::std::ffi::c_int {
            $body
        }
    };
}
