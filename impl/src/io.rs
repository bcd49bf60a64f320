//! The I/O seams.  Tools read through [`Opened`] and write through
//! [`Output`]; the binaries plug in real descriptors, the tests plug in
//! adversarial readers and writers, and the code in between is the same.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};

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
    error: Option<io::Error>,
}

impl<'a> Output<'a> {
    pub fn new(sink: &'a mut dyn Write) -> Self {
        Output { sink, error: None }
    }

    /// Write all of `bytes` (retrying short writes and interruptions), or
    /// remember the failure.
    pub fn write_all(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.sink.write_all(bytes) {
            self.error = Some(e);
        }
    }

    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// GNU's `close_stdout` message for a failed stdout.  The errno is
    /// named only when closing the stream fails too, which with line
    /// buffering (nothing left to flush) happens only for a closed stdout.
    pub fn write_error_message(&self) -> Option<&'static str> {
        let e = self.error.as_ref()?;
        Some(if e.raw_os_error() == Some(libc::EBADF) {
            "write error: Bad file descriptor"
        } else {
            "write error"
        })
    }
}

/// Standard error, as stdio's unbuffered stderr: each write goes out at
/// once, and one that fails sets the error flag that gnulib's
/// `close_stdout` finds at exit ([`stderr_failed`]).
pub struct Stderr(crate::sys::FdWriter);

static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

impl Stderr {
    pub fn new() -> Stderr {
        Stderr(crate::sys::FdWriter::stderr())
    }
}

impl Default for Stderr {
    fn default() -> Self {
        Stderr::new()
    }
}

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.0.write(buf);
        if written
            .as_ref()
            .is_err_and(|e| e.kind() != io::ErrorKind::Interrupted)
        {
            STDERR_FAILED.store(true, Ordering::Relaxed);
        }
        written
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Has a write to [`Stderr`] failed (other than by an interruption, which
/// `write_all` retries)?
pub fn stderr_failed() -> bool {
    STDERR_FAILED.load(Ordering::Relaxed)
}

/// Write a diagnostic.  A failure to write to stderr cannot be reported
/// anywhere and does not change what the tool does, but at exit
/// ([`stderr_failed`]).
pub fn diagnose(stderr: &mut dyn Write, message: &[u8]) {
    let _ = stderr.write_all(message);
}
