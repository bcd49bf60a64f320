//! Live streams: a stdin whose bytes come in bursts, as from `tail -f`, a
//! terminal or a slow producer, pausing after each until the reader has
//! taken them all; and the check of what a run had written, and whether
//! it had exited, at each pause.
//!
//! The in-process reader ([`LiveReader`]) is asked `paused()` as the real
//! one asks `poll`, and notes what stdout and stderr held at the moment the
//! run read on past each pause: the moment a real reader would have
//! blocked.  The spec says what the bytes before the pause decide
//! (`samebytes_spec::Decided`); [`check_pauses`] compares.  Read sizes
//! stay the schedule's, within each burst.

use std::io::{self, Read};
use std::sync::{Arc, Mutex, MutexGuard};

use samebytes::grep::GrepStream;
use samebytes_spec::world::{Node, World};
use samebytes_spec::Decided;

use crate::mismatch::{Mismatch, Stream};
use crate::order::Written;
use crate::schedule::ChunkedReader;

/// What had been written when the run read on past a pause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passed {
    pub at: usize,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

struct LiveState {
    data: Vec<u8>,
    at: usize,
    /// Increasing, within `0..=data.len()`.
    pauses: Vec<usize>,
    /// The first pause not yet passed.
    next: usize,
    written: Written,
    passed: Vec<Passed>,
}

/// One live stream: readers of it share where it stands.
#[derive(Clone)]
pub struct Live(Arc<Mutex<LiveState>>);

impl Live {
    /// `data` pausing at `pauses` (sorted, deduplicated, at most its
    /// length), noting at each pause what `written` holds.
    pub fn new(data: Vec<u8>, pauses: Vec<usize>, written: Written) -> Live {
        debug_assert!(pauses.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(pauses.last().is_none_or(|&p| p <= data.len()));
        Live(Arc::new(Mutex::new(LiveState {
            data,
            at: 0,
            pauses,
            next: 0,
            written,
            passed: Vec::new(),
        })))
    }

    /// The world's stdin, when it is a stream that pauses.
    pub fn of_stdin(world: &World, written: Written) -> Option<Live> {
        let pauses = world.stdin_pauses();
        match &world.stdin.node {
            Node::Stream(d) if !pauses.is_empty() => Some(Live::new(d.clone(), pauses, written)),
            _ => None,
        }
    }

    fn state(&self) -> MutexGuard<'_, LiveState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A reader of the stream from where it stands.
    pub fn reader(&self) -> LiveReader {
        LiveReader(self.clone())
    }

    /// Read the rest, as GNU's drain of stdin does.
    pub fn drain(&self) {
        let mut r = self.reader();
        let mut buf = [0u8; 4096];
        while matches!(r.read(&mut buf), Ok(n) if n > 0) {}
    }

    /// The pauses the run read on past, with what it had written then.
    pub fn passed(&self) -> Vec<Passed> {
        self.state().passed.clone()
    }
}

/// A reader of a [`Live`] stream.
pub struct LiveReader(Live);

impl Read for LiveReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut s = self.0.state();
        if s.pauses.get(s.next) == Some(&s.at) {
            // The read a real reader would block in: what is written by
            // now is what the pause shows.
            let (stdout, stderr) = s.written.so_far();
            let at = s.at;
            s.passed.push(Passed { at, stdout, stderr });
            s.next += 1;
        }
        let limit = s.pauses.get(s.next).copied().unwrap_or(s.data.len());
        let n = buf.len().min(limit - s.at);
        let at = s.at;
        buf[..n].copy_from_slice(&s.data[at..at + n]);
        s.at += n;
        Ok(n)
    }
}

impl GrepStream for LiveReader {
    fn paused(&mut self) -> bool {
        let s = self.0.state();
        s.pauses.get(s.next) == Some(&s.at)
    }
}

/// A stream that may pause but does not: its writer wrote everything
/// before the reader came.
pub struct Flowing<R>(pub R);

impl<R: Read> Read for Flowing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read + Send> GrepStream for Flowing<R> {
    fn paused(&mut self) -> bool {
        false
    }
}

impl<R: GrepStream> GrepStream for ChunkedReader<R> {
    fn paused(&mut self) -> bool {
        self.inner_mut().paused()
    }
}

/// What the spec decided at a pause, or what a run had done there, as
/// one text to diff.
pub fn render(exited: bool, stdout: &[u8], stderr: &[u8]) -> Vec<u8> {
    let mut text = format!(
        "exited: {}\n--- stdout\n",
        if exited { "yes" } else { "no" }
    )
    .into_bytes();
    text.extend_from_slice(stdout);
    text.extend_from_slice(b"\n--- stderr\n");
    text.extend_from_slice(stderr);
    text
}

/// Check a run at the pauses of its stdin (`passed` and `decided` are in
/// the same order, pause for pause).  Where it read on past a pause, it
/// must have written exactly what the spec decided by then, and the spec
/// must not have exited there.  The first pause it did not read past, it
/// never reached or stopped at: the spec must have exited there (the
/// whole outcome is compared elsewhere).  Returns how many pauses were
/// checked.
pub fn check_pauses(
    tool: &'static str,
    variant: &str,
    decided: &[Decided],
    passed: &[Passed],
    reproducer: &dyn Fn() -> String,
) -> Result<usize, Box<Mismatch>> {
    let mismatch = |d: &Decided, actual: Vec<u8>| {
        Box::new(Mismatch {
            tool,
            variant: format!("{variant}, at the pause after {} bytes of stdin", d.at),
            stream: Stream::Pause,
            expected: render(d.exited, &d.outcome.stdout, &d.outcome.stderr),
            actual,
            reproducer: reproducer(),
        })
    };
    let mut checked = 0;
    for (i, d) in decided.iter().enumerate() {
        checked += 1;
        match passed.get(i) {
            Some(p) => {
                if d.exited || p.stdout != d.outcome.stdout || p.stderr != d.outcome.stderr {
                    return Err(mismatch(d, render(false, &p.stdout, &p.stderr)));
                }
            }
            None if d.exited => return Ok(checked),
            None => {
                let text = "exited, or stopped reading, by this pause";
                return Err(mismatch(d, text.as_bytes().to_vec()));
            }
        }
    }
    Ok(checked)
}
