//! `yes`: write a line forever, as fast as the output can take it.
//!
//! Options → the line → the output's fast path → one loop until a write
//! fails.
//!
//! - The line comes from [`samebytes_spec::yes::parse_args`] and
//!   [`samebytes_spec::yes::line_pieces`], borrowing the operands from argv;
//!   the pieces are copied straight into the buffer, so a line of many
//!   megabytes exists once in argv and once in the buffer.
//! - The first writes are GNU-sized (8 KiB of whole lines), made before any
//!   set-up, so `yes | head -1` is as quick as GNU's: only a reader that
//!   has taken the warm-up pays for growing the pipe and building the big
//!   buffer.
//! - Then the output is prepared once: a pipe is grown with F_SETPIPE_SZ
//!   and fed with vmsplice; anything else (file, socket, terminal) gets
//!   write(2) in large pieces.
//! - The buffer holds only whole copies of the line, so any run of bytes
//!   starting at `written % line.len()` is the right continuation.  It holds
//!   two "periods" of at least one send each, so every send can offer a
//!   full period however little the last one took; a line longer than a
//!   period is kept as one copy, never two.  It lives in a mapping of its
//!   own, aligned and advised for huge pages ([`sys::PageBuffer`]), so
//!   vmsplice pins one page per 2 MiB.
//!
//! Why vmsplice rather than tee from a pre-filled pipe: tee always starts at
//! the head of its source pipe, so after a partial tee the cycle could only
//! be continued by write(2); and a pre-filled pipe must hold a whole number
//! of lines, which a line longer than the pipe cannot, where filling it
//! would block forever with nobody to read.  vmsplice can start anywhere,
//! takes what fits and waits for room like write(2).  Its one hazard, a
//! reader seeing pages we changed or freed, is ruled out by
//! [`sys::FrozenPipe`]: buffers it has spliced from are never modified or
//! freed while the process lives.

use std::io::{self, Write};
use std::os::fd::RawFd;
use std::rc::Rc;

use samebytes_spec::yes::{line_pieces, parse_args, Invocation, YesEnv};

use crate::io::diagnose;
use crate::sys::{self, FileKind, FrozenPipe, PageBuffer};

/// Buffer sizes; the binary uses the defaults, the tests sweep them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YesConfig {
    /// Bytes of whole lines per warm-up write (GNU writes BUFSIZ, 8 KiB).
    /// A line this long or longer skips the warm-up.
    pub warm_up_write: usize,
    /// Bytes written in warm-up writes before the output is prepared.
    pub warm_up: usize,
    /// The size a pipe on stdout is grown to (F_SETPIPE_SZ); a pipe that
    /// is already as large is left alone.
    pub pipe_size: usize,
    /// Bytes per send to anything that is not a pipe.
    pub write_size: usize,
}

impl Default for YesConfig {
    fn default() -> Self {
        YesConfig {
            warm_up_write: 8 << 10,
            warm_up: 256 << 10,
            pipe_size: 1 << 20,
            write_size: 1 << 20,
        }
    }
}

/// Where the line goes.  Buffers are shared and never modified once
/// offered, so an output may keep a reference for as long as it likes.
pub trait YesOutput {
    /// Ready the output for the long run (grow a pipe) and return the size
    /// of one send.
    fn prepare(&mut self, config: &YesConfig) -> usize;
    /// Offer `buf[from..to]` (never empty); return how many bytes were
    /// taken, or the error.
    fn send(&mut self, buf: &Rc<PageBuffer>, from: usize, to: usize) -> io::Result<usize>;
    /// How the output is fed, for `SAMEBYTES_YES_DEBUG`.
    fn describe(&self) -> String;
}

/// Run yes; returns the exit status.  It returns only when the output
/// fails, or after `--help`, `--version` or a usage error.
pub fn run<A: AsRef<[u8]>>(
    args: &[A],
    env: &YesEnv,
    out: &mut dyn YesOutput,
    stderr: &mut dyn Write,
    config: &YesConfig,
    debug: bool,
) -> i32 {
    let program = &env.program;
    let operands = match parse_args(args, env) {
        Invocation::Repeat(operands) => operands,
        Invocation::Exit(outcome) => {
            diagnose(stderr, &outcome.stderr);
            if !outcome.stdout.is_empty() {
                let sent =
                    repeated(&[&outcome.stdout], 1).map(|text| send_all(out, &Rc::new(text)));
                match sent {
                    Err(_) => return memory_exhausted(program, stderr),
                    Ok(Err(e)) => {
                        let text = sys::error_text(&e);
                        diagnose(
                            stderr,
                            format!("{program}: write error: {text}\n").as_bytes(),
                        );
                        return 1;
                    }
                    Ok(Ok(())) => {}
                }
            }
            return outcome.status;
        }
    };
    match stream(&line_pieces(&operands), out, config, stderr, debug) {
        Ended::NoMemory => memory_exhausted(program, stderr),
        Ended::Write(e) => {
            let text = sys::error_text(&e);
            diagnose(
                stderr,
                format!("{program}: standard output: {text}\n").as_bytes(),
            );
            1
        }
    }
}

/// gnulib's `xalloc_die`.
fn memory_exhausted(program: &str, stderr: &mut dyn Write) -> i32 {
    diagnose(stderr, format!("{program}: memory exhausted\n").as_bytes());
    1
}

/// Why the endless output ended.
enum Ended {
    Write(io::Error),
    NoMemory,
}

/// Offer `buf` until all of it is taken.
fn send_all(out: &mut dyn YesOutput, buf: &Rc<PageBuffer>) -> io::Result<()> {
    let mut at = 0;
    while at < buf.len() {
        at += send(out, buf, at, buf.len())?;
    }
    Ok(())
}

/// One offer, retried on interruption; taking nothing is an error, as in
/// gnulib's `full_write`.
fn send(
    out: &mut dyn YesOutput,
    buf: &Rc<PageBuffer>,
    from: usize,
    to: usize,
) -> io::Result<usize> {
    loop {
        match out.send(buf, from, to) {
            Ok(0) => return Err(io::Error::from_raw_os_error(libc::ENOSPC)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// `copies` whole copies of the line made of `pieces`: the pieces are
/// copied once, then the copies doubled.
fn repeated(pieces: &[&[u8]], copies: usize) -> io::Result<PageBuffer> {
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    let mut buf = PageBuffer::new(len * copies)?;
    let mut at = 0;
    for piece in pieces {
        buf[at..at + piece.len()].copy_from_slice(piece);
        at += piece.len();
    }
    while at < buf.len() {
        let more = at.min(buf.len() - at);
        buf.copy_within(..more, at);
        at += more;
    }
    Ok(buf)
}

/// Write the line until the output fails; return the error.
fn stream(
    pieces: &[&[u8]],
    out: &mut dyn YesOutput,
    config: &YesConfig,
    stderr: &mut dyn Write,
    debug: bool,
) -> Ended {
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    if len < config.warm_up_write {
        let Ok(small) = repeated(pieces, config.warm_up_write / len) else {
            return Ended::NoMemory;
        };
        let small = Rc::new(small);
        let mut sent = 0;
        while sent < config.warm_up {
            if let Err(e) = send_all(out, &small) {
                return Ended::Write(e);
            }
            sent += small.len();
        }
    }
    let send_size = out.prepare(config).max(1);
    if debug {
        let how = out.describe();
        diagnose(
            stderr,
            format!("yes: {how}, {send_size} bytes per send\n").as_bytes(),
        );
    }
    // A period is the whole lines offered per send; the buffer holds two,
    // or the line alone when it is longer than a send.
    let (copies, period) = if len >= send_size {
        (1, len)
    } else {
        (2 * (send_size / len), send_size / len * len)
    };
    let (buf, period) = match repeated(pieces, copies) {
        Ok(buf) => (buf, period),
        Err(_) => {
            // No room for the big buffer (a tight RLIMIT_AS): go on as GNU
            // does, with warm-up-sized writes from a buffer of one period.
            let copies = (config.warm_up_write / len).max(1);
            match repeated(pieces, copies) {
                Ok(buf) => (buf, copies * len),
                Err(_) => return Ended::NoMemory,
            }
        }
    };
    let buf = Rc::new(buf);
    // Invariant: `at < period` and `at` ≡ bytes written (mod len).
    let mut at = 0;
    loop {
        match send(out, &buf, at, buf.len().min(at + period)) {
            Ok(n) => {
                at += n;
                if at >= period {
                    at -= period;
                }
            }
            Err(e) => return Ended::Write(e),
        }
    }
}

// ---------------------------------------------------------------------------
// The real stdout.

/// How long to poll a full pipe before sleeping.  A reader that empties
/// the pipe in one go (pv, dd, a splice) frees room within a few
/// microseconds of waking, while a sleep and wake-up pair costs tens of
/// microseconds on a virtual machine, which at 1 MiB per round trip is most
/// of the time.  So a full pipe is polled for a short while first.
const POLL_FOR: std::time::Duration = std::time::Duration::from_micros(100);

/// After polling failed to find room, this many waits sleep at once, so a
/// slow reader costs us at most one poll in this many waits.
const SLEEPS_AFTER_FAILED_POLL: u32 = 16;

/// A pipe on stdout, fed with vmsplice (or write(2) if the kernel refuses).
pub struct PipeOutput {
    pipe: FrozenPipe,
    fd: RawFd,
    capacity: usize,
    refused: Option<io::Error>,
    sleeps_before_polling: u32,
    /// Poll a full pipe at all?  Not during the warm-up, which waits as
    /// GNU does, so `yes | head -1` leaves the CPU to the reader.
    polling: bool,
}

impl PipeOutput {
    /// Send with vmsplice; once the kernel refuses it (at any call, the
    /// first or the millionth), write(2) takes over from where it stopped.
    fn send(&mut self, buf: &Rc<PageBuffer>, from: usize, to: usize) -> io::Result<usize> {
        if self.refused.is_none() {
            match self.splice_or_wait(buf, from, to) {
                Err(e) if sys::means_unsupported(&e) => self.refused = Some(e),
                other => return other,
            }
        }
        sys::borrow_fd(self.fd).write(&buf[from..to])
    }

    fn splice_or_wait(
        &mut self,
        buf: &Rc<PageBuffer>,
        from: usize,
        to: usize,
    ) -> io::Result<usize> {
        match self.pipe.vmsplice(buf, from, to, true) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            other => return other,
        }
        // The pipe is full.  An O_NONBLOCK pipe gives EAGAIN to the
        // sleeping call below too, which ends yes as it ends GNU's.
        if !self.polling {
            return self.pipe.vmsplice(buf, from, to, false);
        }
        if self.sleeps_before_polling == 0 {
            let started = std::time::Instant::now();
            loop {
                std::hint::spin_loop();
                match self.pipe.vmsplice(buf, from, to, true) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        if started.elapsed() >= POLL_FOR {
                            break;
                        }
                    }
                    other => return other,
                }
            }
            self.sleeps_before_polling = SLEEPS_AFTER_FAILED_POLL;
        } else {
            self.sleeps_before_polling -= 1;
        }
        self.pipe.vmsplice(buf, from, to, false)
    }
}

/// Standard output as the binary finds it.
pub enum SystemOutput {
    Pipe(PipeOutput),
    /// Anything else: write(2).
    Writer(Box<dyn Write>, &'static str),
}

impl SystemOutput {
    pub fn stdout() -> SystemOutput {
        if sys::stdout_was_closed() {
            return SystemOutput::Writer(Box::new(sys::ClosedWriter), "closed");
        }
        let fd = libc::STDOUT_FILENO;
        match sys::fstat(fd).map(|i| i.kind) {
            Ok(FileKind::Fifo) => SystemOutput::Pipe(PipeOutput {
                pipe: FrozenPipe::new(fd),
                fd,
                capacity: 0,
                refused: None,
                sleeps_before_polling: 0,
                polling: false,
            }),
            _ => SystemOutput::Writer(Box::new(sys::FdWriter::stdout()), "write(2)"),
        }
    }
}

impl YesOutput for SystemOutput {
    fn prepare(&mut self, config: &YesConfig) -> usize {
        match self {
            SystemOutput::Pipe(p) => {
                p.polling = true;
                // Whatever the pipe's size after growing, a send fills it.
                p.capacity = sys::grow_pipe(p.fd, config.pipe_size).unwrap_or(64 << 10);
                p.capacity
            }
            SystemOutput::Writer(..) => config.write_size,
        }
    }

    fn send(&mut self, buf: &Rc<PageBuffer>, from: usize, to: usize) -> io::Result<usize> {
        match self {
            SystemOutput::Pipe(p) => p.send(buf, from, to),
            SystemOutput::Writer(w, _) => w.write(&buf[from..to]),
        }
    }

    fn describe(&self) -> String {
        match self {
            SystemOutput::Pipe(PipeOutput {
                capacity,
                refused: None,
                ..
            }) => format!("vmsplice into a {capacity}-byte pipe"),
            SystemOutput::Pipe(PipeOutput {
                refused: Some(e), ..
            }) => format!(
                "write(2) to a pipe (vmsplice refused: {})",
                sys::error_text(e)
            ),
            SystemOutput::Writer(_, how) => how.to_string(),
        }
    }
}
