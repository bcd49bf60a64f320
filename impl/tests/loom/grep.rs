//! The parallel grep's hand-overs under loom: the relay's claims on a
//! mapped window, and the queue of slots between the walk, the search
//! threads and the printer.  Each model drives the shipped file through
//! the calls its real callers make (`grep/mapped.rs` for the relay,
//! `grep/ordered.rs` for the queue), with toy records and items in place
//! of the matcher's, and checks what the callers rely on: a tiling of the
//! window in order, and output in walk order, with no thread left waiting.

// The run's callers use every item; the models do not need them all.
#![allow(dead_code)]

#[path = "../../src/grep/queue.rs"]
mod queue;
#[path = "../../src/grep/relay.rs"]
mod relay;

use std::sync::Arc;

use loom::thread;

use queue::{Chunk, Next, OwnWrite, Place, Queue, Room, Walk};
use relay::{Claim, Record, Relay};

/// A helper's record of the lines `[.., to)`.
struct Toy {
    to: usize,
    hits: usize,
}

impl Record for Toy {
    fn hit_count(&self) -> usize {
        self.hits
    }
}

/// The core's loop (`mapped.rs`, `regions`) over lines `[from,
/// complete)`, one unit long each, `size` lines a region: each piece it
/// searches as (start, end, whether through a record).
fn core(
    relay: &Relay<Toy>,
    from: usize,
    complete: usize,
    size: usize,
) -> Vec<(usize, usize, bool)> {
    let mut pieces = Vec::new();
    let mut at = from;
    while at < complete {
        let end = (at + size).min(complete);
        let piece = match relay.claim(at, end) {
            Claim::Own(to) => {
                assert!(to > at && to <= end, "own {at}..{to}, cut at {end}");
                (at, to, false)
            }
            Claim::Record(found) => (at, found.to, true),
        };
        assert!(piece.1 > piece.0, "an empty piece after {pieces:?}");
        pieces.push(piece);
        at = piece.1;
    }
    relay.stop();
    pieces
}

/// The core and a helper on lines `[0, complete)`, a line a region, the
/// helper holding at most `budget` hits: the pieces the core searched.
/// Each region is searched once: the helper searched exactly the regions
/// the core took its records of.
fn relay_run(complete: usize, budget: usize) -> Vec<(usize, usize, bool)> {
    let relay = Arc::new(Relay::new(0, complete, budget));
    let helper = {
        let relay = Arc::clone(&relay);
        thread::spawn(move || {
            let searched = std::cell::RefCell::new(Vec::new());
            let cut = |floor: usize, to: usize| floor.max(to - 1);
            relay.help(cut, |from, to| {
                searched.borrow_mut().push((from, to, true));
                Toy { to, hits: 1 }
            });
            searched.into_inner()
        })
    };
    let pieces = core(&relay, 0, complete, 1);
    let mut searched = helper.join().unwrap();
    searched.reverse();
    let records: Vec<_> = pieces.iter().copied().filter(|p| p.2).collect();
    assert_eq!(
        searched, records,
        "the helper's regions, the core's records"
    );
    pieces
}

/// The pieces tile `[0, complete)` in order.
fn assert_tiles(pieces: &[(usize, usize, bool)], complete: usize) {
    assert_eq!(pieces.first().map(|p| p.0), Some(0), "{pieces:?}");
    assert!(pieces.windows(2).all(|p| p[0].1 == p[1].0), "{pieces:?}");
    assert_eq!(pieces.last().map(|p| p.1), Some(complete), "{pieces:?}");
}

/// Whatever the interleaving of the core's claims from the front and the
/// helper's from the back (and the helper's notifications between them),
/// the core's own regions and the records it takes tile the window in
/// order, the last region is the helper's record, and neither side waits
/// for ever.
#[test]
fn the_relays_pieces_tile_the_window_and_the_helper_ends_it() {
    loom::model(|| {
        let pieces = relay_run(3, usize::MAX);
        assert_tiles(&pieces, 3);
        assert_eq!(pieces.last().map(|p| p.2), Some(true), "{pieces:?}");
    });
}

/// A helper that reaches its budget leaves, and the core searches the
/// rest itself: still a tiling, and no wait for records that never come.
#[test]
fn a_helper_out_of_budget_leaves_the_rest_to_the_core() {
    loom::model(|| {
        let pieces = relay_run(3, 1);
        assert_tiles(&pieces, 3);
        assert!(pieces.iter().filter(|p| p.2).count() <= 2, "{pieces:?}");
    });
}

/// A toy walk: items by kind, `f` a file (searched by any thread), `d` a
/// device (by the printer at the head), `n` a note (a message, no search).
/// Each searched item writes its letter and number, the number alone
/// after; a note writes its letter to stderr.
struct Items(&'static [u8]);

impl Walk for Items {
    type Item = (usize, u8);
    type End = usize;
    type State = usize;

    fn batch(&self, next: &mut usize, out: &mut Vec<(usize, u8)>, want: usize) -> bool {
        while out.len() < want && *next < self.0.len() {
            out.push((*next, self.0[*next]));
            *next += 1;
        }
        *next == self.0.len()
    }

    fn place(item: (usize, u8)) -> Place<(usize, u8), usize> {
        match item.1 {
            b'n' => Place::Ended {
                text: vec![b'n'],
                end: item.0,
            },
            b'd' => Place::AtHead(item),
            _ => Place::File(item),
        }
    }
}

/// What one thread would print for the items.
fn one_thread(items: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, &kind) in items.iter().enumerate() {
        match kind {
            b'n' => out.push(b'n'),
            _ => out.extend([kind, b'0' + i as u8, b'0' + i as u8]),
        }
    }
    out
}

/// The writes of a search of `item`.
fn writes((i, kind): (usize, u8)) -> [Vec<u8>; 2] {
    [vec![kind, b'0' + i as u8], vec![b'0' + i as u8]]
}

fn bytes(chunk: Chunk) -> Vec<u8> {
    match chunk {
        Chunk::Out { bytes, .. } | Chunk::Err(bytes) => bytes,
    }
}

/// A search thread (`ordered.rs`, `search_thread`): take files in queue
/// order and write each one's output into its slot.
fn search_thread(queue: &Queue<Items>, items: &Items) {
    let mut ended = None;
    while let Some((number, item)) = queue.take(ended.take(), items) {
        for write in writes(item) {
            let chunk = Chunk::Out {
                bytes: write,
                optional: 0,
            };
            if queue.write(number, chunk).is_err() {
                return;
            }
        }
        ended = Some((number, item.0));
    }
}

/// The printer's own write (`ordered.rs`, `OwnWriter::write`).
fn own_write(queue: &Queue<Items>, number: u64, write: &[u8], out: &mut Vec<u8>) {
    let chunk_of = || Chunk::Out {
        bytes: write.to_vec(),
        optional: 0,
    };
    let mut chunk = Some(chunk_of());
    let mut may_wait = false;
    while let Some(c) = chunk.take() {
        match queue.own_write(number, c, may_wait) {
            OwnWrite::Queued => {}
            OwnWrite::AtHead(c) => out.extend(bytes(c)),
            OwnWrite::WouldWait(c) => {
                may_wait = true;
                chunk = Some(c);
            }
            OwnWrite::Print(chunks) => {
                chunks.into_iter().for_each(|c| out.extend(bytes(c)));
                chunk = Some(chunk_of());
            }
            OwnWrite::Ended(_) => chunk = Some(chunk_of()),
        }
    }
}

/// The printer (`ordered.rs`, `print_and_search`): print the head as it
/// comes, search the head's device, and otherwise search files.
fn printer(queue: &Queue<Items>, items: &Items) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ended = None;
    loop {
        let mut next = queue.next(ended.take(), items, false);
        if let Next::WouldWait = next {
            next = queue.next(None, items, true);
        }
        let (number, item) = match next {
            Next::Print(chunks) => {
                chunks.into_iter().for_each(|c| out.extend(bytes(c)));
                continue;
            }
            Next::Ended(_) => continue,
            Next::Finished => break,
            Next::AtHead(number, item) | Next::File(number, item) => (number, item),
            Next::WouldWait => unreachable!("asked to wait"),
        };
        for write in writes(item) {
            own_write(queue, number, &write, &mut out);
        }
        ended = Some((number, item.0));
    }
    out
}

/// The printer and `searchers` search threads over `items`, with `room`.
fn ordered_run(items: &'static [u8], room: Room, searchers: usize) -> Vec<u8> {
    let queue = Arc::new(Queue::<Items>::new(0, room));
    let searchers: Vec<_> = (0..searchers)
        .map(|_| {
            let queue = Arc::clone(&queue);
            thread::spawn(move || search_thread(&queue, &Items(items)))
        })
        .collect();
    let out = printer(&queue, &Items(items));
    queue.cancel();
    searchers.into_iter().for_each(|s| s.join().unwrap());
    out
}

/// `searchers` search threads and the printer over `items` with `room`
/// print what one thread would, under every interleaving with at most
/// `preemptions` (a thread switched out while it could go on).  Unbounded,
/// two files take six minutes; six preemptions, a few seconds.
fn prints_in_walk_order(items: &'static [u8], room: Room, searchers: usize, preemptions: usize) {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(preemptions);
    model.check(move || {
        let out = ordered_run(items, room, searchers);
        assert_eq!(out, one_thread(items));
    });
}

/// Whatever the interleaving of the walk, the search thread's takes and
/// writes, and the printer's prints, own writes and waits: the output is
/// one thread's, and no one is left waiting (loom fails a model where
/// every thread waits).  The room is one byte behind the head and one at
/// it, a slot queued at a time and a walk batch of one, so that every
/// wait is reached.
#[test]
fn the_queue_prints_in_walk_order_and_no_one_waits_for_ever() {
    let room = Room {
        held: 1,
        head_held: 1,
        queued: 1,
    };
    prints_in_walk_order(b"ff", room, 1, 6);
}

/// A note and a device among the files: the printer searches the device
/// at the head and takes no file past it; the note's message keeps its
/// place.
#[test]
fn devices_and_notes_keep_their_place() {
    let room = Room {
        held: 2,
        head_held: 1,
        queued: 2,
    };
    prints_in_walk_order(b"dnf", room, 1, 6);
}

/// Two search threads: a walked batch wakes every idle one, and output
/// still comes out in walk order.  Three threads: six preemptions would
/// take hours, four two minutes.
#[test]
fn two_search_threads_print_in_walk_order() {
    let room = Room {
        held: 1,
        head_held: 1,
        queued: 2,
    };
    prints_in_walk_order(b"fff", room, 2, 3);
}
