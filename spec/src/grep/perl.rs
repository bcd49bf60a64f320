//! `-P`: PCRE2 on each line, as GNU grep 3.8 runs it (`pcresearch.c`).
//!
//! What matches is PCRE2's business (`samebytes_pcre2` compiles the
//! pattern as GNU does).  What is GNU's, and so the reference's:
//! - one pattern only (after the list's duplicates are dropped);
//! - `-w` wraps the pattern's text as `(?<!\w)(?:P)(?!\w)`; `-x` is
//!   PCRE2's own line option (and takes precedence over `-w`);
//! - each line is searched on its own, as the subject, without its
//!   terminator;
//! - in UTF-8, a byte that no character begins with (a continuation byte,
//!   0xC0, 0xC1, 0xFE, 0xFF: `mbrlen` calls it an encoding error on its
//!   own) is never a match's start: the search steps over it, and the
//!   subject starts again after it, with `^` no longer holding there;
//! - a search from the line's end asks whether the pattern matches the
//!   empty string (`^` holding or not), not PCRE2 on the line.

use samebytes_pcre2::{MatchFailure, Options, Pcre};

use super::syntax::{CompileError, PatternConfig};
use crate::Locale;

pub struct Perl {
    pcre: Pcre,
    utf8: bool,
    /// Does the pattern match the empty string: `[false]` with `^` not
    /// holding, `[true]` with it holding.
    empty_match: [Result<bool, MatchFailure>; 2],
}

impl Perl {
    pub fn compile(patterns: &[Vec<u8>], cfg: &PatternConfig) -> Result<Perl, CompileError> {
        let pattern = match patterns {
            [] => &[][..],
            [one] => &one[..],
            _ => {
                return Err(CompileError::bare(
                    "the -P option only supports a single pattern".into(),
                ))
            }
        };
        let text = if cfg.word && !cfg.line {
            [&b"(?<!\\w)(?:"[..], pattern, b")(?!\\w)"].concat()
        } else {
            pattern.to_vec()
        };
        let options = Options {
            utf8: cfg.locale == Locale::Utf8,
            caseless: cfg.ignore_case,
            match_line: cfg.line,
        };
        let pcre = Pcre::compile(&text, options).map_err(CompileError::bare)?;
        let empty = |notbol| pcre.find(b"", 0, notbol).map(|m| m.is_some());
        let empty_match = [empty(true), empty(false)];
        Ok(Perl {
            pcre,
            utf8: options.utf8,
            empty_match,
        })
    }

    /// Can no character begin with this byte?
    fn starts_nothing(&self, byte: u8) -> bool {
        self.utf8 && matches!(byte, 0x80..=0xC1 | 0xFE | 0xFF)
    }

    /// The first match in `line` that starts at or after `from`.
    pub fn search(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, MatchFailure> {
        let mut subject = 0;
        let mut at = from;
        let mut at_line_start = from == 0;
        while at < line.len() && self.starts_nothing(line[at]) {
            at += 1;
            subject = at;
            at_line_start = false;
        }
        if at == line.len() {
            let matched = self.empty_match[usize::from(at_line_start)].clone()?;
            return Ok(matched.then_some((at, at)));
        }
        let found = self
            .pcre
            .find(&line[subject..], at - subject, !at_line_start)?;
        Ok(found.map(|(s, e)| (subject + s, subject + e)))
    }
}
