//! Character classes for counting in a UTF-8 locale: the C library's own
//! answers (`wcwidth`, `iswspace`), as GNU wc asks them, kept in a table
//! that is filled lazily, one block of 256 code points at a time, the
//! first time a character of the block is met.  A one-line ASCII input
//! asks nothing; a file of Cyrillic asks for one or two blocks.
//!
//! On top of the table, [`lead_may_separate`] answers for a whole lead byte
//! (every character it can start) whether any of them separates words, so
//! that the word counter can pass over the characters of, say, CJK
//! ideographs without decoding them.  That answer is also computed from
//! the table, the first time the lead byte is met.
//!
//! The table is process-wide: a process has one UTF-8 locale
//! (`sys::utf8_ctype_block` says which), and the answers never change.
//!
//! `tests/ctype_walk.rs` compares [`class_of`] with direct calls to the C
//! library for every code point below U+110000, and samples beyond, and
//! the single-byte rules ([`c_is_space`], [`c_is_printable`]) for all 256
//! bytes in C and for ASCII in C.UTF-8.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::sys::{self, CtypeAnswer};

/// The no-break spaces that coreutils treats as word separators unless
/// `POSIXLY_CORRECT` is set: gnulib's `c32isnbspace`, a fixed list in
/// coreutils rather than locale data.
pub const NO_BREAK_SPACES: [u32; 4] = [0x00A0, 0x2007, 0x202F, 0x2060];

/// `isspace` in the C locale, which the UTF-8 locale keeps for ASCII: the
/// single-byte counters' rule, in a shape they vectorise.
#[inline(always)]
pub fn c_is_space(b: u8) -> bool {
    b == b' ' || b.wrapping_sub(b'\t') < 5
}

/// `isprint` in the C locale, which the UTF-8 locale keeps for ASCII.
#[inline(always)]
pub fn c_is_printable(b: u8) -> bool {
    b.wrapping_sub(0x20) < 0x5f
}

/// One character's classes, as the counting code uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class(u8);

const WIDTH_MASK: u8 = 0x0f;
const SPACE: u8 = 0x10;
const NO_BREAK: u8 = 0x20;
const WORD: u8 = 0x40;

impl Class {
    fn new(answer: CtypeAnswer, code: u32) -> Class {
        // wcwidth says −1 for a character that is not printable, which
        // adds nothing to a line's width (GNU adds only positive widths).
        // glibc's widths are 0, 1 and 2; the walk test checks that none
        // is cut by the mask.
        let width = answer.width.clamp(0, i32::from(WIDTH_MASK)) as u8;
        let space = if answer.space { SPACE } else { 0 };
        let nbsp = if NO_BREAK_SPACES.contains(&code) {
            NO_BREAK
        } else {
            0
        };
        // grep's word constituents: `iswalnum` or `_`.
        let word = if answer.alnum || code == u32::from(b'_') {
            WORD
        } else {
            0
        };
        Class(width | space | nbsp | word)
    }

    /// A word constituent for grep: alphanumeric (`iswalnum`) or `_`.
    #[inline]
    pub fn is_word(self) -> bool {
        self.0 & WORD != 0
    }

    /// The columns the character adds to a line (`max(wcwidth, 0)`).
    #[inline]
    pub fn width(self) -> u64 {
        u64::from(self.0 & WIDTH_MASK)
    }

    /// `iswspace`.
    #[inline]
    pub fn is_space(self) -> bool {
        self.0 & SPACE != 0
    }

    /// coreutils' `c32isnbspace`.
    #[inline]
    pub fn is_no_break_space(self) -> bool {
        self.0 & NO_BREAK != 0
    }

    /// Does the character end a word?  White space always does; a no-break
    /// space does unless `POSIXLY_CORRECT` is set.
    #[inline]
    pub fn separates(self, nbsp_separates: bool) -> bool {
        self.is_space() || (nbsp_separates && self.is_no_break_space())
    }

    /// Separates in either mode.
    fn may_separate(self) -> bool {
        self.0 & (SPACE | NO_BREAK) != 0
    }
}

/// Code points per block of the table.
const BLOCK: u32 = 256;
/// The code points a UTF-8 locale's tables cover: below U+110000.
const TABLE_END: u32 = 0x11_0000;

struct Block([Class; BLOCK as usize]);

static TABLE: [OnceLock<Box<Block>>; (TABLE_END / BLOCK) as usize] =
    [const { OnceLock::new() }; (TABLE_END / BLOCK) as usize];

fn block(index: u32) -> &'static Block {
    TABLE[index as usize].get_or_init(|| {
        let first = index * BLOCK;
        let mut answers = [CtypeAnswer {
            width: 0,
            space: false,
            alnum: false,
        }; BLOCK as usize];
        sys::utf8_ctype_block(first, &mut answers);
        let mut classes = [Class(0); BLOCK as usize];
        for ((slot, answer), code) in classes.iter_mut().zip(answers).zip(first..) {
            *slot = Class::new(answer, code);
        }
        Box::new(Block(classes))
    })
}

/// The classes of a decoded character (any code point glibc decodes, up to
/// 0x7FFFFFFF).
#[inline]
pub fn class_of(code: u32) -> Class {
    if code >= TABLE_END {
        // glibc decodes the old 4- to 6-byte forms up to 0x7FFFFFFF; such
        // characters are rare enough to ask about one at a time.
        let mut answer = [CtypeAnswer {
            width: 0,
            space: false,
            alnum: false,
        }];
        sys::utf8_ctype_block(code, &mut answer);
        return Class::new(answer[0], code);
    }
    block(code / BLOCK).0[(code % BLOCK) as usize]
}

/// What is known about a byte as a lead: its high bit is set while the
/// word counter must look at characters it starts (not yet asked, or may
/// separate).  Bytes below 0xC0 start no multibyte character: never.
const NEVER: u8 = 0x00;
const MAY: u8 = 0x80;
const UNKNOWN: u8 = 0xc0;

static LEADS: [AtomicU8; 256] = {
    let mut leads = [const { AtomicU8::new(NEVER) }; 256];
    let mut b = 0xc0;
    while b < 256 {
        leads[b] = AtomicU8::new(UNKNOWN);
        b += 1;
    }
    leads
};

/// The lanes (high bit of each byte lane, little-endian) of eight bytes
/// that the word counter must look at: lead bytes that may start a
/// separator, or that have not been asked about yet.  Every other lane is
/// a byte no separator starts with.  Branch-free, for text full of
/// characters that never separate (Cyrillic, CJK ideographs).
#[inline]
pub fn lanes_to_examine(bytes: &[u8; 8]) -> u64 {
    let mut lanes = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        let state = LEADS[usize::from(b)].load(Ordering::Relaxed);
        lanes |= u64::from(state & MAY) << (8 * i);
    }
    lanes
}

/// The code points a lead byte of a 2- or 3-byte sequence can start (its
/// overlong forms excluded), or `None` for every other byte.  Four-byte
/// leads are not summarised: each covers 2^18 code points, too many to ask
/// about for the sake of an occasional emoji, so their characters are
/// always decoded and looked up.
fn lead_range(lead: u8) -> Option<std::ops::Range<u32>> {
    match lead {
        0xc2..=0xdf => {
            let base = u32::from(lead & 0x1f) << 6;
            Some(base..base + 0x40)
        }
        0xe0..=0xef => {
            let base = u32::from(lead & 0x0f) << 12;
            Some(base.max(0x800)..base + 0x1000)
        }
        _ => None,
    }
}

/// Can a character starting with this byte separate words (white space or
/// a no-break space, in either `POSIXLY_CORRECT` mode)?  `false` is a
/// promise: no valid character that starts with `lead` separates, so its
/// bytes can be taken as word bytes without decoding them.  `true` only
/// means "decode it and look".
#[inline]
pub fn lead_may_separate(lead: u8) -> bool {
    match LEADS[usize::from(lead)].load(Ordering::Relaxed) {
        NEVER => false,
        MAY => true,
        _ => learn_lead(lead),
    }
}

#[cold]
fn learn_lead(lead: u8) -> bool {
    let may = match lead_range(lead) {
        Some(range) => range.into_iter().any(|code| class_of(code).may_separate()),
        // Four-byte leads: always look.  So are C0, C1 and F8 and up,
        // which start no valid character (merely slower), and F5 to F7,
        // which start characters beyond U+10FFFF.  Bytes below 0xC0 are
        // NEVER from the start and not learned here.
        None => lead >= 0xc0,
    };
    LEADS[usize::from(lead)].store(if may { MAY } else { NEVER }, Ordering::Relaxed);
    may
}
