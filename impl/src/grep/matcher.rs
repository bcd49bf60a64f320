//! The matcher: it only finds matches.  The searcher hands it a buffer of
//! whole lines and asks where the next selected line has a match; `-o`
//! asks for the matches in one line.
//!
//! - The candidates come from memchr's memmem for a plain literal, the
//!   regex of [`translate`](super::translate) otherwise.  That
//!   translation keeps every match inside one line, so a whole buffer is
//!   searched at once.
//! - `-w` is GNU's rule, not a regex: the pattern is searched without it,
//!   and each line with a candidate is checked as GNU's `EGexecute` does
//!   (the leftmost start whose longest match, or a shorter non-empty one,
//!   has no word constituent on either side; failing that, the next
//!   start).  A `-w` match is a match, so the candidates miss no line.

use memchr::memmem;
use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input, MatchKind};
use samebytes_spec::grep::{CompileError, PatternConfig, Syntax};
use samebytes_spec::Locale;

use samebytes_pcre2::MatchFailure;

use super::backref::Backtracker;
use super::group_copies;
use super::perl::PerlMatcher;
use super::translate::{self, Reading};
use crate::sys::{GnuRegex, LineTooLong};
use crate::utf8::{self, Head};
use crate::wc::classes;

/// Why a search could not decide a line, where GNU dies with what it
/// printed before that line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// PCRE2 gave up (`-P`): GNU says so, naming the file.
    Pcre(MatchFailure),
    /// A line longer than glibc's offsets reach that only glibc's regex
    /// can decide: GNU's `xalloc_die`, `memory exhausted`.
    MemoryExhausted,
}

/// The patterns compiled: GNU's own dialects, or PCRE2's for `-P`.
pub enum Matcher {
    /// Shared by every search thread of a run.
    Regex(std::sync::Arc<RegexMatcher>),
    Perl(Box<PerlMatcher>),
}

impl Matcher {
    /// Compile the patterns; the warnings to print, or the lines of the
    /// errors.
    pub fn build(
        patterns: &[Vec<u8>],
        cfg: &PatternConfig,
    ) -> Result<(Matcher, Vec<String>), Vec<CompileError>> {
        match cfg.syntax {
            Syntax::Perl => match PerlMatcher::build(patterns, cfg) {
                Ok(m) => Ok((Matcher::Perl(Box::new(m)), Vec::new())),
                Err(e) => Err(vec![e]),
            },
            _ => RegexMatcher::build(patterns, cfg)
                .map(|(m, w)| (Matcher::Regex(std::sync::Arc::new(m)), w)),
        }
    }

    /// A position, in the first line of `hay[from..]` that has a match, at
    /// or after that match's start.  `from` is a line start.  A failure
    /// comes with the start of the line it ended the search in.
    pub fn find(&self, hay: &[u8], from: usize) -> Result<Option<usize>, (Undecided, usize)> {
        match self {
            Matcher::Regex(m) => m
                .find(hay, from)
                .map_err(|at| (Undecided::MemoryExhausted, at)),
            Matcher::Perl(m) => m
                .find(hay, from)
                .map_err(|(f, at)| (Undecided::Pcre(f), at)),
        }
    }

    /// The matcher of `-G`, `-E` and `-F`, which threads may share.
    pub(super) fn shared(&self) -> Option<&RegexMatcher> {
        match self {
            Matcher::Regex(m) => Some(m),
            Matcher::Perl(_) => None,
        }
    }

    /// A matcher for another thread: this one shared, or (PCRE2's serves
    /// one thread) the same patterns compiled again; `None` if that fails.
    pub(super) fn for_thread(&self, patterns: &[Vec<u8>], cfg: &PatternConfig) -> Option<Matcher> {
        match self {
            Matcher::Regex(m) => Some(Matcher::Regex(m.clone())),
            Matcher::Perl(_) => Matcher::build(patterns, cfg).ok().map(|(m, _)| m),
        }
    }

    pub fn is_match(&self, line: &[u8]) -> Result<bool, Undecided> {
        match self.find(line, 0) {
            Ok(found) => Ok(found.is_some()),
            Err((failure, _)) => Err(failure),
        }
    }

    /// The matches `-o` prints in a line, as (start, end), and the failure
    /// that kept the rest from being found.
    pub fn matches(&self, line: &[u8]) -> (Vec<(usize, usize)>, Option<Undecided>) {
        match self {
            Matcher::Regex(m) => m.matches(line),
            Matcher::Perl(m) => {
                let (found, failure) = m.matches(line);
                (found, failure.map(Undecided::Pcre))
            }
        }
    }
}

/// The matcher of `-G`, `-E` and `-F`.
pub struct RegexMatcher {
    /// A plain literal's finder, when the pattern is one.
    literal: Option<memmem::Finder<'static>>,
    /// With back-references: every pattern as one regex, which finds the
    /// candidate lines: a superset where a back-reference is any text or
    /// a copy of its group's regex, exact where it copies a literal
    /// ([`group_copies`]).
    /// Without, the joint patterns' own regex does.
    candidates: Option<RegexEngine>,
    /// The patterns without back-references, as GNU compiles them: one
    /// alternation.
    joint: Option<Joint>,
    /// Each pattern with back-references, on its own, as in GNU.
    backrefs: Vec<Backtracker>,
    word: bool,
    line: bool,
    /// Each line the candidate search finds must be checked: `-w`, an
    /// exact engine, or (in UTF-8) a pattern byte that is no character,
    /// which the regex may match inside a character, where no match may
    /// start.
    check_lines: bool,
    /// A match may start inside a character: GNU searches a list of plain
    /// strings bytewise (it matters to the empty string and to stray
    /// bytes); its regex engines start only at character boundaries.
    byte_starts: bool,
    terminator: u8,
    locale: Locale,
}

/// The patterns without back-references.
struct Joint {
    /// The patterns as one regex (a superset when `exact` is set), in the
    /// DFA's reading: it selects lines.
    regex: RegexEngine,
    /// The same in glibc's reading (`.` takes long forms too), for `-o`
    /// and `-w` in UTF-8; `None` when the two are the same regex.
    regex_wide: Option<RegexEngine>,
    /// When the regex is a superset: an exact engine for each pattern,
    /// which confirms each line the regex finds, as in GNU's
    /// dfa-then-regex.  glibc's regex for a pattern that needs it (the
    /// one GNU asks), the pattern's own regex for the others.
    exact: Option<Vec<PatternEngine>>,
    /// With `exact`: the patterns with regex-syntax's word operators,
    /// which are GNU's on a line of ASCII, and spare glibc those lines.
    ascii_exact: Option<RegexEngine>,
    /// With a glibc engine in `exact`: GNU's DFA's superset of each
    /// pattern (its word boundaries always true), which a line must match
    /// before GNU asks glibc.  A glibc match implies it, except where
    /// glibc's `.` takes a long form, so only lines that may hold one are
    /// gated.
    gate: Option<Vec<Backtracker>>,
}

/// glibc's syntax bits for GNU grep's `-G` and `-E` (gnulib's
/// RE_SYNTAX_GREP and RE_SYNTAX_EGREP), and RE_ICASE.
pub(super) mod syntax_bits {
    const CHAR_CLASSES: u64 = 1 << 2;
    const CONTEXT_INDEP_ANCHORS: u64 = 1 << 3;
    const CONTEXT_INDEP_OPS: u64 = 1 << 4;
    const DOT_NEWLINE: u64 = 1 << 6;
    const INTERVALS: u64 = 1 << 9;
    const NEWLINE_ALT: u64 = 1 << 11;
    const NO_BK_BRACES: u64 = 1 << 12;
    const NO_BK_PARENS: u64 = 1 << 13;
    const NO_BK_VBAR: u64 = 1 << 15;
    const NO_EMPTY_RANGES: u64 = 1 << 16;
    const UNMATCHED_RIGHT_PAREN_ORD: u64 = 1 << 17;
    const INVALID_INTERVAL_ORD: u64 = 1 << 21;
    pub const ICASE: u64 = 1 << 22;
    const BK_PLUS_QM: u64 = 1 << 1;
    /// POSIX_COMMON without DOT_NOT_NULL.
    const COMMON: u64 = CHAR_CLASSES | DOT_NEWLINE | INTERVALS | NO_EMPTY_RANGES;
    pub const GREP: u64 = COMMON | BK_PLUS_QM | NEWLINE_ALT;
    pub const EGREP: u64 = COMMON
        | CONTEXT_INDEP_ANCHORS
        | CONTEXT_INDEP_OPS
        | NO_BK_BRACES
        | NO_BK_PARENS
        | NO_BK_VBAR
        | UNMATCHED_RIGHT_PAREN_ORD
        | INVALID_INTERVAL_ORD
        | NEWLINE_ALT;
}

/// What the match rules need of an engine.  `Err`: a line glibc's regex
/// cannot take.
pub(super) trait Engine {
    /// The leftmost match at or after `from`: its start, and its end
    /// (the longest at that start).
    fn leftmost(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, LineTooLong>;
    /// The end of the longest match at `start` within `line[..limit]`.
    fn longest_end(
        &self,
        line: &[u8],
        start: usize,
        limit: usize,
    ) -> Result<Option<usize>, LineTooLong>;
}

enum PatternEngine {
    Gnu(GnuRegex),
    /// The DFA's reading and glibc's (if different).
    Regex(RegexEngine, Option<RegexEngine>),
}

impl PatternEngine {
    fn engine(&self, wide: bool) -> &dyn Engine {
        match self {
            PatternEngine::Gnu(r) => r,
            PatternEngine::Regex(_, Some(w)) if wide => w,
            PatternEngine::Regex(narrow, _) => narrow,
        }
    }
}

/// The patterns as one alternation, as GNU compiles them: the leftmost
/// start of any, the longest end of any there.  `.1`: glibc's reading.
struct Alternation<'a>(Vec<&'a PatternEngine>, bool);

impl Engine for Alternation<'_> {
    fn leftmost(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, LineTooLong> {
        let mut best: Option<(usize, usize)> = None;
        for p in &self.0 {
            if let Some((s, e)) = p.engine(self.1).leftmost(line, from)? {
                if best.is_none_or(|(bs, be)| s < bs || (s == bs && e > be)) {
                    best = Some((s, e));
                }
            }
        }
        Ok(best)
    }

    fn longest_end(
        &self,
        line: &[u8],
        start: usize,
        limit: usize,
    ) -> Result<Option<usize>, LineTooLong> {
        let mut longest = None;
        for p in &self.0 {
            longest = longest.max(p.engine(self.1).longest_end(line, start, limit)?);
        }
        Ok(longest)
    }
}

struct RegexEngine {
    /// Leftmost-first: where the first match starts.
    first: Regex,
    /// All matches: the longest match at an anchored start.
    longest: Regex,
}

impl RegexEngine {
    /// The assertions still see the whole line.
    fn longest_end_in(&self, line: &[u8], start: usize, limit: usize) -> Option<usize> {
        let input = Input::new(line).range(start..limit).anchored(Anchored::Yes);
        self.longest.search(&input).map(|m| m.end())
    }
}

/// Rust's regex takes any line.
impl Engine for RegexEngine {
    fn leftmost(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, LineTooLong> {
        let Some(m) = self.first.search(&Input::new(line).range(from..)) else {
            return Ok(None);
        };
        let end = self
            .longest_end_in(line, m.start(), line.len())
            .unwrap_or(m.end());
        Ok(Some((m.start(), end.max(m.end()))))
    }

    fn longest_end(
        &self,
        line: &[u8],
        start: usize,
        limit: usize,
    ) -> Result<Option<usize>, LineTooLong> {
        Ok(self.longest_end_in(line, start, limit))
    }
}

impl Engine for GnuRegex {
    fn leftmost(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, LineTooLong> {
        self.search(line, from)
    }

    /// As GNU asks glibc: the line cut at `limit`.
    fn longest_end(
        &self,
        line: &[u8],
        start: usize,
        limit: usize,
    ) -> Result<Option<usize>, LineTooLong> {
        Ok(self.match_len(line, start, limit)?.map(|n| start + n))
    }
}

impl RegexMatcher {
    /// Compile the patterns; the warnings to print, or the lines of the
    /// errors (warnings met before a DFA error first).
    pub fn build(
        patterns: &[Vec<u8>],
        cfg: &PatternConfig,
    ) -> Result<(RegexMatcher, Vec<String>), Vec<CompileError>> {
        // As GNU does, glibc compiles every pattern first: its errors are
        // GNU's, for every pattern that has one.
        let bits = match cfg.syntax {
            Syntax::Fixed => None,
            Syntax::Perl => unreachable!("-P is PerlMatcher's"),
            Syntax::Basic => Some(syntax_bits::GREP),
            Syntax::Extended => Some(syntax_bits::EGREP),
        }
        .map(|b| {
            b | if cfg.ignore_case {
                syntax_bits::ICASE
            } else {
                0
            }
        });
        let mut compiled = Vec::new();
        if let Some(bits) = bits {
            let mut errors = Vec::new();
            for (i, p) in patterns.iter().enumerate() {
                match GnuRegex::compile(p, bits, cfg.locale == Locale::Utf8) {
                    Ok(r) => compiled.push(r),
                    Err(message) => errors.push(CompileError {
                        pattern: Some(i),
                        message,
                    }),
                }
            }
            if !errors.is_empty() {
                return Err(errors);
            }
            let utf8 = cfg.locale == Locale::Utf8;
            compiled = patterns
                .iter()
                .map(|p| compile_as_joined(p, bits, utf8))
                .collect::<Result<_, _>>()
                .map_err(|message| vec![CompileError::bare(message)])?;
            if cfg.terminator == 0 {
                compiled = with_buffer_anchors(patterns, compiled, bits, cfg)?;
            }
        }
        Self::build_compiled(patterns, compiled, cfg)
            .map_err(|lines| lines.into_iter().map(CompileError::bare).collect())
    }

    /// The rest of `build`, once glibc has compiled the -G/-E patterns
    /// (`compiled`): the errors left are the DFA's, located nowhere.
    fn build_compiled(
        patterns: &[Vec<u8>],
        compiled: Vec<GnuRegex>,
        cfg: &PatternConfig,
    ) -> Result<(RegexMatcher, Vec<String>), Vec<String>> {
        // The regexes leave -w out: it is checked line by line.
        let plain = PatternConfig {
            word: false,
            ..*cfg
        };
        let all = translate::translate(patterns, &plain, Reading::Dfa)?;
        let mut joint_patterns = Vec::new();
        let mut joint_gnu = Vec::new();
        let mut backrefs = Vec::new();
        // The candidate regex: each pattern's DFA reading, with the
        // back-references copied where they can be; `confirm` says some
        // candidate is still a superset.
        let mut candidate_branches = Vec::new();
        let mut confirm = false;
        let mut gnu = compiled.into_iter();
        for p in patterns {
            let one = std::slice::from_ref(p);
            let gnu = gnu.next();
            let dfa = match all.backrefs {
                true => Some(translate::translate(one, &plain, Reading::Dfa)?),
                false => None,
            };
            match dfa {
                Some(dfa) if dfa.backrefs => {
                    let exact = translate::translate(one, &plain, Reading::Exact)?;
                    let engine =
                        Backtracker::compile(&exact.source, &plain).map_err(|e| vec![e])?;
                    backrefs.push(engine);
                    let copied = group_copies::copy_groups(&exact.source, &plain);
                    confirm |= !copied.as_ref().is_some_and(|c| c.exact);
                    candidate_branches.push(copied.map_or(dfa.source, |c| c.source));
                }
                dfa => {
                    candidate_branches.extend(dfa.map(|d| d.source));
                    joint_patterns.push(p.clone());
                    joint_gnu.extend(gnu);
                }
            }
        }
        let (joint, candidates) = if all.backrefs {
            let joint = match joint_patterns.is_empty() {
                true => None,
                false => {
                    let t = translate::translate(&joint_patterns, &plain, Reading::Dfa)?;
                    Some(Joint::build(&joint_patterns, joint_gnu, &t, &plain)?)
                }
            };
            let copies: Vec<String> = candidate_branches
                .iter()
                .map(|b| format!("(?:{b})"))
                .collect();
            // A copy too big for the regex engine leaves the plain
            // superset, and every line to the engine that confirms it.
            let candidates = match readings(patterns, &copies.join("|"), &plain, false) {
                Ok((regex, _)) => regex,
                Err(_) => {
                    confirm = true;
                    readings(patterns, &all.source, &plain, false)?.0
                }
            };
            (joint, Some(candidates))
        } else {
            (Some(Joint::build(patterns, joint_gnu, &all, &plain)?), None)
        };
        let check_lines = cfg.word
            || confirm
            || joint.as_ref().is_some_and(|j| j.exact.is_some())
            || (cfg.locale == Locale::Utf8 && patterns.iter().any(|p| !utf8::is_valid(p)));
        let matcher = RegexMatcher {
            literal: plain_literal(patterns, &plain).map(|l| memmem::Finder::new(&l).into_owned()),
            candidates,
            joint,
            backrefs,
            check_lines,
            byte_starts: plain_strings(patterns, cfg),
            word: cfg.word,
            line: cfg.line,
            terminator: cfg.terminator,
            locale: cfg.locale,
        };
        Ok((matcher, all.warnings))
    }

    /// A position in the line of the first match of the pattern (without
    /// `-w`, and a superset when `exact` is set) in `hay[from..]`, at or
    /// after the match's start: where a literal starts, where a regex
    /// match ends.
    fn candidate(&self, hay: &[u8], from: usize) -> Option<usize> {
        match &self.literal {
            Some(f) => f.find(&hay[from..]).map(|p| from + p),
            None => {
                let regex = match (&self.candidates, &self.joint) {
                    (Some(all), _) => all,
                    (None, Some(joint)) => &joint.regex,
                    (None, None) => unreachable!("a matcher has candidates or a joint regex"),
                };
                // The end of the leftmost-first match is in its line (no
                // match holds a terminator), and finding it takes only the
                // forward search: the reverse one that finds the start is
                // about a seventh of a regex search's instructions.
                regex
                    .first
                    .search_half(&Input::new(hay).span(from..hay.len()))
                    .map(|m| m.offset())
            }
        }
    }

    /// A position, in the first line of `hay[from..]` that has a match, at
    /// or after that match's start.  `from` is a line start.  `Err`: the
    /// start of a line only glibc could decide, too long for it.
    pub fn find(&self, hay: &[u8], from: usize) -> Result<Option<usize>, usize> {
        let mut pos = from;
        loop {
            let Some(m) = self.candidate(hay, pos) else {
                return Ok(None);
            };
            if !self.check_lines {
                return Ok(Some(m));
            }
            let t = self.terminator;
            let start = memchr::memrchr(t, &hay[pos..m]).map_or(pos, |p| pos + p + 1);
            let end = memchr::memchr(t, &hay[m..]).map_or(hay.len(), |p| m + p);
            // The whole line is checked: an exact engine may read the
            // pattern more widely than the candidate regex (glibc's `.`
            // takes long forms), and so match before m.
            match self.first_match(&hay[start..end], 0, false) {
                Ok(Some(_)) => return Ok(Some(m)),
                Ok(None) => {}
                Err(LineTooLong) => return Err(start),
            }
            if end >= hay.len() {
                return Ok(None);
            }
            pos = end + 1;
        }
    }

    /// The matches `-o` prints in a line, as (start, end): each search
    /// starting where the last match ended, an empty match moving on one
    /// byte and not reported; and what kept the rest from being found.
    pub fn matches(&self, line: &[u8]) -> (Vec<(usize, usize)>, Option<Undecided>) {
        let mut found = Vec::new();
        let mut at = 0;
        while at < line.len() {
            let (start, end) = match self.first_match(line, at, true) {
                Ok(Some(m)) => m,
                Ok(None) => break,
                Err(LineTooLong) => return (found, Some(Undecided::MemoryExhausted)),
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
        (found, None)
    }

    /// The first match at or after `from`, to select the line (`report`
    /// false) or to print it with `-o` (true): the leftmost of the joint
    /// patterns' and of each back-reference pattern's, the longest there.
    fn first_match(
        &self,
        line: &[u8],
        from: usize,
        report: bool,
    ) -> Result<Option<(usize, usize)>, LineTooLong> {
        let joint = match &self.joint {
            Some(j) => self.joint_match(j, line, from, report)?,
            None => None,
        };
        let mut best = joint;
        for b in &self.backrefs {
            if let Some(m) = self.engine_match(b, line, from, false)? {
                if best.is_none_or(|best| m.0 < best.0 || (m.0 == best.0 && m.1 > best.1)) {
                    best = Some(m);
                }
            }
        }
        Ok(best)
    }

    /// The joint patterns' first match.  GNU's DFA selects, and glibc's
    /// reading decides `-w` in UTF-8 and where `-o`'s matches are.
    fn joint_match(
        &self,
        joint: &Joint,
        line: &[u8],
        from: usize,
        report: bool,
    ) -> Result<Option<(usize, usize)>, LineTooLong> {
        let wide = report || (self.word && self.locale == Locale::Utf8);
        let Some(exact) = &joint.exact else {
            // The regex holds -x itself.
            let regex = match (&joint.regex_wide, wide) {
                (Some(w), true) => w,
                _ => &joint.regex,
            };
            return self.engine_match(regex, line, from, false);
        };
        if let (Some(ascii), true) = (&joint.ascii_exact, line.is_ascii()) {
            // No long form here, so one reading serves; it holds -x.
            return self.engine_match(ascii, line, from, false);
        }
        // Lines the DFA's superset does not match are not given to glibc.
        let gated = !report
            && joint
                .gate
                .as_ref()
                .is_some_and(|g| may_hold_long_form(line) && !self.gate_passes(g, line));
        if gated && self.word && self.locale == Locale::Utf8 {
            // GNU's DFA decides nothing then: every pattern went to glibc.
            return Ok(None);
        }
        let members: Vec<&PatternEngine> = exact
            .iter()
            .filter(|p| !(gated && matches!(p, PatternEngine::Gnu(_))))
            .collect();
        if self.line {
            // Each pattern's own regex holds -x; glibc's is told.
            for p in members {
                let glibc = matches!(p, PatternEngine::Gnu(_));
                if let Some(m) = self.engine_match(p.engine(wide), line, from, glibc)? {
                    return Ok(Some(m));
                }
            }
            return Ok(None);
        }
        self.engine_match(&Alternation(members, wide), line, from, false)
    }

    /// Does some pattern's DFA superset match the line somewhere (a match
    /// that starts at a character boundary)?
    fn gate_passes(&self, gate: &[Backtracker], line: &[u8]) -> bool {
        gate.iter().any(|b| {
            let mut from = 0;
            while let Some((start, _)) = b.leftmost_in(line, from) {
                if self.is_boundary(line, start) {
                    return true;
                }
                from = start + 1;
            }
            false
        })
    }

    /// One engine's first match at or after `from`, by GNU's rules for
    /// `-x` (`whole_line`) and `-w`.
    fn engine_match(
        &self,
        engine: &dyn Engine,
        line: &[u8],
        from: usize,
        whole_line: bool,
    ) -> Result<Option<(usize, usize)>, LineTooLong> {
        if whole_line {
            let full = from == 0 && engine.leftmost(line, 0)? == Some((0, line.len()));
            return Ok(full.then_some((0, line.len())));
        }
        let mut from = from;
        while from <= line.len() {
            let Some((start, mut end)) = engine.leftmost(line, from)? else {
                return Ok(None);
            };
            if !self.byte_starts && !self.is_boundary(line, start) {
                from = start + 1;
                continue;
            }
            if !self.word {
                return Ok(Some((start, end)));
            }
            let clear_before = !self.word_before(line, start);
            loop {
                if clear_before && !self.word_at(line, end) {
                    return Ok(Some((start, end)));
                }
                if end == start {
                    break;
                }
                // A shorter match, but not an empty one.
                match engine.longest_end(line, start, end - 1)? {
                    Some(e) if e > start => end = e,
                    _ => break,
                }
            }
            from = start + 1;
        }
        Ok(None)
    }

    /// Does a character (or an encoding error) of the line, decoded from
    /// its start, begin at `at`?  Only there may a match start.
    fn is_boundary(&self, line: &[u8], at: usize) -> bool {
        if self.locale == Locale::C || at == 0 || at >= line.len() {
            return true;
        }
        match self.unit_holding(line, at - 1) {
            Some((start, n)) => start + n == at,
            None => true,
        }
    }

    /// The character holding byte `last`, as (start, length), or `None`
    /// when that byte is an encoding error.  Its start is the nearest byte
    /// at or before `last` that is not a continuation byte, if what starts
    /// there reaches `last`: a byte that starts a character is inside no
    /// other one.
    fn unit_holding(&self, line: &[u8], last: usize) -> Option<(usize, usize)> {
        let lowest = last.saturating_sub(5);
        let start = (lowest..=last).rev().find(|&k| line[k] & 0xc0 != 0x80)?;
        match utf8::head(&line[start..]) {
            Head::Char(_, n) if start + n > last => Some((start, n)),
            _ => None,
        }
    }

    fn is_word(&self, head: Head) -> bool {
        match head {
            Head::Char(c, _) if c < 0x80 => c as u8 == b'_' || (c as u8).is_ascii_alphanumeric(),
            Head::Char(c, _) => self.locale == Locale::Utf8 && classes::class_of(c).is_word(),
            Head::Invalid | Head::Incomplete => false,
        }
    }

    fn head_at(&self, line: &[u8], at: usize) -> Head {
        match self.locale {
            Locale::C => Head::Char(u32::from(line[at]), 1),
            Locale::Utf8 => utf8::head(&line[at..]),
        }
    }

    /// Is the character at `at` a word constituent?
    fn word_at(&self, line: &[u8], at: usize) -> bool {
        at < line.len() && self.is_word(self.head_at(line, at))
    }

    /// Is the character that holds byte `at - 1` a word constituent?  (An
    /// encoding error is not.)
    fn word_before(&self, line: &[u8], at: usize) -> bool {
        if at == 0 {
            return false;
        }
        if self.locale == Locale::C {
            return self.word_at(line, at - 1);
        }
        self.unit_holding(line, at - 1)
            .is_some_and(|(start, _)| self.is_word(utf8::head(&line[start..])))
    }
}

impl Joint {
    /// The regexes of patterns without back-references (`t`: their
    /// translation in the DFA's reading; `gnu`: glibc's compilation of
    /// each, for the -G and -E syntaxes).
    fn build(
        patterns: &[Vec<u8>],
        gnu: Vec<GnuRegex>,
        t: &translate::Translation,
        plain: &PatternConfig,
    ) -> Result<Joint, Vec<String>> {
        let (regex, regex_wide) = readings(patterns, &t.source, plain, true)?;
        let ascii_exact = if t.superset {
            let ascii = translate::translate(patterns, plain, Reading::Ascii)?;
            Some(readings(patterns, &ascii.source, plain, false)?.0)
        } else {
            None
        };
        let exact = if t.superset {
            let mut engines = Vec::new();
            for (p, gnu) in patterns.iter().zip(gnu) {
                let one = translate::translate(std::slice::from_ref(p), plain, Reading::Dfa)?;
                engines.push(if one.superset {
                    PatternEngine::Gnu(gnu)
                } else {
                    let (narrow, wide) =
                        readings(std::slice::from_ref(p), &one.source, plain, true)?;
                    PatternEngine::Regex(narrow, wide)
                });
            }
            Some(engines)
        } else {
            None
        };
        let gate = match &exact {
            Some(engines) if engines.iter().any(|e| matches!(e, PatternEngine::Gnu(_))) => {
                // As GNU's DFA runs the patterns: wrapped for -x (the
                // translation does it), not for -w.
                let mut gate = Vec::new();
                for p in patterns {
                    let one = std::slice::from_ref(p);
                    let source = translate::translate(one, plain, Reading::Exact)?.source;
                    let superset = Backtracker::compile(&source, plain).map_err(|e| vec![e])?;
                    gate.push(superset.without_word_boundaries());
                }
                Some(gate)
            }
            _ => None,
        };
        Ok(Joint {
            regex,
            regex_wide,
            exact,
            ascii_exact,
            gate,
        })
    }
}

/// The regexes of some patterns in the DFA's reading (`narrow`, already
/// translated) and, if `wide` and it differs, in glibc's.
fn readings(
    patterns: &[Vec<u8>],
    narrow: &str,
    cfg: &PatternConfig,
    wide: bool,
) -> Result<(RegexEngine, Option<RegexEngine>), Vec<String>> {
    let engine = |source: &str| -> Result<RegexEngine, Vec<String>> {
        let compile = |kind| translate::compile(source, cfg, kind).map_err(|e| vec![e]);
        Ok(RegexEngine {
            first: compile(MatchKind::LeftmostFirst)?,
            longest: compile(MatchKind::All)?,
        })
    };
    if !wide {
        return Ok((engine(narrow)?, None));
    }
    let wide = translate::translate(patterns, cfg, Reading::Glibc)?.source;
    let wide = if wide == narrow {
        None
    } else {
        Some(engine(&wide)?)
    };
    Ok((engine(narrow)?, wide))
}

/// Might the line hold one of glibc's long forms (a character beyond
/// U+10FFFF)?  Each begins with a byte from 0xF4 up.
/// With `-z` a line can hold a newline, and glibc's transition table
/// takes one the match itself steps over as a line start or end: `^` holds
/// after it and `$` before it, whatever `newline_anchor` says
/// (docs/differences.md, glibc-newline-anchors).  The lines' ends are the
/// searched string's, so glibc's buffer anchors `` \` `` and `\'` say
/// what `^` and `$` mean without the quirk: each pattern with an anchor is
/// compiled again with them in its place.
fn with_buffer_anchors(
    patterns: &[Vec<u8>],
    compiled: Vec<GnuRegex>,
    bits: u64,
    cfg: &PatternConfig,
) -> Result<Vec<GnuRegex>, Vec<CompileError>> {
    let mut out = Vec::with_capacity(compiled.len());
    for (i, (p, regex)) in patterns.iter().zip(compiled).enumerate() {
        let anchors = match translate::translate(std::slice::from_ref(p), cfg, Reading::Dfa) {
            Ok(t) if !t.anchors.is_empty() => t.anchors,
            // No anchor, or a DFA error build_compiled reports.
            _ => {
                out.push(regex);
                continue;
            }
        };
        let mut text = Vec::with_capacity(p.len() + anchors.len());
        for (at, &b) in p.iter().enumerate() {
            match (anchors.iter().any(|&(_, a)| a == at), b) {
                (true, b'^') => text.extend_from_slice(b"\\`"),
                (true, _) => text.extend_from_slice(b"\\'"),
                (false, _) => text.push(b),
            }
        }
        let utf8 = cfg.locale == Locale::Utf8;
        out.push(compile_as_joined(&text, bits, utf8).map_err(|message| {
            vec![CompileError {
                pattern: Some(i),
                message,
            }]
        })?);
    }
    Ok(out)
}

/// glibc's regex for one pattern, compiled as GNU compiles several: as
/// the first line of a newline-joined list (`RE_NEWLINE_ALT`), here with
/// a second that never matches (`x` before the buffer's start).  glibc
/// answers a lone pattern that opens with a starred atom and `\B`
/// wrongly when searched from past the line's start: ` *\B` searched in
/// `a  _` from 2 gives an empty match at 3, a word boundary, though it
/// finds the one at 2 once joined (docs/differences.md,
/// glibc-star-then-not-boundary).  Joined, the pattern means the same, and
/// several patterns' matches are GNU's.
fn compile_as_joined(pattern: &[u8], bits: u64, utf8: bool) -> Result<GnuRegex, String> {
    let joined = [pattern, b"\nx\\`"].concat();
    GnuRegex::compile(&joined, bits, utf8)
}

fn may_hold_long_form(line: &[u8]) -> bool {
    // A branch-free test per block, which the compiler makes a vector
    // compare: lines can be gigabytes long.
    let mut blocks = line.chunks_exact(64);
    let found = blocks
        .by_ref()
        .any(|block| block.iter().fold(0u8, |m, &b| m | u8::from(b >= 0xf4)) != 0);
    found || blocks.remainder().iter().any(|&b| b >= 0xf4)
}

/// Would GNU search these patterns as plain strings: `-F`, or no
/// special character in any (with `-i`, only ASCII ones)?
fn plain_strings(patterns: &[Vec<u8>], cfg: &PatternConfig) -> bool {
    patterns.iter().all(|p| {
        let special = |b: &u8| match cfg.syntax {
            Syntax::Fixed => false,
            Syntax::Basic => b"\\[*.^$".contains(b),
            Syntax::Extended | Syntax::Perl => b"\\[*.^$+?(){}|".contains(b),
        };
        !p.iter().any(special) && (!cfg.ignore_case || p.is_ascii())
    })
}

/// A pattern that means itself byte for byte.
fn plain_literal(patterns: &[Vec<u8>], cfg: &PatternConfig) -> Option<Vec<u8>> {
    let [p] = patterns else { return None };
    if p.is_empty() || cfg.ignore_case || cfg.word || cfg.line || p.contains(&cfg.terminator) {
        return None;
    }
    if cfg.locale == Locale::Utf8 && std::str::from_utf8(p).is_err() {
        return None;
    }
    let special: &[u8] = match cfg.syntax {
        Syntax::Fixed => b"",
        Syntax::Basic => b"\\[]*.^$",
        Syntax::Extended | Syntax::Perl => b"\\[]*.^$+?(){}|",
    };
    (!p.iter().any(|b| special.contains(b))).then(|| p.clone())
}

#[cfg(test)]
mod tests {
    use super::{may_hold_long_form, Matcher, Undecided};
    use samebytes_spec::grep::{PatternConfig, Syntax};
    use samebytes_spec::Locale;

    /// A line longer than glibc's offsets reach, which only glibc's regex
    /// can decide (`\<` in UTF-8, on a line that is not ASCII): the
    /// matcher answers for the lines before it and says the line cannot
    /// be decided, for a search and for `-o`, rather than answer.  The
    /// line's bytes are zero pages nothing writes: the allocation costs
    /// address space, not memory.  (tests/grep_gnu.rs runs this against
    /// GNU's grep.)
    #[test]
    fn a_line_past_glibcs_offsets_is_undecided() {
        let cfg = PatternConfig {
            syntax: Syntax::Basic,
            ignore_case: false,
            word: false,
            line: false,
            locale: Locale::Utf8,
            terminator: b'\n',
        };
        let (m, _) = Matcher::build(&[b"\\<ab".to_vec()], &cfg).expect("compiles");
        let head = b"x ab\n";
        let tail = " \u{e9} ab\n".as_bytes();
        let len = head.len() + (1usize << 31) + tail.len();
        let mut hay = vec![0u8; len];
        hay[..head.len()].copy_from_slice(head);
        hay[len - tail.len()..].copy_from_slice(tail);
        // The short line first: a position in it.
        assert!(matches!(m.find(&hay, 0), Ok(Some(p)) if p < head.len()));
        assert_eq!(
            m.find(&hay, head.len()),
            Err((Undecided::MemoryExhausted, head.len()))
        );
        let line = &hay[head.len()..len - 1];
        assert_eq!(m.is_match(line), Err(Undecided::MemoryExhausted));
        assert_eq!(
            m.matches(line),
            (Vec::new(), Some(Undecided::MemoryExhausted))
        );
        // Where ours needs no glibc (a plain `ab`), the line is answered.
        let (plain, _) = Matcher::build(&[b"ab".to_vec()], &cfg).expect("compiles");
        let answered = plain.find(&hay, head.len());
        assert!(
            matches!(answered, Ok(Some(p)) if p >= len - tail.len()),
            "{answered:?}"
        );
    }

    /// The block test against the plain one, with the byte at every
    /// position of lines of every length up to a few blocks, at every
    /// alignment.
    #[test]
    fn long_form_lead_found_at_every_position_and_alignment() {
        let naive = |line: &[u8]| line.iter().any(|&b| b >= 0xf4);
        let mut buf = vec![b'x'; 300];
        for align in 0..8 {
            for len in 0..200 {
                let line = &mut buf[align..align + len];
                assert_eq!(may_hold_long_form(line), naive(line));
                for at in 0..len {
                    for b in [0xf3, 0xf4, 0xff] {
                        line[at] = b;
                        assert_eq!(may_hold_long_form(line), naive(line), "{len} {at} {b:#x}");
                        line[at] = b'x';
                    }
                }
            }
        }
    }
}
