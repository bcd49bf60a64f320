//! What a grep command line asks for, once parsed: the options, the
//! settings GNU derives from them, and the environment that matters.

use super::syntax::{PatternConfig, Syntax};
use crate::{Locale, Outcome};

/// The process environment that matters to grep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepEnv {
    pub locale: Locale,
    pub posixly_correct: bool,
    /// `argv[0]`, used in every diagnostic.
    pub program: String,
    /// `GREP_COLOR`, `GREP_COLORS` and `TERM`, if set.
    pub grep_color: Option<Vec<u8>>,
    pub grep_colors: Option<Vec<u8>>,
    pub term: Option<Vec<u8>>,
    /// Stdout is a terminal (for `--color=auto`).
    pub stdout_is_terminal: bool,
}

impl GrepEnv {
    pub fn new(locale: Locale) -> GrepEnv {
        GrepEnv {
            locale,
            posixly_correct: false,
            program: "grep".into(),
            grep_color: None,
            grep_colors: None,
            term: None,
            stdout_is_terminal: false,
        }
    }
}

/// `--color=WHEN`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColorWhen {
    #[default]
    Never,
    /// When stdout is a terminal and `TERM` is not `dumb`.
    Auto,
    Always,
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

/// `-d ACTION` (`-r` is `recurse`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Directories {
    /// Read a directory as a file: `Is a directory`.
    #[default]
    Read,
    Skip,
    Recurse,
}

/// `-D ACTION`: devices, FIFOs and sockets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Devices {
    /// Read those named on the command line, skip those met in a walk
    /// (`-R` reads them all).
    #[default]
    ReadCommandLine,
    Read,
    Skip,
}

/// One `--include`, `--exclude` or `--exclude-from`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterSource {
    Include(Vec<u8>),
    Exclude(Vec<u8>),
    /// A file of `--exclude` patterns, one per line (`-` is stdin).
    ExcludeFrom(Vec<u8>),
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
    pub directories: Directories,
    pub devices: Devices,
    /// `-R`: follow every symbolic link met in a walk, not only those
    /// named on the command line.
    pub dereference: bool,
    /// `--include`, `--exclude` and `--exclude-from`, in command-line
    /// order.
    pub filters: Vec<FilterSource>,
    /// `--exclude-dir`, trailing slashes removed.
    pub dir_excludes: Vec<Vec<u8>>,
    /// `-T`: numbers padded to the file's width, a tab before the line.
    pub initial_tab: bool,
    pub line_buffered: bool,
    /// `--color`.
    pub color: ColorWhen,
    /// Warnings GNU prints while parsing options (`-u`).
    pub warnings: Vec<String>,
    pub operands: Vec<Vec<u8>>,
}

impl GrepOptions {
    /// What the patterns are compiled with, in this locale.  `-x` makes
    /// `-w` moot.
    pub fn pattern_config(&self, locale: Locale) -> PatternConfig {
        PatternConfig {
            syntax: self.syntax,
            ignore_case: self.ignore_case,
            word: self.word && !self.line,
            line: self.line,
            locale,
            terminator: if self.null_data { 0 } else { b'\n' },
        }
    }

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
