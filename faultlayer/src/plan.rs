//! The fault plan and the counters file: one format for the layer that
//! carries the plan out and for the oracle that writes the plan and reads
//! the counts.  This file is compiled into both (the oracle includes it by
//! path), so neither can drift from the other; it holds no interposed
//! symbol, so including it links nothing into the oracle's process.
//!
//! A plan is one environment variable, `SAMEBYTES_FAULTS`, of
//! `;`-separated `key=value` items:
//!
//! | item | meaning |
//! |---|---|
//! | `seed=N` | seed of every random decision |
//! | `short=P` | P % of data calls get a length cut to a random 1..=len |
//! | `eintr=P` | P % of calls fail with EINTR before doing anything |
//! | `refuse=P` | P % of splice, copy_file_range and vmsplice calls are refused, and of the calls a program must survive unchanged: pipe2 (EMFILE), `F_GETPIPE_SZ` (EBADF), FIONREAD (ENOTTY), posix_fadvise (EINVAL), madvise (EAGAIN) and fstatfs (EIO) |
//! | `pipesz=P` | P % of `fcntl(F_SETPIPE_SZ)` fail with EPERM |
//! | `mmap=P` | P % of file mappings (and anonymous ones of 1 MiB or more) fail with ENOMEM |
//! | `eio=DEV:INO@N` | reads of that file at offsets from N on fail with EIO (mapped pages from N's page on raise SIGBUS) |
//! | `openfail=DEV:INO:ERRNO` | opening that file or directory, by any name, fails with ERRNO: EACCES (unreadable, which root cannot otherwise meet), ENOENT (removed since it was listed), EMFILE or ENFILE (descriptors run out), EIO (a failing file system) |
//! | `outfail=FD@N:ERRNO` | descriptor FD takes N bytes, then fails with ERRNO (ENOSPC, EFBIG, EDQUOT, EPIPE, EIO or EAGAIN) |
//! | `statfail=DEV:INO` | every `stat`, `lstat`, `fstat`, `fstatat` and `statx` that describes that file fails with EIO, though it opens and reads (a file system whose attributes fail: FUSE, NFS) |
//! | `listfail=DEV:INO@N` | listing that directory (`getdents64`) fails with EIO once N of its entries have been returned |
//! | `closefail=FD:ERRNO` | closing descriptor FD closes it, then fails with ERRNO (a file system that reports write errors at close) |
//! | `log=PATH` | append one line per decision to PATH |
//! | `counts=PATH` | count intercepted calls in PATH (shared memory, so a killed process still leaves its counts) |

/// The environment variable that carries the plan.
pub const ENV: &str = "SAMEBYTES_FAULTS";

/// What the layer may do.  Percentages are of the calls each applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub seed: u64,
    pub short: u8,
    pub eintr: u8,
    pub refuse: u8,
    pub pipe_size: u8,
    pub mmap: u8,
    pub input_eio: Vec<InputEio>,
    /// Files and directories (device, inode) that cannot be opened.
    pub open_failures: Vec<OpenFailure>,
    pub output_failures: Vec<OutputFailure>,
    /// Directories (device, inode) whose listing fails with EIO once this
    /// many entries have been returned.
    pub list_failures: Vec<(u64, u64, u64)>,
    /// Files (device, inode) that no `stat` call can describe: EIO.
    pub stat_failures: Vec<(u64, u64)>,
    /// Descriptors whose close fails (after closing them) with an error.
    pub close_failures: Vec<(i32, OutputErrno)>,
    pub log: Option<String>,
    pub counts: Option<String>,
}

/// A file (by device and inode) whose bytes from `at` on cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputEio {
    pub dev: u64,
    pub ino: u64,
    pub at: u64,
}

/// A file or directory (by device and inode) whose opening fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFailure {
    pub dev: u64,
    pub ino: u64,
    pub errno: OpenErrno,
}

/// The errors an `open` of something that exists can meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenErrno {
    /// EACCES: no permission.
    Access,
    /// ENOENT: the entry was removed between its listing and its opening.
    NoEntry,
    /// EMFILE: the process has no descriptor left.
    TooManyOpen,
    /// ENFILE: the system has no open file left.
    TooManyOpenInSystem,
    /// EIO: the file system fails.
    Io,
}

impl OpenErrno {
    pub const ALL: [OpenErrno; 5] = [
        OpenErrno::Access,
        OpenErrno::NoEntry,
        OpenErrno::TooManyOpen,
        OpenErrno::TooManyOpenInSystem,
        OpenErrno::Io,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpenErrno::Access => "EACCES",
            OpenErrno::NoEntry => "ENOENT",
            OpenErrno::TooManyOpen => "EMFILE",
            OpenErrno::TooManyOpenInSystem => "ENFILE",
            OpenErrno::Io => "EIO",
        }
    }

    pub fn code(self) -> i32 {
        match self {
            OpenErrno::Access => libc::EACCES,
            OpenErrno::NoEntry => libc::ENOENT,
            OpenErrno::TooManyOpen => libc::EMFILE,
            OpenErrno::TooManyOpenInSystem => libc::ENFILE,
            OpenErrno::Io => libc::EIO,
        }
    }

    fn from_name(name: &str) -> Option<OpenErrno> {
        OpenErrno::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// An output descriptor that takes `after` bytes, then fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputFailure {
    pub fd: i32,
    pub after: u64,
    pub errno: OutputErrno,
}

/// The errors a full, broken or failing output gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputErrno {
    NoSpace,
    FileTooBig,
    QuotaExceeded,
    BrokenPipe,
    Io,
    /// EAGAIN: a non-blocking stdout that is full.
    WouldBlock,
}

impl OutputErrno {
    pub const ALL: [OutputErrno; 6] = [
        OutputErrno::NoSpace,
        OutputErrno::FileTooBig,
        OutputErrno::QuotaExceeded,
        OutputErrno::BrokenPipe,
        OutputErrno::Io,
        OutputErrno::WouldBlock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OutputErrno::NoSpace => "ENOSPC",
            OutputErrno::FileTooBig => "EFBIG",
            OutputErrno::QuotaExceeded => "EDQUOT",
            OutputErrno::BrokenPipe => "EPIPE",
            OutputErrno::Io => "EIO",
            OutputErrno::WouldBlock => "EAGAIN",
        }
    }

    pub fn code(self) -> i32 {
        match self {
            OutputErrno::NoSpace => libc::ENOSPC,
            OutputErrno::FileTooBig => libc::EFBIG,
            OutputErrno::QuotaExceeded => libc::EDQUOT,
            OutputErrno::BrokenPipe => libc::EPIPE,
            OutputErrno::Io => libc::EIO,
            OutputErrno::WouldBlock => libc::EAGAIN,
        }
    }

    fn from_name(name: &str) -> Option<OutputErrno> {
        OutputErrno::ALL.into_iter().find(|e| e.name() == name)
    }
}

impl Plan {
    /// The plan as the environment variable's value.
    pub fn render(&self) -> String {
        let mut items = vec![format!("seed={}", self.seed)];
        for (key, p) in [
            ("short", self.short),
            ("eintr", self.eintr),
            ("refuse", self.refuse),
            ("pipesz", self.pipe_size),
            ("mmap", self.mmap),
        ] {
            if p > 0 {
                items.push(format!("{key}={p}"));
            }
        }
        for e in &self.input_eio {
            items.push(format!("eio={}:{}@{}", e.dev, e.ino, e.at));
        }
        for f in &self.open_failures {
            items.push(format!("openfail={}:{}:{}", f.dev, f.ino, f.errno.name()));
        }
        for f in &self.output_failures {
            items.push(format!("outfail={}@{}:{}", f.fd, f.after, f.errno.name()));
        }
        for (dev, ino) in &self.stat_failures {
            items.push(format!("statfail={dev}:{ino}"));
        }
        for (dev, ino, after) in &self.list_failures {
            items.push(format!("listfail={dev}:{ino}@{after}"));
        }
        for (fd, errno) in &self.close_failures {
            items.push(format!("closefail={fd}:{}", errno.name()));
        }
        if let Some(p) = &self.log {
            items.push(format!("log={p}"));
        }
        if let Some(p) = &self.counts {
            items.push(format!("counts={p}"));
        }
        items.join(";")
    }

    /// Parse a plan; `Err` names the first item that makes no sense.
    pub fn parse(text: &str) -> Result<Plan, String> {
        let mut plan = Plan::default();
        for item in text.split(';').filter(|i| !i.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| item.to_string())?;
            let bad = || item.to_string();
            let percent = || {
                value
                    .parse::<u8>()
                    .ok()
                    .filter(|p| *p <= 100)
                    .ok_or_else(bad)
            };
            match key {
                "seed" => plan.seed = value.parse().map_err(|_| bad())?,
                "short" => plan.short = percent()?,
                "eintr" => plan.eintr = percent()?,
                "refuse" => plan.refuse = percent()?,
                "pipesz" => plan.pipe_size = percent()?,
                "mmap" => plan.mmap = percent()?,
                "eio" => {
                    let (id, at) = value.split_once('@').ok_or_else(bad)?;
                    let (dev, ino) = id.split_once(':').ok_or_else(bad)?;
                    plan.input_eio.push(InputEio {
                        dev: dev.parse().map_err(|_| bad())?,
                        ino: ino.parse().map_err(|_| bad())?,
                        at: at.parse().map_err(|_| bad())?,
                    });
                }
                "openfail" => {
                    let mut parts = value.splitn(3, ':');
                    let mut next = || parts.next().ok_or_else(bad);
                    let (dev, ino, errno) = (next()?, next()?, next()?);
                    plan.open_failures.push(OpenFailure {
                        dev: dev.parse().map_err(|_| bad())?,
                        ino: ino.parse().map_err(|_| bad())?,
                        errno: OpenErrno::from_name(errno).ok_or_else(bad)?,
                    });
                }
                "outfail" => {
                    let (fd, rest) = value.split_once('@').ok_or_else(bad)?;
                    let (after, errno) = rest.split_once(':').ok_or_else(bad)?;
                    plan.output_failures.push(OutputFailure {
                        fd: fd.parse().map_err(|_| bad())?,
                        after: after.parse().map_err(|_| bad())?,
                        errno: OutputErrno::from_name(errno).ok_or_else(bad)?,
                    });
                }
                "listfail" => {
                    let (id, after) = value.split_once('@').ok_or_else(bad)?;
                    let (dev, ino) = id.split_once(':').ok_or_else(bad)?;
                    plan.list_failures.push((
                        dev.parse().map_err(|_| bad())?,
                        ino.parse().map_err(|_| bad())?,
                        after.parse().map_err(|_| bad())?,
                    ));
                }
                "statfail" => {
                    let (dev, ino) = value.split_once(':').ok_or_else(bad)?;
                    plan.stat_failures.push((
                        dev.parse().map_err(|_| bad())?,
                        ino.parse().map_err(|_| bad())?,
                    ));
                }
                "closefail" => {
                    let (fd, errno) = value.split_once(':').ok_or_else(bad)?;
                    plan.close_failures.push((
                        fd.parse().map_err(|_| bad())?,
                        OutputErrno::from_name(errno).ok_or_else(bad)?,
                    ));
                }
                "log" => plan.log = Some(value.to_string()),
                "counts" => plan.counts = Some(value.to_string()),
                _ => return Err(bad()),
            }
        }
        Ok(plan)
    }
}

// ---------------------------------------------------------------------------
// Counters: a file of `KIND_COUNT * OUTCOME_COUNT` little-endian u64s,
// row-major by kind, that the layer maps shared and bumps atomically.

/// The calls the layer intercepts, one row of counters each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Readv,
    Pread,
    Write,
    Writev,
    Splice,
    /// A splice with one end on a pipe the process made itself (pipe(2)
    /// or pipe2(2)): cat's copy through its own pipe, a path of its own.
    SpliceOwnPipe,
    CopyFileRange,
    Vmsplice,
    SetPipeSize,
    MmapFile,
    MmapAnon,
    /// An I/O system call made through `syscall(2)` instead of its symbol.
    RawSyscall,
    /// Opening a file by name: open, open64, openat, openat64.
    Open,
    /// Listing a directory: getdents64, through `syscall(2)`.
    Getdents,
    Close,
    /// A pipe of the program's own (pipe, pipe2).
    Pipe,
    GetPipeSize,
    /// How many bytes a read would find (`ioctl(FIONREAD)`).
    Fionread,
    /// posix_fadvise and madvise: hints.
    Advise,
    /// Describing a file: stat, lstat, fstat, fstatat, statx (and their
    /// 64-bit names).
    Stat,
    /// Asking what file system a descriptor is on (fstatfs): gnulib's
    /// walk, and ours, sort a big directory by inode unless it is tmpfs,
    /// NFS or CIFS, and sort when they cannot tell.
    Statfs,
}

impl Kind {
    pub const ALL: [Kind; 22] = [
        Kind::Read,
        Kind::Readv,
        Kind::Pread,
        Kind::Write,
        Kind::Writev,
        Kind::Splice,
        Kind::SpliceOwnPipe,
        Kind::CopyFileRange,
        Kind::Vmsplice,
        Kind::SetPipeSize,
        Kind::MmapFile,
        Kind::MmapAnon,
        Kind::RawSyscall,
        Kind::Open,
        Kind::Getdents,
        Kind::Close,
        Kind::Pipe,
        Kind::GetPipeSize,
        Kind::Fionread,
        Kind::Advise,
        Kind::Stat,
        Kind::Statfs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Readv => "readv",
            Kind::Pread => "pread",
            Kind::Write => "write",
            Kind::Writev => "writev",
            Kind::Splice => "splice",
            Kind::SpliceOwnPipe => "splice(own pipe)",
            Kind::CopyFileRange => "copy_file_range",
            Kind::Vmsplice => "vmsplice",
            Kind::SetPipeSize => "F_SETPIPE_SZ",
            Kind::MmapFile => "mmap(file)",
            Kind::MmapAnon => "mmap(anon)",
            Kind::RawSyscall => "syscall()",
            Kind::Open => "open",
            Kind::Getdents => "getdents64",
            Kind::Close => "close",
            Kind::Pipe => "pipe2",
            Kind::GetPipeSize => "F_GETPIPE_SZ",
            Kind::Fionread => "FIONREAD",
            Kind::Advise => "fadvise/madvise",
            Kind::Stat => "stat",
            Kind::Statfs => "fstatfs",
        }
    }
}

/// What happened to an intercepted call: one column of counters each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every intercepted call.
    Calls,
    /// Bytes the real call moved.
    Bytes,
    /// Calls whose length was cut.
    Short,
    /// Calls failed with EINTR before the real call.
    Eintr,
    /// Kernel copies refused, and pipe resizes and mappings denied.
    Refused,
    /// Calls failed hard on their input: EIO, or EACCES for an open.
    InputFailed,
    /// Calls failed hard on their output, with the output's errno (a
    /// close, with the error the plan gives it).
    OutputFailed,
    /// Mappings given pages that raise SIGBUS (EIO inside the mapping).
    Sigbus,
    /// Hard failures met again on a descriptor that had already failed
    /// hard and was not closed since: a retry, down this path or another,
    /// of what the program should have reported.  Always 0 for a correct
    /// program under a plan whose failures persist.
    FailedAgain,
}

impl Outcome {
    pub const ALL: [Outcome; 9] = [
        Outcome::Calls,
        Outcome::Bytes,
        Outcome::Short,
        Outcome::Eintr,
        Outcome::Refused,
        Outcome::InputFailed,
        Outcome::OutputFailed,
        Outcome::Sigbus,
        Outcome::FailedAgain,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Calls => "calls",
            Outcome::Bytes => "bytes",
            Outcome::Short => "short",
            Outcome::Eintr => "eintr",
            Outcome::Refused => "refused",
            Outcome::InputFailed => "in-fail",
            Outcome::OutputFailed => "out-fail",
            Outcome::Sigbus => "sigbus",
            Outcome::FailedAgain => "failed again",
        }
    }
}

/// Number of counters in the file.
pub const COUNTER_SLOTS: usize = Kind::ALL.len() * Outcome::ALL.len();

/// Size of the counters file in bytes.
pub const COUNTS_FILE_LEN: usize = COUNTER_SLOTS * 8;

/// The slot of one counter.
pub fn slot(kind: Kind, outcome: Outcome) -> usize {
    kind as usize * Outcome::ALL.len() + outcome as usize
}

/// Counters read back from a counters file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    values: Vec<u64>,
}

impl Counts {
    /// Parse the file's bytes; a short or missing file reads as zeros.
    pub fn from_bytes(bytes: &[u8]) -> Counts {
        let mut values = vec![0u64; COUNTER_SLOTS];
        for (v, chunk) in values.iter_mut().zip(bytes.chunks_exact(8)) {
            *v = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
        Counts { values }
    }

    pub fn get(&self, kind: Kind, outcome: Outcome) -> u64 {
        self.values.get(slot(kind, outcome)).copied().unwrap_or(0)
    }

    /// One outcome summed over every kind of call.
    pub fn total(&self, outcome: Outcome) -> u64 {
        Kind::ALL.iter().map(|&k| self.get(k, outcome)).sum()
    }

    /// Add another run's counts to these.
    pub fn add(&mut self, other: &Counts) {
        self.values.resize(COUNTER_SLOTS, 0);
        for (a, b) in self.values.iter_mut().zip(&other.values) {
            *a += b;
        }
    }
}
