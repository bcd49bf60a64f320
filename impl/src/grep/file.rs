//! One item of the walk, start to finish: open it, check it is not the
//! output, search it, then its count, its `-l`/`-L` line and its
//! messages.  The same code runs on the thread that prints (one thread,
//! stdin, devices) and on the search threads (`ordered.rs`), whose output
//! waits in order.

use std::io::{self, Write};
use std::sync::OnceLock;

use samebytes_spec::grep::{BinaryFiles, Effective, GrepEnv, GrepOptions, ListFiles};

use super::matcher::Undecided;
use super::paint::{painted, Ink, Palette};
use super::search::{FileState, Search};
use super::sink::Stop;
use super::system::{GrepFiles, GrepInput, GrepSystem, OpenFlags};
use super::walk::Item;
use super::GrepConfig;

/// What every thread of one run shares.
pub(super) struct RunContext<'a> {
    pub(super) opts: &'a GrepOptions,
    pub(super) env: &'a GrepEnv,
    pub(super) eff: Effective,
    pub(super) files: &'a dyn GrepFiles,
    /// How one input is searched (with one thread or two).
    pub(super) cfg: GrepConfig,
    /// Whether lines are prefixed with names (see [`super::walk::Walker`]).
    pub(super) with_filename: OnceLock<bool>,
    /// `--color`'s sequences, when output is coloured.
    pub(super) palette: Option<Palette>,
    /// Output goes out a line at a time: `--line-buffered`, or stdout is
    /// a terminal, whose output GNU's stdio buffers by line.
    pub(super) line_buffered: bool,
}

/// How an item ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ItemEnd {
    /// On to the next: did it select a line, was there an error.
    Next { selected: bool, error: bool },
    /// grep exits now with this status (`-q` matched; `-P` died).
    Exit(i32),
}

const SKIPPED: ItemEnd = ItemEnd::Next {
    selected: false,
    error: false,
};

impl Search<'_, '_> {
    /// One item; `system` (stdin's) only on the thread that prints.
    pub(super) fn item(
        &mut self,
        item: Item,
        ctx: &RunContext,
        stderr: &mut dyn Write,
        system: Option<&dyn GrepSystem>,
    ) -> Result<ItemEnd, Stop> {
        match item {
            Item::Note { text, error } => {
                if !text.is_empty() {
                    self.sink.flush()?;
                    let _ = stderr.write_all(&text);
                }
                Ok(ItemEnd::Next {
                    selected: false,
                    error,
                })
            }
            Item::File {
                name,
                opened,
                dir,
                leaf,
            } => {
                let how = OpenFlags {
                    follow: ctx.opts.dereference,
                    nonblocking: false,
                };
                let opened = opened
                    .unwrap_or_else(|| ctx.files.open_entry(dir.as_deref(), &name, leaf, how));
                self.named(&name, opened, ctx, stderr)
            }
            Item::Device {
                name,
                follow,
                skipped,
            } => {
                let how = OpenFlags {
                    follow,
                    nonblocking: false,
                };
                match ctx.files.open(&name, how) {
                    Ok(_) if skipped => Ok(SKIPPED),
                    opened => self.named(&name, opened, ctx, stderr),
                }
            }
            Item::Stdin => {
                let system = system.expect("stdin is searched by the thread that prints");
                self.stdin(ctx, stderr, system)
            }
        }
    }

    /// Report a problem with an input (not with `-s`), after the output
    /// before it.
    fn diagnose(&mut self, stderr: &mut dyn Write, name: &[u8], what: &str) -> Result<(), Stop> {
        if !self.opts.no_messages {
            self.diagnose_always(stderr, name, what)?;
        }
        Ok(())
    }

    fn named(
        &mut self,
        name: &[u8],
        opened: io::Result<GrepInput>,
        ctx: &RunContext,
        stderr: &mut dyn Write,
    ) -> Result<ItemEnd, Stop> {
        self.with_filename = ctx.with_filename.get().copied().unwrap_or(false);
        let input = match opened {
            Ok(input) => input,
            Err(e) => {
                self.diagnose(stderr, name, &crate::sys::error_text(&e))?;
                return Ok(ItemEnd::Next {
                    selected: false,
                    error: true,
                });
            }
        };
        let checks_output = !self.eff.out_quiet
            && self.eff.list == ListFiles::None
            && self.opts.max_count.is_none_or(|m| m > 1);
        if checks_output && ctx.files.is_output_file(name) {
            self.diagnose(stderr, name, "input file is also the output")?;
            return Ok(ItemEnd::Next {
                selected: false,
                error: true,
            });
        }
        let (end, _) = self.opened(name, input, &ctx.cfg, stderr)?;
        Ok(end)
    }

    /// The `-` operand: stdin, never skipped.
    fn stdin(
        &mut self,
        ctx: &RunContext,
        stderr: &mut dyn Write,
        system: &dyn GrepSystem,
    ) -> Result<ItemEnd, Stop> {
        let label = self.opts.label.as_deref();
        let display = label.unwrap_or(b"(standard input)").to_vec();
        let input = match system.open_stdin() {
            Ok(input) => input,
            Err(e) => {
                self.diagnose(stderr, &display, &crate::sys::error_text(&e))?;
                return Ok(ItemEnd::Next {
                    selected: false,
                    error: true,
                });
            }
        };
        let is_dir = matches!(input, GrepInput::Directory);
        self.with_filename = *ctx.with_filename.get_or_init(|| is_dir);
        let (end, st) = self.opened(&display, input, &ctx.cfg, stderr)?;
        if end == ItemEnd::Exit(2) {
            // GNU died in the search: stdin stays where reading left it.
            return Ok(end);
        }
        // `-l -L -q` (and /dev/null output) stop where reading stopped,
        // as GNU 3.8 does, whatever `-m` says.
        let reached = !self.eff.done_on_match
            && self
                .opts
                .max_count
                .is_some_and(|m| m > 0 && st.selected == m);
        system.stdin_done(reached.then_some(st.after_last_selected));
        let ItemEnd::Next { selected, .. } = end else {
            return Ok(end);
        };
        // GNU's `finalize_input` (see the spec): without `-l`/`-L`, and
        // unless `-m` was reached, a stdin that stopped short is drained.
        let drains = self.eff.list == ListFiles::None
            && self.opts.max_count != Some(st.selected)
            && (st.read_failed || st.done);
        if drains {
            // The drain may wait for the writer: what this input printed
            // goes out first.
            self.sink.flush_through()?;
            if let Err(e) = system.drain_stdin() {
                self.diagnose(stderr, &display, &crate::sys::error_text(&e))?;
                return Ok(ItemEnd::Next {
                    selected,
                    error: true,
                });
            }
        }
        Ok(end)
    }

    /// Search an opened input, then print its count, its `-l`/`-L` line
    /// and its messages.
    fn opened(
        &mut self,
        display: &[u8],
        input: GrepInput,
        cfg: &GrepConfig,
        stderr: &mut dyn Write,
    ) -> Result<(ItemEnd, FileState), Stop> {
        self.width = number_width(input.size(), self.opts.line_number);
        let (mut st, read_error) = if self.opts.max_count == Some(0) {
            // GNU reads until it holds a whole line before it finds it
            // has nothing to do: only a failure before that shows.
            let nul_ends_lines = self.binary_rule_applies();
            let sink = &mut self.sink;
            let error = first_line_read_error(input, self.terminator, nul_ends_lines, &mut || {
                sink.flush_through()
            })?;
            (FileState::default(), error)
        } else {
            match self.input(display, input, cfg) {
                Err(Stop::Match(why)) => {
                    // GNU dies here, with what it printed so far.
                    match why {
                        Undecided::Pcre(f) => self.diagnose_always(stderr, display, &f.0)?,
                        Undecided::MemoryExhausted => self.die(stderr, "memory exhausted")?,
                    }
                    return Ok((ItemEnd::Exit(2), FileState::default()));
                }
                other => other?,
            }
        };
        let mut error = false;
        if let Some(e) = read_error {
            st.read_failed = true;
            self.diagnose(stderr, display, &crate::sys::error_text(&e))?;
            error = true;
        }
        let selected = st.selected;
        if self.eff.count {
            if self.with_filename {
                let out = &mut self.sink.buf;
                painted(out, self.palette, Ink::FileName, display);
                match self.opts.null_after_name {
                    true => out.push(0),
                    false => painted(out, self.palette, Ink::Separator, b":"),
                }
            }
            super::output::push_decimal(&mut self.sink.buf, selected);
            self.sink.buf.push(b'\n');
            self.sink.line_done()?;
        }
        let listed = match self.eff.list {
            ListFiles::Matching => selected > 0,
            ListFiles::NonMatching => selected == 0,
            ListFiles::None => false,
        };
        if listed {
            painted(&mut self.sink.buf, self.palette, Ink::FileName, display);
            let end = if self.opts.null_after_name { 0 } else { b'\n' };
            self.sink.line(&[], end)?;
        }
        let binary_matched = (st.binary_selected
            || (st.encoding_error && self.opts.binary_files == BinaryFiles::Binary))
            && !self.eff.out_quiet;
        if binary_matched {
            self.diagnose_always(stderr, display, "binary file matches")?;
        }
        if selected > 0 && self.opts.quiet {
            self.sink.flush()?;
            return Ok((ItemEnd::Exit(0), st));
        }
        let end = ItemEnd::Next {
            selected: selected > 0,
            error,
        };
        Ok((end, st))
    }

    /// A message `-s` does not silence.
    fn diagnose_always(
        &mut self,
        stderr: &mut dyn Write,
        name: &[u8],
        what: &str,
    ) -> Result<(), Stop> {
        let name = String::from_utf8_lossy(name);
        self.die(stderr, &format!("{name}: {what}"))
    }

    /// A message that names no file, whatever `-s` says (GNU's `die`).
    fn die(&mut self, stderr: &mut dyn Write, what: &str) -> Result<(), Stop> {
        self.sink.flush()?;
        let program = self.env.program.as_str();
        // One write: a search thread's message is one piece of its slot,
        // never cut by a run that ends while it is written.
        let text = format!("{program}: {what}\n");
        let _ = stderr.write_all(text.as_bytes());
        Ok(())
    }
}

/// `-T`'s width for line numbers and offsets: the digits of the file's
/// size (one more with `-n`, as line numbers count from 1), or of the
/// largest `intmax_t` when the input has no size (a pipe).
fn number_width(size: Option<u64>, line_number: bool) -> usize {
    let widest = i64::MAX as u64;
    let n = size
        .filter(|&s| s < widest)
        .map_or(widest, |s| s + u64::from(line_number));
    let mut digits = 1;
    let mut rest = n / 10;
    while rest > 0 {
        digits += 1;
        rest /= 10;
    }
    digits
}

/// With `-m0`, GNU still reads until it holds one whole line (a line ends
/// at `terminator`, or with `nul_ends_lines` at a NUL too), and only then
/// sees it has nothing to do: the error of a read before that, if any.
/// Before a read that would wait, `before_wait` writes what came before.
fn first_line_read_error(
    input: GrepInput,
    terminator: u8,
    nul_ends_lines: bool,
    before_wait: &mut dyn FnMut() -> Result<(), Stop>,
) -> Result<Option<io::Error>, Stop> {
    let mut reader = match input.into_reader() {
        Ok(Some(reader)) => reader,
        Ok(None) => return Ok(Some(io::Error::from_raw_os_error(libc::EISDIR))),
        Err(e) => return Ok(Some(e)),
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if reader.paused() {
            before_wait()?;
        }
        match crate::io::read_retrying(&mut *reader, &mut buf) {
            Ok(0) => return Ok(None),
            Ok(n) => {
                let got = &buf[..n];
                if memchr::memchr(terminator, got).is_some()
                    || (nul_ends_lines && memchr::memchr(0, got).is_some())
                {
                    return Ok(None);
                }
            }
            Err(e) => return Ok(Some(e)),
        }
    }
}
