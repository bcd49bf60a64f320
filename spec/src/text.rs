//! Character classes as GNU tools see them in the two locales we support.
//!
//! The C locale is single-byte: `isprint` is 0x20..=0x7E and `isspace` is
//! `' '` and `\t \n \v \f \r` (glibc's C locale; `tests/ctype_walk.rs`
//! checks both against the C library for all 256 bytes).  In the UTF-8
//! locale ASCII keeps those classes, and every other character's
//! printability, display width and white space are the C library's own
//! answers (`iswprint`, `wcwidth`, `iswspace` in C.UTF-8), asked through
//! `samebytes-clocale` exactly as GNU asks after `setlocale`.

use samebytes_clocale::{utf8_iswprint, utf8_iswspace, utf8_wcwidth};

/// The no-break spaces that coreutils treats as word separators unless
/// `POSIXLY_CORRECT` is set (gnulib `c32isnbspace`, a fixed list rather
/// than locale data).
const NO_BREAK_SPACES: &[u32] = &[0x00A0, 0x2007, 0x202F, 0x2060];

/// `isspace` in the C locale (and for ASCII in UTF-8).
pub fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// `isprint` in the C locale (and for ASCII in UTF-8).
pub fn is_ascii_printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// `iswspace` for a character of the UTF-8 locale (any decoded code point,
/// including those glibc decodes beyond U+10FFFF).
pub fn is_wide_space(code: u32) -> bool {
    match u8::try_from(code) {
        Ok(b) if b.is_ascii() => is_ascii_space(b),
        _ => utf8_iswspace(code),
    }
}

/// coreutils `c32isnbspace`.
pub fn is_no_break_space(code: u32) -> bool {
    NO_BREAK_SPACES.contains(&code)
}

/// Display width of a character: `wcwidth`, or 0 where it says −1 (not
/// printable).  GNU wc adds only positive widths.
pub fn display_width(code: u32) -> u64 {
    match u8::try_from(code) {
        Ok(b) if b.is_ascii() => u64::from(is_ascii_printable(b)),
        _ => utf8_wcwidth(code).max(0) as u64,
    }
}

/// `iswprint`, as quoting file names asks it.
pub fn is_printable_wide(code: u32) -> bool {
    match u8::try_from(code) {
        Ok(b) if b.is_ascii() => is_ascii_printable(b),
        _ => utf8_iswprint(code),
    }
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
    /// A character glibc decodes beyond U+10FFFF (its classes are asked of
    /// the C library like any other's).
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
