//! Line helpers over a buffer of lines ended by a terminator byte: where
//! a line ends, where the line holding a byte starts, how far back N
//! lines reach, and how many terminators a stretch holds.  Each is one
//! memchr call; the tests compare them with byte-by-byte loops at every
//! position.

/// The end of the line starting at `at`: its terminator, or `end` if
/// `hay[at..end]` holds none.
pub(super) fn end(hay: &[u8], t: u8, at: usize, end: usize) -> usize {
    memchr::memchr(t, &hay[at..end]).map_or(end, |p| at + p)
}

/// The start of the line holding `hay[at]`, looking back no further than
/// `floor`.
pub(super) fn start(hay: &[u8], t: u8, floor: usize, at: usize) -> usize {
    memchr::memrchr(t, &hay[floor..at]).map_or(floor, |p| floor + p + 1)
}

/// The start of the line `n` lines before the one starting at `at`, or
/// `floor` if fewer than `n` whole lines lie between them.
pub(super) fn back(hay: &[u8], t: u8, floor: usize, at: usize, n: u64) -> usize {
    let mut first = at;
    for _ in 0..n {
        if first <= floor {
            break;
        }
        // `first - 1` is the previous line's terminator.
        first = start(hay, t, floor, first - 1);
    }
    first
}

/// How many terminators `bytes` holds.
pub(super) fn count(bytes: &[u8], t: u8) -> u64 {
    crate::sys::count_byte(bytes, t)
}

/// Just after the `n`-th terminator (from 1) of `bytes`, if it has that
/// many.
pub(super) fn after_nth(bytes: &[u8], t: u8, n: u64) -> Option<usize> {
    let index = usize::try_from(n.checked_sub(1)?).ok()?;
    memchr::memchr_iter(t, bytes).nth(index).map(|p| p + 1)
}

/// The end of the region from line start `from`: after the last
/// terminator within `size` bytes, or after the first one past them; at
/// most `complete` (just after a terminator).
pub(super) fn region_end(bytes: &[u8], t: u8, from: usize, complete: usize, size: usize) -> usize {
    let reach = from.saturating_add(size.max(1));
    if reach >= complete {
        return complete;
    }
    match memchr::memrchr(t, &bytes[from..reach]) {
        Some(p) => from + p + 1,
        None => end(bytes, t, reach, complete) + 1,
    }
}

/// The start of the region that ends at line start `to`, the mirror of
/// [`region_end`]: the first line start at least `size` bytes before
/// `to`, or the start of the line that reaches back past them; at least
/// `floor` (a line start).
pub(super) fn region_start(bytes: &[u8], t: u8, floor: usize, to: usize, size: usize) -> usize {
    let reach = to.saturating_sub(size.max(1));
    if reach <= floor {
        return floor;
    }
    // `to - 1` is the terminator that ends the region; with none from
    // `reach - 1` up to it, `reach` is inside the region's first line.
    match memchr::memchr(t, &bytes[reach - 1..to - 1]) {
        Some(p) => reach + p,
        None => start(bytes, t, floor, reach),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u8 = b'\n';

    /// Every string over {x, terminator} up to 7 bytes.
    fn all_buffers() -> Vec<Vec<u8>> {
        let mut out = vec![Vec::new()];
        for len in 1..=7u32 {
            for bits in 0..1u32 << len {
                out.push(
                    (0..len)
                        .map(|i| if bits >> i & 1 == 1 { T } else { b'x' })
                        .collect(),
                );
            }
        }
        out
    }

    #[test]
    fn end_is_the_first_terminator_at_or_after_at() {
        for hay in all_buffers() {
            for stop in 0..=hay.len() {
                for at in 0..=stop {
                    let naive = (at..stop).find(|&i| hay[i] == T).unwrap_or(stop);
                    assert_eq!(end(&hay, T, at, stop), naive, "{hay:?} {at} {stop}");
                }
            }
        }
    }

    #[test]
    fn start_follows_the_last_terminator_before_at() {
        for hay in all_buffers() {
            for at in 0..=hay.len() {
                for floor in 0..=at {
                    let naive = (floor..at)
                        .rev()
                        .find(|&i| hay[i] == T)
                        .map_or(floor, |i| i + 1);
                    assert_eq!(start(&hay, T, floor, at), naive, "{hay:?} {floor} {at}");
                }
            }
        }
    }

    #[test]
    fn back_steps_over_whole_lines() {
        for hay in all_buffers() {
            // Line starts: 0 and after every terminator.
            let starts: Vec<usize> = std::iter::once(0)
                .chain((0..hay.len()).filter(|&i| hay[i] == T).map(|i| i + 1))
                .collect();
            for &at in &starts {
                for floor in starts.iter().copied().filter(|&s| s <= at) {
                    for n in 0..4u64 {
                        let before: Vec<usize> = starts
                            .iter()
                            .copied()
                            .filter(|&s| s >= floor && s < at)
                            .collect();
                        let naive = before.len().checked_sub(n as usize).map_or(floor, |i| {
                            if n == 0 {
                                at
                            } else {
                                before[i]
                            }
                        });
                        assert_eq!(
                            back(&hay, T, floor, at, n),
                            naive,
                            "{hay:?} {floor} {at} {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn count_and_after_nth_agree_with_a_scan() {
        for hay in all_buffers() {
            let ends: Vec<usize> = (0..hay.len()).filter(|&i| hay[i] == T).collect();
            assert_eq!(count(&hay, T), ends.len() as u64);
            for n in 0..=ends.len() as u64 + 1 {
                let naive = n
                    .checked_sub(1)
                    .and_then(|i| ends.get(i as usize))
                    .map(|&e| e + 1);
                assert_eq!(after_nth(&hay, T, n), naive, "{hay:?} {n}");
            }
        }
    }

    const BYTES: &[u8] = b"a\nbb\n\nccc\ndddd\ne\n\n\nffffff\ng\n";

    fn line_starts() -> Vec<usize> {
        let mut starts = vec![0];
        starts.extend((0..BYTES.len()).filter(|&i| BYTES[i] == T).map(|i| i + 1));
        starts
    }

    /// The naive reference: the region is the whole lines that start
    /// within `size` bytes of `from`, and at least one.
    fn region_end_naive(from: usize, complete: usize, size: usize) -> usize {
        let ends = line_starts()
            .into_iter()
            .filter(|&e| e > from && e <= complete);
        let ends: Vec<usize> = ends.collect();
        let within = ends
            .iter()
            .copied()
            .filter(|&e| e <= from + size.max(1))
            .max();
        within.unwrap_or(ends[0])
    }

    /// The naive reference: the region is the whole lines that end
    /// within `size` bytes of `to`, and at least one.
    fn region_start_naive(floor: usize, to: usize, size: usize) -> usize {
        let starts = line_starts().into_iter().filter(|&s| s >= floor && s < to);
        let starts: Vec<usize> = starts.collect();
        let within = starts
            .iter()
            .copied()
            .filter(|&s| s + size.max(1) >= to)
            .min();
        within.unwrap_or(*starts.last().expect("a line before `to`"))
    }

    #[test]
    fn regions_are_cut_at_line_starts_from_either_end() {
        let starts = line_starts();
        for (i, &a) in starts.iter().enumerate() {
            for &b in &starts[i + 1..] {
                for size in 0..14 {
                    let (end, want) = (
                        region_end(BYTES, T, a, b, size),
                        region_end_naive(a, b, size),
                    );
                    assert_eq!(end, want, "end from {a} to {b}, size {size}");
                    let (start, want) = (
                        region_start(BYTES, T, a, b, size),
                        region_start_naive(a, b, size),
                    );
                    assert_eq!(start, want, "start from {a} to {b}, size {size}");
                }
            }
        }
    }
}
