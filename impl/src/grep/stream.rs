//! The stream strategy: read into one [`LineBuffer`], hand each stretch
//! of whole lines to the core, and keep only what the next stretch needs.
//! It also finishes what the mapped strategy (`mapped.rs`) leaves.

use std::io::{self, Read};

use samebytes_spec::grep::{BinaryFiles, BINARY_PREFIX};

use super::buffer::{LineBuffer, Window};
use super::lines;
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
                ..
            } => {
                let buf = self.line_buffer(cfg);
                self.stream(&mut *reader, buf, may_block)?
            }
            // Per line output cannot wait for a window to be checked.
            GrepInput::Mapped { file, .. } if self.opts.line_buffered => {
                match file.into_reader(0) {
                    Ok(mut reader) => {
                        let buf = self.line_buffer(cfg);
                        self.stream(&mut *reader, buf, false)?
                    }
                    Err(e) => Some(e),
                }
            }
            GrepInput::Mapped { file, .. } => self.mapped(file, cfg)?,
        };
        Ok((std::mem::take(&mut self.file), error))
    }

    /// Binary input is decided only once 32 KiB or the end of input has
    /// been seen, so the answer never depends on how reads arrive; these
    /// need not wait.
    fn decided_early(&self) -> bool {
        self.opts.binary_files == BinaryFiles::Text || self.terminator == 0
    }

    /// A stream buffer, in the storage the last one left if it fits.
    fn line_buffer(&mut self, cfg: &GrepConfig) -> LineBuffer {
        let storage = std::mem::take(&mut self.spare);
        LineBuffer::recycling(storage, cfg.buffer, self.terminator)
    }

    /// Search what `reader` gives, into `buf`, whose storage is kept for
    /// the next input.
    pub(super) fn stream(
        &mut self,
        reader: &mut dyn Read,
        mut buf: LineBuffer,
        may_block: bool,
    ) -> Result<Option<io::Error>, Stop> {
        let searched = self.stream_into(reader, &mut buf, may_block);
        self.spare = buf.into_storage();
        searched
    }

    fn stream_into(
        &mut self,
        reader: &mut dyn Read,
        buf: &mut LineBuffer,
        may_block: bool,
    ) -> Result<Option<io::Error>, Stop> {
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
            let to = self.searchable_end(buf, eof, error.is_some());
            if to > buf.searched() {
                self.region(buf.window(), buf.searched(), to)?;
                buf.mark_searched(to);
            }
            if eof || self.file.done {
                // A search that needed no more input never meets a read
                // error past its end: GNU would not have read that far.
                return Ok(error.filter(|_| !self.file.done));
            }
            let keep = self.keep_from(buf.window(), buf.searched());
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

    /// The first byte of `w` the next region, from `w.bytes[searched]`,
    /// may need: the partial line, the lines before-context may reach
    /// back to, and owed after-context.
    pub(super) fn keep_from(&self, w: Window, searched: usize) -> usize {
        let n = self.eff.before.unwrap_or(0);
        let keep = lines::back(w.bytes, self.terminator, 0, searched, n);
        match self.file.lastout {
            Some(l) => keep.max(w.index(l)).min(searched),
            None => keep,
        }
    }
}
