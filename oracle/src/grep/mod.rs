//! The grep driver: cases (arguments, a world of inputs, schedules, buffer
//! sizes, mmap or stream), generation for proptest and the fuzzer, and the
//! check that runs spec and implementation on a case.

mod generate;
mod patterns;
pub mod tree;

use arbitrary::{Arbitrary, Unstructured};
use generate::{arbitrary_body, arbitrary_buffer};
use proptest::prelude::*;

use crate::codec::{self, Decoder, Encoder};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::order;
use std::io;

use crate::live::{check_pauses, Flowing, Live, Passed};
use crate::schedule::{self, ChunkedReader, ReadSchedule, ShortWriter, WriteSchedule};
use samebytes::grep::{
    DirType, GrepConfig, GrepFiles, GrepInput, GrepSystem, Leftover, Listing, MappedFile,
    NeverPauses, OpenFlags, RawEntry, SearchWindow,
};
use samebytes_spec::grep::{GrepEnv, GrepStdout, BINARY_PREFIX};
use samebytes_spec::world::{Node, World};
use samebytes_spec::{Decided, Errno, Locale, Outcome};
use std::cell::Cell;

/// One grep run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepCase {
    pub args: Vec<Vec<u8>>,
    pub utf8: bool,
    pub world: World,
    pub stdout: GrepStdout,
    pub read: ReadSchedule,
    pub write: WriteSchedule,
    /// The stream buffer's starting capacity (the binary uses 256 KiB).
    pub buffer: usize,
    /// `GREP_COLORS` and `GREP_COLOR`, for `--color` cases.
    pub colors: ColorEnv,
}

/// The environment `--color` reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColorEnv {
    pub grep_colors: Option<Vec<u8>>,
    pub grep_color: Option<Vec<u8>>,
}

/// `GREP_COLORS` values: each capability, empty and odd values, `rv`
/// and `ne`, and malformed lists that GNU reads only up to the fault.
const GREP_COLORS: &[&[u8]] = &[
    b"",
    b"ms=01;32",
    b"mt=7:sl=1:cx=2",
    b"sl=1;4:cx=33",
    b"rv:sl=1:cx=2",
    b"ne",
    b"ms=:mc=:fn=:ln=:bn=:se=",
    b"mc=35:ln=1:bn=4:se=2:fn=",
    b"mt",
    b"mt=:ms=3",
    b"sl=1:x=y:cx=4",
    b"sl=1:cx=2x:ms=4",
    b"=1:ms=4",
    b"ms=1=2",
    b"ne:rv:sl=7",
];

impl GrepCase {
    pub fn env(&self) -> GrepEnv {
        let mut env = GrepEnv::new(if self.utf8 { Locale::Utf8 } else { Locale::C });
        env.grep_colors = self.colors.grep_colors.clone();
        env.grep_color = self.colors.grep_color.clone();
        env
    }

    /// The size of the biggest input.
    fn largest_input(&self) -> usize {
        let nodes = self.world.files.values().chain([&self.world.stdin.node]);
        nodes
            .map(|n| match n {
                Node::Regular(d) | Node::Stream(d) => d.len(),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Does an input outgrow the stream buffer, so that the search
    /// refills it and carries a partial line over?
    pub fn crosses_refill(&self) -> bool {
        self.largest_input() > self.buffer
    }

    /// Does an input reach past the 32 KiB binary probe?
    pub fn passes_probe(&self) -> bool {
        self.largest_input() > BINARY_PREFIX
    }

    /// Total input bytes a run of this case can read.
    pub fn input_bytes(&self) -> u64 {
        codec::world_input_bytes(&self.world)
    }

    fn write_schedule(&self) -> WriteSchedule {
        let mut w = self.write.clone();
        if self.stdout != GrepStdout::Stream {
            w.failure = None;
        }
        w
    }

    pub fn spec_outcome(&self) -> Outcome {
        samebytes_spec::grep::grep(
            &self.args,
            &self.env(),
            &self.world,
            &self.stdout,
            self.write_schedule().spec_failure(),
        )
    }

    /// `samebytes-oracle replay grep:<hex>`.
    pub fn reproducer(&self) -> String {
        format!("samebytes-oracle replay grep:{}", self.encode())
    }

    pub fn encode(&self) -> String {
        let mut e = Encoder::default();
        e.uint(3);
        codec::put_args(&mut e, &self.args);
        e.uint(u64::from(self.utf8));
        codec::put_world(&mut e, &self.world);
        match &self.stdout {
            GrepStdout::Stream => e.uint(0),
            GrepStdout::File(name) => {
                e.uint(1);
                e.bytes(name);
            }
            GrepStdout::DevNull => e.uint(2),
        }
        codec::put_read_schedule(&mut e, &self.read);
        codec::put_write_schedule(&mut e, &self.write);
        e.uint(self.buffer as u64);
        for var in [&self.colors.grep_colors, &self.colors.grep_color] {
            match var {
                None => e.uint(0),
                Some(v) => {
                    e.uint(1);
                    e.bytes(v);
                }
            }
        }
        codec::put_pauses(&mut e, &self.world.stdin_pauses);
        e.hex()
    }

    pub fn decode(hex: &str) -> Result<GrepCase, codec::DecodeError> {
        let raw = codec::from_hex(hex)?;
        let mut d = Decoder::new(&raw);
        let version = d.uint()?;
        if !(1..=3).contains(&version) {
            return Err(codec::DecodeError);
        }
        let args = codec::get_args(&mut d)?;
        let flags = d.uint()?;
        let mut world = codec::get_world(&mut d)?;
        let stdout = match d.uint()? {
            0 => GrepStdout::Stream,
            1 => GrepStdout::File(d.bytes()?),
            2 => GrepStdout::DevNull,
            _ => return Err(codec::DecodeError),
        };
        let read = codec::get_read_schedule(&mut d)?;
        let write = codec::get_write_schedule(&mut d)?;
        let buffer = d.usize()?.max(1);
        let mut colors = ColorEnv::default();
        if version >= 2 {
            for var in [&mut colors.grep_colors, &mut colors.grep_color] {
                *var = match d.uint()? {
                    0 => None,
                    _ => Some(d.bytes()?),
                };
            }
        }
        if version >= 3 {
            world.stdin_pauses = codec::get_pauses(&mut d)?;
        }
        if !d.finished() {
            return Err(codec::DecodeError);
        }
        Ok(GrepCase {
            args,
            utf8: flags & 1 != 0,
            world,
            stdout,
            read,
            write,
            buffer,
            colors,
        })
    }
}

/// Maybe colour a case, one in four: `--color=always` first among its
/// arguments (so that no `--` or operand comes before it), with
/// `GREP_COLORS` and `GREP_COLOR` values from lists.  The choice is a
/// hash of the case already drawn, not more input: inputs made before
/// colour existed (the fuzz corpus) decode to the same cases, a quarter
/// of them now coloured, and short inputs are coloured as often as long.
fn colored(args: &mut Vec<Vec<u8>>, seed: u64) -> ColorEnv {
    let mut h = seed;
    let mut next = || {
        h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as usize
    };
    if next() % 4 != 0 {
        return ColorEnv::default();
    }
    let flags: [&[u8]; 3] = [b"--color=always", b"--colour=always", b"--color=yes"];
    args.insert(0, flags[next() % 3].to_vec());
    let grep_colors = (next() % 4 != 0).then(|| GREP_COLORS[next() % GREP_COLORS.len()].to_vec());
    let olds: [&[u8]; 4] = [b"7", b"01;32", b"", b"4x"];
    let grep_color = (next() % 6 == 0).then(|| olds[next() % 4].to_vec());
    ColorEnv {
        grep_colors,
        grep_color,
    }
}

/// One case in five that names its matcher with `-E`, `-F`, `-P` (or none)
/// names it with the undocumented `-X egrep`, `-X fgrep`, `-X perl` (or
/// `-X grep`) instead: the same search, another spelling.
fn respell_matcher(args: &mut Vec<Vec<u8>>, seed: u64) {
    if !(seed >> 40).is_multiple_of(5) {
        return;
    }
    let name: &[u8] = match args.first().map(Vec::as_slice) {
        Some(b"-E") => b"egrep",
        Some(b"-F") => b"fgrep",
        Some(b"-P") => b"perl",
        _ => {
            args.insert(0, b"grep".to_vec());
            args.insert(0, b"-X".to_vec());
            return;
        }
    };
    args[0] = b"-X".to_vec();
    args.insert(1, name.to_vec());
}

/// The hash [`colored`] draws from.
fn case_seed(args: &[Vec<u8>], buffer: usize, utf8: bool) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (args, buffer, utf8).hash(&mut h);
    h.finish()
}

impl<'a> Arbitrary<'a> for GrepCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (mut args, utf8, world, stdout) = arbitrary_body(u)?;
        let read = u.arbitrary()?;
        let write = u.arbitrary()?;
        let buffer = arbitrary_buffer(u)?;
        let seed = case_seed(&args, buffer, utf8);
        respell_matcher(&mut args, seed);
        let colors = colored(&mut args, seed);
        let mut world = world;
        schedule::arbitrary_pauses(u, &mut world)?;
        Ok(GrepCase {
            args,
            utf8,
            world,
            stdout,
            read,
            write,
            buffer,
            colors,
        })
    }
}

/// proptest strategy: the body from the fuzz generator over proptest's
/// bytes, schedules and sizes from their own strategies.
pub fn grep_case() -> impl Strategy<Value = GrepCase> {
    schedule::case_parts().prop_map(|(seed, read, write, buffer, _)| {
        let mut u = Unstructured::new(&seed);
        let (mut args, utf8, mut world, stdout) = arbitrary_body(&mut u).unwrap_or_default();
        let _ = schedule::arbitrary_pauses(&mut u, &mut world);
        let seed = case_seed(&args, buffer, utf8);
        respell_matcher(&mut args, seed);
        let colors = colored(&mut args, seed);
        GrepCase {
            args,
            utf8,
            world,
            stdout,
            read,
            write,
            buffer,
            colors,
        }
    })
}

// ---------------------------------------------------------------------------
// Running the implementation against the model.

/// How the implementation is handed regular files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStrategy {
    /// As streams cut by the case's read schedule.
    Stream,
    /// As mapped files ([`ModelMapped`]) with windows as small as the
    /// case's buffer.
    Mapped,
}

/// The world as `samebytes::grep` sees it in tests: stdin, and the named
/// files ([`ModelFiles`]).
struct ModelGrep<'w> {
    files: ModelFiles<'w>,
    stdin_consumed: Cell<bool>,
    /// Where the last read of a regular stdin started, and where the next
    /// one starts when grep put it back.
    stdin_last_start: Cell<usize>,
    stdin_next: Cell<Option<usize>>,
    /// A stdin that pauses (`GrepCase::world`'s `stdin_pauses`).
    live: Option<Live>,
}

/// The named files of a case's world, which every search thread opens.
struct ModelFiles<'w> {
    case: &'w GrepCase,
    strategy: FileStrategy,
}

/// An input over a node's bytes: `fail_at` is where a read fails with
/// EIO; `would_block`, a stream whose reads fail with EAGAIN.
fn model_input(
    node: Node,
    fail_at: Option<usize>,
    would_block: bool,
    strategy: FileStrategy,
    case: &GrepCase,
) -> io::Result<GrepInput> {
    Ok(match node {
        Node::Unreadable => return Err(io::Error::from_raw_os_error(libc::EACCES)),
        Node::Closed => return Err(io::Error::from_raw_os_error(libc::EBADF)),
        Node::Directory => GrepInput::Directory,
        Node::Regular(d) if strategy == FileStrategy::Mapped => GrepInput::Mapped {
            size: d.len() as u64,
            file: Box::new(ModelMapped::new(d, fail_at, case)),
        },
        Node::Regular(d) => GrepInput::Reader {
            size: Some(d.len() as u64),
            reader: Box::new(NeverPauses(ChunkedReader::new(
                schedule::failing_reader(&d, 0, fail_at),
                case.read.clone(),
            ))),
        },
        Node::Stream(d) => GrepInput::Reader {
            size: None,
            reader: Box::new(Flowing(ChunkedReader::new(
                schedule::stream_reader(&d, would_block),
                case.read.clone(),
            ))),
        },
    })
}

fn lookup_error(e: Errno) -> io::Error {
    io::Error::from_raw_os_error(match e {
        Errno::NameTooLong => libc::ENAMETOOLONG,
        _ => libc::ENOENT,
    })
}

impl GrepFiles for ModelFiles<'_> {
    fn open(&self, name: &[u8], _how: OpenFlags) -> io::Result<GrepInput> {
        let world = &self.case.world;
        let node = world.lookup(name).map_err(lookup_error)?.clone();
        let fail_at = world.read_errors.files.get(name).copied();
        model_input(node, fail_at, false, self.strategy, self.case)
    }

    /// The world's directories are empty, so the walker never opens an
    /// entry of one; by its path, if it did.
    fn open_entry(
        &self,
        _dir: Option<&std::fs::File>,
        path: &[u8],
        _leaf: usize,
        how: OpenFlags,
    ) -> io::Result<GrepInput> {
        self.open(path, how)
    }

    fn list_entry(
        &self,
        _dir: Option<&std::fs::File>,
        path: &[u8],
        _leaf: usize,
        out: &mut Vec<RawEntry>,
    ) -> io::Result<Listing> {
        self.list(path, out)
    }

    fn status(&self, name: &[u8], _follow: bool) -> io::Result<DirType> {
        Ok(match self.case.world.lookup(name).map_err(lookup_error)? {
            Node::Regular(_) | Node::Unreadable => DirType::Regular,
            Node::Stream(_) => DirType::Device,
            Node::Directory => DirType::Directory,
            Node::Closed => return Err(io::Error::from_raw_os_error(libc::ENOENT)),
        })
    }

    fn list(&self, name: &[u8], out: &mut Vec<RawEntry>) -> io::Result<Listing> {
        // The world's directories are empty.
        out.clear();
        match self.status(name, true)? {
            DirType::Directory => Ok(Listing {
                id: (0, name.len() as u64),
                dir: None,
                stopped: None,
            }),
            _ => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
        }
    }

    fn is_output_file(&self, name: &[u8]) -> bool {
        matches!(&self.case.stdout, GrepStdout::File(f) if f == name)
    }
}

impl GrepSystem for ModelGrep<'_> {
    fn open_stdin(&self) -> io::Result<GrepInput> {
        let case = self.files.case;
        let s = &case.world.stdin;
        let consumed = self.stdin_consumed.replace(true);
        let fail_at = case.world.read_errors.stdin;
        // The node, and where in its bytes a read fails with EIO.
        let (node, fail_at) = match (&s.node, consumed) {
            (Node::Regular(d), _) if self.stdin_next.get().is_some() => {
                let from = self.stdin_next.take().unwrap_or(0);
                self.stdin_last_start.set(from);
                (
                    Node::Regular(d.get(from..).unwrap_or_default().to_vec()),
                    fail_at.map(|at| at.saturating_sub(from)),
                )
            }
            (Node::Regular(_), true) => (Node::Regular(Vec::new()), None),
            (Node::Stream(_), true) => (Node::Stream(Vec::new()), None),
            (Node::Regular(d), false) => {
                self.stdin_last_start.set(s.offset);
                (
                    Node::Regular(d.get(s.offset..).unwrap_or_default().to_vec()),
                    fail_at.map(|at| at.saturating_sub(s.offset)),
                )
            }
            (other, _) => (other.clone(), None),
        };
        // `-T` counts the whole file's size, wherever stdin stands in it.
        let whole = match &s.node {
            Node::Regular(d) => Some(d.len() as u64),
            _ => None,
        };
        if let (Some(live), false) = (&self.live, consumed) {
            return Ok(GrepInput::Reader {
                reader: Box::new(ChunkedReader::new(live.reader(), case.read.clone())),
                size: None,
            });
        }
        let would_block = case.world.read_errors.stdin_would_block;
        let input = model_input(node, fail_at, would_block, self.files.strategy, case)?;
        Ok(match input {
            GrepInput::Mapped { file, .. } => GrepInput::Mapped {
                file,
                size: whole.unwrap_or(0),
            },
            GrepInput::Reader { reader, .. } => GrepInput::Reader {
                reader,
                size: whole,
            },
            other => other,
        })
    }

    fn files(&self) -> &dyn GrepFiles {
        &self.files
    }

    fn stdout_is_dev_null(&self) -> bool {
        self.files.case.stdout == GrepStdout::DevNull
    }

    fn stdin_done(&self, resume_at: Option<u64>) {
        let node = &self.files.case.world.stdin.node;
        if let (Node::Regular(_), Some(r)) = (node, resume_at) {
            self.stdin_next
                .set(Some(self.stdin_last_start.get() + r as usize));
        }
    }

    fn drain_stdin(&self) -> io::Result<()> {
        if let Some(live) = &self.live {
            live.drain();
        }
        let world = &self.files.case.world;
        match world.stdin.node {
            Node::Stream(_) if world.read_errors.stdin_would_block => {
                Err(io::Error::from_raw_os_error(libc::EAGAIN))
            }
            _ => Ok(()),
        }
    }
}

/// A regular file under the mapped strategy, as adversarial as a real
/// mapping may be:
/// - a window over the read error's offset reads as zeros from that
///   page on, and its probe says so (a bad page raises SIGBUS);
/// - one window, picked from the case, cannot be mapped (ENOMEM), so
///   reading takes over in the middle of the file;
/// - in one window, picked from the case, the probe says "spoiled" from
///   its second question on although every byte is intact (the file
///   shrank and grew back): going back to the mark must not change the
///   output.
pub struct ModelMapped {
    data: Vec<u8>,
    fail_at: Option<usize>,
    read: ReadSchedule,
    views: usize,
    refused_view: usize,
    spoiled_view: usize,
}

impl ModelMapped {
    fn new(data: Vec<u8>, fail_at: Option<usize>, case: &GrepCase) -> ModelMapped {
        ModelMapped::cut(data, fail_at, case.read.clone(), case.buffer)
    }

    /// Over `data`, read after a refusal by `read`; the refused and the
    /// spoiled view are picked from `buffer`.
    pub fn cut(data: Vec<u8>, fail_at: Option<usize>, read: ReadSchedule, buffer: usize) -> Self {
        // Views count from 1; 0 never comes.  A refusal of the first
        // view would leave the whole file to reading, which the stream
        // run of the same case already covers: from the second on.
        let pick = |salt: usize| match (buffer + salt) % 3 {
            0 => 0,
            r => r + 1 + (buffer / 3) % 3,
        };
        ModelMapped {
            data,
            fail_at,
            read,
            views: 0,
            refused_view: pick(0),
            spoiled_view: pick(1),
        }
    }
}

impl MappedFile for ModelMapped {
    fn size(&mut self) -> u64 {
        self.data.len() as u64
    }

    fn view(&mut self, offset: u64, len: usize, f: &mut SearchWindow) -> io::Result<()> {
        self.views += 1;
        if self.views == self.refused_view {
            return Err(io::Error::from_raw_os_error(libc::ENOMEM));
        }
        let from = offset as usize;
        let mut bytes = self.data[from..from + len].to_vec();
        let bad_page = match self.fail_at {
            Some(at) if at < from + len => {
                let page = (at - at % 4096).max(from);
                bytes[page - from..].fill(0);
                true
            }
            _ => false,
        };
        let asked = std::cell::Cell::new(0);
        let lying = self.views == self.spoiled_view;
        let probe = || {
            asked.set(asked.get() + 1);
            bad_page || (lying && asked.get() > 1)
        };
        // Nothing here is mapped: no window is left to unmap.
        f(&bytes, &probe, Leftover::default());
        Ok(())
    }

    fn into_reader(self: Box<Self>, offset: u64) -> io::Result<Box<dyn io::Read + Send>> {
        Ok(Box::new(ChunkedReader::new(
            schedule::failing_reader(&self.data, offset as usize, self.fail_at),
            self.read,
        )))
    }
}

/// Run the implementation on a case, handing it regular files as
/// `strategy` says.
pub fn run_impl(case: &GrepCase, strategy: FileStrategy) -> Outcome {
    run_impl_live(case, strategy).0
}

/// [`run_impl`], and what it had written at each pause of stdin it read
/// on past.
pub fn run_impl_live(case: &GrepCase, strategy: FileStrategy) -> (Outcome, Vec<Passed>) {
    impl_run(case, strategy, |system, stdout, stderr, cfg| {
        samebytes::grep::run(&case.args, &case.env(), system, stdout, stderr, cfg)
    })
}

/// A case's command line prepared once (`samebytes::grep::prepare`), with
/// what preparing printed, to search many inputs with: the exhaustive
/// checker's runs of one option set.  Only for command lines that read no
/// file while preparing (no `-f`, no `--exclude-from`) and print to a
/// stream; those are the binary's own steps, prepare then search, with
/// the preparing done once.
pub struct PreparedArgs {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    prepared: samebytes::grep::Prepare,
}

impl PreparedArgs {
    pub fn new(case: &GrepCase) -> PreparedArgs {
        assert!(
            case.stdout == GrepStdout::Stream
                && !case.args.iter().any(|a| a.starts_with(b"-f")
                    || a.starts_with(b"--f")
                    || a.starts_with(b"--exclude-f")),
            "a prepared command line reads no file and prints to a stream"
        );
        let system = ModelGrep {
            files: ModelFiles {
                case,
                strategy: FileStrategy::Stream,
            },
            stdin_consumed: Cell::new(false),
            stdin_last_start: Cell::new(0),
            stdin_next: Cell::new(None),
            live: None,
        };
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let prepared =
            samebytes::grep::prepare(&case.args, &case.env(), &system, &mut stdout, &mut stderr);
        PreparedArgs {
            stdout,
            stderr,
            prepared,
        }
    }
}

/// [`run_impl`] with the command line prepared beforehand: what preparing
/// printed comes first, then the search.  `case` must have the command
/// line `prepared` was made from.
pub fn run_impl_prepared(
    case: &GrepCase,
    strategy: FileStrategy,
    prepared: &PreparedArgs,
) -> Outcome {
    impl_run(case, strategy, |system, stdout, stderr, cfg| {
        let _ = stderr.write_all(&prepared.stderr);
        if !prepared.stdout.is_empty() && stdout.write_all(&prepared.stdout).is_err() {
            return 2;
        }
        match &prepared.prepared {
            samebytes::grep::Prepare::Exit(status) => *status,
            samebytes::grep::Prepare::Ready(p) => {
                samebytes::grep::search(p, &case.env(), system, stdout, stderr, cfg)
            }
        }
    })
    .0
}

/// A run of the implementation on the case's world and schedules, through
/// `grep` (a whole run, or a search of a prepared command line).
fn impl_run(
    case: &GrepCase,
    strategy: FileStrategy,
    grep: impl FnOnce(
        &mut ModelGrep,
        &mut dyn std::io::Write,
        &mut dyn std::io::Write,
        &GrepConfig,
    ) -> i32,
) -> (Outcome, Vec<Passed>) {
    let (stdout_sink, mut stderr, written) = order::watched_sinks();
    let live = Live::of_stdin(&case.world, written);
    let mut system = ModelGrep {
        files: ModelFiles { case, strategy },
        stdin_consumed: Cell::new(false),
        stdin_last_start: Cell::new(0),
        stdin_next: Cell::new(None),
        live: live.clone(),
    };
    let mut stdout = ShortWriter::new(stdout_sink, case.write_schedule());
    let cfg = GrepConfig {
        buffer: case.buffer,
        write_size: case.buffer.max(1),
        map_min: 0,
        // A window of two to four regions, so that the helper thread
        // searches the last ones (impl/src/grep/ahead.rs); PCRE2's `-P`
        // searches every window on one thread.
        window: case.buffer.saturating_mul(2 + case.buffer % 3),
        threads: 2,
        // Records cut short at their cap, and a helper that stops at its
        // budget, with small buffers; the binaries' cap with large ones.
        record_hits: match case.buffer {
            b if b < 4096 => 1 + b % 7,
            _ => GrepConfig::default().record_hits,
        },
        // Several operands are searched on two threads, with little room
        // for the output behind the printed one: the waits happen.
        held: case.buffer % 61,
        head_held: case.buffer % 7,
        queued: 1 + case.buffer % 5,
    };
    let status = grep(&mut system, &mut stdout, &mut stderr, &cfg);
    drop(stdout);
    let passed = live.map(|l| l.passed()).unwrap_or_default();
    (stderr.outcome(status), passed)
}

/// What the spec decides at each pause of the case's stdin.
pub fn spec_at_pauses(case: &GrepCase) -> Vec<Decided> {
    samebytes_spec::grep::grep_at_pauses(
        &case.args,
        &case.env(),
        &case.world,
        &case.stdout,
        case.write_schedule().spec_failure(),
    )
}

/// Run the spec and the implementation on a case and compare.
pub fn check_grep(case: &GrepCase) -> Result<(), Box<Mismatch>> {
    check_grep_counting(case).map(|_| ())
}

/// [`check_grep`]; how many pauses of stdin it checked.
pub fn check_grep_counting(case: &GrepCase) -> Result<usize, Box<Mismatch>> {
    // For a campaign that hangs: the case it hangs on, as a reproducer.
    if let Some(path) = std::env::var_os("SAMEBYTES_ORACLE_LAST_CASE") {
        let _ = std::fs::write(path, case.reproducer());
    }
    let expected = case.spec_outcome();
    let decided = spec_at_pauses(case);
    let mut pauses = 0;
    for strategy in [FileStrategy::Stream, FileStrategy::Mapped] {
        let (actual, passed) = run_impl_live(case, strategy);
        let variant = format!("buffer {}, {strategy:?}", case.buffer);
        compare_in_order("grep", &variant, &expected, &actual, &|| case.reproducer())?;
        pauses += check_pauses("grep", &variant, &decided, &passed, &|| case.reproducer())?;
    }
    Ok(pauses)
}

/// The fuzz target's body.
/// Returns whether `data` decoded to a case (an input that does not is
/// rejected from the fuzz corpus, and fails the corpus replay).
pub fn fuzz_grep(data: &[u8]) -> bool {
    let Ok(case) = GrepCase::arbitrary(&mut Unstructured::new(data)) else {
        return false;
    };
    if let Err(m) = check_grep(&case) {
        panic!("{m}");
    }
    true
}
