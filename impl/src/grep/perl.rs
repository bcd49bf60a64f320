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
//! - a pattern that starts with a plain literal (and has no `|`) finds
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

/// A string every match of the pattern holds (without `-i`): the run of
/// plain bytes it starts with, after zero-width `^ \b \B \A \G`.  None
/// when the pattern has a `|` anywhere, where the run may be one side's
/// alone.  A quantifier after the run (`? * {`) may take away its last
/// character, which is then left out (back to a lead byte, so that in
/// UTF-8 no part of a character stays).
fn required_literal(pattern: &[u8]) -> Option<&[u8]> {
    if pattern.contains(&b'|') {
        return None;
    }
    let mut rest = pattern;
    while let [b'^', tail @ ..] | [b'\\', b'b' | b'B' | b'A' | b'G', tail @ ..] = rest {
        rest = tail;
    }
    let run = rest.iter().take_while(|&&b| is_plain(b)).count();
    let mut literal = &rest[..run];
    if matches!(rest.get(run), Some(b'?' | b'*' | b'{')) {
        while let [head @ .., 0x80..=0xBF] = literal {
            literal = head;
        }
        literal = literal.split_last().map_or(literal, |(_, head)| head);
    }
    (!literal.is_empty()).then_some(literal)
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
        // no character is PCRE2's compile error already.
        let literal = required_literal(pattern)
            .filter(|_| !cfg.ignore_case)
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
