//! `-P`: PCRE2 on the lines of a whole buffer, as GNU grep 3.8's
//! `Pexecute` runs it.
//!
//! PCRE2 (compiled by `samebytes_pcre2` with GNU's options) decides what
//! matches; this module decides where it is asked:
//! - each line is a subject of its own, without its terminator, so that
//!   `^`, `$`, lookarounds and `\s` never see another line;
//! - in UTF-8 a byte no character starts with (a continuation byte, 0xC0,
//!   0xC1, 0xFE, 0xFF) is stepped over, and the subject starts again
//!   after it, `^` no longer holding;
//! - at a line's end, or after only such bytes, the answer is whether the
//!   pattern matches the empty string;
//! - a pattern with a plain literal at its top level (and no `|`) finds
//!   its candidate lines with memchr's memmem first, and PCRE2 confirms
//!   each (the literal is in every match, so no line is missed).

use std::cell::RefCell;

use memchr::memmem;
use samebytes_pcre2::{MatchFailure, Options, Pcre};
use samebytes_spec::grep::{CompileError, PatternConfig};
use samebytes_spec::Locale;

pub struct PerlMatcher {
    /// The binaries search on one thread: a RefCell spares each line
    /// the pattern's lock.
    pcre: RefCell<Pcre>,
    utf8: bool,
    /// The empty string matches: `[0]` without `^` holding, `[1]` with.
    empty_match: [Result<bool, MatchFailure>; 2],
    /// A string every match holds ([`required_literal`]): its finder
    /// picks the lines PCRE2 is asked about.
    literal: Option<memmem::Finder<'static>>,
    terminator: u8,
}

/// Bytes PCRE2 reads as themselves outside a class, before any option
/// that could change them (`(?x)` begins with `(`, which is not plain).
fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b" _-,:;'\"/=<>!@%&~#`".contains(&byte) || byte >= 0x80
}

/// A string every match of the pattern holds (without `-i`): the longest
/// run of plain bytes at the pattern's top level, outside every group
/// and class.  A quantifier after a run (`? * {`) may take away its last
/// character, which is then left out (back to a lead byte, so that in
/// UTF-8 no part of a character stays); `+` keeps it, and ends the run.
/// None when the pattern has a `|` anywhere, where a run may be one
/// side's alone.  The scan stops at what it does not read (`(?` and `(*`,
/// which may change what follows; `\Q`, `\c` and escapes with arguments;
/// a `{` that opens no count; a `[` inside a class): the runs before it
/// are required still, as nothing later changes what they match.
fn required_literal(pattern: &[u8]) -> Option<&[u8]> {
    if pattern.contains(&b'|') {
        return None;
    }
    let mut best: &[u8] = &[];
    let mut depth = 0usize;
    let mut run_start = 0;
    let mut i = 0;
    loop {
        let byte = pattern.get(i).copied();
        if byte.is_some_and(is_plain) {
            i += 1;
            continue;
        }
        let mut run = &pattern[run_start..i];
        if matches!(byte, Some(b'?' | b'*' | b'{')) {
            while let [head @ .., 0x80..=0xBF] = run {
                run = head;
            }
            run = run.split_last().map_or(run, |(_, head)| head);
        }
        if depth == 0 && run.len() > best.len() {
            best = run;
        }
        match byte.and_then(|_| top_level_step(pattern, i, &mut depth)) {
            Some(next) => (i, run_start) = (next, next),
            None => return (!best.is_empty()).then_some(best),
        }
    }
}

/// Where the scan of [`required_literal`] goes on after the byte that is
/// not plain at `i`, keeping the group `depth`; None where it stops.
fn top_level_step(pattern: &[u8], i: usize, depth: &mut usize) -> Option<usize> {
    let next = pattern.get(i + 1).copied();
    match pattern[i] {
        b'\\' => next.filter(|&e| is_fixed_escape(e)).map(|_| i + 2),
        b'(' if matches!(next, Some(b'?' | b'*')) => None,
        b'(' => {
            *depth += 1;
            Some(i + 1)
        }
        b')' => {
            *depth = depth.checked_sub(1)?;
            Some(i + 1)
        }
        b'[' => class_end(pattern, i + 1),
        b'{' => {
            let count = pattern[i + 1..].iter().position(|&b| b == b'}')?;
            let inside = &pattern[i + 1..i + 1 + count];
            inside
                .iter()
                .all(|&b| b.is_ascii_digit() || b == b',')
                .then_some(i + count + 2)
        }
        _ => Some(i + 1),
    }
}

/// An escape that is one thing, two bytes long, and no group: a class,
/// an assertion, or a punctuation character as itself.
fn is_fixed_escape(escaped: u8) -> bool {
    b"wWdDsShHvVRXNbBAGzZ".contains(&escaped) || escaped.is_ascii_punctuation()
}

/// Where the scan goes on after the class whose contents start at
/// `from` (after its `[`): after its `]`.  None where it stops (a `[`
/// inside, as `[:alpha:]`, or an escape it does not read).
fn class_end(pattern: &[u8], from: usize) -> Option<usize> {
    let mut j = from;
    if pattern.get(j) == Some(&b'^') {
        j += 1;
    }
    if pattern.get(j) == Some(&b']') {
        j += 1;
    }
    loop {
        match *pattern.get(j)? {
            b']' => return Some(j + 1),
            b'[' => return None,
            b'\\' if is_fixed_escape(*pattern.get(j + 1)?) => j += 2,
            b'\\' => return None,
            _ => j += 1,
        }
    }
}

impl PerlMatcher {
    pub fn build(patterns: &[Vec<u8>], cfg: &PatternConfig) -> Result<PerlMatcher, CompileError> {
        let pattern: &[u8] = match patterns {
            [] => b"",
            [one] => one,
            _ => {
                return Err(CompileError::bare(
                    "the -P option only supports a single pattern".to_string(),
                ))
            }
        };
        let wrapped;
        let text = if cfg.word && !cfg.line {
            wrapped = [b"(?<!\\w)(?:", pattern, b")(?!\\w)"].concat();
            &wrapped[..]
        } else {
            pattern
        };
        let utf8 = cfg.locale == Locale::Utf8;
        let options = Options {
            utf8,
            caseless: cfg.ignore_case,
            match_line: cfg.line,
        };
        let pcre = Pcre::compile(text, options).map_err(CompileError::bare)?;
        let empty_match = [false, true].map(|bol| pcre.find(b"", 0, !bol).map(|m| m.is_some()));
        // With -i a literal's other cases match too; in UTF-8 a byte that is
        // no character is PCRE2's compile error already.  A single byte
        // is no filter: in text most lines hold any given letter, and
        // finding it costs more per line than PCRE2's JIT saves.
        let literal = required_literal(pattern)
            .filter(|l| !cfg.ignore_case && l.len() >= 2)
            .map(|l| memmem::Finder::new(l).into_owned());
        Ok(PerlMatcher {
            pcre: RefCell::new(pcre),
            utf8,
            empty_match,
            literal,
            terminator: cfg.terminator,
        })
    }

    /// The first match in `line` starting at or after `from`.
    pub fn search(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, MatchFailure> {
        let mut at = from;
        let mut subject = 0;
        if self.utf8 {
            let skipped = line[from..]
                .iter()
                .position(|&b| !matches!(b, 0x80..=0xC1 | 0xFE | 0xFF))
                .unwrap_or(line.len() - from);
            if skipped > 0 {
                at += skipped;
                subject = at;
            }
        }
        let bol = at == 0;
        if at == line.len() {
            let empty = self.empty_match[usize::from(bol)].clone()?;
            return Ok(empty.then_some((at, at)));
        }
        let found = self
            .pcre
            .borrow_mut()
            .find_mut(&line[subject..], at - subject, !bol)?;
        Ok(found.map(|(s, e)| (subject + s, subject + e)))
    }

    /// Where the first match in the lines of `hay[from..]` starts (`from`
    /// is a line start).  The empty line after a final terminator is
    /// searched too: whether it counts is the caller's business.  A
    /// failure comes with the start of the line it ended the search in.
    pub fn find(&self, hay: &[u8], from: usize) -> Result<Option<usize>, (MatchFailure, usize)> {
        let t = self.terminator;
        let mut pos = from;
        loop {
            let start = match &self.literal {
                None => pos,
                Some(f) => match f.find(&hay[pos..]) {
                    None => return Ok(None),
                    Some(m) => memchr::memrchr(t, &hay[pos..pos + m]).map_or(pos, |p| pos + p + 1),
                },
            };
            let end = memchr::memchr(t, &hay[start..]).map_or(hay.len(), |p| start + p);
            let found = self.search(&hay[start..end], 0).map_err(|f| (f, start))?;
            if let Some((s, _)) = found {
                return Ok(Some(start + s));
            }
            if end >= hay.len() {
                return Ok(None);
            }
            pos = end + 1;
        }
    }

    /// The matches `-o` prints, as GNU's loop finds them, and the failure
    /// that ended the loop early, if one did.
    pub fn matches(&self, line: &[u8]) -> (Vec<(usize, usize)>, Option<MatchFailure>) {
        let mut found = Vec::new();
        let mut at = 0;
        while at < line.len() {
            match self.search(line, at) {
                Err(f) => return (found, Some(f)),
                Ok(None) => break,
                Ok(Some((s, _))) if s == line.len() => break,
                Ok(Some((s, e))) if s == e => at = s + 1,
                Ok(Some((s, e))) => {
                    found.push((s, e));
                    at = e;
                }
            }
        }
        (found, None)
    }
}

#[cfg(test)]
mod tests {
    use super::required_literal;

    #[test]
    fn the_required_literal_is_only_what_every_match_holds() {
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (b"sentence", Some(b"sentence")),
            (b"sent\\w+ce", Some(b"sent")),
            (b"se?ntence", Some(b"ntence")),
            (b"\\d+foo", Some(b"foo")),
            (b"ab{2}cd", Some(b"cd")),
            (b"ab*+cd", Some(b"cd")),
            (b"a(bcd)?e", Some(b"a")),
            (b"(bcd)", None),
            (b"\\(abc", Some(b"abc")),
            (b"[](]abcd", Some(b"abcd")),
            (b"[^]a]abc", Some(b"abc")),
            (b"[\\](]abc", Some(b"abc")),
            (b"ab{x}cdef", Some(b"a")),
            (b"\\x{41}bcdef", None),
            (b"a\\Qbcdef\\E", Some(b"a")),
            (b"a\\c(bcdef)", Some(b"a")),
            (b"abc(?i)defgh", Some(b"abc")),
            (b"(?:abc)def", None),
            (b"[[:alpha:]]abcdef", None),
            (b"ab)cdef", Some(b"ab")),
            (b"\xc3\xa9?x", Some(b"x")),
            (b"^\\bsent", Some(b"sent")),
            (b"ab?", Some(b"a")),
            (b"ab+", Some(b"ab")),
            (b"a\xc3\xa9*", Some(b"a")),
            (b"\xc3\xa9{2}", None),
            (b"ab|cd", None),
            (b"(?x)a b", None),
            (b"\\d", None),
            (b"", None),
        ];
        for &(pattern, want) in cases {
            assert_eq!(required_literal(pattern), want, "{pattern:?}");
        }
    }
}
