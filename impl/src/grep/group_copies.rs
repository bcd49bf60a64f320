//! A narrower candidate regex for a pattern with back-references: each
//! `\N` becomes a copy of group N's own regex, since the text the group
//! last matched is one of that regex's matches.  The candidate search then
//! finds `sentence.*sen` for `\(sen\)tence.*\1`, where the plain superset
//! (`\N` as any text) finds every line with `sentence`.
//!
//! When every group referred to is a plain literal matched exactly once on
//! every path (a direct part of the pattern's top-level concatenation,
//! before the references), the copy is the pattern itself: `\(sen\)` can
//! only have matched `sen`.  The candidate regex is then exact, and the
//! back-reference engine need not confirm its lines.
//!
//! Not copied (the plain superset stays): with `-i` (a reference matches
//! its group's text in another case, which the group's own regex need not
//! take), a group holding a look or a marker (an anchor inside the group
//! need not hold where the reference is), and in UTF-8 any pattern with
//! word operators, which regex-syntax judges by other word characters
//! than GNU's.  The pattern comes in the exact reading
//! ([`Reading::Exact`](super::translate::Reading)), whose markers are
//! named captures: `gN` is group N, `rN_k` a reference to it, `wB_k` a
//! word character.

use std::collections::HashMap;

use regex_automata::util::syntax;
use regex_syntax::hir::{Capture, Hir, HirKind, Look, Repetition};
use samebytes_spec::grep::PatternConfig;
use samebytes_spec::Locale;

use super::translate;

/// A pattern's candidate regex, with its back-references copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    /// regex-syntax source, in the DFA's reading.
    pub source: String,
    /// It matches what the pattern matches, no more.
    pub exact: bool,
}

/// What a marker capture stands for.
enum Marker {
    Group(usize),
    Reference(usize),
    WordChar,
}

fn marker(capture: &Capture) -> Option<Marker> {
    let name = capture.name.as_deref()?;
    let number = |digits: &str| digits.split('_').next()?.parse().ok();
    match name.as_bytes().first()? {
        b'g' => number(&name[1..]).map(Marker::Group),
        b'r' => number(&name[1..]).map(Marker::Reference),
        b'w' => Some(Marker::WordChar),
        _ => None,
    }
}

/// The pattern (in the exact reading) with each back-reference replaced
/// by a copy of its group, or `None` where that is no superset (see the
/// module docs).
pub fn copy_groups(exact_source: &str, cfg: &PatternConfig) -> Option<Copied> {
    if cfg.ignore_case {
        return None;
    }
    let hir = syntax::parse_with(exact_source, &translate::syntax_config(cfg)).ok()?;
    let mut groups = HashMap::new();
    collect_groups(&hir, &mut groups);
    let copied = Copier {
        groups: &groups,
        locale: cfg.locale,
    }
    .copy(&hir)?;
    Some(Copied {
        source: copied.to_string(),
        exact: is_exact(&hir),
    })
}

/// Every group's regex, by number.
fn collect_groups<'h>(hir: &'h Hir, groups: &mut HashMap<usize, &'h Hir>) {
    match hir.kind() {
        HirKind::Capture(c) => {
            if let Some(Marker::Group(n)) = marker(c) {
                groups.insert(n, &c.sub);
            }
            collect_groups(&c.sub, groups);
        }
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().for_each(|s| collect_groups(s, groups));
        }
        HirKind::Repetition(r) => collect_groups(&r.sub, groups),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
    }
}

/// Does `hir` take text without conditions: no look, no marker but
/// groups?
fn unconditional(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Capture(c) => matches!(marker(c), Some(Marker::Group(_))) && unconditional(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().all(unconditional),
        HirKind::Repetition(r) => unconditional(&r.sub),
        HirKind::Look(_) => false,
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => true,
    }
}

/// Does the regex crate read this look as GNU does?  The line and text
/// anchors, always; the word boundaries only in C, where both take the
/// ASCII alphanumerics and `_`.
fn look_as_gnu(look: Look, locale: Locale) -> bool {
    match look {
        Look::Start | Look::End | Look::StartLF | Look::EndLF => true,
        _ => locale == Locale::C,
    }
}

struct Copier<'h> {
    groups: &'h HashMap<usize, &'h Hir>,
    locale: Locale,
}

impl Copier<'_> {
    fn copy(&self, hir: &Hir) -> Option<Hir> {
        Some(match hir.kind() {
            HirKind::Capture(c) => match marker(c)? {
                Marker::Group(_) => self.copy(&c.sub)?,
                Marker::Reference(n) => {
                    let group = self.groups.get(&n).filter(|g| unconditional(g))?;
                    self.copy(group)?
                }
                Marker::WordChar => return None,
            },
            HirKind::Concat(subs) => Hir::concat(self.copy_all(subs)?),
            HirKind::Alternation(subs) => Hir::alternation(self.copy_all(subs)?),
            HirKind::Repetition(r) => Hir::repetition(Repetition {
                sub: Box::new(operand(self.copy(&r.sub)?)),
                ..r.clone()
            }),
            HirKind::Look(look) if !look_as_gnu(*look, self.locale) => return None,
            HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {
                hir.clone()
            }
        })
    }

    fn copy_all(&self, subs: &[Hir]) -> Option<Vec<Hir>> {
        subs.iter().map(|s| self.copy(s)).collect()
    }
}

/// A repetition's operand, in a group when it is a repetition itself:
/// regex-syntax prints the repetition `(?:a{2})?` as `a{2}?`, which
/// reads back as a lazy `a{2}` (campaign seed 1205: `(a{2})?\1?` took
/// no line without `aaaa`).  The group is a capture, as the HIR has no
/// other; the candidate regex reads no capture without a marker's name.
fn operand(sub: Hir) -> Hir {
    match sub.kind() {
        HirKind::Repetition(_) => Hir::capture(Capture {
            index: 1,
            name: None,
            sub: Box::new(sub),
        }),
        _ => sub,
    }
}

/// Is every group referred to a literal that is a direct part of the
/// top-level concatenation, before every reference to it?
fn is_exact(hir: &Hir) -> bool {
    let parts = match hir.kind() {
        HirKind::Concat(subs) => subs.as_slice(),
        _ => std::slice::from_ref(hir),
    };
    let mut references = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        references_in(part, &mut references, i);
    }
    references.iter().all(|&(n, at)| {
        parts[..at].iter().any(|part| match part.kind() {
            HirKind::Capture(c) => {
                matches!(marker(c), Some(Marker::Group(g)) if g == n)
                    && matches!(c.sub.kind(), HirKind::Literal(_))
            }
            _ => false,
        })
    })
}

/// The references in `hir` (part `at` of the top level), as (group, at).
fn references_in(hir: &Hir, out: &mut Vec<(usize, usize)>, at: usize) {
    match hir.kind() {
        HirKind::Capture(c) => {
            if let Some(Marker::Reference(n)) = marker(c) {
                out.push((n, at));
            }
            references_in(&c.sub, out, at);
        }
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().for_each(|s| references_in(s, out, at));
        }
        HirKind::Repetition(r) => references_in(&r.sub, out, at),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::translate::{translate, Reading};

    fn copied(pattern: &str, locale: Locale, ignore_case: bool) -> Option<Copied> {
        let cfg = crate::grep::backref::tests::cfg(locale, ignore_case);
        let exact = translate(&[pattern.as_bytes().to_vec()], &cfg, Reading::Exact).unwrap();
        copy_groups(&exact.source, &cfg)
    }

    /// Which patterns are copied, and which copies are exact: the
    /// differential tests prove that the copies select the spec's lines;
    /// this pins which of them skip the confirming engine.
    #[test]
    fn literal_groups_before_their_references_are_exact() {
        let exact = |p: &str| copied(p, Locale::C, false).map(|c| c.exact);
        assert_eq!(exact(r"\(s\)entence \1"), Some(true));
        assert_eq!(exact(r"\(sen\)tence.*\1"), Some(true));
        assert_eq!(exact(r"^\(ab\)x\1\1$"), Some(true));
        assert_eq!(exact(r"\(a*\)b\1"), Some(false));
        assert_eq!(exact(r"\(a\)*\1"), Some(false));
        assert_eq!(exact(r"x\(\(a\)\)\2"), Some(false));
        assert_eq!(exact(r"\(a\)\|b\1"), Some(false));
        assert_eq!(exact(r"\(^a\)\1"), None);
        assert_eq!(exact(r"\(a\)\1\b"), Some(true));
        assert_eq!(copied(r"\(a\)\1\b", Locale::Utf8, false), None);
        assert_eq!(copied(r"\(a\)\w\1", Locale::Utf8, false), None);
        assert_eq!(copied(r"\(a\)\1", Locale::C, true), None);
    }
}
