//! The stream strategy: read into one [`LineBuffer`], hand each stretch
//! of whole lines to the core, and keep only what the next stretch needs.
//! (A mapped strategy was measured slower than read() on this machine and
//! removed; see BENCHMARKS.md.)

use std::io::{self, Read};

use samebytes_spec::grep::{BinaryFiles, BINARY_PREFIX};

use super::buffer::LineBuffer;
use super::search::{FileState, Search};
use super::sink::Stop;
use super::system::GrepInput;
use super::GrepConfig;

impl Search<'_, '_> {
    /// Search one input, named `name` in output.  Returns its final state
    /// and the read error that ended it, if any.
    pub(super) fn input(
        &mut self,
        name: &[u8],
        input: GrepInput,
        cfg: &GrepConfig,
    ) -> Result<(FileState, Option<io::Error>), Stop> {
        self.begin(name);
        let error = match input {
            GrepInput::Directory => Some(io::Error::from_raw_os_error(libc::EISDIR)),
            GrepInput::Reader {
                mut reader,
                may_block,
            } => self.stream(&mut *reader, may_block, cfg)?,
        };
        Ok((std::mem::take(&mut self.file), error))
    }

    /// Binary input is decided only once 32 KiB or the end of input has
    /// been seen, so the answer never depends on how reads arrive; these
    /// need not wait.
    fn decided_early(&self) -> bool {
        self.opts.binary_files == BinaryFiles::Text || self.terminator == 0
    }

    fn stream(
        &mut self,
        reader: &mut dyn Read,
        may_block: bool,
        cfg: &GrepConfig,
    ) -> Result<Option<io::Error>, Stop> {
        let mut buf = LineBuffer::new(cfg.buffer, self.terminator);
        loop {
            if may_block {
                self.sink.flush()?;
            }
            let (eof, error) = match buf.fill(reader) {
                Ok(n) => (n == 0, None),
                Err(e) => (true, Some(e)),
            };
            if !eof
                && !self.decided_early()
                && !self.file.binary
                && buf.seen() < BINARY_PREFIX as u64
            {
                continue;
            }
            let to = self.searchable_end(&buf, eof, error.is_some());
            if to > buf.searched() {
                self.region(buf.window(), buf.searched(), to)?;
                buf.mark_searched(to);
            }
            if eof || self.file.done {
                // A search that needed no more input never meets a read
                // error past its end: GNU would not have read that far.
                return Ok(error.filter(|_| !self.file.done));
            }
            let keep = self.keep_from(&buf);
            self.count_lines_to(buf.window(), keep);
            buf.discard_before(keep);
        }
    }

    /// How far the buffer can be searched now.
    fn searchable_end(&self, buf: &LineBuffer, eof: bool, read_failed: bool) -> usize {
        let w = buf.window();
        if read_failed {
            // The line a read error cut short is never searched (GNU's
            // rule); in a binary input a NUL ends a line too.
            let nul = match self.binary_rule_applies() {
                true => {
                    memchr::memrchr(0, &w.bytes[buf.searched()..]).map(|p| buf.searched() + p + 1)
                }
                false => None,
            };
            buf.complete().max(nul.unwrap_or(0))
        } else if eof {
            buf.filled()
        } else {
            buf.complete()
        }
    }

    /// The first byte the next region may need: the partial line, the
    /// lines before-context may reach back to, and owed after-context.
    fn keep_from(&self, buf: &LineBuffer) -> usize {
        let keep = buf.context_start(self.eff.before.unwrap_or(0));
        match self.file.lastout {
            Some(l) => keep.max(buf.window().index(l)).min(buf.searched()),
            None => keep,
        }
    }
}
