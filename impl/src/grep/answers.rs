//! Where the core's questions go: to the helper's record of the region
//! being searched (`ahead.rs`) when it has one that knows the answer, to
//! the matcher and memchr otherwise.  The answers are the same either
//! way; the record's cost no search of the bytes.

use super::matcher::Undecided;

use super::ahead::Answer;
use super::buffer::Window;
use super::lines;
use super::search::Search;

impl Search<'_, '_> {
    /// `-c` takes the matching lines of `w.bytes[from..to]` the record
    /// knows at once, those that end before the first NUL with
    /// `find_nul`: for each, `selected` would only count it.  Returns
    /// just after the last one's line, to search on from there.
    pub(super) fn counted_from_record(
        &mut self,
        w: Window,
        from: usize,
        to: usize,
        find_nul: bool,
    ) -> Option<usize> {
        let found = self.ahead.as_ref()?;
        if !self.eff.out_quiet || self.opts.invert || self.eff.done_on_match {
            return None;
        }
        let a = w.offset(from);
        let b = match find_nul {
            true => found.nul_free(a).min(w.offset(to)),
            false => w.offset(to),
        };
        let room = self.limit - self.file.selected;
        let (lines, after) = found.take(a, b, room)?;
        self.file.selected += lines;
        self.file.after_last_selected = after;
        self.used = true;
        Some(w.index(after))
    }

    /// Where a stretch of `part` (at absolute `base`) from `s` that the
    /// record knows holds no NUL ends: after its last terminator before
    /// the next NUL, or at the end of the part.
    pub(super) fn known_nul_free(&self, part: &[u8], base: u64, s: usize) -> Option<usize> {
        let free = self.nul_free(base, s).min(part.len());
        match free {
            f if f <= s => None,
            f if f == part.len() => Some(f),
            f => memchr::memrchr(self.terminator, &part[s..f]).map(|p| s + p + 1),
        }
    }

    /// The matcher's answer for `hay` (at absolute `base`) from `pos`, a
    /// line start: the record's, when it knows it and `in_place` (`hay` is
    /// the file's bytes from a text line start), else the matcher's own.
    pub(super) fn find(
        &self,
        hay: &[u8],
        base: u64,
        pos: usize,
        in_place: bool,
    ) -> Result<Option<usize>, (Undecided, usize)> {
        let known = self.ahead.as_ref().filter(|_| in_place);
        match known.and_then(|found| found.find(hay, base, pos)) {
            Some(Answer::Known(answer)) => {
                if !self.eff.out_quiet {
                    known.inspect(|found| found.prefetch_ahead(hay, base));
                }
                Ok(answer)
            }
            Some(Answer::From(from)) => self.matcher.find(hay, from),
            None => self.matcher.find(hay, pos),
        }
    }

    /// The start of the line holding `hay[m]`, a match the search from
    /// `pos` found: the record's, or looking back no further than `pos`.
    pub(super) fn line_start(&self, hay: &[u8], base: u64, pos: usize, m: usize) -> usize {
        let known = self.ahead.as_ref().and_then(|f| f.line_start(base, m));
        known.unwrap_or_else(|| lines::start(hay, self.terminator, pos, m))
    }

    /// The end of the line holding `hay[m]`, a match found in place: its
    /// terminator, or the end of `hay`.
    pub(super) fn line_end(&self, hay: &[u8], base: u64, m: usize) -> usize {
        let known = self
            .ahead
            .as_ref()
            .and_then(|f| f.line_end(base, m, hay.len()));
        known.unwrap_or_else(|| lines::end(hay, self.terminator, m, hay.len()))
    }

    /// How far from `bytes[from]` (`bytes` at absolute `base`) the record
    /// knows there is no NUL, as an index into `bytes`.
    pub(super) fn nul_free(&self, base: u64, from: usize) -> usize {
        let at = base + from as u64;
        self.ahead
            .as_ref()
            .map_or(from, |found| (found.nul_free(at) - base) as usize)
    }

    /// The terminators in `bytes[a..b]` (at absolute `base`), from the
    /// record's known points when `in_place` (the bytes are the file's).
    pub(super) fn terminators(
        &self,
        bytes: &[u8],
        base: u64,
        a: usize,
        b: usize,
        in_place: bool,
    ) -> u64 {
        match self.ahead.as_ref().filter(|_| in_place) {
            Some(found) => found.terminators(bytes, base, self.terminator, a, b),
            None => lines::count(&bytes[a..b], self.terminator),
        }
    }
}
