//! wc: options → input sources → kernel fast path or buffered core → output.
//!
//! The option grammar and the output format come from `samebytes_spec::wc`
//! so that spec and implementation agree on what a command line means; the
//! counting, the choice of I/O path and the order of work are this module's.

pub mod classes;
pub mod count;

use std::io::{self, BufRead, Read, Write};

use samebytes_spec::quote::{quoteaf, quotef};
use samebytes_spec::wc::{format_counts, parse_args, Counts, Invocation, TotalMode, WcEnv};
use samebytes_spec::world::Stat;

use crate::fdinput::FdInput;
use crate::io::{diagnose, read_retrying, Opened, Output};
use crate::sys::{self, FileKind, SpliceCount, Whence};
pub use count::{Counter, Plan};

/// Sizes of the I/O paths.  Tests shrink them to a byte; they never change
/// the output.
#[derive(Clone, Copy, Debug)]
pub struct WcConfig {
    /// Streaming reads: the size of the one reused buffer.
    pub buffer_size: usize,
    /// The slice path feeds the counter this many bytes at a time (one
    /// mapping window at a time in the binary, so the resident set stays
    /// small however large the file).
    pub window_size: usize,
    /// Regular files smaller than this are read, not mapped.
    pub mmap_min: u64,
    /// Inputs at least this large (and mapped or in memory) are counted in
    /// two halves on two threads, when the counts allow it.
    pub parallel_min: u64,
}

impl Default for WcConfig {
    fn default() -> Self {
        WcConfig {
            buffer_size: 256 * 1024,
            window_size: 2 * 1024 * 1024,
            mmap_min: 256 * 1024,
            parallel_min: 4 * 1024 * 1024,
        }
    }
}

/// Where wc's inputs come from: the real file system in the binary, a model
/// of one in the tests.
pub trait WcInputs {
    /// `stat` a name (`None`: fstat stdin), for the number width.
    fn stat(&mut self, name: Option<&[u8]>) -> Option<Stat>;
    /// Open an input for counting (`None`: stdin).
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<Opened<'_>>;
    /// Open a `--files0-from` list (`None`: stdin).  Also says whether the
    /// list is a regular file small enough to read whole up front.
    fn open_list(&mut self, name: Option<&[u8]>) -> io::Result<(Box<dyn BufRead>, bool)>;
    /// The error closing stdin at exit gives, if it was read.
    fn stdin_close_error(&self) -> Option<io::Error> {
        None
    }
}

/// The result of counting one input.
pub struct Counted {
    pub counts: Counts,
    /// The read error that ended counting early, if any.
    pub error: Option<io::Error>,
    /// Which path did the work, for `--debug`.
    pub path: &'static str,
}

/// Count one opened input.
pub fn count_opened(opened: Opened<'_>, plan: &Plan, cfg: &WcConfig, buf: &mut Vec<u8>) -> Counted {
    match opened {
        Opened::Slice(data) => {
            let mut counter = Counter::new(*plan);
            for window in data.chunks(cfg.window_size.max(1)) {
                counter.feed(window);
            }
            Counted {
                counts: counter.finish(),
                error: None,
                path: "slice",
            }
        }
        Opened::Reader(mut r) => {
            let mut counter = Counter::new(*plan);
            let error = read_loop(&mut *r, &mut counter, buffer(buf, cfg.buffer_size));
            Counted {
                counts: counter.finish(),
                error,
                path: "read",
            }
        }
        Opened::Fd(mut fd) => {
            let mut counted = count_fd(&mut fd, plan, cfg, buf);
            if plan.locale == samebytes_spec::Locale::C {
                // The size and splice paths count bytes only; in the C
                // locale characters are bytes.
                counted.counts.chars = counted.counts.bytes;
            }
            counted
        }
    }
}

fn buffer(buf: &mut Vec<u8>, size: usize) -> &mut [u8] {
    let size = size.max(1);
    if buf.len() < size {
        buf.resize(size, 0);
    }
    &mut buf[..size]
}

/// Read to EOF, feeding the counter.  Returns the error that stopped it.
fn read_loop(r: &mut dyn Read, counter: &mut Counter, buf: &mut [u8]) -> Option<io::Error> {
    loop {
        match read_retrying(r, buf) {
            Ok(0) => return None,
            Ok(n) => counter.feed(&buf[..n]),
            Err(e) => return Some(e),
        }
    }
}

/// The kernel fast paths for a real descriptor.
fn count_fd(fd: &mut FdInput, plan: &Plan, cfg: &WcConfig, buf: &mut Vec<u8>) -> Counted {
    let info = fd.info().ok();
    let mut counter = Counter::new(*plan);
    let regular = info.filter(|i| i.kind == FileKind::Regular);

    if plan.bytes_only() {
        if let Some(info) = regular {
            if let Some(counted) = bytes_from_size(fd, &info, &mut counter, buf, cfg) {
                return counted;
            }
        } else if info.is_some_and(|i| i.kind == FileKind::Fifo) {
            sys::grow_pipe(fd.raw_fd(), PIPE_SIZE);
            match sys::splice_count_to_null(fd.raw_fd()) {
                SpliceCount::Done(n) => {
                    return Counted {
                        counts: Counts {
                            bytes: n,
                            ..Counts::default()
                        },
                        error: None,
                        path: "splice",
                    }
                }
                SpliceCount::Unsupported(n) => counter = counter_with_bytes(plan, n),
                SpliceCount::Failed(n, e) => {
                    return Counted {
                        counts: Counts {
                            bytes: n,
                            ..Counts::default()
                        },
                        error: Some(e),
                        path: "splice",
                    }
                }
            }
        }
    }

    if let Some(info) = regular {
        if info.size >= cfg.mmap_min {
            if let Some(counted) = count_regular(fd, &info, counter.clone(), cfg, buf) {
                return counted;
            }
        }
    }

    // Small regular files get a buffer their size; streams the full one.
    let mut size = match regular {
        Some(i) => cfg.buffer_size.min(i.size as usize),
        None => cfg.buffer_size,
    };
    if info.is_some_and(|i| i.kind == FileKind::Fifo) {
        // A bigger pipe lets the writer run ahead; smaller reads than the
        // buffer keep the pipe from running dry, so neither side sleeps,
        // and keep each chunk in cache while it is counted.
        sys::grow_pipe(fd.raw_fd(), PIPE_SIZE);
        size = size.min(PIPE_READ);
    }
    sys::advise_sequential(fd.raw_fd());
    let error = read_loop(fd, &mut counter, buffer(buf, size));
    Counted {
        counts: counter.finish(),
        error,
        path: "read",
    }
}

fn counter_with_bytes(plan: &Plan, n: u64) -> Counter {
    // Bytes that splice already consumed are counted without their
    // contents, which only the byte count needed.
    let mut c = Counter::new(*plan);
    c.add_uncounted_bytes(n);
    c
}

/// `-c` on a regular file: the size from fstat, minus the current offset.
/// Files whose size is a multiple of the page size may be /proc or /sys
/// files whose st_size is a guess; for those, seek to within one block of
/// the end and read the rest, as GNU does.  The descriptor is left at EOF.
fn bytes_from_size(
    fd: &mut FdInput,
    info: &sys::FileInfo,
    counter: &mut Counter,
    buf: &mut Vec<u8>,
    cfg: &WcConfig,
) -> Option<Counted> {
    let raw = fd.raw_fd();
    let current = sys::lseek(raw, 0, Whence::Cur).ok()?;
    let size = info.size;
    if !size.is_multiple_of(sys::page_size()) {
        let bytes = size.saturating_sub(current);
        if bytes > 0 && sys::lseek(raw, bytes as i64, Whence::Cur).is_ok() {
            return Some(Counted {
                counts: Counts {
                    bytes,
                    ..Counts::default()
                },
                error: None,
                path: "fstat",
            });
        }
        return None;
    }
    let high = size - size % (info.block_size + 1);
    if current < high && sys::lseek(raw, high as i64, Whence::Set).is_ok() {
        counter.add_uncounted_bytes(high - current);
    }
    let error = read_loop(fd, counter, buffer(buf, cfg.buffer_size.min(64 * 1024)));
    Some(Counted {
        counts: counter.clone().finish(),
        error,
        path: "fstat+read",
    })
}

/// A regular file worth more than a read: a large one is counted in two
/// halves on two threads with pread(2); otherwise (or if there is no place
/// to cut) it is mapped a window at a time and each window fed.  If the
/// file shrinks under a window, that window's work is rolled back and the
/// rest is read with read(2), which sees the file as it now is.
fn count_regular(
    fd: &mut FdInput,
    info: &sys::FileInfo,
    mut counter: Counter,
    cfg: &WcConfig,
    buf: &mut Vec<u8>,
) -> Option<Counted> {
    let raw = fd.raw_fd();
    let start = sys::lseek(raw, 0, Whence::Cur).ok()?;
    let mut offset = start;
    let mut path = "mmap";
    if info.size.saturating_sub(start) >= cfg.parallel_min {
        let file = fd.file();
        // Each half is read with pread(2) into its own small buffer: on the
        // reference machine that beats two threads of mappings (whose page
        // table work does not scale) by a fifth; see BENCHMARKS.md.
        match count_in_halves(counter.plan(), file, start, info.size) {
            Halves::Counted(merged) => {
                counter = merged;
                offset = info.size;
                path = "pread, 2 threads";
            }
            Halves::Failed(partial, e, at) => {
                // The bytes before the error are counted, as a sequential
                // read would have counted them, and the error is reported:
                // never retried down another path.  The descriptor is left
                // where a sequential read would have failed (pread moves
                // nothing), for whoever reads an inherited stdin next.
                let _ = sys::lseek(raw, at as i64, Whence::Set);
                return Some(Counted {
                    counts: partial.finish(),
                    error: Some(e),
                    path: "pread, 2 threads",
                });
            }
            Halves::NotSplit => {}
        }
    }
    while offset < info.size {
        let len = (cfg.window_size as u64).min(info.size - offset) as usize;
        let Ok(window) = sys::MappedWindow::map(fd.file(), offset, len) else {
            path = "mmap+read";
            break;
        };
        let snapshot = counter.clone();
        if window.read(|bytes| counter.feed(bytes)).is_none() {
            counter = snapshot;
            path = "mmap+truncated";
            break;
        }
        offset += len as u64;
    }
    // Continue with read(2) from where mapping stopped: this also picks up
    // data appended since fstat, and leaves the offset at EOF like GNU.
    if sys::lseek(raw, offset as i64, Whence::Set).is_err() {
        return None;
    }
    let error = read_loop(
        fd,
        &mut counter,
        buffer(buf, cfg.buffer_size.min(64 * 1024)),
    );
    Some(Counted {
        counts: counter.finish(),
        error,
        path,
    })
}

/// The pipe buffer wc asks for when reading a pipe.
const PIPE_SIZE: usize = 1024 * 1024;

/// How much one read asks of a pipe (measured best on 1 MiB pipes; see
/// BENCHMARKS.md).
const PIPE_READ: usize = 64 * 1024;

/// The read size of each half when a file is counted on two threads.
const PREAD_CHUNK: usize = 64 * 1024;

/// How far past the middle to look for a place to split an input.
const SPLIT_SEARCH: usize = 64 * 1024;

/// Where in `probe` the input may be split: just after a newline, where
/// no character, word or line spans the cut.
fn split_in(probe: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', probe).map(|i| i + 1)
}

/// How counting a file in two halves went.
enum Halves {
    /// Both halves were counted and merged.
    Counted(Counter),
    /// A read failed: the counts of everything before the failure point,
    /// the error, and the offset of the read that failed.
    Failed(Counter, io::Error, u64),
    /// No place to cut was found, or the file shrank under us: count it
    /// sequentially from the start instead.
    NotSplit,
}

/// How feeding one half went.
enum Fed {
    Done(Counter),
    /// The counts before the failed read, its error and its offset.
    Failed(Counter, io::Error, u64),
    /// The file ended before the half did.
    Shrank,
}

/// Count `[from, to)` of `file` in two halves on two threads and merge
/// them.  The cut is just after a newline found past the middle.
fn count_in_halves(plan: &Plan, file: &std::fs::File, from: u64, to: u64) -> Halves {
    let Some(middle) = find_split(file, from + (to - from) / 2) else {
        return Halves::NotSplit;
    };
    std::thread::scope(|scope| {
        let later = scope.spawn(|| feed_read_at(file, Counter::new(*plan), middle, to));
        let earlier = feed_read_at(file, Counter::new(*plan), from, middle);
        // A panic in the other thread is a bug; carry it into this one.
        let later = later
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        match (earlier, later) {
            (Fed::Failed(partial, e, at), _) => Halves::Failed(partial, e, at),
            (Fed::Shrank, _) | (_, Fed::Shrank) => Halves::NotSplit,
            (Fed::Done(a), Fed::Done(b)) => Halves::Counted(a.merge(b)),
            (Fed::Done(a), Fed::Failed(b, e, at)) => Halves::Failed(a.merge(b), e, at),
        }
    })
}

/// The first place at or after `at` where `file` may be cut.  A failed
/// probe finds none; the sequential path then meets the failure itself.
fn find_split(file: &std::fs::File, at: u64) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let mut probe = vec![0u8; SPLIT_SEARCH];
    let n = loop {
        match file.read_at(&mut probe, at) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other.ok()?,
        }
    };
    split_in(&probe[..n]).map(|i| at + i as u64)
}

/// Feed `[from, to)` of a file to a counter with positioned reads of
/// [`PREAD_CHUNK`] bytes.
fn feed_read_at(file: &std::fs::File, mut counter: Counter, from: u64, to: u64) -> Fed {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; PREAD_CHUNK];
    let mut offset = from;
    while offset < to {
        let want = (buf.len() as u64).min(to - offset) as usize;
        let n = match file.read_at(&mut buf[..want], offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Fed::Failed(counter, e, offset),
            Ok(0) => return Fed::Shrank,
            Ok(n) => n,
        };
        counter.feed(&buf[..n]);
        offset += n as u64;
    }
    Fed::Done(counter)
}

/// Run wc.  Returns the exit status.
pub fn run(
    args: &[Vec<u8>],
    env: &WcEnv,
    inputs: &mut dyn WcInputs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    cfg: &WcConfig,
) -> i32 {
    let mut out = Output::new(stdout);
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(outcome) => {
            out.write_all(&outcome.stdout);
            diagnose(stderr, &outcome.stderr);
            if let Some(msg) = out.write_error_message() {
                diagnose(stderr, format!("{}: {msg}\n", env.program).as_bytes());
                return 1;
            }
            return outcome.status;
        }
    };
    let plan = Plan::new(&opts.select, env.locale, env.posixly_correct);
    let locale = env.locale;
    let mut status = 0;
    let mut complain = |stderr: &mut dyn Write, msg: &[u8]| {
        let mut line = format!("{}: ", env.program).into_bytes();
        line.extend_from_slice(msg);
        line.push(b'\n');
        diagnose(stderr, &line);
        status = 1;
    };
    let named = |msg: &str, name: &[u8]| -> Vec<u8> {
        let mut v = quotef(name, locale);
        v.extend_from_slice(b": ");
        v.extend_from_slice(msg.as_bytes());
        v
    };

    // Input sources: the operands, or a NUL-separated list.
    let mut names = match &opts.files0_from {
        None => Names::Known(opts.operands.clone().into_iter()),
        Some(list) => {
            let which = (list.as_slice() != b"-").then_some(list.as_slice());
            match inputs.open_list(which) {
                Err(e) => {
                    let mut msg = b"cannot open ".to_vec();
                    msg.extend_from_slice(&quoteaf(list, locale));
                    msg.extend_from_slice(b" for reading: ");
                    msg.extend_from_slice(sys::error_text(&e).as_bytes());
                    complain(stderr, &msg);
                    return 1;
                }
                Ok((reader, true)) => {
                    let mut stream = Names::Stream {
                        reader,
                        error: None,
                    };
                    let mut all = Vec::new();
                    while let Some(n) = stream.next() {
                        all.push(n);
                    }
                    match stream {
                        Names::Stream { error: Some(_), .. } => {
                            let mut msg = b"cannot read file names from ".to_vec();
                            msg.extend_from_slice(&quoteaf(list, locale));
                            complain(stderr, &msg);
                            return 1;
                        }
                        _ => Names::Known(all.into_iter()),
                    }
                }
                Ok((reader, false)) => Names::Stream {
                    reader,
                    error: None,
                },
            }
        }
    };

    // Number width.
    let width = match &names {
        _ if opts.total == TotalMode::Only => 1,
        Names::Stream { .. } => 1,
        Names::Known(list) => {
            let list = list.as_slice();
            let stdin_only = opts.files0_from.is_none() && list.is_empty();
            let nfiles = if stdin_only { 1 } else { list.len() };
            if nfiles == 0 || (nfiles == 1 && opts.select.count() == 1) {
                1
            } else {
                // GNU closes a stdin it read a whole list of names from,
                // so its fstat of a `-` in that list fails.
                let list_closed_stdin = opts.files0_from.as_deref() == Some(b"-".as_slice());
                let stats: Vec<Option<Stat>> = if stdin_only {
                    vec![inputs.stat(None)]
                } else {
                    list.iter()
                        .map(|n| match n.as_slice() {
                            b"-" if list_closed_stdin => None,
                            b"-" => inputs.stat(None),
                            n => inputs.stat(Some(n)),
                        })
                        .collect()
                };
                let mut minimum = 1;
                let mut regular_total: u64 = 0;
                for s in stats.into_iter().flatten() {
                    match s {
                        Stat::Regular { size } => {
                            regular_total = regular_total.saturating_add(size)
                        }
                        Stat::Other => minimum = 7,
                    }
                }
                decimal_digits(regular_total).max(minimum)
            }
        }
    };

    let mut buf = Vec::new();
    let mut total = Counts::default();
    let stdin_read = std::cell::Cell::new(false);
    let emit = |out: &mut Output<'_>, counts: &Counts, name: Option<&[u8]>| {
        if opts.total != TotalMode::Only {
            out.write_all(&format_counts(&opts.select, width, counts, name, locale));
        }
    };
    let mut count_one = |inputs: &mut dyn WcInputs,
                         out: &mut Output<'_>,
                         stderr: &mut dyn Write,
                         complain: &mut dyn FnMut(&mut dyn Write, &[u8]),
                         name: Option<&[u8]>,
                         total: &mut Counts| {
        let display = name.unwrap_or(b"standard input");
        if name.is_none_or(|n| n == b"-") {
            stdin_read.set(true);
        }
        let opened = match inputs.open(name.filter(|n| *n != b"-")) {
            Ok(o) => o,
            Err(e) => {
                complain(stderr, &named(&sys::error_text(&e), display));
                return;
            }
        };
        let counted = count_opened(opened, &plan, cfg, &mut buf);
        if opts.debug {
            let mut msg = quotef(display, locale);
            msg.extend_from_slice(b": counted by ");
            msg.extend_from_slice(counted.path.as_bytes());
            let mut line = format!("{}: ", env.program).into_bytes();
            line.extend_from_slice(&msg);
            line.push(b'\n');
            diagnose(stderr, &line);
        }
        emit(out, &counted.counts, name);
        total.add(&counted.counts);
        if let Some(e) = counted.error {
            complain(stderr, &named(&sys::error_text(&e), display));
        }
    };

    let from_stdin_list = opts.files0_from.as_deref() == Some(b"-".as_slice());
    let mut index = 0usize;
    while let Some(name) = names.next() {
        index += 1;
        if from_stdin_list && name.as_slice() == b"-" {
            let mut msg = b"when reading file names from standard input, no file name of ".to_vec();
            msg.extend_from_slice(&quoteaf(&name, locale));
            msg.extend_from_slice(b" allowed");
            complain(stderr, &msg);
            continue;
        }
        if name.is_empty() {
            let msg = match &opts.files0_from {
                None => b"invalid zero-length file name".to_vec(),
                Some(f) => {
                    let mut m = quotef(f, locale);
                    m.extend_from_slice(
                        format!(":{index}: invalid zero-length file name").as_bytes(),
                    );
                    m
                }
            };
            complain(stderr, &msg);
            continue;
        }
        count_one(
            inputs,
            &mut out,
            stderr,
            &mut complain,
            Some(&name),
            &mut total,
        );
    }
    if let Names::Stream { error: Some(e), .. } = &names {
        let f = opts.files0_from.as_deref().unwrap_or_default();
        complain(
            stderr,
            &named(&format!("read error: {}", sys::error_text(e)), f),
        );
    }
    if opts.files0_from.is_none() && index == 0 {
        count_one(inputs, &mut out, stderr, &mut complain, None, &mut total);
    }

    let print_total = match opts.total {
        TotalMode::Never => false,
        TotalMode::Auto => index > 1,
        TotalMode::Always | TotalMode::Only => true,
    };
    if print_total {
        let name = (opts.total != TotalMode::Only).then_some(b"total".as_slice());
        out.write_all(&format_counts(&opts.select, width, &total, name, locale));
    }
    if let Some(e) = inputs.stdin_close_error().filter(|_| stdin_read.get()) {
        // GNU closes stdin at exit when it read it, and reports a failure,
        // before `close_stdout` reports a failed write.
        complain(stderr, &named(&sys::error_text(&e), b"-"));
    }
    if let Some(msg) = out.write_error_message() {
        complain(stderr, msg.as_bytes());
    }
    status
}

fn decimal_digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// File names to count, known up front or read one at a time.
enum Names {
    Known(std::vec::IntoIter<Vec<u8>>),
    Stream {
        reader: Box<dyn BufRead>,
        error: Option<io::Error>,
    },
}

impl Names {
    fn next(&mut self) -> Option<Vec<u8>> {
        match self {
            Names::Known(it) => it.next(),
            Names::Stream { reader, error } => {
                if error.is_some() {
                    return None;
                }
                let mut name = Vec::new();
                match reader.read_until(0, &mut name) {
                    Ok(0) => None,
                    Ok(_) => {
                        if name.last() == Some(&0) {
                            name.pop();
                        }
                        Some(name)
                    }
                    // A name cut short by the error still counts, as with
                    // GNU's getdelim; the error shows after it.
                    Err(e) => {
                        *error = Some(e);
                        (!name.is_empty()).then_some(name)
                    }
                }
            }
        }
    }
}

/// The real file system, for the binary.
pub struct SystemInputs;

/// Reads of a closed stdin fail as they would have, had Rust's start-up
/// code not put /dev/null in its place.
struct ClosedReader;

impl Read for ClosedReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(libc::EBADF))
    }
}

impl WcInputs for SystemInputs {
    fn stat(&mut self, name: Option<&[u8]>) -> Option<Stat> {
        if name.is_none() && sys::stdin_was_closed() {
            return None;
        }
        let info = match name {
            None => sys::fstat(libc::STDIN_FILENO),
            Some(n) => sys::stat_path(n),
        }
        .ok()?;
        Some(match info.kind {
            FileKind::Regular => Stat::Regular { size: info.size },
            _ => Stat::Other,
        })
    }

    fn open(&mut self, name: Option<&[u8]>) -> io::Result<Opened<'_>> {
        if name.is_none() && sys::stdin_was_closed() {
            return Ok(Opened::Reader(Box::new(ClosedReader)));
        }
        Ok(Opened::Fd(match name {
            None => FdInput::stdin(),
            Some(n) => FdInput::open(n)?,
        }))
    }

    fn open_list(&mut self, name: Option<&[u8]>) -> io::Result<(Box<dyn BufRead>, bool)> {
        if name.is_none() && sys::stdin_was_closed() {
            return Ok((Box::new(io::BufReader::new(ClosedReader)), false));
        }
        let input = match name {
            None => FdInput::stdin(),
            Some(n) => FdInput::open(n)?,
        };
        let small_regular = input
            .info()
            .is_ok_and(|i| i.kind == FileKind::Regular && i.size <= 10 * 1024 * 1024);
        Ok((Box::new(io::BufReader::new(input)), small_regular))
    }

    fn stdin_close_error(&self) -> Option<io::Error> {
        sys::stdin_was_closed().then(|| io::Error::from_raw_os_error(libc::EBADF))
    }
}
