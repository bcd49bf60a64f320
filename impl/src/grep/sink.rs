//! The sink: output batched in one buffer, flushed before a read that may
//! block, before any diagnostic, at exit, and per line with
//! `--line-buffered`.

use std::io::{self, Write};

use super::matcher::Undecided;

/// What ends the whole run early: stdout failed, or a line could not be
/// decided, where GNU dies.
pub(super) enum Stop {
    Write(io::Error),
    Match(Undecided),
}

impl From<Undecided> for Stop {
    fn from(f: Undecided) -> Stop {
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
    /// The first bytes of `buf` are a group separator printed on a guess
    /// (`Search::used_guessed`): how many.
    pub(super) optional_head: usize,
    /// Told `optional_head` at each flush (a search thread's output slot
    /// reads it with the bytes).
    optional_out: Option<&'a std::cell::Cell<usize>>,
}

impl<'a> Sink<'a> {
    pub(super) fn new(out: &'a mut dyn Write, write_size: usize, line_buffered: bool) -> Sink<'a> {
        Sink {
            out,
            buf: Vec::with_capacity(write_size.min(1 << 20)),
            write_size,
            line_buffered,
            held: false,
            optional_head: 0,
            optional_out: None,
        }
    }

    /// A sink whose flushes also tell `optional` how many of the bytes
    /// written are an optional separator.
    pub(super) fn marking(mut self, optional: &'a std::cell::Cell<usize>) -> Sink<'a> {
        self.optional_out = Some(optional);
        self
    }

    /// Drop what is batched from `len` on (output the mapped strategy held
    /// for a window it must search again).
    pub(super) fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
        if self.optional_head > len {
            self.optional_head = 0;
        }
    }

    pub(super) fn flush(&mut self) -> Result<(), Stop> {
        if !self.buf.is_empty() {
            if let Some(cell) = self.optional_out {
                cell.set(std::mem::take(&mut self.optional_head));
            }
            let r = self.out.write_all(&self.buf).map_err(Stop::Write);
            self.buf.clear();
            r?;
        }
        Ok(())
    }

    /// [`Sink::flush`], and whatever the writer batches too: before a read
    /// that waits, everything printed so far must be out.
    pub(super) fn flush_through(&mut self) -> Result<(), Stop> {
        self.flush()?;
        self.out.flush().map_err(Stop::Write)
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
