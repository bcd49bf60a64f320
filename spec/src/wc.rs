//! Reference `wc`, following current GNU coreutils (9.5 and later).
//!
//! The rules, from the coreutils manual and `src/wc.c`:
//! - Counts: newlines; words (maximal runs of non-separator characters);
//!   characters; bytes; maximum display width of a line.  Printed in that
//!   order, each selected one right-aligned to a common width.
//! - Words: a word starts at a character that is not a separator and follows
//!   a separator or the start of input.  Separators are `isspace`/`iswspace`
//!   and, unless `POSIXLY_CORRECT` is set, the no-break spaces U+00A0,
//!   U+2007, U+202F and U+2060 (in the C locale the byte 0xA0).  Everything
//!   else is part of a word, including unprintable characters and encoding
//!   errors (coreutils 9.5).
//! - Characters: in a UTF-8 locale, valid characters (encoding errors are
//!   not characters); in the C locale, bytes.
//! - Line width: `\n`, `\r` and `\f` end a line, a tab advances to the next
//!   multiple of 8, `\v` and unprintable characters have width 0, others
//!   their display width.  The last line counts even without a newline.
//! - Number width: 1 when a single count is printed for a single input, or
//!   with `--total=only`, or when names come from a stream; otherwise the
//!   number of digits of the summed sizes of the regular files, and at least
//!   7 when any input that could be stat'ed is not a regular file.
//! - A name containing a newline is quoted in the counts line; names in
//!   diagnostics are always quoted as needed.
//! - Diagnostics go to stderr and make the exit status 1; processing goes on.
//!   A write error on stdout is reported once, at exit, as `write error`.

use crate::getopt::{self, HasArg, Item, LongOpt, OptionTable, ShortOpt};
use crate::quote::{quote_locale, quoteaf, quotef};
use crate::text::{self, Unit};
use crate::world::{Node, Reads, Stat, World};
use crate::{Errno, Locale, Outcome, StdoutFailure};

/// The process environment that matters to wc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WcEnv {
    pub locale: Locale,
    pub posixly_correct: bool,
    /// `argv[0]`: GNU names itself after it in every diagnostic.
    pub program: String,
}

impl WcEnv {
    /// An environment for a program invoked as plain `wc`.
    pub fn new(locale: Locale, posixly_correct: bool) -> WcEnv {
        WcEnv {
            locale,
            posixly_correct,
            program: "wc".into(),
        }
    }
}

/// Which counts to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub lines: bool,
    pub words: bool,
    pub chars: bool,
    pub bytes: bool,
    pub max_line_length: bool,
}

impl Selection {
    /// Only bytes are wanted (in the C locale characters are bytes): GNU
    /// then counts a regular file by its size.
    pub fn bytes_only(&self, locale: Locale) -> bool {
        (self.bytes || (self.chars && locale == Locale::C))
            && !(self.chars && locale == Locale::Utf8)
            && !self.lines
            && !self.words
            && !self.max_line_length
    }

    pub fn count(&self) -> usize {
        [
            self.lines,
            self.words,
            self.chars,
            self.bytes,
            self.max_line_length,
        ]
        .iter()
        .filter(|&&b| b)
        .count()
    }
}

/// `--total=WHEN`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TotalMode {
    #[default]
    Auto,
    Always,
    Only,
    Never,
}

/// A parsed wc command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WcOptions {
    pub select: Selection,
    pub total: TotalMode,
    pub files0_from: Option<Vec<u8>>,
    pub operands: Vec<Vec<u8>>,
    pub debug: bool,
}

/// The result of parsing: run, or exit now with this outcome (help,
/// version, usage error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    Run(WcOptions),
    Exit(Outcome),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OptId {
    Bytes,
    Chars,
    Lines,
    Words,
    MaxLineLength,
    Debug,
    Files0From,
    Total,
    Help,
    Version,
}

const SHORTS: &[ShortOpt<OptId>] = &[
    ShortOpt {
        letter: b'c',
        has_arg: HasArg::No,
        id: OptId::Bytes,
    },
    ShortOpt {
        letter: b'l',
        has_arg: HasArg::No,
        id: OptId::Lines,
    },
    ShortOpt {
        letter: b'L',
        has_arg: HasArg::No,
        id: OptId::MaxLineLength,
    },
    ShortOpt {
        letter: b'm',
        has_arg: HasArg::No,
        id: OptId::Chars,
    },
    ShortOpt {
        letter: b'w',
        has_arg: HasArg::No,
        id: OptId::Words,
    },
];

const LONGS: &[LongOpt<OptId>] = &[
    LongOpt {
        name: "bytes",
        has_arg: HasArg::No,
        id: OptId::Bytes,
    },
    LongOpt {
        name: "chars",
        has_arg: HasArg::No,
        id: OptId::Chars,
    },
    LongOpt {
        name: "lines",
        has_arg: HasArg::No,
        id: OptId::Lines,
    },
    LongOpt {
        name: "words",
        has_arg: HasArg::No,
        id: OptId::Words,
    },
    LongOpt {
        name: "debug",
        has_arg: HasArg::No,
        id: OptId::Debug,
    },
    LongOpt {
        name: "files0-from",
        has_arg: HasArg::Required,
        id: OptId::Files0From,
    },
    LongOpt {
        name: "max-line-length",
        has_arg: HasArg::No,
        id: OptId::MaxLineLength,
    },
    LongOpt {
        name: "total",
        has_arg: HasArg::Required,
        id: OptId::Total,
    },
    LongOpt {
        name: "help",
        has_arg: HasArg::No,
        id: OptId::Help,
    },
    LongOpt {
        name: "version",
        has_arg: HasArg::No,
        id: OptId::Version,
    },
];

/// The options this parser accepts, by name (for the manual page).
pub fn option_names() -> crate::getopt::OptionNames {
    crate::getopt::OptionNames::of::<OptId>(SHORTS, LONGS)
}

const TOTAL_CHOICES: &[(&str, TotalMode)] = &[
    ("auto", TotalMode::Auto),
    ("always", TotalMode::Always),
    ("only", TotalMode::Only),
    ("never", TotalMode::Never),
];

fn try_help(program: &str) -> String {
    format!("Try '{program} --help' for more information.\n")
}

/// The `--help` text.
pub fn help_text(program: &str) -> String {
    format!("Usage: {program} [OPTION]... [FILE]...\n  or:  {program} [OPTION]... --files0-from=F\n{HELP_BODY}")
}

const HELP_BODY: &str = "\
Print newline, word, and byte counts for each FILE, and a total line if
more than one FILE is specified.  A word is a nonempty sequence of non white
space delimited by white space characters or by start or end of input.

With no FILE, or when FILE is -, read standard input.

The options below may be used to select which counts are printed, always in
the following order: newline, word, character, byte, maximum line length.
  -c, --bytes            print the byte counts
  -m, --chars            print the character counts
  -l, --lines            print the newline counts
      --files0-from=F    read input from the files specified by
                           NUL-terminated names in file F;
                           If F is - then read names from standard input
  -L, --max-line-length  print the maximum display width
  -w, --words            print the word counts
      --total=WHEN       when to print a line with total counts;
                           WHEN can be: auto, always, only, never
      --debug            report which counting path each input took
      --help        display this help and exit
      --version     output version information and exit

samebytes wc: a drop-in for GNU coreutils wc; see docs/differences.md.
";

fn usage_error(message: Vec<u8>, env: &WcEnv) -> Invocation {
    Invocation::Exit(Outcome::new(
        Vec::new(),
        [message, try_help(&env.program).into_bytes()].concat(),
        1,
    ))
}

/// Parse a wc command line (without the program name).
pub fn parse_args(args: &[Vec<u8>], env: &WcEnv) -> Invocation {
    let table = OptionTable {
        shorts: SHORTS,
        longs: LONGS,
    };
    let (items, error) = getopt::parse(&env.program, args, &table, env.posixly_correct);
    let mut opts = WcOptions::default();
    // Options act in command-line order: --help before a bad option wins.
    for item in items {
        match item {
            Item::Operand(o) => opts.operands.push(o),
            Item::Opt { id, arg } => match id {
                OptId::Bytes => opts.select.bytes = true,
                OptId::Chars => opts.select.chars = true,
                OptId::Lines => opts.select.lines = true,
                OptId::Words => opts.select.words = true,
                OptId::MaxLineLength => opts.select.max_line_length = true,
                OptId::Debug => opts.debug = true,
                OptId::Files0From => opts.files0_from = arg,
                OptId::Total => {
                    let value = arg.unwrap_or_default();
                    match getopt::argmatch(&value, TOTAL_CHOICES) {
                        Ok(mode) => opts.total = mode,
                        Err(kind) => {
                            return Invocation::Exit(total_argmatch_failure(&value, kind, env))
                        }
                    }
                }
                OptId::Help => {
                    return Invocation::Exit(Outcome::new(
                        help_text(&env.program).into_bytes(),
                        Vec::new(),
                        0,
                    ))
                }
                OptId::Version => {
                    return Invocation::Exit(Outcome::new(
                        crate::version_text("wc").into_bytes(),
                        Vec::new(),
                        0,
                    ))
                }
            },
        }
    }
    if let Some(message) = error {
        return usage_error(message, env);
    }
    if opts.select.count() == 0 {
        opts.select.lines = true;
        opts.select.words = true;
        opts.select.bytes = true;
    }
    if opts.files0_from.is_some() {
        if let Some(extra) = opts.operands.first() {
            return usage_error(
                format!(
                    "{}: extra operand {}\nfile operands cannot be combined with --files0-from\n",
                    env.program,
                    String::from_utf8_lossy(&quoteaf(extra, env.locale))
                )
                .into_bytes(),
                env,
            );
        }
    }
    Invocation::Run(opts)
}

/// gnulib `argmatch_die` for `--total`.
fn total_argmatch_failure(value: &[u8], kind: getopt::ArgmatchError, env: &WcEnv) -> Outcome {
    let q = |s: &[u8]| String::from_utf8_lossy(&quote_locale(s, env.locale)).into_owned();
    let problem = match kind {
        getopt::ArgmatchError::Invalid => "invalid",
        getopt::ArgmatchError::Ambiguous => "ambiguous",
    };
    let mut msg = format!(
        "{}: {problem} argument {} for {}\nValid arguments are:\n",
        env.program,
        q(value),
        q(b"--total")
    );
    for (name, _) in TOTAL_CHOICES {
        msg.push_str(&format!("  - {}\n", q(name.as_bytes())));
    }
    msg.push_str(&try_help(&env.program));
    Outcome::new(Vec::new(), msg.into_bytes(), 1)
}

/// The five counts of one input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    pub words: u64,
    pub chars: u64,
    pub bytes: u64,
    pub max_line_length: u64,
}

impl Counts {
    pub fn add(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.words += other.words;
        self.chars += other.chars;
        self.bytes += other.bytes;
        self.max_line_length = self.max_line_length.max(other.max_line_length);
    }
}

/// Is this character a word separator?
pub fn is_separator(unit: Unit, env: &WcEnv) -> bool {
    match unit {
        Unit::Byte(b) => text::is_ascii_space(b) || (!env.posixly_correct && b == 0xa0),
        Unit::Char(c) => separates(u32::from(c), env),
        Unit::OutOfRange(code) => separates(code, env),
        Unit::Invalid(_) => false,
    }
}

/// A character of the UTF-8 locale that is white space or, unless
/// `POSIXLY_CORRECT`, a no-break space.
fn separates(code: u32, env: &WcEnv) -> bool {
    text::is_wide_space(code) || (!env.posixly_correct && text::is_no_break_space(code))
}

/// Display width of one unit outside the special characters `\t \n \v \f \r`.
pub fn unit_width(unit: Unit) -> u64 {
    match unit {
        Unit::Byte(b) => u64::from(text::is_ascii_printable(b)),
        Unit::Char(c) => text::display_width(u32::from(c)),
        Unit::OutOfRange(code) => text::display_width(code),
        Unit::Invalid(_) => 0,
    }
}

/// Count everything in one whole input, character by character.
pub fn count(data: &[u8], env: &WcEnv) -> Counts {
    let mut c = Counts {
        bytes: data.len() as u64,
        ..Counts::default()
    };
    let mut in_word = false;
    let mut linepos: u64 = 0;
    for unit in text::decode(data, env.locale) {
        let code = match unit {
            Unit::Byte(b) => Some(u32::from(b)),
            Unit::Char(ch) => Some(u32::from(ch)),
            Unit::OutOfRange(code) => Some(code),
            Unit::Invalid(_) => None,
        };
        if code.is_some() {
            c.chars += 1;
        }
        match code {
            Some(0x0a) | Some(0x0d) | Some(0x0c) => {
                if code == Some(0x0a) {
                    c.lines += 1;
                }
                c.max_line_length = c.max_line_length.max(linepos);
                linepos = 0;
                in_word = false;
            }
            Some(0x09) => {
                linepos += 8 - linepos % 8;
                in_word = false;
            }
            Some(0x20) => {
                linepos += 1;
                in_word = false;
            }
            Some(0x0b) => in_word = false,
            _ => {
                linepos += unit_width(unit);
                let starts_word = !is_separator(unit, env);
                if starts_word && !in_word {
                    c.words += 1;
                }
                in_word = starts_word;
            }
        }
    }
    c.max_line_length = c.max_line_length.max(linepos);
    c
}

/// One counts line: the selected counts right-aligned to `width`, then the
/// name if there is one.
pub fn format_counts(
    select: &Selection,
    width: usize,
    counts: &Counts,
    name: Option<&[u8]>,
    locale: Locale,
) -> Vec<u8> {
    let fields = [
        (select.lines, counts.lines),
        (select.words, counts.words),
        (select.chars, counts.chars),
        (select.bytes, counts.bytes),
        (select.max_line_length, counts.max_line_length),
    ];
    let mut line = Vec::new();
    for (shown, value) in fields {
        if shown {
            if !line.is_empty() {
                line.push(b' ');
            }
            line.extend_from_slice(format!("{value:>width$}").as_bytes());
        }
    }
    if let Some(name) = name {
        line.push(b' ');
        if name.contains(&b'\n') {
            line.extend_from_slice(&quotef(name, locale));
        } else {
            line.extend_from_slice(name);
        }
    }
    line.push(b'\n');
    line
}

/// The names to count and how they were obtained.
struct NameList {
    names: Vec<Vec<u8>>,
    /// Were the names known up front (argv, or a small regular list file)?
    /// If not, the number width is 1.
    known_up_front: bool,
    /// A diagnostic for a failure reading the list, after the names read.
    read_error: Option<Errno>,
}

/// Run wc on a command line against a world.
pub fn wc(
    args: &[Vec<u8>],
    env: &WcEnv,
    world: &World,
    stdout_failure: Option<StdoutFailure>,
) -> Outcome {
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(mut outcome) => {
            if outcome.clip_stdout(stdout_failure) {
                let text = write_error_text(stdout_failure);
                outcome.diagnose(format!("{}: {text}\n", env.program).as_bytes());
                outcome.status = 1;
            } else {
                outcome.close_at_exit(&env.program, world, 1);
            }
            return outcome;
        }
    };
    let mut out = Outcome::default();
    let mut reads = Reads::new(world);
    let q = |s: &[u8]| String::from_utf8_lossy(&quotef(s, env.locale)).into_owned();
    let err = |out: &mut Outcome, msg: String| {
        out.diagnose(format!("{}: {msg}\n", env.program).as_bytes());
        out.status = 1;
    };

    // Input sources.
    let list = match &opts.files0_from {
        None => NameList {
            names: opts.operands.clone(),
            known_up_front: true,
            read_error: None,
        },
        Some(f) => {
            let (node, data) = if f.as_slice() == b"-" {
                let (d, e) = reads.read_stdin();
                (world.stdin.node.clone(), (d, e))
            } else {
                let opened = match world.lookup(f) {
                    Ok(Node::Unreadable) => Err(Errno::Access),
                    other => other,
                };
                match opened {
                    Err(e) => {
                        err(
                            &mut out,
                            format!(
                                "cannot open {} for reading: {}",
                                String::from_utf8_lossy(&quoteaf(f, env.locale)),
                                e.message()
                            ),
                        );
                        out.close_at_exit(&env.program, world, 1);
                        return out;
                    }
                    Ok(n) => (n.clone(), reads.read_named(f).expect("exists")),
                }
            };
            let (bytes, read_error) = data;
            // Known from `fstat`: a list that cannot be described is read
            // name by name.
            let described = match f.as_slice() {
                b"-" => !world.stdin_undescribed(),
                _ => !world.undescribed(f),
            };
            let known_up_front =
                described && matches!(node, Node::Regular(_)) && bytes.len() <= 10 * 1024 * 1024;
            if let (true, Some(_)) = (known_up_front, read_error) {
                // GNU reads a small regular list whole, before counting
                // anything, and gives up if it cannot.
                err(
                    &mut out,
                    format!(
                        "cannot read file names from {}",
                        String::from_utf8_lossy(&quoteaf(f, env.locale))
                    ),
                );
                out.close_at_exit(&env.program, world, 1);
                return out;
            }
            NameList {
                names: split_nul_names(&bytes),
                known_up_front,
                read_error,
            }
        }
    };

    // Number width.
    let stdin_only = opts.files0_from.is_none() && list.names.is_empty();
    let nfiles = if stdin_only { 1 } else { list.names.len() };
    let width = if opts.total == TotalMode::Only
        || !list.known_up_front
        || nfiles == 0
        || (nfiles == 1 && opts.select.count() == 1)
    {
        1
    } else {
        let mut minimum = 1;
        let mut regular_total: u64 = 0;
        // A failed `fstat` (closed stdin) leaves the width alone.  GNU
        // closes a stdin it read a whole list of names from, so a `-` in
        // that list is not described either.
        let list_closed_stdin =
            list.known_up_front && opts.files0_from.as_deref() == Some(b"-".as_slice());
        let stats: Vec<Option<Stat>> = if stdin_only {
            vec![world.fstat_stdin().ok()]
        } else {
            list.names
                .iter()
                .map(|n| {
                    if n.as_slice() == b"-" && list_closed_stdin {
                        None
                    } else if n.as_slice() == b"-" {
                        world.fstat_stdin().ok()
                    } else {
                        world.stat(n).ok()
                    }
                })
                .collect()
        };
        for s in stats.into_iter().flatten() {
            match s {
                Stat::Regular { size } => regular_total = regular_total.saturating_add(size),
                Stat::Other => minimum = 7,
            }
        }
        regular_total.to_string().len().max(minimum)
    };

    // Count each input.
    let mut total = Counts::default();
    let emit = |out: &mut Outcome, counts: &Counts, name: Option<&[u8]>| {
        if opts.total != TotalMode::Only {
            out.stdout
                .extend(format_counts(&opts.select, width, counts, name, env.locale));
        }
    };
    let from_stdin_list = opts.files0_from.as_deref() == Some(b"-".as_slice());
    for (index, name) in list.names.iter().enumerate() {
        if from_stdin_list && name.as_slice() == b"-" {
            err(
                &mut out,
                format!(
                    "when reading file names from standard input, no file name of {} allowed",
                    String::from_utf8_lossy(&quoteaf(name, env.locale))
                ),
            );
            continue;
        }
        if name.is_empty() {
            match &opts.files0_from {
                None => err(&mut out, "invalid zero-length file name".to_string()),
                Some(f) => err(
                    &mut out,
                    format!("{}:{}: invalid zero-length file name", q(f), index + 1),
                ),
            }
            continue;
        }
        let read = if name.as_slice() == b"-" {
            Ok(reads.read_stdin())
        } else {
            reads.read_named(name)
        };
        match read {
            Err(e) => err(&mut out, format!("{}: {}", q(name), e.message())),
            Ok((data, read_error)) => {
                let (counts, read_error) =
                    counts_of_read(&opts.select, env, world, Some(name), &data, read_error);
                // Current GNU prints the counts of what it read, then the
                // read error (9.1 the other way round: docs/differences.md).
                emit(&mut out, &counts, Some(name));
                total.add(&counts);
                if let Some(e) = read_error {
                    err(&mut out, format!("{}: {}", q(name), e.message()));
                }
            }
        }
    }
    if let Some(e) = list.read_error {
        let f = opts.files0_from.as_deref().unwrap_or_default();
        err(&mut out, format!("{}: read error: {}", q(f), e.message()));
    }
    if stdin_only {
        let (data, read_error) = reads.read_stdin();
        let (counts, read_error) =
            counts_of_read(&opts.select, env, world, None, &data, read_error);
        emit(&mut out, &counts, None);
        total.add(&counts);
        if let Some(e) = read_error {
            err(
                &mut out,
                format!("{}: {}", q(b"standard input"), e.message()),
            );
        }
    }

    // Total line.
    let print_total = match opts.total {
        TotalMode::Never => false,
        TotalMode::Auto => list.names.len() > 1,
        TotalMode::Always | TotalMode::Only => true,
    };
    if print_total {
        let name = (opts.total != TotalMode::Only).then_some(b"total".as_slice());
        out.stdout
            .extend(format_counts(&opts.select, width, &total, name, env.locale));
    }
    // GNU closes stdin at the end if it counted it, and reports a failure.
    let counted_stdin =
        stdin_only || (!from_stdin_list && list.names.iter().any(|n| n.as_slice() == b"-"));
    if counted_stdin && world.stdin_closed() {
        err(&mut out, format!("-: {}", Errno::BadDescriptor.message()));
    }

    if out.clip_stdout(stdout_failure) {
        err(&mut out, write_error_text(stdout_failure));
    } else {
        out.close_at_exit(&env.program, world, 1);
    }
    out
}

/// GNU's `close_stdout` names no reason for a failed write (gnulib's
/// `close_stream` clears errno when closing worked), except when closing
/// fails too: a closed stdout, EBADF.
fn write_error_text(failure: Option<StdoutFailure>) -> String {
    match failure {
        Some(f) if f.errno == Errno::BadDescriptor => {
            format!("write error: {}", f.errno.message())
        }
        _ => "write error".to_string(),
    }
}

/// The block size of the model's file system (`st_blksize`).
pub const BLOCK_SIZE: usize = 4096;

/// Where GNU's count of a regular file's bytes by its size starts reading,
/// if it reads at all (`count_bytes` in wc.c): only a size that is a
/// multiple of the page size (as /proc files show) is distrusted, and the
/// file is read from one block past the last multiple of a block and a
/// byte, or from `start` if that is later.
pub fn size_count_reads_from(size: usize, start: usize) -> Option<usize> {
    size.is_multiple_of(PAGE_SIZE)
        .then(|| start.max(size - size % (BLOCK_SIZE + 1)))
}

/// The page size of the model's machine.
pub const PAGE_SIZE: usize = 4096;

/// The counts of one input from what reading it gave, and the error to
/// report.  GNU counts the bytes of a regular file by its size when only
/// bytes are wanted, and reads nothing (so meets no read error) unless the
/// size is a multiple of the page size, as /proc files' sizes are: then
/// it reads from one block before the end (`wc.c`, `count_bytes`).  This
/// matters only when reading would fail.  A file its `stat` cannot
/// describe has no size, and is read.
fn counts_of_read(
    select: &Selection,
    env: &WcEnv,
    world: &World,
    name: Option<&[u8]>,
    data: &[u8],
    read_error: Option<Errno>,
) -> (Counts, Option<Errno>) {
    let counts = count(data, env);
    let bytes_only = select.bytes_only(env.locale);
    let stdin = name.is_none_or(|n| n == b"-");
    if stdin && world.stdin_undescribed() {
        return (counts, read_error);
    }
    let (node, start, error_at) = if stdin {
        (
            &world.stdin.node,
            world.stdin.offset,
            world.read_errors.stdin,
        )
    } else {
        let name = name.unwrap_or_default();
        if world.undescribed(name) {
            return (counts, read_error);
        }
        match world.lookup(name) {
            Ok(node) => (node, 0, world.read_errors.files.get(name).copied()),
            Err(_) => return (counts, read_error),
        }
    };
    let (Node::Regular(file), Some(at), true, Some(Errno::Io)) =
        (node, error_at, bytes_only, read_error)
    else {
        return (counts, read_error);
    };
    let size = file.len();
    let (bytes, error) = match size_count_reads_from(size, start) {
        None => (size.saturating_sub(start), None),
        Some(from) => (
            (from - start) + at.min(size).saturating_sub(from),
            read_error,
        ),
    };
    // In the C locale a character is a byte (`chars = bytes` in GNU).
    let counts = Counts {
        bytes: bytes as u64,
        chars: if select.chars { bytes as u64 } else { 0 },
        ..Counts::default()
    };
    (counts, error)
}

/// Split a `--files0-from` list: names end at NUL; a last name without a
/// terminating NUL still counts if it is not empty.
pub fn split_nul_names(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut names: Vec<Vec<u8>> = bytes.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
    if names.last().is_some_and(|n| n.is_empty()) {
        names.pop();
    }
    names
}
