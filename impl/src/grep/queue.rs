//! The queue of slots behind [`super::ordered`]: one slot per item of
//! the walk, in walk order, holding the item until a thread takes it and
//! then its output until it is printed; the rules of who waits for what
//! (see `ordered.rs` for the invariants they keep).

use std::collections::VecDeque;
use std::io;

use crate::sync::{Condvar, Mutex, MutexGuard};

/// The walk is pulled this many items at a time: one lock and one
/// wake-up per batch, not per file.
const BATCH: usize = 64;
/// A thread walks a batch when fewer files than this wait to be taken.
const LOW_WATER: usize = 48;

/// Output of one slot, as it was written.
pub(super) enum Chunk {
    /// Stdout bytes, of which the first `optional` are a separator
    /// printed on a guess.
    Out {
        bytes: Vec<u8>,
        optional: usize,
    },
    Err(Vec<u8>),
}

impl Chunk {
    pub(super) fn len(&self) -> usize {
        match self {
            Chunk::Out { bytes, .. } | Chunk::Err(bytes) => bytes.len(),
        }
    }
}

/// What the queue needs of the walk that fills it: `walk::Walker` in a
/// run (the loom models give a small one of their own).
pub(super) trait Walk {
    /// One thing to do, in output order.
    type Item;
    /// How an item's search ended, for the printer to add up.
    type End: Copy;
    /// Where the walk stands.
    type State;
    /// Walk on until `out` holds `want` items; whether the walk is done.
    fn batch(&self, state: &mut Self::State, out: &mut Vec<Self::Item>, want: usize) -> bool;
    /// Where an item goes in the queue.
    fn place(item: Self::Item) -> Place<Self::Item, Self::End>;
}

/// Where an item goes in the queue.
pub(super) enum Place<I, E> {
    /// Nothing to search: a message for stderr (maybe empty), and how
    /// the slot ends.
    Ended { text: Vec<u8>, end: E },
    /// A file any thread may search.
    File(I),
    /// Searched by the printer when its slot is the head (stdin and
    /// devices, which may wait on the outside world).
    AtHead(I),
}

/// Output and sizes: `GrepConfig::held`, `head_held` and `queued`.
#[derive(Clone, Copy)]
pub(super) struct Room {
    pub(super) held: usize,
    pub(super) head_held: usize,
    pub(super) queued: usize,
}

pub(super) struct Slot<W: Walk> {
    /// The item, until a thread takes it.
    item: Option<W::Item>,
    /// Searched by the printer at the head (stdin, devices).
    for_printer: bool,
    chunks: VecDeque<Chunk>,
    /// Bytes in `chunks`.
    bytes: usize,
    end: Option<W::End>,
}

pub(super) struct State<W: Walk> {
    slots: VecDeque<Slot<W>>,
    /// The number of `slots[0]`, counting from the first item.
    head: u64,
    /// Files before this number are taken.
    taken: u64,
    /// Items queued for the printer to search at the head.
    printer_items: usize,
    /// Files queued and not taken.
    files_waiting: usize,
    /// A thread is walking a batch.
    walking: bool,
    walk_done: bool,
    /// Bytes in slots behind the head.
    behind: usize,
    cancelled: bool,
    /// Who waits: search threads for files, the printer for anything,
    /// writers and the walker for room.
    idle_threads: usize,
    printer_waits: bool,
    waiting_for_room: usize,
}

/// The slots, and what waits on them.
pub(super) struct Queue<W: Walk> {
    state: Mutex<State<W>>,
    /// The bytes waiting behind the head and at it, and the slots queued
    /// (`GrepConfig::held`, `head_held`, `queued`).
    held: usize,
    head_held: usize,
    queued: usize,
    /// Where the walk stands; used by the thread that set
    /// `State::walking`.
    walk: Mutex<W::State>,
    work: Condvar,
    printer: Condvar,
    room: Condvar,
}

/// What the printer does next.
pub(super) enum Next<W: Walk> {
    Print(Vec<Chunk>),
    Ended(W::End),
    /// Search this item, of the head slot (stdin, a device).
    AtHead(u64, W::Item),
    /// Search this file, of this slot.
    File(u64, W::Item),
    Finished,
    /// Nothing to do yet, and the printer asked not to wait.
    WouldWait,
}

/// Where the printer's own write went.
pub(super) enum OwnWrite<W: Walk> {
    /// Printed nothing: print these from the head first.
    Print(Vec<Chunk>),
    Ended(W::End),
    /// Its slot is the head: print it directly.
    AtHead(Chunk),
    Queued,
    /// No room yet, and the printer asked not to wait.
    WouldWait(Chunk),
}

impl<W: Walk> Queue<W> {
    pub(super) fn new(walk: W::State, room: Room) -> Queue<W> {
        Queue {
            held: room.held,
            head_held: room.head_held,
            queued: room.queued.max(1),
            state: Mutex::new(State {
                slots: VecDeque::new(),
                head: 0,
                taken: 0,
                printer_items: 0,
                files_waiting: 0,
                walking: false,
                walk_done: false,
                behind: 0,
                cancelled: false,
                idle_threads: 0,
                printer_waits: false,
                waiting_for_room: 0,
            }),
            walk: Mutex::new(walk),
            work: Condvar::new(),
            printer: Condvar::new(),
            room: Condvar::new(),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State<W>> {
        // A thread that panicked is a bug the abort already reported.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'g>(&self, on: &Condvar, guard: MutexGuard<'g, State<W>>) -> MutexGuard<'g, State<W>> {
        on.wait(guard).unwrap_or_else(|e| e.into_inner())
    }

    fn wake_printer(&self, st: &State<W>) {
        if st.printer_waits {
            self.printer.notify_one();
        }
    }

    /// Walk a batch and append it; only the thread that set
    /// `State::walking` calls this, so the walk state is never contended.
    pub(super) fn walk_batch(&self, walker: &W) {
        // Never more than the queue holds (tests shrink it, and the
        // batches with it, so that small trees are walked in several).
        let want = BATCH.min(self.queued);
        let mut batch = Vec::with_capacity(want);
        let done = {
            let mut walk = self.walk.lock().unwrap_or_else(|e| e.into_inner());
            walker.batch(&mut walk, &mut batch, want)
        };
        let mut st = self.lock();
        for item in batch {
            Queue::append(&mut st, item);
        }
        st.walking = false;
        st.walk_done = done;
        match st.idle_threads {
            0 => {}
            1 => self.work.notify_one(),
            _ => self.work.notify_all(),
        }
        self.wake_printer(&st);
    }

    /// Should this thread walk now?  When no one else does, there is room,
    /// and few files are left to take (so that the other threads find
    /// some when they come).  Claims the walk if so.
    pub(super) fn claim_walk(&self, st: &mut State<W>) -> bool {
        let wanted = !st.walk_done
            && !st.walking
            && !st.cancelled
            && st.files_waiting < LOW_WATER.min(self.queued)
            && st.slots.len() < self.queued;
        st.walking |= wanted;
        wanted
    }

    pub(super) fn append(st: &mut State<W>, item: W::Item) {
        let mut slot = Slot {
            item: None,
            for_printer: true,
            chunks: VecDeque::new(),
            bytes: 0,
            end: None,
        };
        match W::place(item) {
            Place::Ended { text, end } => {
                slot.bytes = text.len();
                if !text.is_empty() {
                    slot.chunks.push_back(Chunk::Err(text));
                }
                slot.end = Some(end);
            }
            Place::File(item) => {
                slot.item = Some(item);
                slot.for_printer = false;
                st.files_waiting += 1;
            }
            Place::AtHead(item) => {
                slot.item = Some(item);
                st.printer_items += 1;
            }
        }
        if !st.slots.is_empty() {
            st.behind += slot.bytes;
        }
        st.slots.push_back(slot);
    }

    pub(super) fn cancel(&self) {
        self.lock().cancelled = true;
        self.work.notify_all();
        self.printer.notify_all();
        self.room.notify_all();
    }

    /// The next file no one has taken, and its slot number.  The
    /// printer takes none behind an item it has still to search (it
    /// searches that one first, at the head).
    fn untaken(st: &mut State<W>, printer: bool) -> Option<(u64, W::Item)> {
        if printer && st.printer_items > 0 {
            return None;
        }
        let head = st.head;
        let from = st.taken.max(head);
        let mut slots = st.slots.iter_mut().enumerate().skip((from - head) as usize);
        let (i, slot) = slots.find(|(_, s)| !s.for_printer && s.item.is_some())?;
        let item = slot.item.take()?;
        let number = head + i as u64;
        st.taken = number + 1;
        st.files_waiting -= 1;
        Some((number, item))
    }

    /// A search thread's: end the slot it searched, if any, and take the
    /// next file to search and its slot number; `None` when there are no
    /// more.
    pub(super) fn take(&self, ended: Option<(u64, W::End)>, walker: &W) -> Option<(u64, W::Item)> {
        let mut st = self.lock();
        if let Some((number, end)) = ended {
            self.end_slot(&mut st, number, end);
        }
        loop {
            if st.cancelled {
                return None;
            }
            if self.claim_walk(&mut st) {
                drop(st);
                self.walk_batch(walker);
                st = self.lock();
                continue;
            }
            if let Some(taken) = Queue::untaken(&mut st, false) {
                return Some(taken);
            }
            if st.walk_done {
                return None;
            }
            // Someone walks, or the queue is full until the head moves.
            st.idle_threads += 1;
            st = self.wait(&self.work, st);
            st.idle_threads -= 1;
        }
    }

    /// A search thread's: add a chunk to slot `number`, waiting while
    /// there is no room.
    pub(super) fn write(&self, number: u64, chunk: Chunk) -> io::Result<()> {
        let mut st = self.lock();
        let mut chunk = Some(chunk);
        loop {
            if st.cancelled {
                return Err(io::Error::from_raw_os_error(libc::ECANCELED));
            }
            match chunk.take().map(|c| self.try_add(&mut st, number, c)) {
                Some(Ok(())) => return Ok(()),
                Some(Err(c)) => chunk = Some(c),
                None => return Ok(()),
            }
            st.waiting_for_room += 1;
            st = self.wait(&self.room, st);
            st.waiting_for_room -= 1;
        }
    }

    /// Add a search thread's chunk to slot `number` if there is room: at
    /// the head, up to `head_held` bytes waiting (any chunk when none
    /// waits); behind it, up to `held` bytes in all the slots behind.
    /// The chunk back when there is none.
    pub(super) fn try_add(
        &self,
        st: &mut State<W>,
        number: u64,
        chunk: Chunk,
    ) -> Result<(), Chunk> {
        let len = chunk.len();
        let at_head = number == st.head;
        let index = (number - st.head) as usize;
        let waiting = st.slots[index].bytes;
        let room = match at_head {
            true => waiting == 0 || waiting + len <= self.head_held,
            false => st.behind + len <= self.held,
        };
        if !room {
            return Err(chunk);
        }
        if !at_head {
            st.behind += len;
        }
        let slot = &mut st.slots[index];
        slot.bytes += len;
        slot.chunks.push_back(chunk);
        if at_head {
            self.wake_printer(st);
        }
        Ok(())
    }

    pub(super) fn end_slot(&self, st: &mut State<W>, number: u64, end: W::End) {
        let index = (number - st.head) as usize;
        st.slots[index].end = Some(end);
        if index == 0 {
            self.wake_printer(st);
        }
    }

    /// What is printable at the head, taken out under the lock: its
    /// chunks, or its end (popping it).
    pub(super) fn printable(&self, st: &mut State<W>) -> Option<Next<W>> {
        let slot = st.slots.front_mut()?;
        if !slot.chunks.is_empty() {
            slot.bytes = 0;
            let chunks = slot.chunks.drain(..).collect();
            if st.waiting_for_room > 0 {
                self.room.notify_all();
            }
            return Some(Next::Print(chunks));
        }
        let end = slot.end?;
        if st.slots.len() == self.queued && st.idle_threads > 0 {
            // Room to walk again.
            self.work.notify_one();
        }
        st.slots.pop_front();
        st.head += 1;
        // The new head's bytes no longer count as behind it.
        let moved = st.slots.front().map_or(0, |s| s.bytes);
        st.behind -= moved;
        if st.waiting_for_room > 0 {
            self.room.notify_all();
        }
        Some(Next::Ended(end))
    }

    /// The printer's: end the slot it searched, if any, and wait for
    /// something to do.
    pub(super) fn next(&self, ended: Option<(u64, W::End)>, walker: &W, may_wait: bool) -> Next<W> {
        let mut st = self.lock();
        if let Some((number, end)) = ended {
            self.end_slot(&mut st, number, end);
        }
        loop {
            if let Some(next) = self.printable(&mut st) {
                return next;
            }
            let head_item = match st.slots.front_mut() {
                Some(slot) if slot.for_printer => slot.item.take(),
                _ => None,
            };
            if let Some(item) = head_item {
                st.printer_items -= 1;
                return Next::AtHead(st.head, item);
            }
            if self.claim_walk(&mut st) {
                drop(st);
                self.walk_batch(walker);
                st = self.lock();
                continue;
            }
            if !st.cancelled {
                if let Some((number, item)) = Queue::untaken(&mut st, true) {
                    return Next::File(number, item);
                }
            }
            if st.slots.is_empty() && st.walk_done || st.cancelled {
                return Next::Finished;
            }
            if !may_wait {
                return Next::WouldWait;
            }
            st.printer_waits = true;
            st = self.wait(&self.printer, st);
            st.printer_waits = false;
        }
    }

    /// The printer's own write to slot `number`: printed directly when
    /// its slot is the head, queued when there is room, or else the head
    /// is printed first.
    pub(super) fn own_write(&self, number: u64, chunk: Chunk, may_wait: bool) -> OwnWrite<W> {
        let len = chunk.len();
        let mut st = self.lock();
        loop {
            // The head's chunks first: they may be this slot's own, queued
            // before it became the head.
            match self.printable(&mut st) {
                Some(Next::Print(chunks)) => return OwnWrite::Print(chunks),
                Some(Next::Ended(end)) => return OwnWrite::Ended(end),
                _ => {}
            }
            if number == st.head {
                return OwnWrite::AtHead(chunk);
            }
            if st.behind + len <= self.held || st.cancelled {
                st.behind += len;
                let index = (number - st.head) as usize;
                st.slots[index].bytes += len;
                st.slots[index].chunks.push_back(chunk);
                return OwnWrite::Queued;
            }
            if !may_wait {
                return OwnWrite::WouldWait(chunk);
            }
            st.printer_waits = true;
            st = self.wait(&self.printer, st);
            st.printer_waits = false;
        }
    }
}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use crate::grep::file::ItemEnd;
    use crate::grep::walk::{Item, WalkState, Walker};

    type Files<'w> = Queue<Walker<'w>>;

    /// The queue of a run with `cfg`'s room.
    fn queue(cfg: crate::grep::GrepConfig) -> Files<'static> {
        let room = Room {
            held: cfg.held,
            head_held: cfg.head_held,
            queued: cfg.queued,
        };
        Queue::new(WalkState::new(Vec::new()), room)
    }

    fn file(name: &str) -> Item {
        Item::File {
            name: name.as_bytes().to_vec(),
            opened: None,
            dir: None,
            leaf: name.len(),
        }
    }

    /// The room rule and its byte counts, asked directly (the tests that
    /// compare output cannot see how much waited): behind the head the
    /// slots hold at most `held` bytes between them; the head holds at
    /// most `head_held` waiting for the printer, or one chunk of any size;
    /// printing the head's chunks, or the head moving on, frees room.
    #[test]
    fn output_waits_only_within_its_room() {
        let queue = queue(crate::grep::GrepConfig {
            held: 10,
            head_held: 4,
            queued: 8,
            ..Default::default()
        });
        let mut st = queue.lock();
        for n in ["a", "b", "c"] {
            Files::append(&mut st, file(n));
        }
        let bytes = |n: usize| Chunk::Err(vec![b'x'; n]);
        // Behind the head: 6, then 4 more fit; 1 more does not.
        assert!(queue.try_add(&mut st, 1, bytes(6)).is_ok());
        assert!(queue.try_add(&mut st, 2, bytes(4)).is_ok());
        assert_eq!(st.behind, 10);
        assert!(queue.try_add(&mut st, 2, bytes(1)).is_err());
        // At the head: any first chunk, then up to 4 bytes waiting.
        assert!(queue.try_add(&mut st, 0, bytes(9)).is_ok());
        assert!(queue.try_add(&mut st, 0, bytes(1)).is_err());
        assert_eq!(st.slots[0].bytes, 9);
        // The printer takes the head's chunks: room at the head again.
        assert!(matches!(queue.printable(&mut st), Some(Next::Print(c)) if c.len() == 1));
        assert!(queue.try_add(&mut st, 0, bytes(3)).is_ok());
        assert!(queue.try_add(&mut st, 0, bytes(1)).is_ok());
        assert!(queue.try_add(&mut st, 0, bytes(1)).is_err());
        // The head ends: slot 1 is the head now, its 6 bytes no longer
        // behind it.
        assert!(matches!(queue.printable(&mut st), Some(Next::Print(_))));
        queue.end_slot(
            &mut st,
            0,
            ItemEnd::Next {
                selected: false,
                error: false,
            },
        );
        assert!(matches!(queue.printable(&mut st), Some(Next::Ended(_))));
        assert_eq!((st.head, st.behind), (1, 4));
        assert!(queue.try_add(&mut st, 2, bytes(6)).is_ok());
        assert_eq!(st.behind, 10);
    }

    /// The printing thread's own output behind the head keeps to the same
    /// room as a search thread's: it queues while `behind` plus the chunk
    /// fits in `held`, and past that it would wait, until the run is
    /// cancelled (then nothing is printed any more, so nothing need wait).
    #[test]
    fn the_printers_own_output_waits_within_the_room() {
        let queue = queue(crate::grep::GrepConfig {
            held: 10,
            ..Default::default()
        });
        let bytes = |n: usize| Chunk::Err(vec![b'x'; n]);
        {
            let mut st = queue.lock();
            for n in ["a", "b"] {
                Files::append(&mut st, file(n));
            }
            assert!(queue.try_add(&mut st, 1, bytes(3)).is_ok());
        }
        let own = |n: usize| match queue.own_write(1, bytes(n), false) {
            OwnWrite::Queued => "queued",
            OwnWrite::WouldWait(_) => "would wait",
            _ => "other",
        };
        // 3 + 4 fits (3 * 4 would not); 7 + 4 does not; 7 + 3 just does.
        assert_eq!(own(4), "queued");
        assert_eq!(own(4), "would wait");
        assert_eq!(own(3), "queued");
        assert_eq!(queue.lock().behind, 10);
        assert_eq!(own(1), "would wait");
        queue.cancel();
        assert_eq!(own(1), "queued");
    }

    /// A note's message counts as output behind the head like any other.
    #[test]
    fn notes_count_behind_the_head() {
        let queue = queue(crate::grep::GrepConfig {
            held: 10,
            ..Default::default()
        });
        let mut st = queue.lock();
        let note = |text: &str| Item::Note {
            text: text.as_bytes().to_vec(),
            error: false,
        };
        Files::append(&mut st, note("first"));
        Files::append(&mut st, note("second"));
        Files::append(&mut st, file("a"));
        assert_eq!(st.behind, 6);
        assert!(queue.try_add(&mut st, 2, Chunk::Err(vec![0; 5])).is_err());
        assert_eq!(st.files_waiting, 1);
    }

    /// The printing thread searches a device itself when it reaches the
    /// head, so it takes no file queued behind one (with little room for
    /// output it would wait for the head while the head waits for it); a
    /// search thread takes them.
    #[test]
    fn the_printer_takes_no_file_past_a_device() {
        let queue = queue(Default::default());
        let mut st = queue.lock();
        Files::append(&mut st, file("a"));
        let device = Item::Device {
            name: b"fifo".to_vec(),
            follow: true,
            skipped: false,
        };
        Files::append(&mut st, device);
        Files::append(&mut st, file("b"));
        let taken = |st: &mut State<Walker>, printer| Files::untaken(st, printer).map(|(n, _)| n);
        assert_eq!(taken(&mut st, false), Some(0));
        assert_eq!(taken(&mut st, true), None);
        assert_eq!(taken(&mut st, false), Some(2));
        assert_eq!((st.files_waiting, st.printer_items), (0, 1));
    }
}
