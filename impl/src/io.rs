//! The I/O seams.  Tools read through [`Opened`] and write through
//! [`Output`]; the binaries plug in real descriptors, the tests plug in
//! adversarial readers and writers, and the code in between is the same.

use std::io::{self, Read, Write};

/// An opened input, as the counting and copying cores see it.
pub enum Opened<'a> {
    /// The whole input as one slice (the mmap path's shape).
    Slice(&'a [u8]),
    /// Any reader (the streaming path).
    Reader(Box<dyn Read + 'a>),
    /// A real descriptor, which may take kernel fast paths.
    Fd(crate::fdinput::FdInput),
}

/// `read` that retries on `Interrupted`, like gnulib's `safe_read`.
pub fn read_retrying(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Standard output as GNU's stdio leaves it: the first write error is
/// remembered, nothing more is written after it, and the tool reports it
/// once at exit.
pub struct Output<'a> {
    sink: &'a mut dyn Write,
    failed: bool,
}

impl<'a> Output<'a> {
    pub fn new(sink: &'a mut dyn Write) -> Self {
        Output {
            sink,
            failed: false,
        }
    }

    /// Write all of `bytes` (retrying short writes and interruptions), or
    /// remember the failure.
    pub fn write_all(&mut self, bytes: &[u8]) {
        if self.failed {
            return;
        }
        if self.sink.write_all(bytes).is_err() {
            self.failed = true;
        }
    }

    pub fn failed(&self) -> bool {
        self.failed
    }
}

/// Write a diagnostic.  A failure to write to stderr cannot be reported
/// anywhere and does not change what the tool does.
pub fn diagnose(stderr: &mut dyn Write, message: &[u8]) {
    let _ = stderr.write_all(message);
}
