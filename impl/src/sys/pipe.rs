//! Pipes: their size, splice (into /dev/null to count, or between two
//! descriptors), new pipes, and vmsplice from memory frozen for the process.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::OnceLock;

use super::copy::byte_count;
use super::fd::page_size;

/// Try to grow a pipe's buffer to `size` bytes (F_SETPIPE_SZ); returns the
/// size the pipe has afterwards, if it is a pipe at all.  A pipe that is
/// already as large is left alone: F_SETPIPE_SZ would shrink it.
pub fn grow_pipe(fd: RawFd, size: usize) -> Option<usize> {
    // SAFETY: fcntl with F_GETPIPE_SZ takes and returns plain integers; on
    // a non-pipe it fails (-1, so no size) and changes nothing.
    let pipe_size = || usize::try_from(unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) }).ok();
    if pipe_size()? < size {
        let size = libc::c_int::try_from(size).unwrap_or(libc::c_int::MAX);
        // SAFETY: as above; F_SETPIPE_SZ takes a plain integer too.
        unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, size) };
    }
    pipe_size()
}

// ---------------------------------------------------------------------------
// splice into /dev/null: count the bytes of a pipe without copying them.

/// Outcome of trying to drain a pipe with splice.
pub enum SpliceCount {
    /// Everything up to EOF was counted.
    Done(u64),
    /// splice is not possible here; `u64` bytes were already consumed and
    /// counted, the caller continues with read().
    Unsupported(u64),
    /// A real error after `u64` bytes.
    Failed(u64, io::Error),
}

pub fn splice_count_to_null(fd: RawFd) -> SpliceCount {
    static DEV_NULL: OnceLock<Option<File>> = OnceLock::new();
    let Some(null) = DEV_NULL.get_or_init(|| File::options().write(true).open("/dev/null").ok())
    else {
        return SpliceCount::Unsupported(0);
    };
    let mut total = 0u64;
    loop {
        // SAFETY: splice moves data between two descriptors inside the
        // kernel; the null offset pointers mean "use the file positions".
        let n = unsafe {
            libc::splice(
                fd,
                std::ptr::null_mut(),
                null.as_raw_fd(),
                std::ptr::null_mut(),
                1 << 30,
                libc::SPLICE_F_MOVE,
            )
        };
        if n > 0 {
            total += n as u64;
            continue;
        }
        if n == 0 {
            return SpliceCount::Done(total);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EINVAL)
            | Some(libc::ENOSYS)
            | Some(libc::EOPNOTSUPP)
            | Some(libc::EBADF) => return SpliceCount::Unsupported(total),
            _ => return SpliceCount::Failed(total, e),
        }
    }
}

// ---------------------------------------------------------------------------
// vmsplice for yes.
//
// vmsplice puts references to our pages into the pipe, not a copy of the
// bytes: the reader sees whatever the pages hold when it reads, which may
// be long after the call returned, even after we exit.  So only bytes that
// never change and are never freed may be spliced.  `FrozenPipe` enforces
// that: it keeps a clone of every buffer it has spliced from and never
// gives it back (an `Rc` with another owner cannot be mutated through safe
// code), and it leaks them if it is ever dropped.  SPLICE_F_GIFT is not
// used: it only lets a consumer steal the pages, which we never want.

/// Page-aligned memory of its own anonymous mapping, for bytes that may be
/// vmspliced.  From 1 MiB up it is aligned to 2 MiB and advised for
/// transparent huge pages: vmsplice then pins one huge page where it would
/// pin 512 small ones, which measured twice as fast into `pv` here.
pub struct PageBuffer {
    map: *mut libc::c_void,
    map_len: usize,
    start: *mut u8,
    len: usize,
}

const HUGE_PAGE: usize = 2 << 20;

impl PageBuffer {
    /// A zero-filled buffer of `len` bytes.
    pub fn new(len: usize) -> io::Result<PageBuffer> {
        let page = page_size() as usize;
        let huge = len >= HUGE_PAGE / 2;
        let round = |n: usize, to: usize| n.div_ceil(to) * to;
        let span = if huge {
            round(len, HUGE_PAGE)
        } else {
            round(len.max(1), page)
        };
        let map_len = if huge { span + HUGE_PAGE } else { span };
        // SAFETY: a fresh private anonymous mapping; the kernel picks the
        // address and nothing else refers to it.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let offset = if huge {
            (HUGE_PAGE - map as usize % HUGE_PAGE) % HUGE_PAGE
        } else {
            0
        };
        // SAFETY: `offset + span <= map_len`, so `start` and the advised
        // range lie inside the mapping.  madvise only changes how the
        // kernel backs the range; its failure is harmless.
        let start = unsafe {
            let start = (map as *mut u8).add(offset);
            if huge {
                libc::madvise(start as *mut libc::c_void, span, libc::MADV_HUGEPAGE);
            }
            start
        };
        Ok(PageBuffer {
            map,
            map_len,
            start,
            len,
        })
    }
}

impl std::ops::Deref for PageBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `start..start + len` lies inside our mapping, which lives
        // until drop, and is initialised (anonymous memory is zero-filled).
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
}

impl std::ops::DerefMut for PageBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as for Deref; `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.start, self.len) }
    }
}

impl Drop for PageBuffer {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `new` made; no slice of it can
        // outlive `self`.
        unsafe {
            libc::munmap(self.map, self.map_len);
        }
    }
}

/// A pipe that takes bytes by vmsplice from buffers frozen for the rest of
/// the process.
pub struct FrozenPipe {
    fd: RawFd,
    frozen: Vec<std::rc::Rc<PageBuffer>>,
}

impl FrozenPipe {
    pub fn new(fd: RawFd) -> FrozenPipe {
        FrozenPipe {
            fd,
            frozen: Vec::new(),
        }
    }

    /// One vmsplice of `buf[from..to]`: returns how many bytes the pipe
    /// took.  It waits for room, then takes what fits; with `nonblocking`
    /// a full pipe gives `WouldBlock` instead of waiting.
    pub fn vmsplice(
        &mut self,
        buf: &std::rc::Rc<PageBuffer>,
        from: usize,
        to: usize,
        nonblocking: bool,
    ) -> io::Result<usize> {
        let bytes = &buf[from..to];
        if !self.frozen.iter().any(|b| std::rc::Rc::ptr_eq(b, buf)) {
            self.frozen.push(std::rc::Rc::clone(buf));
        }
        let iov = libc::iovec {
            iov_base: bytes.as_ptr() as *mut libc::c_void,
            iov_len: bytes.len(),
        };
        let flags = if nonblocking {
            libc::SPLICE_F_NONBLOCK
        } else {
            0
        };
        // SAFETY: `iov` describes `bytes`, which lie inside a buffer that
        // `self.frozen` holds a clone of and never releases (see Drop), so
        // the pages stay allocated and unmodified for the life of the
        // process, as vmsplice's page references require (docs/safety.md,
        // "vmsplice").  The kernel only
        // reads the one iovec we pass.
        byte_count(unsafe { libc::vmsplice(self.fd, &iov, 1, flags) })
    }
}

impl Drop for FrozenPipe {
    fn drop(&mut self) {
        // The pipe may still hold references to these pages.
        for buf in self.frozen.drain(..) {
            std::mem::forget(buf);
        }
    }
}

/// One `splice(from, NULL, to, NULL, len, SPLICE_F_MOVE)`; one end must be
/// a pipe.
pub fn splice(from: RawFd, to: RawFd, len: usize) -> io::Result<usize> {
    // SAFETY: as for copy_file_range: file positions, no user memory.
    byte_count(unsafe {
        libc::splice(
            from,
            std::ptr::null_mut(),
            to,
            std::ptr::null_mut(),
            len,
            libc::SPLICE_F_MOVE,
        )
    })
}

/// A new pipe, both ends close-on-exec: (read end, write end).
pub fn pipe() -> io::Result<(File, File)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we own; on
    // success we take sole ownership of both.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])))
    }
}
