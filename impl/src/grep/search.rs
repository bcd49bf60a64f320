//! The one search core: whole lines in, selected lines out to the sink.
//!
//! [`Search::region`] takes a region of whole lines (the last one
//! unterminated only at end of input) from either strategy.  It decides
//! the binary rule on the region's first NUL, finds matches with the
//! matcher over the whole text part at once, and hands selected lines to
//! the printer (`output.rs`).  `lastout`, `pending` and the line counter
//! follow the spec's model of GNU exactly.

use samebytes_spec::grep::{BinaryFiles, Effective, GrepEnv, GrepOptions, BINARY_PREFIX};

use super::buffer::Window;
use super::lines;
use super::matcher::Matcher;
use super::sink::{Sink, Stop};

/// Per-input state of the core, in absolute offsets.
#[derive(Clone, Default)]
pub(super) struct FileState {
    pub(super) selected: u64,
    /// GNU's `lastout` (see the spec).
    pub(super) lastout: Option<u64>,
    pub(super) pending: u64,
    /// Lines counted before `counted_to` (for `-n`).
    pub(super) counted_to: u64,
    pub(super) counted_lines: u64,
    /// Just after the last selected line (for `-m` on stdin, and for `-v`,
    /// where a selected line that follows one continues its run).
    pub(super) after_last_selected: u64,
    /// The input has turned binary.
    pub(super) binary: bool,
    pub(super) binary_selected: bool,
    pub(super) encoding_error: bool,
    /// Reading can stop: `-l -L -q` found a line, `-m` is done and owes no
    /// context, or `--binary-files=without-match` met binary input.
    pub(super) done: bool,
}

/// The searcher of one run: its options, matcher and sink, and the state
/// of the input being searched.
pub(super) struct Search<'a, 'o> {
    pub(super) opts: &'a GrepOptions,
    pub(super) eff: Effective,
    pub(super) env: &'a GrepEnv,
    pub(super) matcher: &'a Matcher,
    pub(super) terminator: u8,
    pub(super) with_filename: bool,
    pub(super) sink: Sink<'o>,
    /// Something was output, so a group separator may be due.
    pub(super) used: bool,
    /// `-m`, or no limit.
    pub(super) limit: u64,
    /// The input being searched, as its lines are prefixed.
    pub(super) name: Vec<u8>,
    pub(super) file: FileState,
}

impl Search<'_, '_> {
    /// Start on a new input.
    pub(super) fn begin(&mut self, name: &[u8]) {
        self.name.clear();
        self.name.extend_from_slice(name);
        self.file = FileState::default();
    }

    /// Can this input turn binary on a NUL?
    pub(super) fn binary_rule_applies(&self) -> bool {
        self.opts.binary_files != BinaryFiles::Text && self.terminator != 0
    }

    /// One region of whole lines, `w.bytes[from..to]`.
    pub(super) fn region(&mut self, w: Window, from: usize, to: usize) -> Result<(), Stop> {
        if self.file.done {
            return Ok(());
        }
        if !self.file.binary && self.binary_rule_applies() {
            // Every byte held counts, the partial line after `to` too: a
            // NUL there before the 32 KiB probe makes the lines before it
            // binary as well.  (A byte after `to` is looked at again only
            // in the next region, whose lines it then belongs to.)
            if let Some(p) = memchr::memchr(0, &w.bytes[from..]) {
                let nul = from + p;
                // Lines before the 32 KiB probe are searched as binary
                // too; after it, the NUL's own line starts the binary part.
                let at = if w.offset(nul) >= BINARY_PREFIX as u64 {
                    lines::start(w.bytes, self.terminator, 0, nul)
                } else {
                    0
                };
                // A NUL after `to` is in the partial line, which starts
                // at or before `to`.
                let at = at.max(from).min(to);
                self.text(w, from, at)?;
                self.file.binary = true;
                if self.opts.binary_files == BinaryFiles::WithoutMatch {
                    self.file.done = true;
                    return Ok(());
                }
                return self.binary(&w.bytes[at..to], w.offset(at));
            }
        }
        if self.file.binary {
            return self.binary(&w.bytes[from..to], w.offset(from));
        }
        self.text(w, from, to)
    }

    /// Search whole lines `w.bytes[from..to]` of text (no binary part).
    fn text(&mut self, w: Window, from: usize, to: usize) -> Result<(), Stop> {
        let t = self.terminator;
        let hay = &w.bytes[..to];
        let mut pos = from;
        while pos < to && !self.file.done && self.file.selected < self.limit {
            // An empty match after the last terminator is in no line.
            // (Here pos < to, so hay[to - 1] exists.)
            let found = match self.matcher.find(hay, pos) {
                Ok(found) => found.filter(|&m| m < to || hay[to - 1] != t),
                Err((failure, line_start)) => {
                    // GNU dies in the search.  The lines `-v` selected
                    // before the failing one are printed, wherever the
                    // buffer ends, and a failure past the `-m` limit is
                    // not met (docs/differences.md); owed after-context is
                    // not printed.
                    if self.opts.invert {
                        self.inverted_lines(w, pos, line_start)?;
                        if self.file.selected >= self.limit {
                            // The owed after-context follows, as at `-m`.
                            break;
                        }
                    }
                    return Err(failure.into());
                }
            };
            let (line_start, line_end) = match found {
                // Nothing is printed (`-c`): where the line starts does not
                // matter, only where it ends.
                Some(m) if self.eff.out_quiet && !self.opts.invert => {
                    (m, lines::end(hay, t, m, to))
                }
                Some(m) => (lines::start(hay, t, pos, m), lines::end(hay, t, m, to)),
                None => (to, to),
            };
            if self.opts.invert && self.bulk_applies() {
                if let Some(at) = self.bulk(w, pos, line_start)? {
                    // An encoding error somewhere in the block: line by line.
                    self.inverted_lines(w, at, line_start)?;
                }
            } else if self.opts.invert {
                self.inverted_lines(w, pos, line_start)?;
            } else if found.is_some() {
                self.selected(w, line_start, line_end)?;
            }
            if found.is_none() {
                break;
            }
            pos = line_end + 1;
        }
        self.print_pending(w, to)?;
        if self.file.selected >= self.limit && self.file.pending == 0 {
            self.file.done = true;
        }
        Ok(())
    }

    /// `-v` selects every line of `w.bytes[from..to]`, one by one.
    fn inverted_lines(&mut self, w: Window, from: usize, to: usize) -> Result<(), Stop> {
        let mut at = from;
        while at < to && !self.file.done && self.file.selected < self.limit {
            let e = lines::end(w.bytes, self.terminator, at, to);
            self.selected(w, at, e)?;
            at = e + 1;
        }
        Ok(())
    }

    /// Can `-v` take a block of selected lines at once?  When nothing is
    /// printed around or before the lines themselves: no context, no
    /// prefixes, no `-o`, no stop at the first line.
    fn bulk_applies(&self) -> bool {
        self.eff.before.is_none()
            && self.eff.after.is_none()
            && self.file.pending == 0
            && !self.eff.done_on_match
            && (self.eff.out_quiet
                || !(self.opts.only_matching
                    || self.opts.line_number
                    || self.opts.byte_offset
                    || self.with_filename
                    || self.opts.line_buffered))
    }

    /// Select the whole lines `w.bytes[from..to]` (the last one
    /// unterminated only at the end of input) at once: count them and,
    /// unless quiet, copy them out in one piece.  Returns where to go on
    /// line by line instead, when the block holds an encoding error.
    fn bulk(&mut self, w: Window, from: usize, to: usize) -> Result<Option<usize>, Stop> {
        if from >= to {
            return Ok(None);
        }
        let t = self.terminator;
        let block = &w.bytes[from..to];
        let unterminated = block.last() != Some(&t);
        let mut lines = lines::count(block, t) + u64::from(unterminated);
        let mut end = to;
        let room = self.limit - self.file.selected;
        if lines > room {
            // `-m`: the block ends after the last line allowed.
            end = from + lines::after_nth(block, t, room).expect("more terminators than room");
            lines = room;
        }
        if !self.eff.out_quiet {
            let block = &w.bytes[from..end];
            if self.encoding_error(block) {
                return Ok(Some(from));
            }
            self.sink.buf.extend_from_slice(block);
            if end == to && unterminated {
                self.sink.buf.push(t);
            }
            // `lastout` is not kept up here: it matters only to context,
            // which this path never has.
            self.sink.line_done()?;
        }
        self.file.selected += lines;
        self.file.after_last_selected = w.offset(end);
        self.used = true;
        Ok(None)
    }

    /// Search a binary part, at absolute `base`: NULs end lines too, and
    /// nothing is printed.
    fn binary(&mut self, part: &[u8], base: u64) -> Result<(), Stop> {
        if part.is_empty() {
            // No line here (splitting would make one empty piece).
            return Ok(());
        }
        let t = self.terminator;
        let mut pieces: Vec<&[u8]> = part.split(|&b| b == t || b == 0).collect();
        if part.last().is_some_and(|&b| b == t || b == 0) {
            pieces.pop();
        }
        let mut at = base;
        for piece in pieces {
            if self.file.done || self.file.selected >= self.limit {
                break;
            }
            at = (at + piece.len() as u64 + 1).min(base + part.len() as u64);
            if self.matcher.is_match(piece)? != self.opts.invert {
                self.file.selected += 1;
                self.file.after_last_selected = at;
                self.file.binary_selected = true;
                self.used = true;
                if !self.eff.count {
                    self.file.done = true;
                    break;
                }
            }
        }
        if self.file.selected >= self.limit {
            self.file.done = true;
        }
        Ok(())
    }

    /// Count the lines before `w.bytes[to]` not yet counted (for `-n`),
    /// before the stream drops them.
    pub(super) fn count_lines_to(&mut self, w: Window, to: usize) {
        let from = w.index(self.file.counted_to);
        if self.opts.line_number && from < to {
            self.file.counted_lines += lines::count(&w.bytes[from..to], self.terminator);
            self.file.counted_to = w.offset(to);
        }
    }
}
