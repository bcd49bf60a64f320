//! samebytes-spec: reference implementations of `wc`, `cat` and `yes` (and
//! later `grep`).
//!
//! Every tool here is a pure function from its arguments, its environment
//! and a model of the files it may open to the bytes it writes on stdout and
//! stderr and its exit status.  There is no I/O, no unsafe code and no
//! cleverness: each function should be checkable against the GNU manual in
//! minutes.  The fast implementations in `samebytes` are proven against
//! these by the differential tests in `samebytes-oracle`.
#![forbid(unsafe_code)]

pub mod cat;
pub mod getopt;
pub mod grep;
pub mod quote;
pub mod text;
pub mod tree;
pub mod wc;
pub mod world;
pub mod yes;

/// `--version` for every tool: grep stands in for GNU grep, the others
/// for GNU coreutils'.
pub fn version_text(tool: &str) -> String {
    let package = if tool == "grep" {
        "GNU"
    } else {
        "GNU coreutils"
    };
    format!(
        "{tool} (samebytes) {}\nA drop-in replacement for {package} {tool}.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// What a run of a tool produced.  Two outcomes are equal when their
/// streams and statuses are: the placements are compared on their own
/// (`samebytes_oracle::order`), since a process read through two pipes
/// cannot show them.
#[derive(Clone, Debug, Default, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
    /// Where the stderr bytes fall among the stdout bytes, as seen by a
    /// reader of both (`2>&1`): one entry per diagnostic, in stderr order.
    /// A process run from outside cannot observe this through two pipes;
    /// the in-process oracle records it for the implementation.
    pub placements: Vec<Placement>,
}

/// What a run has decided at one pause of its stdin
/// (`world::World::stdin_pauses`): what it has written by then, which a
/// terminal or a line-buffered stdout must show, and whether it has exited,
/// reading no further.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decided {
    /// The pause: how many bytes of stdin had come.
    pub at: usize,
    /// Everything written by then; once exited, the exit status too.
    pub outcome: Outcome,
    /// The run has exited there.
    pub exited: bool,
}

/// One diagnostic's place: the stderr bytes from `stderr_at` on (up to the
/// next placement) were written when stdout held between `stdout_min` and
/// `stdout_max` bytes.  Nearly every diagnostic has one exact place; a
/// range is for output GNU may still hold in a buffer of its own
/// (cat's formatting, docs/differences.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub stderr_at: usize,
    pub stdout_min: usize,
    pub stdout_max: usize,
}

impl PartialEq for Outcome {
    fn eq(&self, other: &Outcome) -> bool {
        (&self.stdout, &self.stderr, self.status) == (&other.stdout, &other.stderr, other.status)
    }
}

impl Outcome {
    /// What a process wrote to two pipes: where its diagnostics fell among
    /// its stdout bytes is unknown.
    pub fn unplaced(stdout: Vec<u8>, stderr: Vec<u8>, status: i32) -> Outcome {
        Outcome {
            stdout,
            stderr,
            status,
            placements: Vec::new(),
        }
    }

    /// An outcome whose diagnostics, if any, all come after its stdout.
    pub fn new(stdout: Vec<u8>, stderr: Vec<u8>, status: i32) -> Outcome {
        let mut outcome = Outcome {
            stdout,
            status,
            ..Outcome::default()
        };
        outcome.diagnose(&stderr);
        outcome
    }

    /// GNU's `close_stdout` at exit, after the tool's own reports: when
    /// closing stdout fails (`World::stdout_close_fails`), `PROGRAM: write
    /// error: REASON` and the tool's `failure` status; then, when anything
    /// was written to a stderr that takes nothing (`World::stderr_fails`),
    /// the `failure` status, silently.
    pub fn close_at_exit(&mut self, program: &str, world: &world::World, failure: i32) {
        if let Some(e) = world.stdout_close_fails {
            self.diagnose(format!("{program}: write error: {}\n", e.message()).as_bytes());
            self.status = failure;
        }
        if world.stderr_fails && !self.stderr.is_empty() {
            self.status = failure;
        }
    }

    /// Write a diagnostic after everything written to stdout so far.
    pub fn diagnose(&mut self, text: &[u8]) {
        let at = self.stdout.len();
        self.diagnose_between(text, at, at);
    }

    /// Write a diagnostic somewhere after `min` and before `max` stdout
    /// bytes.
    pub fn diagnose_between(&mut self, text: &[u8], min: usize, max: usize) {
        if text.is_empty() {
            return;
        }
        self.placements.push(Placement {
            stderr_at: self.stderr.len(),
            stdout_min: min,
            stdout_max: max,
        });
        self.stderr.extend_from_slice(text);
    }

    /// Apply a stdout failure: the bytes past its limit are lost, and a
    /// diagnostic placed past it is placed at it.  Says whether any bytes
    /// were lost.
    pub fn clip_stdout(&mut self, failure: Option<StdoutFailure>) -> bool {
        let Some(f) = failure.filter(|f| self.stdout.len() > f.limit) else {
            return false;
        };
        self.stdout.truncate(f.limit);
        for p in &mut self.placements {
            p.stdout_min = p.stdout_min.min(f.limit);
            p.stdout_max = p.stdout_max.min(f.limit);
        }
        true
    }
}

/// The character set a tool runs in, as decided by `setlocale(LC_ALL, "")`:
/// a UTF-8 locale, or a single-byte one treated as the C locale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Locale {
    C,
    Utf8,
}

/// Does this locale name select UTF-8?  The name's codeset part is compared
/// case-insensitively with `-` ignored, as glibc normalises it.
pub fn locale_name_is_utf8(name: &[u8]) -> bool {
    let Some(dot) = name.iter().position(|&b| b == b'.') else {
        return false;
    };
    let codeset: Vec<u8> = name[dot + 1..]
        .iter()
        .take_while(|&&b| b != b'@')
        .filter(|&&b| b != b'-')
        .map(|b| b.to_ascii_lowercase())
        .collect();
    codeset == b"utf8"
}

/// The errors the file model can produce, with glibc's `strerror` text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Errno {
    NoEntry,
    Access,
    IsDirectory,
    Io,
    NoSpace,
    BrokenPipe,
    NameTooLong,
    FileTooBig,
    QuotaExceeded,
    BadDescriptor,
    /// EAGAIN: a non-blocking descriptor with nothing to read.
    WouldBlock,
    /// ENOTDIR: a path goes through something that is not a directory.
    NotDirectory,
    /// ELOOP: too many symbolic links in a path (or a cycle of them).
    Loop,
    /// EMFILE: the process has no descriptor left.
    TooManyOpen,
    /// ENFILE: the system has no open file left.
    TooManyOpenInSystem,
}

impl Errno {
    pub fn message(self) -> &'static str {
        match self {
            Errno::NoEntry => "No such file or directory",
            Errno::Access => "Permission denied",
            Errno::IsDirectory => "Is a directory",
            Errno::Io => "Input/output error",
            Errno::NoSpace => "No space left on device",
            Errno::BrokenPipe => "Broken pipe",
            Errno::NameTooLong => "File name too long",
            Errno::FileTooBig => "File too large",
            Errno::QuotaExceeded => "Disk quota exceeded",
            Errno::BadDescriptor => "Bad file descriptor",
            Errno::WouldBlock => "Resource temporarily unavailable",
            Errno::NotDirectory => "Not a directory",
            Errno::Loop => "Too many levels of symbolic links",
            Errno::TooManyOpen => "Too many open files",
            Errno::TooManyOpenInSystem => "Too many open files in system",
        }
    }
}

/// Where stdout stops accepting bytes: after `limit` bytes every write fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StdoutFailure {
    pub limit: usize,
    pub errno: Errno,
}
