//! The model of what a tool can open: named files and standard input.

use std::collections::{BTreeMap, BTreeSet};

use crate::Errno;

/// One file as the tool sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A regular file: `stat` reports it as such, with its size.
    Regular(Vec<u8>),
    /// A pipe, terminal or character device: no usable size.
    Stream(Vec<u8>),
    /// A directory: opening works, reading fails with EISDIR.
    Directory,
    /// Exists, but `open` fails with EACCES.
    Unreadable,
    /// Only as stdin: descriptor 0 is not open (`<&-`), so `fstat`,
    /// `read` and `close` on it fail with EBADF.
    Closed,
}

/// Standard input: a node, plus, for a regular file, the offset the
/// inherited descriptor is already at (`{ wc -c; wc -c; } < f`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stdin {
    pub node: Node,
    pub offset: usize,
}

impl Default for Stdin {
    fn default() -> Self {
        Stdin {
            node: Node::Stream(Vec::new()),
            offset: 0,
        }
    }
}

/// Everything a run can open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct World {
    pub files: BTreeMap<Vec<u8>, Node>,
    pub stdin: Stdin,
    /// Regular files with an unreadable region: reading at or past the
    /// byte offset fails with EIO, as a bad sector does.
    pub read_errors: ReadErrors,
    /// Where a stream stdin pauses, in increasing order: after each of
    /// these many bytes its writer waits until the reader has taken them
    /// all and a read would block, then goes on (`tail -f`, a terminal,
    /// a slow producer).  Offsets past the stream's end, and a stdin
    /// that is not a blocking stream, have none.
    pub stdin_pauses: Vec<usize>,
    /// Set by [`World::at_pause`]: stdin's writer is still there, so a
    /// read past the bytes held would wait.
    pub stdin_waits: bool,
    /// Closing stdout at exit fails with this error, after every write
    /// worked: a file system that reports a write's failure only when
    /// the file is closed (NFS, a full quota).  Not part of what a tool
    /// opens, but of the world it runs in all the same.
    pub stdout_close_fails: Option<Errno>,
    /// Every write to stderr fails (`2>/dev/full`): the messages are lost,
    /// and a tool that wrote one exits with its failure status.
    pub stderr_fails: bool,
    /// Named regular files that every `stat` (by name or of an open
    /// descriptor) fails to describe, with EIO, though they open and read:
    /// a file system whose attributes fail (FUSE, NFS).
    pub stat_fails: BTreeSet<Vec<u8>>,
    /// The same for a regular stdin: `fstat(0)` fails with EIO.
    pub stdin_stat_fails: bool,
}

/// Where reads fail with EIO: per named regular file, and for a regular
/// stdin, as an offset into the file's data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadErrors {
    pub files: BTreeMap<Vec<u8>, usize>,
    pub stdin: Option<usize>,
    /// A stream stdin is non-blocking and its writer stays open: once its
    /// bytes are read, every read fails with EAGAIN instead of ending.
    pub stdin_would_block: bool,
}

/// The bytes of `data[from..]` a reader gets before a read error at `at`
/// (if any) stops it, and that error.
pub fn read_until_error(data: &[u8], from: usize, at: Option<usize>) -> (Vec<u8>, Option<Errno>) {
    if from >= data.len() {
        // At the end of the file a read returns 0 without touching it.
        return (Vec::new(), None);
    }
    match at {
        Some(at) if at < data.len() => (data[from..at.max(from)].to_vec(), Some(Errno::Io)),
        _ => (data[from..].to_vec(), None),
    }
}

/// What `stat` says about a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    Regular { size: u64 },
    Other,
}

/// Linux refuses a path of PATH_MAX (4096) bytes or more, or with a
/// component longer than NAME_MAX (255), before looking it up.
pub fn name_too_long(name: &[u8]) -> bool {
    name.len() >= 4096 || name.split(|&b| b == b'/').any(|c| c.len() > 255)
}

impl World {
    /// Look a name up as `open` and `stat` do.
    pub fn lookup(&self, name: &[u8]) -> Result<&Node, Errno> {
        if name_too_long(name) {
            return Err(Errno::NameTooLong);
        }
        self.files.get(name).ok_or(Errno::NoEntry)
    }

    pub fn stat(&self, name: &[u8]) -> Result<Stat, Errno> {
        let node = self.lookup(name)?;
        if self.undescribed(name) {
            return Err(Errno::Io);
        }
        node_stat(node)
    }

    /// Is `name` a regular file that `stat` cannot describe?
    pub fn undescribed(&self, name: &[u8]) -> bool {
        self.stat_fails.contains(name) && matches!(self.files.get(name), Some(Node::Regular(_)))
    }

    /// Is descriptor 0 closed?
    pub fn stdin_closed(&self) -> bool {
        self.stdin.node == Node::Closed
    }

    /// `fstat(0)`: fails on a closed descriptor, and on a file that cannot
    /// be described.
    pub fn fstat_stdin(&self) -> Result<Stat, Errno> {
        let stat = node_stat(&self.stdin.node)?;
        match self.stdin_undescribed() {
            true => Err(Errno::Io),
            false => Ok(stat),
        }
    }

    /// Is stdin a regular file that `fstat` cannot describe?
    pub fn stdin_undescribed(&self) -> bool {
        self.stdin_stat_fails && matches!(self.stdin.node, Node::Regular(_))
    }

    pub fn stat_stdin(&self) -> Stat {
        node_stat(&self.stdin.node).unwrap_or(Stat::Other)
    }

    /// The pauses of stdin that can happen: those of a blocking stream,
    /// within its bytes (a pause at the end is one: the writer has not
    /// closed it yet).
    pub fn stdin_pauses(&self) -> Vec<usize> {
        match &self.stdin.node {
            Node::Stream(d) if !self.read_errors.stdin_would_block => {
                let mut p: Vec<usize> = self
                    .stdin_pauses
                    .iter()
                    .copied()
                    .filter(|&k| k <= d.len())
                    .collect();
                p.sort_unstable();
                p.dedup();
                p
            }
            _ => Vec::new(),
        }
    }

    /// The first pause after some input has come, if stdin has one: what
    /// a reader's first read returns when it is smaller than the read.
    pub fn first_stdin_burst(&self) -> Option<usize> {
        self.stdin_pauses().into_iter().find(|&k| k > 0)
    }

    /// This world as it stands at stdin's pause at `k`: its stream holds
    /// the first `k` bytes, and the writer has not gone (see
    /// [`Reads::stdin_open`]).
    pub fn at_pause(&self, k: usize) -> World {
        let mut w = self.clone();
        if let Node::Stream(d) = &mut w.stdin.node {
            d.truncate(k);
        }
        w.stdin_pauses = self.stdin_pauses();
        w.stdin_waits = true;
        w
    }
}

fn node_stat(node: &Node) -> Result<Stat, Errno> {
    Ok(match node {
        Node::Regular(data) => Stat::Regular {
            size: data.len() as u64,
        },
        Node::Unreadable => Stat::Regular { size: 0 },
        Node::Stream(_) | Node::Directory => Stat::Other,
        Node::Closed => return Err(Errno::BadDescriptor),
    })
}

/// Where a run left stdin: never read, put back to an offset (a regular
/// file; `-m`), or read (to its end, or to a failed read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdinLeft {
    Untouched,
    PutBack(usize),
    Read,
}

/// Reading a node from its start (or, for stdin, from its offset) to EOF.
/// A second read of stdin finds it at EOF.
pub struct Reads<'w> {
    world: &'w World,
    stdin_consumed: bool,
    /// Where the last read of stdin started, and where the next one starts
    /// when a tool put it back (`reposition_stdin`).
    stdin_last_start: usize,
    stdin_next: Option<usize>,
    /// The last read of stdin stopped at a pause.
    stdin_open: bool,
}

impl<'w> Reads<'w> {
    pub fn new(world: &'w World) -> Self {
        Reads {
            world,
            stdin_open: false,
            stdin_consumed: false,
            stdin_last_start: 0,
            stdin_next: None,
        }
    }

    /// Open a named file, `fstat` it, and read it, as cat and grep do: a
    /// file that opens but cannot be described is an error of its own.
    pub fn read_named_described(&self, name: &[u8]) -> Result<(Vec<u8>, Option<Errno>), Errno> {
        let read = self.read_named(name)?;
        match self.world.undescribed(name) {
            true => Err(Errno::Io),
            false => Ok(read),
        }
    }

    /// Open and read a named file: the bytes read and the error that ended
    /// the reading early, or the error that prevented opening.
    pub fn read_named(&self, name: &[u8]) -> Result<(Vec<u8>, Option<Errno>), Errno> {
        match self.world.lookup(name)? {
            Node::Unreadable => Err(Errno::Access),
            // Never a named file.
            Node::Closed => Err(Errno::NoEntry),
            Node::Directory => Ok((Vec::new(), Some(Errno::IsDirectory))),
            Node::Regular(d) => Ok(read_until_error(
                d,
                0,
                self.world.read_errors.files.get(name).copied(),
            )),
            Node::Stream(d) => Ok((d.clone(), None)),
        }
    }

    /// Put stdin back to `at` bytes after where its last read started, if
    /// it is a regular file (which can seek); a pipe stays consumed.
    pub fn reposition_stdin(&mut self, at: usize) {
        if matches!(self.world.stdin.node, Node::Regular(_)) {
            self.stdin_next = Some(self.stdin_last_start + at);
        }
    }

    /// Where the run left stdin, as far as reading it says.
    pub fn stdin_left(&self) -> StdinLeft {
        match (self.stdin_next, self.stdin_consumed) {
            (Some(at), _) => StdinLeft::PutBack(at),
            (None, true) => StdinLeft::Read,
            (None, false) => StdinLeft::Untouched,
        }
    }

    /// Has a reader of stdin reached a pause ([`World::at_pause`]): it
    /// holds every byte that has come, and its next read would wait?
    /// Only the first read of a stream gets its bytes, so only it pauses.
    pub fn stdin_open(&self) -> bool {
        self.stdin_open
    }

    /// Read stdin to EOF.  Its data can be read only once (unless put
    /// back); a directory fails every time.
    pub fn read_stdin(&mut self) -> (Vec<u8>, Option<Errno>) {
        let consumed = std::mem::replace(&mut self.stdin_consumed, true);
        let s = &self.world.stdin;
        self.stdin_open = !consumed
            && self.world.stdin_waits
            && matches!(s.node, Node::Stream(_))
            && !self.world.read_errors.stdin_would_block;
        match &s.node {
            Node::Regular(d) if self.stdin_next.is_some() => {
                let from = self.stdin_next.take().unwrap_or(0);
                self.stdin_last_start = from;
                read_until_error(d, from, self.world.read_errors.stdin)
            }
            Node::Stream(_) if consumed && self.world.read_errors.stdin_would_block => {
                (Vec::new(), Some(Errno::WouldBlock))
            }
            Node::Regular(_) | Node::Stream(_) if consumed => (Vec::new(), None),
            Node::Regular(d) => {
                self.stdin_last_start = s.offset;
                read_until_error(d, s.offset, self.world.read_errors.stdin)
            }
            Node::Stream(d) => (
                d.clone(),
                self.world
                    .read_errors
                    .stdin_would_block
                    .then_some(Errno::WouldBlock),
            ),
            Node::Directory => (Vec::new(), Some(Errno::IsDirectory)),
            Node::Unreadable => (Vec::new(), Some(Errno::Access)),
            Node::Closed => (Vec::new(), Some(Errno::BadDescriptor)),
        }
    }
}
