//! `--include`, `--exclude`, `--exclude-from` and `--exclude-dir`, as GNU
//! grep 3.8 applies them (gnulib's `exclude.c` over glibc's `fnmatch`).
//!
//! - A pattern with a wildcard (`*`, `?` or `[`, not escaped) is matched
//!   by `fnmatch` with no flags: `*` and `?` cross `/` and match a leading
//!   `.`, `\` quotes the next character.  In the UTF-8 locale glibc 2.36's
//!   `fnmatch` matches when the pattern matches the name's characters or,
//!   failing that, its bytes (seen on this machine: `??` matches `é` and
//!   so does `?`; `?` matches the lone byte `\xff`).  Any other pattern,
//!   backslashes removed, must equal the name byte for byte.
//! - Inside a walk, patterns are matched against an entry's own name.
//!   Against a command-line name they are matched against the whole name
//!   and against what follows each `/` in it (unanchored).
//! - The last `--include`/`--exclude` that matches decides; when none
//!   does, a file is skipped only if the first of them is `--include`.
//!   `--exclude-dir` patterns have their trailing slashes removed.

use crate::text::decode_one;
use crate::Locale;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterKind {
    Include,
    Exclude,
}

/// One `--include` or `--exclude` pattern (or a line of an
/// `--exclude-from` file).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    pub kind: FilterKind,
    pub pattern: Vec<u8>,
}

/// Do `filters` (in command-line order) skip `name`?  `anchored`: `name`
/// is an entry's own name; otherwise it is a command-line name.
pub fn excluded(filters: &[Filter], name: &[u8], anchored: bool, locale: Locale) -> bool {
    let Some(first) = filters.first() else {
        return false;
    };
    match filters
        .iter()
        .rev()
        .find(|f| pattern_matches(&f.pattern, name, anchored, locale))
    {
        Some(f) => f.kind == FilterKind::Exclude,
        None => first.kind == FilterKind::Include,
    }
}

/// The patterns of an `--exclude-from` file: one per line, trailing white
/// space removed, empty ones left out.
pub fn exclude_file_patterns(data: &[u8]) -> Vec<Vec<u8>> {
    data.split(|&b| b == b'\n')
        .map(|line| {
            let keep = line
                .iter()
                .rposition(|b| !b" \t\n\x0b\x0c\r".contains(b))
                .map_or(0, |p| p + 1);
            line[..keep].to_vec()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// `--exclude-dir`'s argument without its trailing slashes (a lone `/`
/// stays).
pub fn strip_trailing_slashes(pattern: &[u8]) -> Vec<u8> {
    let mut end = pattern.len();
    while end > 1 && pattern[end - 1] == b'/' {
        end -= 1;
    }
    pattern[..end].to_vec()
}

fn pattern_matches(pattern: &[u8], name: &[u8], anchored: bool, locale: Locale) -> bool {
    let wild = has_wildcards(pattern);
    let literal = unescape(pattern);
    let one = |candidate: &[u8]| match wild {
        true => fnmatch(pattern, candidate, locale),
        false => candidate == literal.as_slice(),
    };
    if one(name) {
        return true;
    }
    if anchored {
        return false;
    }
    // Every tail after a `/`; the wildcard matcher skips the tails that
    // start with another `/`, the literal one does not.
    (0..name.len())
        .filter(|&i| name[i] == b'/')
        .filter(|&i| !wild || name.get(i + 1) != Some(&b'/'))
        .any(|i| one(&name[i + 1..]))
}

fn has_wildcards(pattern: &[u8]) -> bool {
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' => i += 2,
            b'?' | b'*' | b'[' => return true,
            _ => i += 1,
        }
    }
    false
}

/// A backslash quotes the next byte.
fn unescape(pattern: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        if pattern[i] == b'\\' && i + 1 < pattern.len() {
            i += 1;
        }
        out.push(pattern[i]);
        i += 1;
    }
    out
}

/// The characters of `bytes` in this locale, or `None` when they are not
/// valid there.
fn chars(bytes: &[u8], locale: Locale) -> Option<Vec<u32>> {
    if locale == Locale::C {
        return Some(bytes.iter().map(|&b| u32::from(b)).collect());
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (c, n) = decode_one(&bytes[at..])?;
        out.push(c);
        at += n;
    }
    Some(out)
}

/// glibc's `fnmatch (pattern, name, 0)`: by characters, else by bytes.
pub fn fnmatch(pattern: &[u8], name: &[u8], locale: Locale) -> bool {
    let by_chars = match (chars(pattern, locale), chars(name, locale)) {
        (Some(p), Some(n)) => match_from(&p, &n, locale),
        _ => false,
    };
    by_chars || {
        let bytes = |b: &[u8]| b.iter().map(|&c| u32::from(c)).collect::<Vec<u32>>();
        match_from(&bytes(pattern), &bytes(name), Locale::C)
    }
}

const BACKSLASH: u32 = b'\\' as u32;

fn match_from(p: &[u32], s: &[u32], locale: Locale) -> bool {
    let Some(&c) = p.first() else {
        return s.is_empty();
    };
    let rest = &p[1..];
    match char::from_u32(c) {
        Some('?') => !s.is_empty() && match_from(rest, &s[1..], locale),
        Some('*') => {
            let rest = &p[p.iter().take_while(|&&c| c == u32::from(b'*')).count()..];
            (0..=s.len()).any(|i| match_from(rest, &s[i..], locale))
        }
        Some('[') => match bracket(rest, locale) {
            Some((set, after)) => {
                s.first().is_some_and(|&ch| set.contains(ch, locale))
                    && match_from(after, &s[1..], locale)
            }
            // No closing `]`: the `[` is an ordinary character.
            None => s.first() == Some(&c) && match_from(rest, &s[1..], locale),
        },
        // A trailing backslash matches nothing.
        Some('\\') => match rest.first() {
            Some(&q) => s.first() == Some(&q) && match_from(&rest[1..], &s[1..], locale),
            None => false,
        },
        _ => s.first() == Some(&c) && match_from(rest, &s[1..], locale),
    }
}

/// A bracket expression's members.
struct Bracket {
    negated: bool,
    items: Vec<Item>,
}

enum Item {
    One(u32),
    Range(u32, u32),
    Class(String),
}

impl Bracket {
    fn contains(&self, ch: u32, locale: Locale) -> bool {
        let hit = self.items.iter().any(|item| match item {
            Item::One(c) => *c == ch,
            Item::Range(a, b) => *a <= ch && ch <= *b,
            Item::Class(name) => super::chars::in_class(name, ch, locale) == Some(true),
        });
        hit != self.negated
    }
}

/// Parse a bracket expression whose `[` came just before `p`: its members
/// and the pattern after its `]`, or `None` if it never closes (or names a
/// class that does not exist, which glibc treats the same way here).
fn bracket(p: &[u32], locale: Locale) -> Option<(Bracket, &[u32])> {
    let _ = locale;
    let is = |i: usize, c: u8| p.get(i) == Some(&u32::from(c));
    let mut i = 0;
    let negated = is(0, b'!') || is(0, b'^');
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let &c = p.get(i)?;
        if c == u32::from(b']') && !first {
            return Some((Bracket { negated, items }, &p[i + 1..]));
        }
        first = false;
        if c == u32::from(b'[') && is(i + 1, b':') {
            let start = i + 2;
            let len = p[start..]
                .windows(2)
                .position(|w| w == [u32::from(b':'), u32::from(b']')])?;
            let name: String = p[start..start + len]
                .iter()
                .filter_map(|&c| char::from_u32(c))
                .collect();
            super::chars::in_class(&name, 0, locale)?;
            items.push(Item::Class(name));
            i = start + len + 2;
            continue;
        }
        let (lo, next) = match c {
            BACKSLASH => (*p.get(i + 1)?, i + 2),
            _ => (c, i + 1),
        };
        if is(next, b'-') && p.get(next + 1).is_some_and(|&d| d != u32::from(b']')) {
            let (hi, after) = match p[next + 1] {
                BACKSLASH => (*p.get(next + 2)?, next + 3),
                d => (d, next + 2),
            };
            items.push(Item::Range(lo, hi));
            i = after;
        } else {
            items.push(Item::One(lo));
            i = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(kind: FilterKind, p: &str) -> Filter {
        Filter {
            kind,
            pattern: p.as_bytes().to_vec(),
        }
    }

    #[test]
    fn the_last_matching_filter_decides() {
        use FilterKind::*;
        let ex_inc = [f(Exclude, "a*"), f(Include, "*a")];
        let inc_ex = [f(Include, "*a"), f(Exclude, "a*")];
        let skipped = |fs: &[Filter], n: &str| excluded(fs, n.as_bytes(), true, Locale::C);
        // As GNU 3.8 printed on this machine for alpha, zeta, mid and a.
        assert!(!skipped(&ex_inc, "alpha") && !skipped(&ex_inc, "mid"));
        assert!(skipped(&inc_ex, "alpha") && skipped(&inc_ex, "mid"));
        assert!(!skipped(&inc_ex, "zeta"));
    }

    #[test]
    fn fnmatch_as_glibc_with_no_flags() {
        let m = |p: &str, n: &str| fnmatch(p.as_bytes(), n.as_bytes(), Locale::Utf8);
        assert!(m("*.c", "d/x.c") && m("*", ".hidden") && m("?", "é"));
        assert!(m("[!a-c]x", "dx") && !m("[!a-c]x", "bx") && m("[]]", "]"));
        assert!(m("[[:digit:]]", "7") && m("a[", "a[") && m("\\*", "*"));
        assert!(!m("\\*", "a") && !m("x\\", "x\\"));
        assert!(
            fnmatch(b"*", b"\xff", Locale::Utf8) && fnmatch(b"??", "é".as_bytes(), Locale::Utf8)
        );
        assert!(!fnmatch(b"??", "€".as_bytes(), Locale::Utf8));
    }
}
