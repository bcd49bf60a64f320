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
    /// start, in descending order (the helper works from the back).
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
            } else if let Some(i) = claims.records.iter().rposition(|r| r.0 == at) {
                // The helper works back from the window's end, so the
                // records are pushed in descending order and the core
                // wants the last: a search from the front made a window
                // of many hitless regions quadratic (a 9 MiB input of
                // one-byte lines with one-byte regions ran for minutes).
                let (_, found) = claims.records.remove(i);
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
    use samebytes_spec::Locale;

    use super::*;
    use crate::grep::ahead::Wanted;
    use crate::grep::matcher::Matcher;

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

    /// A record of `BYTES[a..b]`: every line but an empty one matches;
    /// at most two a record.
    fn record(a: usize, b: usize) -> Found {
        let cfg = crate::grep::backref::tests::cfg(Locale::C, false);
        let built = Matcher::build(&[b".".to_vec()], &cfg).unwrap_or_else(|_| panic!("compiles"));
        let wanted = Wanted {
            terminator: T,
            counts: true,
            starts: true,
            cap: 2,
        };
        Found::search(built.0.shared().expect("not -P"), BYTES, 0, a, b, wanted)
    }

    /// Search the window's lines from `from` as the core does, taking the
    /// relay's answers: each piece as (start, end, whether a record).
    fn core(relay: &Relay, from: usize, size: usize) -> Vec<(usize, usize, bool)> {
        let complete = BYTES.len();
        let mut pieces = Vec::new();
        let mut at = from;
        while at < complete {
            let end = region_end(BYTES, T, at, complete, size);
            let piece = match relay.claim(at, end) {
                Claim::Own(to) => {
                    assert!(to > at && to <= end, "own {at}..{to}, cut at {end}");
                    (at, to, false)
                }
                Claim::Record(found) => (at, found.to() as usize, true),
            };
            assert!(piece.1 > piece.0, "an empty piece: {pieces:?}, {piece:?}");
            pieces.push(piece);
            at = piece.1;
        }
        pieces
    }

    /// The window's lines from `from` searched by the core and a helper
    /// thread.
    fn pieces(from: usize, size: usize, budget: usize) -> Vec<(usize, usize, bool)> {
        let relay = Relay::new(from, BYTES.len(), budget);
        std::thread::scope(|scope| {
            scope.spawn(|| relay.help(BYTES, T, size, record));
            let pieces = core(&relay, from, size);
            relay.stop();
            pieces
        })
    }

    /// The pieces tile the window's lines from `from` in order, each cut
    /// at a line start.
    fn check_tiling(pieces: &[(usize, usize, bool)], from: usize, what: &str) {
        let starts = line_starts();
        assert_eq!(pieces[0].0, from, "{what}");
        assert!(pieces.windows(2).all(|p| p[0].1 == p[1].0), "{what}");
        assert!(pieces.iter().all(|p| starts.contains(&p.1)), "{what}");
        assert_eq!(pieces.last().map(|p| p.1), Some(BYTES.len()), "{what}");
    }

    /// Whatever the scheduling: the core's regions and the helper's
    /// records tile the window's lines in order, cut at line starts, and
    /// the last piece is the helper's; a helper with no budget claims
    /// nothing.
    #[test]
    fn the_core_and_the_helper_tile_the_window_and_the_helper_ends_it() {
        let starts = line_starts();
        for &from in &starts[..starts.len() - 1] {
            for size in 1..12 {
                for _ in 0..20 {
                    let got = pieces(from, size, usize::MAX);
                    let what = format!("from {from}, size {size}: {got:?}");
                    check_tiling(&got, from, &what);
                    assert_eq!(got.last().map(|p| p.2), Some(true), "{what}");
                }
                let alone = pieces(from, size, 0);
                check_tiling(&alone, from, "no budget");
                assert!(alone.iter().all(|p| !p.2), "no budget: {alone:?}");
            }
        }
    }

    /// A helper that fails (panics) while searching a region leaves it to
    /// the core, which searches it up to the next record, and takes the
    /// records handed over before.
    #[test]
    fn a_region_the_helper_failed_on_is_searched_by_the_core() {
        for size in 1..6 {
            for fail_at in 1..5 {
                let relay = Relay::new(0, BYTES.len(), usize::MAX);
                let searched = std::cell::Cell::new(0);
                let search = |a, b| {
                    searched.set(searched.get() + 1);
                    assert!(searched.get() != fail_at, "fails on purpose");
                    record(a, b)
                };
                let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    relay.help(BYTES, T, size, search);
                }));
                let what = format!("size {size}, failing at {fail_at}");
                assert_eq!(failed.is_err(), searched.get() >= fail_at, "{what}");
                let got = core(&relay, 0, size);
                check_tiling(&got, 0, &format!("{what}: {got:?}"));
                let records = got.iter().filter(|p| p.2).count();
                assert_eq!(
                    records,
                    (fail_at - 1).min(searched.get()),
                    "{what}: {got:?}"
                );
            }
        }
    }

    /// The helper, run to its end before the core starts: it claims
    /// regions (a line each here) from the back until it holds `budget`
    /// hits, then leaves; the hits the core takes are its to claim again;
    /// it claims nothing once the core has stopped; and a core with no
    /// helper searches to the end alone.
    #[test]
    fn the_helper_claims_from_the_back_within_its_budget() {
        let complete = BYTES.len();
        let help = |relay: &Relay| relay.help(BYTES, T, 1, record);
        let state = |relay: &Relay| {
            let claims = relay.lock();
            (claims.back, claims.held, claims.records.len())
        };
        // The matching (non-empty) lines from `at` on, counted plainly.
        let matching = |at: usize| {
            BYTES[at..]
                .split(|&b| b == T)
                .filter(|l| !l.is_empty())
                .count()
        };
        let relay = Relay::new(0, complete, 3);
        help(&relay);
        let (back, held, records) = state(&relay);
        let want = line_starts()
            .into_iter()
            .filter(|&s| matching(s) >= 3)
            .max();
        assert_eq!(Some(back), want, "{records} records");
        assert_eq!(held, matching(back));
        // The core takes them; their hits no longer count.
        let pieces = core(&relay, back, 1);
        assert!(pieces.iter().all(|p| p.2), "{pieces:?}");
        assert_eq!(state(&relay).1, 0);
        help(&relay);
        assert!(state(&relay).0 < back, "nothing claimed again");
        // Stopped, the helper claims nothing.
        let stopped = Relay::new(0, complete, usize::MAX);
        stopped.stop();
        help(&stopped);
        assert_eq!(state(&stopped), (complete, 0, 0));
        // With no helper the core goes to the end alone.
        let alone = Relay::new(0, complete, usize::MAX);
        alone.no_helper();
        let pieces = core(&alone, 0, 3);
        check_tiling(&pieces, 0, "no helper");
        assert!(pieces.iter().all(|p| !p.2), "{pieces:?}");
    }
}
