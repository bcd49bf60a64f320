//! Patterns for grep cases: small regexes in GNU's BRE and ERE from the
//! whole grammar (groups and back-references, brackets with ranges,
//! classes, equivalence classes and collating symbols, intervals and
//! their edges, anchors, alternation), `-P` constructs, and pieces that
//! GNU rejects.

use arbitrary::Unstructured;

/// Regex atoms; `\` forms are written for BRE and adapted for ERE.
const ATOMS: &[&str] = &[
    "a",
    "b",
    "o",
    "f",
    "foo",
    "ab",
    ".",
    "[ab]",
    "[^a]",
    "[[:alpha:]]",
    "[[:space:]]",
    "[[:upper:]]",
    "[[:lower:]]",
    "[[:digit:]x]",
    "[[:alnum:]]",
    "[^[:alnum:]_]",
    "[[:punct:]]",
    "[[:xdigit:]]",
    "[[:print:]]",
    "[[:graph:]]",
    "[[:cntrl:]]",
    "[[:blank:]]",
    "[]a]",
    "[a-f]",
    "[[=a=]]",
    "[[=\u{e9}=]]",
    "[[.a.]]",
    "[[.-.]a]",
    "[a[.-.]z]",
    "[[=e=][:digit:]]",
    "[]-a]",
    "[^]]",
    "[a-]",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "x",
    "\u{e9}",
    "_",
    " ",
];
const ANCHORS: &[&str] = &["^", "$", "\\b", "\\B", "\\<", "\\>"];
/// Repetitions, with the interval's edge forms: `{0}`, an open upper
/// bound, an omitted lower one, and (ERE) `{,}`.
const REPEATS_BRE: &[&str] = &[
    "*",
    "\\+",
    "\\?",
    "\\{1,2\\}",
    "\\{2\\}",
    "\\{0,1\\}",
    "\\{0\\}",
    "\\{1,\\}",
    "\\{,2\\}",
    "\\{0,0\\}",
];
const REPEATS_ERE: &[&str] = &[
    "*", "+", "?", "{1,2}", "{2}", "{,1}", "{0}", "{1,}", "{,}", "{0,0}", "{,2}",
];
/// Pieces glibc or GNU's DFA rejects (each with its own message), or
/// that are GNU's edge cases of acceptance, in BRE and ERE spelling.
const ERRORS_BRE: &[&str] = &[
    "a\\{\\}",
    "a\\{2,1\\}",
    "a\\{1",
    "a\\{1,2",
    "a\\{65536\\}",
    "[1-3-5]",
    "[[:foo:]]",
    "[b-a]",
    "[[.ab.]]",
    "[",
    "[^",
    "[a-",
    "\\(",
    "\\)",
    "\\9",
    "**",
    // A brace with no atom before it is a literal (after one, an error).
    // Not `\\{1\\}`: after an anchor GNU's DFA repeats the anchor and
    // glibc reads a brace (docs/differences.md).
    "\\{",
    "\\}",
    // After an anchor only GNU's DFA reads an interval (glibc a brace),
    // so its errors are the DFA's.  (Valid ones repeat the anchor, which
    // glibc reads otherwise: docs/differences.md.)
    "\\<\\{1",
    "\\b\\{2,1\\}",
    "\\>\\{65536\\}",
];
const ERRORS_ERE: &[&str] = &[
    "a{}",
    "a{2,1}",
    "a{1",
    "a{1,2",
    "a{65536}",
    "[1-3-5]",
    "[[:foo:]]",
    "[b-a]",
    "[[.ab.]]",
    "[",
    "[^",
    "[a-",
    "(",
    ")",
    "(*)",
    "(a|*)",
    "\\9",
    "**",
    // Not a leading `{`: glibc skips it, GNU's DFA reads a brace or an
    // interval of nothing (docs/differences.md).
    "}",
    "\\<{65536}",
    "${65536}",
];

/// The groups of the regex being drawn: how many have opened (their
/// numbers), and which have closed (a back-reference may name those).
#[derive(Default)]
struct Groups {
    opened: usize,
    closed: Vec<usize>,
}

/// A small regex in GNU syntax.
fn arbitrary_regex(
    u: &mut Unstructured<'_>,
    ere: bool,
    depth: u32,
    groups: &mut Groups,
) -> arbitrary::Result<String> {
    let mut s = String::new();
    for _ in 0..u.int_in_range(1..=3u8)? {
        let mut repeatable = true;
        match u.int_in_range(0..=10u8)? {
            // GNU's DFA and its regex fallback disagree on a repeated
            // anchor, so none is generated.
            0 => {
                s.push_str(u.choose(ANCHORS)?);
                continue;
            }
            1 if depth < 2 && groups.opened < 9 => {
                groups.opened += 1;
                let number = groups.opened;
                let inner = arbitrary_regex(u, ere, depth + 1, groups)?;
                let other = arbitrary_regex(u, ere, depth + 1, groups)?;
                let (open, bar, close) = if ere {
                    ("(", "|", ")")
                } else {
                    ("\\(", "\\|", "\\)")
                };
                let group = if u.arbitrary()? {
                    format!("{open}{inner}{bar}{other}{close}")
                } else {
                    format!("{open}{inner}{close}")
                };
                groups.closed.push(number);
                // glibc misjudges a repeated group that holds an anchor
                // (`(\\<\\S)+` and `(o*|^b)+\\W` fail where they match), and
                // GNU and our binaries ask glibc for the patterns with
                // word operators in UTF-8 (docs/differences.md,
                // glibc-repeated-anchor).
                repeatable = !ANCHORS.iter().any(|a| group.contains(a));
                s.push_str(&group);
            }
            // A back-reference to a group closed before it.
            2 if !groups.closed.is_empty() => {
                s.push_str(&format!("\\{}", u.choose(&groups.closed)?));
            }
            3 if u.ratio(1, 10)? => {
                s.push_str(u.choose(if ere { ERRORS_ERE } else { ERRORS_BRE })?);
                continue;
            }
            _ => s.push_str(u.choose(ATOMS)?),
        }
        if repeatable && u.ratio(1, 3)? {
            s.push_str(u.choose(if ere { REPEATS_ERE } else { REPEATS_BRE })?);
        }
    }
    Ok(s)
}

/// PCRE2 atoms for `-P`: classes and escapes GNU's dialects lack, and
/// some PCRE2 rejects (an unmatched `)`, a lookbehind of no fixed length,
/// a range out of order, a trailing backslash).
const PERL_ATOMS: &[&str] = &[
    "a",
    "b",
    "o",
    "foo",
    "ab",
    ".",
    "[ab]",
    "[^a]",
    "[a-f]",
    "\\d",
    "\\D",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\h",
    "\\N",
    "\\x{e9}",
    "\\xe9",
    "\\p{L}",
    "\\p{Lu}",
    "[[:alpha:]]",
    "\\Qa.\\E",
    "\u{e9}",
    "\u{c9}",
    "_",
    " ",
    "\\.",
    "x1",
    "\\C",
    "(?i)f",
    "\\0",
    // What the scan for a required literal (impl/src/grep/perl.rs) must
    // read right: a class holding `)`, escaped parentheses, a `{` that
    // opens no count, `\c` taking the next byte.
    "[])]",
    "\\)",
    "o{x}",
    "\\c(",
];
const PERL_ANCHORS: &[&str] = &["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z", "\\G", "\\K"];
const PERL_REPEATS: &[&str] = &[
    "*", "+", "?", "*?", "+?", "??", "{1,2}", "{2}", "*+", "{,1}",
];
const PERL_ERRORS: &[&str] = &[
    ")",
    "(?<=a+)",
    "[b-a]",
    "\\",
    "(?<n>a)\\k<m>",
    "*",
    "(?P<",
    "\\8",
    // Meets PCRE2's backtracking limit on a run of `a`s that ends
    // otherwise (an input token).
    "(a+)+$",
];

/// A small regex in PCRE2 syntax.
fn arbitrary_perl(
    u: &mut Unstructured<'_>,
    depth: u32,
    groups: &mut Groups,
) -> arbitrary::Result<String> {
    let mut s = String::new();
    for _ in 0..u.int_in_range(1..=3u8)? {
        let mut repeatable = true;
        match u.int_in_range(0..=12u8)? {
            0 => {
                s.push_str(u.choose(PERL_ANCHORS)?);
                repeatable = false;
            }
            1 if u.ratio(1, 8)? => {
                s.push_str(u.choose(PERL_ERRORS)?);
                repeatable = false;
            }
            2 | 3 if depth < 2 && groups.opened < 9 => {
                // A group of one kind or another, maybe with an alternative.
                let kind = *u.choose(&["(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"])?;
                if kind == "(" {
                    groups.opened += 1;
                }
                let number = groups.opened;
                let inner = arbitrary_perl(u, depth + 1, groups)?;
                let group = if u.arbitrary()? {
                    let other = arbitrary_perl(u, depth + 1, groups)?;
                    format!("{kind}{inner}|{other})")
                } else {
                    format!("{kind}{inner})")
                };
                if kind == "(" {
                    groups.closed.push(number);
                }
                s.push_str(&group);
            }
            4 if !groups.closed.is_empty() => {
                s.push_str(&format!("\\{}", u.choose(&groups.closed)?));
            }
            5 if depth == 0 => s.push('|'),
            _ => s.push_str(u.choose(PERL_ATOMS)?),
        }
        if repeatable && u.ratio(1, 3)? {
            s.push_str(u.choose(PERL_REPEATS)?);
        }
    }
    Ok(s)
}

/// A pattern: a piece of some input, or a small regex.
pub(super) fn arbitrary_pattern(
    u: &mut Unstructured<'_>,
    inputs: &[Vec<u8>],
    syntax: u8,
) -> arbitrary::Result<Vec<u8>> {
    let from_input = !inputs.is_empty() && u.ratio(1, 2)?;
    if from_input {
        let data = u.choose(inputs)?;
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let start = u.int_in_range(0..=data.len() - 1)?;
        let len = u.int_in_range(0..=6usize.min(data.len() - start))?;
        let piece: Vec<u8> = data[start..start + len]
            .iter()
            .copied()
            .filter(|&b| b != b'\n')
            .collect();
        return Ok(piece);
    }
    let mut groups = Groups::default();
    let mut pattern = match syntax {
        3 => arbitrary_perl(u, 0, &mut groups)?,
        _ => arbitrary_regex(u, syntax == 1, 0, &mut groups)?,
    };
    if syntax < 2 && u.ratio(1, 40)? {
        // Trailing backslash.
        pattern.push('\\');
    }
    Ok(pattern.into_bytes())
}
