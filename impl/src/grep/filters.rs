//! `--include`, `--exclude`, `--exclude-from` and `--exclude-dir`, as
//! gnulib's `exclude.c` applies them for GNU grep 3.8, with glibc's own
//! `fnmatch` (`crate::sys::fnmatch_in`).  The reference has a matcher of
//! its own (`samebytes_spec::grep::glob`), so the two are compared.
//!
//! gnulib keeps the patterns in segments, newest first: a run of patterns
//! with wildcards and the same include-ness is one segment, matched by
//! `fnmatch`; a run of plain names is another, compared after their
//! backslashes are removed.  The first segment with a match decides; if
//! none has one, a name is excluded only when the oldest pattern was an
//! `--include`.  Since a segment's patterns share their include-ness,
//! that is the include-ness of the newest matching pattern, which is
//! what is computed here.

use samebytes_spec::grep::{FilterSource, GrepOptions};
use samebytes_spec::Locale;

/// One pattern, as gnulib stores it.
struct Pattern {
    include: bool,
    /// Has `*`, `?`, `[` or `]` not quoted by a backslash: matched by
    /// `fnmatch`; otherwise compared as a plain name.
    wild: bool,
    /// The pattern up to its first NUL (gnulib holds C strings); a plain
    /// one with its backslashes removed.
    text: Vec<u8>,
}

impl Pattern {
    fn new(include: bool, pattern: &[u8]) -> Pattern {
        let pattern = &pattern[..memchr::memchr(0, pattern).unwrap_or(pattern.len())];
        let wild = has_wildcards(pattern);
        let text = match wild {
            true => pattern.to_vec(),
            false => unescape(pattern),
        };
        Pattern {
            include,
            wild,
            text,
        }
    }

    /// Does it match `name`, or (not `anchored`) a part of `name` after a
    /// `/`?  `fnmatch` is not asked about a part that starts with a `/`;
    /// a plain name is compared with every part.
    fn matches(&self, name: &[u8], anchored: bool, utf8: bool) -> bool {
        let one = |candidate: &[u8]| match self.wild {
            true => crate::sys::fnmatch_in(&self.text, candidate, utf8),
            false => candidate == self.text.as_slice(),
        };
        if one(name) {
            return true;
        }
        !anchored
            && memchr::memchr_iter(b'/', name)
                .filter(|&i| !(self.wild && name.get(i + 1) == Some(&b'/')))
                .any(|i| one(&name[i + 1..]))
    }
}

/// gnulib's `fnmatch_pattern_has_wildcards` without `FNM_NOESCAPE`.
fn has_wildcards(pattern: &[u8]) -> bool {
    let mut bytes = pattern.iter();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => {
                bytes.next();
            }
            b'?' | b'*' | b'[' | b']' => return true,
            _ => {}
        }
    }
    false
}

/// gnulib's `unescape_pattern`: a backslash before a byte is dropped (a
/// last one stays).
fn unescape(pattern: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut bytes = pattern.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        match (b, bytes.peek()) {
            (b'\\', Some(&quoted)) => {
                out.push(quoted);
                bytes.next();
            }
            _ => out.push(b),
        }
    }
    out
}

/// One list of patterns in command-line order.
#[derive(Default)]
struct List(Vec<Pattern>);

impl List {
    fn excludes(&self, name: &[u8], anchored: bool, utf8: bool) -> bool {
        let Some(oldest) = self.0.first() else {
            return false;
        };
        match self
            .0
            .iter()
            .rev()
            .find(|p| p.matches(name, anchored, utf8))
        {
            Some(p) => !p.include,
            None => oldest.include,
        }
    }
}

/// The filters of one run.
pub(super) struct Filters {
    /// For entries met in a walk, matched against their own names.
    walked: List,
    /// For command-line names: GNU reads each `--exclude-from` file once
    /// per list, so `--exclude-from=-` gives stdin to the walk's list only.
    command_line: List,
    dirs: List,
    utf8: bool,
}

/// An `--exclude-from` file that could not be read: its name and error.
pub(super) type FilterFileError = (Vec<u8>, std::io::Error);

impl Filters {
    /// Read the filters; `read` gives a named file's bytes (stdin for `-`).
    pub(super) fn read(
        opts: &GrepOptions,
        locale: Locale,
        mut read: impl FnMut(&[u8]) -> std::io::Result<Vec<u8>>,
    ) -> Result<Filters, FilterFileError> {
        let mut lists = [List::default(), List::default()];
        for source in &opts.filters {
            for list in lists.iter_mut() {
                match source {
                    FilterSource::Include(p) => list.0.push(Pattern::new(true, p)),
                    FilterSource::Exclude(p) => list.0.push(Pattern::new(false, p)),
                    FilterSource::ExcludeFrom(name) => {
                        let data = read(name).map_err(|e| (name.clone(), e))?;
                        list.0
                            .extend(file_lines(&data).map(|p| Pattern::new(false, p)));
                    }
                }
            }
        }
        let [walked, command_line] = lists;
        let dirs = List(
            (opts.dir_excludes.iter())
                .map(|p| Pattern::new(false, p))
                .collect(),
        );
        Ok(Filters {
            walked,
            command_line,
            dirs,
            utf8: locale == Locale::Utf8,
        })
    }

    /// Is an entry met in a walk, of this name, skipped?
    pub(super) fn skips_entry(&self, name: &[u8], is_dir: bool) -> bool {
        let list = if is_dir { &self.dirs } else { &self.walked };
        list.excludes(name, true, self.utf8)
    }

    /// Is a command-line name skipped?
    pub(super) fn skips_operand(&self, name: &[u8], is_dir: bool) -> bool {
        let list = if is_dir {
            &self.dirs
        } else {
            &self.command_line
        };
        list.excludes(name, false, self.utf8)
    }
}

/// The patterns of an `--exclude-from` file: its lines with trailing
/// white space (C's `isspace`) removed, empty ones dropped.
fn file_lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    data.split(|&b| b == b'\n').filter_map(|line| {
        let end = line.iter().rposition(|b| !b" \t\n\x0b\x0c\r".contains(b))?;
        Some(&line[..=end])
    })
}
