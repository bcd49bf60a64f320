//! GNU grep's command line: its option tables, `--help`, and the parse
//! into [`GrepOptions`].

use super::options::*;
use super::syntax::Syntax;
use crate::getopt::{self, argmatch, HasArg, Item, LongOpt, OptionTable, ShortOpt};
use crate::Outcome;

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

/// The options this parser accepts, by name (for the manual page).
pub fn option_names() -> crate::getopt::OptionNames {
    crate::getopt::OptionNames::of::<OptId>(SHORTS, LONGS)
}

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
  -P, --perl-regexp         PATTERNS are Perl regular expressions
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
                            ACTION is 'read', 'recurse', or 'skip'
  -D, --devices=ACTION      how to handle devices, FIFOs and sockets;
                            ACTION is 'read' or 'skip'
  -r, --recursive           like --directories=recurse
  -R, --dereference-recursive  likewise, but follow all symlinks
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN],
      --colour[=WHEN]       use markers to highlight the matching strings;
                            WHEN is 'always', 'never', or 'auto'
  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.

Not supported (it fails with status 2): -X awk, -X gawk, -X posixawk.

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
            // GNU compares `-D`'s argument exactly, not as an abbreviation.
            OptId::Devices => match arg.as_slice() {
                b"read" => o.devices = Devices::Read,
                b"skip" => o.devices = Devices::Skip,
                _ => return trouble(program, "unknown devices method"),
            },
            OptId::Directories => {
                match argmatch(
                    &arg,
                    &[
                        ("read", Directories::Read),
                        ("recurse", Directories::Recurse),
                        ("skip", Directories::Skip),
                    ],
                ) {
                    Ok(d) => o.directories = d,
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
            OptId::Extended | OptId::Fixed | OptId::Basic | OptId::Perl | OptId::Matcher => {
                // `-X NAME` (undocumented) names a matcher as -G, -E, -F
                // and -P do; its awk dialects are refused.
                let (name, syntax) = match (id, arg.as_slice()) {
                    (OptId::Extended, _) | (_, b"egrep") => ("egrep", Some(Syntax::Extended)),
                    (OptId::Fixed, _) | (_, b"fgrep") => ("fgrep", Some(Syntax::Fixed)),
                    (OptId::Basic, _) | (_, b"grep") => ("grep", Some(Syntax::Basic)),
                    (OptId::Perl, _) | (_, b"perl") => ("perl", Some(Syntax::Perl)),
                    (_, b"awk") => ("awk", None),
                    (_, b"gawk") => ("gawk", None),
                    (_, b"posixawk") => ("posixawk", None),
                    (_, other) => {
                        let other = String::from_utf8_lossy(other);
                        return trouble(program, &format!("invalid matcher {other}"));
                    }
                };
                if let Err(e) = set_matcher(name) {
                    return *e;
                }
                match syntax {
                    Some(syntax) => o.syntax = syntax,
                    None => return unsupported(&format!("-X {name}")),
                }
            }
            OptId::WithFilename => o.with_filename = Some(true),
            OptId::NoFilename => o.with_filename = Some(false),
            OptId::FilesWithout => o.list = ListFiles::NonMatching,
            OptId::FilesWith => o.list = ListFiles::Matching,
            OptId::Recursive => o.directories = Directories::Recurse,
            OptId::Deref => {
                o.directories = Directories::Recurse;
                o.dereference = true;
            }
            OptId::InitialTab => o.initial_tab = true,
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
                match when.to_ascii_lowercase().as_slice() {
                    b"never" | b"no" | b"none" => o.color = ColorWhen::Never,
                    b"auto" | b"tty" | b"if-tty" => o.color = ColorWhen::Auto,
                    b"always" | b"yes" | b"force" => o.color = ColorWhen::Always,
                    // GNU 3.8 shows its help (status 0) for any other word.
                    _ => show_help = true,
                }
            }
            OptId::Exclude => o.filters.push(FilterSource::Exclude(arg)),
            OptId::ExcludeFrom => o.filters.push(FilterSource::ExcludeFrom(arg)),
            OptId::ExcludeDir => o
                .dir_excludes
                .push(super::glob::strip_trailing_slashes(&arg)),
            OptId::Include => o.filters.push(FilterSource::Include(arg)),
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
