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
//!   from its start if that NUL is in the probe: the first 32 KiB (where
//!   GNU, which reads 32 KiB first, agrees on every input), or on a stdin
//!   that pauses before 32 KiB have come, the bytes before its first pause
//!   (what GNU's first read returns).  From that point NULs also
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
//! - Pauses (`World::stdin_pauses`): when a stream stdin pauses, what the
//!   bytes so far decide has been written, and a search they end has
//!   ended: the lines whole by then are searched (the partial last one
//!   waits for its end), their output and context are written, and `-q`,
//!   `-l`, `-L` and a reached `-m` exit (see [`grep_at_pauses`]).

mod args;
pub mod chars;
pub mod color;
pub mod glob;
pub mod matcher;
mod options;
mod patterns;
pub mod perl;
mod run;
pub mod syntax;
mod walk;

use crate::Locale;
pub use args::{help_text, option_names, parse_args};
pub use options::*;
pub use patterns::*;
pub use run::{grep, grep_at_pauses, grep_in_tree, grep_leaving_stdin};
pub use syntax::{CompileError, PatternConfig, Syntax};

/// An output line's prefix: `NAME` then `sep` (a NUL with `-Z`), the line
/// number with `-n`, the byte offset with `-b`, each followed by `sep`
/// (`:` for a selected line, `-` for context), each in its colour when
/// `colors` are given.  With `-T` the numbers are
/// right-aligned to `width` and a tab follows the prefix when there is one
/// and the text after it (`text_len` bytes) is not empty.
#[allow(clippy::too_many_arguments)]
pub fn write_prefix(
    out: &mut Vec<u8>,
    opts: &GrepOptions,
    name: Option<&[u8]>,
    number: u64,
    offset: u64,
    sep: u8,
    width: usize,
    text_len: usize,
    colors: Option<&color::Colors>,
) {
    // Each piece in its colour (`fn`, `ln`, `bn`, `se`) when coloured.
    let paint = |out: &mut Vec<u8>, pick: fn(&color::Colors) -> &[u8], text: &[u8]| match colors {
        Some(c) => c.paint(out, pick(c), text),
        None => out.extend_from_slice(text),
    };
    if let Some(name) = name {
        paint(out, |c| &c.fname, name);
        match opts.null_after_name {
            true => out.push(0),
            false => paint(out, |c| &c.se, &[sep]),
        }
    }
    let width = if opts.initial_tab { width } else { 0 };
    if opts.line_number {
        paint(out, |c| &c.ln, format!("{number:>width$}").as_bytes());
        paint(out, |c| &c.se, &[sep]);
    }
    if opts.byte_offset {
        paint(out, |c| &c.bn, format!("{offset:>width$}").as_bytes());
        paint(out, |c| &c.se, &[sep]);
    }
    let any = name.is_some() || opts.line_number || opts.byte_offset;
    if opts.initial_tab && any && text_len != 0 {
        out.push(b'\t');
    }
}

/// `-T`'s width for numbers: the digits of the file's size (plus one with
/// `-n`), or of the largest `intmax_t` when the size is unknown (a pipe).
pub fn number_width(size: Option<u64>, line_number: bool) -> usize {
    let n = match size {
        Some(s) if s < i64::MAX as u64 => s + u64::from(line_number),
        _ => i64::MAX as u64,
    };
    n.to_string().len()
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

/// Where an input turns binary (see the module docs), if it does, with
/// the 32 KiB probe.
pub fn binary_point(data: &[u8], terminator: u8, binary_files: BinaryFiles) -> Option<usize> {
    binary_point_probed(data, terminator, binary_files, BINARY_PREFIX)
}

/// [`binary_point`] with a probe of `probe` bytes: a NUL within them makes
/// the input binary from its start.
pub fn binary_point_probed(
    data: &[u8],
    terminator: u8,
    binary_files: BinaryFiles,
    probe: usize,
) -> Option<usize> {
    if binary_files == BinaryFiles::Text || terminator == 0 {
        return None;
    }
    let nul = data.iter().position(|&b| b == 0)?;
    if nul < probe {
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
