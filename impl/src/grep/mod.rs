//! `grep`: the fast implementation of `samebytes_spec::grep`.
//!
//! Layout, after ripgrep's grep-searcher:
//! - The **matcher** (`matcher.rs`) only finds where the next match
//!   starts in a buffer of whole lines: memchr's memmem for a plain
//!   literal, the regex of our own translation (`translate.rs`) otherwise,
//!   with `-w` and glibc's exact check applied line by line.  The
//!   translation keeps every match inside one line, so a whole buffer can
//!   be searched at once.  The spec parses and matches patterns on its
//!   own, so the differential tests check the translation too.
//! - The **searcher** owns the bytes: one buffer reused for a stream (the
//!   partial last line carried over, grown only for a longer line, and
//!   only new bytes scanned for line ends), which feeds
//!   [`Search::region`], the one core.  (A mapped strategy was measured
//!   slower than read() on this machine and removed; see BENCHMARKS.md.)
//! - The **sink** is the batched output: flushed before a read that may
//!   block, before any diagnostic, at exit, and per line with
//!   `--line-buffered`.
//!
//! Invariants: a region handed to the core is whole lines (the last one
//! unterminated only at end of input); `lastout`, `pending` and the line
//! counter follow the spec's model of GNU exactly; binary input is decided
//! only once 32 KiB or the end of input has been seen, so the answer never
//! depends on how reads arrive.

use std::io::{self, Read, Write};

use samebytes_spec::grep::{
    assemble_patterns, parse_args, pattern_file_error, BinaryFiles, Effective, GrepEnv,
    GrepOptions, Invocation, ListFiles, PatternConfig, BINARY_PREFIX,
};

mod backref;
mod matcher;
mod perl;
mod translate;

use matcher::Matcher;
use samebytes_pcre2::MatchFailure;

use crate::io::diagnose;

/// Tunables; the tests shrink the buffer to force every boundary case.
#[derive(Clone, Copy, Debug)]
pub struct GrepConfig {
    /// The stream buffer's starting size.
    pub buffer: usize,
    /// Output is written once this much is batched.
    pub write_size: usize,
}

impl Default for GrepConfig {
    fn default() -> Self {
        GrepConfig {
            buffer: 256 * 1024,
            write_size: 256 * 1024,
        }
    }
}

/// An opened input.
pub enum GrepInput {
    /// A stream.  `may_block`: a read may wait, so output is flushed first.
    Reader {
        reader: Box<dyn Read>,
        may_block: bool,
    },
    /// A directory: reading it fails with EISDIR.
    Directory,
}

/// What grep can open, and what it knows about its output.
pub trait GrepSystem {
    /// Open a named input, or stdin for `None`.
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<GrepInput>;
    /// Is this named input the regular file stdout appends to?
    fn is_output_file(&mut self, name: &[u8]) -> bool;
    /// Is stdout /dev/null?  GNU then reads each file only up to its first
    /// selected line.
    fn stdout_is_dev_null(&mut self) -> bool;
    /// Stdin has been searched: leave it `Some(n)` bytes after where this
    /// read of it started (`-m` was reached), or at its end, if it is a
    /// file that can seek.
    fn stdin_done(&mut self, resume_at: Option<u64>);
    /// Read a stdin that cannot seek to its end, as GNU's `finalize_input`
    /// does when it stopped early, so that its writer is not cut off.
    fn drain_stdin(&mut self) -> io::Result<()>;
}

/// The size a pipe we read from is grown to.
const PIPE_SIZE: usize = 1 << 20;

/// What ends the whole run early: stdout failed, or (`-P`) PCRE2 could
/// not decide a match, where GNU dies.
enum Stop {
    Write(io::Error),
    Match(MatchFailure),
}

impl From<MatchFailure> for Stop {
    fn from(f: MatchFailure) -> Stop {
        Stop::Match(f)
    }
}

/// Output batched in one buffer.
struct Sink<'a> {
    out: &'a mut dyn Write,
    buf: Vec<u8>,
    write_size: usize,
    line_buffered: bool,
}

impl Sink<'_> {
    fn flush(&mut self) -> Result<(), Stop> {
        if !self.buf.is_empty() {
            let r = self.out.write_all(&self.buf).map_err(Stop::Write);
            self.buf.clear();
            r?;
        }
        Ok(())
    }

    /// After a whole line (or count, or name) is buffered.
    fn line_done(&mut self) -> Result<(), Stop> {
        if self.line_buffered || self.buf.len() >= self.write_size {
            self.flush()?;
        }
        Ok(())
    }
}

/// Per-input state of the core, in absolute offsets.
#[derive(Clone, Default)]
struct FileState {
    selected: u64,
    /// GNU's `lastout` (see the spec).
    lastout: Option<u64>,
    pending: u64,
    /// Lines counted before `counted_to` (for `-n`).
    counted_to: u64,
    counted_lines: u64,
    /// Just after the last selected line (for `-m` on stdin, and for `-v`,
    /// where a selected line that follows one continues its run).
    after_last_selected: u64,
    /// The input has turned binary.
    binary: bool,
    binary_selected: bool,
    encoding_error: bool,
    /// Reading can stop: `-l -L -q` found a line, `-m` is done and owes no
    /// context, or `--binary-files=without-match` met binary input.
    done: bool,
}

struct Search<'a, 'o> {
    opts: &'a GrepOptions,
    eff: Effective,
    env: &'a GrepEnv,
    matcher: &'a Matcher,
    terminator: u8,
    with_filename: bool,
    sink: Sink<'o>,
    used: bool,
    limit: u64,
}

impl Search<'_, '_> {
    fn prefix(&mut self, name: &[u8], number: u64, offset: u64, sep: u8) {
        let name = self.with_filename.then_some(name);
        samebytes_spec::grep::write_prefix(
            &mut self.sink.buf,
            self.opts,
            name,
            number,
            offset,
            sep,
        );
    }

    fn encoding_error(&self, text: &[u8]) -> bool {
        self.env.locale == samebytes_spec::Locale::Utf8
            && self.opts.binary_files != BinaryFiles::Text
            && !crate::utf8::is_valid(text)
    }

    /// The line number of the line starting at `buf[at]` (absolute
    /// `base + at`), counting only the bytes not yet counted: lines are
    /// printed in the order of the input, so `counted_to` never passes
    /// `at`.
    fn line_number(&self, st: &mut FileState, buf: &[u8], base: u64, at: usize) -> u64 {
        let counted = (st.counted_to - base) as usize;
        st.counted_lines += memchr::memchr_iter(self.terminator, &buf[counted..at]).count() as u64;
        st.counted_to = base + at as u64;
        st.counted_lines + 1
    }

    /// Print the line `buf[start..end]`; false when an encoding error kept
    /// it (or one of its matches) back.
    #[allow(clippy::too_many_arguments)]
    fn print_line(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        start: usize,
        end: usize,
        selected: bool,
    ) -> Result<bool, Stop> {
        let line = &buf[start..end];
        let number = if self.opts.line_number {
            self.line_number(st, buf, base, start)
        } else {
            0
        };
        let offset = base + start as u64;
        if self.opts.only_matching {
            // The matches of matching lines: selected ones, or with `-v`
            // context ones (marked `-`).
            if selected == self.opts.invert {
                return Ok(true);
            }
            let sep = if self.opts.invert { b'-' } else { b':' };
            let (found, failure) = self.matcher.matches(line);
            let stop = || failure.clone().map_or(Ok(false), |f| Err(Stop::Match(f)));
            for (s, e) in found {
                if self.encoding_error(&line[s..e]) {
                    return stop();
                }
                self.prefix(name, number, offset + s as u64, sep);
                self.sink.buf.extend_from_slice(&line[s..e]);
                self.sink.buf.push(self.terminator);
                self.sink.line_done()?;
            }
            return stop().map(|_| true);
        }
        if self.encoding_error(line) {
            return Ok(false);
        }
        self.prefix(name, number, offset, if selected { b':' } else { b'-' });
        self.sink.buf.extend_from_slice(line);
        self.sink.buf.push(self.terminator);
        self.sink.line_done()?;
        Ok(true)
    }

    /// The end of the line starting at `at` (its terminator, or `end`).
    fn line_end(&self, buf: &[u8], at: usize, end: usize) -> usize {
        memchr::memchr(self.terminator, &buf[at..end]).map_or(end, |p| at + p)
    }

    /// Print owed after-context from `lastout` up to absolute `limit`.
    fn print_pending(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        limit: usize,
    ) -> Result<(), Stop> {
        if st.pending == 0 {
            return Ok(());
        }
        let mut at = st.lastout.map_or(0, |l| l.saturating_sub(base) as usize);
        while st.pending > 0 && at < limit {
            let end = self.line_end(buf, at, limit);
            if self.print_line(name, st, buf, base, at, end, false)? {
                at = (end + 1).min(limit);
            } else {
                st.encoding_error = true;
            }
            st.pending -= 1;
        }
        st.lastout = Some(base + at as u64);
        Ok(())
    }

    /// One selected line, `buf[start..end]`.
    fn selected(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        start: usize,
        end: usize,
    ) -> Result<(), Stop> {
        // With -v, a run of consecutive selected lines is one piece:
        // context and the separator come before its first line only.
        let continues_run =
            self.opts.invert && st.selected > 0 && st.after_last_selected == base + start as u64;
        st.selected += 1;
        let terminated = buf.get(end) == Some(&self.terminator);
        st.after_last_selected = base + end as u64 + u64::from(terminated);
        if continues_run && !self.eff.out_quiet {
            // A selected line kept back moves `lastout` too (the spec).
            if !self.print_line(name, st, buf, base, start, end, true)? {
                st.encoding_error = true;
            }
            st.lastout = Some(st.after_last_selected);
            st.pending = self.eff.after.unwrap_or(0);
        } else if !self.eff.out_quiet {
            self.print_pending(name, st, buf, base, start)?;
            let floor = st.lastout.map_or(0, |l| l.saturating_sub(base) as usize);
            let mut first = start;
            for _ in 0..self.eff.before.unwrap_or(0) {
                if first <= floor {
                    break;
                }
                first = memchr::memrchr(self.terminator, &buf[floor..first - 1])
                    .map_or(floor, |p| floor + p + 1);
            }
            let context = self.eff.before.is_some() || self.eff.after.is_some();
            if context && self.used && st.lastout != Some(base + first as u64) {
                if let Some(sep) = &self.opts.group_separator {
                    self.sink.buf.extend_from_slice(sep);
                    self.sink.buf.push(b'\n');
                    self.sink.line_done()?;
                }
            }
            let mut at = first;
            while at <= start {
                let e = if at == start {
                    end
                } else {
                    self.line_end(buf, at, start)
                };
                let printed = self.print_line(name, st, buf, base, at, e, at == start)?;
                st.encoding_error |= !printed;
                // A selected line kept back moves `lastout` too (the spec).
                if printed || at == start {
                    st.lastout = Some(base + (e + 1) as u64);
                }
                at = e + 1;
            }
            st.pending = self.eff.after.unwrap_or(0);
        }
        self.used = true;
        if self.eff.done_on_match {
            st.done = true;
        }
        Ok(())
    }

    /// Search whole lines `buf[from..to]` of text (no binary part).
    fn text(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        from: usize,
        to: usize,
    ) -> Result<(), Stop> {
        let hay = &buf[..to];
        let mut pos = from;
        while pos < to && !st.done && st.selected < self.limit {
            // An empty match after the last terminator is in no line.
            // (Here pos < to, so buf[to - 1] exists.)
            let found = self
                .matcher
                .find(hay, pos)?
                .filter(|&m| m < to || buf[to - 1] != self.terminator);
            let (line_start, line_end) = match found {
                // Nothing is printed (`-c`): where the line starts does not
                // matter, only where it ends.
                Some(m) if self.eff.out_quiet && !self.opts.invert => {
                    (m, self.line_end(buf, m, to))
                }
                Some(m) => {
                    let s =
                        memchr::memrchr(self.terminator, &hay[pos..m]).map_or(pos, |p| pos + p + 1);
                    (s, self.line_end(buf, m, to))
                }
                None => (to, to),
            };
            if self.opts.invert && self.bulk_applies(st) {
                if let Some(at) = self.bulk(st, buf, base, pos, line_start)? {
                    // An encoding error somewhere in the block: line by line.
                    self.inverted_lines(name, st, buf, base, at, line_start)?;
                }
            } else if self.opts.invert {
                self.inverted_lines(name, st, buf, base, pos, line_start)?;
            } else if found.is_some() {
                self.selected(name, st, buf, base, line_start, line_end)?;
            }
            if found.is_none() {
                break;
            }
            pos = line_end + 1;
        }
        self.print_pending(name, st, buf, base, to)?;
        if st.selected >= self.limit && st.pending == 0 {
            st.done = true;
        }
        Ok(())
    }

    /// `-v` selects every line of `buf[from..to]`, one by one.
    fn inverted_lines(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        from: usize,
        to: usize,
    ) -> Result<(), Stop> {
        let mut at = from;
        while at < to && !st.done && st.selected < self.limit {
            let e = self.line_end(buf, at, to);
            self.selected(name, st, buf, base, at, e)?;
            at = e + 1;
        }
        Ok(())
    }

    /// Can `-v` take a block of selected lines at once?  When nothing is
    /// printed around or before the lines themselves: no context, no
    /// prefixes, no `-o`, no stop at the first line.
    fn bulk_applies(&self, st: &FileState) -> bool {
        self.eff.before.is_none()
            && self.eff.after.is_none()
            && st.pending == 0
            && !self.eff.done_on_match
            && (self.eff.out_quiet
                || !(self.opts.only_matching
                    || self.opts.line_number
                    || self.opts.byte_offset
                    || self.with_filename
                    || self.opts.line_buffered))
    }

    /// Select the whole lines `buf[from..to]` (the last one unterminated
    /// only at the end of input) at once: count them and, unless quiet,
    /// copy them out in one piece.  Returns where to go on line by line
    /// instead, when the block holds an encoding error.
    fn bulk(
        &mut self,
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        from: usize,
        to: usize,
    ) -> Result<Option<usize>, Stop> {
        if from >= to {
            return Ok(None);
        }
        let t = self.terminator;
        let mut end = to;
        let mut lines = memchr::memchr_iter(t, &buf[from..to]).count() as u64;
        let unterminated = buf[to - 1] != t;
        if unterminated {
            lines += 1;
        }
        let room = self.limit - st.selected;
        if lines > room {
            // `-m`: the block ends after the last line allowed.
            let cut = memchr::memchr_iter(t, &buf[from..to])
                .nth(room as usize - 1)
                .expect("more terminators than room");
            end = from + cut + 1;
            lines = room;
        }
        if !self.eff.out_quiet {
            let block = &buf[from..end];
            if self.encoding_error(block) {
                return Ok(Some(from));
            }
            self.sink.buf.extend_from_slice(block);
            if end == to && unterminated {
                self.sink.buf.push(t);
            }
            // `lastout` is not kept up here: it matters only to context,
            // which this path never has.
            self.sink.line_done()?;
        }
        st.selected += lines;
        st.after_last_selected = base + end as u64;
        self.used = true;
        Ok(None)
    }

    /// Can this input turn binary on a NUL?
    fn binary_rule_applies(&self) -> bool {
        self.opts.binary_files != BinaryFiles::Text && self.terminator != 0
    }

    /// Search a binary part: NULs end lines too, nothing is printed.
    fn binary(&mut self, st: &mut FileState, part: &[u8], base: u64) -> Result<(), Stop> {
        let t = self.terminator;
        let mut pieces: Vec<&[u8]> = part.split(|&b| b == t || b == 0).collect();
        if part.last().is_some_and(|&b| b == t || b == 0) {
            pieces.pop();
        }
        let mut at = base;
        for piece in pieces {
            if st.done || st.selected >= self.limit {
                break;
            }
            at = (at + piece.len() as u64 + 1).min(base + part.len() as u64);
            if self.matcher.is_match(piece)? != self.opts.invert {
                st.selected += 1;
                st.after_last_selected = at;
                st.binary_selected = true;
                self.used = true;
                if !self.eff.count {
                    st.done = true;
                    break;
                }
            }
        }
        if st.selected >= self.limit {
            st.done = true;
        }
        Ok(())
    }

    /// One region of whole lines, `buf[from..to]`, with `buf[0]` at `base`.
    fn region(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        buf: &[u8],
        base: u64,
        from: usize,
        to: usize,
    ) -> Result<(), Stop> {
        if st.done {
            return Ok(());
        }
        if !st.binary && self.binary_rule_applies() {
            if let Some(p) = memchr::memchr(0, &buf[from..to]) {
                let nul = from + p;
                let at = if base + nul as u64 >= BINARY_PREFIX as u64 {
                    memchr::memrchr(self.terminator, &buf[..nul]).map_or(0, |q| q + 1)
                } else {
                    0
                };
                let at = at.max(from);
                self.text(name, st, buf, base, from, at)?;
                st.binary = true;
                if self.opts.binary_files == BinaryFiles::WithoutMatch {
                    st.done = true;
                    return Ok(());
                }
                return self.binary(st, &buf[at..to], base + at as u64);
            }
        }
        if st.binary {
            return self.binary(st, &buf[from..to], base + from as u64);
        }
        self.text(name, st, buf, base, from, to)
    }

    /// Search one input.
    fn input(
        &mut self,
        name: &[u8],
        input: GrepInput,
        cfg: &GrepConfig,
    ) -> Result<(FileState, Option<io::Error>), Stop> {
        let mut st = FileState::default();
        match input {
            GrepInput::Directory => Ok((st, Some(io::Error::from_raw_os_error(libc::EISDIR)))),
            GrepInput::Reader { reader, may_block } => self
                .stream(name, &mut st, reader, may_block, cfg)
                .map(|e| (st, e)),
        }
    }

    /// The streaming path: one buffer, reused.
    fn stream(
        &mut self,
        name: &[u8],
        st: &mut FileState,
        mut reader: Box<dyn Read + '_>,
        may_block: bool,
        cfg: &GrepConfig,
    ) -> Result<Option<io::Error>, Stop> {
        let mut buf = vec![0u8; cfg.buffer.max(1)];
        // buf[..filled] holds input from absolute offset `base`; lines
        // before `done_to` are searched; `complete` ends the last whole
        // line seen.
        let mut base = 0;
        let mut filled = 0;
        let mut done_to = 0;
        let mut complete = 0;
        let mut error = None;
        let decided_early = self.opts.binary_files == BinaryFiles::Text || self.terminator == 0;
        loop {
            if filled == buf.len() {
                buf.resize(buf.len() * 2, 0);
            }
            if may_block {
                self.sink.flush()?;
            }
            let n = match crate::io::read_retrying(&mut *reader, &mut buf[filled..]) {
                Ok(n) => n,
                Err(e) => {
                    error = Some(e);
                    0
                }
            };
            let eof = n == 0;
            // Only the new bytes are scanned for the last line end.
            if let Some(p) = memchr::memrchr(self.terminator, &buf[filled..filled + n]) {
                complete = filled + p + 1;
            }
            filled += n;
            let seen = base + filled as u64;
            if !eof && !decided_early && !st.binary && seen < BINARY_PREFIX as u64 {
                continue;
            }
            let to = match (&error, eof) {
                // A read error: the line it cut short is never searched
                // (GNU's rule); in a binary input a NUL ends a line too.
                (Some(_), _) if self.binary_rule_applies() => {
                    let nul = memchr::memrchr(0, &buf[done_to..filled]).map(|p| done_to + p + 1);
                    complete.max(nul.unwrap_or(0))
                }
                (Some(_), _) => complete,
                (None, true) => filled,
                (None, false) => complete,
            };
            if to > done_to {
                self.region(name, st, &buf[..filled], base, done_to, to)?;
                done_to = to;
            }
            if eof || st.done {
                // A search that needed no more input never meets a read
                // error past its end: GNU would not have read that far.
                return Ok(error.filter(|_| !st.done));
            }
            // Keep what the next region may need: the partial line and the
            // lines before-context may reach back to.
            let mut keep = done_to;
            for _ in 0..self.eff.before.unwrap_or(0) {
                if keep == 0 {
                    break;
                }
                keep = memchr::memrchr(self.terminator, &buf[..keep - 1]).map_or(0, |p| p + 1);
            }
            if let Some(l) = st.lastout {
                keep = keep.max(l.saturating_sub(base) as usize).min(done_to);
            }
            if keep > 0 {
                if self.opts.line_number && st.counted_to < base + keep as u64 {
                    let from = (st.counted_to - base) as usize;
                    st.counted_lines +=
                        memchr::memchr_iter(self.terminator, &buf[from..keep]).count() as u64;
                    st.counted_to = base + keep as u64;
                }
                buf.copy_within(keep..filled, 0);
                filled -= keep;
                done_to -= keep;
                complete = complete.saturating_sub(keep);
                base += keep as u64;
                // A full buffer of one long line grows; otherwise reuse.
            }
        }
    }
}

/// Run grep on a command line.  Returns the exit status.
pub fn run(
    args: &[Vec<u8>],
    env: &GrepEnv,
    system: &mut dyn GrepSystem,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    cfg: &GrepConfig,
    stdout_is_terminal: bool,
) -> i32 {
    let program = env.program.as_str();
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(outcome) => {
            let _ = stderr.write_all(&outcome.stderr);
            if let Err(e) = stdout.write_all(&outcome.stdout) {
                let _ = writeln!(
                    stderr,
                    "{program}: write error: {}",
                    crate::sys::error_text(&e)
                );
                return 2;
            }
            return outcome.status;
        }
    };
    if stdout_is_terminal && opts.color_auto {
        let _ = writeln!(
            stderr,
            "{program}: --color=auto on a terminal is not supported"
        );
        return 2;
    }
    for w in &opts.warnings {
        let _ = writeln!(stderr, "{program}: {w}");
    }
    let patterns = assemble_patterns(&opts.sources, |name| {
        let input = if name == b"-" {
            system.open(None)
        } else {
            system.open(Some(name))
        };
        read_all(input)
    });
    let patterns = match patterns {
        Ok(p) => p,
        Err((name, e)) => {
            diagnose(
                stderr,
                &pattern_file_error(program, &name, &crate::sys::error_text(&e)),
            );
            return 2;
        }
    };
    // Nothing can be selected (`-m0`; only empty `-f` files and no `-v`;
    // `-v` with only empty patterns and neither `-x` nor `-w`): GNU exits
    // before compiling the patterns or reading any input, unless -L has
    // names to print.
    let all_empty = |p: &[Vec<u8>]| p.iter().all(|p| p.is_empty());
    let selects_nothing = match &patterns {
        None => !opts.invert,
        Some(list) => opts.invert && !opts.line && !opts.word && all_empty(&list.patterns),
    };
    if (opts.max_count == Some(0) || selects_nothing)
        && opts.effective(system.stdout_is_dev_null()).list != ListFiles::NonMatching
    {
        return 1;
    }
    let pcfg = PatternConfig {
        syntax: opts.syntax,
        ignore_case: opts.ignore_case,
        word: opts.word && !opts.line,
        line: opts.line,
        locale: env.locale,
        terminator: if opts.null_data { 0 } else { b'\n' },
    };
    let patterns = patterns.unwrap_or_default();
    let matcher = match Matcher::build(&patterns.patterns, &pcfg) {
        Ok((m, warnings)) => {
            for w in &warnings {
                let _ = writeln!(stderr, "{program}: {w}");
            }
            m
        }
        Err(errors) => {
            for e in &errors {
                diagnose(stderr, &patterns.error_line(program, e));
            }
            return 2;
        }
    };
    let eff = opts.effective(system.stdout_is_dev_null());
    let operands = if opts.operands.is_empty() {
        vec![b"-".to_vec()]
    } else {
        opts.operands.clone()
    };
    let with_filename = opts.with_filename.unwrap_or(operands.len() > 1);
    let mut search = Search {
        opts: &opts,
        eff,
        env,
        matcher: &matcher,
        terminator: pcfg.terminator,
        with_filename,
        sink: Sink {
            out: stdout,
            buf: Vec::with_capacity(cfg.write_size.min(1 << 20)),
            write_size: cfg.write_size,
            line_buffered: opts.line_buffered,
        },
        used: false,
        limit: opts.max_count.unwrap_or(u64::MAX),
    };
    match search_all(&mut search, &operands, system, stderr, cfg) {
        Ok(status) => status,
        Err(Stop::Write(e)) => {
            let _ = writeln!(
                stderr,
                "{program}: write error: {}",
                crate::sys::error_text(&e)
            );
            2
        }
        // search_all reports these itself, naming the input.
        Err(Stop::Match(_)) => 2,
    }
}

fn search_all(
    search: &mut Search<'_, '_>,
    operands: &[Vec<u8>],
    system: &mut dyn GrepSystem,
    stderr: &mut dyn Write,
    cfg: &GrepConfig,
) -> Result<i32, Stop> {
    let opts = search.opts;
    let program = search.env.program.as_str();
    let mut matched = false;
    let mut error_seen = false;
    for name in operands {
        let is_stdin = name.as_slice() == b"-";
        let display: Vec<u8> = if is_stdin {
            opts.label
                .clone()
                .unwrap_or_else(|| b"(standard input)".to_vec())
        } else {
            name.clone()
        };
        let diagnose =
            |search: &mut Search, stderr: &mut dyn Write, what: &str| -> Result<(), Stop> {
                if !opts.no_messages {
                    search.sink.flush()?;
                    let _ = writeln!(
                        stderr,
                        "{program}: {}: {what}",
                        String::from_utf8_lossy(&display)
                    );
                }
                Ok(())
            };
        let input = match system.open(if is_stdin { None } else { Some(name) }) {
            Ok(i) => i,
            Err(e) => {
                diagnose(search, stderr, &crate::sys::error_text(&e))?;
                error_seen = true;
                continue;
            }
        };
        if opts.skip_directories && matches!(input, GrepInput::Directory) {
            continue;
        }
        if !is_stdin
            && !search.eff.out_quiet
            && search.eff.list == ListFiles::None
            && opts.max_count.is_none_or(|m| m > 1)
            && system.is_output_file(name)
        {
            diagnose(search, stderr, "input file is also the output")?;
            error_seen = true;
            continue;
        }
        let (st, read_error) = if opts.max_count == Some(0) {
            // GNU reads until it holds a whole line before it finds it
            // has nothing to do: only a failure before that shows.
            let nul_ends_lines = search.binary_rule_applies();
            let error = first_line_read_error(input, search.terminator, nul_ends_lines);
            (FileState::default(), error)
        } else {
            match search.input(&display, input, cfg) {
                Err(Stop::Match(why)) => {
                    // GNU dies here, with what it printed so far.
                    search.sink.flush()?;
                    let shown = String::from_utf8_lossy(&display);
                    let _ = writeln!(stderr, "{program}: {shown}: {}", why.0);
                    return Ok(2);
                }
                other => other?,
            }
        };
        if is_stdin {
            // `-l -L -q` (and /dev/null output) stop where reading stopped,
            // as GNU 3.8 does, whatever `-m` says.
            let reached = !search.eff.done_on_match
                && opts.max_count.is_some_and(|m| m > 0 && st.selected == m);
            system.stdin_done(reached.then_some(st.after_last_selected));
        }
        let read_failed = read_error.is_some();
        if let Some(e) = read_error {
            diagnose(search, stderr, &crate::sys::error_text(&e))?;
            error_seen = true;
        }
        let selected = st.selected;
        if search.eff.count {
            if search.with_filename {
                search.sink.buf.extend_from_slice(&display);
                search
                    .sink
                    .buf
                    .push(if opts.null_after_name { 0 } else { b':' });
            }
            search
                .sink
                .buf
                .extend_from_slice(format!("{selected}\n").as_bytes());
            search.sink.line_done()?;
        }
        let listed = match search.eff.list {
            ListFiles::Matching => selected > 0,
            ListFiles::NonMatching => selected == 0,
            ListFiles::None => false,
        };
        if listed {
            search.sink.buf.extend_from_slice(&display);
            search
                .sink
                .buf
                .push(if opts.null_after_name { 0 } else { b'\n' });
            search.sink.line_done()?;
        }
        let binary_matched = (st.binary_selected
            || (st.encoding_error && opts.binary_files == BinaryFiles::Binary))
            && !search.eff.out_quiet;
        if binary_matched {
            search.sink.flush()?;
            let _ = writeln!(
                stderr,
                "{program}: {}: binary file matches",
                String::from_utf8_lossy(&display)
            );
        }
        if selected > 0 {
            matched = true;
            if opts.quiet {
                search.sink.flush()?;
                return Ok(0);
            }
        }
        // GNU's `finalize_input` (see the spec): without `-l`/`-L`, and
        // unless `-m` was reached, a stdin that stopped short is drained.
        if is_stdin
            && search.eff.list == ListFiles::None
            && opts.max_count != Some(selected)
            && (read_failed || st.done)
        {
            if let Err(e) = system.drain_stdin() {
                diagnose(search, stderr, &crate::sys::error_text(&e))?;
                error_seen = true;
            }
        }
    }
    search.sink.flush()?;
    Ok(if error_seen {
        2
    } else if matched {
        0
    } else {
        1
    })
}

/// With `-m0`, GNU still reads until it holds one whole line (a line ends
/// at `terminator`, or with `nul_ends_lines` at a NUL too), and only then
/// sees it has nothing to do: the error of a read before that, if any.
fn first_line_read_error(
    input: GrepInput,
    terminator: u8,
    nul_ends_lines: bool,
) -> Option<io::Error> {
    let mut reader: Box<dyn Read> = match input {
        GrepInput::Directory => return Some(io::Error::from_raw_os_error(libc::EISDIR)),
        GrepInput::Reader { reader, .. } => reader,
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match crate::io::read_retrying(&mut *reader, &mut buf) {
            Ok(0) => return None,
            Ok(n) => {
                let got = &buf[..n];
                if memchr::memchr(terminator, got).is_some()
                    || (nul_ends_lines && memchr::memchr(0, got).is_some())
                {
                    return None;
                }
            }
            Err(e) => return Some(e),
        }
    }
}

fn read_all(input: io::Result<GrepInput>) -> io::Result<Vec<u8>> {
    match input? {
        GrepInput::Reader { mut reader, .. } => {
            let mut v = Vec::new();
            reader.read_to_end(&mut v)?;
            Ok(v)
        }
        GrepInput::Directory => Err(io::Error::from_raw_os_error(libc::EISDIR)),
    }
}

/// The real system: files, stdin and stdout by descriptor.
pub struct SystemGrep {
    stdout_info: Option<crate::sys::FileInfo>,
    stdout_is_dev_null: bool,
    /// Where the last read of stdin started, when stdin is a regular file.
    stdin_start: Option<u64>,
}

impl SystemGrep {
    pub fn new() -> SystemGrep {
        // A closed stdout is not the /dev/null Rust's start-up code put in
        // its place.
        let stdout_info = match crate::sys::stdout_was_closed() {
            true => None,
            false => crate::sys::fstat(libc::STDOUT_FILENO).ok(),
        };
        let dev_null = crate::sys::stat_path(b"/dev/null").ok();
        let stdout_is_dev_null = match (&stdout_info, dev_null) {
            (Some(out), Some(null)) => out.kind == crate::sys::FileKind::Other && out.id == null.id,
            _ => false,
        };
        if stdout_info.is_some_and(|i| i.kind == crate::sys::FileKind::Fifo) {
            // Room to write ahead of the reader: fewer wake-ups for both.
            crate::sys::grow_pipe(libc::STDOUT_FILENO, PIPE_SIZE);
        }
        SystemGrep {
            stdout_info,
            stdout_is_dev_null,
            stdin_start: None,
        }
    }
}

impl Default for SystemGrep {
    fn default() -> Self {
        SystemGrep::new()
    }
}

impl GrepConfig {
    /// The defaults, with the test hook `SAMEBYTES_GREP_BUFFER` (bytes).
    /// It is an environment variable, not an option, so the command line
    /// stays GNU's.
    pub fn from_env() -> GrepConfig {
        let get = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        let mut cfg = GrepConfig::default();
        if let Some(b) = get("SAMEBYTES_GREP_BUFFER") {
            cfg.buffer = (b as usize).max(1);
        }
        cfg
    }
}

impl GrepSystem for SystemGrep {
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<GrepInput> {
        let input = match name {
            Some(n) => crate::fdinput::FdInput::open(n)?,
            // A closed stdin fails as GNU's read of it does, not as the
            // /dev/null Rust's start-up code put in its place.
            None if crate::sys::stdin_was_closed() => {
                return Err(io::Error::from_raw_os_error(libc::EBADF))
            }
            None => crate::fdinput::FdInput::stdin(),
        };
        let info = input.info()?;
        if info.kind == crate::sys::FileKind::Directory {
            return Ok(GrepInput::Directory);
        }
        let may_block = info.kind != crate::sys::FileKind::Regular;
        if !may_block {
            crate::sys::advise_sequential(input.raw_fd());
            if name.is_none() {
                self.stdin_start = Some(crate::sys::lseek(
                    input.raw_fd(),
                    0,
                    crate::sys::Whence::Cur,
                )?);
            }
        }
        if info.kind == crate::sys::FileKind::Fifo {
            // A bigger pipe lets the writer run ahead: fewer, larger reads
            // and fewer wake-ups on both sides.
            crate::sys::grow_pipe(input.raw_fd(), PIPE_SIZE);
        }
        Ok(GrepInput::Reader {
            reader: Box::new(input),
            may_block,
        })
    }

    fn stdin_done(&mut self, resume_at: Option<u64>) {
        let Some(start) = self.stdin_start.take() else {
            return;
        };
        // As GNU does; a failure leaves stdin where reading left it.
        let _ = match resume_at {
            Some(r) => crate::sys::lseek(
                libc::STDIN_FILENO,
                (start + r) as i64,
                crate::sys::Whence::Set,
            ),
            // GNU seeks to the end only when it stopped before it (a file
            // read to its end, or past it, stays put).
            None => match crate::sys::fstat(libc::STDIN_FILENO) {
                Ok(info)
                    if crate::sys::lseek(libc::STDIN_FILENO, 0, crate::sys::Whence::Cur)
                        .is_ok_and(|at| at < info.size) =>
                {
                    crate::sys::lseek(libc::STDIN_FILENO, 0, crate::sys::Whence::End)
                }
                _ => return,
            },
        };
    }

    fn drain_stdin(&mut self) -> io::Result<()> {
        // A regular file was put at its end by `stdin_done`; a directory
        // has nothing to drain.
        match crate::sys::fstat(libc::STDIN_FILENO) {
            Ok(info) if info.kind == crate::sys::FileKind::Regular => return Ok(()),
            Ok(info) if info.kind == crate::sys::FileKind::Directory => return Ok(()),
            _ => {}
        }
        let mut stdin = crate::fdinput::FdInput::stdin();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn stdout_is_dev_null(&mut self) -> bool {
        self.stdout_is_dev_null
    }

    fn is_output_file(&mut self, name: &[u8]) -> bool {
        match (&self.stdout_info, crate::sys::stat_path(name)) {
            (Some(out), Ok(info)) => out.kind == crate::sys::FileKind::Regular && out.id == info.id,
            _ => false,
        }
    }
}
