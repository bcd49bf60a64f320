//! The claims on a window's whole lines: the core takes regions from the
//! front, the helper from the back, each cutting its own region where it
//! stands, so no one walks the window before the search starts.
//!
//! Invariants:
//! - The window's lines `[from, complete)` are split at line starts into
//!   the core's part `[from, front)`, unclaimed bytes `[front, back)` and
//!   the helper's part `[back, complete)`; `front` only grows and `back`
//!   only shrinks, and `front <= back`.
//! - The helper's part is a run of regions; it hands a record over for
//!   each, in the order it claimed them (from the back).
//! - The region that ends the window is always the helper's (unless it is
//!   gone without claiming it), so every window of two regions or more is
//!   searched through at least one record.
//! - The helper claims nothing while it holds `budget` hits not yet taken;
//!   it then leaves, and the core searches the rest itself.

use std::sync::{Condvar, Mutex, MutexGuard};

use super::ahead::Found;
use super::lines;

/// What the core gets for the region starting where it stands.
pub(super) enum Claim {
    /// Its own region, up to this line start.
    Own(usize),
    /// The helper's record of the region starting there.
    Record(Found),
}

/// The claims on one window's lines, and the records the helper hands
/// over.
pub(super) struct Relay {
    state: Mutex<Claims>,
    handed: Condvar,
    /// Where the window's whole lines end.
    complete: usize,
}

struct Claims {
    /// The core's part ends here.
    front: usize,
    /// The helper's part starts here.
    back: usize,
    /// Records handed over and not yet taken, by where their regions
    /// start.
    records: Vec<(usize, Found)>,
    /// The core needs nothing more (it is done, failed, or spoiled).
    stop: bool,
    /// The helper will hand over nothing more.
    helper_gone: bool,
    /// Hits in the records handed over and not yet taken.
    held: usize,
    /// The helper claims no more while it holds this many.
    budget: usize,
}

impl Relay {
    /// The relay of the lines `[from, complete)`, where the helper holds
    /// at most about `budget` hits.
    pub(super) fn new(from: usize, complete: usize, budget: usize) -> Relay {
        Relay {
            state: Mutex::new(Claims {
                front: from,
                back: complete,
                records: Vec::new(),
                stop: false,
                helper_gone: false,
                held: 0,
                budget,
            }),
            handed: Condvar::new(),
            complete,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Claims> {
        // A poisoned lock means the other side panicked; the state is
        // plain data, still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, claims: MutexGuard<'a, Claims>) -> MutexGuard<'a, Claims> {
        self.handed.wait(claims).unwrap_or_else(|e| e.into_inner())
    }

    /// The core stands at line start `at`, and would search up to `end`
    /// (a line start after it): its own region, up to where the helper's
    /// part starts at most, or the helper's record of the region from
    /// `at`, once handed over.
    pub(super) fn claim(&self, at: usize, end: usize) -> Claim {
        let mut claims = self.lock();
        loop {
            if at < claims.back {
                // The window's last region waits for the helper.
                let own = end.min(claims.back);
                if own < self.complete || claims.helper_gone {
                    claims.front = own;
                    return Claim::Own(own);
                }
            } else if let Some(i) = claims.records.iter().position(|r| r.0 == at) {
                let (_, found) = claims.records.swap_remove(i);
                claims.held -= found.hit_count();
                return Claim::Record(found);
            } else if claims.helper_gone {
                // Claimed, never handed over: the helper panicked.  Its
                // part is searched here, one region at a time.
                let own = claims.records.iter().map(|r| r.0).filter(|&f| f > at);
                let own = own.min().unwrap_or(self.complete);
                claims.front = own;
                return Claim::Own(own);
            }
            claims = self.wait(claims);
        }
    }

    /// The core needs nothing more from the helper.
    pub(super) fn stop(&self) {
        self.lock().stop = true;
    }

    /// The helper could not be started.
    pub(super) fn no_helper(&self) {
        self.lock().helper_gone = true;
    }

    /// The helper's loop: claim a region of about `size` bytes from the
    /// back of `bytes`' unclaimed lines, search it, and hand the record
    /// over, until the claims meet or the core stops.
    pub(super) fn help(
        &self,
        bytes: &[u8],
        terminator: u8,
        size: usize,
        search: impl Fn(usize, usize) -> Found,
    ) {
        struct Gone<'a>(&'a Relay);
        impl Drop for Gone<'_> {
            fn drop(&mut self) {
                self.0.lock().helper_gone = true;
                self.0.handed.notify_all();
            }
        }
        let _gone = Gone(self);
        loop {
            let (front, to) = {
                let claims = self.lock();
                if claims.stop || claims.back <= claims.front || claims.held >= claims.budget {
                    return;
                }
                (claims.front, claims.back)
            };
            // Cut outside the lock; the core may have moved on meanwhile.
            let cut = region_start(bytes, terminator, front, to, size);
            let from = {
                let mut claims = self.lock();
                let from = cut.max(claims.front);
                if claims.stop || from >= to {
                    return;
                }
                claims.back = from;
                from
            };
            // The core may be waiting for a region that is now claimed.
            self.handed.notify_all();
            let found = search(from, to);
            let mut claims = self.lock();
            claims.held += found.hit_count();
            claims.records.push((from, found));
            drop(claims);
            self.handed.notify_all();
        }
    }
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
        None => lines::end(bytes, t, reach, complete) + 1,
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
    // `to - 1` is the terminator that ends the region.
    match memchr::memchr(t, &bytes[reach - 1..to - 1]) {
        Some(p) => reach + p,
        None => lines::start(bytes, t, floor, reach - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u8 = b'\n';
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
