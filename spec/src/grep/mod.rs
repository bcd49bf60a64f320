//! Reference `grep`, following GNU grep 3.x.
//!
//! The input is split into lines (ended by `\n`, or `\0` with `-z`; a last
//! line without a terminator is still a line and is printed with one).
//! Each line is matched on its own, and selected when it matches (or, with
//! `-v`, when it does not).  From the GNU grep manual and `src/grep.c`:
//! - Output: a selected line is printed with `NAME:`, `NUM:` and `OFFSET:`
//!   prefixes as asked (`-H`/several files, `-n`, `-b`); context lines use
//!   `-`.  `-Z` puts a NUL after the name instead of the separator.  `-o`
//!   prints each non-empty match instead of the line (leftmost-longest,
//!   searching on after each match; an empty match moves on one byte).
//! - Context: `-B N` lines before and `-A N` after each selected line.  A
//!   group that does not follow on from the last line printed, in this or
//!   an earlier file, is preceded by the group separator (`--`) when any
//!   context was asked for (`-C0` too).  With `-o` context lines print
//!   nothing but still count as printed.
//! - `-m N` stops after N selected lines; the `-A` lines after the last one
//!   are still printed, as context, whether or not they match.  `-m 0`
//!   exits at once with status 1, except with `-L`.  When stdin is a
//!   regular file and N lines were selected from it, it is left just after
//!   the last one (a later `-` operand reads on from there).
//! - `-o` prints the matches of matching lines: the selected ones, or with
//!   `-v` the context ones (as `NAME-NUM-match`).
//! - `-c` prints a count per file; `-l`/`-L` list files with/without a
//!   selected line; `-q` exits 0 at the first selected line.  `-q`
//!   overrides `-l`/`-L`, which override `-c`; the last of `-l`/`-L` wins.
//! - Binary input (docs/differences.md): unless `-a`, and not with `-z`, an
//!   input is binary from the start of the line holding its first NUL, or
//!   from its start if that NUL is in the first 32 KiB (where GNU, which
//!   reads 32 KiB first, agrees on every input).  From that point NULs also
//!   end lines, nothing is printed, and the first selected line ends the
//!   file (unless `-c`); if any line was selected there, `grep: NAME:
//!   binary file matches` goes to stderr after the file.  With
//!   `--binary-files=without-match` the input ends at that point.
//! - In the UTF-8 locale, unless `-a`, a line (with `-o`, a match) that is
//!   not valid UTF-8 is not printed; the rest of the line's matches are
//!   dropped, and the file ends with the same message.
//! - Errors: a file that cannot be read gets `grep: NAME: reason` (not with
//!   `-s`) and status 2 at the end, unless `-q` found a line.  A read error
//!   partway through ends the input after its last whole line: the line it
//!   cut short is not searched.  A search that needed no more input before
//!   that point (see `FileResult::ended_early`) never meets the error.  A write
//!   error ends grep at once: `grep: write error: reason`, status 2.
//!   Diagnostics written before the failing write stay.

pub mod chars;
pub mod matcher;
pub mod perl;
pub mod syntax;

use crate::getopt::{self, argmatch, HasArg, Item, LongOpt, OptionTable, ShortOpt};
use crate::world::{Node, Reads, StdinLeft, World};
use crate::{Errno, Locale, Outcome, StdoutFailure};
use matcher::{Compiled, Matcher};
pub use syntax::{CompileError, PatternConfig, Syntax};

/// The process environment that matters to grep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepEnv {
    pub locale: Locale,
    pub posixly_correct: bool,
    /// `argv[0]`, used in every diagnostic.
    pub program: String,
}

impl GrepEnv {
    pub fn new(locale: Locale) -> GrepEnv {
        GrepEnv {
            locale,
            posixly_correct: false,
            program: "grep".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BinaryFiles {
    #[default]
    Binary,
    Text,
    WithoutMatch,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ListFiles {
    #[default]
    None,
    Matching,
    NonMatching,
}

/// Where the patterns come from, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternSource {
    /// `-e PATTERNS`.
    Expr(Vec<u8>),
    /// `-f FILE` (`-` is stdin).
    File(Vec<u8>),
}

/// A parsed grep command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GrepOptions {
    pub syntax: Syntax,
    /// `-e`/`-f`; when empty, the first operand was the pattern.
    pub sources: Vec<PatternSource>,
    pub ignore_case: bool,
    pub invert: bool,
    pub word: bool,
    pub line: bool,
    pub count: bool,
    pub list: ListFiles,
    /// `None`: no limit (also for a negative `-m`).
    pub max_count: Option<u64>,
    pub only_matching: bool,
    pub quiet: bool,
    pub no_messages: bool,
    pub byte_offset: bool,
    pub line_number: bool,
    /// `-H`/`-h`; `None` leaves it to the number of operands.
    pub with_filename: Option<bool>,
    pub label: Option<Vec<u8>>,
    pub null_after_name: bool,
    pub null_data: bool,
    pub before: Option<u64>,
    pub after: Option<u64>,
    /// `None` with `--no-group-separator`.
    pub group_separator: Option<Vec<u8>>,
    pub binary_files: BinaryFiles,
    pub skip_directories: bool,
    pub line_buffered: bool,
    /// `--color=auto`: no color unless stdout is a terminal, where the
    /// binary refuses it.
    pub color_auto: bool,
    /// Warnings GNU prints while parsing options (`-u`).
    pub warnings: Vec<String>,
    pub operands: Vec<Vec<u8>>,
}

impl GrepOptions {
    /// The settings GNU derives from the options (`main` after getopt).
    /// Output to /dev/null counts as `-q` for each file, without `-q`'s
    /// exit at the first match: nothing can be seen, so GNU reads no
    /// further than a file's first selected line, and says nothing about
    /// binary files.
    pub fn effective(&self, dev_null_output: bool) -> Effective {
        let quiet = self.quiet || dev_null_output;
        let list = if quiet { ListFiles::None } else { self.list };
        let done_on_match = quiet || list != ListFiles::None;
        let count = self.count && !done_on_match;
        Effective {
            list,
            count,
            done_on_match,
            out_quiet: count || done_on_match,
            before: self.before,
            after: self.after,
        }
    }
}

/// What the options mean once combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effective {
    pub list: ListFiles,
    pub count: bool,
    /// Stop reading a file at its first selected line (`-l -L -q`).
    pub done_on_match: bool,
    /// No lines are printed (`-c -l -L -q`).
    pub out_quiet: bool,
    pub before: Option<u64>,
    pub after: Option<u64>,
}

/// Run with these options, or exit at once with this outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    Run(GrepOptions),
    Exit(Outcome),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OptId {
    Digit(u8),
    After,
    Before,
    Context,
    Devices,
    Extended,
    Fixed,
    Basic,
    Perl,
    WithFilename,
    NoFilename,
    Matcher,
    FilesWithout,
    Recursive,
    Deref,
    InitialTab,
    UnixOffsets,
    Version,
    Text,
    ByteOffset,
    Count,
    Directories,
    Regexp,
    File,
    IgnoreCase,
    NoIgnoreCase,
    FilesWith,
    MaxCount,
    LineNumber,
    OnlyMatching,
    Quiet,
    NoMessages,
    Invert,
    Word,
    LineRegexp,
    Null,
    NullData,
    Binary,
    WithoutMatch,
    BinaryFiles,
    Color,
    Exclude,
    ExcludeFrom,
    ExcludeDir,
    Include,
    GroupSeparator,
    NoGroupSeparator,
    Help,
    Label,
    LineBuffered,
}

const fn short(letter: u8, has_arg: HasArg, id: OptId) -> ShortOpt<OptId> {
    ShortOpt {
        letter,
        has_arg,
        id,
    }
}

const fn long(name: &'static str, has_arg: HasArg, id: OptId) -> LongOpt<OptId> {
    LongOpt { name, has_arg, id }
}

use HasArg::{No, Optional, Required};

/// GNU grep's `short_options`.
const SHORTS: &[ShortOpt<OptId>] = &[
    short(b'0', No, OptId::Digit(0)),
    short(b'1', No, OptId::Digit(1)),
    short(b'2', No, OptId::Digit(2)),
    short(b'3', No, OptId::Digit(3)),
    short(b'4', No, OptId::Digit(4)),
    short(b'5', No, OptId::Digit(5)),
    short(b'6', No, OptId::Digit(6)),
    short(b'7', No, OptId::Digit(7)),
    short(b'8', No, OptId::Digit(8)),
    short(b'9', No, OptId::Digit(9)),
    short(b'A', Required, OptId::After),
    short(b'B', Required, OptId::Before),
    short(b'C', Required, OptId::Context),
    short(b'D', Required, OptId::Devices),
    short(b'E', No, OptId::Extended),
    short(b'F', No, OptId::Fixed),
    short(b'G', No, OptId::Basic),
    short(b'H', No, OptId::WithFilename),
    short(b'I', No, OptId::WithoutMatch),
    short(b'L', No, OptId::FilesWithout),
    short(b'P', No, OptId::Perl),
    short(b'R', No, OptId::Deref),
    short(b'T', No, OptId::InitialTab),
    short(b'U', No, OptId::Binary),
    short(b'V', No, OptId::Version),
    short(b'X', Required, OptId::Matcher),
    short(b'a', No, OptId::Text),
    short(b'b', No, OptId::ByteOffset),
    short(b'c', No, OptId::Count),
    short(b'd', Required, OptId::Directories),
    short(b'e', Required, OptId::Regexp),
    short(b'f', Required, OptId::File),
    short(b'h', No, OptId::NoFilename),
    short(b'i', No, OptId::IgnoreCase),
    short(b'l', No, OptId::FilesWith),
    short(b'm', Required, OptId::MaxCount),
    short(b'n', No, OptId::LineNumber),
    short(b'o', No, OptId::OnlyMatching),
    short(b'q', No, OptId::Quiet),
    short(b'r', No, OptId::Recursive),
    short(b's', No, OptId::NoMessages),
    short(b'u', No, OptId::UnixOffsets),
    short(b'v', No, OptId::Invert),
    short(b'w', No, OptId::Word),
    short(b'x', No, OptId::LineRegexp),
    short(b'y', No, OptId::IgnoreCase),
    short(b'Z', No, OptId::Null),
    short(b'z', No, OptId::NullData),
];

/// GNU grep's `long_options`, in its order.
const LONGS: &[LongOpt<OptId>] = &[
    long("basic-regexp", No, OptId::Basic),
    long("extended-regexp", No, OptId::Extended),
    long("fixed-regexp", No, OptId::Fixed),
    long("fixed-strings", No, OptId::Fixed),
    long("perl-regexp", No, OptId::Perl),
    long("after-context", Required, OptId::After),
    long("before-context", Required, OptId::Before),
    long("binary-files", Required, OptId::BinaryFiles),
    long("byte-offset", No, OptId::ByteOffset),
    long("context", Required, OptId::Context),
    long("color", Optional, OptId::Color),
    long("colour", Optional, OptId::Color),
    long("count", No, OptId::Count),
    long("devices", Required, OptId::Devices),
    long("directories", Required, OptId::Directories),
    long("dereference-recursive", No, OptId::Deref),
    long("exclude", Required, OptId::Exclude),
    long("exclude-from", Required, OptId::ExcludeFrom),
    long("exclude-dir", Required, OptId::ExcludeDir),
    long("file", Required, OptId::File),
    long("files-with-matches", No, OptId::FilesWith),
    long("files-without-match", No, OptId::FilesWithout),
    long("group-separator", Required, OptId::GroupSeparator),
    long("help", No, OptId::Help),
    long("include", Required, OptId::Include),
    long("ignore-case", No, OptId::IgnoreCase),
    long("no-ignore-case", No, OptId::NoIgnoreCase),
    long("initial-tab", No, OptId::InitialTab),
    long("label", Required, OptId::Label),
    long("line-buffered", No, OptId::LineBuffered),
    long("line-number", No, OptId::LineNumber),
    long("line-regexp", No, OptId::LineRegexp),
    long("max-count", Required, OptId::MaxCount),
    long("no-filename", No, OptId::NoFilename),
    long("no-group-separator", No, OptId::NoGroupSeparator),
    long("no-messages", No, OptId::NoMessages),
    long("null", No, OptId::Null),
    long("null-data", No, OptId::NullData),
    long("only-matching", No, OptId::OnlyMatching),
    long("quiet", No, OptId::Quiet),
    long("recursive", No, OptId::Recursive),
    long("regexp", Required, OptId::Regexp),
    long("invert-match", No, OptId::Invert),
    long("silent", No, OptId::Quiet),
    long("text", No, OptId::Text),
    long("binary", No, OptId::Binary),
    long("unix-byte-offsets", No, OptId::UnixOffsets),
    long("version", No, OptId::Version),
    long("with-filename", No, OptId::WithFilename),
    long("word-regexp", No, OptId::Word),
];

const USAGE_LINE: &str = "Usage: {p} [OPTION]... PATTERNS [FILE]...\n";

fn usage_error(program: &str, message: Vec<u8>) -> Invocation {
    let usage = USAGE_LINE.replace("{p}", program);
    let try_help = format!("Try '{program} --help' for more information.\n");
    Invocation::Exit(Outcome::new(
        Vec::new(),
        [message, usage.into_bytes(), try_help.into_bytes()].concat(),
        2,
    ))
}

fn trouble(program: &str, message: &str) -> Invocation {
    Invocation::Exit(Outcome::new(
        Vec::new(),
        format!("{program}: {message}\n").into_bytes(),
        2,
    ))
}

/// The `--help` text.
pub fn help_text(program: &str) -> String {
    format!("{}{HELP_BODY}", USAGE_LINE.replace("{p}", program))
}

const HELP_BODY: &str = "\
Search for PATTERNS in each FILE.
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
  -V, --version             display version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
      --line-buffered       flush output on every line
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   assume that binary files are TYPE;
                            TYPE is 'binary', 'text', or 'without-match'
  -a, --text                equivalent to --binary-files=text
  -I                        equivalent to --binary-files=without-match
  -d, --directories=ACTION  how to handle directories;
                            ACTION is 'read' or 'skip'
  -D, --devices=ACTION      how to handle devices, FIFOs and sockets;
                            ACTION is 'read'
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color=never         no markers (auto is never when not a terminal)
  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)

When FILE is '-', read standard input.  With no FILE, read '-'.
With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.

Not supported (they fail with status 2): -P, -X, -T, -r, -R, --include,
--exclude, --exclude-from, --exclude-dir, -D skip, -d recurse, and
--color=always (or auto on a terminal).

samebytes grep: a drop-in for GNU grep; see docs/differences.md.
";

/// Parse a context length (`-A`, `-B`, `-C`, `-NUM`): a nonnegative
/// decimal number; an overflowing one is the largest value.
fn context_length(arg: &[u8]) -> Option<u64> {
    if arg.is_empty() || !arg.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(arg.iter().fold(0u64, |v, &d| {
        v.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

/// Parse `-m`: a decimal number, optionally negative (no limit).
fn max_count(arg: &[u8]) -> Option<Option<u64>> {
    let (negative, digits) = match arg.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, arg),
    };
    let n = context_length(digits)?;
    Some(if negative && n > 0 { None } else { Some(n) })
}

/// Parse a grep command line (without the program name).
pub fn parse_args(args: &[Vec<u8>], env: &GrepEnv) -> Invocation {
    let table = OptionTable {
        shorts: SHORTS,
        longs: LONGS,
    };
    let program = env.program.as_str();
    let (items, error) = getopt::parse_indexed(program, args, &table, env.posixly_correct);
    let mut o = GrepOptions {
        group_separator: Some(b"--".to_vec()),
        ..GrepOptions::default()
    };
    let mut matcher: Option<&'static str> = None;
    let mut default_context: Option<u64> = None;
    // The digits of the current `-NUM`, and the word they came from.
    let mut digits: Vec<u8> = Vec::new();
    let mut digits_word: Option<usize> = None;
    let mut last_was_digit = false;
    let mut show_help = false;
    let mut show_version = false;
    for (word, item) in items {
        let (id, arg) = match item {
            Item::Operand(op) => {
                o.operands.push(op);
                continue;
            }
            Item::Opt { id, arg } => (id, arg.unwrap_or_default()),
        };
        let was_digit = std::mem::replace(&mut last_was_digit, false);
        let mut set_matcher = |name: &'static str| -> Result<(), Box<Invocation>> {
            match matcher {
                Some(m) if m != name => {
                    Err(Box::new(trouble(program, "conflicting matchers specified")))
                }
                _ => {
                    matcher = Some(name);
                    Ok(())
                }
            }
        };
        let unsupported = |what: &str| trouble(program, &format!("{what} is not supported"));
        match id {
            OptId::Digit(d) => {
                if !(was_digit && digits_word == Some(word)) {
                    digits.clear();
                }
                digits.push(b'0' + d);
                digits_word = Some(word);
                last_was_digit = true;
                default_context = context_length(&digits);
            }
            OptId::After | OptId::Before | OptId::Context => {
                let Some(n) = context_length(&arg) else {
                    let shown = String::from_utf8_lossy(&arg).into_owned();
                    return trouble(
                        program,
                        &format!("{shown}: invalid context length argument"),
                    );
                };
                match id {
                    OptId::After => o.after = Some(n),
                    OptId::Before => o.before = Some(n),
                    _ => default_context = Some(n),
                }
            }
            OptId::Devices => match argmatch(&arg, &[("read", true), ("skip", false)]) {
                Ok(true) => {}
                Ok(false) => return unsupported("-D skip"),
                Err(_) => return trouble(program, "unknown devices method"),
            },
            OptId::Directories => {
                match argmatch(&arg, &[("read", 0), ("recurse", 1), ("skip", 2)]) {
                    Ok(0) => o.skip_directories = false,
                    Ok(2) => o.skip_directories = true,
                    Ok(_) => return unsupported("-d recurse"),
                    Err(_) => {
                        let shown = String::from_utf8_lossy(&arg).into_owned();
                        return usage_error(
                            program,
                            format!(
                                "{program}: invalid argument '{shown}' for '--directories'\n\
                                 Valid arguments are:\n  - 'read'\n  - 'recurse'\n  - 'skip'\n"
                            )
                            .into_bytes(),
                        );
                    }
                }
            }
            OptId::Extended | OptId::Fixed | OptId::Basic | OptId::Perl => {
                let (name, syntax) = match id {
                    OptId::Extended => ("egrep", Syntax::Extended),
                    OptId::Fixed => ("fgrep", Syntax::Fixed),
                    OptId::Basic => ("grep", Syntax::Basic),
                    _ => ("perl", Syntax::Perl),
                };
                if let Err(e) = set_matcher(name) {
                    return *e;
                }
                o.syntax = syntax;
            }
            OptId::Matcher => return unsupported("-X"),
            OptId::WithFilename => o.with_filename = Some(true),
            OptId::NoFilename => o.with_filename = Some(false),
            OptId::FilesWithout => o.list = ListFiles::NonMatching,
            OptId::FilesWith => o.list = ListFiles::Matching,
            OptId::Recursive => return unsupported("-r"),
            OptId::Deref => return unsupported("-R"),
            OptId::InitialTab => return unsupported("-T"),
            OptId::UnixOffsets => o
                .warnings
                .push("warning: --unix-byte-offsets (-u) is obsolete".into()),
            OptId::Version => show_version = true,
            OptId::Text => o.binary_files = BinaryFiles::Text,
            OptId::WithoutMatch => o.binary_files = BinaryFiles::WithoutMatch,
            OptId::BinaryFiles => {
                o.binary_files = match arg.as_slice() {
                    b"binary" => BinaryFiles::Binary,
                    b"text" => BinaryFiles::Text,
                    b"without-match" => BinaryFiles::WithoutMatch,
                    _ => return trouble(program, "unknown binary-files type"),
                }
            }
            OptId::ByteOffset => o.byte_offset = true,
            OptId::Count => o.count = true,
            OptId::Regexp => o.sources.push(PatternSource::Expr(arg)),
            OptId::File => o.sources.push(PatternSource::File(arg)),
            OptId::IgnoreCase => o.ignore_case = true,
            OptId::NoIgnoreCase => o.ignore_case = false,
            OptId::MaxCount => match max_count(&arg) {
                Some(m) => o.max_count = m,
                None => return trouble(program, "invalid max count"),
            },
            OptId::LineNumber => o.line_number = true,
            OptId::OnlyMatching => o.only_matching = true,
            OptId::Quiet => o.quiet = true,
            OptId::NoMessages => o.no_messages = true,
            OptId::Invert => o.invert = true,
            OptId::Word => o.word = true,
            OptId::LineRegexp => o.line = true,
            OptId::Null => o.null_after_name = true,
            OptId::NullData => o.null_data = true,
            OptId::Binary => {}
            OptId::Color => {
                let when = if arg.is_empty() {
                    b"auto".to_vec()
                } else {
                    arg
                };
                match when.as_slice() {
                    b"never" | b"no" | b"none" => o.color_auto = false,
                    // Not a terminal: `auto` means never.  The binary
                    // refuses it on a terminal (see the impl).
                    b"auto" | b"tty" | b"if-tty" => o.color_auto = true,
                    b"always" | b"yes" | b"force" => return unsupported("--color=always"),
                    _ => {
                        return usage_error(program, Vec::new());
                    }
                }
            }
            OptId::Exclude => return unsupported("--exclude"),
            OptId::ExcludeFrom => return unsupported("--exclude-from"),
            OptId::ExcludeDir => return unsupported("--exclude-dir"),
            OptId::Include => return unsupported("--include"),
            OptId::GroupSeparator => o.group_separator = Some(arg),
            OptId::NoGroupSeparator => o.group_separator = None,
            OptId::Help => show_help = true,
            OptId::Label => o.label = Some(arg),
            OptId::LineBuffered => o.line_buffered = true,
        }
    }
    if let Some(message) = error {
        return usage_error(program, message);
    }
    if show_version {
        return Invocation::Exit(Outcome::new(
            crate::version_text("grep").into_bytes(),
            Vec::new(),
            0,
        ));
    }
    if show_help {
        return Invocation::Exit(Outcome::new(help_text(program).into_bytes(), Vec::new(), 0));
    }
    if o.after.is_none() {
        o.after = default_context;
    }
    if o.before.is_none() {
        o.before = default_context;
    }
    if o.sources.is_empty() {
        if o.operands.is_empty() {
            return usage_error(program, Vec::new());
        }
        let p = o.operands.remove(0);
        o.sources.push(PatternSource::Expr(p));
    }
    Invocation::Run(o)
}

/// A `-f` file that could not be read: its name and the error.
pub type PatternFileError<E> = (Vec<u8>, E);

/// The patterns, in GNU 3.8's order: each line of each `-e` and of each
/// `-f` file (a file's last newline ends its last line), with every repeat
/// of an identical pattern left out (GNU keeps the first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternList {
    pub patterns: Vec<Vec<u8>>,
    /// Where each pattern came from: its `-f` file as named and its line
    /// there (from 1), or `None` for the command line.
    pub origins: Vec<Option<(Vec<u8>, usize)>>,
}

impl PatternList {
    fn push(&mut self, pattern: &[u8], origin: Option<(Vec<u8>, usize)>) {
        if !self.patterns.iter().any(|p| p == pattern) {
            self.patterns.push(pattern.to_vec());
            self.origins.push(origin);
        }
    }

    /// GNU's line for a compile error: glibc's error for a pattern read
    /// from a file is prefixed with `FILE:LINE: `; the others are bare.
    pub fn error_line(&self, program: &str, error: &CompileError) -> Vec<u8> {
        let origin = error.pattern.and_then(|i| self.origins.get(i)?.as_ref());
        let mut line = format!("{program}: ").into_bytes();
        if let Some((name, number)) = origin {
            line.extend_from_slice(name);
            line.extend_from_slice(format!(":{number}: ").as_bytes());
        }
        line.extend_from_slice(error.message.as_bytes());
        line.push(b'\n');
        line
    }
}

/// The pattern list from its sources.  `None` when there are no patterns
/// at all (only empty `-f` files): nothing matches.
pub fn assemble_patterns<E>(
    sources: &[PatternSource],
    mut read_file: impl FnMut(&[u8]) -> Result<Vec<u8>, E>,
) -> Result<Option<PatternList>, PatternFileError<E>> {
    let mut list = PatternList::default();
    let mut any = false;
    for s in sources {
        match s {
            PatternSource::Expr(e) => {
                any = true;
                for line in e.split(|&b| b == b'\n') {
                    list.push(line, None);
                }
            }
            PatternSource::File(name) => {
                let data = read_file(name).map_err(|e| (name.clone(), e))?;
                if data.is_empty() {
                    continue;
                }
                any = true;
                let body = data.strip_suffix(b"\n").unwrap_or(&data);
                for (i, line) in body.split(|&b| b == b'\n').enumerate() {
                    list.push(line, Some((name.clone(), i + 1)));
                }
            }
        }
    }
    Ok(any.then_some(list))
}

/// `grep: FILE: error` for a `-f` file that cannot be read.
/// The message for a `-f` file that could not be read, given the text of
/// its error.
pub fn pattern_file_error(program: &str, name: &[u8], error: &str) -> Vec<u8> {
    [
        format!("{program}: ").as_bytes(),
        name,
        format!(": {error}\n").as_bytes(),
    ]
    .concat()
}

/// Does GNU give up before compiling the patterns or reading any input?
/// When no line can be selected, grep exits 1 at once, unless `-L` has
/// names to print: with `-m0`; with no patterns at all (only empty `-f`
/// files) and no `-v`; and with `-v` and only empty patterns (each matches
/// every line) unless `-x` or `-w` narrows them.
fn nothing_can_match(opts: &GrepOptions, patterns: Option<&[Vec<u8>]>, eff: &Effective) -> bool {
    let selects_nothing = match patterns {
        None => !opts.invert,
        Some(p) => opts.invert && !opts.line && !opts.word && p.iter().all(|p| p.is_empty()),
    };
    (opts.max_count == Some(0) || selects_nothing) && eff.list != ListFiles::NonMatching
}

/// An output line's prefix: `NAME` then `sep` (a NUL with `-Z`), the line
/// number with `-n`, the byte offset with `-b`, each followed by `sep`
/// (`:` for a selected line, `-` for context).
pub fn write_prefix(
    out: &mut Vec<u8>,
    opts: &GrepOptions,
    name: Option<&[u8]>,
    number: u64,
    offset: u64,
    sep: u8,
) {
    if let Some(name) = name {
        out.extend_from_slice(name);
        out.push(if opts.null_after_name { 0 } else { sep });
    }
    if opts.line_number {
        out.extend_from_slice(number.to_string().as_bytes());
        out.push(sep);
    }
    if opts.byte_offset {
        out.extend_from_slice(offset.to_string().as_bytes());
        out.push(sep);
    }
}

/// Where stdout goes, as far as grep cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum GrepStdout {
    #[default]
    Stream,
    /// The regular file of this name in the world (opened for appending).
    File(Vec<u8>),
    /// /dev/null (see [`GrepOptions::effective`]).
    DevNull,
}

/// The first 32 KiB: a NUL there makes the whole input binary.
pub const BINARY_PREFIX: usize = 32 * 1024;

/// Where an input turns binary (see the module docs), if it does.
pub fn binary_point(data: &[u8], terminator: u8, binary_files: BinaryFiles) -> Option<usize> {
    if binary_files == BinaryFiles::Text || terminator == 0 {
        return None;
    }
    let nul = data.iter().position(|&b| b == 0)?;
    if nul < BINARY_PREFIX {
        return Some(0);
    }
    Some(
        data[..nul]
            .iter()
            .rposition(|&b| b == terminator)
            .map_or(0, |p| p + 1),
    )
}

/// Does this output text count as an encoding error?  GNU asks glibc's
/// `mbrlen`, which takes the 5- and 6-byte forms and 4-byte ones beyond
/// U+10FFFF as characters (`crate::text::decode_one`).
pub fn has_encoding_error(text: &[u8], locale: Locale, binary_files: BinaryFiles) -> bool {
    if locale != Locale::Utf8 || binary_files == BinaryFiles::Text {
        return false;
    }
    let mut at = 0;
    while at < text.len() {
        match crate::text::decode_one(&text[at..]) {
            Some((_, n)) => at += n,
            None => return true,
        }
    }
    false
}

/// Everything a run writes, with each diagnostic placed after the stdout
/// bytes written before it.
struct Transcript {
    stdout: Vec<u8>,
    diagnostics: Vec<(usize, Vec<u8>)>,
}

impl Transcript {
    fn diagnose(&mut self, text: impl Into<Vec<u8>>) {
        self.diagnostics.push((self.stdout.len(), text.into()));
    }
}

/// State carried from one file to the next.
struct Run<'a> {
    opts: &'a GrepOptions,
    eff: Effective,
    env: &'a GrepEnv,
    matcher: &'a Matcher,
    terminator: u8,
    with_filename: bool,
    out: Transcript,
    /// Has any line or separator been printed (for the group separator)?
    used: bool,
}

/// What one file produced.
struct FileResult {
    selected: u64,
    /// Just after the last selected line (its terminator included).
    after_last_selected: usize,
    /// An encoding error kept a line from being printed, or a line was
    /// selected in the binary part.
    binary_matched: bool,
    /// The search needed no more input: `-l -L -q` (or /dev/null, or a
    /// binary part) met a selected line, `-m` was reached and no context
    /// was owed, or `--binary-files=without-match` met binary input.  GNU
    /// reads no further, so a read error after this point is never seen.
    ended_early: bool,
}

impl Run<'_> {
    fn prefix(&mut self, name: &[u8], number: u64, offset: u64, sep: u8) {
        let name = self.with_filename.then_some(name);
        write_prefix(&mut self.out.stdout, self.opts, name, number, offset, sep);
    }

    /// Print one line (selected: `:`, context: `-`).  Returns false when an
    /// encoding error kept something from being printed.
    fn print_line(
        &mut self,
        name: &[u8],
        line: &[u8],
        number: u64,
        offset: u64,
        selected: bool,
    ) -> bool {
        let (locale, bf) = (self.env.locale, self.opts.binary_files);
        if self.opts.only_matching {
            // `-o` prints the matches of the lines that match: selected
            // ones, or with `-v` context ones (marked `-` then).
            if selected == self.opts.invert {
                return true;
            }
            let sep = if self.opts.invert { b'-' } else { b':' };
            for (s, e) in self.matcher.matches(line) {
                if has_encoding_error(&line[s..e], locale, bf) {
                    return false;
                }
                self.prefix(name, number, offset + s as u64, sep);
                self.out.stdout.extend_from_slice(&line[s..e]);
                self.out.stdout.push(self.terminator);
            }
            return true;
        }
        if has_encoding_error(line, locale, bf) {
            return false;
        }
        self.prefix(name, number, offset, if selected { b':' } else { b'-' });
        self.out.stdout.extend_from_slice(line);
        self.out.stdout.push(self.terminator);
        true
    }

    /// Print owed after-context lines from `lastout` up to line `limit`.
    fn print_pending(
        &mut self,
        name: &[u8],
        lines: &[(usize, &[u8])],
        lastout: &mut Option<usize>,
        pending: &mut u64,
        limit: usize,
        encoding_error: &mut bool,
    ) {
        if *pending == 0 {
            return;
        }
        let mut at = lastout.unwrap_or(0);
        while *pending > 0 && at < limit {
            let (o, l) = lines[at];
            if self.print_line(name, l, at as u64 + 1, o as u64, false) {
                at += 1;
            } else {
                *encoding_error = true;
            }
            *pending -= 1;
        }
        *lastout = Some(at);
    }

    /// Search one input's bytes; `read_failed` says a read error ended
    /// them.
    fn search(&mut self, name: &[u8], data: &[u8], read_failed: bool) -> FileResult {
        let t = self.terminator;
        let eff = self.eff;
        let invert = self.opts.invert;
        let binary_at = binary_point(data, t, self.opts.binary_files);
        // GNU searches whole lines only: the line a read error cut short
        // is never searched.  In the binary region a NUL ends a line too.
        let data = if read_failed {
            let ends_line =
                |(i, &b): (usize, &u8)| b == t || (b == 0 && binary_at.is_some_and(|p| i >= p));
            let whole = data
                .iter()
                .enumerate()
                .rposition(ends_line)
                .map_or(0, |i| i + 1);
            &data[..whole]
        } else {
            data
        };
        let binary_at = binary_at.map(|p| p.min(data.len()));
        let (text, binary) = match binary_at {
            Some(p) if self.opts.binary_files == BinaryFiles::WithoutMatch => (&data[..p], None),
            Some(p) => (&data[..p], Some(&data[p..])),
            None => (data, None),
        };
        // The lines of the text part, as (offset, bytes).
        let mut lines: Vec<(usize, &[u8])> = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = text[at..]
                .iter()
                .position(|&b| b == t)
                .map_or(text.len(), |p| at + p);
            lines.push((at, &text[at..end]));
            at = end + 1;
        }
        let limit = self.opts.max_count.unwrap_or(u64::MAX);
        let context = eff.before.is_some() || eff.after.is_some();
        let before = eff.before.unwrap_or(0);
        let after = eff.after.unwrap_or(0);
        let mut selected = 0u64;
        let mut encoding_error = false;
        // GNU's `lastout`: the line after the last one printed.  A context
        // line kept back by an encoding error does not move it; a selected
        // line kept back does, as if printed.  (GNU 3.8 leaves it where it
        // was, so the after-context it then owes starts at some earlier
        // line: which one depends on GNU's buffer boundaries and on how a
        // pipe's reads arrive.  docs/differences.md, kept-back-match.)
        let mut lastout: Option<usize> = None;
        // After-context lines still owed; each attempt to print one, kept
        // back or not, uses one up (GNU's `prpending`).
        let mut pending = 0u64;
        let mut stopped = false;
        let mut after_last_selected = 0;
        let mut last_selected: Option<usize> = None;
        let mut i = 0;
        while i < lines.len() {
            if selected >= limit {
                break;
            }
            let line = lines[i].1;
            let matched = self.matcher.is_match(line);
            if self.matcher.failure().is_some() {
                // GNU dies in the search: nothing owed is printed.
                stopped = true;
                break;
            }
            if matched == invert {
                i += 1;
                continue;
            }
            selected += 1;
            after_last_selected = (lines[i].0 + line.len() + 1).min(text.len());
            // With -v, GNU handles a run of consecutive selected lines as
            // one piece: context and the separator come before its first
            // line only.
            let continues_run = invert && last_selected == Some(i.wrapping_sub(1));
            last_selected = Some(i);
            if continues_run && !eff.out_quiet {
                let (o, l) = lines[i];
                encoding_error |= !self.print_line(name, l, i as u64 + 1, o as u64, true);
                lastout = Some(i + 1);
                pending = after;
            } else if !eff.out_quiet {
                self.print_pending(
                    name,
                    &lines,
                    &mut lastout,
                    &mut pending,
                    i,
                    &mut encoding_error,
                );
                let floor = lastout.unwrap_or(0);
                let first = i.saturating_sub(before.min(i as u64) as usize).max(floor);
                if context && self.used && lastout != Some(first) {
                    if let Some(sep) = self.opts.group_separator.clone() {
                        self.out.stdout.extend_from_slice(&sep);
                        self.out.stdout.push(b'\n');
                    }
                }
                for (j, &(o, l)) in lines.iter().enumerate().take(i + 1).skip(first) {
                    let ok = self.print_line(name, l, j as u64 + 1, o as u64, j == i);
                    encoding_error |= !ok;
                    if ok || j == i {
                        lastout = Some(j + 1);
                    }
                }
                pending = after;
            }
            self.used = true;
            if eff.done_on_match || self.matcher.failure().is_some() {
                stopped = true;
                break;
            }
            i += 1;
        }
        if !eff.out_quiet && self.matcher.failure().is_none() {
            let end = lines.len();
            self.print_pending(
                name,
                &lines,
                &mut lastout,
                &mut pending,
                end,
                &mut encoding_error,
            );
        }
        let mut binary_matched = encoding_error && self.opts.binary_files == BinaryFiles::Binary;
        let without_match =
            binary_at.is_some() && self.opts.binary_files == BinaryFiles::WithoutMatch;
        let mut ended_early =
            stopped || without_match || (selected >= limit && (pending == 0 || binary.is_some()));
        if let (Some(region), false) = (binary, stopped || selected >= limit) {
            // GNU stops owing context when the input turns binary.
            let before_binary = selected;
            let start = data.len() - region.len();
            let mut at = start;
            for piece in region_pieces(region, t) {
                if selected >= limit {
                    break;
                }
                at += piece.len() + 1;
                let matched = self.matcher.is_match(piece);
                if self.matcher.failure().is_some() {
                    break;
                }
                if matched != invert {
                    selected += 1;
                    after_last_selected = at.min(data.len());
                    // GNU marks output as used even when it prints nothing.
                    self.used = true;
                    if !eff.count {
                        ended_early = true;
                        break;
                    }
                }
            }
            ended_early |= selected >= limit;
            binary_matched |= selected > before_binary;
        }
        FileResult {
            selected,
            after_last_selected,
            binary_matched: binary_matched && !eff.out_quiet,
            ended_early,
        }
    }
}

/// The lines of a binary region: NULs end lines too.
fn region_pieces(region: &[u8], terminator: u8) -> Vec<&[u8]> {
    let mut pieces: Vec<&[u8]> = region.split(|&b| b == terminator || b == 0).collect();
    if region.last().is_some_and(|&b| b == terminator || b == 0) {
        pieces.pop();
    }
    pieces
}

/// Run grep on a command line against a world.
pub fn grep(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Outcome {
    grep_leaving_stdin(args, env, world, stdout, stdout_failure).0
}

/// [`grep`], and where it left stdin: untouched (it exits before reading,
/// `-m 0` say), put back after the last selected line by `-m` (a regular
/// file, as an offset in it), or read.
pub fn grep_leaving_stdin(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> (Outcome, StdinLeft) {
    let mut reads = Reads::new(world);
    let outcome = grep_with(args, env, world, &mut reads, stdout, stdout_failure);
    (outcome, reads.stdin_left())
}

fn grep_with(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    reads: &mut Reads<'_>,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Outcome {
    let failure = match stdout {
        GrepStdout::Stream | GrepStdout::DevNull => stdout_failure,
        GrepStdout::File(_) => None,
    };
    let program = env.program.as_str();
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(outcome) => return finish_exit(outcome, failure, program),
    };
    let mut out = Transcript {
        stdout: Vec::new(),
        diagnostics: Vec::new(),
    };
    for w in &opts.warnings {
        out.diagnose(format!("{program}: {w}\n"));
    }
    let patterns = assemble_patterns(&opts.sources, |name| {
        let (data, error) = if name == b"-" {
            reads.read_stdin()
        } else {
            reads.read_named(name)?
        };
        match error {
            Some(e) => Err(e),
            None => Ok(data),
        }
    });
    let patterns = match patterns {
        Ok(p) => p,
        Err((name, e)) => {
            // GNU names the file as given, unquoted (`die (..., "%s", optarg)`).
            out.diagnose(pattern_file_error(program, &name, e.message()));
            return finish(out, 2, failure, program);
        }
    };
    // Before the patterns are compiled: GNU neither warns about them nor
    // rejects them then.
    if nothing_can_match(
        &opts,
        patterns.as_ref().map(|l| &l.patterns[..]),
        &opts.effective(*stdout == GrepStdout::DevNull),
    ) {
        return finish(out, 1, failure, program);
    }
    let cfg = PatternConfig {
        syntax: opts.syntax,
        ignore_case: opts.ignore_case,
        word: opts.word && !opts.line,
        line: opts.line,
        locale: env.locale,
        terminator: if opts.null_data { 0 } else { b'\n' },
    };
    let patterns = patterns.unwrap_or_default();
    let matcher = match Matcher::compile(&patterns.patterns, &cfg) {
        Compiled::Ready(m, warnings) => {
            for w in &warnings {
                out.diagnose(format!("{program}: {w}\n"));
            }
            m
        }
        Compiled::Failed(errors) => {
            for e in &errors {
                out.diagnose(patterns.error_line(program, e));
            }
            return finish(out, 2, failure, program);
        }
    };
    let eff = opts.effective(*stdout == GrepStdout::DevNull);
    let operands = if opts.operands.is_empty() {
        vec![b"-".to_vec()]
    } else {
        opts.operands.clone()
    };
    let with_filename = opts.with_filename.unwrap_or(operands.len() > 1);
    let mut run = Run {
        opts: &opts,
        eff,
        env,
        matcher: &matcher,
        terminator: cfg.terminator,
        with_filename,
        out,
        used: false,
    };
    let mut matched = false;
    let mut error_seen = false;
    for name in &operands {
        let is_stdin = name.as_slice() == b"-";
        let display: Vec<u8> = if is_stdin {
            opts.label
                .clone()
                .unwrap_or_else(|| b"(standard input)".to_vec())
        } else {
            name.clone()
        };
        let diag_name = String::from_utf8_lossy(&display).into_owned();
        let file_error = |run: &mut Run, what: &str| {
            if !opts.no_messages {
                run.out
                    .diagnose(format!("{program}: {diag_name}: {what}\n"));
            }
        };
        let read = if is_stdin && world.stdin_closed() {
            // GNU's `fstat` fails first: the input is skipped, with no
            // count line and no `-L` listing.
            Err(Errno::BadDescriptor)
        } else if is_stdin {
            let (data, error) = reads.read_stdin();
            Ok((data, error, matches!(world.stdin.node, Node::Directory)))
        } else {
            let is_dir = matches!(world.lookup(name), Ok(Node::Directory));
            reads.read_named(name).map(|(d, e)| (d, e, is_dir))
        };
        let (data, read_error) = match read {
            Err(e) => {
                file_error(&mut run, e.message());
                error_seen = true;
                continue;
            }
            Ok((_, _, true)) if opts.skip_directories => continue,
            Ok((d, e, _)) => (d, e),
        };
        if !is_stdin
            && !eff.out_quiet
            && eff.list == ListFiles::None
            && opts.max_count.is_none_or(|m| m > 1)
            && matches!(stdout, GrepStdout::File(f) if f == name)
        {
            file_error(&mut run, "input file is also the output");
            error_seen = true;
            continue;
        }
        let (selected, binary_matched, ended_early) = if opts.max_count == Some(0) {
            // GNU reads until it holds a whole line, then finds it has
            // nothing to do: a read error shows only before that.  A NUL
            // ends a line too where the binary rule applies.
            let nul_ends = opts.binary_files != BinaryFiles::Text && cfg.terminator != 0;
            let whole_line = data
                .iter()
                .any(|&b| b == cfg.terminator || (nul_ends && b == 0));
            (0, false, whole_line)
        } else {
            let r = run.search(&display, &data, read_error.is_some());
            if let Some(why) = run.matcher.failure() {
                // GNU's `die`: the run ends here, with what it printed.
                run.out.diagnose(format!("{program}: {diag_name}: {why}\n"));
                return finish(run.out, 2, failure, program);
            }
            if is_stdin && !eff.done_on_match && opts.max_count == Some(r.selected) {
                // `-m` was reached: stdin, if a regular file, is left just
                // after the last selected line, for whoever reads it next.
                // Not with `-l -L -q` (or /dev/null output): GNU 3.8 leaves
                // it where its reading stopped.
                reads.reposition_stdin(r.after_last_selected);
            }
            (r.selected, r.binary_matched, r.ended_early)
        };
        if let (Some(e), false) = (read_error, ended_early) {
            file_error(&mut run, e.message());
            error_seen = true;
        }
        if eff.count {
            if with_filename {
                run.out.stdout.extend_from_slice(&display);
                run.out
                    .stdout
                    .push(if opts.null_after_name { 0 } else { b':' });
            }
            run.out
                .stdout
                .extend_from_slice(format!("{selected}\n").as_bytes());
        }
        let listed = match eff.list {
            ListFiles::Matching => selected > 0,
            ListFiles::NonMatching => selected == 0,
            ListFiles::None => false,
        };
        if listed {
            run.out.stdout.extend_from_slice(&display);
            run.out
                .stdout
                .push(if opts.null_after_name { 0 } else { b'\n' });
        }
        if binary_matched {
            run.out
                .diagnose(format!("{program}: {diag_name}: binary file matches\n"));
        }
        if selected > 0 {
            matched = true;
            if opts.quiet {
                return finish(run.out, 0, failure, program);
            }
        }
        // GNU's `finalize_input`: without `-l`/`-L`, a stream stdin that
        // was not read to its end is drained (so that its writer is not
        // cut off), unless `-m` was reached.  A non-blocking one fails
        // again there.
        let drained = is_stdin
            && matches!(world.stdin.node, Node::Stream(_))
            && eff.list == ListFiles::None
            && opts.max_count != Some(selected)
            && (read_error.is_some() || ended_early);
        if drained && world.read_errors.stdin_would_block {
            file_error(&mut run, Errno::WouldBlock.message());
            error_seen = true;
        }
    }
    let status = if error_seen {
        2
    } else if matched {
        0
    } else {
        1
    };
    finish(run.out, status, failure, program)
}

/// Apply a stdout failure: the first write that fails ends grep, so the
/// diagnostics written after it never appear.
fn finish(out: Transcript, status: i32, failure: Option<StdoutFailure>, program: &str) -> Outcome {
    let mut outcome = Outcome {
        stdout: out.stdout,
        status,
        ..Outcome::default()
    };
    let failed = failure.filter(|f| outcome.stdout.len() > f.limit);
    for (at, text) in out.diagnostics {
        if failed.is_some_and(|f| at > f.limit) {
            break;
        }
        outcome.diagnose_between(&text, at, at);
    }
    if outcome.clip_stdout(failed) {
        let what = failed.map(|f| f.errno.message()).unwrap_or_default();
        outcome.diagnose(format!("{program}: write error: {what}\n").as_bytes());
        outcome.status = 2;
    }
    outcome
}

fn finish_exit(outcome: Outcome, failure: Option<StdoutFailure>, program: &str) -> Outcome {
    let status = outcome.status;
    let stdout_len = outcome.stdout.len();
    let out = Transcript {
        stdout: outcome.stdout,
        diagnostics: vec![(stdout_len, outcome.stderr)],
    };
    finish(out, status, failure, program)
}
