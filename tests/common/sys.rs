//! The tests' system calls that need `unsafe`, behind safe functions:
//! the workspace denies `unsafe_code`, and this module alone allows it.

use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Close descriptor `fd` in the child after its redirections (`<&-`,
/// `>&-`).
pub fn close_in_child(cmd: &mut Command, fd: i32) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only close(2) runs, which is
    // async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            libc::close(fd);
            Ok(())
        });
    }
}

/// Run `cmd` with RLIMIT_FSIZE at `bytes` and SIGXFSZ ignored, so the write
/// that reaches the limit is cut short and the next fails with EFBIG.
pub fn limit_file_size(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only setrlimit and signal run, which
    // are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &rl);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

/// Run `cmd` with RLIMIT_AS at `bytes`: its mappings beyond fail ENOMEM.
pub fn limit_address_space(cmd: &mut Command, bytes: u64) {
    // SAFETY: between fork and exec only setrlimit runs, which is
    // async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::setrlimit(libc::RLIMIT_AS, &rl);
            Ok(())
        });
    }
}

/// Send `signal` to our own child `pid` (not yet reaped).
pub fn kill(pid: u32, signal: i32) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe { libc::kill(pid as libc::pid_t, signal) };
}

/// F_GETPIPE_SZ of a pipe end we hold.
pub fn pipe_size(end: impl AsFd) -> i32 {
    // SAFETY: F_GETPIPE_SZ only queries the pipe behind an open descriptor.
    unsafe { libc::fcntl(end.as_fd().as_raw_fd(), libc::F_GETPIPE_SZ) }
}

/// F_SETPIPE_SZ on a pipe end we hold.
pub fn set_pipe_size(end: impl AsFd, size: i32) {
    // SAFETY: F_SETPIPE_SZ changes only the pipe's size.
    unsafe { libc::fcntl(end.as_fd().as_raw_fd(), libc::F_SETPIPE_SZ, size) };
}

/// Set `O_NONBLOCK` on a descriptor we hold.
pub fn set_nonblocking(fd: impl AsFd) {
    let fd = fd.as_fd().as_raw_fd();
    // SAFETY: F_GETFL/F_SETFL on an open descriptor change only its flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Make a FIFO at `path`.
pub fn mkfifo(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: a valid NUL-terminated path.
    match unsafe { libc::mkfifo(c.as_ptr(), 0o644) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Does the test run as root (which reads every file)?
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// The C library's character classes, asked directly in a locale object
/// of the test's own.
pub mod ctype {
    use std::ffi::{c_int, c_void, CStr};

    use samebytes::utf8::Head;

    extern "C" {
        fn wcwidth(c: libc::wchar_t) -> c_int;
        fn iswprint(c: u32) -> c_int;
        fn iswspace(c: u32) -> c_int;
        fn iswalnum(c: u32) -> c_int;
        fn mbrtowc(pwc: *mut libc::wchar_t, s: *const u8, n: usize, ps: *mut c_void) -> usize;
    }

    /// Install `name`'s LC_CTYPE for this thread (the test's own thread; the
    /// global locale stays C).
    pub fn use_ctype(name: &CStr) {
        // SAFETY: a valid NUL-terminated name and a null base; the result is
        // checked before it is installed, and never freed.
        let handle =
            unsafe { libc::newlocale(libc::LC_CTYPE_MASK, name.as_ptr(), std::ptr::null_mut()) };
        assert!(!handle.is_null(), "this machine has no {name:?} locale");
        // SAFETY: `handle` is a valid locale object that outlives the thread.
        unsafe { libc::uselocale(handle) };
    }

    /// The C library's classes of one code point in the installed locale.
    #[derive(Debug, PartialEq, Eq)]
    pub struct Libc {
        pub width: i32,
        pub printable: bool,
        pub space: bool,
        pub alnum: bool,
    }

    pub fn libc_classes(code: u32) -> Libc {
        // SAFETY: the four functions only read the current locale's tables;
        // wchar_t holds every code point below 2^31.
        unsafe {
            Libc {
                width: wcwidth(code as libc::wchar_t),
                printable: iswprint(code) != 0,
                space: iswspace(code) != 0,
                alnum: iswalnum(code) != 0,
            }
        }
    }

    /// How the C library decodes the first character of `bytes`, in the terms
    /// of `utf8::head`.
    pub fn libc_head(bytes: &[u8]) -> Head {
        let mut state = [0u64; 2];
        let mut wc: libc::wchar_t = 0;
        // SAFETY: `bytes` is valid for its length; `state` is a zeroed
        // mbstate_t (8 bytes in glibc; 16 are given) meaning the initial state.
        let n = unsafe {
            mbrtowc(
                &mut wc,
                bytes.as_ptr(),
                bytes.len(),
                state.as_mut_ptr().cast(),
            )
        };
        match n {
            usize::MAX => Head::Invalid,
            n if n == usize::MAX - 1 => Head::Incomplete,
            0 => Head::Char(0, 1),
            n => Head::Char(wc as u32, n),
        }
    }

    /// `isspace` and `isprint` of a byte in the installed locale.
    pub fn c_space_and_printable(b: u8) -> (bool, bool) {
        // SAFETY: isspace and isprint take any value of unsigned char.
        unsafe {
            (
                libc::isspace(c_int::from(b)) != 0,
                libc::isprint(c_int::from(b)) != 0,
            )
        }
    }
}

/// Signals, for the tests of the SIGBUS guard's manners.
pub mod signal {
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// How many times the host's SIGBUS handler ran, and the address of a
    /// local of its last run (which stack it ran on).
    pub static HOST_CALLS: AtomicUsize = AtomicUsize::new(0);
    pub static HOST_STACK: AtomicUsize = AtomicUsize::new(0);

    /// The errno the host's handler leaves behind, as foreign code may.
    pub const HOST_ERRNO: i32 = libc::EDOM;

    /// The signal number the host's handler read from its `siginfo_t`.
    pub static HOST_SAW_SIGNO: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn host_handler(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        let local = 0u8;
        HOST_STACK.store(std::ptr::from_ref(&local) as usize, Ordering::SeqCst);
        // SAFETY: an SA_SIGINFO handler is given the kernel's siginfo_t
        // (a handler passed on as a plain one would find garbage here).
        let signo = unsafe { (*info).si_signo };
        HOST_SAW_SIGNO.store(signo as usize, Ordering::SeqCst);
        HOST_CALLS.fetch_add(1, Ordering::SeqCst);
        set_errno(HOST_ERRNO);
    }

    /// Install a host program's SIGBUS handler (SA_SIGINFO), as a
    /// sanitizer or an embedding program would before samebytes maps.
    pub fn install_host_sigbus_handler() {
        // SAFETY: a zeroed, then filled, sigaction of our own; the handler
        // touches only atomics and errno.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = host_handler as *const () as usize;
            // SA_SIGINFO alone: the guard must tell it from a plain
            // handler by that flag, whatever else is set.
            sa.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            assert_eq!(libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut()), 0);
        }
    }

    /// Send SIGBUS to this thread, as `kill` from another process would
    /// (not a fault: the handler returns to the caller).
    pub fn raise_sigbus() {
        // SAFETY: raise takes a plain integer.
        unsafe { libc::raise(libc::SIGBUS) };
    }

    pub fn errno() -> i32 {
        // SAFETY: this thread's errno, valid for its life.
        unsafe { *libc::__errno_location() }
    }

    pub fn set_errno(value: i32) {
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = value };
    }

    /// Give this thread `stack` as its alternate signal stack; returns
    /// the stack's address range.
    pub fn use_alternate_stack(stack: &'static mut [u8]) -> std::ops::Range<usize> {
        let range = stack.as_ptr() as usize..stack.as_ptr() as usize + stack.len();
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: stack.len(),
        };
        // SAFETY: the stack is 'static (leaked), so it outlives the thread
        // and any handler that runs on it.
        assert_eq!(unsafe { libc::sigaltstack(&ss, std::ptr::null_mut()) }, 0);
        range
    }
}

/// A file's bytes mapped shared and writable, rewritten in place by
/// aligned 8-byte stores (each seen whole by any reader of the page):
/// another process's writes, as the tools' mapped windows meet them.
pub struct SharedWords {
    ptr: *mut u64,
    words: usize,
}

// SAFETY: the mapping is plain shared memory, written only through atomic
// stores (`store`), so any thread may hold it.
unsafe impl Send for SharedWords {}
// SAFETY: as above.
unsafe impl Sync for SharedWords {}

impl SharedWords {
    /// Map `file` (its length a multiple of 8, not 0) shared.
    pub fn map(file: &std::fs::File) -> SharedWords {
        let len = file.metadata().expect("stat").len() as usize;
        assert!(len > 0 && len.is_multiple_of(8));
        // SAFETY: a fresh shared mapping of an open file, chosen by the
        // kernel; it aliases no Rust memory and lives until drop.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        assert_ne!(ptr, libc::MAP_FAILED, "mmap");
        SharedWords {
            ptr: ptr.cast(),
            words: len / 8,
        }
    }

    /// Store 8 bytes at word `i` in one aligned atomic store.
    pub fn store(&self, i: usize, bytes: [u8; 8]) {
        assert!(i < self.words);
        // SAFETY: word `i` lies in the mapping, 8-aligned (a mapping is
        // page-aligned); every access to it here is atomic, and other
        // processes' reads of shared memory are not Rust references.
        let word = unsafe { &*self.ptr.add(i).cast::<std::sync::atomic::AtomicU64>() };
        word.store(
            u64::from_ne_bytes(bytes),
            std::sync::atomic::Ordering::Relaxed,
        );
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`.
        unsafe { libc::munmap(self.ptr.cast(), self.words * 8) };
    }
}
