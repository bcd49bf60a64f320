//! The stream strategy: read into one [`LineBuffer`], hand each stretch
//! of whole lines to the core, and keep only what the next stretch needs.
//! It also finishes what the mapped strategy (`mapped.rs`) leaves.

use std::io;

use super::buffer::{LineBuffer, Window};
use super::lines;
use super::search::{FileState, Search};
use super::sink::Stop;
use super::system::{GrepInput, GrepStream, NeverPauses};
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
            GrepInput::Reader { mut reader, .. } => {
                let buf = self.line_buffer(cfg);
                self.stream(&mut *reader, buf)?
            }
            // Output per line cannot wait for a window to be checked.
            GrepInput::Mapped { file, .. } if self.line_buffered && !self.eff.out_quiet => {
                match file.into_reader(0) {
                    Ok(reader) => {
                        let buf = self.line_buffer(cfg);
                        self.stream(&mut NeverPauses(reader), buf)?
                    }
                    Err(e) => Some(e),
                }
            }
            GrepInput::Mapped { file, .. } => self.mapped(file, cfg)?,
        };
        Ok((std::mem::take(&mut self.file), error))
    }

    /// Is the binary probe still open: is nothing searched until more
    /// input, its end or a pause comes?  Binary input is decided on the
    /// first 32 KiB, or on what came before the input first paused, so
    /// the answer never depends on how reads arrive; without the binary
    /// rule nothing waits.
    fn probing(&self, buf: &LineBuffer) -> bool {
        self.binary_rule_applies() && !self.file.binary && buf.seen() < self.probe()
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
        reader: &mut dyn GrepStream,
        mut buf: LineBuffer,
    ) -> Result<Option<io::Error>, Stop> {
        let searched = self.stream_into(reader, &mut buf);
        self.spare = buf.into_storage();
        searched
    }

    fn stream_into(
        &mut self,
        reader: &mut dyn GrepStream,
        buf: &mut LineBuffer,
    ) -> Result<Option<io::Error>, Stop> {
        loop {
            if reader.paused() {
                self.pause(buf)?;
                if self.file.done {
                    // `-q`, `-l`, `-m` and the like end at the pause, as
                    // GNU's search of the read that came before it does.
                    return Ok(None);
                }
            }
            let (eof, error) = match buf.fill(reader) {
                Ok(n) => (n == 0, None),
                Err(e) => (true, Some(e)),
            };
            if !eof && self.probing(buf) {
                continue;
            }
            let to = self.searchable_end(buf, eof, error.is_some());
            self.search_held(buf, to)?;
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

    /// The input has paused: what has arrived is all there is to decide
    /// on until it goes on.  The binary probe ends here (once some input
    /// has come), the whole lines held are searched, and what they
    /// printed is written before the read that waits.
    fn pause(&mut self, buf: &mut LineBuffer) -> Result<(), Stop> {
        if self.probing(buf) && buf.seen() > 0 {
            self.file.probe = Some(buf.seen());
        }
        if !self.probing(buf) {
            // As where a read error cuts the input: the lines held are
            // all there is for now.
            let to = self.searchable_end(buf, false, true);
            self.search_held(buf, to)?;
        }
        self.sink.flush_through()
    }

    /// Search the held lines up to `to`, if not yet searched.
    fn search_held(&mut self, buf: &mut LineBuffer, to: usize) -> Result<(), Stop> {
        if to > buf.searched() {
            self.region(buf.window(), buf.searched(), to)?;
            buf.mark_searched(to);
        }
        Ok(())
    }

    /// How far the buffer can be searched now: to its end at the end of
    /// input, else to the end of its last whole line; where the input is
    /// `cut` (a read error, a pause), a NUL in a binary input ends a line
    /// too.
    fn searchable_end(&self, buf: &LineBuffer, eof: bool, cut: bool) -> usize {
        let w = buf.window();
        if cut {
            // The line a read error cut short is never searched (GNU's
            // rule), nor the one a pause leaves unfinished; in a binary
            // input a NUL ends a line too.
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
