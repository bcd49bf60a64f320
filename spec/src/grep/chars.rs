//! Characters as GNU grep sees them in a line, in the C and UTF-8 locales.
//!
//! - In C every byte is a character.  Classes are the C locale's, which
//!   POSIX fixes to ASCII; a byte above 0x7F belongs to none of them.
//! - In UTF-8 the character at a position is what glibc's `mbrtowc`
//!   decodes there (`crate::text::decode_one`).  Where it decodes nothing,
//!   the byte there is an *encoding error*: it is matched only by the same
//!   byte written in the pattern, never by `.`, a bracket or `\W`.  Classes,
//!   word constituents and case come from glibc's C.UTF-8 tables
//!   (`samebytes_clocale`), as GNU's do after `setlocale`.
//! - A word constituent is an alphanumeric character or `_` (GNU's
//!   `wordchar`); a combining mark is not one.

use crate::text::decode_one;
use crate::Locale;

/// What a line holds at one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A character and the bytes it takes.
    Char(u32, usize),
    /// One byte that is no character (UTF-8 only).
    Error(u8),
}

/// The unit that starts at `line[at..]` (which must not be empty).
pub fn unit_at(line: &[u8], at: usize, locale: Locale) -> Unit {
    match locale {
        Locale::C => Unit::Char(u32::from(line[at]), 1),
        Locale::Utf8 => match decode_one(&line[at..]) {
            Some((c, n)) => Unit::Char(c, n),
            None => Unit::Error(line[at]),
        },
    }
}

pub fn unit_len(unit: Unit) -> usize {
    match unit {
        Unit::Char(_, n) => n,
        Unit::Error(_) => 1,
    }
}

/// Is `class` (one of the POSIX names) true of character `c`?  `None`
/// for a name that is no class.
pub fn in_class(class: &str, c: u32, locale: Locale) -> Option<bool> {
    match locale {
        Locale::Utf8 => samebytes_clocale::utf8_iswctype(class, c),
        Locale::C => {
            let b = u8::try_from(c).ok().filter(u8::is_ascii);
            let is = |test: fn(&u8) -> bool| b.is_some_and(|b| test(&b));
            Some(match class {
                "alpha" => is(u8::is_ascii_alphabetic),
                "digit" => is(u8::is_ascii_digit),
                "alnum" => is(u8::is_ascii_alphanumeric),
                "upper" => is(u8::is_ascii_uppercase),
                "lower" => is(u8::is_ascii_lowercase),
                // \t \n \v \f \r and the space.
                "space" => b.is_some_and(|b| matches!(b, b'\t'..=b'\r' | b' ')),
                "blank" => b.is_some_and(|b| b == b' ' || b == b'\t'),
                "punct" => is(u8::is_ascii_punctuation),
                "print" => b.is_some_and(|b| (b' '..=b'~').contains(&b)),
                "graph" => is(u8::is_ascii_graphic),
                "cntrl" => is(u8::is_ascii_control),
                "xdigit" => is(u8::is_ascii_hexdigit),
                _ => return None,
            })
        }
    }
}

/// A word constituent: alphanumeric or `_`.
pub fn is_word_char(c: u32, locale: Locale) -> bool {
    c == u32::from(b'_') || in_class("alnum", c, locale) == Some(true)
}

/// Is this unit a word constituent?  An encoding error never is.
pub fn is_word_unit(unit: Option<Unit>, locale: Locale) -> bool {
    matches!(unit, Some(Unit::Char(c, _)) if is_word_char(c, locale))
}

/// Is this unit a word constituent for `\b`, `\B`, `\<` and `\>`?  GNU
/// leaves these to glibc's regex, which reads a byte that is no character
/// as the code point of the same value (`\xE9` as U+00E9, a letter).
pub fn is_word_unit_for_boundary(unit: Option<Unit>, locale: Locale) -> bool {
    match unit {
        Some(Unit::Char(c, _)) => is_word_char(c, locale),
        Some(Unit::Error(b)) => is_word_char(u32::from(b), locale),
        None => false,
    }
}

/// The upper case of `c` (`towupper`, `toupper` in C).  With `-i`, GNU
/// compares characters by their upper case.
pub fn upper(c: u32, locale: Locale) -> u32 {
    match locale {
        Locale::Utf8 => samebytes_clocale::utf8_towupper(c),
        Locale::C => match u8::try_from(c) {
            Ok(b) => u32::from(b.to_ascii_uppercase()),
            Err(_) => c,
        },
    }
}

/// The lower case of an ASCII letter in C; anything else is itself.
pub fn c_lower(c: u32) -> u32 {
    match u8::try_from(c) {
        Ok(b) => u32::from(b.to_ascii_lowercase()),
        Err(_) => c,
    }
}
