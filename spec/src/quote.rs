//! GNU's quoting of file names in messages (gnulib `quotearg`).
//!
//! - [`quotef`]: `shell_escape_quoting_style` with `:` also quoted, used for
//!   file names in diagnostics (`wc: 'a b': No such file or directory`) and,
//!   by wc, for names containing a newline in the counts line.  A name that
//!   needs no quoting is printed as is.
//! - [`quoteaf`]: `shell_escape_always_quoting_style`: always quoted.
//! - [`quote_locale`]: `locale_quoting_style`, used by argmatch diagnostics:
//!   ‘x’ in a UTF-8 locale, 'x' otherwise.
//!
//! Inside single quotes every byte stands for itself except `'`, written
//! `'\''`.  Characters that cannot appear literally (control characters,
//! bytes that are not printable in the locale) are written as `$'\n'` or
//! `$'\ooo'` segments spliced between quoted parts.  A name whose only reason
//! for quoting is an apostrophe, and whose other characters are all plain, is
//! put in double quotes instead: `"it's"`.

use crate::Locale;

/// One decoded piece of a name, as quotearg sees it.
enum Piece<'a> {
    /// A printable character (one byte in the C locale, one UTF-8 character
    /// otherwise), kept literally.
    Printable(&'a [u8]),
    /// A byte that must be escaped: a C escape letter, or octal.
    Escaped(u8),
}

fn pieces(name: &[u8], locale: Locale) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if b < 0x80 || locale == Locale::C {
            if (0x20..0x7f).contains(&b) {
                out.push(Piece::Printable(&name[i..i + 1]));
            } else {
                out.push(Piece::Escaped(b));
            }
            i += 1;
            continue;
        }
        match crate::text::decode_one(&name[i..]) {
            Some((code, n)) => {
                if crate::text::is_printable_wide(code) {
                    out.push(Piece::Printable(&name[i..i + n]));
                } else {
                    for &byte in &name[i..i + n] {
                        out.push(Piece::Escaped(byte));
                    }
                }
                i += n;
            }
            None => {
                out.push(Piece::Escaped(b));
                i += 1;
            }
        }
    }
    out
}

/// Does this byte, at position `i` of a name of length `len`, force shell
/// quoting when it appears literally?
fn is_shell_special(b: u8, i: usize, len: usize, colon: bool) -> bool {
    match b {
        b'{' | b'}' => len == 1,
        b'#' | b'~' => i == 0,
        b' ' | b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>'
        | b'[' | b'^' | b'`' | b'|' | b'\'' | b'?' | b'\\' => true,
        b':' => colon,
        _ => false,
    }
}

/// Characters that keep a name eligible for the double-quote form.
fn is_double_quote_compatible(b: u8, i: usize, len: usize) -> bool {
    match b {
        b'\'' | b' ' => true,
        b'{' | b'}' if len == 1 => true,
        b'#' | b'~' if i == 0 => true,
        b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b':' | b']' | b'_' => true,
        b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' => true,
        // Other printable ASCII that is not a shell special character.
        b'@' => true,
        _ => false,
    }
}

fn c_escape_letter(b: u8) -> Option<u8> {
    match b {
        0x07 => Some(b'a'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        0x0b => Some(b'v'),
        _ => None,
    }
}

fn needs_quoting(name: &[u8], pieces: &[Piece<'_>], colon: bool) -> bool {
    if name.is_empty() {
        return true;
    }
    let mut pos = 0;
    for p in pieces {
        match p {
            Piece::Escaped(_) => return true,
            Piece::Printable(bytes) => {
                if bytes.len() == 1 && is_shell_special(bytes[0], pos, name.len(), colon) {
                    return true;
                }
                pos += bytes.len();
            }
        }
    }
    false
}

fn always_quoted(name: &[u8], pieces: &[Piece<'_>]) -> Vec<u8> {
    // The apostrophe-friendly form: double quotes when the name has a `'`
    // and every character is otherwise plain.
    if name.contains(&b'\'') {
        let mut pos = 0;
        let mut compatible = true;
        for p in pieces {
            match p {
                Piece::Escaped(_) => compatible = false,
                Piece::Printable(bytes) => {
                    if bytes.len() == 1 && !is_double_quote_compatible(bytes[0], pos, name.len()) {
                        compatible = false;
                    }
                    pos += bytes.len();
                }
            }
        }
        if compatible {
            let mut out = vec![b'"'];
            out.extend_from_slice(name);
            out.push(b'"');
            return out;
        }
    }
    // Current gnulib starts the output outside any `$'...` segment.  (The
    // gnulib of coreutils 9.1 and grep 3.8 did not: it wrote such a name
    // twice, a scan and then the output, and started the output in the
    // state its scan ended in, `'''a'\'''$'\001'` for `a'<SOH>`;
    // docs/differences.md, quotearg-restart-state.)
    let mut out = vec![b'\''];
    let mut in_escape = false;
    for p in pieces {
        match p {
            Piece::Escaped(b) => {
                if !in_escape {
                    out.extend_from_slice(b"'$'");
                    in_escape = true;
                }
                out.push(b'\\');
                match c_escape_letter(*b) {
                    Some(letter) => out.push(letter),
                    None => out.extend_from_slice(format!("{:03o}", b).as_bytes()),
                }
            }
            Piece::Printable(bytes) => {
                // An apostrophe's own `'\''` closes a `$'...` segment with
                // its first quote (gnulib clears pending_shell_escape_end
                // for it): `$'\212'\'''`, not `$'\212'''\'''`.
                if in_escape && bytes != b"'" {
                    out.extend_from_slice(b"''");
                }
                in_escape = false;
                if bytes == b"'" {
                    out.extend_from_slice(b"'\\''");
                } else {
                    out.extend_from_slice(bytes);
                }
            }
        }
    }
    out.push(b'\'');
    out
}

/// `quotef`: quote a file name for a diagnostic only when it needs it.
pub fn quotef(name: &[u8], locale: Locale) -> Vec<u8> {
    let p = pieces(name, locale);
    if needs_quoting(name, &p, true) {
        always_quoted(name, &p)
    } else {
        name.to_vec()
    }
}

/// `quoteaf`: always quote.
pub fn quoteaf(name: &[u8], locale: Locale) -> Vec<u8> {
    let p = pieces(name, locale);
    always_quoted(name, &p)
}

/// `quote` with `locale_quoting_style`, as argmatch uses it.
pub fn quote_locale(arg: &[u8], locale: Locale) -> Vec<u8> {
    let (open, close): (&[u8], &[u8]) = match locale {
        Locale::Utf8 => ("\u{2018}".as_bytes(), "\u{2019}".as_bytes()),
        Locale::C => (b"'", b"'"),
    };
    let mut out = open.to_vec();
    for p in pieces(arg, locale) {
        match p {
            Piece::Printable(bytes) => {
                if bytes == b"\\" {
                    out.extend_from_slice(b"\\\\");
                } else {
                    out.extend_from_slice(bytes);
                }
            }
            Piece::Escaped(b) => {
                out.push(b'\\');
                match c_escape_letter(b) {
                    Some(letter) => out.push(letter),
                    None => out.extend_from_slice(format!("{:03o}", b).as_bytes()),
                }
            }
        }
    }
    out.extend_from_slice(close);
    out
}
