//! Every character class wc counts with (and grep's word constituents),
//! against the C library itself.
//!
//! GNU wc asks the C library (`wcwidth`, `iswspace` after `setlocale`), so
//! a drop-in must give the same answer for every code point.  This walks
//! all 0x110000 code points in C.UTF-8 (and samples the ones glibc also
//! decodes beyond U+10FFFF), and all 256 bytes in C, comparing:
//! - what the implementation's counters use: `classes::class_of` (width,
//!   white space, no-break space, and grep's word constituent), the
//!   single-byte rules `c_is_space` and
//!   `c_is_printable` (the C locale, and ASCII in UTF-8), and the decoder
//!   `utf8::head` (which sequences are encoding errors);
//! - what the spec uses: `text::display_width`, `is_wide_space`,
//!   `is_printable_wide` (file-name quoting), `decode_one`, and grep's
//!   `chars::is_word_char`;
//!
//! with direct calls to the C library made here, in a locale object of this
//! test's own.

mod common;

use samebytes::utf8::{self, Head};
use samebytes::wc::classes::{self, c_is_printable, c_is_space};
use samebytes_spec::text;

use common::sys::ctype::{self, libc_classes, libc_head, use_ctype};

/// The generalised UTF-8 form of a code point (surrogates included, up to
/// six bytes), which glibc decodes or rejects.
fn encode(code: u32) -> Vec<u8> {
    let len = match code {
        0..=0x7f => return vec![code as u8],
        0x80..=0x7ff => 2,
        0x800..=0xffff => 3,
        0x1_0000..=0x1f_ffff => 4,
        0x20_0000..=0x3ff_ffff => 5,
        _ => 6,
    };
    let mut out = vec![0u8; len];
    let mut rest = code;
    for slot in out[1..].iter_mut().rev() {
        *slot = 0x80 | (rest & 0x3f) as u8;
        rest >>= 6;
    }
    out[0] = (0xff00u32 >> len) as u8 | rest as u8;
    out
}

/// Compare everything for one code point of the UTF-8 locale.
fn check_code_point(code: u32, mismatches: &mut Vec<String>) {
    let c = libc_classes(code);
    let mut fail = |what: &str| {
        if mismatches.len() < 40 {
            mismatches.push(format!("U+{code:04X}: {what} (C library: {c:?})"));
        }
    };
    let bytes = encode(code);
    let decoded = libc_head(&bytes);
    if utf8::head(&bytes) != decoded {
        fail(&format!(
            "impl decodes {:?}, C library {decoded:?}",
            utf8::head(&bytes)
        ));
    }
    let spec_decoded = text::decode_one(&bytes).map_or(Head::Invalid, |(c, n)| Head::Char(c, n));
    if spec_decoded != decoded {
        fail(&format!("spec decodes {spec_decoded:?}"));
    }
    let positive_width = c.width.max(0) as u64;
    if code < 0x80 {
        // ASCII never reaches the table: the single-byte rules count it.
        let b = code as u8;
        if c_is_space(b) != c.space {
            fail("impl's single-byte isspace");
        }
        if u64::from(c_is_printable(b)) != positive_width || c_is_printable(b) != c.printable {
            fail("impl's single-byte isprint");
        }
    } else {
        let class = classes::class_of(code);
        if class.width() != positive_width {
            fail(&format!("impl width {}", class.width()));
        }
        if class.is_space() != c.space {
            fail("impl white space");
        }
        if class.is_word() != c.alnum {
            fail("impl word constituent (grep)");
        }
        if class.is_no_break_space() != text::is_no_break_space(code) {
            fail("impl and spec disagree on the no-break space list");
        }
    }
    if text::display_width(code) != positive_width {
        fail(&format!("spec width {}", text::display_width(code)));
    }
    if text::is_wide_space(code) != c.space {
        fail("spec white space");
    }
    if text::is_printable_wide(code) != c.printable {
        fail("spec printable");
    }
    let word = code == u32::from(b'_') || c.alnum;
    if samebytes_spec::grep::chars::is_word_char(code, samebytes_spec::Locale::Utf8) != word {
        fail("spec word constituent (grep)");
    }
}

#[test]
fn every_code_point_is_classified_as_the_c_library_does_in_c_utf8() {
    use_ctype(c"C.UTF-8");
    let mut mismatches = Vec::new();
    for code in 0..0x11_0000u32 {
        check_code_point(code, &mut mismatches);
    }
    // Beyond U+10FFFF glibc still decodes (up to 0x7FFFFFFF, in 4 to 6
    // bytes) and classifies: the first blocks, then a stride, then the end.
    let beyond = (0x11_0000..0x11_0400)
        .chain((0x11_0000..0x8000_0000u32).step_by(0x1_0001))
        .chain(0x7fff_ff00..=0x7fff_ffff);
    for code in beyond {
        check_code_point(code, &mut mismatches);
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn every_byte_is_classified_as_the_c_library_does_in_c() {
    use_ctype(c"C");
    for b in 0..=255u8 {
        let (space, printable) = ctype::c_space_and_printable(b);
        assert_eq!(c_is_space(b), space, "byte {b:#04x}: impl isspace");
        assert_eq!(c_is_printable(b), printable, "byte {b:#04x}: impl isprint");
        assert_eq!(
            text::is_ascii_space(b),
            space,
            "byte {b:#04x}: spec isspace"
        );
        assert_eq!(
            text::is_ascii_printable(b),
            printable,
            "byte {b:#04x}: spec isprint"
        );
    }
}

/// The walk above compares what the classes are; this checks the lead-byte
/// summary the word counter skips by, against the C library: a 2- or
/// 3-byte lead is said to maybe separate exactly when some character it
/// starts is white space or a no-break space (never wrongly "never", which
/// would miscount, and never needlessly "maybe", which would only be
/// slower).
#[test]
fn a_lead_byte_may_separate_exactly_when_one_of_its_characters_does() {
    use_ctype(c"C.UTF-8");
    let mut separating_leads = std::collections::BTreeSet::new();
    for code in 0x80..0x1_0000u32 {
        let c = libc_classes(code);
        let bytes = encode(code);
        if (c.space || text::is_no_break_space(code)) && !(0xd800..0xe000).contains(&code) {
            separating_leads.insert(bytes[0]);
        }
    }
    for lead in 0xc2..=0xefu8 {
        assert_eq!(
            classes::lead_may_separate(lead),
            separating_leads.contains(&lead),
            "lead {lead:#04x}"
        );
    }
}
