//! The reference matcher: each line on its own, by sets of positions.
//!
//! Matching a tree from a set of states gives the set of states it can
//! end in: every way through the tree is followed at once, so the
//! leftmost-longest match and every shorter one are all in the result.  A
//! state is a position in the line, plus, for a pattern with
//! back-references, where each group last matched (a back-reference then
//! needs that text again).  Sets keep every step finite: a repetition
//! stops when an iteration reaches no new state.
//!
//! A match starts at a character boundary (in UTF-8, of the line decoded
//! from its start, each encoding error a unit of its own), as glibc's
//! regex and GNU's DFA start them; at any byte when GNU searches the
//! patterns as plain strings (see `searched_as_strings`).
//!
//! What GNU selects, per pattern (`EGexecute` in GNU's `dfasearch.c`):
//! - plain: the leftmost start of a match, and the longest match there;
//! - `-x`: a match from the line's start to its end;
//! - `-w`: the leftmost start whose longest match, or failing that a
//!   shorter non-empty one there, has no word constituent just before it
//!   and none just after it; failing every end, the search goes on from
//!   the next byte.
//!
//! The patterns without back-references are one alternation, as GNU
//! compiles them; each with back-references is a pattern of its own.  Of
//! these, the one that matches leftmost wins, the longest at that start.

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeSet;

use samebytes_pcre2::MatchFailure;

use super::chars::{self, Unit};
use super::perl::Perl;
use super::syntax::{self, Assert, Bracket, CompileError, Item, Node, Note, PatternConfig};
use crate::Locale;

/// Compiled patterns.
pub struct Matcher {
    /// The patterns without back-references: one alternation.
    joint: Vec<Member>,
    /// Each pattern with back-references.
    patterns: Vec<Pattern>,
    cfg: PatternConfig,
    /// GNU searches a list of plain strings with its literal matcher,
    /// which tries every byte as a start; its regex engines start only at
    /// character boundaries.  (It matters only to the empty string and to
    /// pattern bytes that are no character.)
    byte_starts: bool,
    /// `-P`: PCRE2 decides instead of the trees.
    perl: Option<Perl>,
    /// Why a `-P` match could not be decided: GNU stops there.
    failure: RefCell<Option<MatchFailure>>,
}

/// Would GNU search these patterns as plain strings (`-F`, or no special
/// character in any; with `-i` only ASCII ones, which GNU can fold
/// bytewise)?
fn searched_as_strings(patterns: &[Vec<u8>], cfg: &PatternConfig) -> bool {
    let special: &[u8] = match cfg.syntax {
        super::Syntax::Fixed => b"",
        super::Syntax::Basic => b"\\[*.^$",
        super::Syntax::Extended => b"\\[*.^$+?(){}|",
        super::Syntax::Perl => return false,
    };
    patterns
        .iter()
        .all(|p| !p.iter().any(|b| special.contains(b)) && (!cfg.ignore_case || p.is_ascii()))
}

/// A member of the alternation, as GNU's two engines read it.  GNU's DFA
/// selects lines; where it cannot decide (word operators in UTF-8, `-w`
/// in UTF-8) glibc's regex decides on the lines the DFA lets through; and
/// `-o` asks glibc where the matches are.  The readings differ in `.`:
/// glibc's also takes glibc's long forms, as a bracket does.
struct Member {
    dfa: Node,
    glibc: Node,
    /// The DFA leaves this member to glibc.
    to_glibc: bool,
    /// What the DFA itself checks of it: its reading with the word
    /// boundaries, which it leaves to glibc, taken as always true.
    dfa_superset: Node,
}

struct Pattern {
    tree: Node,
    /// Track groups: the pattern has back-references.
    tracks_groups: bool,
    groups: usize,
}

/// What compiling a pattern list gives, in GNU's order.
pub enum Compiled {
    /// The matcher and GNU's warnings (full lines, no program name).
    Ready(Box<Matcher>, Vec<String>),
    /// Errors, in GNU's order (the warnings met before a DFA error come
    /// first).
    Failed(Vec<CompileError>),
}

impl Matcher {
    /// Compile the patterns (already split at newlines).
    pub fn compile(patterns: &[Vec<u8>], cfg: &PatternConfig) -> Compiled {
        if cfg.syntax == super::Syntax::Perl {
            return match Perl::compile(patterns, cfg) {
                Ok(perl) => Compiled::Ready(
                    Box::new(Matcher {
                        joint: Vec::new(),
                        patterns: Vec::new(),
                        cfg: *cfg,
                        byte_starts: false,
                        perl: Some(perl),
                        failure: RefCell::new(None),
                    }),
                    Vec::new(),
                ),
                Err(e) => Compiled::Failed(vec![e]),
            };
        }
        let patterns_given = patterns;
        let mut parsed = Vec::new();
        let mut errors = Vec::new();
        for (i, p) in patterns.iter().enumerate() {
            match syntax::parse(p, cfg) {
                Ok(tree) => parsed.push(tree),
                Err(message) => errors.push(CompileError {
                    pattern: Some(i),
                    message,
                }),
            }
        }
        // glibc's errors, for every pattern, end the run first.
        if !errors.is_empty() {
            return Compiled::Failed(errors);
        }
        let mut warnings = Vec::new();
        for note in parsed.iter().flat_map(|p| &p.notes) {
            match note {
                Note::Warning(w) => warnings.push(w.clone()),
                Note::Error(e) => {
                    warnings.push(e.clone());
                    return Compiled::Failed(
                        warnings.into_iter().map(CompileError::bare).collect(),
                    );
                }
            }
        }
        // GNU compiles the patterns without back-references as one regex
        // (an alternation), and each one with them on its own.
        let mut patterns = Vec::new();
        let mut joint = Vec::new();
        for p in parsed {
            let mut groups = 0;
            let mut backrefs = false;
            survey(&p.tree, &mut groups, &mut backrefs);
            if backrefs {
                patterns.push(Pattern {
                    tree: p.tree,
                    tracks_groups: true,
                    groups,
                });
            } else {
                joint.push(Member {
                    dfa_superset: without_word_boundaries(p.tree.clone()),
                    glibc: any_as_bracket(p.tree.clone()),
                    to_glibc: cfg.locale == Locale::Utf8 && has_word_operator(&p.tree),
                    dfa: p.tree,
                });
            }
        }
        Compiled::Ready(
            Box::new(Matcher {
                joint,
                patterns,
                cfg: *cfg,
                byte_starts: searched_as_strings(patterns_given, cfg),
                perl: None,
                failure: RefCell::new(None),
            }),
            warnings,
        )
    }

    /// Why a `-P` match could not be decided, once one could not: every
    /// line then matches nothing, and the caller stops as GNU does.
    pub fn failure(&self) -> Option<String> {
        self.failure.borrow().as_ref().map(|f| f.0.clone())
    }

    /// `-P`'s search from `from`, a failure recorded as no match.
    fn perl_search(&self, perl: &Perl, line: &[u8], from: usize) -> Option<(usize, usize)> {
        if self.failure.borrow().is_some() {
            return None;
        }
        perl.search(line, from).unwrap_or_else(|f| {
            *self.failure.borrow_mut() = Some(f);
            None
        })
    }

    /// Does some pattern match this line (GNU's rules above)?
    pub fn is_match(&self, line: &[u8]) -> bool {
        if let Some(perl) = &self.perl {
            return self.perl_search(perl, line, 0).is_some();
        }
        let dfa_decides = !(self.cfg.word && self.cfg.locale == Locale::Utf8);
        if dfa_decides {
            let alone = self.joint(|m| (!m.to_glibc).then_some(&m.dfa));
            if self.best(line, 0, alone.iter(), &self.cfg).is_some() {
                return true;
            }
        }
        let left_to_glibc = !dfa_decides || self.joint.iter().any(|m| m.to_glibc);
        if left_to_glibc && self.dfa_passes(line) {
            let glibc = self.joint(|m| (!dfa_decides || m.to_glibc).then_some(&m.glibc));
            if self.best(line, 0, glibc.iter(), &self.cfg).is_some() {
                return true;
            }
        }
        self.best(line, 0, self.patterns.iter(), &self.cfg)
            .is_some()
    }

    /// Does the DFA's reading of the alternation match the line (the
    /// superset it checks before it asks glibc)?  For `-x` GNU's DFA runs
    /// the patterns as `^(P)$` (`GEAcompile`): `printf
    /// '\xf8\x88\x80\x80\x80  \n' | grep -Ex '.+(\W+){1,2}'` selects
    /// nothing, because `.` takes no long form there.  With `-w` it runs
    /// them unwrapped: `grep -w 'x.'` selects `xay x` and a long form.
    ///
    /// The DFA runs over bytes, so a match may start at any byte.  Only a
    /// pattern byte that is no character can match inside a character
    /// (`\x80\x80\x80` inside the long form `\xf8\x88\x80\x80\x80`), and
    /// GNU's DFA lets every line through for such a pattern anyway (dfa.c
    /// reads the byte as a back-reference): `grep -w -e $'\x80\x80\x80'
    /// -e .` selects that long form, which only glibc's `.` takes.
    fn dfa_passes(&self, line: &[u8]) -> bool {
        let Some(all) = self.joint(|m| Some(&m.dfa_superset)) else {
            return false;
        };
        let as_run = PatternConfig {
            word: false,
            ..self.cfg
        };
        let run = Run {
            line,
            pattern: &all,
            cfg: &as_run,
            byte_starts: true,
            units: OnceCell::new(),
        };
        run.first_match(0).is_some()
    }

    /// The alternation of the chosen readings, if any member is chosen.
    fn joint<'m>(&'m self, reading: impl Fn(&'m Member) -> Option<&'m Node>) -> Option<Pattern> {
        let members: Vec<Node> = self.joint.iter().filter_map(reading).cloned().collect();
        if members.is_empty() {
            return None;
        }
        Some(Pattern {
            tree: Node::Alt(members),
            tracks_groups: false,
            groups: 0,
        })
    }

    /// The matches `-o` prints in a (selected) line, as (start, end), by
    /// glibc's reading: each search starts where the last match ended; an
    /// empty match moves on one byte and is not reported.
    pub fn matches(&self, line: &[u8]) -> Vec<(usize, usize)> {
        let glibc = self.joint(|m| Some(&m.glibc));
        let mut found = Vec::new();
        let mut at = 0;
        while at < line.len() {
            let patterns = glibc.iter().chain(&self.patterns);
            let next = match &self.perl {
                Some(perl) => self.perl_search(perl, line, at),
                None => self.best(line, at, patterns, &self.cfg),
            };
            let Some((start, end)) = next else {
                break;
            };
            if start == line.len() {
                break;
            }
            if end == start {
                at = start + 1;
            } else {
                found.push((start, end));
                at = end;
            }
        }
        found
    }

    /// The first match starting at or after `from`: leftmost over the
    /// patterns, then longest, by `cfg`'s `-w`/`-x` rules.
    fn best<'p>(
        &self,
        line: &[u8],
        from: usize,
        patterns: impl Iterator<Item = &'p Pattern>,
        cfg: &PatternConfig,
    ) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for pattern in patterns {
            let run = Run {
                line,
                pattern,
                cfg,
                byte_starts: self.byte_starts,
                units: OnceCell::new(),
            };
            if let Some((s, e)) = run.first_match(from) {
                best = match best {
                    Some((bs, be)) if bs < s || (bs == s && be >= e) => Some((bs, be)),
                    _ => Some((s, e)),
                };
            }
        }
        best
    }
}

/// Does the tree hold `\w`, `\W`, `\b`, `\B`, `\<` or `\>`?
fn has_word_operator(node: &Node) -> bool {
    match node {
        Node::Word(_) => true,
        Node::Assert(a) => !matches!(a, Assert::LineStart | Assert::LineEnd),
        Node::Group(_, inner) | Node::Repeat(inner, _, _) => has_word_operator(inner),
        Node::Concat(items) | Node::Alt(items) => items.iter().any(has_word_operator),
        _ => false,
    }
}

/// The tree with each `.` written as `[^]`: any character glibc decodes.
fn any_as_bracket(node: Node) -> Node {
    match node {
        Node::Any => Node::Bracket(Box::new(Bracket {
            negated: true,
            items: Vec::new(),
        })),
        Node::Group(n, inner) => Node::Group(n, Box::new(any_as_bracket(*inner))),
        Node::Repeat(inner, min, max) => Node::Repeat(Box::new(any_as_bracket(*inner)), min, max),
        Node::Concat(items) => Node::Concat(items.into_iter().map(any_as_bracket).collect()),
        Node::Alt(items) => Node::Alt(items.into_iter().map(any_as_bracket).collect()),
        other => other,
    }
}

/// The tree with `\b`, `\B`, `\<` and `\>` matching anywhere.
fn without_word_boundaries(node: Node) -> Node {
    match node {
        Node::Assert(a) if !matches!(a, Assert::LineStart | Assert::LineEnd) => Node::Empty,
        Node::Group(n, inner) => Node::Group(n, Box::new(without_word_boundaries(*inner))),
        Node::Repeat(inner, min, max) => {
            Node::Repeat(Box::new(without_word_boundaries(*inner)), min, max)
        }
        Node::Concat(items) => {
            Node::Concat(items.into_iter().map(without_word_boundaries).collect())
        }
        Node::Alt(items) => Node::Alt(items.into_iter().map(without_word_boundaries).collect()),
        other => other,
    }
}

/// Count the groups and look for back-references.
fn survey(node: &Node, groups: &mut usize, backrefs: &mut bool) {
    match node {
        Node::Group(n, inner) => {
            *groups = (*groups).max(*n);
            survey(inner, groups, backrefs);
        }
        Node::Concat(items) | Node::Alt(items) => {
            for i in items {
                survey(i, groups, backrefs);
            }
        }
        Node::Repeat(inner, _, _) => survey(inner, groups, backrefs),
        Node::Backref(_) => *backrefs = true,
        _ => {}
    }
}

/// A path through a pattern: where it is, and (when tracked) where each
/// group last matched.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct State {
    at: usize,
    groups: Vec<Option<(usize, usize)>>,
}

type States = BTreeSet<State>;

/// One pattern on one line.
struct Run<'a> {
    line: &'a [u8],
    pattern: &'a Pattern,
    cfg: &'a PatternConfig,
    byte_starts: bool,
    /// Where the line's characters (and encoding errors) start, decoded
    /// from its start, and its end: worked out once, since `-w` and the
    /// word assertions ask at every position.
    units: OnceCell<Vec<usize>>,
}

impl Run<'_> {
    fn locale(&self) -> Locale {
        self.cfg.locale
    }

    fn states(&self, starts: impl Iterator<Item = usize>) -> States {
        let groups = if self.pattern.tracks_groups {
            vec![None; self.pattern.groups]
        } else {
            Vec::new()
        };
        starts
            .map(|at| State {
                at,
                groups: groups.clone(),
            })
            .collect()
    }

    /// Where a match may start: the boundaries of the line's characters
    /// (and encoding errors) when it is decoded from its start, and its end.
    fn boundaries(&self) -> Vec<usize> {
        if self.byte_starts {
            return (0..=self.line.len()).collect();
        }
        self.units().to_vec()
    }

    fn units(&self) -> &[usize] {
        self.units.get_or_init(|| {
            let mut at = 0;
            let mut out = vec![0];
            while at < self.line.len() {
                at += chars::unit_len(chars::unit_at(self.line, at, self.locale()));
                out.push(at);
            }
            out
        })
    }

    /// The unit that holds byte `at - 1` when the line is decoded from its
    /// start: the character before position `at`, for `\<`, `\b` and `-w`
    /// (GNU finds it by stepping back to a character boundary).
    fn unit_before(&self, at: usize) -> Option<chars::Unit> {
        let units = self.units();
        let start = *units[..units.partition_point(|&u| u < at)].last()?;
        Some(chars::unit_at(self.line, start, self.locale()))
    }

    /// Does a match start at one of `starts`?
    fn matches_from(&self, starts: &[usize]) -> bool {
        !self
            .step(&self.pattern.tree, self.states(starts.iter().copied()))
            .is_empty()
    }

    /// The leftmost start at or after `from` of any match.  "Some match
    /// starts among the first k starts" only grows with k, so the least
    /// such k is found by galloping (windows of 1, 2, 4, ... starts, each
    /// after the last) and then bisecting the window that holds it.  The
    /// cost follows how far the match is, not how much of the line is
    /// left: `-w` asks again after every match it rejects (`-w -e 'a '`
    /// on a line of `a ba ba ...` rejects every third byte).
    fn leftmost_from(&self, from: usize) -> Option<usize> {
        let all = self.boundaries();
        let starts = &all[all.partition_point(|&b| b < from)..];
        // No match starts among `starts[..lo]`.
        let mut lo = 0;
        let mut width = 1;
        while lo < starts.len() {
            let hi = (lo + width).min(starts.len());
            if self.matches_from(&starts[lo..hi]) {
                let (mut first, mut last) = (lo, hi - 1);
                while first < last {
                    let mid = first + (last - first) / 2;
                    if self.matches_from(&starts[lo..=mid]) {
                        last = mid;
                    } else {
                        first = mid + 1;
                    }
                }
                return Some(starts[first]);
            }
            lo = hi;
            width *= 2;
        }
        None
    }

    /// Every end of a match that starts at `start`, longest first.
    fn ends_at(&self, start: usize) -> Vec<usize> {
        let ends: BTreeSet<usize> = self
            .step(&self.pattern.tree, self.states(std::iter::once(start)))
            .into_iter()
            .map(|s| s.at)
            .collect();
        ends.into_iter().rev().collect()
    }

    fn first_match(&self, from: usize) -> Option<(usize, usize)> {
        let len = self.line.len();
        if self.cfg.line {
            return (from == 0 && self.ends_at(0).contains(&len)).then_some((0, len));
        }
        if !self.cfg.word {
            let start = self.leftmost_from(from)?;
            return Some((start, self.ends_at(start)[0]));
        }
        let mut from = from;
        loop {
            let start = self.leftmost_from(from)?;
            let ends = self.ends_at(start);
            let longest = ends[0];
            let word_before = chars::is_word_unit(self.unit_before(start), self.locale());
            let found = ends
                .into_iter()
                .filter(|&e| e > start || longest == start)
                .find(|&e| !word_before && !self.word_at(e));
            if let Some(end) = found {
                return Some((start, end));
            }
            from = start + 1;
        }
    }

    /// Is there a word constituent at `at`?
    fn word_at(&self, at: usize) -> bool {
        at < self.line.len()
            && chars::is_word_unit(
                Some(chars::unit_at(self.line, at, self.locale())),
                self.locale(),
            )
    }

    /// The states `node` can end in, from each of `from`.
    fn step(&self, node: &Node, from: States) -> States {
        match node {
            Node::Empty => from,
            Node::Char(_)
            | Node::Byte(_)
            | Node::Any
            | Node::Bracket(_)
            | Node::Word(_)
            | Node::Space(_) => from
                .into_iter()
                .filter_map(|mut s| {
                    let n = self.single(node, s.at)?;
                    s.at += n;
                    Some(s)
                })
                .collect(),
            Node::Assert(a) => from.into_iter().filter(|s| self.holds(*a, s.at)).collect(),
            Node::Group(number, inner) => {
                if !self.pattern.tracks_groups {
                    return self.step(inner, from);
                }
                let mut out = States::new();
                for s in from {
                    let start = s.at;
                    for mut e in self.step(inner, States::from([s])) {
                        e.groups[number - 1] = Some((start, e.at));
                        out.insert(e);
                    }
                }
                out
            }
            Node::Concat(items) => items.iter().fold(from, |set, item| {
                if set.is_empty() {
                    set
                } else {
                    self.step(item, set)
                }
            }),
            Node::Alt(branches) => branches
                .iter()
                .flat_map(|b| self.step(b, from.clone()))
                .collect(),
            Node::Repeat(inner, min, max) => self.repeat(inner, *min, *max, from),
            Node::Backref(number) => from
                .into_iter()
                .filter_map(|mut s| {
                    let (gs, ge) = s.groups[number - 1]?;
                    let n = self.same_text(gs, ge, s.at)?;
                    s.at += n;
                    Some(s)
                })
                .collect(),
        }
    }

    fn repeat(&self, inner: &Node, min: u32, max: Option<u32>, from: States) -> States {
        let mut current = from;
        for _ in 0..min {
            if current.is_empty() {
                return current;
            }
            current = self.step(inner, current);
        }
        // Each further iteration: only the states not reached before can
        // lead anywhere new (one reached with fewer iterations has at
        // least as many left).
        let mut all = current.clone();
        let mut frontier = current;
        let mut count = min;
        while !frontier.is_empty() && max.is_none_or(|m| count < m) {
            let next = self.step(inner, frontier);
            frontier = next.into_iter().filter(|s| !all.contains(s)).collect();
            all.extend(frontier.iter().cloned());
            count += 1;
        }
        all
    }

    /// The bytes a one-unit node takes at `at`, if it matches there.
    fn single(&self, node: &Node, at: usize) -> Option<usize> {
        if at >= self.line.len() {
            return None;
        }
        if let Node::Byte(b) = node {
            return (self.line[at] == *b).then_some(1);
        }
        let Unit::Char(c, n) = chars::unit_at(self.line, at, self.locale()) else {
            // An encoding error: only a pattern byte matches it.
            return None;
        };
        let hit = match node {
            Node::Char(p) => self.same_char(c, *p),
            // GNU's DFA takes `.` as a character of RFC 3629 UTF-8: never
            // one of glibc's longer forms beyond U+10FFFF (a bracket or
            // `\W` takes them, as glibc does).
            Node::Any => c <= 0x10_FFFF,
            Node::Bracket(b) => self.in_bracket(b, c),
            Node::Word(w) => chars::is_word_char(c, self.locale()) == *w,
            Node::Space(s) => (chars::in_class("space", c, self.locale()) == Some(true)) == *s,
            _ => unreachable!("not a one-unit node"),
        };
        hit.then_some(n)
    }

    fn same_char(&self, a: u32, b: u32) -> bool {
        a == b
            || (self.cfg.ignore_case
                && chars::upper(a, self.locale()) == chars::upper(b, self.locale()))
    }

    /// Does the text at `at` repeat `line[gs..ge]`?  The bytes it takes.
    fn same_text(&self, gs: usize, ge: usize, at: usize) -> Option<usize> {
        if !self.cfg.ignore_case {
            let want = &self.line[gs..ge];
            return self.line[at..].starts_with(want).then_some(want.len());
        }
        let (mut g, mut t) = (gs, at);
        while g < ge {
            if t >= self.line.len() {
                return None;
            }
            let a = chars::unit_at(&self.line[..ge], g, self.locale());
            let b = chars::unit_at(self.line, t, self.locale());
            match (a, b) {
                (Unit::Char(x, n), Unit::Char(y, m)) if self.same_char(x, y) => {
                    g += n;
                    t += m;
                }
                (Unit::Error(x), Unit::Error(y)) if x == y => {
                    g += 1;
                    t += 1;
                }
                _ => return None,
            }
        }
        Some(t - at)
    }

    /// Bracket membership.  With `-i` GNU's two engines differ, and each
    /// locale is decided by one of them: in C the DFA takes a character
    /// whose lower or upper case is a member; in UTF-8 glibc compares the
    /// character's upper case with the members' (ranges by their upcased
    /// ends).  `[:upper:]` and `[:lower:]` both mean `[:alpha:]` then.
    fn in_bracket(&self, b: &Bracket, c: u32) -> bool {
        let loc = self.locale();
        let fold = self.cfg.ignore_case;
        let class = |name: &'static str| {
            if fold && (name == "upper" || name == "lower") {
                "alpha"
            } else {
                name
            }
        };
        let member = |x: u32, upcase: bool| {
            let up = |v: u32| if upcase { chars::upper(v, loc) } else { v };
            b.items.iter().any(|item| match *item {
                Item::Char(m) => up(m) == x,
                Item::Range(lo, hi) => up(lo) <= x && x <= up(hi),
                Item::Class(name) => chars::in_class(class(name), x, loc) == Some(true),
                Item::Nothing => false,
            })
        };
        let hit = match (fold, loc) {
            (false, _) => member(c, false),
            (true, Locale::Utf8) => member(chars::upper(c, loc), true),
            (true, Locale::C) => {
                member(c, false)
                    || member(chars::upper(c, loc), false)
                    || member(chars::c_lower(c), false)
            }
        };
        hit != b.negated
    }

    fn holds(&self, a: Assert, at: usize) -> bool {
        let loc = self.locale();
        // Only the word assertions look at the characters: finding the
        // one before `at` decodes the line from its start.
        let before = || chars::is_word_unit_for_boundary(self.unit_before(at), loc);
        let after = || {
            at < self.line.len()
                && chars::is_word_unit_for_boundary(Some(chars::unit_at(self.line, at, loc)), loc)
        };
        match a {
            Assert::LineStart => at == 0,
            Assert::LineEnd => at == self.line.len(),
            Assert::WordBoundary => before() != after(),
            Assert::NotWordBoundary => before() == after(),
            Assert::WordStart => !before() && after(),
            Assert::WordEnd => before() && !after(),
        }
    }
}
