//! The counting core of wc: one incremental [`Counter`] that the slice
//! (mmap) path feeds whole windows and the streaming path feeds whatever
//! each read returned.  Its results never depend on where the input was cut.
//!
//! Invariants:
//! - `bytes` and `lines` are counted on the raw bytes of each feed; they
//!   need no state across feeds.
//! - Words, characters and line widths are computed on *pieces* that begin
//!   and end on character boundaries.  In the UTF-8 locale up to three bytes
//!   of a character cut by a feed boundary wait in `pending` until the next
//!   feed completes (or breaks) them; `finish` flushes them as encoding
//!   errors.  The only other state crossing a boundary is `in_word` and
//!   `linepos`.
//! - Fast paths work on runs of ASCII bytes, where both locales agree on
//!   every class; everything else goes through `step`, the exact
//!   per-character rule that mirrors the spec.

use samebytes_spec::wc::{Counts, Selection};
use samebytes_spec::Locale;

use crate::utf8::{self, Head};

/// What a counter must compute, derived from the selection and the locale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub lines: bool,
    pub words: bool,
    pub chars: bool,
    pub max_line_length: bool,
    pub locale: Locale,
    /// Treat the no-break spaces as separators (unset POSIXLY_CORRECT).
    pub nbsp_separates: bool,
}

impl Plan {
    pub fn new(select: &Selection, locale: Locale, posixly_correct: bool) -> Plan {
        Plan {
            lines: select.lines,
            words: select.words,
            // In the C locale characters are bytes: nothing to compute.
            chars: select.chars && locale == Locale::Utf8,
            max_line_length: select.max_line_length,
            locale,
            nbsp_separates: !posixly_correct,
        }
    }

    /// Only the byte count is needed: its size can come from fstat, and a
    /// pipe can be drained with splice.
    pub fn bytes_only(&self) -> bool {
        !self.lines && !self.words && !self.chars && !self.max_line_length
    }

    fn needs_pieces(&self) -> bool {
        self.words || self.chars || self.max_line_length
    }
}

/// Incremental wc counts.  Cloning gives a snapshot to roll back to.
#[derive(Clone, Debug)]
pub struct Counter {
    plan: Plan,
    counts: Counts,
    in_word: bool,
    linepos: u64,
    pending: [u8; 6],
    pending_len: usize,
}

impl Counter {
    pub fn new(plan: Plan) -> Counter {
        Counter {
            plan,
            counts: Counts::default(),
            in_word: false,
            linepos: 0,
            pending: [0; 6],
            pending_len: 0,
        }
    }

    /// Count the next bytes of the input.
    pub fn feed(&mut self, data: &[u8]) {
        self.counts.bytes += data.len() as u64;
        if self.plan.lines {
            self.counts.lines += memchr::memchr_iter(b'\n', data).count() as u64;
        }
        if !self.plan.needs_pieces() {
            return;
        }
        if self.plan.locale == Locale::C {
            self.piece_single_byte(data);
            return;
        }
        let mut data = data;
        // Complete (or break) a character cut by the previous feed.
        while self.pending_len > 0 {
            let Some(&next) = data.first() else { return };
            let mut buf = self.pending;
            buf[self.pending_len] = next;
            let n = self.pending_len + 1;
            match utf8::head(&buf[..n]) {
                Head::Incomplete => {
                    self.pending = buf;
                    self.pending_len = n;
                    data = &data[1..];
                }
                Head::Char(..) => {
                    self.pending_len = 0;
                    self.piece_utf8(&buf[..n]);
                    data = &data[1..];
                }
                Head::Invalid => {
                    // The pending bytes can never complete: they are errors,
                    // and `next` starts afresh.
                    let k = self.pending_len;
                    self.pending_len = 0;
                    self.piece_utf8(&buf[..k]);
                }
            }
        }
        let cut = utf8::incomplete_tail_start(data);
        self.piece_utf8(&data[..cut]);
        let tail = &data[cut..];
        self.pending[..tail.len()].copy_from_slice(tail);
        self.pending_len = tail.len();
    }

    /// Count `n` bytes whose contents were never seen (consumed by splice
    /// or skipped by a seek); only valid when the plan needs just bytes, or
    /// when the skipped bytes were counted by size alone.
    pub fn add_uncounted_bytes(&mut self, n: u64) {
        self.counts.bytes += n;
    }

    /// The counts of everything fed so far, ending the input.
    pub fn finish(mut self) -> Counts {
        if self.pending_len > 0 {
            let stale = self.pending;
            let n = self.pending_len;
            self.pending_len = 0;
            self.piece_utf8(&stale[..n]);
        }
        if self.plan.locale == Locale::C {
            self.counts.chars = self.counts.bytes;
        }
        self.counts.max_line_length = self.counts.max_line_length.max(self.linepos);
        self.counts
    }

    /// A piece in the C locale: every byte is a character.
    fn piece_single_byte(&mut self, piece: &[u8]) {
        if piece.is_empty() {
            return;
        }
        if self.plan.words {
            self.counts.words += if self.plan.nbsp_separates {
                word_starts::<true>(piece, &mut self.in_word)
            } else {
                word_starts::<false>(piece, &mut self.in_word)
            };
        }
        if self.plan.max_line_length {
            widths_single_byte(piece, &mut self.linepos, &mut self.counts.max_line_length);
        }
    }

    /// A piece of UTF-8 text that ends on a character boundary.
    fn piece_utf8(&mut self, piece: &[u8]) {
        if self.plan.chars && !self.plan.words && !self.plan.max_line_length {
            self.counts.chars += count_chars(piece);
            return;
        }
        let mut rest = piece;
        while !rest.is_empty() {
            let ascii = utf8::ascii_prefix_len(rest);
            if ascii > 0 {
                // ASCII classes are the same in both locales.
                self.piece_single_byte(&rest[..ascii]);
                self.counts.chars += ascii as u64;
                rest = &rest[ascii..];
                continue;
            }
            match utf8::head(rest) {
                Head::Char(c, n) => {
                    self.step(Some(c));
                    rest = &rest[n..];
                }
                Head::Invalid | Head::Incomplete => {
                    self.step(None);
                    rest = &rest[1..];
                }
            }
        }
    }

    /// The exact rule for one non-ASCII character, or an encoding error
    /// (`None`).  ASCII never reaches here.
    fn step(&mut self, c: Option<u32>) {
        let Some(c) = c else {
            // An encoding error: not a character, no width, part of a word.
            if self.plan.words && !self.in_word {
                self.counts.words += 1;
            }
            self.in_word = true;
            return;
        };
        self.counts.chars += 1;
        // Code points beyond U+10FFFF (which glibc decodes) have no width
        // and are not white space.
        let c = char::from_u32(c);
        if self.plan.max_line_length {
            self.linepos += c.map_or(0, samebytes_spec::text::display_width);
        }
        let separator = c.is_some_and(|c| {
            samebytes_spec::text::is_wide_space(c)
                || (self.plan.nbsp_separates && samebytes_spec::text::is_no_break_space(c))
        });
        if self.plan.words && !separator && !self.in_word {
            self.counts.words += 1;
        }
        self.in_word = !separator;
    }
}

#[inline(always)]
fn is_separator<const NBSP: bool>(b: u8) -> bool {
    b == b' ' || b.wrapping_sub(b'\t') < 5 || (NBSP && b == 0xa0)
}

/// Count word starts in a single-byte piece and update `in_word`.  A word
/// starts at a non-separator that follows a separator (or the start).
fn word_starts<const NBSP: bool>(piece: &[u8], in_word: &mut bool) -> u64 {
    let first_starts = !*in_word && !is_separator::<NBSP>(piece[0]);
    let mut total = u64::from(first_starts);
    let prev = &piece[..piece.len() - 1];
    let cur = &piece[1..];
    // Blocks of 255 so a u8 lane accumulator cannot overflow; this shape
    // lets the compiler vectorise the comparison and the sum.
    for (p, c) in prev.chunks(255).zip(cur.chunks(255)) {
        let block: u8 = p
            .iter()
            .zip(c)
            .map(|(&a, &b)| u8::from(is_separator::<NBSP>(a) & !is_separator::<NBSP>(b)))
            .fold(0u8, |acc, x| acc.wrapping_add(x));
        total += u64::from(block);
    }
    *in_word = !is_separator::<NBSP>(piece[piece.len() - 1]);
    total
}

/// Update the line width state over a single-byte piece.
fn widths_single_byte(piece: &[u8], linepos: &mut u64, max: &mut u64) {
    let mut rest = piece;
    loop {
        match memchr::memchr3(b'\n', b'\r', 0x0c, rest) {
            Some(i) => {
                *linepos = segment_width(*linepos, &rest[..i]);
                *max = (*max).max(*linepos);
                *linepos = 0;
                rest = &rest[i + 1..];
            }
            None => {
                *linepos = segment_width(*linepos, rest);
                return;
            }
        }
    }
}

/// Width after a segment with no line-ending byte in it.
fn segment_width(start: u64, segment: &[u8]) -> u64 {
    let all_printable = segment
        .iter()
        .fold(true, |acc, &b| acc & (b.wrapping_sub(0x20) < 0x5f));
    if all_printable {
        return start + segment.len() as u64;
    }
    let mut pos = start;
    for &b in segment {
        if b == b'\t' {
            pos += 8 - pos % 8;
        } else if b.wrapping_sub(0x20) < 0x5f {
            pos += 1;
        }
    }
    pos
}

/// Characters in a UTF-8 piece: every byte of a valid stretch that is not a
/// continuation byte starts a character; encoding errors count nothing.
/// std's validator accepts a subset of what glibc decodes, so stretches it
/// accepts are counted in bulk and only the bytes it rejects are decoded one
/// character at a time.
fn count_chars(piece: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut rest = piece;
    while !rest.is_empty() {
        let valid = match std::str::from_utf8(rest) {
            Ok(_) => rest.len(),
            Err(e) => e.valid_up_to(),
        };
        for block in rest[..valid].chunks(255) {
            let n: u8 = block
                .iter()
                .map(|&b| u8::from((b as i8) >= -0x40))
                .fold(0u8, |acc, x| acc.wrapping_add(x));
            total += u64::from(n);
        }
        rest = &rest[valid..];
        if rest.is_empty() {
            break;
        }
        match utf8::head(rest) {
            Head::Char(_, n) => {
                total += 1;
                rest = &rest[n..];
            }
            Head::Invalid | Head::Incomplete => rest = &rest[1..],
        }
    }
    total
}
