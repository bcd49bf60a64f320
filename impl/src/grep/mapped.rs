//! The mapped strategy, for regular files: view the file a window at a
//! time and hand its whole lines to the core a region at a time, in
//! place, with no copy into a buffer.
//!
//! A mapping can lie: when the file is cut short under a window, the
//! pages past its new end read as zeros (after a SIGBUS the guard turns
//! into zero pages, or, in the last page, with no fault at all), and a
//! bad page does the same.  So output made from a window waits in the
//! sink (`Sink::held`) until the window's probe says every byte read so
//! far was the file's.  Each such check sets a [`Mark`]: the search state
//! and the output length at a region boundary.  When a probe fails, the
//! search goes back to the last mark and reads the rest with read(2),
//! which sees the file as it now is, exactly as the stream strategy would
//! have: the output is the same as if the file had been read up to the
//! mark before it changed.
//!
//! Invariants: a region is whole lines of one window; the first window
//! reaches past the 32 KiB binary probe (or to the end of the file), and
//! until the probe every region's NUL scan looks that far, as a read of
//! the stream strategy would have; the last partial line of the file,
//! and whatever was appended after its size was read, are left to the
//! stream strategy, which reads from the mark on.

use std::io;

use samebytes_spec::grep::BINARY_PREFIX;

use super::ahead::{Found, Wanted};
use super::buffer::{LineBuffer, Window};
use super::lines::{region_end, region_start};
use super::relay::{Claim, Relay};
use super::search::{FileState, Search};
use super::sink::Stop;
use super::system::{Leftover, MappedFile, NeverPauses};
use super::GrepConfig;

/// A point the search can come back to: everything before it was read
/// from bytes known to be the file's.
#[derive(Clone)]
struct Mark {
    /// Where the next window starts: the partial line, the lines
    /// before-context may need and owed after-context.
    keep: u64,
    /// The lines before this offset are searched.
    searched: u64,
    file: FileState,
    used: bool,
    /// The sink's length here.
    held: usize,
}

/// How the search of one window ended.
enum WindowEnd {
    /// Its whole lines are searched; the mark is at their end.
    Searched,
    /// No whole line after the mark: the next window must be longer.
    NoWholeLine,
    /// Nothing more to search in this input.
    Done,
    /// Some byte read was not the file's: go back to the mark.
    Spoiled,
    /// Output failed, or (`-P`) a match could not be decided.
    Stop(Stop),
}

impl Search<'_, '_> {
    /// Search a regular file through windows, then read what they leave.
    pub(super) fn mapped(
        &mut self,
        mut file: Box<dyn MappedFile>,
        cfg: &GrepConfig,
    ) -> Result<Option<io::Error>, Stop> {
        self.sink.held = true;
        let mark = self.windows(&mut *file, cfg);
        self.sink.held = false;
        let mark = mark?;
        if self.file.done {
            return Ok(None);
        }
        let reader = match file.into_reader(mark.keep) {
            Ok(r) => r,
            Err(e) => return Ok(Some(e)),
        };
        let storage = std::mem::take(&mut self.spare);
        let buf = LineBuffer::resuming(
            storage,
            cfg.buffer,
            self.terminator,
            mark.keep,
            mark.searched,
        );
        self.stream(&mut NeverPauses(reader), buf)
    }

    /// View windows until every whole line of the file is searched, the
    /// search is done, or a window fails or is spoiled; returns the mark
    /// reading goes on from.
    fn windows(&mut self, file: &mut dyn MappedFile, cfg: &GrepConfig) -> Result<Mark, Stop> {
        let mut mark = Mark {
            keep: 0,
            searched: 0,
            file: self.file.clone(),
            used: self.used,
            held: self.sink.buf.len(),
        };
        let mut window = cfg.window.max(1);
        loop {
            let size = file.size();
            // (A search that is done has returned already: `Done`.)
            if mark.searched >= size {
                return Ok(mark);
            }
            let before_probe = (BINARY_PREFIX as u64).saturating_sub(mark.keep) as usize;
            let len = (size - mark.keep).min(window.max(before_probe) as u64) as usize;
            let reaches_end = mark.keep + len as u64 == size;
            let base = mark.keep;
            let mut end = WindowEnd::Spoiled;
            let viewed = file.view(base, len, &mut |bytes, spoiled, leftover| {
                end = self.window(Window { bytes, base }, &mut mark, spoiled, leftover, cfg);
            });
            if viewed.is_err() {
                return Ok(mark);
            }
            match end {
                WindowEnd::Searched => {}
                WindowEnd::NoWholeLine if !reaches_end => window = window.saturating_mul(2),
                WindowEnd::NoWholeLine | WindowEnd::Done => return Ok(mark),
                WindowEnd::Spoiled => {
                    self.file = mark.file.clone();
                    self.used = mark.used;
                    self.sink.truncate(mark.held);
                    return Ok(mark);
                }
                WindowEnd::Stop(stop) => return Err(stop),
            }
        }
    }

    /// Search the whole lines of one window from the mark, a region of
    /// about `cfg.buffer` bytes at a time, moving the mark (and writing
    /// the output held) whenever the probe says the bytes were the file's.
    /// With two threads, a helper searches regions from the back of the
    /// window meanwhile (`ahead.rs`, `relay.rs`), after it has unmapped
    /// the window before, the `leftover`.
    fn window(
        &mut self,
        w: Window,
        mark: &mut Mark,
        spoiled: &dyn Fn() -> bool,
        leftover: Leftover,
        cfg: &GrepConfig,
    ) -> WindowEnd {
        let t = self.terminator;
        let from = w.index(mark.searched).min(w.bytes.len());
        let Some(last) = memchr::memrchr(t, &w.bytes[from..]) else {
            return WindowEnd::NoWholeLine;
        };
        let lines = (from, from + last + 1);
        // PCRE2's matcher serves one thread at a time.
        let shared = self.matcher.shared();
        let two = region_end(w.bytes, t, from, lines.1, cfg.buffer) < lines.1;
        let (Some(matcher), true) = (shared, cfg.threads > 1 && two) else {
            return self.regions(w, lines, None, mark, spoiled, cfg);
        };
        // The helper holds a few records' worth of hits at most.
        let relay = Relay::new(from, lines.1, cfg.record_hits.saturating_mul(4));
        let wanted = Wanted {
            terminator: t,
            counts: self.opts.line_number || self.opts.invert,
            starts: !self.eff.out_quiet,
            cap: cfg.record_hits,
        };
        let search = |from, to| Found::search(matcher, w.bytes, w.base, from, to, wanted);
        let relay = &relay;
        std::thread::scope(|scope| {
            let help = move || {
                drop(leftover);
                relay.help(
                    |floor, to| region_start(w.bytes, t, floor, to, cfg.buffer),
                    search,
                );
            };
            if std::thread::Builder::new()
                .spawn_scoped(scope, help)
                .is_err()
            {
                relay.no_helper();
            }
            let end = self.regions(w, lines, Some(relay), mark, spoiled, cfg);
            relay.stop();
            end
        })
    }

    /// Search the window's `lines` in order, a region at a time, each
    /// through the helper's record where the relay hands one over.
    fn regions(
        &mut self,
        w: Window,
        (from, complete): (usize, usize),
        relay: Option<&Relay<Found>>,
        mark: &mut Mark,
        spoiled: &dyn Fn() -> bool,
        cfg: &GrepConfig,
    ) -> WindowEnd {
        let probe = w.index(BINARY_PREFIX as u64).min(w.bytes.len());
        let mut at = from;
        while at < complete {
            let end = region_end(w.bytes, self.terminator, at, complete, cfg.buffer);
            let to = match relay.map(|r| r.claim(at, end)) {
                Some(Claim::Record(found)) => {
                    let to = w.index(found.to());
                    self.ahead = Some(found);
                    to
                }
                Some(Claim::Own(to)) => to,
                None => end,
            };
            let seen = Window {
                bytes: &w.bytes[..to.max(probe)],
                base: w.base,
            };
            let searched = self.region(seen, at, to);
            self.ahead = None;
            at = to;
            if let Err(stop) = searched {
                return match spoiled() {
                    true => WindowEnd::Spoiled,
                    false => WindowEnd::Stop(stop),
                };
            }
            let finished = to == complete || self.file.done;
            if !(finished || self.sink.full()) {
                continue;
            }
            if spoiled() {
                return WindowEnd::Spoiled;
            }
            *mark = self.mark(w, to);
            if self.sink.full() {
                if let Err(stop) = self.sink.flush() {
                    return WindowEnd::Stop(stop);
                }
                mark.held = 0;
            }
            if self.file.done {
                return WindowEnd::Done;
            }
        }
        WindowEnd::Searched
    }

    /// The mark at `w.bytes[searched]`, a region boundary.
    fn mark(&mut self, w: Window, searched: usize) -> Mark {
        let keep = self.keep_from(w, searched);
        // Lines the next window no longer holds are counted now (`-n`).
        self.count_lines_to(w, keep);
        Mark {
            keep: w.offset(keep),
            searched: w.offset(searched),
            file: self.file.clone(),
            used: self.used,
            held: self.sink.buf.len(),
        }
    }
}
