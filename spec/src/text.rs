//! Character classes as GNU tools see them in the two locales we support.
//!
//! The C locale is single-byte: `isprint` is 0x20..=0x7E and `isspace` is
//! `' '` and `\t \n \v \f \r`.  In the UTF-8 locale, ASCII bytes keep those
//! classes and other characters follow glibc's `iswspace`, with display
//! widths from the `unicode-width` table (see docs/differences.md for where
//! that table and glibc's `wcwidth` disagree).

/// glibc's `iswspace` beyond ASCII in a UTF-8 locale (glibc 2.36, read off
/// C.UTF-8 with `iswspace` for every code point).  The no-break spaces are
/// deliberately absent: glibc does not count them as white space.
pub const WIDE_SPACES: &[char] = &[
    '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}',
    '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}', '\u{205F}', '\u{3000}',
];

/// The no-break spaces that coreutils treats as word separators unless
/// `POSIXLY_CORRECT` is set (coreutils `c32isnbspace`).
const NO_BREAK_SPACES: &[char] = &['\u{00A0}', '\u{2007}', '\u{202F}', '\u{2060}'];

/// `isspace` in the C locale (and for ASCII in UTF-8).
pub fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// `isprint` in the C locale (and for ASCII in UTF-8).
pub fn is_ascii_printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// glibc `iswspace` for a character of a UTF-8 locale.
pub fn is_wide_space(c: char) -> bool {
    if c.is_ascii() {
        is_ascii_space(c as u8)
    } else {
        WIDE_SPACES.contains(&c)
    }
}

/// coreutils `c32isnbspace`.
pub fn is_no_break_space(c: char) -> bool {
    NO_BREAK_SPACES.contains(&c)
}

/// Display width of a printable character, 0 for a non-printable one
/// (`max(wcwidth(c), 0)`).
pub fn display_width(c: char) -> u64 {
    if c.is_ascii() {
        return u64::from(is_ascii_printable(c as u8));
    }
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) as u64
}

/// `iswprint` as far as quoting file names is concerned.
pub fn is_printable_wide(c: char) -> bool {
    if c.is_ascii() {
        return is_ascii_printable(c as u8);
    }
    !c.is_control() && c != '\u{2028}' && c != '\u{2029}'
}

/// Decode the character at the start of `bytes` as glibc's `mbrtoc32` does
/// in a UTF-8 locale: its code point and length, or `None` if the first byte
/// does not start a complete valid sequence.
///
/// glibc accepts the original (pre-RFC 3629) UTF-8: lead bytes 0xF0..=0xF7
/// take 4 bytes, 0xF8..=0xFB take 5 and 0xFC..=0xFD take 6, so code points up
/// to 0x7FFFFFFF decode.  Overlong forms and surrogates are errors.
pub fn decode_one(bytes: &[u8]) -> Option<(u32, usize)> {
    let lead = *bytes.first()?;
    let (len, lowest) = match lead {
        0x00..=0x7f => return Some((u32::from(lead), 1)),
        0xc2..=0xdf => (2, 0x80),
        0xe0..=0xef => (3, 0x800),
        0xf0..=0xf7 => (4, 0x1_0000),
        0xf8..=0xfb => (5, 0x20_0000),
        0xfc..=0xfd => (6, 0x400_0000),
        _ => return None,
    };
    let mut code = u32::from(lead) & (0x7f >> len);
    for i in 1..len {
        let b = *bytes.get(i)?;
        if b & 0xc0 != 0x80 {
            return None;
        }
        code = (code << 6) | u32::from(b & 0x3f);
    }
    if code < lowest || (0xd800..=0xdfff).contains(&code) {
        return None;
    }
    Some((code, len))
}

/// Length of the valid sequence at the start of `bytes`, if there is one.
pub fn utf8_sequence_len(bytes: &[u8]) -> Option<usize> {
    decode_one(bytes).map(|(_, n)| n)
}

/// One unit of decoded text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A character of the UTF-8 locale.
    Char(char),
    /// A character glibc decodes beyond U+10FFFF: a character, of width 0,
    /// not white space, never printable.
    OutOfRange(u32),
    /// In the C locale every byte is a character; this carries it.
    Byte(u8),
    /// An encoding error in the UTF-8 locale: one byte that does not start a
    /// complete valid sequence.  glibc's `mbrtoc32` reports these one byte at
    /// a time and decoding restarts at the next byte.
    Invalid(u8),
}

/// Decode `data` the way `mbrtoc32` does in the given locale.
pub fn decode(data: &[u8], locale: crate::Locale) -> Vec<Unit> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if locale == crate::Locale::C {
            out.push(Unit::Byte(data[i]));
            i += 1;
            continue;
        }
        match decode_one(&data[i..]) {
            Some((code, n)) => {
                out.push(match char::from_u32(code) {
                    Some(c) => Unit::Char(c),
                    None => Unit::OutOfRange(code),
                });
                i += n;
            }
            None => {
                out.push(Unit::Invalid(data[i]));
                i += 1;
            }
        }
    }
    out
}
