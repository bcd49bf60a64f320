//! Live runs of a real binary: stdin is a pipe written burst by burst, as
//! `tail -f`, a terminal or a slow producer writes it.  Each burst goes in
//! one write, once the binary is blocked reading stdin with the pipe empty
//! (or has exited); at each pause the harness notes what has reached
//! stdout and stderr, and whether the binary has exited.  Nothing is
//! timed: the harness only orders "this output before that write", so a
//! slow machine changes no result.
//!
//! "Blocked reading stdin" is read from `/proc`: a thread of the binary
//! sleeps reading descriptor 0 (`/proc/PID/task/TID/syscall`) while the pipe
//! holds nothing (`FIONREAD`).  A woken thread shows as running, so a
//! burst it has not taken yet is never mistaken for a pause.

use std::io::Read;
use std::io::{ErrorKind, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What stdout is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveStdout {
    /// A pipe the harness reads.
    Pipe,
    /// A pseudo-terminal in raw mode (no `\r` added), which the harness
    /// reads from its master side.
    Terminal,
    /// /dev/null: only whether the binary exited can be seen.
    DevNull,
}

/// One live run to make.
pub struct LiveCommand<'a> {
    pub program: &'a Path,
    /// The name it is started under (the multicall binary dispatches on it).
    pub argv0: &'a str,
    pub args: &'a [Vec<u8>],
    /// The environment, which replaces the harness's own.
    pub env: &'a [(&'a str, &'a str)],
    /// The working folder, where the case's files are.
    pub dir: &'a Path,
    pub stdin: &'a [u8],
    /// Increasing offsets within `stdin` (at most its length).
    pub pauses: &'a [usize],
    pub stdout: LiveStdout,
}

/// What had happened by one pause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub at: usize,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exited: bool,
}

/// A whole live run.
#[derive(Debug)]
pub struct LiveRun {
    /// One per pause.
    pub pauses: Vec<Seen>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The exit status, or 128 + the signal that killed it.
    pub status: i32,
    /// It neither blocked nor exited within [`SETTLE_LIMIT`] somewhere,
    /// and was killed.
    pub hung: bool,
}

/// The longest the harness waits for the binary to block or exit.
pub const SETTLE_LIMIT: Duration = Duration::from_secs(30);

/// The pipe stdin is: as large as an unprivileged process may make it, so
/// that a burst up to this size is one write the reader takes whole.
pub const BURST_MAX: usize = 1 << 20;

/// A descriptor we read without waiting.
struct Collected {
    fd: Option<std::fs::File>,
    bytes: Vec<u8>,
}

impl Collected {
    fn new(fd: Option<OwnedFd>) -> Collected {
        if let Some(fd) = &fd {
            crate::sys::set_nonblocking(fd.as_fd());
        }
        Collected {
            fd: fd.map(std::fs::File::from),
            bytes: Vec::new(),
        }
    }

    /// Take what is there now.  Returns false at its end (a pty's master
    /// reads EIO once its slave side is closed everywhere).
    fn take(&mut self) -> bool {
        let Some(mut file) = self.fd.as_ref() else {
            return false;
        };
        let mut buf = [0u8; 65536];
        loop {
            match file.read(&mut buf) {
                Ok(0) => return false,
                Ok(n) => self.bytes.extend_from_slice(&buf[..n]),
                Err(e) => match e.kind() {
                    ErrorKind::Interrupted => {}
                    ErrorKind::WouldBlock => return true,
                    _ => return false,
                },
            }
        }
    }

    /// Take everything to its end (the binary has exited).
    fn finish(&mut self) {
        let deadline = Instant::now() + SETTLE_LIMIT;
        while self.take() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

/// Is a thread of `pid` asleep reading stdin: in `read`, `readv` or
/// `splice` (GNU drains a pipe into /dev/null with it) from descriptor 0?
fn sleeps_reading_stdin(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        let syscall = std::fs::read(t.path().join("syscall")).unwrap_or_default();
        // "NR 0x0 ...": the system call's number (x86_64's), then its
        // first argument, the descriptor.
        [&b"0 0x0 "[..], b"19 0x0 ", b"275 0x0 "]
            .iter()
            .any(|p| syscall.starts_with(p))
    })
}

/// How a wait for the binary ended.
enum Settled {
    Blocked,
    Exited,
    Hung,
}

struct Running {
    child: Child,
    stdin: Option<std::io::PipeWriter>,
    stdout: Collected,
    stderr: Collected,
    status: Option<std::process::ExitStatus>,
}

impl Running {
    /// Wait until the binary sleeps reading an empty stdin, or exits.
    fn settle(&mut self) -> Settled {
        let deadline = Instant::now() + SETTLE_LIMIT;
        loop {
            self.stdout.take();
            self.stderr.take();
            if let Some(s) = self.child.try_wait().expect("wait") {
                self.status = Some(s);
                self.stdout.finish();
                self.stderr.finish();
                return Settled::Exited;
            }
            let unread = || {
                self.stdin
                    .as_ref()
                    .map_or(0, |w| crate::sys::unread(w.as_fd()))
            };
            if unread() == 0 && sleeps_reading_stdin(self.child.id()) && unread() == 0 {
                // Blocked: nothing more comes until the next burst.
                self.stdout.take();
                self.stderr.take();
                return Settled::Blocked;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                self.status = Some(self.child.wait().expect("wait"));
                return Settled::Hung;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn seen(&self, at: usize) -> Seen {
        Seen {
            at,
            stdout: self.stdout.bytes.clone(),
            stderr: self.stderr.bytes.clone(),
            exited: self.status.is_some(),
        }
    }

    fn write(&mut self, burst: &[u8]) {
        if let (Some(w), false) = (&mut self.stdin, burst.is_empty()) {
            // A binary that has exited breaks the pipe: nothing to do.
            let _ = w.write_all(burst);
        }
    }
}

/// Run `cmd` live.
pub fn run_live(cmd: &LiveCommand) -> LiveRun {
    assert!(cmd.pauses.windows(2).all(|w| w[0] < w[1]));
    assert!(cmd.pauses.last().is_none_or(|&p| p <= cmd.stdin.len()));
    let (stdin_reader, stdin_writer) = std::io::pipe().expect("pipe");
    crate::sys::set_pipe_size(stdin_writer.as_fd(), BURST_MAX);
    let (stderr_reader, stderr_writer) = std::io::pipe().expect("pipe");
    let mut command = Command::new(cmd.program);
    command
        .arg0(cmd.argv0)
        .args(cmd.args.iter().map(|a| std::ffi::OsStr::from_bytes(a)))
        .env_clear()
        .envs(cmd.env.iter().copied())
        .current_dir(cmd.dir)
        .stdin(stdin_reader)
        .stderr(stderr_writer);
    let stdout_ours = match cmd.stdout {
        LiveStdout::Pipe => {
            let (r, w) = std::io::pipe().expect("pipe");
            command.stdout(w);
            Some(OwnedFd::from(r))
        }
        LiveStdout::Terminal => {
            let (master, slave) = crate::sys::raw_pty();
            command.stdout(slave);
            Some(master)
        }
        LiveStdout::DevNull => {
            command.stdout(Stdio::null());
            None
        }
    };
    let child = command.spawn().expect("start the binary");
    // Our copies of the child's ends go, or its output never ends.
    drop(command);
    let mut run = Running {
        child,
        stdin: Some(stdin_writer),
        stdout: Collected::new(stdout_ours),
        stderr: Collected::new(Some(OwnedFd::from(stderr_reader))),
        status: None,
    };
    let mut pauses = Vec::new();
    let mut written = 0;
    let mut hung = false;
    for &p in cmd.pauses {
        if run.status.is_none() && !hung {
            run.write(&cmd.stdin[written..p]);
            written = p;
            hung = matches!(run.settle(), Settled::Hung);
        }
        pauses.push(run.seen(p));
    }
    if run.status.is_none() && !hung {
        run.write(&cmd.stdin[written..]);
        // The writer goes: the binary reads the end of its input.
        run.stdin = None;
        hung = matches!(run.settle(), Settled::Hung);
        // A binary that blocks reading with its writer gone is impossible:
        // a read at the end returns 0.  Wait for its exit.
        let deadline = Instant::now() + SETTLE_LIMIT;
        while run.status.is_none() && !hung {
            run.stdout.take();
            run.stderr.take();
            match run.child.try_wait().expect("wait") {
                Some(s) => {
                    run.status = Some(s);
                    run.stdout.finish();
                    run.stderr.finish();
                }
                None if Instant::now() > deadline => {
                    let _ = run.child.kill();
                    run.status = Some(run.child.wait().expect("wait"));
                    hung = true;
                }
                None => std::thread::sleep(Duration::from_micros(200)),
            }
        }
    }
    let status = run.status.expect("the binary has ended");
    LiveRun {
        pauses,
        stdout: run.stdout.bytes,
        stderr: run.stderr.bytes,
        status: status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
        hung,
    }
}
