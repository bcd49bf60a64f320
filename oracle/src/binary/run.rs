//! Running one case: the world made real in a scratch folder, stdin and
//! stdout connected as the case says, the binary started under the fault
//! layer, and what it wrote collected.

use std::ffi::OsStr;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use samebytes_spec::world::Node;
use samebytes_spec::Errno;

use super::case::{BinaryCase, Rng, StdoutKind};
use crate::faultplan::{
    Counts, InputEio, OpenErrno, OpenFailure, OutputFailure, Plan, COUNTS_FILE_LEN, ENV,
};

/// What the binary did.
pub struct Run {
    /// `None` when stdout went to /dev/null.
    pub stdout: Option<Vec<u8>>,
    pub stderr: Vec<u8>,
    /// The exit status, or 128 + the signal that killed it.
    pub status: i32,
    pub counts: Counts,
    pub hung: bool,
    /// Where a regular stdin was left, if the binary exited (not killed).
    pub stdin_offset: Option<u64>,
    /// A recursive case's tree as written, its directories' names in the
    /// order the kernel lists them.
    pub listed: Option<samebytes_spec::tree::Tree>,
}

/// A scratch folder, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Scratch {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("samebytes-bin-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch folder");
        Scratch(dir)
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch::new()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn identity(path: &Path) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).expect("stat a file we made");
    (m.dev(), m.ino())
}

/// How much of a stream stdin is in the pipe or socket before the binary
/// starts: its first 32 KiB, grep's binary probe, so that a pause of the
/// feeder below, which the spec does not know of, never ends the probe
/// early (a live stream's pauses are checked by `super::live`).  Well within a pipe's and a socket's buffer.
fn first_burst(data: &[u8]) -> usize {
    data.len().min(samebytes_spec::grep::BINARY_PREFIX)
}

/// Write `data` to `w` in pseudo-random chunks, pausing now and then, as a
/// slow producer does; stop quietly when the reader has gone.
fn feed(mut w: impl Write, data: Vec<u8>, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut at = 0;
    while at < data.len() {
        let end = (at + 1 + rng.below(200_000) as usize).min(data.len());
        if w.write_all(&data[at..end]).is_err() {
            return;
        }
        at = end;
        if rng.chance(1, 8) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Read everything from `r`, slowly if asked, or only its first `limit`
/// bytes, and then close it.
fn drain(mut r: impl Read, slow: bool, limit: Option<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let left = limit.map_or(buf.len() as u64, |l| l - out.len() as u64);
        if left == 0 {
            return out;
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        match r.read(&mut buf[..want]) {
            Ok(0) | Err(_) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
        if slow {
            std::thread::sleep(Duration::from_micros(300));
        }
    }
}

/// The layer's plan for a case: its seed and fault rates (the caller adds
/// input EIO points, stdout failures and where counts go).
pub fn plan_of(case: &BinaryCase) -> Plan {
    Plan {
        seed: case.seed,
        short: case.faults.short,
        eintr: case.faults.eintr,
        refuse: case.faults.refuse,
        pipe_size: case.faults.pipe_size,
        mmap: case.faults.mmap,
        ..Plan::default()
    }
}

/// Make the case's files, and a regular stdin as `.stdin`, in `dir`;
/// return the EIO points of those that have one, and the files that must
/// not open.
pub fn materialize(case: &BinaryCase, dir: &Path) -> Materialized {
    let mut eio = Vec::new();
    let mut open_failures = Vec::new();
    let mut fail_at = |path: &Path, at: Option<usize>| {
        if let Some(at) = at {
            let (dev, ino) = identity(path);
            eio.push(InputEio {
                dev,
                ino,
                at: at as u64,
            });
        }
    };
    for (name, node) in &case.world.files {
        let path = dir.join(OsStr::from_bytes(name));
        match node {
            Node::Regular(d) => std::fs::write(&path, d).expect("write file"),
            Node::Directory => std::fs::create_dir(&path).expect("mkdir"),
            // Empty, as the spec's stat says, and unopenable by the plan.
            Node::Unreadable => {
                std::fs::write(&path, b"").expect("write file");
                open_failures.push(open_failure(&path, Errno::Access));
            }
            Node::Stream(_) | Node::Closed => {
                unreachable!("the generator makes none of these")
            }
        }
        fail_at(&path, case.world.read_errors.files.get(name).copied());
    }
    if let Node::Regular(d) = &case.world.stdin.node {
        let path = dir.join(".stdin");
        std::fs::write(&path, d).expect("write stdin");
        fail_at(&path, case.world.read_errors.stdin);
    }
    // Only files the world has as regular ones: a case edited by hand
    // may have dropped the file and kept its fault.
    let mut stat_failures: Vec<(u64, u64)> = case
        .world
        .stat_fails
        .iter()
        .filter(|name| matches!(case.world.files.get(*name), Some(Node::Regular(_))))
        .map(|name| identity(&dir.join(OsStr::from_bytes(name))))
        .collect();
    if case.world.stdin_undescribed() {
        stat_failures.push(identity(&dir.join(".stdin")));
    }
    Materialized {
        eio,
        open_failures,
        stat_failures,
    }
}

/// What the plan must know of the files made: where reads fail, and which
/// files cannot be opened.
pub struct Materialized {
    pub eio: Vec<InputEio>,
    pub open_failures: Vec<OpenFailure>,
    pub stat_failures: Vec<(u64, u64)>,
}

/// The plan's item that makes opening `path` fail as the spec's `errno`
/// says.
pub fn open_failure(path: &Path, errno: Errno) -> OpenFailure {
    let (dev, ino) = identity(path);
    let errno = match errno {
        Errno::Access => OpenErrno::Access,
        Errno::NoEntry => OpenErrno::NoEntry,
        Errno::TooManyOpen => OpenErrno::TooManyOpen,
        Errno::TooManyOpenInSystem => OpenErrno::TooManyOpenInSystem,
        Errno::Io => OpenErrno::Io,
        other => panic!("the layer cannot fail an open with {other:?}"),
    };
    OpenFailure { dev, ino, errno }
}

/// The most a preloaded non-blocking stdin pipe holds (the unprivileged
/// limit of `F_SETPIPE_SZ`).
pub const PRELOAD_MAX: usize = 1 << 20;

/// A pipe that already holds all of `data`, its read end non-blocking: a
/// reader gets the bytes, then EAGAIN for as long as the write end is open.
fn preloaded_nonblocking_pipe(data: &[u8]) -> (std::io::PipeReader, std::io::PipeWriter) {
    use std::os::fd::AsFd;
    assert!(data.len() <= PRELOAD_MAX, "the generator keeps it small");
    let (reader, mut writer) = std::io::pipe().expect("pipe");
    crate::sys::set_pipe_size(writer.as_fd(), PRELOAD_MAX);
    crate::sys::set_nonblocking(reader.as_fd());
    writer.write_all(data).expect("preload the pipe");
    (reader, writer)
}

/// The most a preloaded non-blocking stdin socket holds: well inside a
/// Unix socket's default send buffer, so the preload never waits.
pub const SOCKET_PRELOAD_MAX: usize = 16 << 10;

/// A socket that already holds all of `data`, the child's end
/// non-blocking: a reader gets the bytes, then EAGAIN for as long as our
/// end is open.
fn preloaded_nonblocking_socket(data: &[u8]) -> (UnixStream, UnixStream) {
    assert!(
        data.len() <= SOCKET_PRELOAD_MAX,
        "the generator keeps it small"
    );
    let (mut ours, theirs) = UnixStream::pair().expect("socketpair");
    ours.set_nonblocking(true).expect("non-blocking preload");
    ours.write_all(data)
        .expect("the preload fits in the socket's buffer");
    theirs.set_nonblocking(true).expect("non-blocking stdin");
    (ours, theirs)
}

/// The longest a case may run before it counts as hung.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// Valgrind's memcheck around a run: what it found goes to a log beside
/// the scratch folder, appended to the run's stderr (so that the run
/// mismatches, with the report in the diff), and its errors make the
/// status 97.
#[derive(Clone, Debug)]
pub struct Memcheck {
    /// The suppressions, each argued in the file (`.ci/valgrind.supp`).
    pub suppressions: PathBuf,
    /// A folder of links named after the tools, first in valgrind's PATH:
    /// valgrind starts its client under the name it was given, and the
    /// tools name themselves by argv[0] as GNU's do (`/path/cat: ...`).
    pub names: PathBuf,
}

/// The status memcheck exits with when it found an error.
pub const MEMCHECK_ERROR_STATUS: i32 = 97;

impl Memcheck {
    /// Memcheck for the binaries in `dir`, with these suppressions.
    pub fn new(dir: &Path, suppressions: PathBuf) -> std::io::Result<Memcheck> {
        let names = std::env::temp_dir().join(format!("samebytes-memcheck-{}", std::process::id()));
        std::fs::create_dir_all(&names)?;
        for tool in ["wc", "cat", "grep", "yes"] {
            let link = names.join(tool);
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(dir.join(tool), &link)?;
        }
        Ok(Memcheck {
            suppressions,
            names,
        })
    }

    fn command(&self, binary: &Path, log: &Path) -> Command {
        let mut cmd = Command::new("valgrind");
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.names.clone()];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).expect("PATH"));
        cmd.arg("--tool=memcheck")
            .arg("--quiet")
            .arg(format!("--error-exitcode={MEMCHECK_ERROR_STATUS}"))
            // The binaries leak on purpose (argv's copy, vmspliced pages
            // frozen for the process); leaks are not what is checked.
            .arg("--leak-check=no")
            .arg(format!("--suppressions={}", self.suppressions.display()))
            .arg(format!("--log-file={}.%p", log.display()))
            .arg(binary.file_name().expect("a binary's name"));
        cmd
    }
}

/// Run `binary` on `case` with the fault layer at `layer`.
pub fn run(case: &BinaryCase, binary: &Path, layer: &Path) -> Run {
    run_under(case, binary, layer, None)
}

/// As [`run`], under memcheck when one is given: `binary` is then run
/// by its name through [`Memcheck::names`] (the tool's own binary: the
/// multicall one dispatches on argv[0]), with ten times the time before
/// it counts as hung.  A case with a closed stdin or stdout runs without
/// it: valgrind opens descriptors of its own, and the client would find
/// them open.
pub fn run_under(
    case: &BinaryCase,
    binary: &Path,
    layer: &Path,
    memcheck: Option<&Memcheck>,
) -> Run {
    let closes = case.world.stdin.node == Node::Closed || case.stdout == StdoutKind::Closed;
    let memcheck = memcheck.filter(|_| !closes);
    let scratch = Scratch::new();
    let dir = &scratch.0;
    let mut plan = Plan {
        counts: Some(dir.join(".counts").to_string_lossy().into_owned()),
        ..plan_of(case)
    };
    let mut made = materialize(case, dir);
    // A recursive case runs in its tree's root, away from the files the
    // harness keeps beside it (`.stdin`, `.counts`, ...).
    let root = dir.join("tree");
    let listed = case.tree.as_ref().map(|tree| {
        super::tree::write(tree, &root);
        for key in tree.entries.keys() {
            if let Some(e) = tree.open_error(key) {
                let path = root.join(OsStr::from_bytes(key));
                made.open_failures.push(open_failure(&path, e));
            }
        }
        for key in &tree.stat_errors {
            made.stat_failures
                .push(identity(&root.join(OsStr::from_bytes(key))));
        }
        for (key, &after) in &tree.list_errors {
            let (dev, ino) = identity(&root.join(OsStr::from_bytes(key)));
            plan.list_failures.push((dev, ino, after as u64));
        }
        super::tree::listed(tree, &root)
    });
    let cwd = if listed.is_some() { &root } else { dir };
    plan.input_eio = made.eio;
    plan.open_failures = made.open_failures;
    plan.stat_failures = made.stat_failures;
    std::fs::write(dir.join(".counts"), vec![0u8; COUNTS_FILE_LEN]).expect("counts file");

    let log = dir.with_extension("memcheck");
    let mut cmd = match memcheck {
        Some(m) => m.command(binary, &log),
        None => {
            let mut cmd = Command::new(binary);
            cmd.arg0(case.tool.name());
            cmd
        }
    };
    cmd.args(case.args.iter().map(|a| OsStr::from_bytes(a)))
        .current_dir(cwd)
        .env_remove("LANG")
        .env_remove("LC_CTYPE")
        .env_remove("POSIXLY_CORRECT")
        .env("LC_ALL", if case.utf8 { "C.UTF-8" } else { "C" })
        .env("LD_PRELOAD", layer);
    match case.stderr_full {
        true => cmd.stderr(std::fs::File::create("/dev/full").expect("/dev/full")),
        false => cmd.stderr(Stdio::piped()),
    };
    for (name, value) in &case.env {
        cmd.env(name, value);
    }
    // With SIGPIPE ignored a broken pipe is the write error the spec
    // models; at its default it kills (see `expected`).  A closed stdin or
    // stdout is closed in the child.
    crate::sys::before_exec(
        &mut cmd,
        crate::sys::ChildSetup {
            sigpipe_default: Some(case.sigpipe_default),
            close_stdin: case.world.stdin.node == Node::Closed,
            close_stdout: case.stdout == StdoutKind::Closed,
        },
    );

    // Stdin.
    let mut feeder = None;
    // The write end of a preloaded non-blocking stdin pipe or socket, open
    // until the child has exited, so that the child finds it dry, not ended.
    let mut held_writer = None;
    let mut held_socket = None;
    // Our own handle on a regular stdin's open file: its offset is the
    // child's.
    let mut stdin_file = None;
    // A stdin pipe's write end, and how much of the data it already holds.
    let mut stdin_writer = None;
    match &case.world.stdin.node {
        Node::Regular(_) => {
            let mut f = std::fs::File::open(dir.join(".stdin")).expect("open stdin");
            f.seek(SeekFrom::Start(case.world.stdin.offset as u64))
                .expect("seek");
            stdin_file = Some(f.try_clone().expect("dup stdin"));
            cmd.stdin(f);
        }
        Node::Stream(d) if case.stdin_socket && case.world.read_errors.stdin_would_block => {
            let (ours, theirs) = preloaded_nonblocking_socket(d);
            cmd.stdin(std::os::fd::OwnedFd::from(theirs));
            held_socket = Some(ours);
        }
        Node::Stream(d) if case.stdin_socket => {
            let (mut ours, theirs) = UnixStream::pair().expect("socketpair");
            cmd.stdin(std::os::fd::OwnedFd::from(theirs));
            let first = first_burst(d);
            ours.write_all(&d[..first]).expect("the first burst fits");
            let (data, seed) = (d[first..].to_vec(), case.seed);
            feeder = Some(std::thread::spawn(move || {
                feed(&ours, data, seed);
                let _ = ours.shutdown(std::net::Shutdown::Write);
            }));
        }
        Node::Stream(d) if case.world.read_errors.stdin_would_block => {
            let (reader, writer) = preloaded_nonblocking_pipe(d);
            cmd.stdin(reader);
            held_writer = Some(writer);
        }
        // The pipe's feeder starts once the child has.
        Node::Stream(d) => {
            let (reader, mut writer) = std::io::pipe().expect("pipe");
            let first = first_burst(d);
            writer.write_all(&d[..first]).expect("the first burst fits");
            cmd.stdin(reader);
            stdin_writer = Some((writer, first));
        }
        Node::Directory => {
            cmd.stdin(std::fs::File::open(dir).expect("open folder"));
        }
        Node::Unreadable => unreachable!("stdin is never unreadable"),
        // Closed in the child (below).
        Node::Closed => {
            cmd.stdin(Stdio::null());
        }
    }

    // Stdout.
    let out_path = dir.join(".stdout");
    let mut out_reader: Option<Box<dyn Read + Send>> = None;
    match case.stdout {
        StdoutKind::DevNull => {
            cmd.stdout(
                std::fs::File::options()
                    .write(true)
                    .open("/dev/null")
                    .expect("/dev/null"),
            );
        }
        StdoutKind::Pipe | StdoutKind::SlowPipe => {
            cmd.stdout(Stdio::piped());
        }
        StdoutKind::File => {
            cmd.stdout(std::fs::File::create(&out_path).expect("create stdout"));
        }
        StdoutKind::AppendFile => {
            cmd.stdout(
                std::fs::File::options()
                    .create(true)
                    .append(true)
                    .open(&out_path)
                    .expect("open stdout"),
            );
        }
        StdoutKind::Socket => {
            let (ours, theirs) = UnixStream::pair().expect("socketpair");
            cmd.stdout(std::os::fd::OwnedFd::from(theirs));
            out_reader = Some(Box::new(ours));
        }
        // Closed in the child (below).
        StdoutKind::Closed => {
            cmd.stdout(Stdio::null());
        }
    }
    if let Some((after, errno)) = case.faults.output_failure {
        plan.output_failures.push(OutputFailure {
            fd: 1,
            after,
            errno,
        });
    }
    if let Some(errno) = case.faults.close_failure {
        plan.close_failures.push((1, errno));
    }
    cmd.env(ENV, plan.render());

    let mut child = cmd.spawn().expect("start the binary");
    // The command holds our copies of the child's socket ends: drop them,
    // or the readers never see the end of the child's output.
    drop(cmd);
    if let (Node::Stream(d), Some((stdin, first))) = (&case.world.stdin.node, stdin_writer) {
        let (data, seed) = (d[first..].to_vec(), case.seed);
        feeder = Some(std::thread::spawn(move || feed(stdin, data, seed)));
    }
    if let Some(out) = child.stdout.take() {
        out_reader = Some(Box::new(out));
    }
    let slow = case.stdout == StdoutKind::SlowPipe;
    let limit = case.reader_stops_after;
    let stdout_thread = out_reader.map(|r| std::thread::spawn(move || drain(r, slow, limit)));
    let stderr_thread = child
        .stderr
        .take()
        .map(|stderr| std::thread::spawn(move || drain(stderr, false, None)));

    let deadline = Instant::now() + HANG_LIMIT * if memcheck.is_some() { 10 } else { 1 };
    let mut hung = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            hung = true;
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if let Some(f) = feeder {
        let _ = f.join();
    }
    drop(held_writer);
    drop(held_socket);
    let stdout = match (stdout_thread, case.stdout) {
        (Some(t), _) => Some(t.join().expect("stdout reader")),
        (None, StdoutKind::DevNull | StdoutKind::Closed) => None,
        (None, _) => Some(std::fs::read(&out_path).expect("read stdout file")),
    };
    let mut stderr = match stderr_thread {
        Some(t) => t.join().expect("stderr reader"),
        None => Vec::new(),
    };
    if memcheck.is_some() {
        stderr.extend(memcheck_logs(&log));
    }
    let counts = Counts::from_bytes(&std::fs::read(dir.join(".counts")).unwrap_or_default());
    let stdin_offset = match (stdin_file, status.code()) {
        (Some(mut f), Some(_)) if !hung => f.stream_position().ok(),
        _ => None,
    };
    Run {
        listed,
        stdin_offset,
        stdout,
        stderr,
        status: status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
        counts,
        hung,
    }
}

/// What memcheck wrote for a run (one log per process, `LOG.PID`), and
/// the logs removed.
fn memcheck_logs(log: &Path) -> Vec<u8> {
    let (Some(dir), Some(stem)) = (log.parent(), log.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.", stem.to_string_lossy());
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            found.extend(std::fs::read(entry.path()).unwrap_or_default());
            let _ = std::fs::remove_file(entry.path());
        }
    }
    found
}
