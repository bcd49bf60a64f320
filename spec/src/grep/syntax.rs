//! GNU grep's pattern syntaxes parsed into a small tree, with GNU 3.8's
//! errors and warnings.
//!
//! GNU grep reads a pattern twice: glibc's `regcomp` checks its syntax
//! (and runs patterns with back-references), and GNU's DFA runs the rest.
//! The tree follows the DFA's reading, which decides what a pattern
//! without back-references matches.  The errors follow glibc's, which are
//! reported first, for every pattern; then the DFA's own (a bracket like
//! `[:space:]`, a leading interval past RE_DUP_MAX) end the parse, after
//! the warnings met before them.
//!
//! Rules (GNU grep manual, regex(7), glibc `regcomp.c`, GNU `dfa.c`):
//! - BRE: `\( \) \{ \} \| \+ \?` are operators and their plain forms are
//!   literal.  ERE: `( ) { } | + ? *` are operators; `\{` and the rest
//!   are literal.  `\1`..`\9` are back-references in both.
//! - A branch's *start* is the pattern's start, just after an open group
//!   or an alternation bar, or after only zero-width items since then
//!   (anchors).  There a BRE `*`, `\+`, `\?` or `\{` is literal; an ERE
//!   repetition applies to nothing, with GNU's warning `X at start of
//!   expression` (each time).
//! - A repetition after an anchor repeats the anchor (the DFA's reading).
//! - BRE `^` is an anchor only first in a branch and `$` only last; ERE
//!   `^` and `$` are anchors anywhere.  An ERE `)` with no group open is
//!   literal; a BRE `\)` then is an error.
//! - Intervals: `{m}`, `{m,}`, `{,n}`, `{m,n}`, `{,}`; counts up to
//!   RE_DUP_MAX (32767).  `{}` and `{m,n}` with m > n are errors; in an
//!   ERE, a `{` that does not begin an interval otherwise is literal.
//! - Brackets: `]` first is literal, `-` first or last is literal, POSIX
//!   classes, and `[=c=]` and `[.c.]` for a single byte character (the C
//!   and C.UTF-8 locales define no multi-character elements nor wider
//!   equivalences).  A backslash is literal inside.
//! - Escapes `\w \W \s \S \b \B \< \> \` \'`; any other escaped character
//!   stands for itself.

use super::chars::{self, Unit};
use crate::Locale;

/// The pattern syntaxes: GNU's three, parsed here, and `-P`, which is
/// PCRE2's (`super::perl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Syntax {
    #[default]
    Basic,
    Extended,
    Fixed,
    Perl,
}

/// Everything that changes what a pattern matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternConfig {
    pub syntax: Syntax,
    pub ignore_case: bool,
    pub word: bool,
    pub line: bool,
    pub locale: Locale,
    /// `\n`, or `\0` with `-z`.
    pub terminator: u8,
}

/// An error that stops grep before it reads any input: glibc's for one
/// pattern (`pattern`: its index in the list), or GNU's DFA's or a
/// warning met before that (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub pattern: Option<usize>,
    pub message: String,
}

impl CompileError {
    pub fn bare(message: String) -> CompileError {
        CompileError {
            pattern: None,
            message,
        }
    }
}

/// A pattern's syntax tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Empty,
    /// A character, matched by itself (or by its upper case with `-i`).
    Char(u32),
    /// A byte of the pattern that is no character in the locale: it
    /// matches the same byte of the line (even inside a character, once
    /// the match has begun at a character boundary).
    Byte(u8),
    /// `.`: any character.
    Any,
    Bracket(Box<Bracket>),
    /// `\w` (true) or `\W` (false).
    Word(bool),
    /// `\s` (true) or `\S` (false).
    Space(bool),
    Assert(Assert),
    /// A group and its number (from 1).
    Group(usize, Box<Node>),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    /// At least `min` and at most `max` (None: any number) repetitions.
    Repeat(Box<Node>, u32, Option<u32>),
    /// `\N`: what group N matched.
    Backref(usize),
}

/// The zero-width items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assert {
    LineStart,
    LineEnd,
    WordBoundary,
    NotWordBoundary,
    WordStart,
    WordEnd,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bracket {
    pub negated: bool,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Char(u32),
    /// An inclusive range of code points (bytes in C).
    Range(u32, u32),
    Class(&'static str),
    /// A byte that is no character: glibc keeps only single-byte
    /// characters of a bracket's bytes, so it matches nothing.
    Nothing,
}

/// What parsing one pattern found.
#[derive(Debug, PartialEq, Eq)]
pub struct Parsed {
    pub tree: Node,
    /// GNU's warnings, then the DFA's error that ended the parse (if any),
    /// in the order GNU meets them.
    pub notes: Vec<Note>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Note {
    Warning(String),
    Error(String),
}

/// The largest repetition count (RE_DUP_MAX).
pub const DUP_MAX: u32 = 0x7fff;

const UNMATCHED_BRACKET: &str = "Unmatched [, [^, [:, [., or [=";

/// Parse one pattern (no newline in it).  `Err` is glibc's message.
pub fn parse(pattern: &[u8], cfg: &PatternConfig) -> Result<Parsed, String> {
    if cfg.syntax == Syntax::Fixed {
        let mut items = Vec::new();
        let mut at = 0;
        while at < pattern.len() {
            let (node, n) = literal(pattern, at, cfg.locale);
            items.push(node);
            at += n;
        }
        return Ok(Parsed {
            tree: Node::Concat(items),
            notes: Vec::new(),
        });
    }
    let mut p = Parser {
        pat: pattern,
        pos: 0,
        ere: cfg.syntax == Syntax::Extended,
        cfg,
        notes: Vec::new(),
        groups: 0,
        open: 0,
        glibc_open: vec![GlibcGroup::default()],
        glibc_char_close: false,
        visible: Vec::new(),
    };
    let tree = p.alternation()?;
    if p.pos < p.pat.len() {
        // Only a BRE `\)` with no group open stops the top level.
        return Err("Unmatched ) or \\)".into());
    }
    if p.glibc_open.len() > 1 {
        return Err("Unmatched ( or \\(".into());
    }
    Ok(Parsed {
        tree,
        notes: p.notes,
    })
}

/// The character (or stray byte) at `p[at..]` as a node, and its length.
fn literal(p: &[u8], at: usize, locale: Locale) -> (Node, usize) {
    match chars::unit_at(p, at, locale) {
        Unit::Char(c, n) => (Node::Char(c), n),
        Unit::Error(b) => (Node::Byte(b), 1),
    }
}

struct Parser<'a> {
    pat: &'a [u8],
    pos: usize,
    ere: bool,
    cfg: &'a PatternConfig,
    notes: Vec<Note>,
    /// Groups opened so far (the next one's number minus one).
    groups: usize,
    /// Groups open now.
    open: usize,
    /// The groups glibc holds open, innermost last, after the whole
    /// pattern's.  After an ERE repetition it skipped (one at a branch's
    /// start, or after an anchor), glibc reads a `)` as a character where
    /// the group closes here, so it may hold more open than `open`; a
    /// later `)` that is a character here then closes its innermost one,
    /// and a `|` is an alternative of glibc's innermost group.
    glibc_open: Vec<GlibcGroup>,
    /// The `)` that ends the branch just read is a character to glibc.
    glibc_char_close: bool,
    /// Which groups a back-reference may name here (glibc's
    /// `completed_bkref_map`): those glibc has closed, but not those
    /// closed in an earlier branch of an alternation still being read.
    visible: Vec<bool>,
}

/// A group glibc holds open, for its back-reference rules.
#[derive(Default)]
struct GlibcGroup {
    /// 0 for the whole pattern.
    number: usize,
    /// `visible` where it opened: each alternative starts from it.
    initial: Vec<bool>,
    /// The groups closed in its earlier alternatives.
    earlier: Vec<bool>,
}

/// A repetition operator: counts, width in the pattern, name for warnings.
struct Repetition {
    min: u32,
    max: Option<u32>,
    width: usize,
    name: &'static str,
    /// The DFA's `regular expression too big`, after the warning.
    too_big: bool,
}

impl Parser<'_> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.pat.get(self.pos + k).copied()
    }

    fn at_bar(&self) -> bool {
        if self.ere {
            self.peek(0) == Some(b'|')
        } else {
            self.peek(0) == Some(b'\\') && self.peek(1) == Some(b'|')
        }
    }

    fn at_close(&self) -> bool {
        if self.ere {
            self.open > 0 && self.peek(0) == Some(b')')
        } else {
            self.peek(0) == Some(b'\\') && self.peek(1) == Some(b')')
        }
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.branch()?];
        while self.at_bar() {
            self.pos += if self.ere { 1 } else { 2 };
            let innermost = self.glibc_open.last_mut().expect("the whole pattern's");
            merge(&mut innermost.earlier, &self.visible);
            self.visible = innermost.initial.clone();
            branches.push(self.branch()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().expect("one branch")
        } else {
            Node::Alt(branches)
        })
    }

    fn branch(&mut self) -> Result<Node, String> {
        let mut items: Vec<Node> = Vec::new();
        // Only zero-width items so far (the DFA's `laststart`).
        let mut at_start = true;
        // glibc skipped an ERE repetition just now.
        let mut glibc_skipped = false;
        while self.pos < self.pat.len() && !self.at_bar() && !self.at_close() {
            let after_anchor = matches!(items.last(), Some(Node::Assert(_)));
            if let Some(rep) = self.repetition(at_start, after_anchor)? {
                self.pos += rep.width;
                if at_start {
                    self.notes.push(Note::Warning(format!(
                        "warning: {} at start of expression",
                        rep.name
                    )));
                }
                if rep.too_big {
                    self.notes
                        .push(Note::Error("regular expression too big".into()));
                }
                // glibc skips a one-character operator that has nothing
                // to repeat, or follows an anchor (only a `{` of an
                // interval: it reads the rest as characters).
                let skips = rep.width == 1
                    && (glibc_skipped || matches!(items.last(), None | Some(Node::Assert(_))));
                glibc_skipped = self.ere && skips;
                // A leading repetition repeats nothing: it is dropped.
                if let Some(last) = items.pop() {
                    items.push(Node::Repeat(Box::new(last), rep.min, rep.max));
                }
                continue;
            }
            glibc_skipped = false;
            let node = self.atom(at_start)?;
            if !matches!(node, Node::Assert(_)) {
                at_start = false;
            }
            items.push(node);
        }
        if glibc_skipped && self.ere && self.peek(0) == Some(b')') && self.open > 0 {
            // glibc reads this `)` as a character; here it closes the
            // group.
            self.glibc_char_close = true;
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().expect("one item"),
            _ => Node::Concat(items),
        })
    }

    /// A repetition operator here, if there is one.
    /// A repetition operator here, if there is one.  `after_anchor`: the
    /// branch's last item is an anchor, after which glibc reads no
    /// interval (it skips an ERE brace and takes a BRE one literally)
    /// and GNU's DFA does.
    fn repetition(
        &mut self,
        at_start: bool,
        after_anchor: bool,
    ) -> Result<Option<Repetition>, String> {
        let simple = |min, max, width, name| {
            Ok(Some(Repetition {
                min,
                max,
                width,
                name,
                too_big: false,
            }))
        };
        if self.ere {
            return match self.peek(0) {
                Some(b'*') => simple(0, None, 1, "*"),
                Some(b'+') => simple(1, None, 1, "+"),
                Some(b'?') => simple(0, Some(1), 1, "?"),
                Some(b'{') if at_start || after_anchor => Ok(self.dfa_interval()),
                Some(b'{') => self.interval(1),
                _ => Ok(None),
            };
        }
        if at_start {
            // BRE: literal at the start.
            return Ok(None);
        }
        match (self.peek(0), self.peek(1)) {
            (Some(b'*'), _) => simple(0, None, 1, "*"),
            (Some(b'\\'), Some(b'+')) => simple(1, None, 2, "+"),
            (Some(b'\\'), Some(b'?')) => simple(0, Some(1), 2, "?"),
            (Some(b'\\'), Some(b'{')) if after_anchor => {
                let interval = self.dfa_interval();
                if interval.is_none() {
                    // Then glibc's reading: a literal brace.
                    self.notes
                        .push(Note::Error("invalid content of \\{\\}".into()));
                }
                Ok(interval)
            }
            (Some(b'\\'), Some(b'{')) => self.interval(2),
            _ => Ok(None),
        }
    }

    /// An interval after an atom, read as glibc's `parse_dup_op` does.
    /// `None`: an ERE `{` that is a literal.
    fn interval(&self, open: usize) -> Result<Option<Repetition>, String> {
        let mut tokens = IntervalTokens {
            pat: self.pat,
            at: self.pos + open,
            bre: !self.ere,
        };
        let (min, after_min) = tokens.number();
        let min = match (min, after_min) {
            (Count::Missing, Tok::Char(b',')) => Count::Value(0),
            (Count::Missing, _) => return Err("Invalid content of \\{\\}".into()),
            (m, _) => m,
        };
        let (max, last) = match (min, after_min) {
            (Count::Invalid, t) => (Count::Invalid, t),
            (_, Tok::Close) => (min, Tok::Close),
            (_, Tok::Char(b',')) => tokens.number(),
            (_, t) => (Count::Invalid, t),
        };
        if min == Count::Invalid || max == Count::Invalid {
            if self.ere {
                return Ok(None);
            }
            return Err(if last == Tok::End {
                "Unmatched \\{".into()
            } else {
                "Invalid content of \\{\\}".into()
            });
        }
        let Count::Value(min) = min else {
            unreachable!("missing minimum handled above")
        };
        let max = match max {
            Count::Value(v) => Some(v),
            _ => None,
        };
        if max.is_some_and(|m| m < min) || last != Tok::Close {
            return Err("Invalid content of \\{\\}".into());
        }
        if max.unwrap_or(min) > DUP_MAX {
            return Err("Regular expression too big".into());
        }
        Ok(Some(Repetition {
            min,
            max,
            width: tokens.at - self.pos,
            name: "{...}",
            too_big: false,
        }))
    }

    /// An interval where only GNU's DFA reads one (an ERE's at a branch's
    /// start, any after an anchor): digits, an optional comma and digits,
    /// the close; none if it is not one.
    fn dfa_interval(&self) -> Option<Repetition> {
        let p = self.pat;
        let (open, close): (usize, &[u8]) = if self.ere { (1, b"}") } else { (2, b"\\}") };
        let mut i = self.pos + open;
        let digits = |i: &mut usize| -> Option<u32> {
            let start = *i;
            let mut v: u32 = 0;
            while let Some(d) = p.get(*i).filter(|b| b.is_ascii_digit()) {
                v = (v * 10 + u32::from(d - b'0')).min(DUP_MAX + 1);
                *i += 1;
            }
            (*i > start).then_some(v)
        };
        let min = digits(&mut i);
        let comma = p.get(i) == Some(&b',');
        let max = if comma {
            i += 1;
            digits(&mut i)
        } else {
            min
        };
        let valid = p[i..].starts_with(close)
            && (min.is_some() || comma)
            && max.is_none_or(|m| min.unwrap_or(0) <= m);
        if !valid {
            return None;
        }
        Some(Repetition {
            min: min.unwrap_or(0),
            max,
            width: i + close.len() - self.pos,
            name: "{...}",
            too_big: max.unwrap_or(0) > DUP_MAX || min.unwrap_or(0) > DUP_MAX,
        })
    }

    /// One atom.  `first`: nothing but anchors precede it in the branch.
    fn atom(&mut self, first: bool) -> Result<Node, String> {
        let c = self.pat[self.pos];
        let bre_first = !self.ere && self.pos_is_branch_head();
        match c {
            b'^' if self.ere || bre_first => {
                self.pos += 1;
                Ok(Node::Assert(Assert::LineStart))
            }
            b'$' if self.ere || self.bre_dollar_ends_branch() => {
                self.pos += 1;
                Ok(Node::Assert(Assert::LineEnd))
            }
            b'.' => {
                self.pos += 1;
                Ok(Node::Any)
            }
            b'[' => self.bracket(),
            b'(' if self.ere => {
                self.pos += 1;
                self.group()
            }
            b'\\' => self.escape(first),
            _ => {
                if c == b')' && self.glibc_open.len() > self.open + 1 {
                    // A character here, the close of a group for glibc.
                    self.glibc_close();
                }
                let (node, n) = literal(self.pat, self.pos, self.cfg.locale);
                self.pos += n;
                Ok(node)
            }
        }
    }

    /// Is the parser right at a BRE branch's head (pattern start, after
    /// `\(` or `\|`)?  Only there is `^` an anchor.
    fn pos_is_branch_head(&self) -> bool {
        let before = &self.pat[..self.pos];
        before.is_empty() || before.ends_with(b"\\(") || before.ends_with(b"\\|")
    }

    fn bre_dollar_ends_branch(&self) -> bool {
        let rest = &self.pat[self.pos + 1..];
        rest.is_empty() || rest.starts_with(b"\\)") || rest.starts_with(b"\\|")
    }

    fn group(&mut self) -> Result<Node, String> {
        self.groups += 1;
        let number = self.groups;
        self.open += 1;
        self.glibc_open.push(GlibcGroup {
            number,
            initial: self.visible.clone(),
            earlier: Vec::new(),
        });
        let inner = self.alternation()?;
        self.open -= 1;
        let close: &[u8] = if self.ere { b")" } else { b"\\)" };
        if !self.pat[self.pos..].starts_with(close) {
            return Err("Unmatched ( or \\(".into());
        }
        self.pos += close.len();
        if !std::mem::take(&mut self.glibc_char_close) {
            self.glibc_close();
        }
        Ok(Node::Group(number, Box::new(inner)))
    }

    /// glibc closes its innermost open group, which a back-reference may
    /// name from now on.
    fn glibc_close(&mut self) {
        if self.glibc_open.len() > 1 {
            let group = self.glibc_open.pop().expect("more than one");
            merge(&mut self.visible, &group.earlier);
            if self.visible.len() < group.number {
                self.visible.resize(group.number, false);
            }
            self.visible[group.number - 1] = true;
        }
    }

    fn escape(&mut self, first: bool) -> Result<Node, String> {
        let Some(e) = self.peek(1) else {
            return Err("Trailing backslash".into());
        };
        let ere = self.ere;
        self.pos += 2;
        let assert = |a| Ok(Node::Assert(a));
        match e {
            b'(' if !ere => self.group(),
            b')' if !ere => Err("Unmatched ) or \\)".into()),
            b'{' if !ere && first => Ok(Node::Char(u32::from(b'{'))),
            b'1'..=b'9' => {
                let n = usize::from(e - b'0');
                if self.visible.get(n - 1) == Some(&true) {
                    Ok(Node::Backref(n))
                } else {
                    Err("Invalid back reference".into())
                }
            }
            b'w' => Ok(Node::Word(true)),
            b'W' => Ok(Node::Word(false)),
            b's' => Ok(Node::Space(true)),
            b'S' => Ok(Node::Space(false)),
            b'b' => assert(Assert::WordBoundary),
            b'B' => assert(Assert::NotWordBoundary),
            b'<' => assert(Assert::WordStart),
            b'>' => assert(Assert::WordEnd),
            b'`' => assert(Assert::LineStart),
            b'\'' => assert(Assert::LineEnd),
            _ => {
                let (node, n) = literal(self.pat, self.pos - 1, self.cfg.locale);
                self.pos += n - 1;
                Ok(node)
            }
        }
    }

    /// A bracket expression, read as glibc's `parse_bracket_exp` does.
    fn bracket(&mut self) -> Result<Node, String> {
        let p = self.pat;
        let mut i = self.pos + 1;
        let negated = p.get(i) == Some(&b'^');
        if negated {
            i += 1;
        }
        let body = i;
        if i >= p.len() {
            // Nothing after `[` or `[^`: glibc's REG_BADPAT.
            return Err("Invalid regular expression".into());
        }
        let mut items = Vec::new();
        let mut has_range = false;
        let mut first = true;
        loop {
            if i >= p.len() {
                return Err(UNMATCHED_BRACKET.into());
            }
            if p[i] == b']' && !first {
                i += 1;
                break;
            }
            let start = self.bracket_element(&mut i, first)?;
            first = false;
            if i >= p.len() {
                return Err(UNMATCHED_BRACKET.into());
            }
            let is_set = matches!(start, Element::Class(_) | Element::Equivalence(_));
            if p[i] == b'-' && i + 1 >= p.len() && !is_set {
                // A range the pattern's end cuts short: REG_EBRACK.
                return Err(UNMATCHED_BRACKET.into());
            }
            // A range, unless the `-` is last.
            let ranged = p[i] == b'-' && p.get(i + 1).is_some_and(|&b| b != b']');
            if !ranged || is_set {
                items.push(start.into_item());
                continue;
            }
            if i + 1 >= p.len() {
                return Err(UNMATCHED_BRACKET.into());
            }
            i += 1;
            let end = self.bracket_element(&mut i, true)?;
            has_range = true;
            items.push(self.range(start, end)?);
        }
        self.pos = i;
        let inner = &p[body..i - 1];
        if !negated
            && inner.len() >= 2
            && inner[0] == b':'
            && inner[inner.len() - 1] == b':'
            && inner.iter().any(|&b| b != b':')
            && !has_range
        {
            self.notes.push(Note::Error(
                "character class syntax is [[:space:]], not [:space:]".into(),
            ));
        }
        Ok(Node::Bracket(Box::new(Bracket { negated, items })))
    }

    /// One element of a bracket at `p[*i..]`.  `may_be_hyphen`: a `-`
    /// here is a character (first in the bracket, or ending a range).
    fn bracket_element(&self, i: &mut usize, may_be_hyphen: bool) -> Result<Element, String> {
        let p = self.pat;
        if p[*i] == b'[' && matches!(p.get(*i + 1), Some(b':' | b'=' | b'.')) {
            let kind = p[*i + 1];
            let name_start = *i + 2;
            // glibc reads up to 31 bytes of name, and the closing pair
            // must come before the pattern's end.
            let close = (name_start..p.len().saturating_sub(1))
                .take(32)
                .find(|&k| p[k] == kind && p[k + 1] == b']')
                .ok_or_else(|| UNMATCHED_BRACKET.to_string())?;
            let name = &p[name_start..close];
            *i = close + 2;
            return match kind {
                b':' => {
                    let class = samebytes_clocale::CLASS_NAMES
                        .iter()
                        .find(|n| n.as_bytes() == name)
                        .ok_or_else(|| "Invalid character class name".to_string())?;
                    Ok(Element::Class(class))
                }
                _ => {
                    // One byte, which must be a character.
                    if name.len() != 1 {
                        return Err("Invalid collation character".into());
                    }
                    let c = match chars::unit_at(name, 0, self.cfg.locale) {
                        Unit::Char(c, _) => c,
                        Unit::Error(_) => return Err("Invalid collation character".into()),
                    };
                    Ok(if kind == b'=' {
                        Element::Equivalence(c)
                    } else {
                        Element::Char(c)
                    })
                }
            };
        }
        if p[*i] == b'-' && !may_be_hyphen && p.get(*i + 1) != Some(&b']') {
            return Err("Invalid range end".into());
        }
        Ok(match chars::unit_at(p, *i, self.cfg.locale) {
            Unit::Char(c, n) => {
                *i += n;
                Element::Char(c)
            }
            Unit::Error(_) => {
                *i += 1;
                Element::Byte
            }
        })
    }

    fn range(&self, start: Element, end: Element) -> Result<Item, String> {
        let bound = |e: &Element| match *e {
            Element::Char(c) => Some(c),
            _ => None,
        };
        let (Some(lo), Some(hi)) = (bound(&start), bound(&end)) else {
            return Err("Invalid range end".into());
        };
        // glibc's C.UTF-8 collates by code point, but its collation
        // sequence table (which build_range_exp asks before it compares
        // the ends) holds only ASCII: `[a-é]` and `[é-z]` are REG_ECOLLATE.
        let beyond_table = |c: u32| self.cfg.locale == crate::Locale::Utf8 && c > 0x7f;
        if beyond_table(lo) || beyond_table(hi) {
            return Err("Invalid collation character".into());
        }
        // With -i glibc reads the pattern in upper case.
        let order = |c| {
            if self.cfg.ignore_case {
                chars::upper(c, self.cfg.locale)
            } else {
                c
            }
        };
        if order(lo) > order(hi) {
            return Err("Invalid range end".into());
        }
        Ok(Item::Range(lo, hi))
    }
}

fn merge(into: &mut Vec<bool>, from: &[bool]) {
    if into.len() < from.len() {
        into.resize(from.len(), false);
    }
    for (a, &b) in into.iter_mut().zip(from) {
        *a |= b;
    }
}

enum Element {
    Char(u32),
    /// A byte that is no character.
    Byte,
    Class(&'static str),
    Equivalence(u32),
}

impl Element {
    fn into_item(self) -> Item {
        match self {
            Element::Char(c) | Element::Equivalence(c) => Item::Char(c),
            Element::Byte => Item::Nothing,
            Element::Class(name) => Item::Class(name),
        }
    }
}

/// glibc's interval counts: a number, none, or not a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    Missing,
    Invalid,
    Value(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    End,
    Close,
    Char(u8),
}

/// The tokens of an interval as glibc's `fetch_number` reads them.
struct IntervalTokens<'a> {
    pat: &'a [u8],
    at: usize,
    bre: bool,
}

impl IntervalTokens<'_> {
    fn next(&mut self) -> Tok {
        let Some(&b) = self.pat.get(self.at) else {
            return Tok::End;
        };
        if b == b'\\' {
            let Some(&e) = self.pat.get(self.at + 1) else {
                self.at += 1;
                return Tok::Char(b'\\');
            };
            self.at += 2;
            return if self.bre && e == b'}' {
                Tok::Close
            } else {
                // An escaped character is no digit, whatever it is.
                Tok::Char(if e == b',' { b',' } else { 0 })
            };
        }
        self.at += 1;
        if !self.bre && b == b'}' {
            Tok::Close
        } else {
            Tok::Char(b)
        }
    }

    /// Digits up to a `,` or the close; what ended them.
    fn number(&mut self) -> (Count, Tok) {
        let mut n = Count::Missing;
        loop {
            let t = self.next();
            match t {
                Tok::End => return (Count::Invalid, t),
                Tok::Close | Tok::Char(b',') => return (n, t),
                Tok::Char(d) if d.is_ascii_digit() && n != Count::Invalid => {
                    let v = match n {
                        Count::Value(v) => v * 10 + u32::from(d - b'0'),
                        _ => u32::from(d - b'0'),
                    };
                    n = Count::Value(v.min(DUP_MAX + 1));
                }
                Tok::Char(_) => n = Count::Invalid,
            }
        }
    }
}
