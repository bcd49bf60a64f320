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

use samebytes_spec::cat::{show_nonprinting, Formatting};

/// The line-number prefix, kept as decimal text and incremented in place,
/// so numbering a line costs a few byte operations and no division.
#[derive(Clone, Debug)]
struct LineNumber {
    /// Right-aligned digits ending at `TAB`, spaces before them.
    text: [u8; LineNumber::TAB + 1],
    /// Index of the first digit.
    first: usize,
}

impl LineNumber {
    const TAB: usize = 40;
    const MIN_WIDTH: usize = 6;

    fn new() -> LineNumber {
        let mut text = [b' '; LineNumber::TAB + 1];
        text[LineNumber::TAB - 1] = b'0';
        text[LineNumber::TAB] = b'\t';
        LineNumber {
            text,
            first: LineNumber::TAB - 1,
        }
    }

    /// Advance to the next number and return its `%6d\t` text.
    fn next(&mut self) -> &[u8] {
        let mut i = LineNumber::TAB - 1;
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
        let start = self.first.min(LineNumber::TAB - LineNumber::MIN_WIDTH);
        &self.text[start..]
    }
}

/// How `-v` writes one byte: up to four bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Rendered {
    bytes: [u8; 4],
    len: u8,
}

fn render_table(show_tabs: bool) -> Box<[Rendered; 256]> {
    let mut table = Box::new([Rendered::default(); 256]);
    for (b, entry) in table.iter_mut().enumerate() {
        let mut v = Vec::with_capacity(4);
        show_nonprinting(b as u8, show_tabs, &mut v);
        entry.bytes[..v.len()].copy_from_slice(&v);
        entry.len = v.len() as u8;
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

/// The formatting state carried across chunks and files.
#[derive(Clone)]
pub struct Formatter {
    opts: Formatting,
    at_line_start: bool,
    after_empty_line: bool,
    number: LineNumber,
    held_cr: bool,
    table: Option<Box<[Rendered; 256]>>,
}

impl Formatter {
    pub fn new(opts: Formatting) -> Formatter {
        Formatter {
            opts,
            at_line_start: true,
            after_empty_line: false,
            number: LineNumber::new(),
            held_cr: false,
            table: opts.show_nonprinting.then(|| render_table(opts.show_tabs)),
        }
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

    /// Write `seg` (no newlines) under `-v`.
    fn render(table: &[Rendered; 256], seg: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + seg.len() * 4, 0);
        let dst = &mut out[start..];
        let mut w = 0;
        let mut words = seg.chunks_exact(8);
        for word in &mut words {
            let bytes: [u8; 8] = word.try_into().expect("chunks_exact(8)");
            if all_printable(u64::from_le_bytes(bytes)) {
                dst[w..w + 8].copy_from_slice(word);
                w += 8;
            } else {
                for &b in word {
                    let r = &table[b as usize];
                    dst[w..w + 4].copy_from_slice(&r.bytes);
                    w += r.len as usize;
                }
            }
        }
        for &b in words.remainder() {
            let r = &table[b as usize];
            dst[w..w + 4].copy_from_slice(&r.bytes);
            w += r.len as usize;
        }
        out.truncate(start + w);
    }

    /// Format one chunk of input, appending to `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
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
    pub fn finish(&mut self, out: &mut Vec<u8>) {
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
        let mut out = Vec::new();
        let mut from = 0;
        for &c in cuts {
            f.feed(&input[from..c], &mut out);
            from = c;
        }
        f.feed(&input[from..], &mut out);
        f.finish(&mut out);
        out
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
                        show_nonprinting(b, show_tabs, &mut expected);
                    }
                    let mut out = b"prefix".to_vec();
                    Formatter::render(&table, seg, &mut out);
                    assert_eq!(&out[6..], &expected[..], "start {start} len {len}");
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
