//! A small UTF-8 decoder with glibc's error granularity, and the helpers that
//! let a stream be cut into pieces without splitting a character.
//!
//! Validity is glibc's: the original UTF-8 of up to 6 bytes (code points
//! up to 0x7FFFFFFF), with no overlong forms and no surrogates.  An invalid
//! or truncated sequence is reported one byte at a time, as `mbrtoc32`
//! does.

/// Expected sequence length for a lead byte, or `None` for a byte that
/// cannot start a character.
#[inline]
pub fn lead_len(b: u8) -> Option<usize> {
    match b {
        0x00..=0x7f => Some(1),
        0xc2..=0xdf => Some(2),
        0xe0..=0xef => Some(3),
        0xf0..=0xf7 => Some(4),
        0xf8..=0xfb => Some(5),
        0xfc..=0xfd => Some(6),
        _ => None,
    }
}

/// The smallest code point each length may encode (shorter is overlong).
const LOWEST: [u32; 7] = [0, 0, 0x80, 0x800, 0x1_0000, 0x20_0000, 0x400_0000];

/// What the bytes at the start of a slice hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// A complete valid character: its code point (possibly beyond
    /// U+10FFFF, which glibc accepts) and length.
    Char(u32, usize),
    /// The first byte is an encoding error.
    Invalid,
    /// A beginning of a character that the slice cuts short, which more
    /// bytes could still complete.
    Incomplete,
}

/// Decode the first character of `bytes` (which must not be empty).
#[inline]
pub fn head(bytes: &[u8]) -> Head {
    let lead = bytes[0];
    let Some(want) = lead_len(lead) else {
        return Head::Invalid;
    };
    if want == 1 {
        return Head::Char(u32::from(lead), 1);
    }
    let mut code = u32::from(lead) & (0x7f >> want);
    for i in 1..want {
        let Some(&b) = bytes.get(i) else {
            // glibc cannot tell an overlong or surrogate prefix from a good
            // one until the sequence is complete; neither can we, and the
            // counts come out the same either way.
            return Head::Incomplete;
        };
        if b & 0xc0 != 0x80 {
            return Head::Invalid;
        }
        code = (code << 6) | u32::from(b & 0x3f);
    }
    if code < LOWEST[want] || (0xd800..=0xdfff).contains(&code) {
        return Head::Invalid;
    }
    Head::Char(code, want)
}

/// Whether `bytes` holds no encoding error, as glibc decides.  RFC 3629
/// text (nearly all text) is settled at SIMD speed; only text that fails
/// that check is decoded character by character, since glibc also accepts
/// the 4- to 6-byte forms beyond U+10FFFF.
pub fn is_valid(bytes: &[u8]) -> bool {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return true;
    }
    let mut at = 0;
    while at < bytes.len() {
        match head(&bytes[at..]) {
            Head::Char(_, n) => at += n,
            Head::Invalid | Head::Incomplete => return false,
        }
    }
    true
}

/// Where a possibly incomplete character at the end of `data` begins:
/// `data.len()` when the data ends on a character boundary (or with bytes
/// that are errors whatever follows).
pub fn incomplete_tail_start(data: &[u8]) -> usize {
    let len = data.len();
    for back in 1..=len.min(5) {
        let start = len - back;
        let b = data[start];
        if b < 0x80 {
            return len;
        }
        if b >= 0xc0 {
            return if head(&data[start..]) == Head::Incomplete {
                start
            } else {
                len
            };
        }
    }
    len
}

/// Length of the leading run of ASCII bytes.
#[inline]
pub fn ascii_prefix_len(data: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let high = word & HIGH;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + chunks
        .remainder()
        .iter()
        .position(|&b| b >= 0x80)
        .unwrap_or(chunks.remainder().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive reference: the spec's decoder, with "incomplete" meaning
    /// that some extension of the bytes decodes.
    fn naive_head(bytes: &[u8]) -> Head {
        if let Some((code, n)) = samebytes_spec::text::decode_one(bytes) {
            return Head::Char(code, n);
        }
        let want = lead_len(bytes[0]).unwrap_or(0);
        if want > bytes.len() {
            let mut extended = bytes.to_vec();
            extended.resize(want, 0xbf);
            let mut low = bytes.to_vec();
            low.resize(want, 0x80);
            if samebytes_spec::text::decode_one(&extended).is_some()
                || samebytes_spec::text::decode_one(&low).is_some()
                || bytes[1..].iter().all(|b| b & 0xc0 == 0x80)
            {
                return Head::Incomplete;
            }
        }
        Head::Invalid
    }

    #[test]
    fn head_matches_the_spec_on_short_sequences() {
        let interesting: Vec<u8> = (0x00..=0xff).filter(|b| b % 7 == 0 || *b >= 0x7e).collect();
        for a in 0..=255u8 {
            assert_eq!(head(&[a]), naive_head(&[a]), "{a:02x}");
            for b in 0..=255u8 {
                assert_eq!(head(&[a, b]), naive_head(&[a, b]), "{a:02x} {b:02x}");
            }
        }
        for &a in &interesting {
            for &b in &interesting {
                for &c in &interesting {
                    assert_eq!(head(&[a, b, c]), naive_head(&[a, b, c]));
                    for d in [0x41, 0x80, 0x8f, 0x90, 0xbf, 0xc0] {
                        assert_eq!(head(&[a, b, c, d]), naive_head(&[a, b, c, d]));
                        for e in [0x80, 0xbf, 0x41] {
                            assert_eq!(head(&[a, b, c, d, e]), naive_head(&[a, b, c, d, e]));
                            assert_eq!(
                                head(&[a, b, c, d, e, 0x80]),
                                naive_head(&[a, b, c, d, e, 0x80])
                            );
                        }
                    }
                }
            }
        }
    }

    /// `is_valid` against the spec's own decoder (glibc's rules), on every
    /// sequence of up to four interesting bytes, then with the 5- and
    /// 6-byte forms, each behind a 40-byte ASCII run so the SIMD check sees
    /// a whole block before the odd bytes.
    #[test]
    fn is_valid_agrees_with_the_spec_on_short_sequences() {
        use samebytes_spec::grep::{has_encoding_error, BinaryFiles};
        use samebytes_spec::Locale;
        let spec_valid = |s: &[u8]| !has_encoding_error(s, Locale::Utf8, BinaryFiles::Binary);
        let interesting = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed,
            0xef, 0xf0, 0xf4, 0xf5, 0xf7, 0xf8, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
        ];
        let pad = [b'a'; 40];
        let mut seqs: Vec<Vec<u8>> = vec![vec![]];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = seqs
                .iter()
                .filter(|s| s.len() == seqs.last().map_or(0, Vec::len))
                .flat_map(|s| {
                    interesting.iter().map(move |&b| {
                        let mut t = s.clone();
                        t.push(b);
                        t
                    })
                })
                .collect();
            seqs.extend(longer);
        }
        seqs.push(b"\xf8\x88\x80\x80\x80".to_vec());
        seqs.push(b"\xfc\x84\x80\x80\x80\x80".to_vec());
        seqs.push(b"\xf8\x80\x80\x80\x80".to_vec());
        seqs.push(b"\xfc\x80\x80\x80\x80\x80".to_vec());
        for s in &seqs {
            assert_eq!(is_valid(s), spec_valid(s), "{s:x?}");
            let padded = [&pad[..], s, &pad[..3]].concat();
            assert_eq!(is_valid(&padded), spec_valid(&padded), "{padded:x?}");
        }
    }

    #[test]
    fn ascii_prefix_len_at_every_alignment_and_length() {
        let base: Vec<u8> = (0..64u8).map(|i| b'a' + i % 26).collect();
        for len in 0..40 {
            for off in 0..8 {
                for high_at in 0..=len {
                    let mut v = base[..off + len].to_vec();
                    if high_at < len {
                        v[off + high_at] = 0xc3;
                    }
                    let s = &v[off..];
                    let naive = s.iter().position(|&b| b >= 0x80).unwrap_or(s.len());
                    assert_eq!(ascii_prefix_len(s), naive);
                }
            }
        }
    }
}
