//! The formatting core of `cat -nbsETv`: the same state machine as
//! `samebytes_spec::cat::Formatter`, fed whole chunks instead of bytes.
//!
//! Invariant: for any split of an input into chunks, feeding the chunks in
//! order writes exactly what the spec writes feeding the bytes one by one
//! (checked by the tests below and by the oracle).  All state that spans a
//! chunk boundary lives in [`Formatter`]: whether a line has started, whether
//! the last line was empty, the line number and a held-back `\r`.
//!
//! Speed comes from never looking at a byte twice: between two "special"
//! bytes (newline, and `\t`/`\r` when `-T`/`-E` change them) the input is
//! copied in bulk, found with memchr; under `-v` each line is rendered
//! eight bytes at a time, copying words of printable ASCII whole and
//! expanding other bytes through a 256-entry table.

use samebytes_spec::cat::Formatting;

/// The output buffer.  Unlike a `Vec` that is truncated and refilled, it
/// keeps its storage initialised at its high-water mark, so asking for room
/// to write into costs nothing once it has grown: the fast loops below
/// reserve the worst case for a whole chunk and then write with plain
/// slice stores.
#[derive(Clone, Debug, Default)]
pub struct OutBuf {
    data: Vec<u8>,
    used: usize,
}

impl OutBuf {
    pub fn new() -> OutBuf {
        OutBuf::default()
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.data[..self.used]
    }

    pub fn len(&self) -> usize {
        self.used
    }

    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// At least `n` writable bytes after the written ones; write into them
    /// and then [`OutBuf::commit`] how many are meant.
    #[inline]
    pub fn spare(&mut self, n: usize) -> &mut [u8] {
        let want = self.used + n;
        if self.data.len() < want {
            self.data.resize(want.max(self.data.len() * 2), 0);
        }
        &mut self.data[self.used..]
    }

    pub fn commit(&mut self, n: usize) {
        self.used += n;
    }

    #[inline]
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.spare(bytes.len())[..bytes.len()].copy_from_slice(bytes);
        self.used += bytes.len();
    }

    #[inline]
    pub fn push(&mut self, b: u8) {
        self.spare(1)[0] = b;
        self.used += 1;
    }

    /// Drop the first `n` written bytes (they have been written out).
    pub fn consume(&mut self, n: usize) {
        self.data.copy_within(n..self.used, 0);
        self.used -= n;
    }
}

/// The line-number prefix, kept as decimal text and incremented in place,
/// so numbering a line costs a few byte operations and no division.
///
/// The fast loop also keeps the first 16 bytes of the text in a register
/// (`window`) and bumps the last digit there arithmetically: reloading
/// bytes just stored one at a time would stall on store forwarding.
#[derive(Clone, Debug)]
struct LineNumber {
    /// Right-aligned digits ending before `TAB`, spaces before them, and
    /// slack after the tab so that 16-byte copies never run off the end.
    text: [u8; LineNumber::TAB + 1 + LineNumber::COPY],
    /// Index of the first digit.
    first: usize,
    /// `text[start()..start() + 16]` as a little-endian integer, when
    /// `window_valid`.
    window: u128,
    window_valid: bool,
}

impl LineNumber {
    const TAB: usize = 40;
    const LAST: usize = LineNumber::TAB - 1;
    const MIN_WIDTH: usize = 6;
    /// The fixed size the fast loop copies a number with.
    const COPY: usize = 16;

    fn new() -> LineNumber {
        let mut text = [b' '; LineNumber::TAB + 1 + LineNumber::COPY];
        text[LineNumber::LAST] = b'0';
        text[LineNumber::TAB] = b'\t';
        LineNumber {
            text,
            first: LineNumber::LAST,
            window: 0,
            window_valid: false,
        }
    }

    fn advance(&mut self) {
        let mut i = LineNumber::LAST;
        loop {
            if self.text[i] < b'9' {
                self.text[i] += 1;
                break;
            }
            self.text[i] = b'0';
            if i == self.first {
                // 40 digits cannot be reached by counting lines.
                self.first -= 1;
                self.text[self.first] = b'1';
                break;
            }
            i -= 1;
        }
    }

    /// Advance to the next number and return its `%6d\t` text.
    #[inline]
    fn next(&mut self) -> &[u8] {
        self.advance();
        self.window_valid = false;
        let start = self.start();
        &self.text[start..=LineNumber::TAB]
    }

    fn start(&self) -> usize {
        self.first.min(LineNumber::TAB - LineNumber::MIN_WIDTH)
    }

    /// Advance, and write the number into `dst` (which has room for
    /// `COPY` more bytes than the text) with one 16-byte store; returns the
    /// text's length.  Bytes past it are garbage for the caller to
    /// overwrite.
    #[inline]
    fn write_next(&mut self, dst: &mut [u8]) -> usize {
        let start = self.start();
        if self.window_valid && self.text[LineNumber::LAST] < b'9' {
            self.text[LineNumber::LAST] += 1;
            self.window += 1u128 << (8 * (LineNumber::LAST - start));
        } else {
            self.advance();
            let start = self.start();
            let piece: [u8; LineNumber::COPY] = self.text[start..start + LineNumber::COPY]
                .try_into()
                .expect("COPY bytes");
            self.window = u128::from_le_bytes(piece);
            self.window_valid = true;
        }
        let start = self.start();
        let len = LineNumber::TAB + 1 - start;
        dst[..LineNumber::COPY].copy_from_slice(&self.window.to_le_bytes());
        if len > LineNumber::COPY {
            dst[..len].copy_from_slice(&self.text[start..start + len]);
        }
        len
    }
}

/// How `-v` writes each byte: up to four bytes in the low 32 bits (first
/// byte lowest), their number in bits 32 and up.
type RenderTable = [u64; 256];

/// GNU cat's `-v` rendering of one byte, in the shape of its own loop in
/// cat.c (the spec splits meta and low bits instead; the two are compared
/// over every byte in the tests, so neither borrows the other's mistakes).
fn rendering(b: u8, show_tabs: bool) -> Vec<u8> {
    match b {
        32..=126 => vec![b],
        127 => b"^?".to_vec(),
        160..=254 => vec![b'M', b'-', b - 128],
        255 => b"M-^?".to_vec(),
        128..=159 => vec![b'M', b'-', b'^', b - 128 + 64],
        b'\t' if !show_tabs => vec![b'\t'],
        _ => vec![b'^', b + 64],
    }
}

fn render_table(show_tabs: bool) -> Box<RenderTable> {
    let mut table = Box::new([0u64; 256]);
    for (b, entry) in table.iter_mut().enumerate() {
        let v = rendering(b as u8, show_tabs);
        let mut bytes = [0u8; 4];
        bytes[..v.len()].copy_from_slice(&v);
        *entry = u64::from(u32::from_le_bytes(bytes)) | ((v.len() as u64) << 32);
    }
    table
}

const LOW_BITS: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Is every byte of `w` printable ASCII (0x20..=0x7e), so `-v` copies it
/// unchanged?  Each test is exact for "some byte is": a byte with the high
/// bit, a byte below 0x20, or a byte equal to 0x7f.
fn all_printable(w: u64) -> bool {
    let high = w & HIGH_BITS;
    let below_space = w.wrapping_sub(LOW_BITS * 0x20) & !w & HIGH_BITS;
    let x = w ^ (LOW_BITS * 0x7f);
    let del = x.wrapping_sub(LOW_BITS) & !x & HIGH_BITS;
    (high | below_space | del) == 0
}

/// Bit `i` is set when `block[i]` is a newline (`block` has at most 64
/// bytes).  A full block takes SSE2 compares on x86_64; elsewhere, and for
/// the short last block, one compare per byte.
fn newline_mask(block: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Ok(full) = <&[u8; 64]>::try_from(block) {
        return crate::sys::byte_mask_64(full, b'\n');
    }
    block
        .iter()
        .enumerate()
        .fold(0, |m, (i, &b)| m | (u64::from(b == b'\n') << i))
}

/// The formatting state carried across chunks and files.
#[derive(Clone)]
pub struct Formatter {
    opts: Formatting,
    at_line_start: bool,
    after_empty_line: bool,
    number: LineNumber,
    held_cr: bool,
    table: Option<Box<RenderTable>>,
    /// Only newlines matter (no `-v`, `-T`, `-E`): whole lines are
    /// numbered and copied in one loop.
    lines_only: bool,
    /// `-v` without numbering or squeezing: no state depends on lines, so
    /// a whole chunk is rendered through the table, newline included.
    render_all: bool,
    /// Input bytes handled by the two bulk paths above, so that tests can
    /// tell the fast paths are really taken (their output alone cannot).
    bulk_bytes: u64,
}

impl Formatter {
    pub fn new(opts: Formatting) -> Formatter {
        Formatter {
            opts,
            at_line_start: true,
            after_empty_line: false,
            number: LineNumber::new(),
            held_cr: false,
            table: opts.show_nonprinting.then(|| {
                let mut table = render_table(opts.show_tabs);
                let newline: &[u8] = if opts.show_ends { b"$\n" } else { b"\n" };
                let mut bytes = [0u8; 4];
                bytes[..newline.len()].copy_from_slice(newline);
                table[usize::from(b'\n')] =
                    u64::from(u32::from_le_bytes(bytes)) | ((newline.len() as u64) << 32);
                table
            }),
            lines_only: !(opts.show_nonprinting || opts.show_tabs || opts.show_ends),
            render_all: opts.show_nonprinting && !opts.number && !opts.squeeze_blank,
            bulk_bytes: 0,
        }
    }

    /// Input bytes formatted by the whole-line loop or the whole-chunk
    /// renderer so far.
    pub fn bulk_bytes(&self) -> u64 {
        self.bulk_bytes
    }

    /// Offset of the next byte in `rest` that is not copied verbatim.
    fn next_special(&self, rest: &[u8]) -> usize {
        let o = &self.opts;
        let found = if o.show_nonprinting {
            // Rendering handles every byte of the line; only the newline
            // stops it.
            memchr::memchr(b'\n', rest)
        } else {
            match (o.show_tabs, o.show_ends) {
                (false, false) => memchr::memchr(b'\n', rest),
                (true, false) => memchr::memchr2(b'\n', b'\t', rest),
                (false, true) => memchr::memchr2(b'\n', b'\r', rest),
                (true, true) => memchr::memchr3(b'\n', b'\t', b'\r', rest),
            }
        };
        found.unwrap_or(rest.len())
    }

    /// Write `seg` (no newlines) under `-v`: a word of printable ASCII is
    /// copied whole; any other word expands byte by byte through the table
    /// into a 36-byte window (each store writes four bytes, the next one
    /// overwrites what was not meant).  Offsets inside the window are
    /// masked to 0..32, which they never leave (eight bytes of at most four
    /// each), so that the stores need no bounds checks.
    fn render(table: &RenderTable, seg: &[u8], out: &mut OutBuf) {
        const WINDOW: usize = 36;
        let dst = out.spare(seg.len() * 4 + WINDOW);
        let mut w = 0;
        let mut words = seg.chunks_exact(8);
        // Whether to test the next word for printable ASCII: always after a
        // word that was; after one that was not, the test backs off to
        // every second, fourth, eighth word.  On text that is not ASCII
        // the test mostly fails, and its mispredicted branch costs more
        // than expanding the word through the table.
        let (mut skip, mut backoff) = (0u32, 0u32);
        for word in &mut words {
            let bytes: [u8; 8] = word.try_into().expect("chunks_exact(8)");
            let probe = skip == 0;
            skip = skip.saturating_sub(1);
            if probe && all_printable(u64::from_le_bytes(bytes)) {
                dst[w..w + 8].copy_from_slice(word);
                w += 8;
                backoff = 0;
            } else {
                if probe {
                    backoff = (backoff * 2).clamp(1, 8);
                    skip = backoff;
                }
                let window: &mut [u8; WINDOW] =
                    (&mut dst[w..w + WINDOW]).try_into().expect("WINDOW bytes");
                let mut o = 0;
                for b in bytes {
                    let r = table[b as usize];
                    let at = o & 31;
                    window[at..at + 4].copy_from_slice(&(r as u32).to_le_bytes());
                    o += (r >> 32) as usize;
                }
                w += o;
            }
        }
        for &b in words.remainder() {
            let r = table[b as usize];
            dst[w..w + 4].copy_from_slice(&(r as u32).to_le_bytes());
            w += (r >> 32) as usize;
        }
        out.commit(w);
    }

    /// Number and copy every complete line of `input[from..]`, starting at
    /// a line start; returns where the last complete line ends.
    ///
    /// Newlines are found 64 bytes at a time as a bit mask, and each block
    /// reserves room for its worst case (64 numbered empty lines) up front;
    /// lines are then copied in 32-byte pieces and numbers in 16-byte ones
    /// (where the input has the bytes to spare), the overshoot being overwritten by what
    /// follows or left beyond the committed length.
    fn whole_lines(&mut self, input: &[u8], from: usize, out: &mut OutBuf) -> usize {
        const BLOCK: usize = 64;
        const PIECE: usize = 32;
        const WORST: usize = BLOCK * (LineNumber::TAB + 2 + LineNumber::COPY) + BLOCK + 2 * PIECE;
        let o = self.opts;
        let number_empty = o.number && !o.number_nonblank;
        let mut start = from;
        let mut block = from;
        while block < input.len() {
            let end_of_block = (block + BLOCK).min(input.len());
            let mut mask = newline_mask(&input[block..end_of_block]);
            if mask == 0 {
                block = end_of_block;
                continue;
            }
            let dst = out.spare(WORST + (block - start));
            let mut w = 0;
            while mask != 0 {
                let end = block + mask.trailing_zeros() as usize + 1;
                mask &= mask - 1;
                let len = end - start;
                if len == 1 {
                    if !(o.squeeze_blank && self.after_empty_line) {
                        self.after_empty_line = true;
                        if number_empty {
                            w += self.number.write_next(&mut dst[w..]);
                        }
                        dst[w] = b'\n';
                        w += 1;
                    }
                } else {
                    self.after_empty_line = false;
                    if o.number {
                        w += self.number.write_next(&mut dst[w..]);
                    }
                    let padded = len.next_multiple_of(PIECE);
                    if len <= 2 * PIECE && start + 2 * PIECE <= input.len() {
                        // The common short line: always two pieces, so the
                        // branch does not depend on the line's length.
                        let piece: &[u8; 2 * PIECE] = input[start..start + 2 * PIECE]
                            .try_into()
                            .expect("two pieces");
                        dst[w..w + 2 * PIECE].copy_from_slice(piece);
                    } else if start + padded <= input.len() {
                        let pieces = dst[w..w + padded].chunks_exact_mut(PIECE);
                        for (d, s) in pieces.zip(input[start..start + padded].chunks_exact(PIECE)) {
                            d.copy_from_slice(s);
                        }
                    } else {
                        dst[w..w + len].copy_from_slice(&input[start..end]);
                    }
                    w += len;
                }
                start = end;
            }
            out.commit(w);
            block = end_of_block;
        }
        self.bulk_bytes += (start - from) as u64;
        start
    }

    /// Format one chunk of input, appending to `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut OutBuf) {
        if let (true, Some(table)) = (self.render_all, &self.table) {
            // No state to keep: nothing here depends on where lines start.
            Self::render(table, input, out);
            self.bulk_bytes += input.len() as u64;
            return;
        }
        let o = self.opts;
        let mut i = 0;
        while i < input.len() {
            if self.held_cr {
                self.held_cr = false;
                if input[i] == b'\n' {
                    out.extend_from_slice(b"^M");
                } else {
                    out.push(b'\r');
                }
            }
            if self.at_line_start && self.lines_only {
                i = self.whole_lines(input, i, out);
                if i == input.len() {
                    break;
                }
            }
            if self.at_line_start {
                if input[i] == b'\n' {
                    i += 1;
                    if o.squeeze_blank && self.after_empty_line {
                        continue;
                    }
                    self.after_empty_line = true;
                    if o.number && !o.number_nonblank {
                        out.extend_from_slice(self.number.next());
                    }
                    out.extend_from_slice(if o.show_ends { b"$\n" } else { b"\n" });
                    continue;
                }
                self.after_empty_line = false;
                self.at_line_start = false;
                if o.number {
                    out.extend_from_slice(self.number.next());
                }
            }
            let rest = &input[i..];
            let run = self.next_special(rest);
            match &self.table {
                Some(table) => Self::render(table, &rest[..run], out),
                None => out.extend_from_slice(&rest[..run]),
            }
            i += run;
            let Some(&b) = input.get(i) else {
                break;
            };
            i += 1;
            match b {
                b'\n' => {
                    out.extend_from_slice(if o.show_ends { b"$\n" } else { b"\n" });
                    self.at_line_start = true;
                }
                b'\t' => out.extend_from_slice(b"^I"),
                // `\r` under -E: its meaning depends on the next byte, which
                // may be in the next chunk or the next file.
                _ => self.held_cr = true,
            }
        }
    }

    /// Bytes written at exit: a `\r` still held back.
    pub fn finish(&mut self, out: &mut OutBuf) {
        if std::mem::take(&mut self.held_cr) {
            out.push(b'\r');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use samebytes_spec::cat::Formatter as Spec;

    fn all_formattings() -> Vec<Formatting> {
        (0..64u32)
            .map(|m| Formatting {
                number: m & 1 != 0,
                number_nonblank: m & 2 != 0,
                squeeze_blank: m & 4 != 0,
                show_ends: m & 8 != 0,
                show_nonprinting: m & 16 != 0,
                show_tabs: m & 32 != 0,
            })
            .filter(|f| f.number || !f.number_nonblank)
            .collect()
    }

    fn spec_output(opts: Formatting, input: &[u8]) -> Vec<u8> {
        let mut s = Spec::new(opts);
        let mut out = Vec::new();
        for &b in input {
            s.push(b, &mut out);
        }
        s.finish(&mut out);
        out
    }

    fn chunked_output(opts: Formatting, input: &[u8], cuts: &[usize]) -> Vec<u8> {
        let mut f = Formatter::new(opts);
        let mut out = OutBuf::new();
        let mut from = 0;
        for &c in cuts {
            f.feed(&input[from..c], &mut out);
            from = c;
        }
        f.feed(&input[from..], &mut out);
        f.finish(&mut out);
        out.as_slice().to_vec()
    }

    /// A small input with every kind of special byte and boundary.
    const SAMPLE: &[u8] = b"\n\nab\tc\r\n\r\r\n\n\n\x01\x7f\x80\x9f\xa0\xff e\r\n\n\tx\rq\r";

    #[test]
    fn every_single_cut_matches_spec() {
        for opts in all_formattings() {
            let expected = spec_output(opts, SAMPLE);
            for cut in 0..=SAMPLE.len() {
                assert_eq!(
                    chunked_output(opts, SAMPLE, &[cut]),
                    expected,
                    "{opts:?} cut at {cut}"
                );
            }
            let bytewise: Vec<usize> = (1..SAMPLE.len()).collect();
            assert_eq!(
                chunked_output(opts, SAMPLE, &bytewise),
                expected,
                "{opts:?} bytewise"
            );
        }
    }

    #[test]
    fn rendering_matches_spec_at_every_alignment_and_length() {
        let all: Vec<u8> = (0..=255u8).filter(|&b| b != b'\n').collect();
        let mut text = Vec::new();
        for i in 0..600usize {
            // Mostly printable runs, with every other byte value mixed in.
            text.push(if i % 7 == 3 {
                all[i % all.len()]
            } else {
                b'a' + (i % 26) as u8
            });
        }
        for show_tabs in [false, true] {
            let table = render_table(show_tabs);
            for start in 0..16 {
                for len in (0..text.len() - start).step_by(7) {
                    let seg = &text[start..start + len];
                    let mut expected = Vec::new();
                    for &b in seg {
                        samebytes_spec::cat::show_nonprinting(b, show_tabs, &mut expected);
                    }
                    let mut out = OutBuf::new();
                    out.extend_from_slice(b"prefix");
                    Formatter::render(&table, seg, &mut out);
                    assert_eq!(
                        &out.as_slice()[6..],
                        &expected[..],
                        "start {start} len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn printable_word_test_is_exact() {
        for b in 0..=255u8 {
            for lane in 0..8 {
                let mut w = [b'a'; 8];
                w[lane] = b;
                let expected = (0x20..=0x7e).contains(&b);
                assert_eq!(
                    all_printable(u64::from_le_bytes(w)),
                    expected,
                    "{b:#x} lane {lane}"
                );
            }
        }
    }

    #[test]
    fn bulk_paths_take_almost_everything() {
        // Lines of text and blank lines, fed in 4 KiB chunks: only the
        // partial line at the end of each chunk may go the general way.
        let mut input = Vec::new();
        for i in 0..5000 {
            input.extend_from_slice(if i % 7 == 0 {
                b"\n"
            } else {
                b"some words on a line\n"
            });
        }
        let lines = Formatting {
            number: true,
            squeeze_blank: true,
            ..Formatting::default()
        };
        let all = Formatting {
            show_nonprinting: true,
            show_ends: true,
            show_tabs: true,
            ..Formatting::default()
        };
        for opts in [lines, all] {
            let mut f = Formatter::new(opts);
            let mut out = OutBuf::new();
            for chunk in input.chunks(4096) {
                f.feed(chunk, &mut out);
            }
            let bulk = f.bulk_bytes() as usize;
            assert!(
                bulk * 100 >= input.len() * 98,
                "{opts:?}: {bulk} of {} bytes",
                input.len()
            );
        }
        // A line longer than the room reserved per block, inside one chunk.
        let mut long = vec![b'x'; 20_000];
        long.extend_from_slice(b"\nend\n");
        let mut f = Formatter::new(lines);
        let mut out = OutBuf::new();
        f.feed(&long, &mut out);
        assert_eq!(f.bulk_bytes() as usize, long.len());
        assert_eq!(out.len(), long.len() + 2 * 7);
    }

    #[test]
    fn register_numbers_match_text_numbers() {
        // Mixed use, as when one file is numbered by the fast loop and the
        // next by the general one, across every carry up to 7 digits.
        let mut n = LineNumber::new();
        let mut dst = [0u8; 64];
        for i in 1..=1_100_000u64 {
            let text = if i % 7 == 3 || (i / 1000) % 2 == 1 {
                n.next().to_vec()
            } else {
                let len = n.write_next(&mut dst);
                dst[..len].to_vec()
            };
            assert_eq!(text, format!("{i:>6}\t").into_bytes(), "line {i}");
        }
    }

    #[test]
    fn line_numbers_widen_past_six_digits() {
        let mut n = LineNumber::new();
        for i in 1..=1_234_567u64 {
            let text = n.next().to_vec();
            if i < 20 || i % 99_991 == 0 || (999_990..=1_000_010).contains(&i) || i == 1_234_567 {
                assert_eq!(text, format!("{i:>6}\t").into_bytes(), "line {i}");
            }
        }
    }
}
