//! GNU grep patterns (`-G` BRE, `-E` ERE, `-F` strings) translated to the
//! syntax of the `regex` family (regex-syntax), and compiled.
//!
//! This is the implementation's own reading of a pattern: the spec parses
//! patterns itself (`samebytes_spec::grep::syntax`) and matches each line
//! with its own matcher, so a mistake here shows up in every differential
//! test.
//!
//! Rules, from the GNU grep manual and regex(7):
//! - BRE: `\( \) \{ \} \| \+ \?` are operators and their plain forms are
//!   literal.  `*` (and `\+ \? \{`) at the start of the pattern, after
//!   `\(`, after `\|` or after a leading `^` is literal.  `^` is an anchor
//!   only first in a branch, `$` only last; elsewhere they are literal.
//! - ERE: `( ) { } | + ? *` are operators.  A repetition at the start of a
//!   branch (or after `^`) is ignored with GNU's warning.  A `{` that does
//!   not begin a valid interval is literal, and so is an unmatched `)`.
//!   `^` and `$` are anchors everywhere.
//! - Both: `.` and bracket expressions (with `]` first literal, POSIX
//!   classes, `[=c=]`, `[.c.]`); `\w \W \s \S \b \B \< \> \` \'`; any other
//!   escaped character is itself.  A back-reference `\1`..`\9` is any
//!   text of the line (a superset), except in the exact reading that the
//!   back-reference engine runs.
//! - No part of a match may cross a line terminator: `.`, every negated
//!   class, `\W` and `\s` leave the terminator out, so the implementation
//!   can search a whole buffer of lines without finding a match that spans
//!   two.  Matching one line at a time, as the spec does, is unaffected.
//! - `^ $ \` \'` match at line boundaries; `-x` wraps the whole
//!   alternation of patterns (`-w` is the matcher's own check).

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use regex_automata::MatchKind;

use crate::sys;
use crate::utf8::{self, Head};
use samebytes_spec::grep::{PatternConfig, Syntax};
use samebytes_spec::Locale;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The character at the start of `bytes`, if a valid one starts there.
fn decode_one(bytes: &[u8]) -> Option<(u32, usize)> {
    match utf8::head(bytes) {
        Head::Char(c, n) => Some((c, n)),
        Head::Invalid | Head::Incomplete => None,
    }
}
/// A translated pattern list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translation {
    /// regex-syntax source for the whole pattern list.
    pub source: String,
    /// GNU's warnings, each a full stderr line without the program name.
    pub warnings: Vec<String>,
    /// The regex is only a superset of what the patterns match: they hold
    /// back-references, or (in UTF-8) word operators, whose word
    /// constituents are glibc's and not regex-syntax's.  Each line it
    /// finds must then be confirmed by an exact engine.
    pub superset: bool,
    /// Some pattern holds a back-reference.
    pub backrefs: bool,
    /// Where the `^` and `$` anchors are: (pattern, byte offset).
    pub anchors: Vec<(usize, usize)>,
}

/// The largest repetition count GNU accepts (RE_DUP_MAX).
const DUP_MAX: u32 = 0x7fff;

/// A regex that never matches.
const NEVER: &str = "[a&&b]";

/// Translate the patterns (already split at newlines).  An empty list
/// matches nothing; an empty pattern matches every line.  The error is
/// GNU's message, without the program name.
/// How a translation reads the pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// GNU's DFA: `.` never takes a long form; in UTF-8 the word
    /// operators are widened away (a superset, confirmed by glibc).
    Dfa,
    /// glibc's: `.` takes glibc's long forms too (GNU's `-o`, and `-w` in
    /// UTF-8); word operators widened as in `Dfa`.
    Glibc,
    /// The word operators as regex-syntax's: exact on a line of ASCII,
    /// where its word characters are GNU's.
    Ascii,
    /// The DFA's reading, exact, for the back-reference engine
    /// ([`super::backref`]): group N is the capture named `gN`, and the
    /// items regex-syntax has no word for are empty captures it reads as
    /// markers: `\N` is `rN_k`, and in UTF-8 `\w` and `\W` are `w1_k`
    /// and `w0_k` (`k` keeps the names apart).  The word boundaries are
    /// regex-syntax's looks, which that engine judges by GNU's rules.
    Exact,
}

pub fn translate(
    patterns: &[Vec<u8>],
    cfg: &PatternConfig,
    reading: Reading,
) -> Result<Translation, Vec<String>> {
    let mut warnings = Vec::new();
    let mut branches = Vec::new();
    // glibc's errors, for every pattern, come first; then the DFA's first
    // error, after the warnings met before it.
    let mut errors = Vec::new();
    let mut dfa_error: Option<(String, usize)> = None;
    let mut superset = false;
    let mut backrefs = false;
    let mut anchors = Vec::new();
    for (index, p) in patterns.iter().enumerate() {
        let src = match cfg.syntax {
            Syntax::Fixed => {
                let mut s = String::new();
                let mut i = 0;
                while i < p.len() {
                    s.push_str(&literal(p, i, cfg));
                    i += char_len(&p[i..], cfg.locale);
                }
                s
            }
            _ => {
                let mut parser =
                    Parser::new(p, cfg, reading, &mut warnings, &mut superset, &mut backrefs);
                let parsed = parser.parse();
                anchors.extend(parser.anchors.iter().map(|&at| (index, at)));
                if let (Some(e), None) = (parser.dfa_error.take(), &dfa_error) {
                    dfa_error = Some(e);
                }
                match parsed {
                    Ok(s) => s,
                    Err(e) => {
                        errors.push(e);
                        continue;
                    }
                }
            }
        };
        branches.push(format!("(?:{src})"));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if let Some((e, before)) = dfa_error {
        warnings.truncate(before);
        warnings.push(e);
        return Err(warnings);
    }
    let all = if branches.is_empty() {
        NEVER.to_string()
    } else {
        branches.join("|")
    };
    // -w is the matcher's check, not part of the regex.
    let source = if cfg.line {
        format!("^(?:{all})$")
    } else {
        all
    };
    Ok(Translation {
        source,
        warnings,
        superset,
        backrefs,
        anchors,
    })
}

/// The length of the character at the start of `bytes`: a valid UTF-8
/// sequence in the UTF-8 locale, otherwise one byte.
fn char_len(bytes: &[u8], locale: Locale) -> usize {
    match locale {
        Locale::Utf8 => decode_one(bytes).map_or(1, |(_, n)| n),
        Locale::C => 1,
    }
}

/// The regex for the character at `p[i..]`, matched literally.
fn literal(p: &[u8], i: usize, cfg: &PatternConfig) -> String {
    let b = p[i];
    if b == cfg.terminator {
        return NEVER.to_string();
    }
    match cfg.locale {
        Locale::C => format!(r"\x{b:02X}"),
        Locale::Utf8 => match decode_one(&p[i..]) {
            Some((c, _)) if c <= MAX_SCALAR => format!(r"\x{{{c:X}}}"),
            // Beyond Unicode: glibc's long forms are matched as bytes.
            Some((_, n)) => bytes_literal(&p[i..i + n]),
            None => bytes_literal(&p[i..=i]),
        },
    }
}

/// The largest code point regex-syntax knows.
const MAX_SCALAR: u32 = 0x10_FFFF;

/// The characters glibc decodes beyond U+10FFFF (4-byte forms from
/// U+110000, and the 5- and 6-byte forms, none overlong): a negated
/// bracket, `\W` and `\S` match them too (`.` does not, as in GNU).
const LONG_FORM: &str = r"(?-u:\xF4[\x90-\xBF][\x80-\xBF]{2}|[\xF5-\xF7][\x80-\xBF]{3}|\xF8[\x88-\xBF][\x80-\xBF]{3}|[\xF9-\xFB][\x80-\xBF]{4}|\xFC[\x84-\xBF][\x80-\xBF]{4}|\xFD[\x80-\xBF]{5})";

fn bytes_literal(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!(r"\x{b:02X}")).collect();
    format!("(?-u:{hex})")
}

/// `class` (a character class that leaves the terminator out), plus the
/// long forms in the UTF-8 locale.
fn with_long_forms(class: String, cfg: &PatternConfig) -> String {
    match cfg.locale {
        Locale::C => class,
        Locale::Utf8 => format!("(?:{class}|{LONG_FORM})"),
    }
}

/// A bracket member that stands for no character: a byte that is an
/// encoding error (glibc keeps only a bracket's single-byte characters).
const NO_CHARACTER: u32 = u32::MAX;

/// The character at `p[i..]` as a bracket member, and its length.
fn bracket_char(p: &[u8], i: usize, cfg: &PatternConfig) -> (u32, usize) {
    match cfg.locale {
        Locale::C => (u32::from(p[i]), 1),
        Locale::Utf8 => decode_one(&p[i..]).unwrap_or((NO_CHARACTER, 1)),
    }
}

/// The upper case glibc orders a range's ends by with `-i`.
fn upper_for_order(c: u32, cfg: &PatternConfig) -> u32 {
    match cfg.locale {
        Locale::C => u8::try_from(c).map_or(c, |b| u32::from(b.to_ascii_uppercase())),
        Locale::Utf8 => char::from_u32(c)
            .and_then(|ch| {
                let mut up = ch.to_uppercase();
                match (up.next(), up.next()) {
                    (Some(u), None) => Some(u32::from(u)),
                    _ => None,
                }
            })
            .unwrap_or(c),
    }
}

fn class_char(c: u32, locale: Locale) -> String {
    match locale {
        Locale::C => format!(r"\x{c:02X}"),
        Locale::Utf8 => format!(r"\x{{{c:X}}}"),
    }
}

fn terminator_item(cfg: &PatternConfig) -> String {
    format!(r"\x{:02X}", cfg.terminator)
}

/// The members of a POSIX class, as bracket items.  In the C locale these
/// are regex-syntax's ASCII classes, which are exactly the C locale's.  In
/// UTF-8 they are the C library's own (`iswctype`), as ranges of code
/// points, worked out once per class and process.
fn posix_class(name: &[u8], locale: Locale) -> Option<String> {
    const NAMES: &[&str] = &[
        "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph",
        "cntrl", "xdigit",
    ];
    let name = *NAMES.iter().find(|n| n.as_bytes() == name)?;
    if locale == Locale::C {
        return Some(format!("[:{name}:]"));
    }
    static MEMBERS: OnceLock<Mutex<HashMap<&'static str, String>>> = OnceLock::new();
    let mut known = MEMBERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let members = known.entry(name).or_insert_with(|| {
        let c_name = std::ffi::CString::new(name).expect("class names hold no NUL");
        sys::utf8_class_ranges(&c_name)
            .into_iter()
            .map(|(lo, hi)| format!(r"\x{{{lo:X}}}-\x{{{hi:X}}}"))
            .collect()
    });
    Some(members.clone())
}

/// A repetition operator: (min, max, width in the pattern, name for
/// warnings).
type Repetition = (u32, Option<u32>, usize, &'static str);

struct Parser<'a> {
    pat: &'a [u8],
    pos: usize,
    cfg: &'a PatternConfig,
    warnings: &'a mut Vec<String>,
    /// Open groups.
    depth: usize,
    /// The DFA's error (reported only if glibc finds none), and how many
    /// warnings came before it.
    dfa_error: Option<(String, usize)>,
    /// Set when the translation had to widen the pattern.
    superset: &'a mut bool,
    /// Set when the pattern holds a back-reference.
    backrefs: &'a mut bool,
    /// Groups opened so far (their numbers).
    groups: usize,
    /// Marker captures written so far (`Reading::Exact`).
    markers: usize,
    /// The offsets of the `^` and `$` read as anchors.
    anchors: Vec<usize>,
    reading: Reading,
}

/// What the previous piece of a branch was, for GNU's context rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Nothing yet in this branch.
    Start,
    /// A leading `^`.
    Caret,
    /// Something that can be repeated.
    Atom,
}

impl<'a> Parser<'a> {
    fn new(
        pat: &'a [u8],
        cfg: &'a PatternConfig,
        reading: Reading,
        warnings: &'a mut Vec<String>,
        superset: &'a mut bool,
        backrefs: &'a mut bool,
    ) -> Parser<'a> {
        Parser {
            pat,
            pos: 0,
            cfg,
            warnings,
            depth: 0,
            dfa_error: None,
            superset,
            backrefs,
            groups: 0,
            markers: 0,
            anchors: Vec::new(),
            reading,
        }
    }

    fn ere(&self) -> bool {
        self.cfg.syntax == Syntax::Extended
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.pat.get(self.pos + k).copied()
    }

    fn parse(&mut self) -> Result<String, String> {
        let src = self.alternation()?;
        if self.pos < self.pat.len() {
            // Only an unmatched close can stop the top level.
            return Err("Unmatched ) or \\)".into());
        }
        Ok(src)
    }

    /// Is the parser at an alternation bar?
    fn at_bar(&self) -> bool {
        if self.ere() {
            self.peek(0) == Some(b'|')
        } else {
            self.peek(0) == Some(b'\\') && self.peek(1) == Some(b'|')
        }
    }

    /// Is the parser at the close of a group?
    fn at_close(&self) -> bool {
        if self.depth == 0 {
            return !self.ere() && self.peek(0) == Some(b'\\') && self.peek(1) == Some(b')');
        }
        if self.ere() {
            self.peek(0) == Some(b')')
        } else {
            self.peek(0) == Some(b'\\') && self.peek(1) == Some(b')')
        }
    }

    fn alternation(&mut self) -> Result<String, String> {
        let mut branches = vec![self.branch()?];
        while self.at_bar() {
            self.pos += if self.ere() { 1 } else { 2 };
            branches.push(self.branch()?);
        }
        Ok(branches.join("|"))
    }

    fn branch(&mut self) -> Result<String, String> {
        let mut out = String::new();
        let mut prev = Prev::Start;
        // The last atom, kept apart so that a repetition can wrap it.
        let mut last: Option<String> = None;
        let mut seen_atom = false;
        let mut last_anchor_len = 0;
        while self.pos < self.pat.len() && !self.at_bar() && !self.at_close() {
            // Where glibc reads no interval (it skips or takes literally a
            // brace after an anchor, or leading in an ERE) but GNU's DFA
            // does, the interval's errors are the DFA's.
            let dfa_reads = prev == Prev::Caret || (self.ere() && !seen_atom);
            if let Some((min, max, width, what)) = self.repetition(!seen_atom, dfa_reads)? {
                // GNU's DFA warns about a repetition while nothing but
                // anchors precede it in the branch, and applies it to an
                // anchor; with nothing at all before it, it is ignored.
                if self.ere() && !seen_atom {
                    self.warnings
                        .push(format!("warning: {what} at start of expression"));
                }
                if dfa_reads && (min > DUP_MAX || max.is_some_and(|m| m > DUP_MAX)) {
                    self.dfa_fails("regular expression too big");
                }
                // A BRE's leading repetition is a literal; after an atom,
                // or an anchor with an atom before it, it applies.
                let applies = match self.ere() {
                    true => prev != Prev::Start,
                    false => seen_atom,
                };
                match prev {
                    Prev::Atom | Prev::Caret if applies => {
                        let atom = match last.take() {
                            Some(a) => a,
                            None => {
                                // The anchor just written.
                                let cut = out.len() - last_anchor_len;
                                out.split_off(cut)
                            }
                        };
                        let max = max.map_or(String::new(), |m| m.to_string());
                        last = Some(format!("(?:{atom}){{{min},{max}}}"));
                        prev = Prev::Atom;
                        self.pos += width;
                        continue;
                    }
                    _ if self.ere() => {
                        self.pos += width;
                        continue;
                    }
                    // BRE: literal; the character after the backslash.
                    _ => {}
                }
            }
            if let Some(atom) = last.take() {
                out.push_str(&atom);
            }
            let (atom, kind) = self.atom(prev)?;
            prev = kind;
            if kind == Prev::Atom {
                seen_atom = true;
                last = Some(atom);
            } else {
                last_anchor_len = atom.len();
                out.push_str(&atom);
            }
        }
        if let Some(atom) = last {
            out.push_str(&atom);
        }
        Ok(out)
    }

    /// GNU's DFA's error, reported if glibc finds none, after the
    /// warnings met so far; the first one stands.
    fn dfa_fails(&mut self, message: &str) {
        let before = self.warnings.len();
        self.dfa_error.get_or_insert((message.into(), before));
    }

    /// A repetition operator here: (min, max, width, name for warnings).
    /// `leading`: nothing but anchors precede it in the branch; a BRE's
    /// leading `\{` is a literal brace (`escape`), as in glibc.
    /// `dfa_reads`: only GNU's DFA reads an interval here, so it is read
    /// as the DFA reads it: in an ERE an invalid one is a literal brace,
    /// in a BRE it is the DFA's error (and then a literal, as glibc reads
    /// it), and the counts are the caller's to check.
    fn repetition(&mut self, leading: bool, dfa_reads: bool) -> Result<Option<Repetition>, String> {
        let c = self.peek(0);
        if self.ere() {
            return Ok(match c {
                Some(b'*') => Some((0, None, 1, "*")),
                Some(b'+') => Some((1, None, 1, "+")),
                Some(b'?') => Some((0, Some(1), 1, "?")),
                Some(b'{') if dfa_reads => self
                    .interval(1, false, true)
                    .ok()
                    .flatten()
                    .map(|(min, max, w)| (min, max, w, "{...}")),
                Some(b'{') => self
                    .interval(1, false, false)?
                    .map(|(min, max, w)| (min, max, w, "{...}")),
                _ => None,
            });
        }
        Ok(match (c, self.peek(1)) {
            (Some(b'*'), _) => Some((0, None, 1, "*")),
            (Some(b'\\'), Some(b'+')) => Some((1, None, 2, "+")),
            (Some(b'\\'), Some(b'?')) => Some((0, Some(1), 2, "?")),
            (Some(b'\\'), Some(b'{')) if leading => None,
            (Some(b'\\'), Some(b'{')) if dfa_reads => match self.interval(2, true, true) {
                Ok(interval) => interval.map(|(min, max, w)| (min, max, w, "{...}")),
                Err(_) => {
                    self.dfa_fails("invalid content of \\{\\}");
                    None
                }
            },
            (Some(b'\\'), Some(b'{')) => self
                .interval(2, true, false)?
                .map(|(min, max, w)| (min, max, w, "{...}")),
            _ => None,
        })
    }

    /// An interval whose opening brace is `open` bytes long: `{m}`, `{m,}`,
    /// `{,n}` or `{m,n}`.  In an ERE an invalid one is not an interval
    /// (the brace is literal); in a BRE it is an error.
    /// `any_count`: leave counts past RE_DUP_MAX to the caller (clamped).
    fn interval(
        &self,
        open: usize,
        bre: bool,
        any_count: bool,
    ) -> Result<Option<(u32, Option<u32>, usize)>, String> {
        let mut i = self.pos + open;
        let number = |i: &mut usize| -> Option<u64> {
            let start = *i;
            let mut v: u64 = 0;
            while let Some(d) = self.pat.get(*i).filter(|b| b.is_ascii_digit()) {
                v = (v * 10 + u64::from(d - b'0')).min(u64::from(u32::MAX));
                *i += 1;
            }
            (*i > start).then_some(v)
        };
        let min = number(&mut i);
        let (max, comma) = if self.pat.get(i) == Some(&b',') {
            i += 1;
            (number(&mut i), true)
        } else {
            (min, false)
        };
        let close: &[u8] = if bre { b"\\}" } else { b"}" };
        let valid = (comma || min.is_some()) && self.pat[i..].starts_with(close);
        if !valid {
            if !bre {
                return Ok(None);
            }
            let closes_later = self.pat[self.pos..].windows(2).any(|w| w == b"\\}");
            return Err(if closes_later {
                "Invalid content of \\{\\}".into()
            } else {
                "Unmatched \\{".into()
            });
        }
        let width = i + close.len() - self.pos;
        let min_v = min.unwrap_or(0);
        if max.is_some_and(|m| m < min_v) {
            return Err("Invalid content of \\{\\}".into());
        }
        let limit = u64::from(DUP_MAX);
        if !any_count && (min_v > limit || max.is_some_and(|m| m > limit)) {
            return Err("Regular expression too big".into());
        }
        let clamp = |v: u64| v.min(limit + 1) as u32;
        Ok(Some((clamp(min_v), max.map(clamp), width)))
    }

    /// One atom: returns its regex and what kind of piece it was.
    fn atom(&mut self, prev: Prev) -> Result<(String, Prev), String> {
        let c = self.pat[self.pos];
        let ere = self.ere();
        match c {
            b'^' if ere || prev == Prev::Start => {
                self.anchors.push(self.pos);
                self.pos += 1;
                Ok(("(?m:^)".into(), Prev::Caret))
            }
            b'$' if ere || self.at_branch_end(self.pos + 1) => {
                self.anchors.push(self.pos);
                self.pos += 1;
                Ok(("(?m:$)".into(), Prev::Caret))
            }
            b'.' => {
                self.pos += 1;
                // GNU's DFA never takes one of glibc's long forms.
                let any = format!("[^{}]", terminator_item(self.cfg));
                if self.reading == Reading::Glibc {
                    Ok((with_long_forms(any, self.cfg), Prev::Atom))
                } else {
                    Ok((any, Prev::Atom))
                }
            }
            b'[' => Ok((self.bracket()?, Prev::Atom)),
            b'(' if ere => {
                self.pos += 1;
                self.group()
            }
            b'\\' => self.escape(prev),
            b'*' if prev == Prev::Start || prev == Prev::Caret => {
                // BRE only (an ERE star here was taken as a repetition).
                self.pos += 1;
                Ok((literal(b"*", 0, self.cfg), Prev::Atom))
            }
            _ => {
                let n = char_len(&self.pat[self.pos..], self.cfg.locale);
                let lit = literal(self.pat, self.pos, self.cfg);
                self.pos += n;
                Ok((lit, Prev::Atom))
            }
        }
    }

    /// In a BRE, is position `i` the end of a branch (for `$`)?
    fn at_branch_end(&self, i: usize) -> bool {
        let rest = &self.pat[i..];
        rest.is_empty() || rest.starts_with(b"\\)") || rest.starts_with(b"\\|")
    }

    /// A marker capture of `Reading::Exact`, named `{kind}_{k}`.  Its
    /// content is never run; it only has to take text, or regex-syntax
    /// would cap a repetition of it at one (`\1{2}` is two).
    fn marker(&mut self, kind: String) -> String {
        self.markers += 1;
        format!(r"(?P<{kind}_{}>(?-u:\xFF))", self.markers)
    }

    fn group(&mut self) -> Result<(String, Prev), String> {
        self.groups += 1;
        let number = self.groups;
        self.depth += 1;
        let inner = self.alternation()?;
        self.depth -= 1;
        let close: &[u8] = if self.ere() { b")" } else { b"\\)" };
        if !self.pat[self.pos..].starts_with(close) {
            return Err("Unmatched ( or \\(".into());
        }
        self.pos += close.len();
        if self.reading == Reading::Exact {
            return Ok((format!("(?P<g{number}>{inner})"), Prev::Atom));
        }
        Ok((format!("(?:{inner})"), Prev::Atom))
    }

    fn escape(&mut self, prev: Prev) -> Result<(String, Prev), String> {
        let Some(e) = self.peek(1) else {
            return Err("Trailing backslash".into());
        };
        let ere = self.ere();
        let t = terminator_item(self.cfg);
        self.pos += 2;
        let atom = |s: String| Ok((s, Prev::Atom));
        let anchor = |s: &str| Ok((s.to_string(), Prev::Caret));
        match e {
            b'(' if !ere => self.group(),
            b')' if !ere => Err("Unmatched ) or \\)".into()),
            b'{' if !ere && (prev == Prev::Start || prev == Prev::Caret) => {
                atom(literal(b"{", 0, self.cfg))
            }
            b'1'..=b'9' => {
                // glibc has checked that group N exists.  The other
                // readings take any text of the line for it: a superset,
                // which the back-reference engine confirms.
                *self.backrefs = true;
                if self.reading == Reading::Exact {
                    return atom(self.marker(format!("r{}", e - b'0')));
                }
                *self.superset = true;
                atom(format!("(?-u:[^{t}])*"))
            }
            b'w' | b'W' if self.cfg.locale == Locale::Utf8 && self.reading == Reading::Exact => {
                let kind = format!("w{}", u8::from(e == b'w'));
                atom(self.marker(kind))
            }
            b'w' | b'W' | b'b' | b'B' | b'<' | b'>'
                if self.cfg.locale == Locale::Utf8
                    && matches!(self.reading, Reading::Dfa | Reading::Glibc) =>
            {
                // Any character for `\w` (never a long form: not alnum)
                // and `\W`, no condition for the boundaries: glibc
                // decides on the lines this wider regex finds, as GNU's
                // DFA lets glibc decide on the lines it finds.
                *self.superset = true;
                match e {
                    b'w' => atom(format!("[^{t}]")),
                    b'W' => atom(with_long_forms(format!("[^{t}]"), self.cfg)),
                    _ => anchor(""),
                }
            }
            b'w' => atom(r"\w".into()),
            b'W' => atom(format!(r"[^\w{t}]")),
            // glibc's white space: regex-syntax's Unicode `\s` also holds
            // the no-break spaces and U+0085, which glibc's does not.
            b's' | b'S' => {
                let space = posix_class(b"space", self.cfg.locale).expect("a POSIX class");
                match e {
                    b's' => atom(format!("[{space}&&[^{t}]]")),
                    _ => atom(with_long_forms(format!("[^{space}{t}]"), self.cfg)),
                }
            }
            b'b' => anchor(r"\b"),
            b'B' => anchor(r"\B"),
            b'<' => anchor(r"\b{start}"),
            b'>' => anchor(r"\b{end}"),
            b'`' => anchor("(?m:^)"),
            b'\'' => anchor("(?m:$)"),
            _ => {
                let at = self.pos - 1;
                let n = char_len(&self.pat[at..], self.cfg.locale);
                self.pos = at + n;
                atom(literal(self.pat, at, self.cfg))
            }
        }
    }

    fn bracket(&mut self) -> Result<String, String> {
        const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
        let p = self.pat;
        let start = self.pos;
        let mut i = self.pos + 1;
        let negated = p.get(i) == Some(&b'^');
        if negated {
            i += 1;
        }
        let mut items = String::new();
        let mut long_members: Vec<String> = Vec::new();
        let mut ranged = false;
        let first_at = i;
        let mut first = true;
        loop {
            let Some(&b) = p.get(i) else {
                return Err(UNMATCHED.into());
            };
            if b == b']' && !first {
                i += 1;
                break;
            }
            first = false;
            let starts_range = |at: usize| p.get(at) == Some(&b'-') && p.get(at + 1) != Some(&b']');
            let (c, n) = if b == b'[' && matches!(p.get(i + 1), Some(b':' | b'=' | b'.')) {
                let kind = p[i + 1];
                let body_start = i + 2;
                let end = (body_start..p.len().saturating_sub(1))
                    .find(|&k| p[k] == kind && p[k + 1] == b']')
                    .ok_or_else(|| UNMATCHED.to_string())?;
                let body = &p[body_start..end];
                i = end + 2;
                if kind == b':' {
                    // With -i, glibc and GNU's DFA read `upper` and `lower`
                    // as `alpha` (which, in UTF-8, also holds letters and
                    // digits that have no case).
                    let body = match body {
                        b"upper" | b"lower" if self.cfg.ignore_case => b"alpha",
                        _ => body,
                    };
                    items.push_str(
                        &posix_class(body, self.cfg.locale)
                            .ok_or_else(|| "Invalid character class name".to_string())?,
                    );
                    if starts_range(i) {
                        // A class cannot start a range.
                        return Err("Invalid range end".into());
                    }
                    continue;
                }
                // `[=c=]` and `[.c.]`: one byte, a character, stands for
                // itself (the C and C.UTF-8 locales define no longer
                // collating elements).
                let (c, n) = match body {
                    [_] => bracket_char(body, 0, self.cfg),
                    _ => return Err("Invalid collation character".into()),
                };
                if n != 1 || c == NO_CHARACTER {
                    return Err("Invalid collation character".into());
                }
                if kind == b'=' {
                    if starts_range(i) {
                        // Nor can an equivalence class.
                        return Err("Invalid range end".into());
                    }
                    items.push_str(&class_char(c, self.cfg.locale));
                    continue;
                }
                (c, 0)
            } else {
                if b == b'-' && i != first_at && p.get(i + 1) != Some(&b']') {
                    // A `-` that is neither first, last, nor a range's end.
                    return Err("Invalid range end".into());
                }
                let (c, n) = bracket_char(p, i, self.cfg);
                i += n;
                (c, n)
            };
            // A range `a-z`, unless the `-` is last.
            if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&x| x != b']') {
                let (end, m) = if p[i + 1] == b'[' && p.get(i + 2) == Some(&b'.') {
                    let body_start = i + 3;
                    let close = (body_start..p.len().saturating_sub(1))
                        .find(|&k| p[k] == b'.' && p[k + 1] == b']')
                        .ok_or_else(|| UNMATCHED.to_string())?;
                    let (e, len) = bracket_char(p, body_start, self.cfg);
                    if close != body_start + 1 || len != 1 || e == NO_CHARACTER {
                        return Err("Invalid collation character".into());
                    }
                    (e, close + 2 - (i + 1))
                } else if p[i + 1] == b'[' && matches!(p.get(i + 2), Some(b':' | b'=')) {
                    return Err("Invalid range end".into());
                } else {
                    bracket_char(p, i + 1, self.cfg)
                };
                let order = |x| {
                    if self.cfg.ignore_case {
                        upper_for_order(x, self.cfg)
                    } else {
                        x
                    }
                };
                if c == NO_CHARACTER || end == NO_CHARACTER || order(end) < order(c) {
                    return Err("Invalid range end".into());
                }
                i += 1 + m;
                ranged = true;
                // regex-syntax stops at U+10FFFF; a range that reaches the
                // long forms keeps only its Unicode part.
                // With -i in UTF-8 glibc decides, on upcased text and an
                // upcased range: `[A-z]` is `[A-Z]` there (the regex then
                // folds case itself).  GNU's C locale DFA keeps the range.
                let (lo, hi) = if self.cfg.ignore_case && self.cfg.locale == Locale::Utf8 {
                    (order(c), order(end))
                } else {
                    (c, end)
                };
                // With -i in C, `a-[` passes glibc's upcased check (`A-[`)
                // but holds no byte in the DFA's loop from `a` to `[`.
                if lo <= MAX_SCALAR && lo <= hi {
                    items.push_str(&format!(
                        "{}-{}",
                        class_char(lo, self.cfg.locale),
                        class_char(hi.min(MAX_SCALAR), self.cfg.locale)
                    ));
                }
                continue;
            }
            if c == NO_CHARACTER {
                continue;
            }
            if c > MAX_SCALAR && self.cfg.locale == Locale::Utf8 {
                long_members.push(bytes_literal(&p[i - n..i]));
                continue;
            }
            items.push_str(&class_char(c, self.cfg.locale));
        }
        // `[:alpha:]` written without the outer brackets.
        let inner = &p[start + 1..i - 1];
        if !negated
            && !ranged
            && inner.len() >= 2
            && inner[0] == b':'
            && inner[inner.len() - 1] == b':'
            && inner.iter().any(|&b| b != b':')
        {
            let before = self.warnings.len();
            self.dfa_error.get_or_insert((
                "character class syntax is [[:space:]], not [:space:]".into(),
                before,
            ));
        }
        self.pos = i;
        let t = terminator_item(self.cfg);
        Ok(if negated {
            // (A long-form member of a negated bracket is not left out:
            // docs/differences.md, long-form-in-negated-bracket.)
            with_long_forms(format!("[^{items}{t}]"), self.cfg)
        } else {
            // A class may name the terminator (`[[:space:]]`, a range).
            let mut alternatives = long_members;
            if !items.is_empty() {
                alternatives.insert(0, format!("[[{items}]&&[^{t}]]"));
            }
            if alternatives.is_empty() {
                NEVER.to_string()
            } else {
                format!("(?:{})", alternatives.join("|"))
            }
        })
    }
}

/// Compile a translated pattern list.  `All` gives the longest match at an
/// anchored start, which with a leftmost-first search for the start makes
/// POSIX leftmost-longest matches (for `-o`).
/// How regex-syntax reads a translation: bytes outside UTF-8 allowed,
/// `^` and `$` at line ends, the locale's and `-i`'s settings.
pub fn syntax_config(cfg: &PatternConfig) -> syntax::Config {
    syntax::Config::new()
        .unicode(cfg.locale == Locale::Utf8)
        .utf8(false)
        .multi_line(true)
        .line_terminator(cfg.terminator)
        .case_insensitive(cfg.ignore_case)
}

pub fn compile(source: &str, cfg: &PatternConfig, kind: MatchKind) -> Result<Regex, String> {
    let syntax = syntax_config(cfg);
    // regex-automata 0.4's DFAs, searching backwards, take `$` to hold
    // before a `\n` whatever the line terminator is (determinize's
    // `set_lookbehind_from_start`, `Start::LineLF` when reversed), so with
    // `-z` a pattern with `$` runs on the engines without DFAs.
    let dfas = cfg.terminator == b'\n' || !source.contains("(?m:$)");
    let config = meta::Config::new()
        .hybrid(dfas)
        .dfa(dfas)
        .match_kind(kind)
        .utf8_empty(false)
        .line_terminator(cfg.terminator)
        .nfa_size_limit(Some(256 << 20));
    Regex::builder()
        .syntax(syntax)
        .configure(config)
        .build(source)
        .map_err(|e| match e.size_limit() {
            Some(_) => "Regular expression too big".to_string(),
            None => format!("invalid pattern: {e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::Input;

    /// The translation of one pattern alone.
    fn parse_alone(p: &[u8], cfg: &PatternConfig) -> Result<String, String> {
        let (mut warnings, mut superset, mut backrefs) = (Vec::new(), false, false);
        let reading = Reading::Exact;
        Parser::new(p, cfg, reading, &mut warnings, &mut superset, &mut backrefs).parse()
    }

    /// The translation's own syntax errors are a safety net: glibc
    /// compiles every -G/-E pattern first (`RegexMatcher::build`) and its
    /// error is the one shown, so the translation must parse every pattern
    /// glibc compiles (GNU's DFA's own errors are `dfa_error`, apart).
    /// Checked for every pattern of up to three syntax tokens, in both
    /// dialects and both locales.  It found a BRE's leading `\{` refused
    /// as `Unmatched \{`, where glibc and GNU read a brace.
    #[test]
    fn translation_parses_whatever_glibc_compiles() {
        use crate::grep::matcher::syntax_bits;
        const TOKENS: &[&[u8]] = &[
            b"a",
            b"(",
            b")",
            b"\\(",
            b"\\)",
            b"[",
            b"]",
            b"\\",
            b"{",
            b"}",
            b"\\{",
            b"\\}",
            b"1",
            b",",
            b"-",
            b"*",
            b"+",
            b"|",
            b"\\|",
            b"^",
            b"[:alpha:]",
            b"[:nope:]",
            b"[=a=]",
            b"[.a.]",
            b"[.",
            b"\\1",
            b"z-a",
            b"\\w",
            b"\xc3\xa9",
            b"\\<",
            b"$",
            b".",
        ];
        let mut checked = 0;
        let mut refused = 0;
        let mut problems = Vec::new();
        for (syntax, bits) in [
            (Syntax::Basic, syntax_bits::GREP),
            (Syntax::Extended, syntax_bits::EGREP),
        ] {
            for locale in [Locale::C, Locale::Utf8] {
                let cfg = PatternConfig {
                    syntax,
                    ignore_case: false,
                    word: false,
                    line: false,
                    locale,
                    terminator: b'\n',
                };
                let n = TOKENS.len();
                for code in 0..(1 + n + n * n + n * n * n) {
                    let (mut p, mut c) = (Vec::new(), code);
                    while c > 0 {
                        c -= 1;
                        p.extend_from_slice(TOKENS[c % n]);
                        c /= n;
                    }
                    let glibc = sys::GnuRegex::compile(&p, bits, locale == Locale::Utf8);
                    let ours = parse_alone(&p, &cfg);
                    let shown = String::from_utf8_lossy(&p);
                    match (glibc, ours) {
                        (Ok(_), Ok(_)) => {}
                        (Ok(_), Err(e)) => problems.push(format!(
                            "{syntax:?} {locale:?} {shown:?}: glibc compiles, ours: {e}"
                        )),
                        // glibc's error is the one shown; ours is never met.
                        (Err(_), Err(_)) => refused += 1,
                        (Err(_), Ok(_)) => {}
                    }
                    checked += 1;
                }
            }
        }
        assert!(
            problems.is_empty(),
            "{} disagreements, the first:\n{}",
            problems.len(),
            problems[..problems.len().min(40)].join("\n")
        );
        assert!(refused > checked / 10, "{refused} of {checked}");
    }

    /// With `-z`, `$` holds only before a NUL or at the end, in every
    /// engine the regex may choose (see `compile`).
    #[test]
    fn dollar_with_nul_terminator_ignores_newlines() {
        let cfg = PatternConfig {
            syntax: Syntax::Basic,
            ignore_case: false,
            word: false,
            line: false,
            locale: Locale::C,
            terminator: 0,
        };
        let patterns = [b"\\sb".to_vec(), b"\t[[:space:]]*b$".to_vec()];
        let t = translate(&patterns, &cfg, Reading::Dfa).unwrap();
        let regex = compile(&t.source, &cfg, MatchKind::LeftmostFirst).unwrap();
        let found = regex
            .search(&Input::new(&b"\t b\nfoo"[..]))
            .map(|m| m.range());
        assert_eq!(found, Some(1..3));
        let found = regex
            .search(&Input::new(&b"\t b\x00foo"[..]))
            .map(|m| m.range());
        assert_eq!(found, Some(0..3));
    }
}
