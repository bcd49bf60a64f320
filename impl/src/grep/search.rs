//! The one search core: whole lines in, selected lines out to the sink.
//!
//! [`Search::region`] takes a region of whole lines (the last one
//! unterminated only at end of input) from either strategy.  It decides
//! the binary rule on the region's first NUL, finds matches with the
//! matcher over the whole text part at once, and hands selected lines to
//! the printer (`output.rs`).  `lastout`, `pending` and the line counter
//! follow the spec's model of GNU exactly.

use samebytes_spec::grep::{BinaryFiles, Effective, GrepEnv, GrepOptions, BINARY_PREFIX};

use super::ahead::Found;
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
    /// Where the binary probe ends, when not at 32 KiB: the input paused
    /// before, having given this much (`stream.rs`).
    pub(super) probe: Option<u64>,
    /// The input has turned binary.
    pub(super) binary: bool,
    pub(super) binary_selected: bool,
    pub(super) encoding_error: bool,
    /// A read error ended the input.
    pub(super) read_failed: bool,
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
    /// `-T`'s width for numbers, for the input being searched.
    pub(super) width: usize,
    /// `--color`'s sequences, when output is coloured.
    pub(super) palette: Option<&'a super::paint::Palette>,
    pub(super) sink: Sink<'o>,
    /// Something was output, so a group separator may be due.
    pub(super) used: bool,
    /// `used` is a guess (true) made by a search thread that cannot know
    /// what the inputs before this one selected: the separator before
    /// the input's first group is marked optional in the sink, and the
    /// thread that prints drops it if nothing was selected before.
    pub(super) used_guessed: bool,
    /// `-m`, or no limit.
    pub(super) limit: u64,
    /// Output goes out a line at a time: `--line-buffered`, or stdout is
    /// a terminal (as GNU's stdio makes it).
    pub(super) line_buffered: bool,
    /// The input being searched, as its lines are prefixed.
    pub(super) name: Vec<u8>,
    pub(super) file: FileState,
    /// A binary part's chunk with its NULs turned into terminators.
    pub(super) scratch: Vec<u8>,
    /// The most a chunk of a binary part around NULs holds, unless one
    /// piece is longer: [`binary_chunk`] of the stream buffer.
    pub(super) binary_chunk: usize,
    /// The helper's record of the region being searched (`ahead.rs`).
    pub(super) ahead: Option<Found>,
    /// The last stream buffer's storage, for the next input's.
    pub(super) spare: Vec<u8>,
}

/// The NUL scan that trails the matcher (see `Search::text`): the bytes
/// before `clean` hold no NUL.
struct NulTrail {
    on: bool,
    clean: usize,
    /// The bytes before this are known to hold no NUL (a record's).
    known: usize,
}

impl NulTrail {
    fn new(on: bool, from: usize, known: usize) -> NulTrail {
        NulTrail {
            on,
            clean: from,
            known,
        }
    }

    /// Does `hay[..upto]` hold a NUL past the bytes already scanned?
    fn before(&mut self, hay: &[u8], upto: usize) -> bool {
        let from = self.clean.max(self.known);
        let found = self.on && from < upto && memchr::memchr(0, &hay[from..upto]).is_some();
        self.clean = upto;
        found
    }
}

/// A quarter of the stream buffer: 64 KiB for the binaries' 256 KiB,
/// small enough to stay in cache beside the buffer it is copied from,
/// large enough that the matcher's start-up per chunk does not show.
/// Tied to the buffer so that the tests' small buffers put the chunk
/// edges, and pieces longer than a chunk, into small cases.
pub(super) fn binary_chunk(buffer: usize) -> usize {
    (buffer / 4).max(1)
}

impl<'a, 'o> Search<'a, 'o> {
    /// A searcher for one thread of a run, writing into `sink`.
    pub(super) fn new(
        ctx: &'a super::file::RunContext<'_>,
        matcher: &'a Matcher,
        sink: Sink<'o>,
    ) -> Search<'a, 'o> {
        let opts = ctx.opts;
        Search {
            opts,
            eff: ctx.eff,
            env: ctx.env,
            matcher,
            terminator: if opts.null_data { 0 } else { b'\n' },
            with_filename: false,
            width: 0,
            palette: ctx.palette.as_ref(),
            sink,
            used: false,
            used_guessed: false,
            limit: opts.max_count.unwrap_or(u64::MAX),
            line_buffered: ctx.line_buffered,
            name: Vec::new(),
            file: FileState::default(),
            scratch: Vec::new(),
            binary_chunk: binary_chunk(ctx.cfg.buffer),
            ahead: None,
            spare: Vec::new(),
        }
    }
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

    /// Where the binary probe ends: a NUL before it makes the input
    /// binary from its start, a NUL after it from the start of its line.
    pub(super) fn probe(&self) -> u64 {
        self.file.probe.unwrap_or(BINARY_PREFIX as u64)
    }

    /// One region of whole lines, `w.bytes[from..to]`.
    pub(super) fn region(&mut self, w: Window, from: usize, to: usize) -> Result<(), Stop> {
        if self.file.done {
            return Ok(());
        }
        if self.file.binary {
            return self.binary(&w.bytes[from..to], w.offset(from));
        }
        if !self.binary_rule_applies() {
            return self.text(w, from, to, false).map(|_| ());
        }
        let probe = self.probe();
        let from = if w.offset(from) < probe {
            // Before the probe every byte held counts, the partial line
            // after `to` too: a NUL there makes the lines before it binary
            // as well.  (A byte after `to` is looked at again only in the
            // next region, whose lines it then belongs to.)
            match memchr::memchr(0, &w.bytes[from..]) {
                Some(_) => from,
                None => return self.text(w, from, to, false).map(|_| ()),
            }
        } else {
            // After it, the NUL scan trails the matcher over the bytes it
            // has just read, while they are in cache (see `text`).
            match self.text(w, from, to, true)? {
                Some(pos) => pos,
                None => return Ok(()),
            }
        };
        // The lines from `from` on are not searched yet, and a NUL lies
        // at or after `from`.
        let nul = from + memchr::memchr(0, &w.bytes[from..]).expect("a NUL from here");
        // Lines before the end of the probe are searched as binary too;
        // after it, the NUL's own line starts the binary part.
        let at = if w.offset(nul) >= probe {
            lines::start(w.bytes, self.terminator, 0, nul)
        } else {
            0
        };
        // A NUL after `to` is in the partial line, which starts at or
        // before `to`.
        let at = at.max(from).min(to);
        self.text(w, from, at, false)?;
        self.file.binary = true;
        if self.opts.binary_files == BinaryFiles::WithoutMatch {
            self.file.done = true;
            return Ok(());
        }
        self.binary(&w.bytes[at..to], w.offset(at))
    }

    /// Search whole lines `w.bytes[from..to]` of text.
    ///
    /// With `find_nul`, the lines may hold a NUL, which would start a
    /// binary part: before each match is taken, the bytes up to the end
    /// of its line (the matcher has just read them) are scanned for one.
    /// On a NUL nothing from its stretch is taken, and the search returns
    /// where it stopped, for the caller to split the rest.  Without,
    /// there is no NUL and it returns `None`.
    fn text(
        &mut self,
        w: Window,
        from: usize,
        to: usize,
        find_nul: bool,
    ) -> Result<Option<usize>, Stop> {
        let t = self.terminator;
        let hay = &w.bytes[..to];
        let mut pos = from;
        let mut trail = NulTrail::new(find_nul, from, self.nul_free(w.base, from));
        if let Some(known) = self.counted_from_record(w, from, to, find_nul) {
            pos = known;
        }
        let mut nul_before = |upto: usize| trail.before(hay, upto);
        while pos < to && !self.file.done && self.file.selected < self.limit {
            // An empty match after the last terminator is in no line.
            // (Here pos < to, so hay[to - 1] exists.)
            let found = match self.find(hay, w.base, pos, true) {
                Ok(found) => found.filter(|&m| m < to || hay[to - 1] != t),
                Err(_) if nul_before(to) => return Ok(Some(pos)),
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
                    (m, self.line_end(hay, w.base, m))
                }
                Some(m) => (
                    self.line_start(hay, w.base, pos, m),
                    self.line_end(hay, w.base, m),
                ),
                None => (to, to),
            };
            if nul_before((line_end + 1).min(to)) {
                return Ok(Some(pos));
            }
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
        // Stopped early (`-m`, `-q`): owed context must not run into a
        // binary part.
        if nul_before(to) {
            return Ok(Some(pos.min(to)));
        }
        self.print_pending(w, to)?;
        if self.file.selected >= self.limit && self.file.pending == 0 {
            self.file.done = true;
        }
        Ok(None)
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
                    || self.line_buffered
                    || self
                        .palette
                        .is_some_and(|p| p.inks(p.line_ink(true, self.opts.invert)))))
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
        let mut lines = self.terminators(w.bytes, w.base, from, to, true) + u64::from(unterminated);
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
    ///
    /// The part is searched as whole buffers, as text is: the stretch
    /// before the line of the next NUL in place, and the lines around
    /// NULs in chunks of at most `binary_chunk` bytes, copied with each
    /// NUL turned into the terminator.  A piece (a line cut at NULs too)
    /// longer than a chunk is matched on its own, so nothing is copied
    /// twice over.
    fn binary(&mut self, part: &[u8], base: u64) -> Result<(), Stop> {
        let t = self.terminator;
        // A stretch from a text line start is the file's lines as they
        // are, which a record (`ahead.rs`) may know.
        let at_line = |s: usize| s == 0 || part[s - 1] == t;
        let mut s = 0;
        while s < part.len() && !self.file.done && self.file.selected < self.limit {
            if let Some(end) = self.known_nul_free(part, base, s) {
                self.binary_lines(&part[s..end], base + s as u64, false, at_line(s))?;
                s = end;
                continue;
            }
            if let Some(end) = self.nul_free_guess(part, s) {
                match self.binary_lines(&part[s..end], base + s as u64, true, at_line(s))? {
                    None => {
                        s = end;
                        continue;
                    }
                    // The guess was wrong from `s + p` on.
                    Some(p) => s += p,
                }
            }
            let Some(nul) = memchr::memchr(0, &part[s..]).map(|p| s + p) else {
                return self
                    .binary_lines(&part[s..], base + s as u64, false, at_line(s))
                    .map(|_| ());
            };
            let line = lines::start(part, t, s, nul);
            if line > s {
                self.binary_lines(&part[s..line], base + s as u64, false, at_line(s))?;
                s = line;
                continue;
            }
            // `part[s..]` starts with the line holding the NUL: a chunk of
            // whole pieces, ending just after a NUL or terminator.
            let reach = (s + self.binary_chunk).min(part.len());
            match memchr::memrchr2(t, 0, &part[s..reach]) {
                Some(p) => {
                    let e = s + p + 1;
                    let mut chunk = std::mem::take(&mut self.scratch);
                    chunk.clear();
                    chunk.extend(part[s..e].iter().map(|&b| if b == 0 { t } else { b }));
                    let searched = self.binary_lines(&chunk, base + s as u64, false, false);
                    self.scratch = chunk;
                    searched?;
                    s = e;
                }
                None => {
                    // One piece longer than a chunk, which ends at `nul`.
                    let e = nul + 1;
                    self.binary_piece(&part[s..nul], base + e as u64)?;
                    s = e;
                }
            }
        }
        if self.file.selected >= self.limit {
            self.file.done = true;
        }
        Ok(())
    }

    /// Where a stretch of `part` from `s` that looks free of NULs ends, to
    /// be searched in place with the NUL scan trailing the matcher: after
    /// the last terminator within a chunk, so that a wrong guess costs at
    /// most a chunk of search.  `None` when a NUL lies within a
    /// sixteenth of a chunk, or no line ends within one: the NULs are
    /// dense there, and are found first.
    fn nul_free_guess(&self, part: &[u8], s: usize) -> Option<usize> {
        let near = (s + (self.binary_chunk / 16).max(1)).min(part.len());
        if memchr::memchr(0, &part[s..near]).is_some() {
            return None;
        }
        let reach = s + self.binary_chunk;
        if reach >= part.len() {
            return Some(part.len());
        }
        memchr::memrchr(self.terminator, &part[s..reach]).map(|p| s + p + 1)
    }

    /// Search `hay`, lines ended by the terminator (the last one
    /// unterminated only at the end of input, or of a binary part) at
    /// absolute `base`, as binary: the selected lines are counted, not
    /// printed.  With `find_nul`, `hay` may hold NULs, which end lines
    /// too: as in `text`, a match is taken only once the bytes to its
    /// line's end are known to hold none, and on a NUL the search returns
    /// where it stopped.  `in_place`: `hay` is the file's bytes from a
    /// text line start, which a record may know.
    fn binary_lines(
        &mut self,
        hay: &[u8],
        base: u64,
        find_nul: bool,
        in_place: bool,
    ) -> Result<Option<usize>, Stop> {
        let t = self.terminator;
        let to = hay.len();
        let mut pos = 0;
        let known = match in_place {
            true => self.nul_free(base, 0),
            false => 0,
        };
        let mut trail = NulTrail::new(find_nul, 0, known);
        while pos < to && !self.file.done && self.file.selected < self.limit {
            let found = match self.find(hay, base, pos, in_place) {
                // An empty match after the last terminator is in no line.
                Ok(found) => found.filter(|&m| m < to || hay[to - 1] != t),
                Err(_) if trail.before(hay, to) => return Ok(Some(pos)),
                Err((failure, line_start)) => {
                    // The lines `-v` selected before the failing one count,
                    // as in `text`; a failure past the limit is not met.
                    if self.opts.invert {
                        self.binary_inverted(hay, base, pos, line_start, in_place);
                        if self.file.done || self.file.selected >= self.limit {
                            break;
                        }
                    }
                    return Err(failure.into());
                }
            };
            let Some(m) = found else {
                if trail.before(hay, to) {
                    return Ok(Some(pos));
                }
                if self.opts.invert {
                    self.binary_inverted(hay, base, pos, to, in_place);
                }
                break;
            };
            let line_end = match in_place {
                true => self.line_end(hay, base, m),
                false => lines::end(hay, t, m, to),
            };
            if trail.before(hay, (line_end + 1).min(to)) {
                return Ok(Some(pos));
            }
            if self.opts.invert {
                let line_start = lines::start(hay, t, pos, m);
                self.binary_inverted(hay, base, pos, line_start, in_place);
            } else {
                self.binary_selected(base + (line_end + 1).min(to) as u64);
            }
            pos = line_end + 1;
        }
        if self.file.selected >= self.limit {
            self.file.done = true;
        }
        Ok(None)
    }

    /// `-v` in a binary part selects the whole lines `hay[from..to]`.
    fn binary_inverted(&mut self, hay: &[u8], base: u64, from: usize, to: usize, in_place: bool) {
        if from >= to {
            return;
        }
        let t = self.terminator;
        let block = &hay[from..to];
        let terminators = self.terminators(hay, base, from, to, in_place);
        let lines = terminators + u64::from(block.last() != Some(&t));
        // Without `-c` the first selected line ends the search.
        let room = match self.eff.count {
            true => self.limit - self.file.selected,
            false => 1,
        };
        let taken = lines.min(room);
        let after = match taken < lines {
            true => lines::after_nth(block, t, taken).expect("a line after the last taken"),
            false => block.len(),
        };
        self.file.selected += taken - 1;
        self.binary_selected(base + (from + after) as u64);
    }

    /// One piece on its own, which ends just before absolute `after`.
    fn binary_piece(&mut self, piece: &[u8], after: u64) -> Result<(), Stop> {
        if self.matcher.is_match(piece)? != self.opts.invert {
            self.binary_selected(after);
        }
        if self.file.selected >= self.limit {
            self.file.done = true;
        }
        Ok(())
    }

    /// A line of a binary part is selected; the next one starts at `after`.
    fn binary_selected(&mut self, after: u64) {
        self.file.selected += 1;
        self.file.after_last_selected = after;
        self.file.binary_selected = true;
        self.used = true;
        if !self.eff.count {
            self.file.done = true;
        }
    }

    /// Count the lines before `w.bytes[to]` not yet counted (for `-n`),
    /// before the stream drops them.
    pub(super) fn count_lines_to(&mut self, w: Window, to: usize) {
        let from = w.index(self.file.counted_to);
        if self.opts.line_number && from < to {
            self.file.counted_lines += self.terminators(w.bytes, w.base, from, to, true);
            self.file.counted_to = w.offset(to);
        }
    }
}
