//! Every system call of the oracle that needs `unsafe`, behind safe
//! functions: the workspace denies `unsafe_code`, and this module alone
//! allows it (`lib.rs`).

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Set `O_NONBLOCK` on a descriptor.
pub fn set_nonblocking(fd: BorrowedFd) {
    // SAFETY: fcntl on an open descriptor changes only its flags.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Ask for a pipe of `size` bytes (F_SETPIPE_SZ); what the kernel gives is
/// not checked here.
pub fn set_pipe_size(fd: BorrowedFd, size: usize) {
    let size = libc::c_int::try_from(size).unwrap_or(libc::c_int::MAX);
    // SAFETY: F_SETPIPE_SZ on an open descriptor changes only the pipe's
    // size (and fails harmlessly on anything else).
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, size) };
}

/// Bytes in a pipe not yet read, asked on either end (FIONREAD); 0 if it
/// cannot tell.
pub fn unread(fd: BorrowedFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer given.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    if r < 0 {
        0
    } else {
        n as usize
    }
}

/// A pseudo-terminal in raw mode: (master, slave).
pub fn raw_pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two descriptors through the pointers; the
    // name, termios and winsize arguments may be null.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty: {}", io::Error::last_os_error());
    // SAFETY: both descriptors were just opened for us and are owned here.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // SAFETY: a zeroed termios is filled by tcgetattr before use;
    // cfmakeraw and tcsetattr only change the terminal's settings.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        libc::tcgetattr(slave.as_raw_fd(), &mut t);
        libc::cfmakeraw(&mut t);
        libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t);
    }
    (master, slave)
}

/// What a child does between fork and exec.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChildSetup {
    /// SIGPIPE at its default action (`Some(true)`) or ignored
    /// (`Some(false)`); `None` leaves it as inherited.
    pub sigpipe_default: Option<bool>,
    /// Close descriptor 0 (`<&-`).
    pub close_stdin: bool,
    /// Close descriptor 1 (`>&-`).
    pub close_stdout: bool,
}

/// Have `cmd`'s child do `setup` before it execs.
pub fn before_exec(cmd: &mut Command, setup: ChildSetup) {
    // SAFETY: between fork and exec only signal(2) and close(2) run, both
    // async-signal-safe; the descriptors closed are the child's own copies.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(default) = setup.sigpipe_default {
                let action = if default {
                    libc::SIG_DFL
                } else {
                    libc::SIG_IGN
                };
                libc::signal(libc::SIGPIPE, action);
            }
            if setup.close_stdin {
                libc::close(0);
            }
            if setup.close_stdout {
                libc::close(1);
            }
            Ok(())
        });
    }
}

/// Ctrl-C: the first SIGINT asks the campaign to stop and report; the
/// handler then puts the default action back, so a second one kills.
pub mod interrupt {
    use std::sync::atomic::{AtomicU64, Ordering};

    static RAISED: AtomicU64 = AtomicU64::new(0);

    extern "C" fn on_sigint(_: libc::c_int) {
        RAISED.fetch_add(1, Ordering::Relaxed);
        // SAFETY: signal(2) is async-signal-safe; SIG_DFL is a valid action.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }

    /// Install the handler; returns the count of interrupts before it.
    pub fn arm() -> u64 {
        let handler = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: the handler only touches an atomic and calls signal(2),
        // both async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, handler);
        }
        RAISED.load(Ordering::Relaxed)
    }

    pub fn raised(since: u64) -> bool {
        RAISED.load(Ordering::Relaxed) != since
    }

    pub fn disarm() {
        // SAFETY: restores the default action.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }

    /// Raise the interrupt as Ctrl-C would (tests).
    #[cfg(test)]
    pub fn raise_for_test() {
        on_sigint(libc::SIGINT);
    }
}
