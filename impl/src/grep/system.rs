//! The system grep reads from: the [`GrepSystem`] seam (stdin and stdout),
//! the [`GrepFiles`] seam (named files and directories, which the walker
//! and the search threads share), and the real ones over descriptors.

use std::io::{self, Read};

pub use crate::sys::{DirType, OpenFlags, RawEntry};

/// An input read as a stream: a pipe, terminal, socket or device, whose
/// reads may wait for a writer, or a regular file read with read(2).
pub trait GrepStream: Read + Send {
    /// Has the input paused: would a read wait now, with nothing more to
    /// give yet?  Asked before each read; a regular file never has.
    fn paused(&mut self) -> bool;
}

/// A reader whose reads never wait: a regular file.
pub struct NeverPauses<R>(pub R);

impl<R: Read> Read for NeverPauses<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read + Send> GrepStream for NeverPauses<R> {
    fn paused(&mut self) -> bool {
        false
    }
}

/// A descriptor that may pause (not a regular file): `poll` tells.
struct PausingFd(crate::fdinput::FdInput);

impl Read for PausingFd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl GrepStream for PausingFd {
    fn paused(&mut self) -> bool {
        crate::sys::read_would_wait(self.0.raw_fd())
    }
}

/// An opened input.
pub enum GrepInput {
    /// A stream.  `size`: the file's size when it is a regular file (for
    /// `-T`).
    Reader {
        reader: Box<dyn GrepStream>,
        size: Option<u64>,
    },
    /// A regular file the mapped strategy views in windows, and its size.
    Mapped {
        file: Box<dyn MappedFile + Send>,
        size: u64,
    },
    /// A directory: reading it fails with EISDIR.
    Directory,
}

impl GrepInput {
    /// The input as a stream from its start, for searches that only read.
    pub(super) fn into_reader(self) -> io::Result<Option<Box<dyn GrepStream>>> {
        match self {
            GrepInput::Reader { reader, .. } => Ok(Some(reader)),
            GrepInput::Mapped { file, .. } => {
                let reader = file.into_reader(0)?;
                Ok(Some(Box::new(NeverPauses(reader))))
            }
            GrepInput::Directory => Ok(None),
        }
    }

    /// Its size, if it is a regular file.
    pub(super) fn size(&self) -> Option<u64> {
        match self {
            GrepInput::Reader { size, .. } => *size,
            GrepInput::Mapped { size, .. } => Some(*size),
            GrepInput::Directory => None,
        }
    }
}

/// What the mapped strategy does with one window: its bytes, the probe,
/// and the window before it (see [`MappedFile::view`]).
pub type SearchWindow<'a> = dyn FnMut(&[u8], &dyn Fn() -> bool, Leftover) + 'a;

/// The window viewed before, still mapped: whoever drops this unmaps it
/// (grep's helper thread, while the core searches).  A view with nothing
/// mapped before it passes none.
#[derive(Default)]
pub struct Leftover {
    /// Held only to be dropped.
    _window: Option<crate::sys::RetiredWindow>,
}

/// A regular file as the mapped strategy sees it.  Offsets count from
/// where this read of the file starts (a regular stdin may start inside
/// it).
pub trait MappedFile {
    /// The file's size now, from the start: it may shrink or grow while
    /// it is searched.
    fn size(&mut self) -> u64;
    /// Run `f` on the bytes `offset..offset + len`, which the caller knows
    /// the file held.  `f` also gets a probe, true once some byte it may
    /// have read was not the file's: a page vanished (truncation, or a bad
    /// page) and reads as zeros, or the file shrank below the window's end
    /// (the tail of its last page reads as zeros without any fault).  It
    /// gets the window viewed before too, to drop where it likes.  An
    /// error: the window could not be viewed, so read from here on.
    fn view(&mut self, offset: u64, len: usize, f: &mut SearchWindow) -> io::Result<()>;
    /// Read on with read(2) from `offset`: the rest of a file viewed to
    /// its size (a file may grow), or all of it after a window failed.
    fn into_reader(self: Box<Self>, offset: u64) -> io::Result<Box<dyn Read + Send>>;
}

/// A real regular file, mapped a window at a time ([`crate::sys::MappedWindow`]).
struct MappedFd {
    input: crate::fdinput::FdInput,
    /// Where this read of the file started.
    start: u64,
    /// The window viewed last, not yet unmapped.
    retired: Option<crate::sys::RetiredWindow>,
}

impl MappedFile for MappedFd {
    fn size(&mut self) -> u64 {
        // fstat cannot fail on a descriptor we hold open; if it did, the
        // size 0 ends the mapped search and read(2) takes over.
        let size = crate::sys::fstat(self.input.raw_fd()).map_or(0, |i| i.size);
        size.saturating_sub(self.start)
    }

    fn view(&mut self, offset: u64, len: usize, f: &mut SearchWindow) -> io::Result<()> {
        let at = self.start + offset;
        let window = crate::sys::MappedWindow::map(self.input.file(), at, len)?;
        let fd = self.input.raw_fd();
        let end = at + len as u64;
        let leftover = Leftover {
            _window: self.retired.take(),
        };
        let ((), _, retired) = window.read_probing_retired(|bytes, vanished| {
            let spoiled = || vanished() || crate::sys::fstat(fd).map_or(true, |i| i.size < end);
            f(bytes, &spoiled, leftover)
        });
        self.retired = Some(retired);
        Ok(())
    }

    fn into_reader(self: Box<Self>, offset: u64) -> io::Result<Box<dyn Read + Send>> {
        let to = self.start + offset;
        crate::sys::lseek(self.input.raw_fd(), to as i64, crate::sys::Whence::Set)?;
        Ok(Box::new(self.input))
    }
}

/// What grep reads stdin through, and what it knows about its output.
/// Used by one thread, the one that prints; its methods take `&self` so
/// that the files it gives stay borrowed while it is used.
pub trait GrepSystem {
    /// Open stdin.
    fn open_stdin(&self) -> io::Result<GrepInput>;
    /// Named files and directories.
    fn files(&self) -> &dyn GrepFiles;
    /// Is stdout /dev/null?  GNU then reads each file only up to its first
    /// selected line.
    fn stdout_is_dev_null(&self) -> bool;
    /// Stdin has been searched: leave it `Some(n)` bytes after where this
    /// read of it started (`-m` was reached), or at its end, if it is a
    /// file that can seek.
    fn stdin_done(&self, resume_at: Option<u64>);
    /// Read a stdin that cannot seek to its end, as GNU's `finalize_input`
    /// does when it stopped early, so that its writer is not cut off.
    fn drain_stdin(&self) -> io::Result<()>;
    /// Read stdin whole (`-f -`, `--exclude-from=-`).
    fn read_stdin_whole(&self) -> io::Result<Vec<u8>> {
        read_all(self.open_stdin())
    }
}

/// A directory listed: its identity (device, inode); where the system
/// has one, a handle its entries can be opened through; and the error
/// that stopped the listing after the entries given, if one did.
pub struct Listing {
    pub id: (u64, u64),
    pub dir: Option<std::sync::Arc<std::fs::File>>,
    pub stopped: Option<io::Error>,
}

/// Named files and directories, as the walker and every search thread
/// see them.
pub trait GrepFiles: Sync {
    /// Open a named input for searching.
    fn open(&self, name: &[u8], how: OpenFlags) -> io::Result<GrepInput>;
    /// Open the entry `path` of a listed directory, whose own name is the
    /// last `leaf` bytes of `path`, through the listing's handle.
    fn open_entry(
        &self,
        dir: Option<&std::fs::File>,
        path: &[u8],
        leaf: usize,
        how: OpenFlags,
    ) -> io::Result<GrepInput>;
    /// What the name is (`stat`, or with `follow` false `lstat`).
    fn status(&self, name: &[u8], follow: bool) -> io::Result<DirType>;
    /// The directory's entries in `readdir` order into `out`.
    fn list(&self, name: &[u8], out: &mut Vec<RawEntry>) -> io::Result<Listing>;
    /// [`GrepFiles::list`] of the entry `path` of a listed directory, as
    /// [`GrepFiles::open_entry`] opens one.
    fn list_entry(
        &self,
        dir: Option<&std::fs::File>,
        path: &[u8],
        leaf: usize,
        out: &mut Vec<RawEntry>,
    ) -> io::Result<Listing>;
    /// Is this named input the regular file stdout appends to?
    fn is_output_file(&self, name: &[u8]) -> bool;
    /// Read a named file whole (`-f`, `--exclude-from`), following links.
    fn read_whole(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        read_all(self.open(name, OpenFlags::FOLLOW))
    }
}

/// Everything a searchable input holds; a directory is EISDIR.
pub fn read_all(input: io::Result<GrepInput>) -> io::Result<Vec<u8>> {
    match input?.into_reader()? {
        Some(mut reader) => {
            let mut v = Vec::new();
            reader.read_to_end(&mut v)?;
            Ok(v)
        }
        None => Err(io::Error::from_raw_os_error(libc::EISDIR)),
    }
}

/// The size a pipe we read from is grown to.
const PIPE_SIZE: usize = 1 << 20;

/// The real files: opened by path.
pub struct SystemFiles {
    /// Regular files with at least this many bytes to search are mapped.
    map_min: u64,
    stdout_info: Option<crate::sys::FileInfo>,
}

/// An opened descriptor as grep's input: a directory, a regular file
/// (mapped when it has `map_min` bytes to search from where it stands),
/// or a stream.  Also where a regular file's reading starts: a file we
/// just opened starts at 0; an inherited stdin may stand anywhere.
fn input_of(
    input: crate::fdinput::FdInput,
    map_min: u64,
    just_opened: bool,
) -> io::Result<(GrepInput, Option<u64>)> {
    use crate::sys::FileKind;
    let info = input.info()?;
    if info.kind == FileKind::Directory {
        return Ok((GrepInput::Directory, None));
    }
    let regular = info.kind == FileKind::Regular;
    let mut start = None;
    if regular {
        let at = match just_opened {
            true => 0,
            false => crate::sys::lseek(input.raw_fd(), 0, crate::sys::Whence::Cur)?,
        };
        start = Some(at);
        if info.size.saturating_sub(at) >= map_min {
            let file = Box::new(MappedFd {
                input,
                start: at,
                retired: None,
            });
            return Ok((
                GrepInput::Mapped {
                    file,
                    size: info.size,
                },
                start,
            ));
        }
        // Smaller than `map_min`: a read or two, where read-ahead advice
        // would only cost a system call.
    }
    if info.kind == FileKind::Fifo {
        // A bigger pipe lets the writer run ahead: fewer, larger reads
        // and fewer wake-ups on both sides.
        crate::sys::grow_pipe(input.raw_fd(), PIPE_SIZE);
    }
    let reader: Box<dyn GrepStream> = match regular {
        true => Box::new(NeverPauses(input)),
        false => Box::new(PausingFd(input)),
    };
    let reader = GrepInput::Reader {
        reader,
        size: regular.then_some(info.size),
    };
    Ok((reader, start))
}

impl GrepFiles for SystemFiles {
    fn open(&self, name: &[u8], how: OpenFlags) -> io::Result<GrepInput> {
        let file = crate::sys::open_path(name, how)?;
        let input = crate::fdinput::FdInput::from_file(file);
        Ok(input_of(input, self.map_min, true)?.0)
    }

    /// Read to the end, as gnulib's `fread_file` does, which asks `fstat`
    /// only for a size hint: a file that cannot be described still reads,
    /// and a directory fails its first read (EISDIR).
    fn read_whole(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        let mut file = crate::sys::open_path(name, OpenFlags::FOLLOW)?;
        let mut v = Vec::new();
        file.read_to_end(&mut v)?;
        Ok(v)
    }

    fn status(&self, name: &[u8], follow: bool) -> io::Result<DirType> {
        use crate::sys::FileKind;
        let info = match follow {
            true => crate::sys::stat_path(name)?,
            false => crate::sys::lstat_path(name)?,
        };
        Ok(match info.kind {
            FileKind::Regular => DirType::Regular,
            FileKind::Directory => DirType::Directory,
            FileKind::Symlink => DirType::Symlink,
            FileKind::Fifo | FileKind::Other => DirType::Device,
        })
    }

    fn open_entry(
        &self,
        dir: Option<&std::fs::File>,
        path: &[u8],
        leaf: usize,
        how: OpenFlags,
    ) -> io::Result<GrepInput> {
        let name = match dir {
            Some(_) => &path[path.len() - leaf..],
            None => path,
        };
        let file = crate::sys::open_in(dir, name, how)?;
        let input = crate::fdinput::FdInput::from_file(file);
        Ok(input_of(input, self.map_min, true)?.0)
    }

    fn list(&self, name: &[u8], out: &mut Vec<RawEntry>) -> io::Result<Listing> {
        self.list_entry(None, name, name.len(), out)
    }

    fn list_entry(
        &self,
        dir: Option<&std::fs::File>,
        path: &[u8],
        leaf: usize,
        out: &mut Vec<RawEntry>,
    ) -> io::Result<Listing> {
        let name = match dir {
            Some(_) => &path[path.len() - leaf..],
            None => path,
        };
        let listed = crate::sys::list_dir_in(dir, name, out)?;
        Ok(Listing {
            id: listed.id,
            dir: Some(std::sync::Arc::new(listed.dir)),
            stopped: listed.stopped,
        })
    }

    fn is_output_file(&self, name: &[u8]) -> bool {
        // Only a regular file can be both; no `stat` for each input then.
        let Some(out) = self
            .stdout_info
            .filter(|o| o.kind == crate::sys::FileKind::Regular)
        else {
            return false;
        };
        match (Some(out), crate::sys::stat_path(name)) {
            (Some(out), Ok(info)) => out.kind == crate::sys::FileKind::Regular && out.id == info.id,
            _ => false,
        }
    }
}

/// The real system: files, stdin and stdout by descriptor.
pub struct SystemGrep {
    files: SystemFiles,
    stdout_is_dev_null: bool,
    /// Where the last read of stdin started, when stdin is a regular file.
    stdin_start: std::cell::Cell<Option<u64>>,
}

impl SystemGrep {
    pub fn new() -> SystemGrep {
        SystemGrep::configured(&super::GrepConfig::default())
    }

    /// With the mapping threshold of `cfg`.
    pub fn configured(cfg: &super::GrepConfig) -> SystemGrep {
        // A closed stdout is not the /dev/null Rust's start-up code put in
        // its place.
        let stdout_info = match crate::sys::stdout_was_closed() {
            true => None,
            false => crate::sys::fstat(libc::STDOUT_FILENO).ok(),
        };
        let dev_null = crate::sys::stat_path(b"/dev/null").ok();
        let stdout_is_dev_null = match (&stdout_info, dev_null) {
            (Some(out), Some(null)) => out.kind == crate::sys::FileKind::Other && out.id == null.id,
            _ => false,
        };
        if stdout_info.is_some_and(|i| i.kind == crate::sys::FileKind::Fifo) {
            // Room to write ahead of the reader: fewer wake-ups for both.
            crate::sys::grow_pipe(libc::STDOUT_FILENO, PIPE_SIZE);
        }
        SystemGrep {
            files: SystemFiles {
                map_min: cfg.map_min,
                stdout_info,
            },
            stdout_is_dev_null,
            stdin_start: std::cell::Cell::new(None),
        }
    }
}

impl Default for SystemGrep {
    fn default() -> Self {
        SystemGrep::new()
    }
}

impl GrepSystem for SystemGrep {
    fn open_stdin(&self) -> io::Result<GrepInput> {
        // A closed stdin fails as GNU's read of it does, not as the
        // /dev/null Rust's start-up code put in its place.
        if crate::sys::stdin_was_closed() {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        let (input, start) = input_of(crate::fdinput::FdInput::stdin(), self.files.map_min, false)?;
        self.stdin_start.set(start);
        Ok(input)
    }

    fn files(&self) -> &dyn GrepFiles {
        &self.files
    }

    /// To its end, as gnulib's `fread_file` reads, asking `fstat` only
    /// for a size hint: a stdin that cannot be described still reads.
    fn read_stdin_whole(&self) -> io::Result<Vec<u8>> {
        if crate::sys::stdin_was_closed() {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        let mut v = Vec::new();
        crate::fdinput::FdInput::stdin().read_to_end(&mut v)?;
        Ok(v)
    }
    fn stdin_done(&self, resume_at: Option<u64>) {
        let Some(start) = self.stdin_start.take() else {
            return;
        };
        // As GNU does; a failure leaves stdin where reading left it.
        let _ = match resume_at {
            Some(r) => crate::sys::lseek(
                libc::STDIN_FILENO,
                (start + r) as i64,
                crate::sys::Whence::Set,
            ),
            // GNU seeks to the end only when it stopped before it (a file
            // read to its end, or past it, stays put).
            None => match crate::sys::fstat(libc::STDIN_FILENO) {
                Ok(info)
                    if crate::sys::lseek(libc::STDIN_FILENO, 0, crate::sys::Whence::Cur)
                        .is_ok_and(|at| at < info.size) =>
                {
                    crate::sys::lseek(libc::STDIN_FILENO, 0, crate::sys::Whence::End)
                }
                _ => return,
            },
        };
    }

    fn drain_stdin(&self) -> io::Result<()> {
        // A regular file was put at its end by `stdin_done`; a directory
        // has nothing to drain.
        match crate::sys::fstat(libc::STDIN_FILENO) {
            Ok(info) if info.kind == crate::sys::FileKind::Regular => return Ok(()),
            Ok(info) if info.kind == crate::sys::FileKind::Directory => return Ok(()),
            _ => {}
        }
        let mut stdin = crate::fdinput::FdInput::stdin();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn stdout_is_dev_null(&self) -> bool {
        self.stdout_is_dev_null
    }
}
