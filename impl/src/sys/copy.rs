//! Kernel copies for cat: copy_file_range, and what its errors mean.

use std::io;
use std::os::fd::RawFd;

use super::fd::borrow_fd;

// Each wrapper (here, and splice in `super::pipe`) makes one call and
// reports what it moved; the caller owns the loop, so it always knows how many bytes have left the input and can
// switch paths without losing or repeating any.

/// Errors that mean "this kind of copy is not possible between these two
/// descriptors" rather than "the data could not be read or written".
pub fn means_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL)
            | Some(libc::ENOSYS)
            | Some(libc::EOPNOTSUPP)
            | Some(libc::EXDEV)
            | Some(libc::EBADF)
            | Some(libc::ETXTBSY)
            | Some(libc::EPERM)
    )
}

pub(super) fn byte_count(r: isize) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// Can one byte be read from `fd` at `offset`?  Reads it with pread(2),
/// which leaves the descriptor's offset alone, retrying EINTR.
pub fn pread_probe(fd: RawFd, offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let file = borrow_fd(fd);
    let mut byte = [0u8; 1];
    loop {
        match file.read_at(&mut byte, offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// One `copy_file_range(from, NULL, to, NULL, len, 0)`: copy at the file
/// positions of both descriptors and advance them.
pub fn copy_file_range(from: RawFd, to: RawFd, len: usize) -> io::Result<usize> {
    // SAFETY: null offset pointers mean "use and advance the file
    // positions"; the kernel touches no memory of ours.
    byte_count(unsafe {
        libc::copy_file_range(from, std::ptr::null_mut(), to, std::ptr::null_mut(), len, 0)
    })
}
