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

use super::classes;
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

    /// Do the counts depend on more than single bytes (words, characters,
    /// widths)?  If not, any split of the input can be counted apart.
    pub fn needs_pieces(&self) -> bool {
        self.words || self.chars || self.max_line_length
    }
}

const CACHE_BLOCK: usize = 32 * 1024;

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
        // Each counter makes its own pass; blocks this size stay in the
        // cache between passes.
        for block in data.chunks(CACHE_BLOCK) {
            self.feed_block(block);
        }
    }

    fn feed_block(&mut self, data: &[u8]) {
        self.counts.bytes += data.len() as u64;
        if self.plan.lines {
            self.counts.lines += count_newlines(data);
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

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Join this counter with `later`, a fresh counter that was fed the
    /// input that follows.  This counter must have ended right after a
    /// newline: then no character, word or line spans the split, and the
    /// counts simply add (the widths take the larger maximum).
    pub fn merge(self, later: Counter) -> Counter {
        debug_assert!(self.ends_line());
        let mut merged = later;
        merged.counts.lines += self.counts.lines;
        merged.counts.words += self.counts.words;
        merged.counts.chars += self.counts.chars;
        merged.counts.bytes += self.counts.bytes;
        merged.counts.max_line_length = merged
            .counts
            .max_line_length
            .max(self.counts.max_line_length);
        merged
    }

    /// Is the counter at the start of a line with nothing pending, as it is
    /// right after a newline?
    pub fn ends_line(&self) -> bool {
        // Word and width state is only kept when those counts are wanted.
        self.pending_len == 0
            && (!self.plan.words || !self.in_word)
            && (!self.plan.max_line_length || self.linepos == 0)
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
        if self.plan.max_line_length {
            self.piece_by_character(piece);
            return;
        }
        if self.plan.chars {
            self.counts.chars += count_chars(piece);
        }
        if self.plan.words {
            self.words_utf8(piece);
        }
    }

    /// Words in a UTF-8 piece.  Every byte that is not ASCII belongs to a
    /// character that is a word part (or is an encoding error, also a word
    /// part) unless that character is white space or a no-break space.
    /// Those are rare, so the piece is cut at each of them and the stretches
    /// between are counted by the single-byte counter, with every non-ASCII
    /// byte a word byte.
    fn words_utf8(&mut self, piece: &[u8]) {
        let nbsp = self.plan.nbsp_separates;
        let mut counted = 0;
        while let Some((at, len)) = next_separator(piece, counted, nbsp) {
            if at > counted {
                self.counts.words += word_starts::<false>(&piece[counted..at], &mut self.in_word);
            }
            self.in_word = false;
            counted = at + len;
        }
        if counted < piece.len() {
            self.counts.words += word_starts::<false>(&piece[counted..], &mut self.in_word);
        }
    }

    /// Everything a UTF-8 piece holds, one character at a time (line widths
    /// need each character's width), with runs of ASCII in bulk.
    fn piece_by_character(&mut self, piece: &[u8]) {
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
        let class = classes::class_of(c);
        self.linepos += class.width();
        let separator = class.separates(self.plan.nbsp_separates);
        if self.plan.words && !separator && !self.in_word {
            self.counts.words += 1;
        }
        self.in_word = !separator;
    }
}

/// The first character at or after `from` in a UTF-8 piece (which starts
/// on a character boundary) that separates words and is not ASCII: its
/// offset and length.
///
/// Only lead bytes (0xC0 and up) can start such a character, and every
/// lead byte is a character boundary (decoding restarts at each byte after
/// an error, and a lead byte never continues a character), so the search
/// looks at lead bytes alone, eight bytes at a time, and decodes only those
/// whose characters may separate (`classes::lanes_to_examine`, then
/// `classes::lead_may_separate`, which learns a lead on its first visit).
fn next_separator(piece: &[u8], from: usize, nbsp_separates: bool) -> Option<(usize, usize)> {
    let mut at = from;
    while at < piece.len() {
        // Most text has long stretches without lead bytes: pass over them
        // 64 bytes at a time, in a shape the compiler vectorises.
        if let Some(block) = piece.get(at..at + 64) {
            if block.iter().fold(0u8, |acc, &b| acc | (b & (b << 1))) & 0x80 == 0 {
                at += 64;
                continue;
            }
        }
        let chunk: [u8; 8] = match piece.get(at..at + 8) {
            Some(bytes) => bytes.try_into().expect("8 bytes"),
            None => {
                // A short tail is padded with NUL, which starts nothing.
                let mut padded = [0u8; 8];
                padded[..piece.len() - at].copy_from_slice(&piece[at..]);
                padded
            }
        };
        let word = u64::from_le_bytes(chunk);
        // Lanes whose top two bits are both set: bytes 0xC0 and up.
        if word & (word << 1) & LANES_80 == 0 {
            at += 8;
            continue;
        }
        let mut lanes = classes::lanes_to_examine(&chunk);
        while lanes != 0 {
            let k = at + (lanes.trailing_zeros() / 8) as usize;
            lanes &= lanes - 1;
            if !classes::lead_may_separate(piece[k]) {
                continue;
            }
            if let Head::Char(c, n) = utf8::head(&piece[k..]) {
                if classes::class_of(c).separates(nbsp_separates) {
                    return Some((k, n));
                }
            }
        }
        at += 8;
    }
    None
}

/// A word separator of the single-byte counters: `isspace`, or (unless
/// `POSIXLY_CORRECT`, so with `NBSP`) the byte 0xA0, which the C locale
/// maps to U+00A0 NO-BREAK SPACE.  In a UTF-8 piece `NBSP` is false and
/// every non-ASCII byte is a word byte.
/// Below this size a block's newlines are counted by a plain loop: the
/// SIMD count would first detect the CPU's features, and on a virtual
/// machine each CPUID traps to the hypervisor, which costs a one-line
/// input about a twentieth of its whole run.
const SMALL_BLOCK: usize = 4096;

fn count_newlines(data: &[u8]) -> u64 {
    if data.len() < SMALL_BLOCK {
        data.iter().filter(|&&b| b == b'\n').count() as u64
    } else {
        crate::sys::count_byte(data, b'\n')
    }
}

#[inline(always)]
fn is_separator<const NBSP: bool>(b: u8) -> bool {
    classes::c_is_space(b) || (NBSP && b == 0xa0)
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

const LANES_01: u64 = 0x0101_0101_0101_0101;
const LANES_7F: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const LANES_80: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte lane set where the lane equals `byte` (exact: no
/// false positives from borrows, unlike the classic has-zero trick).
#[inline(always)]
fn lanes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (LANES_01 * u64::from(byte));
    !(((x & LANES_7F) + LANES_7F) | x) & LANES_80
}

/// High bit of each lane set where the byte is not printable ASCII
/// (0x20..=0x7E).
#[inline(always)]
fn lanes_unprintable(word: u64) -> u64 {
    let at_least_20 = ((word & LANES_7F) + LANES_01 * 0x60) & LANES_80;
    let high = word & LANES_80;
    (!at_least_20 | high | lanes_equal(word, 0x7f)) & LANES_80
}

/// Update the line width state over a single-byte piece, eight bytes at a
/// time: a word of printable ASCII just adds 8, a word whose only other
/// bytes are newlines closes lines at their lane positions, and anything
/// else is measured byte by byte.
fn widths_single_byte(piece: &[u8], linepos: &mut u64, max: &mut u64) {
    let mut words = piece.chunks_exact(8);
    for chunk in &mut words {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let newlines = lanes_equal(word, b'\n');
        let unprintable = lanes_unprintable(word) & !newlines;
        if unprintable != 0 {
            *linepos = bytes_width(*linepos, chunk, max);
            continue;
        }
        let mut lanes = newlines;
        let mut next = 0u64;
        while lanes != 0 {
            let lane = u64::from(lanes.trailing_zeros() / 8);
            *max = (*max).max(*linepos + lane - next);
            *linepos = 0;
            next = lane + 1;
            lanes &= lanes - 1;
        }
        *linepos += 8 - next;
    }
    *linepos = bytes_width(*linepos, words.remainder(), max);
}

/// The exact per-byte rule for line widths in a single-byte piece.
fn bytes_width(start: u64, bytes: &[u8], max: &mut u64) -> u64 {
    let mut pos = start;
    for &b in bytes {
        match b {
            b'\t' => pos += 8 - pos % 8,
            b'\n' | b'\r' | 0x0c => {
                *max = (*max).max(pos);
                pos = 0;
            }
            _ => pos += u64::from(classes::c_is_printable(b)),
        }
    }
    pos
}

/// Bytes that are not UTF-8 continuation bytes (0x80..=0xBF), i.e. the
/// characters of valid UTF-8.  Sums of at most 255 ones fit a u8 lane, in a
/// shape the compiler vectorises.
fn count_non_continuation(bytes: &[u8]) -> u64 {
    bytes
        .chunks(255)
        .map(|block| {
            let n: u8 = block
                .iter()
                .map(|&b| u8::from((b as i8) >= -0x40))
                .fold(0u8, |acc, x| acc.wrapping_add(x));
            u64::from(n)
        })
        .sum()
}

/// Characters in a UTF-8 piece: every byte of a valid stretch that is not a
/// continuation byte starts a character; encoding errors count nothing.
/// RFC 3629 validators (here the SIMD one from `simdutf8`) accept a subset
/// of what glibc decodes, so stretches they accept are counted in bulk and
/// only the bytes they reject are decoded one character at a time.
fn count_chars(piece: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut rest = piece;
    while !rest.is_empty() {
        let valid = match simdutf8::compat::from_utf8(rest) {
            Ok(_) => rest.len(),
            Err(e) => e.valid_up_to(),
        };
        total += count_non_continuation(&rest[..valid]);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The SWAR lane predicates against the plain per-byte rule, for every
    /// byte value in every lane, with every other value around it.
    #[test]
    fn lane_predicates_match_per_byte_rules() {
        for lane in 0..8 {
            for b in 0..=255u8 {
                for fill in [0x00u8, 0x0a, 0x20, 0x41, 0x7e, 0x7f, 0x80, 0xff] {
                    let mut bytes = [fill; 8];
                    bytes[lane] = b;
                    let word = u64::from_le_bytes(bytes);
                    let mut want_nl = 0u64;
                    let mut want_unprintable = 0u64;
                    for (i, &x) in bytes.iter().enumerate() {
                        if x == b'\n' {
                            want_nl |= 0x80 << (8 * i);
                        }
                        if !(0x20..=0x7e).contains(&x) {
                            want_unprintable |= 0x80 << (8 * i);
                        }
                    }
                    assert_eq!(lanes_equal(word, b'\n'), want_nl, "{bytes:02x?}");
                    assert_eq!(lanes_unprintable(word), want_unprintable, "{bytes:02x?}");
                }
            }
        }
    }
}
