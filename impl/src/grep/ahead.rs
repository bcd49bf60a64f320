//! Look-ahead: a helper thread searches the back of a mapped window while
//! the core works through its front.
//!
//! The helper only finds.  For each region it claims it writes a
//! [`Found`]: what the matcher answers there (one position per matching
//! line), where the region's first NUL is, and, when the core counts
//! lines, how many terminators lie before each matching line.  The core
//! then searches that region through the very same code, asking the
//! record instead of the matcher and counting from the record's known
//! points instead of from far away; everything it prints, counts and
//! decides is still its own.
//!
//! Invariants:
//! - A record states facts about the region's bytes as text (lines ended
//!   by the terminator alone), so it holds whatever the binary rule later
//!   decides; a query it cannot answer exactly (not inside the region, or
//!   not from a text line start) goes to the matcher.
//! - Who searches which region is the relay's business (`relay.rs`): the
//!   core from the front, the helper from the back, the window's last
//!   region always the helper's.
//! - The bytes are read where the core reads them, inside the window's
//!   view, so the window's probe covers the helper's reads too: a record
//!   made from bytes that were not the file's is never confirmed.
//! - Memory stays bounded: a record stops at `GrepConfig::record_hits`
//!   matching lines (it then knows its region up to that line, and the
//!   matcher answers from there), and the relay lets the helper claim no
//!   more regions while it holds four records' worth.  PCRE2's matcher takes a lock
//!   for each search, so `-P` has no helper.

use std::cell::Cell;

use super::lines;
use super::matcher::RegexMatcher;
use super::relay::Record;

/// One matching line, as the helper found it.
#[derive(Clone, Copy, Debug)]
struct Hit {
    /// Where the matcher's answer put it (absolute).
    at: u64,
    /// Its line's terminator, or the region's end (absolute).
    end: u64,
    /// Where its line starts (absolute), when wanted.
    start: u64,
    /// Terminators between the region's start and `start`, when counting.
    before: u64,
}

/// What the helper found in one region `[from, to)` of whole lines: all
/// of it up to `known_to`, where it stopped at its cap of hits.
#[derive(Debug)]
pub(super) struct Found {
    from: u64,
    to: u64,
    /// A line start: the lines before it are searched, and no more.
    known_to: u64,
    hits: Vec<Hit>,
    /// The bytes from `from` up to here hold no NUL.
    nul_free_to: u64,
    /// The terminators before `known_to`, when counting.
    terminators: Option<u64>,
    /// The hits' line starts are known.
    starts: bool,
    /// The hit the last answer was: the core asks in order, mostly.
    cursor: Cell<usize>,
}

/// What the helper computes besides the matches.
#[derive(Clone, Copy)]
pub(super) struct Wanted {
    pub(super) terminator: u8,
    /// The core counts lines (`-n`, `-v`).
    pub(super) counts: bool,
    /// The core needs where matching lines start (it prints lines).
    pub(super) starts: bool,
    /// The most hits a record holds: the search stops at the line after.
    pub(super) cap: usize,
}

/// What the record says of a search from a line start.
pub(super) enum Answer {
    /// The matcher's answer.
    Known(Option<usize>),
    /// No match before this line start, and nothing known from it on:
    /// ask the matcher from here.
    From(usize),
}

impl Found {
    /// Search `bytes[from..to]`, whole lines at absolute `base`, as the
    /// core's text search would: the answers of `matcher.find` from each
    /// line after the last match's.
    pub(super) fn search(
        matcher: &RegexMatcher,
        bytes: &[u8],
        base: u64,
        from: usize,
        to: usize,
        wanted: Wanted,
    ) -> Found {
        let t = wanted.terminator;
        let hay = &bytes[..to];
        let mut hits = Vec::new();
        let mut pos = from;
        // Terminators before `counted`, from `from`.
        let (mut counted, mut before) = (from, 0);
        let mut undecided = false;
        while pos < to && hits.len() < wanted.cap {
            let m = match matcher.find(hay, pos) {
                // An empty match after the last terminator is in no line.
                Ok(Some(m)) if m < to || hay[to - 1] != t => m,
                Ok(_) => break,
                // A line the matcher cannot decide: the record ends
                // before it, and the searcher meets it itself.
                Err(_) => {
                    undecided = true;
                    break;
                }
            };
            let end = lines::end(hay, t, m, to);
            let mut hit = Hit {
                at: base + m as u64,
                end: base + end as u64,
                start: 0,
                before: 0,
            };
            if wanted.starts || wanted.counts {
                let start = lines::start(hay, t, pos, m);
                hit.start = base + start as u64;
                if wanted.counts {
                    before += lines::count(&hay[counted..start], t);
                    counted = start;
                    hit.before = before;
                }
            }
            hits.push(hit);
            pos = end + 1;
        }
        // At the cap, the rest of the region is the core's own.
        let known_to = match hits.len() < wanted.cap && !undecided {
            true => to,
            false => pos.min(to),
        };
        let nul = memchr::memchr(0, &hay[from..known_to]).map_or(known_to, |p| from + p);
        Found {
            from: base + from as u64,
            to: base + to as u64,
            known_to: base + known_to as u64,
            nul_free_to: base + nul as u64,
            terminators: wanted
                .counts
                .then(|| before + lines::count(&hay[counted..known_to.max(counted)], t)),
            starts: wanted.starts || wanted.counts,
            hits,
            cursor: Cell::new(0),
        }
    }

    /// What the record says of the matcher's answer for `hay` (absolute
    /// `base`) from `pos`, a text line start; `None` unless `hay[pos..]`
    /// lies in the region.
    pub(super) fn find(&self, hay: &[u8], base: u64, pos: usize) -> Option<Answer> {
        let (q, end) = (base + pos as u64, base + hay.len() as u64);
        if q < self.from || end > self.to {
            return None;
        }
        let next = self.seek(q);
        Some(match self.hits.get(next).filter(|h| h.at < end) {
            Some(h) => Answer::Known(Some((h.at - base) as usize)),
            None if end <= self.known_to => Answer::Known(None),
            None => Answer::From((self.known_to.max(q) - base) as usize),
        })
    }

    /// The first hit at or after `q` (absolute), found from the cursor,
    /// which stays there.
    fn seek(&self, q: u64) -> usize {
        let mut i = self.cursor.get();
        if i > 0 && self.hits.get(i - 1).is_some_and(|h| h.at >= q) {
            i = self.hits.partition_point(|h| h.at < q);
        }
        while self.hits.get(i).is_some_and(|h| h.at < q) {
            i += 1;
        }
        self.cursor.set(i);
        i
    }

    /// The hit the record answered with at `m` (in a hay at absolute
    /// `base`).
    fn answered(&self, base: u64, m: usize) -> Option<&Hit> {
        let at = base + m as u64;
        self.hits.get(self.seek(at)).filter(|h| h.at == at)
    }

    /// Where the line of the hit the record answered with at `m` (in
    /// `hay`, at absolute `base`) starts, if the record knows.
    pub(super) fn line_start(&self, base: u64, m: usize) -> Option<usize> {
        let hit = self.answered(base, m).filter(|_| self.starts)?;
        Some((hit.start - base) as usize)
    }

    /// Where the line of the hit the record answered with at `m` ends in
    /// a hay of `len` bytes at absolute `base`: its terminator, or `len`.
    pub(super) fn line_end(&self, base: u64, m: usize, len: usize) -> Option<usize> {
        let hit = self.answered(base, m)?;
        Some(((hit.end - base) as usize).min(len))
    }

    /// The first `room` at most of the hits from `a` whose lines end
    /// before `b` (absolute), if the record covers that: how many, and
    /// just after the last one's line.
    pub(super) fn take(&self, a: u64, b: u64, room: u64) -> Option<(u64, u64)> {
        if a < self.from || b > self.to {
            return None;
        }
        let first = self.seek(a);
        let within = self.hits[first..].partition_point(|h| h.end < b);
        let taken = within.min(usize::try_from(room).unwrap_or(usize::MAX));
        (taken > 0).then(|| (taken as u64, self.hits[first + taken - 1].end + 1))
    }

    /// Where the record's region ends (absolute).
    pub(super) fn to(&self) -> u64 {
        self.to
    }

    /// How far from `at` (absolute) the bytes are known to hold no NUL.
    pub(super) fn nul_free(&self, at: u64) -> u64 {
        match self.from <= at && at <= self.nul_free_to {
            true => self.nul_free_to,
            false => at,
        }
    }

    /// The terminators in `bytes[a..b]` (absolute `base`): inside the
    /// region from the record's nearest known points that `bytes` holds,
    /// outside it by counting; and by counting all of it when that reads
    /// fewer bytes (the known points are far, or there are none).
    pub(super) fn terminators(&self, bytes: &[u8], base: u64, t: u8, a: usize, b: usize) -> u64 {
        let index = |abs: u64| (abs - base) as usize;
        let (x, y) = (base + a as u64, base + b as u64);
        let (lo, hi) = (x.clamp(self.from, self.to), y.clamp(self.from, self.to));
        let known = match (self.nearest(bytes, base, lo), self.nearest(bytes, base, hi)) {
            (Some(l), Some(h)) if lo < hi && l.distance() + h.distance() < y - x => Some((l, h)),
            _ => None,
        };
        let Some((l, h)) = known else {
            return lines::count(&bytes[a..b], t);
        };
        let inside = h.before(bytes, base, t) - l.before(bytes, base, t);
        inside + lines::count(&bytes[a..index(lo)], t) + lines::count(&bytes[index(hi)..b], t)
    }

    /// How many hits start at or before `p` (absolute): looked for next to
    /// the cursor first, where the core's questions are, else bisected.
    fn starting_by(&self, p: u64) -> usize {
        let n = self.hits.len();
        let c = self.cursor.get().min(n);
        let fits = |i: usize| {
            (i == 0 || self.hits[i - 1].start <= p) && (i == n || self.hits[i].start > p)
        };
        let near = (c.saturating_sub(1)..=(c + 1).min(n)).find(|&i| fits(i));
        near.unwrap_or_else(|| self.hits.partition_point(|h| h.start <= p))
    }

    /// Ask for the line of the hit a few after the cursor to be brought
    /// into the cache (`hay` at absolute `base`): the core prints the
    /// helper's lines in order, and they lie too far apart for the
    /// hardware to guess.
    pub(super) fn prefetch_ahead(&self, hay: &[u8], base: u64) {
        const AHEAD: usize = 4;
        let Some(hit) = self.hits.get(self.cursor.get() + AHEAD) else {
            return;
        };
        let lines = (hit.start..hit.end).step_by(64).take(4);
        for at in lines.chain([hit.end]) {
            if let Some(i) = at.checked_sub(base) {
                crate::sys::prefetch(hay, i as usize);
            }
        }
    }

    /// The known point nearest `p` (absolute, in the region) that `bytes`
    /// (at absolute `base`) holds, to count the terminators before `p`
    /// from.
    fn nearest(&self, bytes: &[u8], base: u64, p: u64) -> Option<Near> {
        let total = self.terminators?;
        let held = |abs: u64| abs >= base && abs - base <= bytes.len() as u64;
        let after = self.starting_by(p);
        let prev = match after {
            _ if p >= self.known_to => (self.known_to, total),
            0 => (self.from, 0),
            i => (self.hits[i - 1].start, self.hits[i - 1].before),
        };
        let next = match self.hits.get(after) {
            _ if p >= self.known_to => None,
            Some(h) => Some((h.start, h.before)),
            None => Some((self.known_to, total)),
        };
        let forward = Some(prev)
            .filter(|k| held(k.0))
            .map(|(at, before)| Near { at, before, p });
        let backward = next
            .filter(|k| held(k.0))
            .map(|(at, before)| Near { at, before, p });
        match (forward, backward) {
            (Some(f), Some(b)) if b.distance() < f.distance() => Some(b),
            (Some(f), _) => Some(f),
            (None, b) => b,
        }
    }
}

impl Record for Found {
    /// How many matching lines the record holds.
    fn hit_count(&self) -> usize {
        self.hits.len()
    }
}

/// A known point of a record near `p`: `before` terminators lie between
/// the region's start and `at`.
#[derive(Clone, Copy)]
struct Near {
    at: u64,
    before: u64,
    p: u64,
}

impl Near {
    fn distance(&self) -> u64 {
        self.at.abs_diff(self.p)
    }

    /// The terminators between the region's start and `p`.
    fn before(&self, bytes: &[u8], base: u64, t: u8) -> u64 {
        let index = |abs: u64| (abs - base) as usize;
        match self.at <= self.p {
            true => self.before + lines::count(&bytes[index(self.at)..index(self.p)], t),
            false => self.before - lines::count(&bytes[index(self.p)..index(self.at)], t),
        }
    }
}

#[cfg(test)]
mod tests {
    use samebytes_spec::grep::{PatternConfig, Syntax};
    use samebytes_spec::Locale;

    use super::*;
    use crate::grep::matcher::Matcher;

    const T: u8 = b'\n';
    const TEXT: &[u8] = b"foo\nbar foo\n\nxfoo\nbar\n\nfoo foo\nz\n";
    /// Where `TEXT` sits in the file.
    const BASE: u64 = 100;

    fn matcher(pattern: &str) -> Matcher {
        let cfg = PatternConfig {
            syntax: Syntax::Extended,
            ignore_case: false,
            word: false,
            line: false,
            locale: Locale::C,
            terminator: T,
        };
        Matcher::build(&[pattern.as_bytes().to_vec()], &cfg)
            .unwrap_or_else(|_| panic!("{pattern} compiles"))
            .0
    }

    /// The line starts of `TEXT`, and its end.
    fn boundaries() -> Vec<usize> {
        let mut b = vec![0];
        b.extend((0..TEXT.len()).filter(|&i| TEXT[i] == T).map(|i| i + 1));
        b
    }

    /// The naive reference: the matcher's own answer from `pos` in `hay`,
    /// less an empty match after the last terminator (in no line).
    fn matcher_answer(m: &Matcher, hay: &[u8], pos: usize) -> Option<usize> {
        let found = m.find(hay, pos).unwrap_or_else(|_| panic!("no failure"));
        found.filter(|&x| x < hay.len() || hay.last() != Some(&T))
    }

    /// A record of every region of a small text, at every cap, answers
    /// each search from a line start inside its region as the matcher
    /// does (or says where the matcher must go on, with nothing before),
    /// says nothing of a search reaching outside it, and counts
    /// terminators as a plain count does, between any two bytes.
    #[test]
    fn records_answer_as_the_matcher_or_not_at_all() {
        let lines = boundaries();
        for pattern in ["foo", "^$", "o+ ?f", "zz", "x?"] {
            let m = matcher(pattern);
            let shared = m.shared().expect("not -P");
            for (i, &from) in lines.iter().enumerate() {
                for &to in &lines[i + 1..] {
                    for (cap, counts, starts) in
                        [(1, true, true), (2, false, true), (3, true, false)]
                            .into_iter()
                            .chain((4..=5).map(|cap| (cap, false, false)))
                    {
                        let wanted = Wanted {
                            terminator: T,
                            counts,
                            starts,
                            cap,
                        };
                        let found = Found::search(shared, TEXT, BASE, from, to, wanted);
                        check_answers(&m, &found, (from, to), wanted, pattern);
                        check_counts(&found, pattern);
                        check_nearest(&found, pattern);
                        check_taken(&m, &found, (from, to), pattern);
                    }
                }
            }
        }
    }

    fn check_answers(
        m: &Matcher,
        found: &Found,
        (from, to): (usize, usize),
        wanted: Wanted,
        pattern: &str,
    ) {
        let lines = boundaries();
        for &end in &lines[1..] {
            let hay = &TEXT[..end];
            for &pos in lines.iter().filter(|&&p| p < end) {
                let what = format!("{pattern}: region {from}..{to}, hay ..{end}, from {pos}");
                let want = matcher_answer(m, hay, pos);
                match found.find(hay, BASE, pos) {
                    None => assert!(pos < from || end > to, "{what}: unanswered"),
                    Some(_) if pos < from || end > to => panic!("{what}: answered outside"),
                    Some(Answer::Known(got)) => {
                        assert_eq!(got, want, "{what}");
                        if let Some(x) = got {
                            check_line(found, hay, (pos, x), wanted, &what);
                        }
                    }
                    Some(Answer::From(at)) => {
                        assert!(lines.contains(&at) && at >= pos, "{what}: from {at}");
                        assert!(want.is_none_or(|w| w >= at), "{what}: skipped {want:?}");
                        assert_eq!(matcher_answer(m, hay, at), want, "{what}: from {at}");
                    }
                }
            }
        }
    }

    /// The record knows where the line of each match it answered with
    /// ends, and where it starts when the core asked for starts or counts.
    fn check_line(found: &Found, hay: &[u8], (pos, x): (usize, usize), wanted: Wanted, what: &str) {
        let end = lines::end(hay, T, x, hay.len());
        assert_eq!(found.line_end(BASE, x, hay.len()), Some(end), "{what}: end");
        let start = found.line_start(BASE, x);
        if wanted.starts || wanted.counts {
            assert_eq!(start, Some(lines::start(hay, T, pos, x)), "{what}: start");
        }
    }

    /// The matching lines of `TEXT` that start at or after `a` and end
    /// before `b`, as (start, end), by the matcher one line at a time.
    fn matching_lines(m: &Matcher, a: usize, b: usize) -> Vec<(usize, usize)> {
        let lines = boundaries();
        let starts = lines.iter().filter(|&&s| s >= a && s < TEXT.len());
        let whole = starts.map(|&s| (s, lines::end(TEXT, T, s, TEXT.len())));
        let ending = whole.filter(|&(_, e)| e < b);
        ending
            .filter(|&(s, e)| m.is_match(&TEXT[s..e]) == Ok(true))
            .collect()
    }

    /// `-c`'s bulk take: the lines it takes from `a` are the first
    /// matching ones, as many as `room` allows, and every one from `a`
    /// that ends before `b` when the record knows that far; nothing
    /// outside the region; and where no NUL lies, the record says so.
    fn check_taken(m: &Matcher, found: &Found, (from, to): (usize, usize), pattern: &str) {
        let lines = boundaries();
        let known_to = (found.known_to - BASE) as usize;
        assert_eq!(
            found.nul_free(BASE + from as u64),
            BASE + known_to as u64,
            "{pattern}"
        );
        for &a in &lines {
            for &b in &lines {
                for room in [1, 2, u64::MAX] {
                    let what =
                        format!("{pattern}: region {from}..{to}, take {a}..{b}, room {room}");
                    let taken = found.take(BASE + a as u64, BASE + b as u64, room);
                    if a < from || b > to {
                        assert!(taken.is_none(), "{what}: outside");
                        continue;
                    }
                    let (n, after) = taken.map_or((0, a), |(n, x)| (n, (x - BASE) as usize));
                    let all = matching_lines(m, a, b);
                    let before_after: Vec<_> = all.iter().filter(|l| l.1 < after).collect();
                    assert_eq!(
                        before_after.len() as u64,
                        n,
                        "{what}: {all:?}, after {after}"
                    );
                    assert!(n <= room && (n == 0 || lines.contains(&after)), "{what}");
                    let complete = (room as usize).min(all.len());
                    if b <= known_to {
                        assert_eq!(n as usize, complete, "{what}: {all:?}");
                    }
                }
            }
        }
    }

    fn check_counts(found: &Found, pattern: &str) {
        for a in 0..=TEXT.len() {
            for b in a..=TEXT.len() {
                let want = lines::count(&TEXT[a..b], T);
                let got = found.terminators(TEXT, BASE, T, a, b);
                assert_eq!(got, want, "{pattern}: terminators in {a}..{b}");
            }
        }
    }

    /// Of the record's known points that the bytes hold (the region's
    /// start, each hit's line start, where its knowledge ends), `nearest`
    /// picks one nearest to `p`, when the record counts.
    fn check_nearest(found: &Found, pattern: &str) {
        let mut known = vec![found.from, found.known_to];
        known.extend(found.hits.iter().map(|h| h.start));
        let n = TEXT.len();
        for (a, b) in [(0, n), (n / 2, n), (0, n / 2), (n / 4, n * 3 / 4)] {
            let (bytes, base) = (&TEXT[a..b], BASE + a as u64);
            let held = |abs: u64| abs >= base && abs - base <= bytes.len() as u64;
            for p in found.from.max(base)..=found.to.min(base + bytes.len() as u64) {
                let near = known.iter().filter(|&&k| held(k)).map(|&k| k.abs_diff(p));
                let want = found.terminators.and(near.min());
                let got = found.nearest(bytes, base, p).map(|n| n.distance());
                assert_eq!(got, want, "{pattern}: nearest {p} in bytes from {base}");
            }
        }
    }
}
