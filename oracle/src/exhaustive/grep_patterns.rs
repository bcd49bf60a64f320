//! grep's matchers, exhaustively: every pattern of up to one, two or
//! three tokens (three grids, `grep-tokens1` to `grep-tokens3`) of a small
//! grammar ([`TOKENS`]: literals with and without case
//! pairs, `.`, a bracket, `*`, an interval, both anchors, `\<`, `\b`, `\w`,
//! a group and a back-reference), in each of `-G`, `-E`, `-F` and `-P`,
//! with and without `-i`, alone and under `-o`, `-w` and `-x`, in the C
//! and the UTF-8 locale, on every input over [`ALPHABET`] up to the bound:
//! multibyte characters of two, three and four bytes, a lone continuation
//! byte, a truncated character, a form only glibc's `.` takes, and case
//! pairs with a non-ASCII fold.
//!
//! The line handling around the matcher is `super::grep`'s grid; here
//! each input is a regular file searched whole, streamed and mapped, at
//! the binaries' buffer size.  The grid is large (over 100,000 option
//! sets), so the checker goes option set by option set, with one prepared
//! command line per worker.

use super::grep::{files_holding, grid_case, prepared};
use super::{byte_members, Alphabet, Checker, Symbol, Tally};
use crate::grep::{run_impl_prepared, FileStrategy, GrepCase};
use crate::mismatch::{compare_in_order, Mismatch};

/// A grammar token, spelled for each syntax: BRE, ERE, PCRE.  `-F` takes
/// the BRE spelling as literal text.
pub struct Token {
    pub name: &'static str,
    pub bre: &'static str,
    pub ere: &'static str,
    pub pcre: &'static str,
}

const fn same(name: &'static str, s: &'static str) -> Token {
    Token {
        name,
        bre: s,
        ere: s,
        pcre: s,
    }
}

/// The tokens.  Any sequence of them is a pattern, the ones GNU refuses
/// (`*` first in an ERE is fine, `\1` without a group is not) included:
/// their messages are checked too.
pub static TOKENS: &[Token] = &[
    same("a", "a"),
    same("s", "s"),
    same("é", "é"),
    same(".", "."),
    same("[^a]", "[^a]"),
    same("*", "*"),
    Token {
        name: "{1,2}",
        bre: "\\{1,2\\}",
        ere: "{1,2}",
        pcre: "{1,2}",
    },
    same("^", "^"),
    same("$", "$"),
    Token {
        name: "\\<",
        bre: "\\<",
        ere: "\\<",
        // PCRE2 has no start-of-word escape: its nearest is \b before a
        // word character.
        pcre: "\\b(?=\\w)",
    },
    same("\\b", "\\b"),
    same("\\w", "\\w"),
    Token {
        name: "(a)",
        bre: "\\(a\\)",
        ere: "(a)",
        pcre: "(a)",
    },
    same("\\1", "\\1"),
];

/// A repetition (`*`, `{1,2}`) that repeats nothing (the pattern's
/// first token) or an anchor (`^`, `$`, `\<`, `\b`): the reference reads
/// it as GNU's DFA does (it repeats the anchor, or is a literal or
/// nothing, with GNU's warning), while GNU, and the binaries with it, ask
/// glibc's regex for such a pattern's lines in UTF-8 where the DFA cannot
/// decide (word operators, encoding errors), and glibc reads it
/// otherwise.  docs/differences.md, "A repetition applied to an anchor"
/// and "A leading `{` in an ERE"; left out.
pub fn repeats_an_anchor(seq: &[usize]) -> bool {
    let is = |t: usize, names: &[&str]| names.contains(&TOKENS[t].name);
    let repetition = |t: usize| is(t, &["*", "{1,2}"]);
    seq.first().is_some_and(|&t| repetition(t))
        || seq
            .windows(2)
            .any(|w| is(w[0], &["^", "$", "\\<", "\\b"]) && repetition(w[1]))
}

/// Every sequence of 1 to `max` tokens, as token indices, but those that
/// [repeat an anchor](repeats_an_anchor).
pub fn token_sequences(max: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    let mut all = Vec::new();
    for _ in 0..max {
        out = out
            .iter()
            .flat_map(|seq| {
                (0..TOKENS.len()).map(move |t| {
                    let mut s = seq.clone();
                    s.push(t);
                    s
                })
            })
            .collect();
        all.extend(out.iter().filter(|s| !repeats_an_anchor(s)).cloned());
    }
    all
}

/// The syntaxes, as grep's options.
const SYNTAXES: [&str; 4] = ["-G", "-E", "-F", "-P"];

/// What surrounds the matcher: nothing, `-o`, `-w`, `-x`.
const MODES: [&[u8]; 4] = [b"", b"-o", b"-w", b"-x"];

/// The bytes of the tokens' spellings: under -F they are text, so each
/// is named by some pattern.
const GRAMMAR_BYTES: &[u8] = b"^$.[]*\\{}(),<=?!bw12";

/// Continuation bytes that are not like the others: those of `é`, `É`
/// and `ſ` (which -F names in C), and 0xAA, 0xB5 and 0xBA, which glibc
/// takes for the Latin-1 letters ª, µ and º when it looks for a word
/// boundary.
const LATIN1_QUIRKS: &[u8] = &[0x89, 0xa9, 0xaa, 0xb5, 0xba, 0xbf];

/// The classes grep's matchers tell apart under [`TOKENS`].
pub static ALPHABET: Alphabet = &[
    Symbol {
        name: "a",
        rep: b"a",
        members: || vec![b"a".to_vec()],
        why: "the letter the patterns name (its pair `A` is not enumerated)",
    },
    Symbol {
        name: "s",
        rep: b"s",
        members: || vec![b"s".to_vec()],
        why: "the letter the patterns name whose case pair includes `ſ` under -i",
    },
    Symbol {
        name: "S",
        rep: b"S",
        members: || vec![b"S".to_vec()],
        why: "the upper case of `s`",
    },
    Symbol {
        name: "word",
        rep: b"x",
        members: || {
            byte_members(
                &[
                    (b'0', b'9'),
                    (b'B', b'R'),
                    (b'T', b'Z'),
                    (b'_', b'_'),
                    (b'b', b'r'),
                    (b't', b'z'),
                ],
                GRAMMAR_BYTES,
            )
        },
        why: "an ASCII word constituent that no pattern names (under -F the tokens' spellings \
              are text: `\\b`, `\\w`, `\\1`, `{1,2}` name b, w, 1 and 2) and no pattern's letter \
              folds to",
    },
    Symbol {
        name: "other",
        rep: b" ",
        members: || byte_members(super::grep::ASCII_NON_WORD, GRAMMAR_BYTES),
        why: "an ASCII character that is no word constituent, newline or NUL, and no byte of a \
              token's spelling (which -F takes as text)",
    },
    Symbol {
        name: "nl",
        rep: b"\n",
        members: || vec![b"\n".to_vec()],
        why: "ends a line",
    },
    Symbol {
        name: "nul",
        rep: b"\0",
        members: || vec![b"\0".to_vec()],
        why: "makes a file binary",
    },
    Symbol {
        name: "cont",
        rep: b"\x80",
        members: || byte_members(&[(0x80, 0xbf)], LATIN1_QUIRKS),
        why: "a continuation byte alone: an encoding error in UTF-8, a non-word byte in C; but \
              the bytes of `é`, `É` and `ſ` (which -F names in C) and 0xAA, 0xB5 and 0xBA (which \
              glibc takes for the Latin-1 letters ª, µ and º at a word boundary)",
    },
    Symbol {
        name: "bad",
        rep: b"\xff",
        members: || byte_members(&[(0xc0, 0xc1), (0xfe, 0xff)], &[]),
        why: "a byte that starts no character, not even one of glibc's long forms (whose leads \
              0xF8 to 0xFD `-P`'s search does not step over)",
    },
    Symbol {
        name: "é",
        rep: "é".as_bytes(),
        members: || vec!["é".as_bytes().to_vec()],
        why: "the two-byte letter the patterns name",
    },
    Symbol {
        name: "É",
        rep: "É".as_bytes(),
        members: || vec!["É".as_bytes().to_vec()],
        why: "the upper case of `é`",
    },
    Symbol {
        name: "ſ",
        rep: "ſ".as_bytes(),
        members: || vec!["ſ".as_bytes().to_vec()],
        why: "long s, which folds to `s` under -i",
    },
    Symbol {
        name: "trunc",
        rep: b"\xf0\x9f\x98",
        members: || vec![b"\xf0\x9f\x98".to_vec()],
        why: "the first three bytes of a four-byte character: an encoding error (three in C); \
              with any `cont` after it, one of the emoji U+1F600 to U+1F63F, none a word \
              character, so that `cont`'s members stay alike after it too",
    },
    Symbol {
        name: "letter3",
        rep: "中".as_bytes(),
        members: || {
            (0x4e00u32..0x4e40)
                .filter_map(char::from_u32)
                .map(|c| c.to_string().into_bytes())
                .collect()
        },
        why: "a three-byte letter without case: a word character in UTF-8",
    },
    Symbol {
        name: "char4",
        rep: "😀".as_bytes(),
        members: || {
            (0x1f600u32..0x1f640)
                .filter_map(char::from_u32)
                .map(|c| c.to_string().into_bytes())
                .collect()
        },
        why: "a four-byte character that is no word character",
    },
    Symbol {
        name: "long",
        rep: b"\xf8\x88\x80\x80\x80",
        members: || vec![b"\xf8\x88\x80\x80\x80".to_vec()],
        why: "a five-byte form, which glibc's `.` takes for a character",
    },
];

/// Option set `index` of the grid of patterns up to `tokens` tokens: the
/// pattern, the syntax, the mode, `-i` and the locale, from the least
/// significant part of the index up.
fn option_set(tokens: usize, index: usize) -> (bool, Vec<Vec<u8>>) {
    let sequences = sequences(tokens);
    let mut rest = index;
    let seq = &sequences[rest % sequences.len()];
    rest /= sequences.len();
    let syntax = rest % SYNTAXES.len();
    rest /= SYNTAXES.len();
    let mode = MODES[rest % MODES.len()];
    rest /= MODES.len();
    let icase = rest % 2 == 1;
    let utf8 = rest / 2 == 1;
    let pattern: String = seq
        .iter()
        .map(|&t| {
            let tok = &TOKENS[t];
            match syntax {
                0 | 2 => tok.bre,
                1 => tok.ere,
                _ => tok.pcre,
            }
        })
        .collect();
    let mut args = vec![SYNTAXES[syntax].as_bytes().to_vec()];
    if icase {
        args.push(b"-i".to_vec());
    }
    if !mode.is_empty() {
        args.push(mode.to_vec());
    }
    args.extend([b"-e".to_vec(), pattern.into_bytes(), b"f".to_vec()]);
    (utf8, args)
}

fn sequences(tokens: usize) -> &'static [Vec<usize>] {
    static ALL: [std::sync::OnceLock<Vec<Vec<usize>>>; 4] =
        [const { std::sync::OnceLock::new() }; 4];
    ALL[tokens].get_or_init(|| token_sequences(tokens))
}

/// The grid of patterns of 1 to `tokens` tokens (1, 2 or 3): the longer
/// the patterns, the smaller the bound the grid affords.
pub struct GrepPatternsChecker {
    pub tokens: usize,
}

impl GrepPatternsChecker {
    fn case(&self, input: &[u8], index: usize) -> GrepCase {
        let (utf8, args) = option_set(self.tokens, index);
        let buffer = samebytes::grep::GrepConfig::default().buffer;
        grid_case(args, utf8, files_holding(&[b"f"], input), buffer)
    }
}

impl Checker for GrepPatternsChecker {
    fn tool(&self) -> &'static str {
        ["grep-tokens1", "grep-tokens2", "grep-tokens3"][self.tokens - 1]
    }

    fn alphabet(&self) -> Alphabet {
        ALPHABET
    }

    fn option_count(&self) -> usize {
        sequences(self.tokens).len() * SYNTAXES.len() * MODES.len() * 2 * 2
    }

    fn option_sets(&self) -> String {
        format!(
            "every pattern of 1 to {} of {} tokens × -G -E -F -P × ±-i × none, -o, -w, -x × C and UTF-8",
            self.tokens,
            TOKENS.len()
        )
    }

    fn option_major(&self) -> bool {
        true
    }

    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome {
        self.case(input, index).spec_outcome()
    }

    /// The file searched whole, streamed and mapped.
    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        _n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let case = self.case(input, index);
        let expected = case.spec_outcome();
        tally.spec();
        let prepared = prepared(&case);
        for strategy in [FileStrategy::Stream, FileStrategy::Mapped] {
            let actual = run_impl_prepared(&case, strategy, &prepared);
            tally.run();
            let variant = format!("{strategy:?}");
            compare_in_order("grep", &variant, &expected, &actual, &|| case.reproducer())?;
        }
        Ok(())
    }

    /// The matchers do not care where a line lies: the `grep` grid's
    /// shifted runs cover the searcher's lanes.
    fn has_shifted_mode(&self) -> bool {
        false
    }
}
