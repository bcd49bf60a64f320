//! Reference `cat`, following current GNU coreutils.
//!
//! The rules, from the coreutils manual and `src/cat.c`:
//! - The inputs (operands, `-` or none meaning stdin) are read in order and
//!   their bytes written out as one stream.  All formatting state carries
//!   across files: line numbers continue, a file that ends mid-line is
//!   continued by the next one, blank-line squeezing spans files.
//! - A line is numbered (`%6d\t`, wider past 999999) when its first byte is
//!   written: with `-n` every line, with `-b` (which wins over `-n`) only
//!   lines that are not empty.  An empty line is numbered at its newline.
//! - `-s` drops an empty line that follows an empty line (or the start of
//!   input followed by two newlines: leading blank lines squeeze to one).
//! - `-E` writes `$` before each newline; without `-v` a `\r` directly
//!   before a newline, even across files, is written as `^M`.  A `\r` whose
//!   successor is not yet known is held back, and a held `\r` at the very
//!   end is written at exit.
//! - `-T` writes a tab as `^I`; `-v` writes control bytes as `^X`, DEL as
//!   `^?` and bytes from 128 with an `M-` prefix, except newline and tab.
//! - Errors: a file that cannot be opened or read gets `cat: NAME: reason`,
//!   and cat goes on with the next input; the status becomes 1.  An input
//!   that is the output file is refused (`input file is output file`) when
//!   copying it could never end ([`self_copy_never_ends`]), judged when it
//!   is opened, by what cat has already written to it.
//! - A write error ends cat at once: `cat: write error: reason`, status 1.
//!   GNU writes everything produced for earlier inputs before it opens the
//!   next one (except a held-back `\r`), so a diagnostic is never printed
//!   after output that could not be written.
//!
//! samebytes adds `--read-buffer-size=N` and `--write-buffer-size=N` (bytes,
//! with K, M or G suffixes, from 1 byte to 1G), which change how cat copies
//! but never what it writes, and `--debug`, which reports the copy path on
//! stderr.

use crate::getopt::{self, HasArg, Item, LongOpt, OptionTable, ShortOpt};
use crate::quote::{quote_locale, quotef};
use crate::world::{Node, Reads, World};
use crate::{Errno, Locale, Outcome, StdoutFailure};

/// The process environment that matters to cat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatEnv {
    pub locale: Locale,
    pub posixly_correct: bool,
    /// `argv[0]`, used in every diagnostic.
    pub program: String,
}

impl CatEnv {
    pub fn new(locale: Locale, posixly_correct: bool) -> CatEnv {
        CatEnv {
            locale,
            posixly_correct,
            program: "cat".into(),
        }
    }
}

/// The formatting options, after `-A`, `-e` and `-t` are expanded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Formatting {
    pub number: bool,
    pub number_nonblank: bool,
    pub squeeze_blank: bool,
    pub show_ends: bool,
    pub show_nonprinting: bool,
    pub show_tabs: bool,
}

impl Formatting {
    /// Can the output be longer than the input?  Everything but `-s` (which
    /// only drops bytes) can add bytes.
    pub fn may_lengthen(&self) -> bool {
        self.number || self.show_ends || self.show_nonprinting || self.show_tabs
    }

    /// No option changes the bytes: cat is a plain copy.
    pub fn is_plain(&self) -> bool {
        !(self.number
            || self.squeeze_blank
            || self.show_ends
            || self.show_nonprinting
            || self.show_tabs)
    }
}

/// A parsed cat command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatOptions {
    pub format: Formatting,
    pub read_buffer_size: Option<usize>,
    pub write_buffer_size: Option<usize>,
    pub debug: bool,
    pub operands: Vec<Vec<u8>>,
}

/// Run with these options, or exit at once with this outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    Run(CatOptions),
    Exit(Outcome),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OptId {
    NumberNonblank,
    ShowEndsNonprinting,
    Number,
    SqueezeBlank,
    ShowTabsNonprinting,
    Unbuffered,
    ShowNonprinting,
    ShowAll,
    ShowEnds,
    ShowTabs,
    ReadBufferSize,
    WriteBufferSize,
    Debug,
    Help,
    Version,
}

const fn short(letter: u8, id: OptId) -> ShortOpt<OptId> {
    ShortOpt {
        letter,
        has_arg: HasArg::No,
        id,
    }
}

const fn long(name: &'static str, has_arg: HasArg, id: OptId) -> LongOpt<OptId> {
    LongOpt { name, has_arg, id }
}

const SHORTS: &[ShortOpt<OptId>] = &[
    short(b'b', OptId::NumberNonblank),
    short(b'e', OptId::ShowEndsNonprinting),
    short(b'n', OptId::Number),
    short(b's', OptId::SqueezeBlank),
    short(b't', OptId::ShowTabsNonprinting),
    short(b'u', OptId::Unbuffered),
    short(b'v', OptId::ShowNonprinting),
    short(b'A', OptId::ShowAll),
    short(b'E', OptId::ShowEnds),
    short(b'T', OptId::ShowTabs),
];

/// GNU's table order (it decides the order of "possibilities" in the
/// ambiguity message), then samebytes' own options.
const LONGS: &[LongOpt<OptId>] = &[
    long("number-nonblank", HasArg::No, OptId::NumberNonblank),
    long("number", HasArg::No, OptId::Number),
    long("squeeze-blank", HasArg::No, OptId::SqueezeBlank),
    long("show-nonprinting", HasArg::No, OptId::ShowNonprinting),
    long("show-ends", HasArg::No, OptId::ShowEnds),
    long("show-tabs", HasArg::No, OptId::ShowTabs),
    long("show-all", HasArg::No, OptId::ShowAll),
    long("help", HasArg::No, OptId::Help),
    long("version", HasArg::No, OptId::Version),
    long("read-buffer-size", HasArg::Required, OptId::ReadBufferSize),
    long(
        "write-buffer-size",
        HasArg::Required,
        OptId::WriteBufferSize,
    ),
    long("debug", HasArg::No, OptId::Debug),
];

/// The options this parser accepts, by name (for the manual page).
pub fn option_names() -> crate::getopt::OptionNames {
    crate::getopt::OptionNames::of::<OptId>(SHORTS, LONGS)
}

/// The largest buffer size either option accepts.
pub const MAX_BUFFER_SIZE: usize = 1 << 30;

/// The `--help` text.
pub fn help_text(program: &str) -> String {
    format!(
        "Usage: {program} [OPTION]... [FILE]...\n{HELP_BODY}\
Examples:
  {program} f - g  Output f's contents, then standard input, then g's contents.
  {program}        Copy standard input to standard output.

samebytes cat: a drop-in for GNU coreutils cat; see docs/differences.md.
"
    )
}

const HELP_BODY: &str = "\
Concatenate FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input.

  -A, --show-all           equivalent to -vET
  -b, --number-nonblank    number nonempty output lines, overrides -n
  -e                       equivalent to -vE
  -E, --show-ends          display $ at end of each line
  -n, --number             number all output lines
  -s, --squeeze-blank      suppress repeated empty output lines
  -t                       equivalent to -vT
  -T, --show-tabs          display TAB characters as ^I
  -u                       (ignored)
  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB
      --read-buffer-size=N   read N bytes at a time when copying through
                             memory (K, M, G suffixes; 1 to 1G)
      --write-buffer-size=N  write N bytes at a time when copying through
                             memory (K, M, G suffixes; 1 to 1G)
      --debug        report on stderr how each input was copied
      --help        display this help and exit
      --version     output version information and exit

";

fn exit_with(stdout: Vec<u8>, stderr: String, status: i32) -> Invocation {
    Invocation::Exit(Outcome::new(stdout, stderr.into_bytes(), status))
}

/// Parse a buffer size: decimal digits, then optionally `K`, `M` or `G`
/// (powers of 1024, also written `KiB`, `MiB`, `GiB`).
pub fn parse_buffer_size(arg: &[u8]) -> Result<usize, BufferSizeError> {
    let digits = arg.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return Err(BufferSizeError::Invalid);
    }
    let scale: u64 = match &arg[digits..] {
        b"" => 1,
        b"K" | b"k" | b"KiB" => 1 << 10,
        b"M" | b"MiB" => 1 << 20,
        b"G" | b"GiB" => 1 << 30,
        _ => return Err(BufferSizeError::Invalid),
    };
    let mut value: u64 = 0;
    for &d in &arg[..digits] {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .ok_or(BufferSizeError::TooLarge)?;
    }
    let bytes = value.checked_mul(scale).ok_or(BufferSizeError::TooLarge)?;
    if bytes == 0 {
        Err(BufferSizeError::Invalid)
    } else if bytes > MAX_BUFFER_SIZE as u64 {
        Err(BufferSizeError::TooLarge)
    } else {
        Ok(bytes as usize)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSizeError {
    Invalid,
    TooLarge,
}

/// Parse a cat command line (without the program name).
pub fn parse_args(args: &[Vec<u8>], env: &CatEnv) -> Invocation {
    let table = OptionTable {
        shorts: SHORTS,
        longs: LONGS,
    };
    let (items, error) = getopt::parse(&env.program, args, &table, env.posixly_correct);
    let program = &env.program;
    let mut opts = CatOptions::default();
    let f = &mut opts.format;
    // Options act in command-line order, as in GNU's getopt loop.
    for item in items {
        let (id, arg) = match item {
            Item::Operand(o) => {
                opts.operands.push(o);
                continue;
            }
            Item::Opt { id, arg } => (id, arg),
        };
        match id {
            OptId::NumberNonblank => {
                f.number = true;
                f.number_nonblank = true;
            }
            OptId::ShowEndsNonprinting => {
                f.show_ends = true;
                f.show_nonprinting = true;
            }
            OptId::Number => f.number = true,
            OptId::SqueezeBlank => f.squeeze_blank = true,
            OptId::ShowTabsNonprinting => {
                f.show_tabs = true;
                f.show_nonprinting = true;
            }
            OptId::Unbuffered => {}
            OptId::ShowNonprinting => f.show_nonprinting = true,
            OptId::ShowAll => {
                f.show_nonprinting = true;
                f.show_ends = true;
                f.show_tabs = true;
            }
            OptId::ShowEnds => f.show_ends = true,
            OptId::ShowTabs => f.show_tabs = true,
            OptId::ReadBufferSize | OptId::WriteBufferSize => {
                let which = if id == OptId::ReadBufferSize {
                    "read"
                } else {
                    "write"
                };
                let value = arg.unwrap_or_default();
                let quoted =
                    String::from_utf8_lossy(&quote_locale(&value, env.locale)).into_owned();
                match parse_buffer_size(&value) {
                    Ok(n) if id == OptId::ReadBufferSize => opts.read_buffer_size = Some(n),
                    Ok(n) => opts.write_buffer_size = Some(n),
                    Err(BufferSizeError::Invalid) => {
                        return exit_with(
                            Vec::new(),
                            format!("{program}: invalid {which} buffer size: {quoted}\n"),
                            1,
                        )
                    }
                    Err(BufferSizeError::TooLarge) => {
                        return exit_with(
                            Vec::new(),
                            format!(
                                "{program}: {which} buffer size too large: {quoted} (the limit is 1G)\n"
                            ),
                            1,
                        )
                    }
                }
            }
            OptId::Debug => opts.debug = true,
            OptId::Help => return exit_with(help_text(program).into_bytes(), String::new(), 0),
            OptId::Version => {
                return exit_with(crate::version_text("cat").into_bytes(), String::new(), 0)
            }
        }
    }
    if let Some(message) = error {
        let try_help = format!("Try '{program} --help' for more information.\n");
        return Invocation::Exit(Outcome::new(
            Vec::new(),
            [message, try_help.into_bytes()].concat(),
            1,
        ));
    }
    Invocation::Run(opts)
}

/// Append the `-v` rendering of one byte that is not a newline.
pub fn show_nonprinting(b: u8, show_tabs: bool, out: &mut Vec<u8>) {
    let (meta, low) = if b >= 128 {
        (true, b - 128)
    } else {
        (false, b)
    };
    if meta {
        out.extend_from_slice(b"M-");
    }
    match low {
        b'\t' if !meta && !show_tabs => out.push(b'\t'),
        0..=31 => out.extend_from_slice(&[b'^', low + 64]),
        127 => out.extend_from_slice(b"^?"),
        _ => out.push(low),
    }
}

/// The formatting state machine, fed one byte at a time.  It carries over
/// from one input to the next.
#[derive(Clone, Debug)]
pub struct Formatter {
    opts: Formatting,
    /// Are we at the start of a line?
    at_line_start: bool,
    /// Was the last line written an empty one (for `-s`)?  The start of
    /// input counts as following a non-empty line.
    after_empty_line: bool,
    /// The last line number written.
    line_number: u64,
    /// A `\r` held back under `-E` until the next byte shows whether it
    /// ends a line.
    held_cr: bool,
}

impl Formatter {
    pub fn new(opts: Formatting) -> Formatter {
        Formatter {
            opts,
            at_line_start: true,
            after_empty_line: false,
            line_number: 0,
            held_cr: false,
        }
    }

    fn write_number(&mut self, out: &mut Vec<u8>) {
        self.line_number += 1;
        out.extend_from_slice(format!("{:>6}\t", self.line_number).as_bytes());
    }

    pub fn push(&mut self, b: u8, out: &mut Vec<u8>) {
        let o = self.opts;
        if b == b'\n' {
            if self.at_line_start {
                // An empty line.
                if o.squeeze_blank && self.after_empty_line {
                    return;
                }
                self.after_empty_line = true;
                if o.number && !o.number_nonblank {
                    self.write_number(out);
                }
            }
            if o.show_ends {
                if std::mem::take(&mut self.held_cr) {
                    out.extend_from_slice(b"^M");
                }
                out.push(b'$');
            }
            out.push(b'\n');
            self.at_line_start = true;
            return;
        }
        if std::mem::take(&mut self.held_cr) {
            out.push(b'\r');
        }
        if self.at_line_start {
            self.after_empty_line = false;
            if o.number {
                self.write_number(out);
            }
            self.at_line_start = false;
        }
        if o.show_nonprinting {
            show_nonprinting(b, o.show_tabs, out);
        } else if b == b'\t' && o.show_tabs {
            out.extend_from_slice(b"^I");
        } else if b == b'\r' && o.show_ends {
            self.held_cr = true;
        } else {
            out.push(b);
        }
    }

    /// Bytes written at exit: a `\r` still held back.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if std::mem::take(&mut self.held_cr) {
            out.push(b'\r');
        }
    }
}

/// Where stdout goes, as far as it matters to cat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CatStdout {
    /// A pipe, terminal or device.
    #[default]
    Stream,
    /// The regular file of this name in the world, opened for appending
    /// (`>` is a file that was empty).  Writes to it never fail.
    File(Vec<u8>),
    /// The regular file of this name, opened for reading and writing at
    /// its start without truncating it (`1<>NAME`): cat's output overwrites
    /// it from the first byte.  Writes to it never fail.
    Overwrite(Vec<u8>),
    /// A regular file that is none of the inputs.  Writes to it may fail;
    /// a failure is a write error whichever kernel path met it (GNU's
    /// `copy_cat` blames the input instead: docs/differences.md).
    Regular,
    /// Descriptor 1 is not open (`>&-`): cat's `fstat` of it fails before
    /// anything is read; `--help` meets a failing write instead.
    Closed,
}

impl CatStdout {
    /// If stdout is the file `name`, what it holds after cat has written
    /// `written` to it.
    fn file_named(&self, name: &[u8], world: &World, written: &[u8]) -> Option<Vec<u8>> {
        let (CatStdout::File(f) | CatStdout::Overwrite(f)) = self else {
            return None;
        };
        if f != name {
            return None;
        }
        let initial = match world.lookup(name) {
            Ok(Node::Regular(d)) => d.clone(),
            _ => Vec::new(),
        };
        Some(self.after_writing(initial, written))
    }

    /// What the output file holds once `written` has gone to it, starting
    /// from `initial`: appended, or laid over it from its start.
    pub fn after_writing(&self, mut initial: Vec<u8>, written: &[u8]) -> Vec<u8> {
        if let CatStdout::Overwrite(_) = self {
            let kept = initial.len().min(written.len());
            initial[..kept].copy_from_slice(&written[..kept]);
            initial.extend_from_slice(&written[kept..]);
        } else {
            initial.extend_from_slice(written);
        }
        initial
    }

    /// Where the next write to the output file lands: its end when
    /// appending, else just after what was written.
    fn write_offset(&self, now: &[u8], written: &[u8]) -> usize {
        match self {
            CatStdout::Overwrite(_) => written.len(),
            _ => now.len(),
        }
    }
}

/// Current GNU's rule (coreutils 9.6) for an input that is the output file:
/// refuse it only when the copy could never end, which is when the writer
/// is ahead of the reader (`read_at < write_at`; appending, the writer is
/// at the end).  Each read then finds bytes this copy wrote, and the file
/// grows as fast as it is read.  With the writer at or behind the reader,
/// every write lands on bytes already read, so the copy ends where the
/// file did.
///
/// samebytes adds one case (docs/differences.md, `formatted-self-copy`):
/// when the formatting can make the output longer than the input, a
/// writer that starts level with the reader overtakes it, and what it then
/// reads depends on how the reads and writes were cut: so with such
/// options any unread byte (`read_at < size`) is refused too, as 9.1
/// refused it.
pub fn self_copy_never_ends(
    read_at: usize,
    size: usize,
    write_at: usize,
    format: Formatting,
) -> bool {
    read_at < write_at || (format.may_lengthen() && read_at < size)
}

/// Run cat on a command line against a world.
pub fn cat(
    args: &[Vec<u8>],
    env: &CatEnv,
    world: &World,
    stdout: &CatStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Outcome {
    cat_with(args, env, world, stdout, stdout_failure).0
}

/// [`cat`] at each pause of `world`'s stdin (`World::stdin_pauses`): the
/// bytes that had come are formatted and written, but for a `\r` held
/// back under `-E` (what follows decides how it shows, as GNU's
/// `pending_cr`), and cat waits for more; or it has exited (it never
/// reads stdin, or a write failed).
pub fn cat_at_pauses(
    args: &[Vec<u8>],
    env: &CatEnv,
    world: &World,
    stdout: &CatStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Vec<crate::Decided> {
    let decided = |at: usize| {
        let paused = world.at_pause(at);
        let (outcome, waits) = cat_with(args, env, &paused, stdout, stdout_failure);
        crate::Decided {
            at,
            outcome,
            exited: !waits,
        }
    };
    world.stdin_pauses().into_iter().map(decided).collect()
}

/// [`cat`], and whether it waits at a pause of stdin instead of exiting.
fn cat_with(
    args: &[Vec<u8>],
    env: &CatEnv,
    world: &World,
    stdout: &CatStdout,
    stdout_failure: Option<StdoutFailure>,
) -> (Outcome, bool) {
    let (mut outcome, waits) = cat_until_exit(args, env, world, stdout, stdout_failure);
    // At exit stdout is closed, after a write error too (cat reports
    // write errors itself, and stdio's own stdout was never written):
    // one message more when closing fails.  A stdout that was never open
    // fails to close with EBADF, which GNU ignores.
    if !waits && *stdout != CatStdout::Closed {
        outcome.close_at_exit(&env.program, world, 1);
    }
    (outcome, waits)
}

/// [`cat_with`] up to the exit: the outcome, and whether cat waits at a
/// pause of stdin instead.
fn cat_until_exit(
    args: &[Vec<u8>],
    env: &CatEnv,
    world: &World,
    stdout: &CatStdout,
    stdout_failure: Option<StdoutFailure>,
) -> (Outcome, bool) {
    let failure = match stdout {
        CatStdout::Stream | CatStdout::Regular => stdout_failure,
        CatStdout::File(_) | CatStdout::Overwrite(_) => None,
        CatStdout::Closed => Some(StdoutFailure {
            limit: 0,
            errno: Errno::BadDescriptor,
        }),
    };
    let program = &env.program;
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(mut outcome) => {
            if outcome.clip_stdout(failure) {
                let what = failure.map(|f| f.errno.message()).unwrap_or_default();
                outcome.diagnose(format!("{program}: write error: {what}\n").as_bytes());
                outcome.status = 1;
            }
            return (outcome, false);
        }
    };
    let mut out = Outcome::default();
    if *stdout == CatStdout::Closed {
        let what = Errno::BadDescriptor.message();
        out.diagnose(format!("{program}: standard output: {what}\n").as_bytes());
        out.status = 1;
        return (out, false);
    }
    let mut reads = Reads::new(world);
    let mut formatter = Formatter::new(opts.format);
    let operands = if opts.operands.is_empty() {
        vec![b"-".to_vec()]
    } else {
        opts.operands.clone()
    };

    // Has a write failed by now?  Then cat has already stopped.
    let write_failed = |out: &mut Outcome| -> bool {
        if !out.clip_stdout(failure) {
            return false;
        }
        let what = failure.map(|f| f.errno.message()).unwrap_or_default();
        out.diagnose(format!("{program}: write error: {what}\n").as_bytes());
        out.status = 1;
        true
    };
    let message = |name: &[u8], what: &str| {
        let name = String::from_utf8_lossy(&quotef(name, env.locale)).into_owned();
        format!("{program}: {name}: {what}\n").into_bytes()
    };
    let diagnose = |out: &mut Outcome, name: &[u8], what: &str| {
        out.diagnose(&message(name, what));
        out.status = 1;
    };

    for name in &operands {
        // Everything produced so far has been written before this input is
        // opened.
        if write_failed(&mut out) {
            return (out, false);
        }
        let read = if name.as_slice() == b"-" {
            // Described before it is read: one that cannot be is not read.
            match world.stdin_undescribed() {
                true => Err(Errno::Io),
                false => Ok(reads.read_stdin()),
            }
        } else if let Some(now) = stdout.file_named(name, world, &out.stdout) {
            // The output file itself, opened afresh: reading starts at its
            // first byte, and it now holds what cat has written to it.
            if self_copy_never_ends(
                0,
                now.len(),
                stdout.write_offset(&now, &out.stdout),
                opts.format,
            ) {
                diagnose(&mut out, name, "input file is output file");
                continue;
            }
            Ok((now, None))
        } else {
            reads.read_named_described(name)
        };
        match read {
            Err(e) => diagnose(&mut out, name, e.message()),
            Ok((data, error)) => {
                let before = out.stdout.len();
                if opts.format.is_plain() {
                    out.stdout.extend_from_slice(&data);
                } else {
                    for &b in &data {
                        formatter.push(b, &mut out.stdout);
                    }
                }
                // A plain copy writes every block it read before reading
                // the next, so output that fails before the read error
                // stops cat before that error is met.
                if error.is_some() && opts.format.is_plain() && write_failed(&mut out) {
                    return (out, false);
                }
                if reads.stdin_open() {
                    // Waiting for more, with what came written.
                    let failed = write_failed(&mut out);
                    return (out, !failed);
                }
                match error {
                    // GNU reports a read error, then writes what formatting
                    // still held in its output buffer: the message falls
                    // somewhere in this input's output (docs/differences.md).
                    Some(e) if !opts.format.is_plain() => {
                        let at = out.stdout.len();
                        out.diagnose_between(&message(name, e.message()), before, at);
                        out.status = 1;
                    }
                    Some(e) => diagnose(&mut out, name, e.message()),
                    None => {}
                }
            }
        }
    }
    formatter.finish(&mut out.stdout);
    if write_failed(&mut out) {
        return (out, false);
    }
    // GNU closes stdin at the end if it read it, and reports a failure.
    if world.stdin_closed() && operands.iter().any(|o| o.as_slice() == b"-") {
        let what = Errno::BadDescriptor.message();
        out.diagnose(format!("{program}: closing standard input: {what}\n").as_bytes());
        out.status = 1;
    }
    (out, false)
}
