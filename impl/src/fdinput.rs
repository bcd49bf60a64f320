//! A real input descriptor: a named file we opened, or the inherited stdin.

use std::fs::File;
use std::io::{self, Read};
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, RawFd};

use crate::sys;

enum Handle {
    Owned(File),
    Borrowed(ManuallyDrop<File>),
}

/// An open input file.  Named files are closed on drop; stdin never is.
pub struct FdInput {
    handle: Handle,
}

impl FdInput {
    pub fn open(path: &[u8]) -> io::Result<FdInput> {
        use std::os::unix::ffi::OsStrExt;
        let file = File::open(std::ffi::OsStr::from_bytes(path))?;
        Ok(FdInput {
            handle: Handle::Owned(file),
        })
    }

    /// A file opened elsewhere ([`sys::open_path`]).
    pub fn from_file(file: File) -> FdInput {
        FdInput {
            handle: Handle::Owned(file),
        }
    }

    pub fn stdin() -> FdInput {
        FdInput {
            handle: Handle::Borrowed(sys::borrow_fd(libc::STDIN_FILENO)),
        }
    }

    pub fn file(&self) -> &File {
        match &self.handle {
            Handle::Owned(f) => f,
            Handle::Borrowed(f) => f,
        }
    }

    pub fn raw_fd(&self) -> RawFd {
        self.file().as_raw_fd()
    }

    pub fn info(&self) -> io::Result<sys::FileInfo> {
        sys::fstat(self.raw_fd())
    }
}

impl Read for FdInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.handle {
            Handle::Owned(f) => f.read(buf),
            Handle::Borrowed(f) => f.read(buf),
        }
    }
}
