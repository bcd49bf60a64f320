//! The walker: the command-line names, and with `-r`/`-R` the trees under
//! them, turned into a sequence of [`Item`]s in exactly the order GNU grep
//! 3.8 meets them (`grep_command_line_arg`, then fts with no sorting:
//! depth first, each directory's entries in `readdir` order).  It only
//! decides what is searched and what is said about the walk; searching
//! is done by whoever takes the items (`run.rs` on one thread,
//! `ordered.rs` on several), which must print in this order.
//!
//! What it does for each name is the reference's (`spec/src/grep/walk.rs`):
//! - a command-line name is opened (following links) before anything is
//!   decided, so an unopenable name is an error even if it would be
//!   skipped; a device is opened later, by the thread that prints, since
//!   opening a FIFO waits for a writer as it does in GNU;
//! - an entry of a walk is judged by its own name first (`--include`,
//!   `--exclude`, `--exclude-dir`), then: a link that cannot be followed
//!   under `-R` is an error; a directory being walked already is a loop
//!   (a warning); one that cannot be listed is an error; links are
//!   skipped under `-r`; devices are skipped unless `-D read` or `-R`.
//!
//! The kernel's `d_type` saves a `stat` per entry; `lstat` (or, under
//! `-R`, `stat`) is asked only where it says nothing or names a link.

use std::fs::File;
use std::io;
use std::sync::{Arc, OnceLock};

use samebytes_spec::grep::{Devices, Directories, GrepOptions};

use super::filters::Filters;
use super::system::{DirType, GrepFiles, GrepInput, Listing, OpenFlags, RawEntry};

/// One thing to do, in output order.
pub(super) enum Item {
    /// A regular file or directory to search: opened already (a
    /// command-line name), or to be opened by its name.
    File {
        name: Vec<u8>,
        opened: Option<io::Result<GrepInput>>,
        /// An entry of a walk: its directory, open, and the length of its
        /// own name at the end of `name`, to open it by.
        dir: Option<Arc<File>>,
        leaf: usize,
    },
    /// A device (FIFO, socket, terminal…): opened in its turn, by the
    /// thread that prints.  `skipped`: a command-line name the filters
    /// reject, which GNU still opens (and reports failing to open).
    Device {
        name: Vec<u8>,
        follow: bool,
        skipped: bool,
    },
    /// The `-` operand.
    Stdin,
    /// A message about the walk (empty with `-s`), and whether it is an
    /// error for the exit status.
    Note { text: Vec<u8>, error: bool },
}

/// What the walker needs to know.
pub(super) struct Walker<'a> {
    pub(super) opts: &'a GrepOptions,
    pub(super) files: &'a dyn GrepFiles,
    pub(super) filters: &'a Filters,
    pub(super) program: &'a str,
    /// GNU's `omit_dot_slash`: `-r` with no operand walks `.` and names
    /// what it finds without the leading `./`.
    pub(super) omit_dot_slash: bool,
    /// Whether lines are prefixed with names: set by the options or, for
    /// `grep -r PATTERN NAME`, by whether NAME is a directory, decided at
    /// the first name not skipped.
    pub(super) with_filename: &'a OnceLock<bool>,
}

/// Where a walk stands: the operands not yet begun, and the directories
/// being walked, innermost last.  The walk is pulled a batch at a time
/// ([`Walker::fill`]) by whichever thread runs short of items.
pub(super) struct WalkState {
    operands: Vec<Vec<u8>>,
    next: usize,
    stack: Vec<Frame>,
}

impl WalkState {
    pub(super) fn new(operands: Vec<Vec<u8>>) -> WalkState {
        WalkState {
            operands,
            next: 0,
            stack: Vec::new(),
        }
    }

    /// Has everything been walked?
    pub(super) fn done(&self) -> bool {
        self.stack.is_empty() && self.next == self.operands.len()
    }
}

/// One directory being walked.
struct Frame {
    path: Vec<u8>,
    id: (u64, u64),
    /// The directory, open, if the system gives it.
    dir: Option<Arc<File>>,
    entries: std::vec::IntoIter<RawEntry>,
    /// The error its listing stopped at, reported when the walk leaves
    /// it, after the entries that were read (as fts does).
    stopped: Option<io::Error>,
}

impl Frame {
    fn new(path: Vec<u8>, listed: Listing, entries: Vec<RawEntry>) -> Frame {
        Frame {
            path,
            id: listed.id,
            dir: listed.dir,
            entries: entries.into_iter(),
            stopped: listed.stopped,
        }
    }
}

impl Walker<'_> {
    /// Walk on until `out` holds `want` items or the walk is done.
    pub(super) fn fill(&self, st: &mut WalkState, out: &mut Vec<Item>, want: usize) {
        while out.len() < want {
            if let Some(top) = st.stack.last_mut() {
                let Some(entry) = top.entries.next() else {
                    if let Some(e) = top.stopped.take() {
                        out.push(self.error(self.shown(&top.path), &e));
                    }
                    st.stack.pop();
                    continue;
                };
                let path = fts_child(&top.path, &entry.name);
                let dir = top.dir.clone();
                if let Some(frame) = self.entry(&entry, path, dir, &st.stack, out) {
                    st.stack.push(frame);
                }
                continue;
            }
            let Some(name) = st.operands.get(st.next) else {
                return;
            };
            st.next += 1;
            match name.as_slice() {
                b"-" => out.push(Item::Stdin),
                _ => {
                    if let Some(root) = self.operand(name, out) {
                        st.stack.push(root);
                    }
                }
            }
        }
    }

    fn note(&self, name: &[u8], what: &str, error: bool) -> Item {
        let text = match self.opts.no_messages {
            true => Vec::new(),
            false => {
                let name = String::from_utf8_lossy(name);
                format!("{}: {name}: {what}\n", self.program).into_bytes()
            }
        };
        Item::Note { text, error }
    }

    fn error(&self, name: &[u8], e: &io::Error) -> Item {
        self.note(name, &crate::sys::error_text(e), true)
    }

    /// Devices met in a walk are read only with `-D read`, or `-R`
    /// without a `-D`.
    fn walk_skips_devices(&self) -> bool {
        match self.opts.devices {
            Devices::Read => false,
            Devices::Skip => true,
            Devices::ReadCommandLine => !self.opts.dereference,
        }
    }

    /// One command-line name (not `-`); a directory to walk comes back
    /// as its frame.
    fn operand(&self, name: &[u8], out: &mut Vec<Item>) -> Option<Frame> {
        let device = matches!(self.files.status(name, true), Ok(DirType::Device));
        if device {
            if self.opts.devices == Devices::Skip {
                // GNU opens it without waiting, sees a device and skips it.
                let probe = OpenFlags {
                    follow: true,
                    nonblocking: true,
                };
                if let Err(e) = self.files.open(name, probe) {
                    out.push(self.error(name, &e));
                }
                return None;
            }
            let skipped = self.filters.skips_operand(name, false);
            if !skipped {
                self.with_filename.get_or_init(|| false);
            }
            out.push(Item::Device {
                name: name.to_vec(),
                follow: true,
                skipped,
            });
            return None;
        }
        let follow = OpenFlags {
            follow: true,
            nonblocking: false,
        };
        let input = match self.files.open(name, follow) {
            Ok(input) => input,
            Err(e) => {
                out.push(self.error(name, &e));
                return None;
            }
        };
        let is_dir = matches!(input, GrepInput::Directory);
        let skipped = match is_dir {
            true if self.opts.directories == Directories::Skip => true,
            // The implicit `.` of `-r` is never skipped.
            true if self.omit_dot_slash => false,
            _ => self.filters.skips_operand(name, is_dir),
        };
        if skipped {
            return None;
        }
        self.with_filename.get_or_init(|| is_dir);
        if !(is_dir && self.opts.directories == Directories::Recurse) {
            out.push(Item::File {
                name: name.to_vec(),
                opened: Some(Ok(input)),
                dir: None,
                leaf: name.len(),
            });
            return None;
        }
        drop(input);
        let mut listing = Vec::new();
        match self.files.list(name, &mut listing) {
            Ok(listed) => Some(Frame::new(fts_root(name), listed, listing)),
            Err(e) => {
                out.push(self.error(name, &e));
                None
            }
        }
    }

    /// The name an entry is reported by.
    fn shown<'p>(&self, path: &'p [u8]) -> &'p [u8] {
        match self.omit_dot_slash && path.len() > 1 {
            true => &path[2..],
            false => path,
        }
    }

    /// One entry of a walk, at `path`; a directory to walk next comes
    /// back as its frame.
    fn entry(
        &self,
        entry: &RawEntry,
        path: Vec<u8>,
        parent: Option<Arc<File>>,
        walking: &[Frame],
        out: &mut Vec<Item>,
    ) -> Option<Frame> {
        let follow = self.opts.dereference;
        // As fts, describe each directory (and under `-R` each link)
        // before going on: one that cannot be described is filtered as a
        // file, then reported.  Files are left to their `fstat`.
        let kind = match (entry.kind, follow) {
            (Some(DirType::Symlink) | None, true) => self.files.status(&path, true),
            (None, false) => self.files.status(&path, false),
            (Some(DirType::Directory), _) => self.files.status(&path, follow),
            (Some(kind), _) => Ok(kind),
        };
        let is_dir = matches!(kind, Ok(DirType::Directory));
        if self.filters.skips_entry(&entry.name, is_dir) {
            return None;
        }
        let shown = self.shown(&path);
        let item = match kind {
            // A dangling link, or a loop of links, under `-R`.
            Err(e) => self.error(shown, &e),
            Ok(DirType::Directory) => {
                let mut listing = Vec::new();
                let leaf = entry.name.len();
                match self
                    .files
                    .list_entry(parent.as_deref(), &path, leaf, &mut listing)
                {
                    Err(e) => self.error(shown, &e),
                    Ok(listed) if walking.iter().any(|f| f.id == listed.id) => {
                        self.note(shown, "warning: recursive directory loop", false)
                    }
                    Ok(listed) => return Some(Frame::new(path, listed, listing)),
                }
            }
            Ok(DirType::Symlink) => return None,
            Ok(DirType::Device) if self.walk_skips_devices() => return None,
            Ok(DirType::Device) => Item::Device {
                name: shown.to_vec(),
                follow,
                skipped: false,
            },
            Ok(DirType::Regular) => Item::File {
                name: shown.to_vec(),
                opened: None,
                dir: parent,
                leaf: entry.name.len(),
            },
        };
        out.push(item);
        None
    }
}

/// The name fts gives a root: two or more trailing slashes become one.
fn fts_root(name: &[u8]) -> Vec<u8> {
    let trailing = name.iter().rev().take_while(|&&b| b == b'/').count();
    match trailing >= 2 && name.len() > 2 {
        true => name[..(name.len() - trailing + 1).max(1)].to_vec(),
        false => name.to_vec(),
    }
}

/// An entry's path: its directory's, with one trailing slash dropped,
/// `/`, and its name.
fn fts_child(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let dir = dir.strip_suffix(b"/").unwrap_or(dir);
    let mut path = Vec::with_capacity(dir.len() + 1 + name.len());
    path.extend_from_slice(dir);
    path.push(b'/');
    path.extend_from_slice(name);
    path
}
