//! Model checks: loom runs the shipped synchronisation code under every
//! interleaving its threads allow (up to loom's bounds), with its own
//! atomics, mutexes and condition variables in place of std's.  The files
//! are the very ones that ship, included here beside a `sync` module that
//! gives loom's primitives (`impl/src/sync.rs` gives std's to the real
//! build):
//! - the SIGBUS guard's slot table (`sys/guard/table.rs`), below;
//! - the parallel grep's relay (`grep/relay.rs`: the core and the helper
//!   claiming a mapped window's regions from either end) and its queue
//!   (`grep/queue.rs`: the walk, the search threads and the printer
//!   handing slots over), in `grep` below.
//!
//! Run: `cargo test -p samebytes --features loom --test loom`.
#![cfg(feature = "loom")]

mod sync {
    pub use loom::sync::{atomic, Condvar, Mutex, MutexGuard};
}

#[path = "loom/grep.rs"]
mod grep;

#[path = "../src/sys/guard/table.rs"]
mod guard_table;

use guard_table::GuardTable;
use loom::thread;
use std::sync::Arc;

/// A window's slot may be released and claimed again by another window
/// while the SIGBUS handler scans the table.  The handler must only ever
/// match a range that was armed whole: never a new window's start with an
/// old window's length, which would zero-fill pages of a mapping that is
/// not the faulting window's (here, a fault at 0x6000 in the first window
/// [0x1000, 0x9000) must name that window's end or nothing, never
/// 0xC000 = the second window's start 0x4000 + the first one's length).
#[test]
fn the_handler_never_matches_a_range_that_was_not_armed_whole() {
    loom::model(|| {
        let table = Arc::new(GuardTable::<1>::new());
        let owner = {
            let table = Arc::clone(&table);
            thread::spawn(move || {
                for (start, len) in [(0x1000, 0x8000), (0x4000, 0x1000)] {
                    let slot = table.claim().expect("the only slot is free");
                    table.arm(slot, start, len);
                    table.release(slot);
                }
            })
        };
        let found = table.holding(0x6000).map(|(_, end)| end);
        assert!(
            matches!(found, None | Some(0x9000)),
            "matched a range never armed: end {found:x?}"
        );
        owner.join().unwrap();
    });
}

/// Two windows claiming at once never get the same slot, and a slot given
/// back is claimed again.
#[test]
fn a_slot_is_held_by_one_window_at_a_time() {
    loom::model(|| {
        let table = Arc::new(GuardTable::<2>::new());
        let claimers: Vec<_> = (0..2)
            .map(|_| {
                let table = Arc::clone(&table);
                thread::spawn(move || table.claim())
            })
            .collect();
        let mut got: Vec<_> = claimers.into_iter().map(|c| c.join().unwrap()).collect();
        got.sort();
        assert_eq!(got, [Some(0), Some(1)]);
        assert_eq!(table.claim(), None);
        table.release(1);
        assert_eq!(table.claim(), Some(1));
    });
}

/// A fault marked by the handler on the reading thread is seen by that
/// reader, and a fault on another window's slot is not; the mark does not
/// outlive the window's release.
#[test]
fn a_fault_is_seen_by_its_own_window_only() {
    loom::model(|| {
        let table = Arc::new(GuardTable::<2>::new());
        let other = {
            let table = Arc::clone(&table);
            thread::spawn(move || {
                let slot = table.claim().expect("slot");
                table.arm(slot, 0x10000, 0x1000);
                if let Some((s, _)) = table.holding(0x10800) {
                    s.mark_faulted();
                }
                let seen = table.slot(slot).faulted();
                table.release(slot);
                seen
            })
        };
        let slot = table.claim().expect("slot");
        table.arm(slot, 0x1000, 0x1000);
        assert!(!table.slot(slot).faulted(), "another window's fault");
        table.release(slot);
        assert!(other.join().unwrap(), "its own fault unseen");
    });
}
