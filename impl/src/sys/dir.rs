//! Names and directories: `getdents64` listings, `lstat`, opening with
//! `O_NOFOLLOW`/`O_NONBLOCK`, and glibc's `fnmatch` in a given locale.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};

use super::fd::{info_from_stat, FileInfo};

fn c_path(path: &[u8]) -> io::Result<CString> {
    // A name with a NUL in it names nothing the kernel could find.
    CString::new(path).map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))
}

/// `lstat(path)`: a symbolic link is described, not followed.
pub fn lstat_path(path: &[u8]) -> io::Result<FileInfo> {
    let c = c_path(path)?;
    // SAFETY: `c` is a valid NUL-terminated path; lstat writes into a
    // zeroed struct we own.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::lstat(c.as_ptr(), &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info_from_stat(&st))
    }
}

/// How [`open_path`] opens a name for reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFlags {
    /// Follow a symbolic link in the last component (else `ELOOP`).
    pub follow: bool,
    /// `O_NONBLOCK`: opening a FIFO with no writer does not wait.
    pub nonblocking: bool,
}

impl OpenFlags {
    /// A name whose last link is followed, opened blocking.
    pub const FOLLOW: OpenFlags = OpenFlags {
        follow: true,
        nonblocking: false,
    };
}

/// `open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC …)`, as GNU grep opens its
/// inputs.
pub fn open_path(path: &[u8], how: OpenFlags) -> io::Result<File> {
    open_in(None, path, how)
}

/// `openat(dir, name, …)` as [`open_path`] opens: `name` is looked up in
/// the open directory `dir` (the working directory for `None`), so a walk
/// does not resolve every file's whole path again, as GNU's fts does not.
pub fn open_in(dir: Option<&File>, name: &[u8], how: OpenFlags) -> io::Result<File> {
    let c = c_path(name)?;
    let mut flags = libc::O_RDONLY | libc::O_NOCTTY | libc::O_CLOEXEC;
    if !how.follow {
        flags |= libc::O_NOFOLLOW;
    }
    if how.nonblocking {
        flags |= libc::O_NONBLOCK;
    }
    let at = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    // SAFETY: a valid NUL-terminated name, a directory descriptor we hold
    // open (or AT_FDCWD) and plain flags; the descriptor returned, if
    // any, is ours alone and owned by the File below.
    let fd = unsafe { libc::openat(at, c.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// An entry's kind as `readdir` reports it (`d_type`); `None` when the
/// file system does not say (`DT_UNKNOWN`), and `lstat` must be asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirType {
    Regular,
    Directory,
    Symlink,
    /// A FIFO, socket or device.
    Device,
}

/// One entry of a listing (never `.` or `..`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawEntry {
    pub name: Vec<u8>,
    pub kind: Option<DirType>,
    /// `d_ino`.
    pub ino: u64,
}

/// The bytes one `getdents64` call may fill: a few thousand entries of a
/// big directory per call.
const LISTING_BUFFER: usize = 64 * 1024;

/// A directory listed by [`list_dir`]: its identity (device, inode) from
/// `fstat`, which, unlike `d_ino`, is right at a mount point too; the
/// directory, open, to open its entries in ([`open_in`]); and the error
/// that stopped the listing after the entries given, if one did (EIO from
/// a bad block: readdir's caller walks what it read, as fts does).
#[derive(Debug)]
pub struct DirListing {
    pub id: (u64, u64),
    pub dir: File,
    pub stopped: Option<io::Error>,
}

/// List the directory `path` in `readdir` order into `out` (cleared
/// first).  Failing to open it is an error; failing to read it, a
/// listing that stopped ([`DirListing::stopped`]).
pub fn list_dir(path: &[u8], out: &mut Vec<RawEntry>) -> io::Result<DirListing> {
    list_dir_in(None, path, out)
}

/// [`list_dir`] of the entry `name` of the open directory `parent` (the
/// working directory for `None`).
pub fn list_dir_in(
    parent: Option<&File>,
    name: &[u8],
    out: &mut Vec<RawEntry>,
) -> io::Result<DirListing> {
    out.clear();
    let c = c_path(name)?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOCTTY | libc::O_CLOEXEC;
    let at = parent.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    // SAFETY: a valid NUL-terminated name, a directory descriptor we hold
    // open (or AT_FDCWD) and plain flags.
    let fd = unsafe { libc::openat(at, c.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it; the File
    // closes it on every path out of here.
    let dir = unsafe { File::from_raw_fd(fd) };
    let id = super::fstat(dir.as_raw_fd())?.id;
    // u64 words: the records inside are 8-byte aligned.
    let mut buf = vec![0u64; LISTING_BUFFER / 8];
    loop {
        // SAFETY: the kernel writes at most `LISTING_BUFFER` bytes of
        // records into `buf`, which is that long and ours.
        let n = unsafe {
            libc::syscall(
                libc::SYS_getdents64,
                dir.as_raw_fd(),
                buf.as_mut_ptr().cast::<u8>(),
                LISTING_BUFFER,
            )
        };
        if n <= 0 {
            let stopped = (n < 0).then(io::Error::last_os_error);
            if out.len() > INODE_SORT_THRESHOLD && inode_sort_applies(&dir) {
                sort_by_inode(out);
            }
            return Ok(DirListing { id, dir, stopped });
        }
        // SAFETY: the first `n` bytes of `buf` were written by the kernel
        // just now; u8 has no alignment or validity requirements.
        let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n as usize) };
        parse_records(bytes, out);
    }
}

/// gnulib's fts (GNU grep's walk) reads a directory this many entries at
/// a time (`FTS_MAX_READDIR_ENTRIES`)...
const READDIR_BATCH: usize = 100_000;
/// ...and sorts a batch of more than this many by inode number
/// (`_FTS_INODE_SORT_DIR_ENTRIES_THRESHOLD`), unless the file system is
/// one where that does not help.  So GNU prints a big directory's files
/// in inode order, and so do we.
const INODE_SORT_THRESHOLD: usize = 10_000;

/// gnulib's `dirent_inode_sort_may_be_useful`: not on tmpfs, NFS or CIFS
/// (nor where `fstatfs` fails).
fn inode_sort_applies(dir: &File) -> bool {
    const TMPFS: i64 = 0x0102_1994;
    const NFS: i64 = 0x6969;
    const CIFS: i64 = 0xFF53_4D42;
    // SAFETY: fstatfs writes into a zeroed struct we own; the descriptor
    // is an open directory.
    let kind = unsafe {
        let mut fs: libc::statfs = std::mem::zeroed();
        if libc::fstatfs(dir.as_raw_fd(), &mut fs) != 0 {
            return true;
        }
        fs.f_type as i64
    };
    !matches!(kind, TMPFS | NFS | CIFS)
}

/// Each batch of [`READDIR_BATCH`] entries of more than
/// [`INODE_SORT_THRESHOLD`], sorted by inode (stably, as equal inodes
/// are hard links in one directory).
fn sort_by_inode(entries: &mut [RawEntry]) {
    for batch in entries.chunks_mut(READDIR_BATCH) {
        if batch.len() > INODE_SORT_THRESHOLD {
            batch.sort_by_key(|e| e.ino);
        }
    }
}

/// The entries of `getdents64`'s records: `d_ino` (8 bytes), `d_off` (8),
/// `d_reclen` (2), `d_type` (1), then the NUL-terminated name.
fn parse_records(mut bytes: &[u8], out: &mut Vec<RawEntry>) {
    const NAME_AT: usize = 19;
    while bytes.len() >= NAME_AT {
        let len = usize::from(u16::from_ne_bytes([bytes[16], bytes[17]]));
        if len < NAME_AT || len > bytes.len() {
            return;
        }
        let record = &bytes[..len];
        let field = &record[NAME_AT..];
        let name = &field[..memchr::memchr(0, field).unwrap_or(field.len())];
        if name != b"." && name != b".." {
            let kind = match record[18] {
                libc::DT_REG => Some(DirType::Regular),
                libc::DT_DIR => Some(DirType::Directory),
                libc::DT_LNK => Some(DirType::Symlink),
                libc::DT_UNKNOWN => None,
                _ => Some(DirType::Device),
            };
            let ino = u64::from_ne_bytes(record[..8].try_into().unwrap_or([0; 8]));
            out.push(RawEntry {
                name: name.to_vec(),
                kind,
                ino,
            });
        }
        bytes = &bytes[len..];
    }
}

extern "C" {
    // glibc's <fnmatch.h>; the libc crate does not bind it.
    fn fnmatch(
        pattern: *const libc::c_char,
        name: *const libc::c_char,
        flags: libc::c_int,
    ) -> libc::c_int;
}

/// glibc's `fnmatch(pattern, name, 0)` with the UTF-8 locale (or, unless
/// `utf8`, the C locale) installed for this thread while it runs.  A
/// pattern or name with a NUL cannot be passed: it matches as far as the
/// C string goes, as in GNU, which holds them as C strings.
pub fn fnmatch_in(pattern: &[u8], name: &[u8], utf8: bool) -> bool {
    let cut = |b: &[u8]| -> CString {
        let end = memchr::memchr(0, b).unwrap_or(b.len());
        CString::new(&b[..end]).unwrap_or_default()
    };
    let (p, n) = (cut(pattern), cut(name));
    let handle = match utf8 {
        true => super::locale::utf8_ctype_handle(),
        false => super::locale::c_ctype_handle(),
    };
    // SAFETY: `handle` is a valid locale object (or LC_GLOBAL_LOCALE) that
    // lives for the rest of the process; uselocale changes only this
    // thread's locale, and the previous one is put back below.
    let previous = unsafe { libc::uselocale(handle) };
    // SAFETY: two valid NUL-terminated strings; fnmatch only reads them
    // and the current locale's tables.
    let matched = unsafe { fnmatch(p.as_ptr(), n.as_ptr(), 0) } == 0;
    // SAFETY: `previous` came from uselocale, so it is valid to reinstall.
    unsafe { libc::uselocale(previous) };
    matched
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    /// A directory of more entries than one `getdents64` call returns,
    /// of every kind, listed as std's `read_dir` (glibc's `readdir`)
    /// lists it: the same names in the same order, the same kinds.
    #[test]
    fn listing_is_readdirs() {
        let dir = std::env::temp_dir().join(format!("samebytes-list-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        for i in 0..3000 {
            let name = format!("entry with a fairly long name number {i}");
            match i % 4 {
                0 => std::fs::write(dir.join(name), b"x").unwrap(),
                1 => std::fs::create_dir(dir.join(name)).unwrap(),
                2 => std::os::unix::fs::symlink("nowhere", dir.join(name)).unwrap(),
                _ => std::fs::write(dir.join(name), b"").unwrap(),
            }
        }
        let mut got = Vec::new();
        let listed = list_dir(dir.as_os_str().as_bytes(), &mut got).unwrap();
        assert!(listed.stopped.is_none());
        let (id, open) = (listed.id, listed.dir);
        let first = &got[0];
        let how = OpenFlags {
            follow: false,
            nonblocking: false,
        };
        let entry =
            open_in(Some(&open), &first.name, how).map(|f| super::super::fstat(f.as_raw_fd()));
        let by_path = super::super::lstat_path(
            dir.join(std::ffi::OsStr::from_bytes(&first.name))
                .as_os_str()
                .as_bytes(),
        );
        match first.kind {
            Some(DirType::Symlink) => {
                assert_eq!(entry.unwrap_err().raw_os_error(), Some(libc::ELOOP))
            }
            _ => assert_eq!(entry.unwrap().unwrap().id, by_path.unwrap().id),
        }
        let want: Vec<RawEntry> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let t = e.file_type().unwrap();
                let kind = if t.is_dir() {
                    DirType::Directory
                } else if t.is_symlink() {
                    DirType::Symlink
                } else {
                    DirType::Regular
                };
                RawEntry {
                    name: e.file_name().as_bytes().to_vec(),
                    kind: Some(kind),
                    ino: std::os::unix::fs::DirEntryExt::ino(&e),
                }
            })
            .collect();
        let st = super::super::stat_path(dir.as_os_str().as_bytes()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(got.len(), 3000);
        assert_eq!(got, want);
        assert_eq!(id, st.id);
    }

    #[test]
    fn listing_a_file_or_nothing_fails_as_open_does() {
        let mut out = vec![RawEntry {
            name: b"stale".to_vec(),
            kind: None,
            ino: 0,
        }];
        let e = list_dir(b"/dev/null", &mut out).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR));
        assert!(out.is_empty());
        let e = list_dir(b"/nonexistent/x", &mut out).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
    }
}
