//! Descriptors: error text, file status, seeking, advice, readiness, and
//! borrowed descriptors as std types.

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, RawFd};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// Error text.

/// glibc's `strerror` text for an I/O error, without Rust's "(os error N)".
/// Every error a system call gives carries its errno; only std's own
/// synthetic errors have none (`write_all` after a write of 0 bytes, which
/// the kernel never gives for a non-empty write), and those read as EIO.
pub fn error_text(e: &io::Error) -> String {
    let full = io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(libc::EIO)).to_string();
    match full.rfind(" (os error ") {
        Some(cut) => full[..cut].to_string(),
        None => full,
    }
}

// ---------------------------------------------------------------------------
// File status and seeking.

/// What `fstat` says about an open descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileInfo {
    pub kind: FileKind,
    pub size: u64,
    pub block_size: u64,
    /// Device and inode: the file's identity.
    pub id: (u64, u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Fifo,
    Directory,
    /// A symbolic link: only `lstat` sees one.
    Symlink,
    /// Devices, sockets and the rest: read and written as streams.
    Other,
}

pub(super) fn info_from_stat(st: &libc::stat) -> FileInfo {
    let kind = match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => FileKind::Regular,
        libc::S_IFIFO => FileKind::Fifo,
        libc::S_IFDIR => FileKind::Directory,
        libc::S_IFLNK => FileKind::Symlink,
        _ => FileKind::Other,
    };
    FileInfo {
        kind,
        size: u64::try_from(st.st_size).unwrap_or(0),
        block_size: u64::try_from(st.st_blksize).unwrap_or(512).max(1),
        id: (st.st_dev, st.st_ino),
    }
}

/// `fstat(fd)`.
pub fn fstat(fd: RawFd) -> io::Result<FileInfo> {
    // SAFETY: fstat writes into a zeroed stat struct we own; an invalid fd
    // yields EBADF, not undefined behaviour.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info_from_stat(&st))
    }
}

/// `stat(path)`.
pub fn stat_path(path: &[u8]) -> io::Result<FileInfo> {
    let c = std::ffi::CString::new(path).map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
    // SAFETY: `c` is a valid NUL-terminated path; stat writes into a zeroed
    // struct we own.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::stat(c.as_ptr(), &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info_from_stat(&st))
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Whence {
    Set,
    Cur,
    End,
}

/// `lseek(fd, offset, whence)`.
pub fn lseek(fd: RawFd, offset: i64, whence: Whence) -> io::Result<u64> {
    let w = match whence {
        Whence::Set => libc::SEEK_SET,
        Whence::Cur => libc::SEEK_CUR,
        Whence::End => libc::SEEK_END,
    };
    // SAFETY: lseek has no memory effects; errors are reported via -1.
    let r = unsafe { libc::lseek(fd, offset as libc::off_t, w) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as u64)
    }
}

/// Was `fd` opened for appending (`O_APPEND`)?  `false` if it cannot be
/// asked.
pub fn is_append(fd: RawFd) -> bool {
    // SAFETY: F_GETFL takes no argument and has no memory effects; errors
    // are reported as -1.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags >= 0 && flags & libc::O_APPEND != 0
}

pub fn page_size() -> u64 {
    static PAGE: OnceLock<u64> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no memory effects.  It cannot fail for
        // _SC_PAGESIZE (POSIX requires the value); 4 KiB if it ever did.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(p).unwrap_or(4096)
    })
}

/// Close descriptor `fd` (1 or 2) at exit, as stdio's `fclose` does: the
/// last word of a file system that reports a write's failure only at
/// close (NFS, a full quota).  Only for a process about to exit.
pub fn close_at_exit(fd: RawFd) -> io::Result<()> {
    // SAFETY: close has no memory effects; nothing writes to the
    // descriptor after it, since the process exits next.
    match unsafe { libc::close(fd) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Advise the kernel that `fd` will be read sequentially.
pub fn advise_sequential(fd: RawFd) {
    // SAFETY: posix_fadvise only gives a hint; failure is harmless.
    unsafe {
        libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

/// Would a read of `fd` wait now: has the input nothing to give yet, and
/// has its writer not gone (`poll` with no timeout finds it neither
/// readable nor hung up)?  A poll that does not wait is never interrupted
/// (no handler of ours runs while it does), and an input that cannot be
/// asked (`poll` fails) is taken as ready: the read that follows tells.
pub fn read_would_wait(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd, and the count passed is 1; a zero
    // timeout returns at once.
    unsafe { libc::poll(&mut p, 1, 0) == 0 }
}

/// How many bytes can be read from `fd` without blocking (FIONREAD), if
/// the descriptor can tell.
pub fn bytes_ready(fd: RawFd) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into `n`, which we own.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    (r == 0).then_some(n.max(0) as usize)
}

// ---------------------------------------------------------------------------
// Borrowed descriptors as std types.

/// A `File` view of a descriptor we do not own (stdin, stdout).  It is never
/// closed by us.
pub fn borrow_fd(fd: RawFd) -> ManuallyDrop<File> {
    // SAFETY: the File is wrapped in ManuallyDrop, so it never closes `fd`;
    // callers only use it while the descriptor stays open (the process's
    // standard streams, which are open for its whole life or report EBADF).
    ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })
}

/// A writer on a raw descriptor with no buffering of its own.
pub struct FdWriter {
    file: ManuallyDrop<File>,
}

impl FdWriter {
    pub fn stdout() -> Self {
        FdWriter {
            file: borrow_fd(libc::STDOUT_FILENO),
        }
    }

    /// Descriptor 2, failing as the kernel fails it (std's own stderr
    /// takes EBADF for success).
    pub fn stderr() -> Self {
        FdWriter {
            file: borrow_fd(libc::STDERR_FILENO),
        }
    }
}

impl Write for FdWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
