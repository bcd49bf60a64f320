//! The cat driver: generate a case (inputs, options, where stdout goes,
//! read and write schedules, buffer sizes), run the spec and the
//! implementation on it, and compare stdout, stderr and exit status.
//!
//! The implementation runs three times per case: under the case's read
//! schedule with the case's buffer sizes, reading whole inputs with the
//! default sizes, and one byte per read with tiny sizes.  Every run writes
//! through the case's write schedule.  The `--read-buffer-size` and
//! `--write-buffer-size` options in the generated command lines sweep the
//! sizes once more; the spec ignores them, as it must.

use std::cell::Cell;
use std::io::{self, Write};
use std::os::fd::RawFd;
use std::rc::Rc;

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use samebytes::cat::{CatConfig, CatInput, CatSystem, SelfCopy};
use samebytes_spec::cat::{CatEnv, CatStdout};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Errno, Locale, Outcome};

use crate::codec::{self, Decoder, Encoder};
use crate::live::{check_pauses, Live, Passed};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::order;
use crate::schedule::{self, ChunkedReader, ReadSchedule, ShortWriter, WriteSchedule};
use crate::wc::{arbitrary_data, arbitrary_size, os_error, FailingReader};

/// One cat test case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatCase {
    pub args: Vec<Vec<u8>>,
    pub utf8: bool,
    pub posixly_correct: bool,
    pub world: World,
    pub stdout: CatStdout,
    pub read: ReadSchedule,
    pub write: WriteSchedule,
    pub read_size: usize,
    pub write_size: usize,
}

impl CatCase {
    pub fn env(&self) -> CatEnv {
        CatEnv::new(
            if self.utf8 { Locale::Utf8 } else { Locale::C },
            self.posixly_correct,
        )
    }

    /// Total input bytes a run of this case can read.
    pub fn input_bytes(&self) -> u64 {
        codec::world_input_bytes(&self.world)
    }

    /// Writes to a regular file never fail in the model, so a case whose
    /// stdout is a file has no write failure.
    fn write_schedule(&self) -> WriteSchedule {
        let mut w = self.write.clone();
        if self.stdout != CatStdout::Stream || self.formatted_read_error() {
            w.failure = None;
        }
        if self.stdout == CatStdout::Closed {
            w.failure = Some(schedule::WriteFailure {
                after: 0,
                kind: schedule::WriteFailureKind::BadDescriptor,
            });
        }
        w
    }

    /// Known gap (docs/differences.md): when formatted cat meets a read
    /// error, whether a failing stdout stops it before the error is
    /// diagnosed depends on how much output was still buffered, which the
    /// spec does not model yet.  Such cases run without a stdout failure,
    /// as in the binary campaign.
    fn formatted_read_error(&self) -> bool {
        let errors = &self.world.read_errors;
        (errors.stdin.is_some() || errors.stdin_would_block || !errors.files.is_empty())
            && matches!(
                samebytes_spec::cat::parse_args(&self.args, &self.env()),
                samebytes_spec::cat::Invocation::Run(o) if !o.format.is_plain()
            )
    }

    /// `samebytes-oracle replay cat:<hex>`.
    pub fn reproducer(&self) -> String {
        format!("samebytes-oracle replay cat:{}", self.encode())
    }

    pub fn encode(&self) -> String {
        let mut e = Encoder::default();
        e.uint(2); // format version
        codec::put_args(&mut e, &self.args);
        e.uint(u64::from(self.utf8) | (u64::from(self.posixly_correct) << 1));
        codec::put_world(&mut e, &self.world);
        match &self.stdout {
            CatStdout::Stream => e.uint(0),
            CatStdout::File(name) => {
                e.uint(1);
                e.bytes(name);
            }
            CatStdout::Regular => e.uint(2),
            CatStdout::Closed => e.uint(3),
            CatStdout::Overwrite(name) => {
                e.uint(4);
                e.bytes(name);
            }
        }
        codec::put_read_schedule(&mut e, &self.read);
        codec::put_write_schedule(&mut e, &self.write);
        e.uint(self.read_size as u64);
        e.uint(self.write_size as u64);
        codec::put_pauses(&mut e, &self.world.stdin_pauses);
        e.hex()
    }

    pub fn decode(hex: &str) -> Result<CatCase, codec::DecodeError> {
        let raw = codec::from_hex(hex)?;
        let mut d = Decoder::new(&raw);
        let version = d.uint()?;
        if !(1..=2).contains(&version) {
            return Err(codec::DecodeError);
        }
        let args = codec::get_args(&mut d)?;
        let flags = d.uint()?;
        let mut world = codec::get_world(&mut d)?;
        let stdout = match d.uint()? {
            0 => CatStdout::Stream,
            1 => CatStdout::File(d.bytes()?),
            2 => CatStdout::Regular,
            3 => CatStdout::Closed,
            4 => CatStdout::Overwrite(d.bytes()?),
            _ => return Err(codec::DecodeError),
        };
        let read = codec::get_read_schedule(&mut d)?;
        let write = codec::get_write_schedule(&mut d)?;
        let read_size = d.usize()?.max(1);
        let write_size = d.usize()?.max(1);
        if version >= 2 {
            world.stdin_pauses = codec::get_pauses(&mut d)?;
        }
        if !d.finished() {
            return Err(codec::DecodeError);
        }
        Ok(CatCase {
            args,
            utf8: flags & 1 != 0,
            posixly_correct: flags & 2 != 0,
            world,
            stdout,
            read,
            write,
            read_size,
            write_size,
        })
    }
}

// ---------------------------------------------------------------------------
// Generation.

const NAME_POOL: &[&[u8]] = &[
    b"a",
    b"b c",
    b"it's",
    b"x\ny",
    b"-dash",
    b"\xc3\xa9",
    b"f\xff",
];

const OPTIONS: &[&[u8]] = &[
    b"-A",
    b"-b",
    b"-e",
    b"-E",
    b"-n",
    b"-s",
    b"-t",
    b"-T",
    b"-u",
    b"-v",
    b"-vET",
    b"-ns",
    b"-bn",
    b"-sE",
    b"-nT",
    b"--show-all",
    b"--number-nonblank",
    b"--show-ends",
    b"--number",
    b"--squeeze-blank",
    b"--show-tabs",
    b"--show-nonprinting",
    b"--squ",
    b"--show-a",
    b"--read-buffer-size=1",
    b"--read-buffer-size=3",
    b"--read-buffer-size=1K",
    b"--write-buffer-size=1",
    b"--write-buffer-size=7",
    b"--write-buffer-size=2KiB",
    b"--read=5",
];

const BAD_OPTIONS: &[&[u8]] = &[
    b"-z",
    b"--foo",
    b"--num",
    b"--show",
    b"--number=1",
    b"--read-buffer-size=0",
    b"--read-buffer-size=x",
    b"--write-buffer-size=2G",
    b"--write-buffer-size=1k5",
    b"--read-buffer-size",
    b"--help",
    b"--version",
    b"--",
    b"-",
];

fn arbitrary_node(u: &mut Unstructured<'_>) -> arbitrary::Result<Node> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => Node::Regular(arbitrary_data(u, 60)?),
        6..=7 => Node::Stream(arbitrary_data(u, 60)?),
        8 => Node::Directory,
        _ => Node::Unreadable,
    })
}

type Body = (Vec<Vec<u8>>, bool, bool, World, CatStdout);

/// Everything but the schedules and sizes, from fuzzer bytes.
fn arbitrary_body(u: &mut Unstructured<'_>) -> arbitrary::Result<Body> {
    let utf8 = u.ratio(1, 2)?;
    let posixly_correct = u.ratio(1, 8)?;
    let mut world = World::default();
    for _ in 0..u.int_in_range(0..=4usize)? {
        let name = u.choose(NAME_POOL)?.to_vec();
        world.files.insert(name, arbitrary_node(u)?);
    }
    let stdin_node = match u.int_in_range(0..=5u8)? {
        0..=1 => Node::Regular(arbitrary_data(u, 60)?),
        2..=3 => Node::Stream(arbitrary_data(u, 60)?),
        4 => Node::Directory,
        // `<&-`
        _ => Node::Closed,
    };
    let offset = match &stdin_node {
        Node::Regular(d) if u.ratio(1, 4)? => u.int_in_range(0..=d.len() + 2)?,
        _ => 0,
    };
    world.stdin = Stdin {
        node: stdin_node,
        offset,
    };
    let stdout = if u.ratio(1, 5)? {
        // Stdout is a regular file: empty (`>`), or not and appended to
        // (`>>`) or overwritten from its start (`1<>`).
        let initial = if u.ratio(1, 3)? {
            Vec::new()
        } else {
            arbitrary_data(u, 4)?
        };
        world.files.insert(b"OUT".to_vec(), Node::Regular(initial));
        if u.arbitrary()? {
            CatStdout::File(b"OUT".to_vec())
        } else {
            CatStdout::Overwrite(b"OUT".to_vec())
        }
    } else if u.ratio(1, 12)? {
        // `>&-`
        CatStdout::Closed
    } else {
        CatStdout::Stream
    };

    let mut names: Vec<Vec<u8>> = world.files.keys().cloned().collect();
    names.push(b"-".to_vec());
    names.push(b"missing".to_vec());
    let mut args: Vec<Vec<u8>> = Vec::new();
    for _ in 0..u.int_in_range(0..=7usize)? {
        match u.int_in_range(0..=11u8)? {
            0..=4 => args.push(u.choose(OPTIONS)?.to_vec()),
            5..=10 => args.push(u.choose(&names)?.clone()),
            _ if u.ratio(1, 3)? => args.push(schedule::raw_argument(u, &[b"--r", b"--w"])?),
            _ => args.push(u.choose(BAD_OPTIONS)?.to_vec()),
        }
    }
    schedule::arbitrary_read_error(u, &mut world)?;
    Ok((args, utf8, posixly_correct, world, stdout))
}

impl<'a> Arbitrary<'a> for CatCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (args, utf8, posixly_correct, mut world, stdout) = arbitrary_body(u)?;
        let read = u.arbitrary()?;
        let write = u.arbitrary()?;
        let read_size = arbitrary_size(u)?;
        let write_size = arbitrary_size(u)?;
        schedule::arbitrary_pauses(u, &mut world)?;
        Ok(CatCase {
            args,
            utf8,
            posixly_correct,
            world,
            stdout,
            read,
            write,
            read_size,
            write_size,
        })
    }
}

/// proptest strategy: the body from the fuzz generator (driven by
/// proptest's bytes, so it shrinks), schedules and sizes from their own
/// strategies.
pub fn cat_case() -> impl Strategy<Value = CatCase> {
    schedule::case_parts().prop_map(|(seed, read, write, read_size, write_size)| {
        let mut u = Unstructured::new(&seed);
        let (args, utf8, posixly_correct, mut world, stdout) =
            arbitrary_body(&mut u).unwrap_or_default();
        let _ = schedule::arbitrary_pauses(&mut u, &mut world);
        CatCase {
            args,
            utf8,
            posixly_correct,
            world,
            stdout,
            read,
            write,
            read_size,
            write_size,
        }
    })
}

// ---------------------------------------------------------------------------
// Running the implementation against the model.

/// The world as `samebytes::cat` sees it in tests.  The output file's size
/// grows with what the writer has accepted, shared through `written`.
struct ModelCat<'w> {
    world: &'w World,
    stdout: &'w CatStdout,
    read: ReadSchedule,
    stdin_consumed: bool,
    last_opened: Option<Vec<u8>>,
    written: Rc<Cell<usize>>,
    /// A stdin that pauses (the world's `stdin_pauses`).
    live: Option<Live>,
}

impl ModelCat<'_> {
    /// The output file's initial content, if stdout is a named file.
    fn output_initial(&self) -> Option<&[u8]> {
        let (CatStdout::File(name) | CatStdout::Overwrite(name)) = self.stdout else {
            return None;
        };
        Some(match self.world.files.get(name) {
            Some(Node::Regular(d)) => d,
            _ => &[],
        })
    }
}

impl CatSystem for ModelCat<'_> {
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<CatInput> {
        self.last_opened = name.map(<[u8]>::to_vec);
        let (node, may_block, fail_at) = match name {
            Some(n) => {
                let node = self.world.lookup(n).map_err(|e| {
                    os_error(match e {
                        Errno::NameTooLong => libc::ENAMETOOLONG,
                        _ => libc::ENOENT,
                    })
                })?;
                if matches!(self.stdout, CatStdout::File(f) | CatStdout::Overwrite(f) if f.as_slice() == n)
                {
                    // A copy of the output file onto itself is allowed only
                    // with nothing written to it yet (see self_copy), and
                    // then it holds its initial content.
                    let now = match self.written.get() {
                        0 => self.output_initial().unwrap_or_default().to_vec(),
                        _ => Vec::new(),
                    };
                    (Node::Regular(now), false, None)
                } else {
                    let fail_at = self.world.read_errors.files.get(n).copied();
                    (node.clone(), !matches!(node, Node::Regular(_)), fail_at)
                }
            }
            None => {
                let s = &self.world.stdin;
                let consumed = std::mem::replace(&mut self.stdin_consumed, true);
                let (node, fail_at) = match (&s.node, consumed) {
                    (Node::Regular(_), true) => (Node::Regular(Vec::new()), None),
                    (Node::Stream(_), true) => (Node::Stream(Vec::new()), None),
                    (Node::Regular(d), false) => (
                        Node::Regular(d.get(s.offset..).unwrap_or_default().to_vec()),
                        self.world
                            .read_errors
                            .stdin
                            .map(|at| at.saturating_sub(s.offset)),
                    ),
                    (other, _) => (other.clone(), None),
                };
                let may_block = !matches!(node, Node::Regular(_));
                (node, may_block, fail_at)
            }
        };
        let would_block = name.is_none() && self.world.read_errors.stdin_would_block;
        if let Some(live) = name.is_none().then(|| self.live.take()).flatten() {
            // The first read of a stdin that pauses (it is read once).
            let reader = Box::new(ChunkedReader::new(live.reader(), self.read.clone()));
            return Ok(CatInput::Reader {
                reader,
                may_block: true,
            });
        }
        let reader: Box<dyn io::Read> = match node {
            Node::Unreadable => return Err(os_error(libc::EACCES)),
            Node::Closed => return Err(os_error(libc::EBADF)),
            Node::Directory => Box::new(FailingReader(libc::EISDIR)),
            Node::Stream(d) if would_block => Box::new(ChunkedReader::new(
                schedule::stream_reader(&d, true),
                self.read.clone(),
            )),
            Node::Regular(d) | Node::Stream(d) => Box::new(ChunkedReader::new(
                schedule::failing_reader(&d, 0, fail_at),
                self.read.clone(),
            )),
        };
        Ok(CatInput::Reader { reader, may_block })
    }

    fn is_output_file(&mut self, _input: &CatInput) -> bool {
        matches!(
            (self.stdout, &self.last_opened),
            (CatStdout::File(f) | CatStdout::Overwrite(f), Some(n)) if f == n
        )
    }

    fn self_copy(&mut self, _input: &CatInput) -> SelfCopy {
        // A named input is opened afresh: it is read from its start.
        let initial = self.output_initial().map_or(0, <[u8]>::len) as u64;
        let written = self.written.get() as u64;
        let (size, write_at) = match self.stdout {
            CatStdout::Overwrite(_) => (initial.max(written), written),
            _ => (initial + written, initial + written),
        };
        SelfCopy {
            read_at: 0,
            size,
            write_at,
        }
    }

    fn stdout_fd(&self) -> Option<RawFd> {
        None
    }

    fn stdout_error(&self) -> Option<io::Error> {
        (*self.stdout == CatStdout::Closed).then(|| os_error(libc::EBADF))
    }

    fn stdin_close_error(&self) -> Option<io::Error> {
        self.world.stdin_closed().then(|| os_error(libc::EBADF))
    }
}

/// Stdout in tests: the case's write schedule, counting accepted bytes.
struct CountingWriter {
    inner: ShortWriter<order::StdoutSink>,
    written: Rc<Cell<usize>>,
}

impl Write for CountingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written.set(self.written.get() + n);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Run the implementation on a case with one read schedule and config.
pub fn run_impl(case: &CatCase, read: ReadSchedule, cfg: &CatConfig) -> Outcome {
    run_impl_live(case, read, cfg).0
}

/// [`run_impl`], and what it had written at each pause of stdin it read
/// on past.
pub fn run_impl_live(
    case: &CatCase,
    read: ReadSchedule,
    cfg: &CatConfig,
) -> (Outcome, Vec<Passed>) {
    let written = Rc::new(Cell::new(0));
    let (stdout_sink, mut stderr, so_far) = order::watched_sinks();
    let live = Live::of_stdin(&case.world, so_far);
    let mut system = ModelCat {
        world: &case.world,
        stdout: &case.stdout,
        read,
        stdin_consumed: false,
        last_opened: None,
        written: written.clone(),
        live: live.clone(),
    };
    let mut stdout = CountingWriter {
        inner: ShortWriter::new(stdout_sink, case.write_schedule()),
        written,
    };
    let status = samebytes::cat::run(
        &case.args,
        &case.env(),
        &mut system,
        &mut stdout,
        &mut stderr,
        cfg,
    );
    drop(stdout);
    let passed = live.map(|l| l.passed()).unwrap_or_default();
    (stderr.outcome(status), passed)
}

/// What the spec decides at each pause of the case's stdin.
pub fn spec_at_pauses(case: &CatCase) -> Vec<samebytes_spec::Decided> {
    samebytes_spec::cat::cat_at_pauses(
        &case.args,
        &case.env(),
        &case.world,
        &case.stdout,
        case.write_schedule().spec_failure(),
    )
}

/// Run the spec on a case.
pub fn run_spec(case: &CatCase) -> Outcome {
    samebytes_spec::cat::cat(
        &case.args,
        &case.env(),
        &case.world,
        &case.stdout,
        case.write_schedule().spec_failure(),
    )
}

/// The case's own sizes: the first of [`variants`].
pub fn case_config(case: &CatCase) -> CatConfig {
    CatConfig {
        read_size: case.read_size,
        format_read_size: case.read_size,
        write_size: case.write_size,
        ..CatConfig::default()
    }
}

/// The implementation runs a case is checked through.
pub fn variants(case: &CatCase) -> [(String, ReadSchedule, CatConfig); 3] {
    let default = CatConfig::default();
    [
        (
            format!(
                "read {} / write {}, case schedule",
                case.read_size, case.write_size
            ),
            case.read.clone(),
            case_config(case),
        ),
        (
            "default sizes, whole reads".into(),
            ReadSchedule::whole(),
            default,
        ),
        (
            "read 3 / write 5, bytewise".into(),
            ReadSchedule::bytewise(),
            CatConfig {
                read_size: 3,
                format_read_size: 3,
                write_size: 5,
                ..default
            },
        ),
    ]
}

/// Check one case: spec against every implementation variant.
pub fn check_cat(case: &CatCase) -> Result<(), Box<Mismatch>> {
    check_cat_counting(case).map(|_| ())
}

/// [`check_cat`]; how many pauses of stdin it checked.
pub fn check_cat_counting(case: &CatCase) -> Result<usize, Box<Mismatch>> {
    let expected = run_spec(case);
    let decided = spec_at_pauses(case);
    let repro = || case.reproducer();
    let mut pauses = 0;
    for (name, read, cfg) in variants(case) {
        let (actual, passed) = run_impl_live(case, read, &cfg);
        compare_in_order("cat", &name, &expected, &actual, &repro)?;
        pauses += check_pauses("cat", &name, &decided, &passed, &repro)?;
    }
    Ok(pauses)
}

/// The fuzz target's body: any bytes, any case.
/// Returns whether `data` decoded to a case (an input that does not is
/// rejected from the fuzz corpus, and fails the corpus replay).
pub fn fuzz_cat(data: &[u8]) -> bool {
    let Ok(case) = CatCase::arbitrary(&mut Unstructured::new(data)) else {
        return false;
    };
    if let Err(m) = check_cat(&case) {
        panic!("{m}");
    }
    true
}
