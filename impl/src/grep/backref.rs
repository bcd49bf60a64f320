//! The back-reference engine: an exact matcher for one pattern that holds
//! `\1`..`\9`, run only on the lines a superset regex finds (GNU's own
//! dfa-then-regex scheme; glibc's regex misses matches here,
//! docs/differences.md).  Where that regex copies literal groups and so is
//! exact ([`super::group_copies`]), it selects lines alone, and this
//! engine only finds the matches `-o` prints.
//!
//! The pattern comes translated in [`Reading::Exact`](super::translate),
//! parsed by regex-syntax, and compiled to a small program of
//! instructions.  A match is any path through the program that reaches
//! `Match`; a back-reference needs the text its group last matched, so a
//! path's state is its instruction, its position and its groups.  The
//! search follows every path from a start by backtracking, and visits each
//! state once: the same state leads to the same ends, and an empty pass
//! round a loop that changes nothing comes back to a state already seen,
//! so every search ends.
//!
//! What regex-syntax cannot say is read from marker captures: `gN` is
//! group N, `rN_k` a back-reference to it, and in UTF-8 `w1_k` and `w0_k`
//! are `\w` and `\W` by GNU's word constituents (`iswalnum` or `_`).  A
//! marker's content is never run.  The
//! word boundaries are regex-syntax's looks, judged here by GNU's rules
//! (glibc's, which read a byte that is no character as the code point of
//! the same value).
//!
//! The same engine serves as GNU's DFA for the patterns that DFA leaves
//! to glibc, on the rare lines where the two readings differ (see
//! `Joint::gate` in the matcher).
//!
//! The cost is that of backtracking: polynomial in the line's length for
//! each start, of a degree that grows with the groups a path carries.
//! GNU's glibc pays the same kind of cost for back-references.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use regex_automata::util::syntax;
use regex_syntax::hir::{Class, Hir, HirKind, Look};
use samebytes_spec::grep::PatternConfig;
use samebytes_spec::Locale;

use super::matcher::Engine;
use super::translate;
use crate::sys;
use crate::sys::LineTooLong;
use crate::utf8::{self, Head};
use crate::wc::classes;

/// The most instructions a program may have (bounded repetitions are
/// written out); past it the pattern is GNU's "too big".
const PROGRAM_LIMIT: usize = 1 << 20;

/// A slot that holds no position.
const UNSET: usize = usize::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Inst {
    /// These bytes.
    Literal(Box<[u8]>),
    /// One byte in one of these ranges.
    Bytes(Box<[(u8, u8)]>),
    /// One character of valid UTF-8 (up to U+10FFFF, as regex-syntax's
    /// classes) in one of these ranges.
    Chars(Box<[(u32, u32)]>),
    Look(Look),
    /// One character that is (true) or is not (false) a word constituent;
    /// never an encoding error.
    WordChar(bool),
    /// Group `n` (from 0) opens here, and closes here.
    Open(usize),
    Close(usize),
    /// What group `n` last matched, again.
    Backref(usize),
    /// Go on at both.
    Split(usize, usize),
    Jump(usize),
    Match,
}

pub struct Backtracker {
    prog: Vec<Inst>,
    /// Groups: each has three slots (where it opened on this path, and
    /// where it last matched, start and end).
    groups: usize,
    ignore_case: bool,
    locale: Locale,
    /// Judge `\b \B \< \>`; when false they always hold (GNU's DFA's
    /// superset of a pattern it leaves to glibc).
    word_boundaries: bool,
    /// The bytes a match can begin with ([`first_bytes`]), when no match
    /// is empty: a search tries no other start.
    first_bytes: Option<Box<[bool; 256]>>,
}

/// The bytes a path from the program's start can take first, or `None`
/// when some path reaches `Match` taking nothing, or takes first what
/// this does not follow (a back-reference, a word character).  Every
/// instruction that takes no text is passed through, looks included
/// (whether they hold is left to the search), so the set holds the first
/// byte of every match.
fn first_bytes(prog: &[Inst]) -> Option<Box<[bool; 256]>> {
    let mut set = Box::new([false; 256]);
    let mut seen = vec![false; prog.len()];
    let mut todo = vec![0];
    while let Some(pc) = todo.pop() {
        if std::mem::replace(&mut seen[pc], true) {
            continue;
        }
        match &prog[pc] {
            Inst::Match | Inst::Backref(_) | Inst::WordChar(_) => return None,
            Inst::Literal(bytes) => set[usize::from(*bytes.first()?)] = true,
            Inst::Bytes(ranges) => {
                for &(lo, hi) in ranges.iter() {
                    set[usize::from(lo)..=usize::from(hi)].fill(true);
                }
            }
            // A UTF-8 lead byte grows with the code point it begins.
            Inst::Chars(ranges) => {
                for &(lo, hi) in ranges.iter() {
                    set[lead_byte(lo)..=lead_byte(hi)].fill(true);
                }
            }
            Inst::Split(a, b) => todo.extend([*a, *b]),
            Inst::Jump(a) => todo.push(*a),
            Inst::Open(_) | Inst::Close(_) | Inst::Look(_) => todo.push(pc + 1),
        }
    }
    Some(set)
}

/// A multiply-and-rotate hasher for the small integer keys of a search
/// (states, slot sets): SipHash's resistance to chosen keys buys nothing
/// here and costs most of a step.
#[derive(Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The group slots the paths of one search have carried, each stored
/// once: a state names its slots by index, so that visiting a state costs
/// no copy of them (only opening or closing a group makes new ones).
struct GroupSets {
    sets: Vec<Box<[usize]>>,
    ids: HashMap<Box<[usize]>, usize, BuildHasherDefault<StateHasher>>,
}

impl GroupSets {
    /// Index 0: every slot unset.
    fn new(slots: usize) -> GroupSets {
        let none: Box<[usize]> = vec![UNSET; slots].into();
        let mut ids = HashMap::default();
        ids.insert(none.clone(), 0);
        GroupSets {
            sets: vec![none],
            ids,
        }
    }

    /// The index of set `id` changed by `change`.
    fn with(&mut self, id: usize, change: impl FnOnce(&mut [usize])) -> usize {
        let mut slots = self.sets[id].clone();
        change(&mut slots);
        if let Some(&known) = self.ids.get(&slots) {
            return known;
        }
        self.sets.push(slots.clone());
        self.ids.insert(slots, self.sets.len() - 1);
        self.sets.len() - 1
    }
}

/// The first byte of a code point's UTF-8 encoding.
fn lead_byte(c: u32) -> usize {
    (match c {
        0..=0x7f => c,
        0x80..=0x7ff => 0xc0 | c >> 6,
        0x800..=0xffff => 0xe0 | c >> 12,
        _ => 0xf0 | (c >> 18).min(7),
    }) as usize
}

impl Backtracker {
    /// Compile a pattern in the exact reading (`source`), with `cfg`'s
    /// syntax settings.
    pub fn compile(source: &str, cfg: &PatternConfig) -> Result<Backtracker, String> {
        let config = translate::syntax_config(cfg);
        let hir =
            syntax::parse_with(source, &config).map_err(|e| format!("invalid pattern: {e}"))?;
        let mut program = Program::default();
        program.emit(&hir)?;
        program.push(Inst::Match)?;
        Ok(Backtracker {
            first_bytes: first_bytes(&program.insts),
            prog: program.insts,
            groups: program.groups,
            ignore_case: cfg.ignore_case,
            locale: cfg.locale,
            word_boundaries: true,
        })
    }

    /// The same program with the word boundaries taken as always true.
    pub fn without_word_boundaries(mut self) -> Backtracker {
        self.word_boundaries = false;
        self
    }

    /// Every end of a match that starts at `start`, in increasing order.
    fn ends(&self, line: &[u8], start: usize) -> Vec<usize> {
        let mut ends = Vec::new();
        let mut groups = GroupSets::new(3 * self.groups);
        let mut seen: HashSet<(usize, usize, usize), BuildHasherDefault<StateHasher>> =
            HashSet::default();
        let mut stack = vec![(0, start, 0)];
        while let Some((mut pc, mut at, mut id)) = stack.pop() {
            loop {
                if !seen.insert((pc, at, id)) {
                    break;
                }
                match &self.prog[pc] {
                    Inst::Match => {
                        ends.push(at);
                        break;
                    }
                    Inst::Split(a, b) => {
                        stack.push((*b, at, id));
                        pc = *a;
                    }
                    Inst::Jump(a) => pc = *a,
                    Inst::Open(g) => {
                        id = groups.with(id, |slots| slots[3 * g] = at);
                        pc += 1;
                    }
                    Inst::Close(g) => {
                        id = groups.with(id, |slots| {
                            slots[3 * g + 1] = slots[3 * g];
                            slots[3 * g + 2] = at;
                        });
                        pc += 1;
                    }
                    Inst::Look(look) => {
                        if !self.look_holds(*look, line, at) {
                            break;
                        }
                        pc += 1;
                    }
                    Inst::Backref(g) => {
                        let slots = &groups.sets[id];
                        let (gs, ge) = (slots[3 * g + 1], slots[3 * g + 2]);
                        if gs == UNSET {
                            break;
                        }
                        match self.same_text(line, gs, ge, at) {
                            Some(n) => at += n,
                            None => break,
                        }
                        pc += 1;
                    }
                    single => match self.one_item(single, line, at) {
                        Some(n) => {
                            at += n;
                            pc += 1;
                        }
                        None => break,
                    },
                }
            }
        }
        ends.sort_unstable();
        ends.dedup();
        ends
    }

    /// The bytes an item that takes text takes at `at`, if it matches.
    fn one_item(&self, inst: &Inst, line: &[u8], at: usize) -> Option<usize> {
        let rest = &line[at..];
        match inst {
            Inst::Literal(bytes) => rest.starts_with(bytes).then_some(bytes.len()),
            Inst::Bytes(ranges) => {
                let b = *rest.first()?;
                ranges
                    .iter()
                    .any(|&(lo, hi)| lo <= b && b <= hi)
                    .then_some(1)
            }
            Inst::Chars(ranges) => {
                let (c, n) = scalar_at(rest)?;
                ranges
                    .iter()
                    .any(|&(lo, hi)| lo <= c && c <= hi)
                    .then_some(n)
            }
            Inst::WordChar(want) => match self.unit_at(line, at)? {
                Head::Char(c, n) if self.is_word_char(c) == *want => Some(n),
                _ => None,
            },
            _ => unreachable!("an item that takes no text: {inst:?}"),
        }
    }

    /// The character (or encoding error) at `at`, as the locale decodes
    /// it; `None` at the end.
    fn unit_at(&self, line: &[u8], at: usize) -> Option<Head> {
        let rest = line.get(at..).filter(|r| !r.is_empty())?;
        Some(match self.locale {
            Locale::C => Head::Char(u32::from(rest[0]), 1),
            Locale::Utf8 => utf8::head(rest),
        })
    }

    fn is_word_char(&self, c: u32) -> bool {
        if c < 0x80 {
            return c == u32::from(b'_') || (c as u8).is_ascii_alphanumeric();
        }
        self.locale == Locale::Utf8 && classes::class_of(c).is_word()
    }

    /// Is the unit at `at` a word constituent for a boundary?  glibc reads
    /// an encoding error as the code point of the byte's value.
    fn boundary_word_at(&self, line: &[u8], at: usize) -> bool {
        match self.unit_at(line, at) {
            Some(Head::Char(c, _)) => self.is_word_char(c),
            Some(Head::Invalid | Head::Incomplete) => self.is_word_char(u32::from(line[at])),
            None => false,
        }
    }

    /// The same for the unit that holds byte `at - 1` (the line decoded
    /// from its start).  A byte that starts a character is inside no other
    /// one, so that unit starts at the nearest byte at or before `at - 1`
    /// that is no continuation byte, if what starts there reaches `at - 1`;
    /// otherwise byte `at - 1` is an encoding error of its own.
    fn boundary_word_before(&self, line: &[u8], at: usize) -> bool {
        if at == 0 {
            return false;
        }
        let last = at - 1;
        if self.locale == Locale::C {
            return self.is_word_char(u32::from(line[last]));
        }
        let lowest = last.saturating_sub(5);
        let holder = (lowest..=last)
            .rev()
            .find(|&k| line[k] & 0xc0 != 0x80)
            .and_then(|start| match utf8::head(&line[start..]) {
                Head::Char(c, n) if start + n > last => Some(c),
                _ => None,
            });
        self.is_word_char(holder.unwrap_or(u32::from(line[last])))
    }

    fn look_holds(&self, look: Look, line: &[u8], at: usize) -> bool {
        let word = || {
            (
                self.boundary_word_before(line, at),
                self.boundary_word_at(line, at),
            )
        };
        match look {
            Look::Start | Look::StartLF | Look::StartCRLF => at == 0,
            Look::End | Look::EndLF | Look::EndCRLF => at == line.len(),
            _ if !self.word_boundaries => true,
            Look::WordAscii | Look::WordUnicode => {
                let (before, after) = word();
                before != after
            }
            Look::WordAsciiNegate | Look::WordUnicodeNegate => {
                let (before, after) = word();
                before == after
            }
            Look::WordStartAscii | Look::WordStartUnicode => word() == (false, true),
            Look::WordEndAscii | Look::WordEndUnicode => word() == (true, false),
            other => unreachable!("the translation writes no {other:?}"),
        }
    }

    /// Does the text at `at` repeat `line[gs..ge]`?  The bytes it takes.
    /// With `-i`, unit by unit: characters whose upper cases are equal, or
    /// the same encoding error.
    fn same_text(&self, line: &[u8], gs: usize, ge: usize, at: usize) -> Option<usize> {
        let want = &line[gs..ge];
        if !self.ignore_case {
            return line[at..].starts_with(want).then_some(want.len());
        }
        let (mut g, mut t) = (0, at);
        while g < want.len() {
            let a = self.unit_at(want, g)?;
            let b = self.unit_at(line, t)?;
            match (a, b) {
                (Head::Char(x, n), Head::Char(y, m)) if self.upper(x) == self.upper(y) => {
                    g += n;
                    t += m;
                }
                (Head::Char(..), _) | (_, Head::Char(..)) => return None,
                _ if want[g] == line[t] => {
                    g += 1;
                    t += 1;
                }
                _ => return None,
            }
        }
        Some(t - at)
    }

    fn upper(&self, c: u32) -> u32 {
        if c < 0x80 {
            return u32::from((c as u8).to_ascii_uppercase());
        }
        match self.locale {
            Locale::C => c,
            Locale::Utf8 => sys::utf8_towupper(c),
        }
    }
}

impl Backtracker {
    /// The leftmost match at or after `from`, the longest there.
    pub(super) fn leftmost_in(&self, line: &[u8], from: usize) -> Option<(usize, usize)> {
        let may_start = |s: usize| match &self.first_bytes {
            Some(set) => line.get(s).is_some_and(|&b| set[usize::from(b)]),
            None => true,
        };
        (from..=line.len())
            .filter(|&s| may_start(s))
            .find_map(|s| self.ends(line, s).last().map(|&e| (s, e)))
    }
}

/// Positions are `usize`: any line is taken.
impl Engine for Backtracker {
    fn leftmost(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, LineTooLong> {
        Ok(self.leftmost_in(line, from))
    }

    fn longest_end(
        &self,
        line: &[u8],
        start: usize,
        limit: usize,
    ) -> Result<Option<usize>, LineTooLong> {
        Ok(self
            .ends(line, start)
            .into_iter()
            .take_while(|&e| e <= limit)
            .last())
    }
}

/// The character of valid UTF-8 at the start of `bytes`, as regex-syntax's
/// classes read it: up to U+10FFFF, no surrogates, no overlong forms.
fn scalar_at(bytes: &[u8]) -> Option<(u32, usize)> {
    let n = match *bytes.first()? {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    // Decoded from a copy: `bytes` may be a mapped window that another
    // process rewrites, and a `&str` validated over it could then decode
    // differently from what was validated (docs/safety.md, "Mapped
    // windows").
    let mut copy = [0u8; 4];
    copy[..n].copy_from_slice(bytes.get(..n)?);
    let c = std::str::from_utf8(&copy[..n]).ok()?.chars().next()?;
    Some((u32::from(c), n))
}

#[derive(Default)]
struct Program {
    insts: Vec<Inst>,
    groups: usize,
}

impl Program {
    fn push(&mut self, inst: Inst) -> Result<usize, String> {
        if self.insts.len() >= PROGRAM_LIMIT {
            return Err("Regular expression too big".into());
        }
        self.insts.push(inst);
        Ok(self.insts.len() - 1)
    }

    fn pc(&self) -> usize {
        self.insts.len()
    }

    /// Point the second branch of the split at `at`, or the jump there.
    fn patch(&mut self, inst: usize, to: usize) {
        match &mut self.insts[inst] {
            Inst::Split(_, b) => *b = to,
            Inst::Jump(a) => *a = to,
            other => unreachable!("only splits and jumps are patched: {other:?}"),
        }
    }

    fn emit(&mut self, hir: &Hir) -> Result<(), String> {
        match hir.kind() {
            HirKind::Empty => {}
            HirKind::Literal(lit) => {
                self.push(Inst::Literal(lit.0.clone()))?;
            }
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = class
                    .ranges()
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end())));
                self.push(Inst::Chars(ranges.collect()))?;
            }
            HirKind::Class(Class::Bytes(class)) => {
                let ranges = class.ranges().iter().map(|r| (r.start(), r.end()));
                self.push(Inst::Bytes(ranges.collect()))?;
            }
            HirKind::Look(look) => {
                self.push(Inst::Look(*look))?;
            }
            HirKind::Capture(cap) => self.capture(cap.name.as_deref(), &cap.sub)?,
            HirKind::Concat(items) => {
                for item in items {
                    self.emit(item)?;
                }
            }
            HirKind::Alternation(branches) => {
                let mut to_end = Vec::new();
                let (last, rest) = branches.split_last().expect("an alternation has branches");
                for branch in rest {
                    let split = self.push(Inst::Split(self.pc() + 1, UNSET))?;
                    self.emit(branch)?;
                    to_end.push(self.push(Inst::Jump(UNSET))?);
                    self.patch(split, self.pc());
                }
                self.emit(last)?;
                for jump in to_end {
                    self.patch(jump, self.pc());
                }
            }
            HirKind::Repetition(rep) => {
                for _ in 0..rep.min {
                    self.emit(&rep.sub)?;
                }
                match rep.max {
                    None => {
                        let top = self.push(Inst::Split(self.pc() + 1, UNSET))?;
                        self.emit(&rep.sub)?;
                        self.push(Inst::Jump(top))?;
                        self.patch(top, self.pc());
                    }
                    Some(max) => {
                        let mut to_end = Vec::new();
                        for _ in rep.min..max {
                            to_end.push(self.push(Inst::Split(self.pc() + 1, UNSET))?);
                            self.emit(&rep.sub)?;
                        }
                        for split in to_end {
                            self.patch(split, self.pc());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A capture of the exact reading: a group, or a marker.
    fn capture(&mut self, name: Option<&str>, sub: &Hir) -> Result<(), String> {
        let name = name.unwrap_or_default();
        let number = |digits: &str| -> usize {
            let n: usize = digits.parse().expect("the translation numbers its names");
            n - 1
        };
        match name.as_bytes().first() {
            Some(b'g') => {
                let g = number(&name[1..]);
                self.groups = self.groups.max(g + 1);
                self.push(Inst::Open(g))?;
                self.emit(sub)?;
                self.push(Inst::Close(g))?;
            }
            Some(b'r') => {
                let g = number(name[1..].split('_').next().unwrap_or_default());
                self.groups = self.groups.max(g + 1);
                self.push(Inst::Backref(g))?;
            }
            Some(b'w') => {
                self.push(Inst::WordChar(name.starts_with("w1")))?;
            }
            _ => self.emit(sub)?,
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use samebytes_spec::grep::Syntax;

    pub(in crate::grep) fn cfg(locale: Locale, ignore_case: bool) -> PatternConfig {
        PatternConfig {
            syntax: Syntax::Basic,
            ignore_case,
            word: false,
            line: false,
            locale,
            terminator: b'\n',
        }
    }

    #[test]
    fn lead_byte_is_the_encodings_first() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let mut buf = [0; 4];
            let first = c.encode_utf8(&mut buf).as_bytes()[0];
            assert_eq!(lead_byte(u32::from(c)), usize::from(first), "{c:?}");
        }
    }

    /// The first-byte filter skips no start where a match begins: every
    /// start is tried by hand and compared.
    #[test]
    fn first_bytes_skip_no_match() {
        let lines: &[&[u8]] = &[
            b"\xc3\xa9x\xc3\x89x \xc3\xa9\xc3\xa9 ab ab",
            b"_xx__ \xc3\x89\xc3\x89 aXa",
            b"",
        ];
        for (source, locale, icase) in [
            ("(?P<g1>\u{e9})(?P<r1_0>)", Locale::Utf8, true),
            (
                "(?P<g1>[\u{e9}-\u{10ffff}])x(?P<r1_0>)",
                Locale::Utf8,
                false,
            ),
            ("(?:(?P<g1>a)|b*)X(?P<r1_0>)", Locale::C, true),
            ("\\b(?P<g1>_)x(?P<r1_0>)", Locale::C, false),
        ] {
            let b = Backtracker::compile(source, &cfg(locale, icase)).unwrap();
            for line in lines {
                let every = (0..=line.len()).find_map(|s| b.ends(line, s).last().map(|&e| (s, e)));
                assert_eq!(b.leftmost_in(line, 0), every, "{source} on {line:?}");
            }
        }
    }

    /// Every end at every start, by the program, against a direct
    /// statement of what the pattern `(a|ab)(c|bcd)\2`-like sources match.
    #[test]
    fn ends_cover_every_path() {
        let c = cfg(Locale::C, false);
        let b = Backtracker::compile("(?P<g1>a|ab)(?P<g2>c|bcd)(?P<r2_1>x)", &c).unwrap();
        // abcdbcd: g1=a, g2=bcd, \2=bcd -> end 7; g1=ab, g2=c, \2 needs c at 3 (d): no.
        assert_eq!(b.ends(b"abcdbcd", 0), vec![7]);
        // abcc: g1=ab, g2=c, \2=c -> end 4.
        assert_eq!(b.ends(b"abcc", 0), vec![4]);
        assert_eq!(b.ends(b"abcd", 0), Vec::<usize>::new());
    }

    /// An empty pass round a loop that sets a group is a new state (the
    /// group now holds the empty text), and the search still ends.
    #[test]
    fn empty_iterations_set_groups_and_end() {
        let c = cfg(Locale::C, false);
        let b = Backtracker::compile("(?:(?P<g1>a*))*x(?P<r1_1>x)", &c).unwrap();
        // The last pass may match "" after "aa": then \1 is empty.  Or
        // "aa", or "a" after "a".
        assert_eq!(b.ends(b"aax", 0), vec![3]);
        assert_eq!(b.ends(b"aaxaa", 0), vec![3, 4, 5]);
    }

    /// A repeated back-reference is run each time (regex-syntax caps the
    /// repetition of what can only match empty, so markers take text).
    #[test]
    fn repeated_back_references_repeat() {
        let c = cfg(Locale::C, false);
        let b = Backtracker::compile("(?P<g1>a)(?:(?P<r1_1>x)){2}", &c).unwrap();
        assert_eq!(b.ends(b"aaa", 0), vec![3]);
        assert_eq!(b.ends(b"aa", 0), Vec::<usize>::new());
    }

    #[test]
    fn unset_group_matches_nothing() {
        let c = cfg(Locale::C, false);
        let b = Backtracker::compile("(?:(?P<g1>a)|b)(?P<r1_1>x)", &c).unwrap();
        assert_eq!(b.ends(b"b", 0), Vec::<usize>::new());
        assert_eq!(b.ends(b"aa", 0), vec![2]);
    }

    /// With -i, units compare by their upper case; an encoding error only
    /// by itself.
    #[test]
    fn case_blind_back_references_compare_units() {
        let c = cfg(Locale::Utf8, true);
        let b = Backtracker::compile("(?P<g1>(?-u:[\\x00-\\xFF])+)(?P<r1_1>x)", &c).unwrap();
        assert!(b.ends("éÉ".as_bytes(), 0).contains(&4));
        assert!(b.ends(b"\xff\xff", 0).contains(&2));
        assert!(!b.ends(b"\xffa", 0).contains(&2));
    }

    #[test]
    fn scalar_at_reads_only_valid_utf8() {
        assert_eq!(scalar_at("é".as_bytes()), Some((0xe9, 2)));
        assert_eq!(scalar_at(b"\xed\xa0\x80"), None);
        assert_eq!(scalar_at(b"\xf4\x90\x80\x80"), None);
        assert_eq!(scalar_at(b"\xc0\x80"), None);
        assert_eq!(scalar_at(b"\xe2\x82"), None);
    }
}
