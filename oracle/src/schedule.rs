//! Read and write schedules, and the adversarial reader and writer that
//! apply them to any input or sink.
//!
//! A [`ReadSchedule`] is a list of steps applied in a cycle to successive
//! `read` calls: return at most N bytes, or fail with `Interrupted`.  A
//! [`WriteSchedule`] does the same for `write` calls (accept at most N bytes,
//! or `Interrupted`) and may end in a hard failure: after K bytes accepted,
//! every write fails with EPIPE or ENOSPC, as a closed pipe or /dev/full do.

use std::io::{self, Read, Write};

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use samebytes_spec::world::{Node, World};

/// One step of a read schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadStep {
    /// Return at most this many bytes (at least 1).
    Chunk(usize),
    /// Fail with `ErrorKind::Interrupted`, returning nothing.
    Interrupted,
}

/// How successive reads are cut.  An empty schedule means "as much as the
/// caller asks for".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSchedule {
    pub steps: Vec<ReadStep>,
}

impl ReadSchedule {
    pub fn whole() -> Self {
        ReadSchedule::default()
    }

    pub fn bytewise() -> Self {
        ReadSchedule {
            steps: vec![ReadStep::Chunk(1)],
        }
    }
}

/// One step of a write schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteStep {
    /// Accept at most this many bytes (at least 1).
    Accept(usize),
    /// Fail with `ErrorKind::Interrupted`, accepting nothing.
    Interrupted,
}

/// The error a failing sink reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteFailureKind {
    /// EPIPE: the reader went away (with SIGPIPE ignored).
    BrokenPipe,
    /// ENOSPC: /dev/full or a full disk.
    NoSpace,
    /// EBADF: a closed stdout (`>&-`).
    BadDescriptor,
}

impl WriteFailureKind {
    pub fn errno(self) -> i32 {
        match self {
            WriteFailureKind::BrokenPipe => libc::EPIPE,
            WriteFailureKind::NoSpace => libc::ENOSPC,
            WriteFailureKind::BadDescriptor => libc::EBADF,
        }
    }

    pub fn spec_errno(self) -> samebytes_spec::Errno {
        match self {
            WriteFailureKind::BrokenPipe => samebytes_spec::Errno::BrokenPipe,
            WriteFailureKind::NoSpace => samebytes_spec::Errno::NoSpace,
            WriteFailureKind::BadDescriptor => samebytes_spec::Errno::BadDescriptor,
        }
    }
}

/// A hard failure: after `after` bytes have been accepted, writes fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteFailure {
    pub after: usize,
    pub kind: WriteFailureKind,
}

/// How successive writes are cut, and whether the sink fails.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteSchedule {
    pub steps: Vec<WriteStep>,
    pub failure: Option<WriteFailure>,
}

impl WriteSchedule {
    pub fn spec_failure(&self) -> Option<samebytes_spec::StdoutFailure> {
        self.failure.map(|f| samebytes_spec::StdoutFailure {
            limit: f.after,
            errno: f.kind.spec_errno(),
        })
    }
}

// ---------------------------------------------------------------------------
// Arbitrary: chunk sizes are mostly tiny, sometimes large.

fn arbitrary_size(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => u.int_in_range(1..=8usize)?,
        6..=7 => u.int_in_range(9..=300usize)?,
        _ => u.int_in_range(301..=70_000usize)?,
    })
}

impl<'a> Arbitrary<'a> for ReadSchedule {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.int_in_range(0..=8usize)?;
        let mut steps = Vec::with_capacity(n);
        for _ in 0..n {
            steps.push(if u.ratio(1, 5)? {
                ReadStep::Interrupted
            } else {
                ReadStep::Chunk(arbitrary_size(u)?)
            });
        }
        if steps.iter().all(|s| *s == ReadStep::Interrupted) && !steps.is_empty() {
            steps.push(ReadStep::Chunk(1));
        }
        Ok(ReadSchedule { steps })
    }
}

/// Where a failing stdout stops taking bytes: mostly within the first
/// write, but anywhere up to several MiB, past any buffer the tools use
/// (a case's output may be shorter: then it never fails).
fn failure_point(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => u.int_in_range(0..=200usize)?,
        2 => u.int_in_range(201..=70_000usize)?,
        _ => u.int_in_range(70_001..=(8usize << 20))?,
    })
}

impl<'a> Arbitrary<'a> for WriteSchedule {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.int_in_range(0..=6usize)?;
        let mut steps = Vec::with_capacity(n);
        for _ in 0..n {
            steps.push(if u.ratio(1, 5)? {
                WriteStep::Interrupted
            } else {
                WriteStep::Accept(arbitrary_size(u)?)
            });
        }
        if steps.iter().all(|s| *s == WriteStep::Interrupted) && !steps.is_empty() {
            steps.push(WriteStep::Accept(1));
        }
        let failure = if u.ratio(1, 4)? {
            Some(WriteFailure {
                after: failure_point(u)?,
                kind: if u.arbitrary()? {
                    WriteFailureKind::BrokenPipe
                } else {
                    WriteFailureKind::NoSpace
                },
            })
        } else {
            None
        };
        Ok(WriteSchedule { steps, failure })
    }
}

// ---------------------------------------------------------------------------
// proptest strategies.

fn size_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 1..=8usize, 3 => 9..=300usize, 1 => 301..=70_000usize]
}

pub fn read_schedule() -> impl Strategy<Value = ReadSchedule> {
    let step = prop_oneof![
        4 => size_strategy().prop_map(ReadStep::Chunk),
        1 => Just(ReadStep::Interrupted),
    ];
    prop::collection::vec(step, 0..8).prop_map(|mut steps| {
        if !steps.is_empty() && steps.iter().all(|s| *s == ReadStep::Interrupted) {
            steps.push(ReadStep::Chunk(1));
        }
        ReadSchedule { steps }
    })
}

pub fn write_schedule() -> impl Strategy<Value = WriteSchedule> {
    let step = prop_oneof![
        4 => size_strategy().prop_map(WriteStep::Accept),
        1 => Just(WriteStep::Interrupted),
    ];
    let failure = prop::option::weighted(
        0.25,
        (
            prop_oneof![2 => 0..=200usize, 1 => 201..=70_000usize, 1 => 70_001..=(8usize << 20)],
            prop::bool::ANY,
        )
            .prop_map(|(after, pipe)| WriteFailure {
                after,
                kind: if pipe {
                    WriteFailureKind::BrokenPipe
                } else {
                    WriteFailureKind::NoSpace
                },
            }),
    );
    (prop::collection::vec(step, 0..6), failure).prop_map(|(mut steps, failure)| {
        if !steps.is_empty() && steps.iter().all(|s| *s == WriteStep::Interrupted) {
            steps.push(WriteStep::Accept(1));
        }
        WriteSchedule { steps, failure }
    })
}

/// What every tool's proptest case is made of: bytes for the tool's body
/// generator (so the body shrinks with them), a read and a write schedule,
/// and two buffer sizes, mostly tiny.
pub fn case_parts() -> impl Strategy<Value = (Vec<u8>, ReadSchedule, WriteSchedule, usize, usize)> {
    let sizes = prop_oneof![4 => 1..=16usize, 1 => 17..=300usize, 1 => 301..=70_000usize];
    (
        prop::collection::vec(any::<u8>(), 0..2048),
        read_schedule(),
        write_schedule(),
        sizes.clone(),
        sizes,
    )
}

// ---------------------------------------------------------------------------
// Read errors in a world.

/// Maybe give one regular input of `world` (a named file or stdin) an EIO
/// point, somewhere in its bytes.  Called last by each generator, so inputs
/// decoded before read errors existed keep their meaning.
/// An argument of raw bytes from the fuzz input (at most 24, NUL-free as
/// argv is): the parser then meets abbreviations, unknown options, bad
/// values and odd operands no pool lists, and a libFuzzer dictionary's
/// option tokens (`fuzz/dict/`) reach the command line.  `refused`
/// prefixes are left out (cat's buffer sizes, where a dictionary's `1G`
/// would cost a gigabyte per case).
pub fn raw_argument(u: &mut Unstructured<'_>, refused: &[&[u8]]) -> arbitrary::Result<Vec<u8>> {
    let len = u.int_in_range(0..=24usize)?.min(u.len());
    let raw: Vec<u8> = u.bytes(len)?.iter().copied().filter(|&b| b != 0).collect();
    if refused.iter().any(|p| raw.starts_with(p)) {
        return Ok(b"--".to_vec());
    }
    Ok(raw)
}

pub fn arbitrary_read_error(u: &mut Unstructured<'_>, world: &mut World) -> arbitrary::Result<()> {
    if !u.ratio(1, 5)? {
        return Ok(());
    }
    if matches!(world.stdin.node, Node::Stream(_)) && u.ratio(1, 3)? {
        // A non-blocking pipe that runs dry: EAGAIN after its bytes.
        world.read_errors.stdin_would_block = true;
    }
    let mut candidates: Vec<(Option<Vec<u8>>, usize, usize)> = world
        .files
        .iter()
        .filter_map(|(name, node)| match node {
            Node::Regular(d) if !d.is_empty() => Some((Some(name.clone()), 0, d.len())),
            _ => None,
        })
        .collect();
    if let Node::Regular(d) = &world.stdin.node {
        if d.len() > world.stdin.offset {
            candidates.push((None, world.stdin.offset, d.len()));
        }
    }
    if candidates.is_empty() {
        return Ok(());
    }
    let (name, from, len) = u.choose(&candidates)?.clone();
    let at = u.int_in_range(from..=len - 1)?;
    match name {
        Some(n) => {
            world.read_errors.files.insert(n, at);
        }
        None => world.read_errors.stdin = Some(at),
    }
    Ok(())
}

/// Maybe give a stream stdin pauses (`World::stdin_pauses`): a few
/// offsets in its bytes, most where a live writer stops (after a line, or
/// after a NUL, where the binary probe may end), others anywhere, at its
/// start and at its end.  Drawn last, and none once the fuzz input runs
/// out, so inputs made before pauses existed keep their meaning.
pub fn arbitrary_pauses(u: &mut Unstructured<'_>, world: &mut World) -> arbitrary::Result<()> {
    let Node::Stream(d) = &world.stdin.node else {
        return Ok(());
    };
    if world.read_errors.stdin_would_block || u.ratio(1, 2)? {
        return Ok(());
    }
    let ends: Vec<usize> = (1..=d.len())
        .filter(|&i| d[i - 1] == b'\n' || d[i - 1] == 0)
        .collect();
    let nul = d.iter().position(|&b| b == 0);
    let mut pauses = Vec::new();
    for _ in 0..u.int_in_range(1..=6u8)? {
        let p = match u.int_in_range(0..=9u8)? {
            0 => 0,
            1 => d.len(),
            2..=6 if !ends.is_empty() => *u.choose(&ends)?,
            7 if nul.is_some() => nul.unwrap_or(0) + usize::from(u.arbitrary::<bool>()?),
            _ => u.int_in_range(0..=d.len())?,
        };
        pauses.push(p);
    }
    pauses.sort_unstable();
    pauses.dedup();
    world.stdin_pauses = pauses;
    Ok(())
}

/// The bytes of a regular input from `from` on, as a reader that fails
/// with EIO at the world's error point `fail_at` (an absolute offset), and
/// at every read after it, as a bad block does.
pub fn failing_reader(data: &[u8], from: usize, fail_at: Option<usize>) -> FailingAt {
    let end = fail_at.map_or(data.len(), |at| at.clamp(from, data.len()));
    FailingAt {
        data: io::Cursor::new(data.get(from..end).unwrap_or_default().to_vec()),
        fails: fail_at
            .is_some_and(|at| at < data.len())
            .then_some(libc::EIO),
    }
}

/// A stream stdin's bytes, as a reader that then fails with EAGAIN at
/// every read if `would_block` (a non-blocking pipe whose writer stays
/// open), or ends.
pub fn stream_reader(data: &[u8], would_block: bool) -> FailingAt {
    FailingAt {
        data: io::Cursor::new(data.to_vec()),
        fails: would_block.then_some(libc::EAGAIN),
    }
}

/// See [`failing_reader`] and [`stream_reader`].
pub struct FailingAt {
    data: io::Cursor<Vec<u8>>,
    /// The errno every read past the data fails with.
    fails: Option<i32>,
}

impl Read for FailingAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (self.data.read(buf)?, self.fails) {
            (0, Some(errno)) if !buf.is_empty() => Err(io::Error::from_raw_os_error(errno)),
            (n, _) => Ok(n),
        }
    }
}

// ---------------------------------------------------------------------------
// The adversarial reader and writer.

/// A reader that cuts every read according to a schedule.
pub struct ChunkedReader<R> {
    inner: R,
    schedule: ReadSchedule,
    next: usize,
}

impl<R: Read> ChunkedReader<R> {
    pub fn new(inner: R, schedule: ReadSchedule) -> Self {
        ChunkedReader {
            inner,
            schedule,
            next: 0,
        }
    }

    pub fn inner(&self) -> &R {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut R {
        &mut self.inner
    }
}

impl<R: Read> Read for ChunkedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.schedule.steps.is_empty() {
            return self.inner.read(buf);
        }
        let step = self.schedule.steps[self.next % self.schedule.steps.len()];
        self.next += 1;
        match step {
            ReadStep::Interrupted => Err(io::Error::from(io::ErrorKind::Interrupted)),
            ReadStep::Chunk(n) => {
                let n = n.min(buf.len());
                self.inner.read(&mut buf[..n])
            }
        }
    }
}

/// A writer that accepts short writes according to a schedule and may fail
/// hard after a number of bytes.
pub struct ShortWriter<W> {
    inner: W,
    schedule: WriteSchedule,
    next: usize,
    accepted: usize,
}

impl<W: Write> ShortWriter<W> {
    pub fn new(inner: W, schedule: WriteSchedule) -> Self {
        ShortWriter {
            inner,
            schedule,
            next: 0,
            accepted: 0,
        }
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for ShortWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut room = buf.len();
        if let Some(f) = self.schedule.failure {
            if self.accepted >= f.after {
                return Err(io::Error::from_raw_os_error(f.kind.errno()));
            }
            room = room.min(f.after - self.accepted);
        }
        if !self.schedule.steps.is_empty() {
            let step = self.schedule.steps[self.next % self.schedule.steps.len()];
            self.next += 1;
            match step {
                WriteStep::Interrupted => return Err(io::Error::from(io::ErrorKind::Interrupted)),
                WriteStep::Accept(n) => room = room.min(n),
            }
        }
        let n = self.inner.write(&buf[..room])?;
        self.accepted += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
