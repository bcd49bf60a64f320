//! Command-line names and the recursive walk, as GNU grep 3.8 does them
//! (`grep_command_line_arg`, `grepdesc` and `grepdirent` over gnulib's
//! fts, with no sorting):
//! - A command-line name is opened following symbolic links.  A device
//!   (FIFO, socket, character or block device) is skipped with `-D skip`;
//!   a name `--include`/`--exclude` reject (unanchored), or a directory
//!   `--exclude-dir` rejects, is skipped without a word; the implicit `.`
//!   of `-r` with no operand never is.
//! - With `-r` a directory is walked depth first, each directory's
//!   entries in `readdir` order, an entry's name being its parent's
//!   name, `/`, and its own (two or more trailing slashes of an operand
//!   become one; the implicit `.` is left off the front).
//! - An entry `--include`/`--exclude` (or, for a directory,
//!   `--exclude-dir`) rejects by its own name is skipped first.  Then:
//!   a directory that is also one of those being walked is a loop
//!   (`warning: recursive directory loop`, no error status); one that
//!   cannot be read is an error; symbolic links are skipped silently
//!   under `-r` and followed under `-R` (a dangling one is an error);
//!   devices are skipped unless `-D read` or `-R`.

use std::ops::ControlFlow;

use super::glob::{exclude_file_patterns, excluded, Filter, FilterKind};
use super::run::{Input, OperandEnd, Run};
use super::*;
use crate::tree::{child_key, Entry, Tree};
use crate::world::{Node, Reads, World};
use crate::{Errno, Locale};

/// Where named files are looked up: the flat world, or a tree.
pub(super) struct Files<'a> {
    pub world: &'a World,
    pub tree: Option<&'a Tree>,
}

/// What `open` gives for a name.
enum Opened {
    Regular(Vec<u8>, Option<Errno>),
    Dir,
    Device(Vec<u8>),
}

impl Files<'_> {
    /// `open(name)`, following a symbolic link at the end only if
    /// `follow` (else it fails with ELOOP).  Also the tree key it reached.
    fn open(
        &self,
        name: &[u8],
        follow: bool,
        reads: &Reads<'_>,
    ) -> Result<(Opened, Vec<u8>), Errno> {
        let Some(tree) = self.tree else {
            let opened = match self.world.lookup(name)? {
                Node::Regular(_) => {
                    let (data, error) = reads.read_named_described(name)?;
                    Opened::Regular(data, error)
                }
                Node::Stream(d) => Opened::Device(d.clone()),
                Node::Directory => Opened::Dir,
                Node::Unreadable => return Err(Errno::Access),
                Node::Closed => return Err(Errno::NoEntry),
            };
            return Ok((opened, name.to_vec()));
        };
        let key = tree.resolve(name, follow)?;
        if let Some(e) = tree.open_and_stat_error(&key) {
            return Err(e);
        }
        let opened = match tree.get(&key) {
            Some(Entry::File(d)) => Opened::Regular(d.clone(), None),
            Some(Entry::Special(d)) => Opened::Device(d.clone()),
            Some(Entry::Dir(_)) | None => Opened::Dir,
            Some(Entry::Symlink(_)) => return Err(Errno::Loop),
        };
        Ok((opened, key))
    }

    /// Read a named file whole (`-f`, `--exclude-from`): its bytes and the
    /// error that ended them, or the error that kept it from opening.
    pub fn read_file(
        &self,
        name: &[u8],
        reads: &Reads<'_>,
    ) -> Result<(Vec<u8>, Option<Errno>), Errno> {
        // Read whole, whatever `fstat` says (gnulib's `fread_file` only
        // sizes its buffer by it).
        if self.tree.is_none() {
            return reads.read_named(name);
        }
        match self.open(name, true, reads)?.0 {
            Opened::Regular(d, e) => Ok((d, e)),
            Opened::Device(d) => Ok((d, None)),
            Opened::Dir => Ok((Vec::new(), Some(Errno::IsDirectory))),
        }
    }

    /// The entries of the directory with this key, in `readdir` order,
    /// and the error its listing stops at after them, if it fails.
    fn names(&self, key: &[u8]) -> (Vec<Vec<u8>>, Option<Errno>) {
        let mut names = match self.tree.and_then(|t| t.get(key)) {
            Some(Entry::Dir(names)) => names.clone(),
            _ => Vec::new(),
        };
        let stop = self.tree.and_then(|t| t.list_errors.get(key));
        if let Some(&read) = stop {
            names.truncate(read);
        }
        (names, stop.map(|_| Errno::Io))
    }

    /// Is the input with this key the regular file stdout appends to?
    fn is_output(&self, key: &[u8], stdout: &GrepStdout) -> bool {
        let GrepStdout::File(out) = stdout else {
            return false;
        };
        match self.tree {
            None => out == key,
            Some(tree) => tree.resolve(out, true).is_ok_and(|k| k == key),
        }
    }
}

/// `--include`, `--exclude`, `--exclude-from` and `--exclude-dir`, read.
pub(super) struct Filters {
    /// For entries met in a walk (matched against their own names).
    walked: Vec<Filter>,
    /// For command-line names.  GNU reads an `--exclude-from` file once
    /// for each list, so `--exclude-from=-` gives stdin's lines to the
    /// walk's list only.
    command_line: Vec<Filter>,
    dirs: Vec<Filter>,
    locale: Locale,
}

impl Filters {
    pub fn read(
        opts: &GrepOptions,
        locale: Locale,
        files: &Files<'_>,
        reads: &mut Reads<'_>,
    ) -> Result<Filters, (Vec<u8>, Errno)> {
        let mut lists = [Vec::new(), Vec::new()];
        let filter = |kind, pattern: &[u8]| Filter {
            kind,
            pattern: pattern.to_vec(),
        };
        for source in &opts.filters {
            for list in lists.iter_mut() {
                match source {
                    FilterSource::Include(p) => list.push(filter(FilterKind::Include, p)),
                    FilterSource::Exclude(p) => list.push(filter(FilterKind::Exclude, p)),
                    FilterSource::ExcludeFrom(name) => {
                        let (data, error) = match name.as_slice() {
                            b"-" => reads.read_stdin(),
                            _ => files
                                .read_file(name, reads)
                                .map_err(|e| (name.clone(), e))?,
                        };
                        if let Some(e) = error {
                            return Err((name.clone(), e));
                        }
                        let patterns = exclude_file_patterns(&data);
                        list.extend(patterns.iter().map(|p| filter(FilterKind::Exclude, p)));
                    }
                }
            }
        }
        let [walked, command_line] = lists;
        let dirs = (opts.dir_excludes.iter())
            .map(|p| filter(FilterKind::Exclude, p))
            .collect();
        Ok(Filters {
            walked,
            command_line,
            dirs,
            locale,
        })
    }

    /// Is a file (or with `is_dir` a directory) of this name skipped?
    fn skipped(&self, name: &[u8], command_line: bool, is_dir: bool) -> bool {
        let list = match (is_dir, command_line) {
            (true, _) => &self.dirs,
            (false, true) => &self.command_line,
            (false, false) => &self.walked,
        };
        excluded(list, name, !command_line, self.locale)
    }
}

/// The name fts gives a path: two or more trailing slashes become one.
fn fts_root(name: &[u8]) -> Vec<u8> {
    let mut len = name.len();
    if len > 2 && name[len - 1] == b'/' {
        while len > 1 && name[len - 2] == b'/' {
            len -= 1;
        }
    }
    name[..len].to_vec()
}

/// An entry's name: its parent's, one trailing slash dropped, `/`, its own.
fn fts_child(parent: &[u8], name: &[u8]) -> Vec<u8> {
    let parent = parent.strip_suffix(b"/").unwrap_or(parent);
    [parent, b"/", name].concat()
}

/// What a walk found so far: did a file have a selected line, was there an
/// error.
#[derive(Default)]
struct Found {
    selected: bool,
    error: bool,
}

impl Found {
    fn add(&mut self, end: OperandEnd) -> ControlFlow<OperandEnd> {
        match end {
            OperandEnd::Next { selected, error } => {
                self.selected |= selected;
                self.error |= error;
                ControlFlow::Continue(())
            }
            end => ControlFlow::Break(end),
        }
    }
}

impl Run<'_> {
    /// Devices met in a walk are read only with `-D read`, or `-R` without
    /// a `-D`.
    fn walk_skips_devices(&self) -> bool {
        match self.opts.devices {
            Devices::Read => false,
            Devices::Skip => true,
            Devices::ReadCommandLine => !self.opts.dereference,
        }
    }

    /// One command-line name (not `-`).
    pub(super) fn command_line_arg(
        &mut self,
        name: &[u8],
        files: &Files<'_>,
        filters: &Filters,
        reads: &mut Reads<'_>,
        stdout: &GrepStdout,
    ) -> OperandEnd {
        let skip = OperandEnd::Next {
            selected: false,
            error: false,
        };
        let (opened, key) = match files.open(name, true, reads) {
            Ok(o) => o,
            Err(e) => {
                self.file_error(name, e.message());
                return OperandEnd::Next {
                    selected: false,
                    error: true,
                };
            }
        };
        let is_dir = matches!(opened, Opened::Dir);
        if matches!(opened, Opened::Device(_)) && self.opts.devices == Devices::Skip {
            return skip;
        }
        let dir_kept = is_dir && self.omit_dot_slash && self.opts.directories != Directories::Skip;
        if !dir_kept && self.command_line_skipped(name, is_dir, filters) {
            return skip;
        }
        self.with_filename.get_or_insert(is_dir);
        if is_dir && self.opts.directories == Directories::Recurse {
            let mut found = Found::default();
            let mut walking = vec![key.clone()];
            let root = fts_root(name);
            return match self.walk_dir(
                &root,
                &key,
                &mut walking,
                files,
                filters,
                reads,
                stdout,
                &mut found,
            ) {
                ControlFlow::Break(end) => end,
                ControlFlow::Continue(()) => OperandEnd::Next {
                    selected: found.selected,
                    error: found.error,
                },
            };
        }
        let (data, read_error, size) = match opened {
            Opened::Regular(d, e) => {
                let size = Some(d.len() as u64);
                (d, e, size)
            }
            Opened::Device(d) => (d, None, None),
            Opened::Dir => (Vec::new(), Some(Errno::IsDirectory), None),
        };
        let input = Input {
            display: name.to_vec(),
            data,
            read_error,
            size,
            is_stdin: false,
            is_output: files.is_output(&key, stdout),
            probe: BINARY_PREFIX,
            open: false,
        };
        self.search_input(input, files.world, reads, stdout)
    }

    fn command_line_skipped(&self, name: &[u8], is_dir: bool, filters: &Filters) -> bool {
        if is_dir && self.opts.directories == Directories::Skip {
            return true;
        }
        filters.skipped(name, true, is_dir)
    }

    /// The name an entry is reported by.
    fn shown(&self, path: &[u8]) -> Vec<u8> {
        match self.omit_dot_slash && path.len() > 1 {
            true => path[2..].to_vec(),
            false => path.to_vec(),
        }
    }

    /// Walk the directory `path` (tree key `key`), whose entries are
    /// searched in `readdir` order; `walking` holds the keys of the
    /// directories being walked, `key` last.
    #[allow(clippy::too_many_arguments)]
    fn walk_dir(
        &mut self,
        path: &[u8],
        key: &[u8],
        walking: &mut Vec<Vec<u8>>,
        files: &Files<'_>,
        filters: &Filters,
        reads: &mut Reads<'_>,
        stdout: &GrepStdout,
        found: &mut Found,
    ) -> ControlFlow<OperandEnd> {
        let tree = files.tree;
        if let Some(e) = tree.and_then(|t| t.open_error(key)) {
            self.file_error(&self.shown(path), e.message());
            found.error = true;
            return ControlFlow::Continue(());
        }
        let (names, list_error) = files.names(key);
        for name in names {
            let entry_path = fts_child(path, &name);
            let shown = self.shown(&entry_path);
            let link_key = child_key(key, &name);
            // `-R` stats each entry, following links; `-r` does not.
            let target = match (self.opts.dereference, tree) {
                (true, Some(t)) => t.resolve(&link_key, true),
                _ => Ok(link_key.clone()),
            };
            let entry = target
                .as_ref()
                .ok()
                .and_then(|k| tree.and_then(|t| t.get(k)));
            // fts describes each directory, and under `-R` each link,
            // before it goes on: one that cannot be described is filtered
            // as a file, then reported.  Files it leaves to their `fstat`.
            let own = tree.and_then(|t| t.get(&link_key));
            let described = matches!(own, Some(Entry::Dir(_)))
                || (self.opts.dereference && matches!(own, Some(Entry::Symlink(_))));
            let undescribed = described
                && target
                    .as_ref()
                    .is_ok_and(|k| tree.is_some_and(|t| t.stat_errors.contains(k)));
            let is_dir = !undescribed && matches!(entry, Some(Entry::Dir(_)));
            if filters.skipped(&name, false, is_dir) {
                continue;
            }
            if undescribed {
                self.file_error(&shown, Errno::Io.message());
                found.error = true;
                continue;
            }
            let target = match target {
                Ok(k) => k,
                Err(e) => {
                    // A dangling link, or a loop of links.
                    self.file_error(&shown, e.message());
                    found.error = true;
                    continue;
                }
            };
            let (data, size) = match entry {
                Some(Entry::Dir(_)) if walking.contains(&target) => {
                    if !self.opts.no_messages {
                        let program = &self.env.program;
                        let n = String::from_utf8_lossy(&shown);
                        self.out.diagnose(format!(
                            "{program}: {n}: warning: recursive directory loop\n"
                        ));
                    }
                    continue;
                }
                Some(Entry::Dir(_)) => {
                    walking.push(target.clone());
                    let flow = self.walk_dir(
                        &entry_path,
                        &target,
                        walking,
                        files,
                        filters,
                        reads,
                        stdout,
                        found,
                    );
                    walking.pop();
                    flow?;
                    continue;
                }
                // Opened with O_NOFOLLOW: ELOOP, which GNU does not report.
                Some(Entry::Symlink(_)) | None => continue,
                Some(Entry::Special(_)) if self.walk_skips_devices() => continue,
                Some(Entry::Special(d)) => (d.clone(), None),
                Some(Entry::File(d)) => (d.clone(), Some(d.len() as u64)),
            };
            if let Some(e) = tree.and_then(|t| t.open_and_stat_error(&target)) {
                self.file_error(&shown, e.message());
                found.error = true;
                continue;
            }
            let input = Input {
                display: shown,
                data,
                read_error: None,
                size,
                is_stdin: false,
                is_output: files.is_output(&target, stdout),
                probe: BINARY_PREFIX,
                open: false,
            };
            found.add(self.search_input(input, files.world, reads, stdout))?;
        }
        // fts reports a listing that failed when it leaves the directory,
        // after the entries it did read.
        if let Some(e) = list_error {
            self.file_error(&self.shown(path), e.message());
            found.error = true;
        }
        ControlFlow::Continue(())
    }
}
