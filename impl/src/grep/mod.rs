//! `grep`: the fast implementation of `samebytes_spec::grep`.
//!
//! Layout, after ripgrep's grep-searcher, read top-down:
//! - `run.rs`, the **run loop**: options, patterns and the matcher, then
//!   each input with its diagnostics, count, name and exit status.
//! - `system.rs`: the seam inputs are opened through, and the real one.
//! - `mapped.rs`, the **mapped strategy**, for regular files: views the
//!   file in windows and hands whole lines to the core a region at a
//!   time; output waits in the sink until the window is known intact, and
//!   a window the file shrank under is rolled back and read instead.
//! - `ahead.rs`, **look-ahead**: on two cores a helper thread searches a
//!   window's regions from the back while the core works from the front
//!   (`relay.rs` holds the claims, each side cutting its own regions),
//!   and hands each over as a record of facts (where the matching lines
//!   are, the first NUL, terminator counts); the core searches that region
//!   through the same code, asking the record instead of the matcher
//!   (`answers.rs` sends each question to one or the other).
//! - `stream.rs`, the **stream strategy**: reads into the line buffer
//!   (`buffer.rs`: base offset, fill level, the carried partial line) and
//!   hands whole lines to the core.  It also finishes what the mapped
//!   strategy leaves: the last partial line, bytes appended since, and
//!   everything after a window that could not be mapped or was spoiled.
//! - `search.rs`, the one **core**: the binary rule, matches over a whole
//!   region at once, `-v` blocks; `output.rs` prints selected lines with
//!   their context.  `lines.rs` holds the line helpers both use.
//! - The **matcher** (`matcher.rs`) only finds where the next match
//!   starts in a buffer of whole lines: memchr's memmem for a plain
//!   literal, the regex of our own translation (`translate.rs`), the
//!   back-reference engine (`backref.rs`) or PCRE2 (`perl.rs`), with `-w`
//!   and glibc's exact check applied line by line.  The translation keeps
//!   every match inside one line, so a whole buffer can be searched at
//!   once.  The spec parses and matches patterns on its own, so the
//!   differential tests check the translation too.
//! - `sink.rs`, the **sink**: batched output, flushed before a read that
//!   may block, before any diagnostic, at exit, and per line with
//!   `--line-buffered`.
//!
//! Invariants: a region handed to the core is whole lines (the last one
//! unterminated only at end of input); `lastout`, `pending` and the line
//! counter follow the spec's model of GNU exactly; binary input is decided
//! only once 32 KiB or the end of input has been seen, so the answer never
//! depends on how reads arrive.

mod ahead;
mod answers;
mod backref;
mod buffer;
mod file;
mod filters;
mod group_copies;
mod lines;
mod mapped;
mod matcher;
mod ordered;
mod output;
mod paint;
mod perl;
mod queue;
mod relay;
mod run;
mod search;
mod sink;
mod stream;
mod system;
mod translate;
mod walk;

pub use run::{prepare, run, search, Prepare, Prepared};
pub use system::{
    DirType, GrepFiles, GrepInput, GrepStream, GrepSystem, Leftover, Listing, MappedFile,
    NeverPauses, OpenFlags, RawEntry, SearchWindow, SystemFiles, SystemGrep,
};

/// The most search threads a run starts.
const MAX_THREADS: usize = 64;

/// Tunables; the tests shrink the buffer to force every boundary case.
#[derive(Clone, Copy, Debug)]
pub struct GrepConfig {
    /// The stream buffer's starting size.
    pub buffer: usize,
    /// Output is written once this much is batched.
    pub write_size: usize,
    /// Regular files with at least this many bytes to search are mapped.
    pub map_min: u64,
    /// The mapped strategy's window (grown for a line longer than it).
    /// Its pages count in the resident size while it is searched, so it
    /// stays well under the 16 MiB the binaries may hold; windows of 4
    /// MiB and up cost no more system time than one mapping of the whole
    /// file (BENCHMARKS.md).
    pub window: usize,
    /// Threads searching a mapped window: the core's, and with 2 a
    /// helper searching its regions from the back (`ahead.rs`).
    pub threads: usize,
    /// The most matching lines one of the helper's records holds (32
    /// bytes each); it holds about four records' worth at most, so that
    /// a file of short matching lines costs no more memory than one.
    pub record_hits: usize,
    /// Searching many inputs on several threads (`ordered.rs`): the most
    /// output bytes that wait behind the input being printed, the most
    /// that wait at it, and the most inputs queued ahead (command-line
    /// files are opened when queued, so this bounds descriptors too).
    pub held: usize,
    pub head_held: usize,
    pub queued: usize,
}

impl Default for GrepConfig {
    fn default() -> Self {
        GrepConfig {
            buffer: 256 * 1024,
            write_size: 256 * 1024,
            map_min: 256 * 1024,
            window: 8 << 20,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS)),
            record_hits: 16 * 1024,
            held: 8 << 20,
            head_held: 1 << 20,
            queued: 256,
        }
    }
}

impl GrepConfig {
    /// The defaults, with the test hooks `SAMEBYTES_GREP_BUFFER`,
    /// `SAMEBYTES_GREP_MAP_MIN` and `SAMEBYTES_GREP_WINDOW` (bytes), and
    /// `SAMEBYTES_GREP_THREADS`, and `SAMEBYTES_GREP_HELD`,
    /// `SAMEBYTES_GREP_HEAD_HELD` and `SAMEBYTES_GREP_QUEUED`.  They
    /// are environment variables, not options, so the command line stays
    /// GNU's; they change how bytes travel, never which.
    pub fn from_env() -> GrepConfig {
        let get = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        let mut cfg = GrepConfig::default();
        if let Some(b) = get("SAMEBYTES_GREP_BUFFER") {
            cfg.buffer = (b as usize).max(1);
        }
        if let Some(m) = get("SAMEBYTES_GREP_MAP_MIN") {
            cfg.map_min = m;
        }
        if let Some(w) = get("SAMEBYTES_GREP_WINDOW") {
            cfg.window = (w as usize).max(1);
        }
        if let Some(n) = get("SAMEBYTES_GREP_HELD") {
            cfg.held = n as usize;
        }
        if let Some(n) = get("SAMEBYTES_GREP_HEAD_HELD") {
            cfg.head_held = n as usize;
        }
        if let Some(n) = get("SAMEBYTES_GREP_QUEUED") {
            cfg.queued = (n as usize).max(1);
        }
        if let Some(n) = get("SAMEBYTES_GREP_THREADS") {
            cfg.threads = (n as usize).clamp(1, MAX_THREADS);
        }
        cfg
    }
}
