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

use crate::sync::{Condvar, Mutex, MutexGuard};

/// What the relay needs of a record: how many hits it holds (the helper's
/// budget counts them).
pub(super) trait Record {
    fn hit_count(&self) -> usize;
}

/// What the core gets for the region starting where it stands.
pub(super) enum Claim<R> {
    /// Its own region, up to this line start.
    Own(usize),
    /// The helper's record of the region starting there.
    Record(R),
}

/// The claims on one window's lines, and the records the helper hands
/// over.
pub(super) struct Relay<R> {
    state: Mutex<Claims<R>>,
    handed: Condvar,
    /// Where the window's whole lines end.
    complete: usize,
}

struct Claims<R> {
    /// The core's part ends here.
    front: usize,
    /// The helper's part starts here.
    back: usize,
    /// Records handed over and not yet taken, by where their regions
    /// start, in descending order (the helper works from the back).
    records: Vec<(usize, R)>,
    /// The core needs nothing more (it is done, failed, or spoiled).
    stop: bool,
    /// The helper will hand over nothing more.
    helper_gone: bool,
    /// Hits in the records handed over and not yet taken.
    held: usize,
    /// The helper claims no more while it holds this many.
    budget: usize,
}

impl<R: Record> Relay<R> {
    /// The relay of the lines `[from, complete)`, where the helper holds
    /// at most about `budget` hits.
    pub(super) fn new(from: usize, complete: usize, budget: usize) -> Relay<R> {
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

    fn lock(&self) -> MutexGuard<'_, Claims<R>> {
        // A poisoned lock means the other side panicked; the state is
        // plain data, still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, claims: MutexGuard<'a, Claims<R>>) -> MutexGuard<'a, Claims<R>> {
        self.handed.wait(claims).unwrap_or_else(|e| e.into_inner())
    }

    /// The core stands at line start `at`, and would search up to `end`
    /// (a line start after it): its own region, up to where the helper's
    /// part starts at most, or the helper's record of the region from
    /// `at`, once handed over.
    pub(super) fn claim(&self, at: usize, end: usize) -> Claim<R> {
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

    /// The helper's loop: claim a region from the back of the unclaimed
    /// lines, search it, and hand the record over, until the claims meet
    /// or the core stops.  `cut(floor, to)` is where the region that ends
    /// at line start `to` starts: a line start, at least `floor`.
    pub(super) fn help(
        &self,
        cut: impl Fn(usize, usize) -> usize,
        search: impl Fn(usize, usize) -> R,
    ) {
        struct Gone<'a, R: Record>(&'a Relay<R>);
        impl<R: Record> Drop for Gone<'_, R> {
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
            let cut = cut(front, to);
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

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use samebytes_spec::Locale;

    use super::*;
    use crate::grep::ahead::{Found, Wanted};
    use crate::grep::lines::{region_end, region_start};
    use crate::grep::matcher::Matcher;

    const T: u8 = b'\n';
    const BYTES: &[u8] = b"a\nbb\n\nccc\ndddd\ne\n\n\nffffff\ng\n";

    fn line_starts() -> Vec<usize> {
        let mut starts = vec![0];
        starts.extend((0..BYTES.len()).filter(|&i| BYTES[i] == T).map(|i| i + 1));
        starts
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
    fn core(relay: &Relay<Found>, from: usize, size: usize) -> Vec<(usize, usize, bool)> {
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
        let relay = Relay::<Found>::new(from, BYTES.len(), budget);
        std::thread::scope(|scope| {
            scope.spawn(|| relay.help(|floor, to| region_start(BYTES, T, floor, to, size), record));
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
                let relay = Relay::<Found>::new(0, BYTES.len(), usize::MAX);
                let searched = std::cell::Cell::new(0);
                let search = |a, b| {
                    searched.set(searched.get() + 1);
                    assert!(searched.get() != fail_at, "fails on purpose");
                    record(a, b)
                };
                let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    relay.help(|floor, to| region_start(BYTES, T, floor, to, size), search);
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
        let help = |relay: &Relay<Found>| {
            relay.help(|floor, to| region_start(BYTES, T, floor, to, 1), record);
        };
        let state = |relay: &Relay<Found>| {
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
