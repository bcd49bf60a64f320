//! Searching many inputs on several threads, printed in exactly the order
//! one thread would print them.
//!
//! The walker (its own thread) appends [`Item`]s to a queue of slots, one
//! per item, in walk order.  The calling thread and `threads - 1` search
//! threads take the files in queue order and search each into its slot.
//! Only the calling thread prints: between its own files, and while it
//! waits, it prints the slot at the head of the queue as its output
//! arrives; its own file, once at the head, it prints directly.  It also
//! searches the items that may wait on the outside world (stdin, devices)
//! when they reach the head, as one thread would, and takes no file
//! behind one.  A search thread wakes another only when that one waits.
//!
//! Invariants:
//! - A slot's output is printed only when every slot before it has ended,
//!   stdout and stderr interleaved as they were written; so the output is
//!   one thread's, whatever the scheduling.
//! - Output waits in memory only in slots behind the head, and at most
//!   `GrepConfig::held` bytes of it: a search thread that would pass that
//!   waits until its slot is the head.  At the head, at most `head_held`
//!   bytes wait for the printer.  The head's searcher never waits for the
//!   others, and the printer drains the head while it waits, so there is
//!   always progress.
//! - The walk stays at most `GrepConfig::queued` slots (and a batch)
//!   ahead of the printing.
//! - A searcher cannot know whether the inputs before its own selected
//!   anything, which decides whether a group separator comes before its
//!   input's first group: it guesses yes and marks that separator
//!   (`Sink::optional_head`), and the printer drops it when the guess was
//!   wrong.
//! - `-q` matching, `-P` dying, or stdout failing ends the run: the queue
//!   is cancelled, every thread stops at its next write or item, and what
//!   the slots behind hold is never printed.

use std::cell::{Cell, RefCell};
use std::io::{self, Write};

use super::file::{ItemEnd, RunContext};
use super::matcher::Matcher;
use super::queue::{Chunk, Next, OwnWrite, Place, Queue, Room, Walk};
use super::search::Search;
use super::sink::{Sink, Stop};
use super::system::GrepSystem;
use super::walk::{Item, WalkState, Walker};

/// The queue's items are the walk's.
impl Walk for Walker<'_> {
    type Item = Item;
    type End = ItemEnd;
    type State = WalkState;

    fn batch(&self, state: &mut WalkState, out: &mut Vec<Item>, want: usize) -> bool {
        self.fill(state, out, want);
        state.done()
    }

    fn place(item: Item) -> Place<Item, ItemEnd> {
        match item {
            Item::Note { text, error } => Place::Ended {
                text,
                end: ItemEnd::Next {
                    selected: false,
                    error,
                },
            },
            Item::File { .. } => Place::File(item),
            Item::Device { .. } | Item::Stdin => Place::AtHead(item),
        }
    }
}

/// A search thread's stdout or stderr: chunks into the slot of the item
/// being searched.
struct SlotWriter<'q, 'w> {
    queue: &'q Queue<Walker<'w>>,
    slot: &'q Cell<u64>,
    /// Stdout's: how many bytes of the next write are an optional
    /// separator (the sink says at each flush).  Stderr has none.
    optional: Option<&'q Cell<usize>>,
}

/// A write as a chunk: stdout's, with the optional separator length the
/// sink set, or stderr's.
fn chunk_of(buf: &[u8], optional: Option<usize>) -> Chunk {
    match optional {
        Some(optional) => Chunk::Out {
            bytes: buf.to_vec(),
            optional,
        },
        None => Chunk::Err(buf.to_vec()),
    }
}

impl Write for SlotWriter<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !buf.is_empty() {
            let optional = self.optional.map(Cell::take);
            self.queue.write(self.slot.get(), chunk_of(buf, optional))?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What the run so far adds up to.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) matched: bool,
    pub(super) error: bool,
    /// Has any input selected a line (for the group separator)?
    pub(super) used: bool,
}

impl Tally {
    /// Add an item's end; `Some(status)` when grep exits now.
    pub(super) fn add(&mut self, end: ItemEnd) -> Option<i32> {
        match end {
            ItemEnd::Next { selected, error } => {
                self.matched |= selected;
                self.used |= selected;
                self.error |= error;
                None
            }
            ItemEnd::Exit(status) => Some(status),
        }
    }

    pub(super) fn status(&self) -> i32 {
        match (self.error, self.matched) {
            (true, _) => 2,
            (false, true) => 0,
            (false, false) => 1,
        }
    }
}

/// The thread that prints: its streams, and where the run stands.
pub(super) struct Printer<'p> {
    pub(super) stdout: &'p mut dyn Write,
    pub(super) stderr: &'p mut dyn Write,
    pub(super) system: &'p dyn GrepSystem,
    /// Set when writing to stdout failed.
    pub(super) stdout_failed: Option<io::Error>,
    pub(super) tally: Tally,
    /// Set when an item ended the run.
    pub(super) exit: Option<i32>,
    /// Stdout from the slots, batched: written when `write_size` is
    /// reached, before any message and before the printer waits (per
    /// line with `--line-buffered`).
    pending: Vec<u8>,
    write_size: usize,
    line_buffered: bool,
}

impl<'p> Printer<'p> {
    pub(super) fn new(
        stdout: &'p mut dyn Write,
        stderr: &'p mut dyn Write,
        system: &'p dyn GrepSystem,
        write_size: usize,
        line_buffered: bool,
    ) -> Printer<'p> {
        Printer {
            stdout,
            stderr,
            system,
            stdout_failed: None,
            tally: Tally::default(),
            exit: None,
            pending: Vec::new(),
            write_size,
            line_buffered,
        }
    }

    /// Print a chunk from the head; `Err` when stdout failed.
    fn print(&mut self, chunk: Chunk) -> io::Result<()> {
        match chunk {
            Chunk::Out { bytes, optional } => {
                let skip = if self.tally.used { 0 } else { optional };
                self.pending.extend_from_slice(&bytes[skip..]);
                if self.line_buffered || self.pending.len() >= self.write_size {
                    self.flush()?;
                }
                Ok(())
            }
            Chunk::Err(text) => {
                self.flush()?;
                let _ = self.stderr.write_all(&text);
                Ok(())
            }
        }
    }

    /// Write the batched stdout.  A failure is kept here, whoever met
    /// it: a message's flush meets it on the way to stderr, whose own
    /// errors are ignored, and the run must still end with GNU's `write
    /// error`.  Once stdout has failed, nothing more is printed.
    pub(super) fn flush(&mut self) -> io::Result<()> {
        if self.stdout_failed.is_some() {
            return Err(io::Error::from_raw_os_error(libc::ECANCELED));
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let written = self.stdout.write_all(&self.pending);
        self.pending.clear();
        if let Err(e) = written {
            self.stdout_failed = Some(e);
            return Err(io::Error::from_raw_os_error(libc::ECANCELED));
        }
        Ok(())
    }

    /// [`Printer::flush`]; false if stdout failed (the failure is kept).
    fn flushed(&mut self) -> bool {
        self.flush().is_ok()
    }

    /// Print what the head holds, or add its end; `Err` when the run ends.
    fn head<'w>(&mut self, next: Next<Walker<'w>>) -> Result<Option<Next<Walker<'w>>>, ()> {
        match next {
            Next::Print(chunks) => {
                for chunk in chunks {
                    if self.print(chunk).is_err() {
                        // The failure is kept by `flush`.
                        return Err(());
                    }
                }
                Ok(None)
            }
            Next::Ended(end) => match self.tally.add(end) {
                Some(status) => {
                    self.exit = Some(status);
                    Err(())
                }
                None => Ok(None),
            },
            other => Ok(Some(other)),
        }
    }
}

/// The printer's stdout or stderr for its own searches.
struct OwnWriter<'q, 'p, 'w> {
    queue: &'q Queue<Walker<'w>>,
    printer: &'q RefCell<Printer<'p>>,
    slot: &'q Cell<u64>,
    optional: Option<&'q Cell<usize>>,
}

impl Write for OwnWriter<'_, '_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let optional = self.optional.map(Cell::take);
        let mut chunk = Some(chunk_of(buf, optional));
        let mut printer = self.printer.borrow_mut();
        if printer.exit.is_some() || printer.stdout_failed.is_some() {
            // The run has ended: the rest of this output is never printed.
            return Err(io::Error::from_raw_os_error(libc::ECANCELED));
        }
        let mut may_wait = false;
        while let Some(c) = chunk.take() {
            match self.queue.own_write(self.slot.get(), c, may_wait) {
                OwnWrite::Queued => {}
                // Its own output, at the head, goes out as it comes (a
                // stdin that may block must not hold it back).
                OwnWrite::AtHead(c) => {
                    printer.print(c)?;
                    printer.flush()?;
                }
                OwnWrite::WouldWait(c) => {
                    printer.flush()?;
                    may_wait = true;
                    chunk = Some(c);
                }
                OwnWrite::Print(chunks) => {
                    for c in chunks {
                        printer.print(c)?;
                    }
                    chunk = Some(chunk_of(buf, optional));
                }
                OwnWrite::Ended(end) => {
                    if let Some(status) = printer.tally.add(end) {
                        printer.exit = Some(status);
                        self.queue.cancel();
                        return Err(io::Error::from_raw_os_error(libc::ECANCELED));
                    }
                    chunk = Some(chunk_of(buf, optional));
                }
            }
        }
        Ok(buf.len())
    }

    /// What the printer batched goes out (a stdin that pauses must not
    /// hold back the output before it).
    fn flush(&mut self) -> io::Result<()> {
        self.printer.borrow_mut().flush()
    }
}

/// Search the items `walk` produces on this thread and a search thread
/// per matcher, printing in walk order; the exit status, or `None`,
/// having printed nothing, when the threads could not be started.
pub(super) fn search_ordered<'a, 'p>(
    ctx: &RunContext<'a>,
    matcher: &'a Matcher,
    matchers: Vec<Matcher>,
    walker: &Walker,
    walk: WalkState,
    printer: Printer<'p>,
) -> (Option<i32>, Printer<'p>) {
    let room = Room {
        held: ctx.cfg.held,
        head_held: ctx.cfg.head_held,
        queued: ctx.cfg.queued,
    };
    let queue = Queue::new(walk, room);
    let queue = &queue;
    let printer = RefCell::new(printer);
    let status = std::thread::scope(|scope| {
        for m in matchers {
            let work = move || search_thread(queue, ctx, m, walker);
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_err()
            {
                queue.cancel();
                return None;
            }
        }
        let status = print_and_search(queue, ctx, matcher, walker, &printer);
        queue.cancel();
        Some(status)
    });
    (status, printer.into_inner())
}

/// A search thread: take files in queue order and search each into its
/// slot, until there are none or the run is cancelled.
fn search_thread<'w>(
    queue: &Queue<Walker<'w>>,
    ctx: &RunContext,
    matcher: Matcher,
    walker: &Walker<'w>,
) {
    let slot = Cell::new(0);
    let optional = Cell::new(0);
    let mut out = SlotWriter {
        queue,
        slot: &slot,
        optional: Some(&optional),
    };
    let mut err = SlotWriter {
        queue,
        slot: &slot,
        optional: None,
    };
    let sink = Sink::new(&mut out, ctx.cfg.write_size, ctx.line_buffered);
    let mut search = Search::new(ctx, &matcher, sink.marking(&optional));
    search.used_guessed = true;
    let mut ended = None;
    while let Some((number, item)) = queue.take(ended.take(), walker) {
        slot.set(number);
        search.used = true;
        let end = search
            .item(item, ctx, &mut err, None)
            .and_then(|end| search.sink.flush().map(|()| end));
        match end {
            Ok(end) => ended = Some((number, end)),
            // Only a cancelled run fails a write here.
            Err(_) => return,
        }
    }
}

/// The printer: print the head as it comes, search the head's item when
/// it is the printer's, and otherwise search files; the exit status.
fn print_and_search<'w>(
    queue: &Queue<Walker<'w>>,
    ctx: &RunContext,
    matcher: &Matcher,
    walker: &Walker<'w>,
    printer: &RefCell<Printer>,
) -> i32 {
    let slot = Cell::new(0);
    let optional = Cell::new(0);
    let mut out = OwnWriter {
        queue,
        printer,
        slot: &slot,
        optional: Some(&optional),
    };
    let mut err = OwnWriter {
        queue,
        printer,
        slot: &slot,
        optional: None,
    };
    let sink = Sink::new(&mut out, ctx.cfg.write_size, ctx.line_buffered);
    let mut search = Search::new(ctx, matcher, sink.marking(&optional));
    search.used_guessed = true;
    let system = printer.borrow().system;
    let mut ended = None;
    loop {
        // An end met while the printer wrote its own output (`-q`, a
        // dying search), or a failed stdout, ends the run: nothing after
        // it is printed.
        let ended_run = {
            let p = printer.borrow();
            p.exit.is_some() || p.stdout_failed.is_some()
        };
        if ended_run {
            break;
        }
        let mut next = queue.next(ended.take(), walker, false);
        if let Next::WouldWait = next {
            if !printer.borrow_mut().flushed() {
                break;
            }
            next = queue.next(None, walker, true);
        }
        let taken = printer.borrow_mut().head(next);
        let (number, item, at_head) = match taken {
            Err(()) => break,
            Ok(None) => continue,
            Ok(Some(Next::Finished)) => break,
            Ok(Some(Next::AtHead(number, item))) => (number, item, true),
            Ok(Some(Next::File(number, item))) => (number, item, false),
            Ok(Some(_)) => continue,
        };
        slot.set(number);
        search.used = true;
        let stdin = at_head.then_some(system);
        let end = search
            .item(item, ctx, &mut err, stdin)
            .and_then(|end| search.sink.flush().map(|()| end));
        match end {
            Ok(end) => ended = Some((number, end)),
            Err(Stop::Write(e)) => {
                let mut p = printer.borrow_mut();
                if p.exit.is_none() && p.stdout_failed.is_none() {
                    p.stdout_failed = Some(e);
                }
                break;
            }
            // `item` reports a dying search as an end.
            Err(Stop::Match(_)) => break,
        }
    }
    let mut p = printer.borrow_mut();
    if p.stdout_failed.is_none() {
        p.flushed();
    }
    match (&p.stdout_failed, p.exit) {
        (Some(_), _) => 2,
        (None, Some(status)) => status,
        (None, None) => p.tally.status(),
    }
}
