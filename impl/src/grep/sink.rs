//! The sink: output batched in one buffer, flushed before a read that may
//! block, before any diagnostic, at exit, and per line with
//! `--line-buffered`.

use std::io::{self, Write};

use samebytes_pcre2::MatchFailure;

/// What ends the whole run early: stdout failed, or (`-P`) PCRE2 could
/// not decide a match, where GNU dies.
pub(super) enum Stop {
    Write(io::Error),
    Match(MatchFailure),
}

impl From<MatchFailure> for Stop {
    fn from(f: MatchFailure) -> Stop {
        Stop::Match(f)
    }
}

/// Output batched in one buffer.
pub(super) struct Sink<'a> {
    out: &'a mut dyn Write,
    /// What is batched; callers append whole lines, then call
    /// [`Sink::line_done`].
    pub(super) buf: Vec<u8>,
    write_size: usize,
    line_buffered: bool,
    /// Output waits here, whatever its size, until the mapped strategy
    /// knows the bytes it came from were the file's.
    pub(super) held: bool,
}

impl<'a> Sink<'a> {
    pub(super) fn new(out: &'a mut dyn Write, write_size: usize, line_buffered: bool) -> Sink<'a> {
        Sink {
            out,
            buf: Vec::with_capacity(write_size.min(1 << 20)),
            write_size,
            line_buffered,
            held: false,
        }
    }

    pub(super) fn flush(&mut self) -> Result<(), Stop> {
        if !self.buf.is_empty() {
            let r = self.out.write_all(&self.buf).map_err(Stop::Write);
            self.buf.clear();
            r?;
        }
        Ok(())
    }

    /// After a whole line (or count, or name) is buffered.
    pub(super) fn line_done(&mut self) -> Result<(), Stop> {
        if !self.held && (self.line_buffered || self.buf.len() >= self.write_size) {
            self.flush()?;
        }
        Ok(())
    }

    /// Is there enough batched to write?
    pub(super) fn full(&self) -> bool {
        self.buf.len() >= self.write_size
    }

    /// Buffer `bytes` followed by `end`, as one whole line.
    pub(super) fn line(&mut self, bytes: &[u8], end: u8) -> Result<(), Stop> {
        self.buf.extend_from_slice(bytes);
        self.buf.push(end);
        self.line_done()
    }
}
