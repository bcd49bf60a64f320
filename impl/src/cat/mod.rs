//! `cat`: concatenate files to standard output.
//!
//! The option grammar and the messages come from `samebytes_spec::cat`;
//! this module decides how the bytes move:
//!
//! - options → inputs in order → for each input, a copy path → output.
//! - No formatting option: a kernel copy when both ends are descriptors:
//!   copy_file_range between regular files, splice when either end is a
//!   pipe, splice through a pipe of our own otherwise; read/write with one
//!   reused buffer when the kernel refuses.  Every kernel path is one call
//!   at a time at the descriptors' file positions, so on a switch the next
//!   path starts exactly where the last one stopped.
//! - Formatting options: read into a buffer, format with
//!   [`format::Formatter`] into an output buffer that is written in
//!   `write_size` pieces, and flushed before any read that may block.
//!
//! Ordering rules kept from GNU (see the spec): output produced for earlier
//! inputs is written before a diagnostic is printed and before an input is
//! checked against the output file; a write error ends the run at once.

pub mod format;

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

use samebytes_spec::cat::{parse_args, CatEnv, CatOptions, Invocation};
use samebytes_spec::quote::quotef;

use crate::fdinput::FdInput;
use crate::io::{diagnose, read_retrying};
use crate::sys::{self, FileKind};
use format::{Formatter, OutBuf};

/// Buffer sizes.  `--read-buffer-size` and `--write-buffer-size` override
/// the defaults; neither may change the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatConfig {
    /// Bytes asked of each read(2) when copying without formatting.
    pub read_size: usize,
    /// Bytes asked of each read(2) when formatting.  Smaller, so that the
    /// input and output buffers stay in the cache while the formatter works.
    pub format_read_size: usize,
    /// Largest write(2) when copying through memory.
    pub write_size: usize,
    /// The size pipes are grown to before splicing through them.
    pub pipe_size: usize,
}

impl Default for CatConfig {
    fn default() -> Self {
        CatConfig {
            read_size: 256 * 1024,
            format_read_size: 64 * 1024,
            write_size: 256 * 1024,
            pipe_size: 1024 * 1024,
        }
    }
}

/// An opened input.
pub enum CatInput {
    /// A real descriptor: kernel copies and FIONREAD are possible.
    Fd(FdInput),
    /// Any reader (tests).  `may_block`: a read may wait for a writer, so
    /// pending output is flushed first.
    Reader {
        reader: Box<dyn Read>,
        may_block: bool,
    },
}

/// What cat can open, and what it knows about its output.
pub trait CatSystem {
    /// Open a named input, or stdin for `None`.
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<CatInput>;
    /// Is this input the very file stdout writes to (a regular file)?
    fn is_output_file(&mut self, input: &CatInput) -> bool;
    /// Where reading this input and writing the output stand, as of now.
    /// Asked only of the output file, after flushing.
    fn self_copy(&mut self, input: &CatInput) -> SelfCopy;
    /// Stdout as a descriptor, when kernel copies may write to it.
    fn stdout_fd(&self) -> Option<RawFd>;
    /// Why stdout cannot be used at all (GNU's start-up `fstat` failed,
    /// e.g. it is closed).
    fn stdout_error(&self) -> Option<io::Error> {
        None
    }
    /// The error closing stdin at exit reports, after stdin was read.
    fn stdin_close_error(&self) -> Option<io::Error> {
        None
    }
}

/// An input that is the output file: where its reader and the writer are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfCopy {
    /// The input's offset.
    pub read_at: u64,
    /// The file's size.
    pub size: u64,
    /// Where the next write lands: stdout's offset, or the end of the file
    /// when stdout appends.
    pub write_at: u64,
}

impl SelfCopy {
    /// Would copying never end?  When the writer is ahead of the reader,
    /// every read finds bytes this copy wrote (current GNU's rule).  When
    /// the output can be longer than the input, a writer level with the
    /// reader overtakes it, and what is read then depends on how reads and
    /// writes were cut: then any unread byte is refused too.
    fn never_ends(&self, may_lengthen: bool) -> bool {
        self.read_at < self.write_at || (may_lengthen && self.read_at < self.size)
    }
}

/// The run stops: stdout failed.  GNU exits at once with this error.
struct WriteFailed(io::Error);

/// Buffered output.  Bytes are written in pieces of at most `write_size`.
struct Output<'a> {
    sink: &'a mut dyn Write,
    buf: OutBuf,
    write_size: usize,
}

impl Output<'_> {
    fn write_through(&mut self, bytes: &[u8]) -> Result<(), WriteFailed> {
        for piece in bytes.chunks(self.write_size) {
            self.sink.write_all(piece).map_err(WriteFailed)?;
        }
        Ok(())
    }

    /// Write the first `n` buffered bytes.
    fn flush_prefix(&mut self, n: usize) -> Result<(), WriteFailed> {
        if n == 0 {
            return Ok(());
        }
        let buf = std::mem::take(&mut self.buf);
        let result = self.write_through(&buf.as_slice()[..n]);
        self.buf = buf;
        self.buf.consume(n);
        result
    }

    fn flush(&mut self) -> Result<(), WriteFailed> {
        self.flush_prefix(self.buf.len())
    }

    /// Write whole `write_size` pieces once the buffer holds at least one.
    fn flush_full_pieces(&mut self) -> Result<(), WriteFailed> {
        if self.buf.len() >= self.write_size {
            let whole = self.buf.len() - self.buf.len() % self.write_size;
            self.flush_prefix(whole)?;
        }
        Ok(())
    }
}

/// How one input ended.
enum Copied {
    Done,
    /// Reading failed: report it against the input and go on.
    ReadError(io::Error),
}

/// The paths an input took, for `--debug`.
type Paths = Vec<&'static str>;

struct Run<'a> {
    env: &'a CatEnv,
    cfg: CatConfig,
    out: Output<'a>,
    stderr: &'a mut dyn Write,
    formatter: Option<Formatter>,
    stdout_fd: Option<RawFd>,
    stdout_info: Option<sys::FileInfo>,
    buf: Vec<u8>,
    status: i32,
    pipe_grown: bool,
    /// Our own pipe for splicing between two ends that are not pipes:
    /// (read end, write end, capacity).
    own_pipe: Option<(File, File, usize)>,
}

/// Run cat on a command line.  Returns the exit status.
pub fn run(
    args: &[Vec<u8>],
    env: &CatEnv,
    system: &mut dyn CatSystem,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    default_cfg: &CatConfig,
) -> i32 {
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(outcome) => {
            diagnose(stderr, &outcome.stderr);
            if let Err(e) = stdout.write_all(&outcome.stdout) {
                write_error(stderr, env, &e);
                return 1;
            }
            return outcome.status;
        }
    };
    let cfg = CatConfig {
        read_size: opts.read_buffer_size.unwrap_or(default_cfg.read_size),
        format_read_size: opts
            .read_buffer_size
            .unwrap_or(default_cfg.format_read_size),
        write_size: opts.write_buffer_size.unwrap_or(default_cfg.write_size),
        pipe_size: default_cfg.pipe_size,
    };
    if let Some(e) = system.stdout_error() {
        let msg = format!(
            "{}: standard output: {}\n",
            env.program,
            sys::error_text(&e)
        );
        diagnose(stderr, msg.as_bytes());
        return 1;
    }
    let stdout_fd = system.stdout_fd();
    let mut run = Run {
        env,
        cfg,
        out: Output {
            sink: stdout,
            buf: OutBuf::new(),
            write_size: cfg.write_size,
        },
        stderr,
        formatter: (!opts.format.is_plain()).then(|| Formatter::new(opts.format)),
        stdout_fd,
        stdout_info: stdout_fd.and_then(|fd| sys::fstat(fd).ok()),
        buf: Vec::new(),
        status: 0,
        pipe_grown: false,
        own_pipe: None,
    };
    if let (Some(fd), Some(info)) = (stdout_fd, run.stdout_info) {
        if info.kind == FileKind::Fifo {
            // A pipe that holds several of our writes keeps both ends
            // running instead of waking each other for every 64 KiB.
            sys::grow_pipe(fd, cfg.pipe_size);
        }
    }
    let read_stdin = opts.operands.is_empty() || opts.operands.iter().any(|o| o == b"-");
    match run.all_inputs(&opts, system) {
        Ok(()) => match system.stdin_close_error().filter(|_| read_stdin) {
            Some(e) => {
                let msg = format!(
                    "{}: closing standard input: {}\n",
                    env.program,
                    sys::error_text(&e)
                );
                diagnose(run.stderr, msg.as_bytes());
                1
            }
            None => run.status,
        },
        Err(WriteFailed(e)) => {
            write_error(run.stderr, env, &e);
            1
        }
    }
}

fn write_error(stderr: &mut dyn Write, env: &CatEnv, e: &io::Error) {
    let msg = format!("{}: write error: {}\n", env.program, sys::error_text(e));
    diagnose(stderr, msg.as_bytes());
}

impl Run<'_> {
    fn all_inputs(
        &mut self,
        opts: &CatOptions,
        system: &mut dyn CatSystem,
    ) -> Result<(), WriteFailed> {
        let stdin_only = [b"-".to_vec()];
        let operands = if opts.operands.is_empty() {
            &stdin_only[..]
        } else {
            &opts.operands[..]
        };
        for name in operands {
            let is_stdin = name.as_slice() == b"-";
            let mut input = match system.open((!is_stdin).then_some(name)) {
                Ok(i) => i,
                Err(e) => {
                    self.report(name, &sys::error_text(&e))?;
                    continue;
                }
            };
            if system.is_output_file(&input) {
                // GNU has written everything before this open; the size it
                // sees includes that.
                self.out.flush()?;
                if system
                    .self_copy(&input)
                    .never_ends(opts.format.may_lengthen())
                {
                    self.report(name, "input file is output file")?;
                    continue;
                }
            }
            let mut paths = Paths::new();
            let earlier = self.out.buf.len();
            let copied = if self.formatter.is_some() {
                paths.push("formatting");
                self.copy_formatted(&mut input)?
            } else {
                self.copy_plain(&mut input, &mut paths)?
            };
            if opts.debug {
                let msg = format!(
                    "{}: {}: copied by {}\n",
                    self.env.program,
                    String::from_utf8_lossy(&quotef(name, self.env.locale)),
                    paths.join(" then ")
                );
                diagnose(self.stderr, msg.as_bytes());
            }
            if let Copied::ReadError(e) = copied {
                // What this input produced before the error may stay
                // buffered: GNU writes it after the message.  Flushes during
                // the copy took bytes from the front.
                self.out.flush_prefix(earlier.min(self.out.buf.len()))?;
                self.status = 1;
                let msg = format!(
                    "{}: {}: {}\n",
                    self.env.program,
                    String::from_utf8_lossy(&quotef(name, self.env.locale)),
                    sys::error_text(&e)
                );
                diagnose(self.stderr, msg.as_bytes());
            }
        }
        if let Some(f) = self.formatter.as_mut() {
            f.finish(&mut self.out.buf);
        }
        self.out.flush()
    }

    /// `cat: NAME: what`, after writing everything produced so far.
    fn report(&mut self, name: &[u8], what: &str) -> Result<(), WriteFailed> {
        self.out.flush()?;
        self.status = 1;
        let msg = format!(
            "{}: {}: {what}\n",
            self.env.program,
            String::from_utf8_lossy(&quotef(name, self.env.locale))
        );
        diagnose(self.stderr, msg.as_bytes());
        Ok(())
    }

    /// The reused I/O buffer, at least `n` bytes.
    fn buffer(&mut self, n: usize) -> Vec<u8> {
        let mut buf = std::mem::take(&mut self.buf);
        if buf.len() < n {
            buf.resize(n, 0);
        }
        buf
    }

    // -- Plain copies -------------------------------------------------------

    fn copy_plain(
        &mut self,
        input: &mut CatInput,
        paths: &mut Paths,
    ) -> Result<Copied, WriteFailed> {
        if let (CatInput::Fd(fd), Some(out_fd), Some(out_info)) =
            (&*input, self.stdout_fd, self.stdout_info)
        {
            if let Some(done) = self.kernel_copy(fd, out_fd, out_info, paths)? {
                return Ok(done);
            }
        }
        paths.push("read/write");
        let reader: &mut dyn Read = match input {
            CatInput::Fd(fd) => fd,
            CatInput::Reader { reader, .. } => reader.as_mut(),
        };
        let mut buf = self.buffer(self.cfg.read_size);
        let result = loop {
            match read_retrying(reader, &mut buf[..self.cfg.read_size]) {
                Ok(0) => break Ok(Copied::Done),
                Ok(n) => {
                    if let Err(e) = self.out.write_through(&buf[..n]) {
                        break Err(e);
                    }
                }
                Err(e) => break Ok(Copied::ReadError(e)),
            }
        };
        self.buf = buf;
        result
    }

    /// Copy with the kernel.  `None`: not possible here, nothing consumed
    /// that was not written; carry on with read/write from the input's
    /// current position.
    fn kernel_copy(
        &mut self,
        input: &FdInput,
        out_fd: RawFd,
        out_info: sys::FileInfo,
        paths: &mut Paths,
    ) -> Result<Option<Copied>, WriteFailed> {
        let Ok(in_info) = input.info() else {
            return Ok(None);
        };
        let in_fd = input.raw_fd();
        // A regular file that says it is empty may be a /proc or /sys file
        // whose contents only read(2) produces.
        if in_info.kind == FileKind::Regular && in_info.size == 0 {
            return Ok(None);
        }
        sys::advise_sequential(in_fd);
        match (in_info.kind, out_info.kind) {
            (FileKind::Regular, FileKind::Regular) => {
                paths.push("copy_file_range");
                copy_file_ranges(in_fd, out_fd)
            }
            (FileKind::Fifo, _) | (_, FileKind::Fifo) => {
                paths.push("splice");
                if !self.pipe_grown {
                    // Stdout, if a pipe, was grown at the start.
                    self.pipe_grown = true;
                    sys::grow_pipe(in_fd, self.cfg.pipe_size);
                }
                splice_direct(in_fd, out_fd)
            }
            (FileKind::Directory, _) => Ok(None),
            _ => {
                paths.push("splice through a pipe");
                self.splice_through_pipe(in_fd, out_fd)
            }
        }
    }

    /// Splice from `in_fd` into a pipe of our own and from there to
    /// `out_fd`, for two ends neither of which is a pipe.  If the second
    /// splice is refused, the bytes already in the pipe are read back and
    /// written with write(2) before read/write takes over.
    fn splice_through_pipe(
        &mut self,
        in_fd: RawFd,
        out_fd: RawFd,
    ) -> Result<Option<Copied>, WriteFailed> {
        // One pipe serves every input of the run; it is empty between
        // inputs, and dropped after any failure.
        let (pipe_r, pipe_w, capacity) = match self.own_pipe.take() {
            Some(p) => p,
            None => {
                let Ok((r, w)) = sys::pipe() else {
                    return Ok(None);
                };
                // A pipe whose size cannot be read is not one to use.
                let Some(capacity) = sys::grow_pipe(w.as_raw_fd(), self.cfg.pipe_size) else {
                    return Ok(None);
                };
                (r, w, capacity)
            }
        };
        loop {
            let mut in_pipe = match sys::splice(in_fd, pipe_w.as_raw_fd(), capacity) {
                Ok(0) => {
                    self.own_pipe = Some((pipe_r, pipe_w, capacity));
                    return Ok(Some(Copied::Done));
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // The pipe is empty: read/write goes on from here.
                Err(e) if sys::means_unsupported(&e) => return Ok(None),
                // A real error reading the input, or EAGAIN from a
                // non-blocking one with nothing to give (our pipe is empty
                // and blocking, so it is the input's): reported as GNU's
                // read() reports it, never retried.
                Err(e) => {
                    self.own_pipe = Some((pipe_r, pipe_w, capacity));
                    return Ok(Some(Copied::ReadError(e)));
                }
            };
            while in_pipe > 0 {
                match sys::splice(pipe_r.as_raw_fd(), out_fd, in_pipe) {
                    Ok(n) => in_pipe -= n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if sys::means_unsupported(&e) => {
                        self.drain_pipe(&pipe_r, in_pipe)?;
                        return Ok(None);
                    }
                    Err(e) => return Err(WriteFailed(e)),
                }
            }
        }
    }

    /// Write out the `n` bytes left in our pipe with read/write.
    fn drain_pipe(&mut self, mut pipe_r: &File, mut n: usize) -> Result<(), WriteFailed> {
        let mut buf = self.buffer(self.cfg.read_size.min(n).max(1));
        let mut result = Ok(());
        while n > 0 {
            let want = buf.len().min(n);
            match read_retrying(&mut pipe_r, &mut buf[..want]) {
                Ok(0) | Err(_) => break,
                Ok(got) => {
                    n -= got;
                    if let Err(e) = self.out.write_through(&buf[..got]) {
                        result = Err(e);
                        break;
                    }
                }
            }
        }
        self.buf = buf;
        result
    }

    // -- Formatting ---------------------------------------------------------

    fn copy_formatted(&mut self, input: &mut CatInput) -> Result<Copied, WriteFailed> {
        let (may_block, fd) = match &*input {
            CatInput::Fd(fd) => {
                let regular = fd.info().is_ok_and(|i| i.kind == FileKind::Regular);
                (!regular, Some(fd.raw_fd()))
            }
            CatInput::Reader { may_block, .. } => (*may_block, None),
        };
        let mut formatter = self.formatter.take().expect("formatting run");
        if let (CatInput::Fd(input), false) = (&*input, may_block) {
            sys::advise_sequential(input.raw_fd());
        }
        let reader: &mut dyn Read = match input {
            CatInput::Fd(fd) => fd,
            CatInput::Reader { reader, .. } => reader.as_mut(),
        };
        let result = self.format_streaming(reader, may_block, fd, &mut formatter);
        self.formatter = Some(formatter);
        result
    }

    /// Format one chunk, writing whole pieces as they fill up.
    fn format_chunk(&mut self, formatter: &mut Formatter, data: &[u8]) -> Result<(), WriteFailed> {
        // Bytes formatted per step: keeps the output buffer small whatever
        // the read size.
        const STEP: usize = 64 * 1024;
        for step in data.chunks(STEP) {
            formatter.feed(step, &mut self.out.buf);
            self.out.flush_full_pieces()?;
        }
        Ok(())
    }

    /// Read, then format, one buffer at a time.  Before a read that may
    /// block (a pipe, terminal or socket with nothing ready), everything
    /// formatted so far is written, so a slow producer's lines come out as
    /// they arrive.
    fn format_streaming(
        &mut self,
        reader: &mut dyn Read,
        may_block: bool,
        fd: Option<RawFd>,
        formatter: &mut Formatter,
    ) -> Result<Copied, WriteFailed> {
        let read_size = self.cfg.format_read_size;
        let mut buf = self.buffer(read_size);
        let result = loop {
            if may_block
                && !self.out.buf.is_empty()
                && fd.and_then(sys::bytes_ready).unwrap_or(0) == 0
            {
                if let Err(e) = self.out.flush() {
                    break Err(e);
                }
            }
            let n = match read_retrying(reader, &mut buf[..read_size]) {
                Ok(0) => break Ok(Copied::Done),
                Ok(n) => n,
                Err(e) => break Ok(Copied::ReadError(e)),
            };
            if let Err(e) = self.format_chunk(formatter, &buf[..n]) {
                break Err(e);
            }
        };
        self.buf = buf;
        result
    }
}

/// copy_file_range until EOF.  GNU's rules: a refusal, or nothing copied
/// by the first call (a /proc file can claim EOF), means read/write
/// instead.  Any other error is reported against the end that failed
/// ([`copy_error_is_output`]); GNU blames the input for all of them.
fn copy_file_ranges(in_fd: RawFd, out_fd: RawFd) -> Result<Option<Copied>, WriteFailed> {
    let mut copied_any = false;
    loop {
        match sys::copy_file_range(in_fd, out_fd, 1 << 30) {
            Ok(0) => return Ok(copied_any.then_some(Copied::Done)),
            Ok(_) => copied_any = true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if sys::means_unsupported(&e) => return Ok(None),
            Err(e) if copy_error_is_output(&e, in_fd) => return Err(WriteFailed(e)),
            Err(e) => return Ok(Some(Copied::ReadError(e))),
        }
    }
}

/// Which end a copy_file_range error belongs to.  A full disk, a quota, a
/// size limit or a broken pipe are the output's; for anything else (EIO)
/// the input is asked for one byte where the copy stopped, without moving
/// its offset: if it can give it, the output failed.
fn copy_error_is_output(e: &io::Error, in_fd: RawFd) -> bool {
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EDQUOT | libc::EFBIG | libc::EPIPE) => true,
        _ => sys::lseek(in_fd, 0, sys::Whence::Cur)
            .and_then(|at| sys::pread_probe(in_fd, at))
            .is_ok(),
    }
}

/// splice from or to a pipe until EOF.  A refusal hands over to
/// read/write from where the kernel stopped, and so does EAGAIN: O_NONBLOCK
/// on either end makes the whole splice non-blocking, so it cannot tell
/// whether a non-blocking input is dry or a blocking output is full;
/// read/write asks each end in its own mode (and reports EAGAIN against
/// the end that gives it).  Any other error is reported against the end
/// it belongs to ([`splice_error_is_output`]).
fn splice_direct(in_fd: RawFd, out_fd: RawFd) -> Result<Option<Copied>, WriteFailed> {
    loop {
        match sys::splice(in_fd, out_fd, 1 << 30) {
            Ok(0) => return Ok(Some(Copied::Done)),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if sys::means_unsupported(&e) => return Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => return Ok(None),
            Err(e) if splice_error_is_output(&e, in_fd) => return Err(WriteFailed(e)),
            Err(e) => return Ok(Some(Copied::ReadError(e))),
        }
    }
}

/// Which end a direct splice's error belongs to.  GNU splices through a
/// pipe of its own so that it always knows; a direct splice has one end
/// that is a pipe, and a pipe fails only as a closed pipe (EPIPE, the
/// output's) or a non-blocking one (EAGAIN, handled before this).  Any
/// other error comes from the end that is not a pipe.
fn splice_error_is_output(e: &io::Error, in_fd: RawFd) -> bool {
    match e.raw_os_error() {
        Some(libc::EPIPE) => true,
        _ => sys::fstat(in_fd).is_ok_and(|i| i.kind == FileKind::Fifo),
    }
}

/// The binary's inputs: real files and the inherited stdin.
pub struct SystemCat {
    /// `fstat(1)`, or its errno.
    stdout_info: Result<sys::FileInfo, i32>,
}

impl SystemCat {
    pub fn new() -> SystemCat {
        SystemCat {
            stdout_info: if sys::stdout_was_closed() {
                Err(libc::EBADF)
            } else {
                sys::fstat(libc::STDOUT_FILENO).map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
            },
        }
    }
}

impl Default for SystemCat {
    fn default() -> Self {
        SystemCat::new()
    }
}

impl CatSystem for SystemCat {
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<CatInput> {
        let input = match name {
            Some(n) => FdInput::open(n)?,
            None if sys::stdin_was_closed() => {
                return Err(io::Error::from_raw_os_error(libc::EBADF));
            }
            None => FdInput::stdin(),
        };
        // GNU describes each input as it opens it, and an input that
        // cannot be described is an error of its own (a file system whose
        // attributes fail while its data reads).
        input.info()?;
        Ok(CatInput::Fd(input))
    }

    fn is_output_file(&mut self, input: &CatInput) -> bool {
        let (CatInput::Fd(fd), Ok(out)) = (input, &self.stdout_info) else {
            return false;
        };
        out.kind == FileKind::Regular && fd.info().is_ok_and(|i| i.id == out.id)
    }

    fn self_copy(&mut self, input: &CatInput) -> SelfCopy {
        let CatInput::Fd(fd) = input else {
            unreachable!("SystemCat opens descriptors only");
        };
        // Any position that cannot be read makes the copy look harmless,
        // as in GNU, which refuses only on positions it could read.
        let size = fd.info().map(|i| i.size).unwrap_or(0);
        let read_at = sys::lseek(fd.raw_fd(), 0, sys::Whence::Cur).unwrap_or(u64::MAX);
        let out = libc::STDOUT_FILENO;
        let write_at = if sys::is_append(out) {
            sys::fstat(out).map(|i| i.size)
        } else {
            sys::lseek(out, 0, sys::Whence::Cur)
        };
        SelfCopy {
            read_at,
            size,
            write_at: write_at.unwrap_or(0),
        }
    }

    fn stdout_fd(&self) -> Option<RawFd> {
        Some(libc::STDOUT_FILENO)
    }

    fn stdout_error(&self) -> Option<io::Error> {
        self.stdout_info.err().map(io::Error::from_raw_os_error)
    }

    fn stdin_close_error(&self) -> Option<io::Error> {
        sys::stdin_was_closed().then(|| io::Error::from_raw_os_error(libc::EBADF))
    }
}
