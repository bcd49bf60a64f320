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
pub mod wc;
pub mod world;
pub mod yes;

/// `--version` for every tool.
pub fn version_text(tool: &str) -> String {
    format!(
        "{tool} (samebytes) {}\nA drop-in replacement for GNU coreutils {tool}.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// What a run of a tool produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
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
        }
    }
}

/// Where stdout stops accepting bytes: after `limit` bytes every write fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StdoutFailure {
    pub limit: usize,
    pub errno: Errno,
}

/// Apply a stdout failure to what a tool would have written: the bytes past
/// the limit are lost, and the caller learns whether any were.
pub fn clip_stdout(stdout: &mut Vec<u8>, failure: Option<StdoutFailure>) -> bool {
    match failure {
        Some(f) if stdout.len() > f.limit => {
            stdout.truncate(f.limit);
            true
        }
        _ => false,
    }
}
