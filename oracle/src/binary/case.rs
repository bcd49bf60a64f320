//! Cases for the binary campaign: a tool's command line, a world whose
//! file sizes straddle every threshold where a binary changes path, how
//! stdin and stdout are connected, and a fault plan.  Every case is a pure
//! function of its tool and seed, so `binary:TOOL:SEED` replays it.

use samebytes_spec::tree::{Entry, Tree};
use samebytes_spec::world::{Node, Stdin, World};

use crate::faultplan::OutputErrno;

/// The tools the binary campaign drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Wc,
    Cat,
    Grep,
    Yes,
}

impl Tool {
    pub const ALL: [Tool; 4] = [Tool::Wc, Tool::Cat, Tool::Grep, Tool::Yes];

    pub fn name(self) -> &'static str {
        match self {
            Tool::Wc => "wc",
            Tool::Cat => "cat",
            Tool::Grep => "grep",
            Tool::Yes => "yes",
        }
    }

    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// What stdout is connected to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdoutKind {
    DevNull,
    Pipe,
    /// A pipe whose reader sleeps between reads, so writers meet a full pipe.
    SlowPipe,
    File,
    AppendFile,
    Socket,
    /// Descriptor 1 is not open (`>&-`).
    Closed,
}

/// A fault plan's random part; the layer's plan adds files and paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Faults {
    pub short: u8,
    pub eintr: u8,
    pub refuse: u8,
    pub pipe_size: u8,
    pub mmap: u8,
    /// stdout takes this many bytes, then fails with this error.
    pub output_failure: Option<(u64, OutputErrno)>,
    /// Closing stdout at exit fails with this error, its writes having
    /// worked (NFS, a quota reached at close).
    pub close_failure: Option<OutputErrno>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryCase {
    pub tool: Tool,
    pub seed: u64,
    pub args: Vec<Vec<u8>>,
    pub utf8: bool,
    /// Input EIO points live in `world.read_errors`.
    pub world: World,
    /// grep's recursive cases: the tree the named files are looked up in
    /// (the working directory is its root); `world` then has no files.
    pub tree: Option<Tree>,
    /// A stream stdin is a socket rather than a pipe.
    pub stdin_socket: bool,
    pub stdout: StdoutKind,
    /// stderr is /dev/full: every message is lost, and only the exit
    /// status says one was written.
    pub stderr_full: bool,
    pub faults: Faults,
    /// The binary's test hooks (variables that change how bytes travel,
    /// never which bytes): grep's mapping threshold and window.
    pub env: Vec<(&'static str, String)>,
    /// SIGPIPE at its default action rather than ignored: a broken pipe
    /// then kills the binary instead of failing its write.
    pub sigpipe_default: bool,
    /// The reader of a pipe or socket stdout closes it after taking this
    /// many bytes (yes only: how much it wrote beyond that is the kernel's
    /// business, and yes's bytes are the same whatever it is).
    pub reader_stops_after: Option<u64>,
}

impl BinaryCase {
    /// `samebytes-oracle replay binary:TOOL:SEED`.
    pub fn reproducer(&self) -> String {
        format!(
            "samebytes-oracle replay binary:{}:{}",
            self.tool.name(),
            self.seed
        )
    }
}

/// A small deterministic generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

const MIB: u64 = 1 << 20;

/// Sizes at which a binary changes path: empty, one byte, around a page,
/// 64 KiB reads, wc's 256 KiB mapping threshold, one 2 MiB window, the
/// 4 MiB two-thread split, and tens of MiB.
const THRESHOLD_SIZES: &[u64] = &[
    0,
    1,
    4095,
    4096,
    4097,
    65536,
    256 * 1024 - 1,
    256 * 1024,
    256 * 1024 + 1,
    2 * MIB,
    4 * MIB - 1,
    4 * MIB,
    4 * MIB + 1,
    9 * MIB,
    24 * MIB,
];

fn size(rng: &mut Rng) -> usize {
    let s = if rng.chance(1, 4) {
        rng.below(9000)
    } else {
        let s = rng.pick(THRESHOLD_SIZES);
        // The largest sizes are slow to count in the spec: fewer of them.
        if s > 4 * MIB + 1 && rng.chance(2, 3) {
            rng.pick(&THRESHOLD_SIZES[..10])
        } else {
            s
        }
    };
    s as usize
}

/// Text with every byte class the tools care about: words, blanks, line
/// ends, UTF-8 of each length, encoding errors and NULs.
fn text(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 16);
    let long_lines = rng.chance(1, 5);
    while out.len() < len {
        let r = rng.next_u64();
        if long_lines && r.is_multiple_of(7) {
            out.extend(std::iter::repeat_n(b'x', (r >> 8) as usize % 5000));
            continue;
        }
        let token = crate::wc::TOKENS[(r >> 16) as usize % crate::wc::TOKENS.len()];
        out.extend_from_slice(token);
        if r.is_multiple_of(3) {
            out.extend_from_slice(b"lorem ipsum dolor\n");
        }
    }
    out.truncate(len);
    out
}

const NAMES: &[&[u8]] = &[b"f0", b"f1", b"f2", b"d"];

const WC_OPTIONS: &[&[u8]] = &[b"-c", b"-l", b"-w", b"-m", b"-L", b"-lc", b"-cm"];
const CAT_OPTIONS: &[&[u8]] = &[b"-n", b"-A", b"-s", b"-b", b"-E", b"-T", b"-v"];
/// Not `-w`: where a word ends next to an encoding error, the spec (line
/// by line) and the impl (whole buffers) still disagree, and both disagree
/// with GNU (`binary:grep:6000924` with `-w` back in); word constituents
/// are rebuilt by the grep dialect issue, which puts `-w` back here.
const GREP_OPTIONS: &[&[u8]] = &[
    b"-c",
    b"-n",
    b"-v",
    b"-i",
    b"-o",
    b"-l",
    b"-L",
    b"-q",
    b"-m0",
    b"-m1",
    b"-m3",
    b"-A1",
    b"-B2",
    b"-C1",
    b"-x",
    b"-a",
    b"-b",
    b"-H",
    b"-h",
    b"-s",
    b"-z",
    b"-E",
    b"-F",
    b"-P",
    b"-w",
    b"--color=always",
    b"--binary-files=without-match",
];
/// Patterns that select some of [`text`]'s lines, none, or all of them.
/// The patterns -w takes: each matches only whole words of the text.
const WORD_PATTERNS: &[&[u8]] = &[
    b"lorem",
    b"ipsum dolor",
    b"word",
    b"^lorem",
    b"dolor$",
    b"zzz",
];

/// grep's pattern file, when a case reads its patterns with `-f`.
const PATTERN_FILE: &[u8] = b"p";
const GREP_PATTERNS: &[&[u8]] = &[
    b"lorem",
    b"ipsum dolor",
    b"word",
    b"a",
    b"^lorem",
    b"dolor$",
    b"x",
    b"xx*",
    b"\xc3\xa9",
    b"[[:space:]]w",
    b"o.*r",
    b"zzz",
    b"",
    b"^$",
    b"\\(or\\)",
];
/// yes's lines: short, empty, longer than a page, and longer than a pipe.
fn yes_args(rng: &mut Rng) -> Vec<Vec<u8>> {
    match rng.below(12) {
        0 => vec![],
        1 => vec![b"y".to_vec()],
        2 => vec![b"hello".to_vec(), b"world".to_vec()],
        3 => vec![Vec::new()],
        4 => vec![Vec::new(), Vec::new()],
        5 => vec![b"x".repeat(4095)],
        6 => vec![b"ab".repeat(40_000)],
        7 => vec![b"z".repeat(1 + rng.below(300) as usize)],
        8 => vec![b"--".to_vec(), b"-n".to_vec()],
        9 => vec![b"--help".to_vec()],
        10 => vec![b"--version".to_vec()],
        _ => vec![b"-x".to_vec()],
    }
}

/// A world: up to three files, maybe a directory, maybe an unreadable
/// file, and a stdin.
fn world(rng: &mut Rng) -> World {
    let mut world = World::default();
    let nfiles = rng.below(4) as usize;
    for name in &NAMES[..nfiles.min(3)] {
        let n = size(rng);
        world
            .files
            .insert(name.to_vec(), Node::Regular(text(rng, n)));
    }
    if rng.chance(1, 8) {
        world.files.insert(b"d".to_vec(), Node::Directory);
    }
    // A file that cannot be opened (EACCES): the fault layer refuses it,
    // since a root user reads every file whatever its mode.
    if rng.chance(1, 6) {
        world.files.insert(b"u".to_vec(), Node::Unreadable);
    }
    let stdin_node = match rng.below(11) {
        0..=4 => Node::Regular({
            let n = size(rng);
            text(rng, n)
        }),
        5..=8 => Node::Stream({
            let n = size(rng).min(9 * MIB as usize);
            text(rng, n)
        }),
        9 => Node::Directory,
        // `<&-`
        _ => Node::Closed,
    };
    let offset = match &stdin_node {
        Node::Regular(d) if rng.chance(1, 4) => match rng.below(4) {
            // Past its end (a reader that seeks there, as GNU's tools
            // allow), or just at it.
            0 => d.len() + 1 + rng.below(4096) as usize,
            1 => d.len(),
            _ => rng.below(d.len() as u64 + 1) as usize,
        },
        _ => 0,
    };
    world.stdin = Stdin {
        node: stdin_node,
        offset,
    };
    world
}

/// Options, a pattern for grep, and operands naming the world's files and
/// `-` (at most once: a second read of a stdin that failed would depend
/// on where the failure left its offset).
fn command_line(tool: Tool, rng: &mut Rng, world: &World) -> Vec<Vec<u8>> {
    let mut args: Vec<Vec<u8>> = Vec::new();
    if tool == Tool::Wc && matches!(world.stdin.node, Node::Stream(_)) && rng.chance(1, 3) {
        // Bytes only: wc splices a pipe into /dev/null.
        args.push(b"-c".to_vec());
    }
    let options = match tool {
        Tool::Wc => WC_OPTIONS,
        // Mostly plain copies: those take the kernel paths.
        Tool::Cat if rng.chance(3, 4) => &[][..],
        Tool::Cat => CAT_OPTIONS,
        Tool::Grep => GREP_OPTIONS,
        Tool::Yes => return yes_args(rng),
    };
    for _ in 0..rng.below(if tool == Tool::Grep { 4 } else { 3 }) {
        if !options.is_empty() {
            args.push(rng.pick(options).to_vec());
        }
    }
    if tool == Tool::Grep {
        // -w with a pattern that matches a run of word characters is
        // quadratic in the run, in GNU's search as in ours (each start is
        // retried with every shorter match): on the generator's long runs
        // of `x` both take minutes.  -w gets whole words only.
        let word = args.iter().any(|a| a == b"-w");
        if word {
            args.push(rng.pick(WORD_PATTERNS).to_vec());
        } else if world.files.contains_key(PATTERN_FILE) {
            args.push(b"-f".to_vec());
            args.push(PATTERN_FILE.to_vec());
        } else {
            if rng.chance(1, 4) {
                args.push(b"-e".to_vec());
            }
            args.push(rng.pick(GREP_PATTERNS).to_vec());
        }
    }
    let mut operands: Vec<Vec<u8>> = world.files.keys().cloned().collect();
    operands.push(b"-".to_vec());
    let mut stdin_named = false;
    for _ in 0..rng.below(4) {
        let o = operands[rng.below(operands.len() as u64) as usize].clone();
        if o == b"-" {
            if stdin_named {
                continue;
            }
            stdin_named = true;
        }
        args.push(o);
    }
    args
}

/// wc reading its operands from a NUL-separated list (`--files0-from`):
/// some of the world's files and perhaps a missing name, in a list file
/// of its own (read whole up front, as GNU reads a small regular list) or
/// on stdin (a pipe is read as it goes; a regular file up front).
fn files0_command_line(rng: &mut Rng, world: &mut World) -> Vec<Vec<u8>> {
    let mut args = Vec::new();
    if rng.chance(1, 2) {
        args.push(rng.pick(WC_OPTIONS).to_vec());
    }
    let files: Vec<Vec<u8>> = world.files.keys().cloned().collect();
    let mut list = Vec::new();
    for _ in 0..rng.below(5) {
        let name = if files.is_empty() || rng.chance(1, 8) {
            b"missing".to_vec()
        } else {
            files[rng.below(files.len() as u64) as usize].clone()
        };
        list.extend_from_slice(&name);
        list.push(0);
    }
    if !list.is_empty() && rng.chance(1, 4) {
        list.pop(); // the last name without its NUL
    }
    if rng.chance(1, 2) {
        world.stdin.node = match world.stdin.node {
            Node::Regular(_) => Node::Regular(list),
            _ => Node::Stream(list),
        };
        world.stdin.offset = 0;
        args.push(b"--files0-from=-".to_vec());
    } else {
        world.files.insert(b"list".to_vec(), Node::Regular(list));
        args.push(b"--files0-from=list".to_vec());
    }
    args
}

/// Input EIO: one regular input, anywhere in it.
fn read_error(rng: &mut Rng, world: &mut World) {
    let offset = world.stdin.offset;
    let regular: Vec<(Vec<u8>, usize)> = world
        .files
        .iter()
        .filter_map(|(n, node)| match node {
            Node::Regular(d) if !d.is_empty() => Some((n.clone(), d.len())),
            _ => None,
        })
        .collect();
    let stdin_len = match &world.stdin.node {
        Node::Regular(d) if d.len() > offset => Some(d.len()),
        _ => None,
    };
    if let (Some(len), true) = (stdin_len, regular.is_empty() || rng.chance(1, 3)) {
        world.read_errors.stdin = Some(offset + rng.below((len - offset) as u64) as usize);
    } else if !regular.is_empty() {
        let (name, len) = regular[rng.below(regular.len() as u64) as usize].clone();
        world
            .read_errors
            .files
            .insert(name, rng.below(len as u64) as usize);
    }
}

/// How much yes writes before its stdout fails: nothing, a little, around
/// a page and a pipe, or many MiB (well past vmsplice's warm-up).
fn yes_limit(rng: &mut Rng) -> u64 {
    match rng.below(6) {
        0 => rng.below(100),
        1 => rng.pick(&[4095, 4096, 4097, 65535, 65536, 65537]),
        2 => rng.below(MIB),
        3 => MIB + rng.below(8 * MIB),
        4 => 16 * MIB + rng.below(3),
        _ => rng.below(64 * MIB),
    }
}

/// Generate the case of `tool` for `seed`.
pub fn generate(tool: Tool, seed: u64) -> BinaryCase {
    let mut rng = Rng::new(seed ^ (tool as u64).wrapping_mul(0x5851_f42d_4c95_7f2d));
    let mut world = if tool == Tool::Yes {
        World::default()
    } else {
        world(&mut rng)
    };
    // A quarter of grep's cases search a tree recursively.
    let recursive = (tool == Tool::Grep && rng.chance(1, 4)).then(|| {
        world.files.clear();
        super::tree::tree_case(&mut rng, &mut |rng| {
            let n = match rng.chance(1, 6) {
                true => size(rng),
                false => rng.below(3000) as usize,
            };
            text(rng, n)
        })
    });
    let (tree, tree_args) = recursive.unzip();
    if tree.is_none() && tool == Tool::Grep && rng.chance(1, 5) {
        // Patterns read from a file (`-f p`): one to three of them, a
        // line each, the last newline perhaps left off.
        let mut list = Vec::new();
        for _ in 0..=rng.below(3) {
            list.extend_from_slice(rng.pick(GREP_PATTERNS));
            list.push(b'\n');
        }
        if rng.chance(1, 3) {
            list.pop();
        }
        world
            .files
            .insert(PATTERN_FILE.to_vec(), Node::Regular(list));
    }
    let args = match tree_args {
        Some(args) => args,
        None if tool == Tool::Wc && rng.chance(1, 6) => files0_command_line(&mut rng, &mut world),
        None => command_line(tool, &mut rng, &world),
    };
    if tool != Tool::Yes && rng.chance(1, 3) {
        read_error(&mut rng, &mut world);
    }
    let regular: Vec<Vec<u8>> = world
        .files
        .iter()
        .filter(|(_, n)| matches!(n, Node::Regular(_)))
        .map(|(name, _)| name.clone())
        .collect();
    if !regular.is_empty() && rng.chance(1, 6) {
        // A file its `stat` calls cannot describe, though it reads.
        let pick = rng.below(regular.len() as u64) as usize;
        world.stat_fails.insert(regular[pick].clone());
    }
    if tool != Tool::Yes && matches!(world.stdin.node, Node::Regular(_)) && rng.chance(1, 10) {
        world.stdin_stat_fails = true;
    }
    let stdin_socket = rng.chance(1, 3);
    let preload_max = if stdin_socket {
        super::run::SOCKET_PRELOAD_MAX
    } else {
        super::run::PRELOAD_MAX
    };
    let small_stream = matches!(&world.stdin.node, Node::Stream(d) if d.len() <= preload_max);
    if tool != Tool::Yes && small_stream && rng.chance(1, 4) {
        // A non-blocking pipe or socket that runs dry (EAGAIN) instead of
        // ending.
        world.read_errors.stdin_would_block = true;
    }
    let stdout = rng.pick(&[
        StdoutKind::DevNull,
        StdoutKind::Pipe,
        StdoutKind::SlowPipe,
        StdoutKind::File,
        StdoutKind::AppendFile,
        StdoutKind::Socket,
        StdoutKind::Closed,
    ]);
    let total_input: u64 = world
        .files
        .values()
        .chain(std::iter::once(&world.stdin.node))
        .map(|n| match n {
            Node::Regular(d) | Node::Stream(d) => d.len() as u64,
            _ => 0,
        })
        .sum();
    // Known gap: when formatted cat meets a read error, whether a failing
    // stdout stops it first depends on how much output was still buffered,
    // which the spec does not model yet.  Such cases get no output failure.
    let formatted_read_error = tool == Tool::Cat
        && args.iter().any(|a| CAT_OPTIONS.contains(&a.as_slice()))
        && (world.read_errors.stdin.is_some()
            || world.read_errors.stdin_would_block
            || !world.read_errors.files.is_empty());
    // yes never ends on its own: its stdout always fails, by the layer or
    // by a pipe's reader that goes away.  Only while yes repeats its line
    // is how much it wrote into the pipe beyond the reader's take
    // irrelevant; a socket's reader closing with bytes unread would reset
    // the connection (ECONNRESET), not break the pipe.
    let repeats = tool == Tool::Yes
        && matches!(
            samebytes_spec::yes::parse_args(&args, &samebytes_spec::yes::YesEnv::new(false)),
            samebytes_spec::yes::Invocation::Repeat(_)
        );
    let reader_stops_after =
        (repeats && matches!(stdout, StdoutKind::Pipe | StdoutKind::SlowPipe) && rng.chance(1, 3))
            .then(|| yes_limit(&mut rng));
    // A closed stdout fails every write by itself.
    let fails = match tool {
        _ if stdout == StdoutKind::Closed => false,
        Tool::Yes => reader_stops_after.is_none(),
        // grep prints less than it reads, and often nothing (-q, -l, -c,
        // a pattern that selects no line): a failing stdout is met only
        // where it prints past the limit, so it gets more of them.
        Tool::Grep => !formatted_read_error && rng.chance(1, 2),
        _ => !formatted_read_error && rng.chance(1, 3),
    };
    let output_failure = fails.then(|| {
        let errno = match stdout {
            // EAGAIN: the pipe or socket is non-blocking and full.
            StdoutKind::Pipe | StdoutKind::SlowPipe | StdoutKind::Socket => rng.pick(&[
                OutputErrno::BrokenPipe,
                OutputErrno::BrokenPipe,
                OutputErrno::WouldBlock,
            ]),
            StdoutKind::DevNull => rng.pick(&[OutputErrno::NoSpace, OutputErrno::Io]),
            StdoutKind::Closed => unreachable!("a closed stdout gets no plan"),
            StdoutKind::File | StdoutKind::AppendFile => rng.pick(&[
                OutputErrno::NoSpace,
                OutputErrno::FileTooBig,
                OutputErrno::QuotaExceeded,
                OutputErrno::Io,
            ]),
        };
        let limit = match tool {
            // wc writes a few lines: fail inside them.
            Tool::Wc => rng.below(120),
            Tool::Cat => rng.below(total_input + 200),
            // grep prints a share of its input, often a small one.
            Tool::Grep if rng.chance(2, 3) => rng.below(300),
            Tool::Grep => rng.below(total_input + 200),
            Tool::Yes => yes_limit(&mut rng),
        };
        (limit, errno)
    });
    // Only where every write works: with a write error too, what GNU says
    // depends on stdio's buffering (docs/differences.md).  Not for yes,
    // whose output never ends by itself.
    let close_failure = (tool != Tool::Yes
        && output_failure.is_none()
        && stdout != StdoutKind::Closed
        && rng.chance(1, 5))
    .then(|| {
        rng.pick(&[
            OutputErrno::Io,
            OutputErrno::NoSpace,
            OutputErrno::QuotaExceeded,
        ])
    });
    let broken_pipe = reader_stops_after.is_some()
        || matches!(output_failure, Some((_, OutputErrno::BrokenPipe)));
    // Not for wc: it goes on after a failed write, and where its
    // diagnostics fall relative to the write that would kill it is not in
    // the spec's outcome (which keeps them all, as with SIGPIPE ignored).
    let sigpipe_default = broken_pipe && tool != Tool::Wc && rng.chance(1, 3);
    let mut env = Vec::new();
    if tool == Tool::Grep && rng.chance(1, 2) {
        // The stream buffer's starting size (256 KiB by default): small
        // ones put lines across many reads and make the buffer grow.
        let buffer = rng.pick(&[1u64, 4096, 65536]);
        env.push(("SAMEBYTES_GREP_BUFFER", buffer.to_string()));
    }
    if tool == Tool::Grep && rng.chance(1, 2) {
        // Map even small files, in windows from one byte up (the first
        // one still reaches past the 32 KiB probe): the fault plan's EIO
        // points then raise SIGBUS inside windows, and its mmap refusals
        // hand the rest of a file to read(2).
        env.push(("SAMEBYTES_GREP_MAP_MIN", "0".to_string()));
        let window = rng.pick(&[1u64, 4096, 40000, 1 << 20]);
        env.push(("SAMEBYTES_GREP_WINDOW", window.to_string()));
    }
    let faults = Faults {
        short: rng.pick(&[0, 0, 10, 50]),
        eintr: rng.pick(&[0, 0, 5, 20]),
        refuse: rng.pick(&[0, 0, 10, 50, 100]),
        pipe_size: rng.pick(&[0, 0, 100]),
        mmap: rng.pick(&[0, 0, 30, 100]),
        output_failure,
        close_failure,
    };
    BinaryCase {
        tool,
        seed,
        args,
        utf8: rng.chance(3, 4),
        world,
        tree,
        stdin_socket,
        stdout,
        stderr_full: tool != Tool::Yes && rng.chance(1, 8),
        faults,
        env,
        sigpipe_default,
        reader_stops_after,
    }
}

impl std::fmt::Display for BinaryCase {
    /// A summary for people: the command line and the world's shape.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |n: &Node| match n {
            Node::Regular(d) => format!("regular, {} bytes", d.len()),
            Node::Stream(d) => format!("stream, {} bytes", d.len()),
            Node::Directory => "directory".into(),
            Node::Unreadable => "unreadable".into(),
            Node::Closed => "closed".into(),
        };
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        writeln!(
            f,
            "{} {}  (LC_ALL={})",
            self.tool.name(),
            args.join(" "),
            if self.utf8 { "C.UTF-8" } else { "C" }
        )?;
        for (name, node) in &self.world.files {
            let stat = match self.world.stat_fails.contains(name) {
                true => ", stat fails (EIO)",
                false => "",
            };
            writeln!(
                f,
                "  {}: {}{stat}",
                String::from_utf8_lossy(name),
                show(node)
            )?;
        }
        for (key, entry) in self.tree.iter().flat_map(|t| &t.entries) {
            let what = match entry {
                Entry::File(d) => format!("file, {} bytes", d.len()),
                Entry::Dir(names) => format!("directory of {}", names.len()),
                Entry::Symlink(t) => format!("link to {:?}", String::from_utf8_lossy(t)),
                Entry::Special(_) => "special".into(),
            };
            let tree = self.tree.as_ref();
            let undescribed = match tree.is_some_and(|t| t.stat_errors.contains(key)) {
                true => ", stat fails (EIO)",
                false => "",
            };
            let refused = match tree.and_then(|t| t.open_error(key)) {
                Some(e) => format!(", opening fails: {}", e.message()),
                None => match tree.and_then(|t| t.list_errors.get(key)) {
                    Some(n) => format!(", listing fails with EIO after {n} names"),
                    None => String::new(),
                },
            };
            writeln!(
                f,
                "  tree ./{}: {what}{refused}{undescribed}",
                String::from_utf8_lossy(key)
            )?;
        }
        writeln!(
            f,
            "  stdin: {} at offset {}{}{}",
            show(&self.world.stdin.node),
            self.world.stdin.offset,
            if self.stdin_socket {
                " (socket if a stream)"
            } else {
                ""
            },
            if self.world.stdin_stat_fails {
                ", fstat fails (EIO)"
            } else {
                ""
            }
        )?;
        writeln!(f, "  read errors: {:?}", self.world.read_errors)?;
        if !self.env.is_empty() {
            writeln!(f, "  env: {:?}", self.env)?;
        }
        writeln!(
            f,
            "  SIGPIPE {}{}",
            if self.sigpipe_default {
                "default"
            } else {
                "ignored"
            },
            match self.reader_stops_after {
                Some(n) => format!("; stdout's reader stops after {n} bytes"),
                None => String::new(),
            }
        )?;
        write!(
            f,
            "  stdout: {:?}{}; faults: {:?}",
            self.stdout,
            if self.stderr_full {
                "; stderr /dev/full"
            } else {
                ""
            },
            self.faults
        )
    }
}
