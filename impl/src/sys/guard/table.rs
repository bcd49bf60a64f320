//! The guard slots of mapped windows: claimed by a window before it is
//! mapped, armed once it is, looked up by address in the SIGBUS handler,
//! given back when the window is read or dropped.
//!
//! Written against `crate::sync` alone, so that `impl/tests/loom.rs`
//! model-checks this very file with loom's atomics.

use crate::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The guard of one live window.
///
/// Invariants: `len` is non-zero exactly while the slot's window is
/// mapped, and `[start, start + len)` is then that mapping; `len` is
/// zeroed before the window is unmapped.  `seq` is odd while the owner
/// changes `start` and `len` (a sequence lock): the handler takes a range
/// only when `seq` was even and the same before and after it read both,
/// so it never pairs one window's start with another's length, which a
/// slot released and claimed again while the handler scans would
/// otherwise give (loom found that pairing: impl/tests/loom.rs).  The
/// faulting window's own slot never changes while it is read, so the
/// handler always finds it.
pub struct GuardSlot {
    taken: AtomicBool,
    seq: AtomicUsize,
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

impl GuardSlot {
    fn free() -> GuardSlot {
        GuardSlot {
            taken: AtomicBool::new(false),
            seq: AtomicUsize::new(0),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }

    /// Has a page of this slot's window vanished since it was armed?
    pub fn faulted(&self) -> bool {
        self.faulted.load(Ordering::SeqCst)
    }

    /// Mark the slot faulted (the handler, after zero-filling its pages).
    pub fn mark_faulted(&self) {
        self.faulted.store(true, Ordering::SeqCst);
    }
}

/// The slots: claimed by a window before it is mapped, armed once it is,
/// looked up by the handler, given back when the window is read or
/// dropped.
pub struct GuardTable<const N: usize> {
    slots: [GuardSlot; N],
}

impl<const N: usize> Default for GuardTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> GuardTable<N> {
    pub fn new() -> Self {
        GuardTable {
            slots: std::array::from_fn(|_| GuardSlot::free()),
        }
    }

    pub fn slot(&self, i: usize) -> &GuardSlot {
        &self.slots[i]
    }

    /// Claim a free slot, or `None` when every one is taken.
    pub fn claim(&self) -> Option<usize> {
        self.slots.iter().position(|slot| {
            slot.taken
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    /// Arm claimed slot `i` for the live mapping `[start, start + len)`.
    pub fn arm(&self, i: usize, start: usize, len: usize) {
        let slot = &self.slots[i];
        slot.seq.fetch_add(1, Ordering::SeqCst);
        slot.start.store(start, Ordering::SeqCst);
        slot.len.store(len, Ordering::SeqCst);
        slot.seq.fetch_add(1, Ordering::SeqCst);
    }

    /// Disarm slot `i` and give it back; its window must still be mapped.
    pub fn release(&self, i: usize) {
        let slot = &self.slots[i];
        slot.seq.fetch_add(1, Ordering::SeqCst);
        slot.len.store(0, Ordering::SeqCst);
        slot.seq.fetch_add(1, Ordering::SeqCst);
        slot.faulted.store(false, Ordering::SeqCst);
        slot.taken.store(false, Ordering::SeqCst);
    }

    /// The slot whose live window holds `addr`, and that window's end.
    pub fn holding(&self, addr: usize) -> Option<(&GuardSlot, usize)> {
        self.slots.iter().find_map(|slot| {
            let before = slot.seq.load(Ordering::SeqCst);
            let len = slot.len.load(Ordering::SeqCst);
            let start = slot.start.load(Ordering::SeqCst);
            let settled = before % 2 == 0 && slot.seq.load(Ordering::SeqCst) == before;
            (settled && len != 0 && addr >= start && addr - start < len)
                .then_some((slot, start + len))
        })
    }
}

// Not in the loom build, which includes this file with loom's atomics
// (usable only inside a model).
#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;

    /// A slot its owner is changing (its count odd), or that changed while
    /// it was read, names nothing: its start and length may belong to two
    /// windows.  (loom's pairing model finds the interleaving; this is
    /// the rule itself.)
    #[test]
    fn a_slot_mid_change_names_nothing() {
        let table = GuardTable::<1>::new();
        let slot = table.claim().expect("slot");
        table.arm(slot, 0x1000, 0x1000);
        assert!(table.holding(0x1800).is_some());
        table.slot(slot).seq.fetch_add(1, Ordering::SeqCst);
        assert!(table.holding(0x1800).is_none(), "a slot mid-change");
        table.slot(slot).seq.fetch_add(1, Ordering::SeqCst);
        assert!(table.holding(0x1800).is_some());
    }

    /// The handler's lookup: an address names the window whose range
    /// holds it, and nothing at or past a window's end; a released slot
    /// names nothing and is claimed again.
    #[test]
    fn a_fault_address_names_the_one_window_that_holds_it() {
        let table = GuardTable::<3>::new();
        let (a, b) = (table.claim().expect("slot"), table.claim().expect("slot"));
        let base = 0x7000_0000usize;
        table.arm(a, base, 0x3000);
        table.arm(b, base + 0x5000, 0x1000);
        let holder = |addr: usize| {
            table.holding(addr).map(|(s, end)| {
                let name = if std::ptr::eq(s, table.slot(a)) {
                    "a"
                } else if std::ptr::eq(s, table.slot(b)) {
                    "b"
                } else {
                    "another"
                };
                (name, end - base)
            })
        };
        let asked = [
            base - 1,
            base,
            base + 0x2fff,
            base + 0x3000,
            base + 0x4fff,
            base + 0x5000,
            base + 0x5fff,
            base + 0x6000,
        ];
        let found: Vec<_> = asked.iter().map(|&addr| holder(addr)).collect();
        let (none, a_, b_) = (None, Some(("a", 0x3000)), Some(("b", 0x6000)));
        assert_eq!(found, [none, a_, a_, none, none, b_, b_, none]);
        table.slot(a).mark_faulted();
        assert!(table.slot(a).faulted() && !table.slot(b).faulted());
        table.release(a);
        assert_eq!(holder(base), None);
        assert!(!table.slot(a).faulted(), "a released slot is clean");
        assert_eq!(table.claim(), Some(a));
        assert_eq!(table.claim(), Some(2));
        assert_eq!(table.claim(), None, "every slot taken");
    }
}
