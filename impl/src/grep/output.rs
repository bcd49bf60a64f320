//! The printer side of the core: a selected line with its before-context,
//! owed after-context, group separators, prefixes and `-o`'s matches.
//! Every line goes to the sink whole; a line (or `-o` match) with an
//! encoding error is kept back, as GNU keeps it back, and noted.

use samebytes_spec::grep::BinaryFiles;

use super::buffer::Window;
use super::lines;
use super::paint::{painted, Ink, Palette};
use super::search::Search;
use super::sink::Stop;

impl Search<'_, '_> {
    /// A line's prefix: the name then `sep` (a NUL with `-Z`), the line
    /// number with `-n`, the byte offset with `-b`, each followed by
    /// `sep` (`:` for a selected line, `-` for context).  With `-T` the
    /// numbers are padded to the input's width, and a tab follows a
    /// prefix when the text after it (`text_len` bytes) is not empty.
    fn prefix(&mut self, number: u64, offset: u64, sep: u8, text_len: usize) {
        let out = &mut self.sink.buf;
        let palette = self.palette;
        let tab = self.opts.initial_tab;
        let width = if tab { self.width } else { 0 };
        if self.with_filename {
            painted(out, palette, Ink::FileName, &self.name);
            match self.opts.null_after_name {
                true => out.push(0),
                false => painted(out, palette, Ink::Separator, &[sep]),
            }
        }
        let numbers = [
            (self.opts.line_number, number, Ink::LineNumber),
            (self.opts.byte_offset, offset, Ink::ByteOffset),
        ];
        for (shown, n, ink) in numbers {
            if shown {
                if let Some(p) = palette {
                    p.start(out, ink);
                }
                push_padded(out, n, width);
                if let Some(p) = palette {
                    p.end(out, ink);
                }
                painted(out, palette, Ink::Separator, &[sep]);
            }
        }
        let any = self.with_filename || self.opts.line_number || self.opts.byte_offset;
        if tab && any && text_len > 0 {
            out.push(b'\t');
        }
    }

    /// The text of a line after its prefix, when output is coloured, as
    /// GNU's `prline` colours it: in a line that matches (selected, or
    /// with `-v` context), each match in its colour with the line's colour
    /// started before the text leading to it; then the rest of the line,
    /// but a last carriage return, in the line's colour.
    fn painted_text(&mut self, p: &Palette, line: &[u8], selected: bool) -> Result<(), Stop> {
        let line_ink = p.line_ink(selected, self.opts.invert);
        let match_ink = if selected {
            Ink::SelectedMatch
        } else {
            Ink::ContextMatch
        };
        let mut at = 0;
        if selected != self.opts.invert && p.inks(match_ink) {
            let (found, failure) = self.matcher.matches(line);
            if let Some(f) = failure {
                return Err(Stop::Match(f));
            }
            let out = &mut self.sink.buf;
            for (s, e) in found {
                p.start(out, line_ink);
                out.extend_from_slice(&line[at..s]);
                p.start(out, match_ink);
                out.extend_from_slice(&line[s..e]);
                p.end(out, match_ink);
                at = e;
            }
        }
        let out = &mut self.sink.buf;
        if p.inks(line_ink) {
            let end = line.len() - usize::from(line.last() == Some(&b'\r'));
            if end > at {
                p.start(out, line_ink);
                out.extend_from_slice(&line[at..end]);
                p.end(out, line_ink);
                at = end;
            }
        }
        out.extend_from_slice(&line[at..]);
        Ok(())
    }

    pub(super) fn encoding_error(&self, text: &[u8]) -> bool {
        self.env.locale == samebytes_spec::Locale::Utf8
            && self.opts.binary_files != BinaryFiles::Text
            && !crate::utf8::is_valid(text)
    }

    /// The line number of the line starting at `w.bytes[at]`, counting
    /// only the bytes not yet counted: lines are printed in the order of
    /// the input, so `counted_to` never passes `at`.
    fn line_number(&mut self, w: Window, at: usize) -> u64 {
        let counted = w.index(self.file.counted_to);
        self.file.counted_lines += self.terminators(w.bytes, w.base, counted, at, true);
        self.file.counted_to = w.offset(at);
        self.file.counted_lines + 1
    }

    /// Print the line `w.bytes[start..end]`; false when an encoding error
    /// kept it (or one of its matches) back.
    fn print_line(
        &mut self,
        w: Window,
        start: usize,
        end: usize,
        selected: bool,
    ) -> Result<bool, Stop> {
        let line = &w.bytes[start..end];
        let number = if self.opts.line_number {
            self.line_number(w, start)
        } else {
            0
        };
        let offset = w.offset(start);
        if self.opts.only_matching {
            // The matches of matching lines: selected ones, or with `-v`
            // context ones (marked `-`).
            if selected == self.opts.invert {
                return Ok(true);
            }
            let sep = if self.opts.invert { b'-' } else { b':' };
            let (found, failure) = self.matcher.matches(line);
            let stop = || failure.clone().map_or(Ok(false), |f| Err(Stop::Match(f)));
            let ink = match sep {
                b':' => Ink::SelectedMatch,
                _ => Ink::ContextMatch,
            };
            for (s, e) in found {
                if self.encoding_error(&line[s..e]) {
                    return stop();
                }
                self.prefix(number, offset + s as u64, sep, e - s);
                painted(&mut self.sink.buf, self.palette, ink, &line[s..e]);
                self.sink.line(&[], self.terminator)?;
            }
            return stop().map(|_| true);
        }
        if self.encoding_error(line) {
            return Ok(false);
        }
        let sep = if selected { b':' } else { b'-' };
        self.prefix(number, offset, sep, line.len());
        match self.palette {
            Some(p) => {
                self.painted_text(p, line, selected)?;
                self.sink.line(&[], self.terminator)?;
            }
            None => self.sink.line(line, self.terminator)?,
        }
        Ok(true)
    }

    /// Print owed after-context from `lastout` up to `w.bytes[limit]`.
    pub(super) fn print_pending(&mut self, w: Window, limit: usize) -> Result<(), Stop> {
        if self.file.pending == 0 {
            return Ok(());
        }
        let mut at = self.file.lastout.map_or(0, |l| w.index(l));
        while self.file.pending > 0 && at < limit {
            let end = lines::end(w.bytes, self.terminator, at, limit);
            if self.print_line(w, at, end, false)? {
                at = (end + 1).min(limit);
            } else {
                self.file.encoding_error = true;
            }
            self.file.pending -= 1;
        }
        self.file.lastout = Some(w.offset(at));
        Ok(())
    }

    /// One selected line, `w.bytes[start..end]`.
    pub(super) fn selected(&mut self, w: Window, start: usize, end: usize) -> Result<(), Stop> {
        // With -v, a run of consecutive selected lines is one piece:
        // context and the separator come before its first line only.
        let continues_run = self.opts.invert
            && self.file.selected > 0
            && self.file.after_last_selected == w.offset(start);
        self.file.selected += 1;
        let terminated = w.bytes.get(end) == Some(&self.terminator);
        self.file.after_last_selected = w.offset(end) + u64::from(terminated);
        if continues_run && !self.eff.out_quiet {
            // A selected line kept back moves `lastout` too (the spec).
            if !self.print_line(w, start, end, true)? {
                self.file.encoding_error = true;
            }
            self.file.lastout = Some(self.file.after_last_selected);
            self.file.pending = self.eff.after.unwrap_or(0);
        } else if !self.eff.out_quiet {
            self.print_pending(w, start)?;
            self.with_before_context(w, start, end)?;
            self.file.pending = self.eff.after.unwrap_or(0);
        }
        self.used = true;
        if self.eff.done_on_match {
            self.file.done = true;
        }
        Ok(())
    }

    /// The selected line `w.bytes[start..end]`, after its before-context
    /// and, where a new group starts, the group separator.
    fn with_before_context(&mut self, w: Window, start: usize, end: usize) -> Result<(), Stop> {
        let t = self.terminator;
        let floor = self.file.lastout.map_or(0, |l| w.index(l));
        let first = lines::back(w.bytes, t, floor, start, self.eff.before.unwrap_or(0));
        let context = self.eff.before.is_some() || self.eff.after.is_some();
        if context && self.used && self.file.lastout != Some(w.offset(first)) {
            let opts = self.opts;
            if let Some(sep) = &opts.group_separator {
                // Before an input's first group, the separator depends on
                // what the inputs before it selected.
                let first =
                    self.used_guessed && self.file.selected == 1 && self.sink.buf.is_empty();
                painted(&mut self.sink.buf, self.palette, Ink::Separator, sep);
                if first {
                    self.sink.optional_head = self.sink.buf.len() + 1;
                }
                self.sink.line(&[], b'\n')?;
            }
        }
        let mut at = first;
        while at <= start {
            let e = if at == start {
                end
            } else {
                lines::end(w.bytes, t, at, start)
            };
            let printed = self.print_line(w, at, e, at == start)?;
            self.file.encoding_error |= !printed;
            // A selected line kept back moves `lastout` too (the spec).
            if printed || at == start {
                self.file.lastout = Some(w.offset(e + 1));
            }
            at = e + 1;
        }
        Ok(())
    }
}

/// `n` in decimal, right-aligned with spaces to `width` bytes.
fn push_padded(out: &mut Vec<u8>, n: u64, width: usize) {
    let at = out.len();
    push_decimal(out, n);
    let digits = out.len() - at;
    if digits < width {
        out.splice(at..at, std::iter::repeat_n(b' ', width - digits));
    }
}

/// The decimal digits of `n`, made from the last one back in a buffer
/// as long as `u64::MAX`'s; no allocation, as `to_string` would make for
/// every printed line.
pub(super) fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests {
    use super::push_decimal;

    /// Every number of up to three digits, and both sides of every power
    /// of ten up to `u64::MAX`, read as Rust's own formatting writes them.
    #[test]
    fn decimals_are_written_as_formatting_writes_them() {
        let powers = (0..20).map(|e| 10u64.pow(e));
        let edges = powers.flat_map(|p| [p - 1, p, p + 1]);
        for n in (0..1000).chain(edges).chain([u64::MAX - 1, u64::MAX]) {
            let mut out = b"x".to_vec();
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes());
        }
    }
}
