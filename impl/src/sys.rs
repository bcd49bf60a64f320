//! Every system call and every `unsafe` block of samebytes lives here.
//!
//! The rest of the crate sees safe wrappers: file status, seeking, windowed
//! read-only mappings guarded against SIGBUS, splice into /dev/null, raw
//! descriptor writers, the locale's codeset and classes, and glibc's GNU
//! regex (the exact matcher GNU grep itself uses for back-references).

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

mod dir;
mod mapped;
pub use dir::{
    fnmatch_in, list_dir, list_dir_in, lstat_path, open_in, open_path, DirType, OpenFlags, RawEntry,
};
pub use mapped::{MappedWindow, RetiredWindow};

// ---------------------------------------------------------------------------
// Start-up.  The binaries skip Rust's runtime start-up (`#![no_main]`): on a
// one-line input it cost a fifth of GNU's whole run (reading
// /proc/self/maps for the stack guard, a signal stack, handlers).  What it
// did that the tools rely on is done by [`start_process`]; SIGPIPE, which
// the runtime would have ignored, is simply left as the parent gave it, as
// GNU tools leave it (killed silently when it is at its default, EPIPE when
// the parent ignored it).

// Closed standard descriptors: a closed stdin or stdout is seen by GNU
// tools as EBADF (`cat >&-`: "cat: standard output: Bad file descriptor").
// A constructor in `.init_array` records which ones were closed, and
// `start_process` then reopens them on /dev/null, as Rust's runtime does,
// so that no file we open takes their numbers.

static STDIN_WAS_CLOSED: AtomicBool = AtomicBool::new(false);
static STDOUT_WAS_CLOSED: AtomicBool = AtomicBool::new(false);

extern "C" fn record_closed_standard_fds() {
    for (fd, flag) in [
        (libc::STDIN_FILENO, &STDIN_WAS_CLOSED),
        (libc::STDOUT_FILENO, &STDOUT_WAS_CLOSED),
    ] {
        // SAFETY: F_GETFD only queries the descriptor's flags.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        flag.store(closed, Ordering::Relaxed);
    }
}

#[used]
#[link_section = ".init_array"]
static RECORD_CLOSED_FDS: extern "C" fn() = record_closed_standard_fds;

/// Was stdin closed when the process started?
pub fn stdin_was_closed() -> bool {
    STDIN_WAS_CLOSED.load(Ordering::Relaxed)
}

/// Was stdout closed when the process started?
pub fn stdout_was_closed() -> bool {
    STDOUT_WAS_CLOSED.load(Ordering::Relaxed)
}

/// A writer for a stdout that was closed at start-up: every write fails
/// with EBADF, as it would have.
pub struct ClosedWriter;

impl Write for ClosedWriter {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(libc::EBADF))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// The arguments without copies: glibc calls `.init_array` functions with
// (argc, argv, envp), the same pointers `main` gets.  `yes` joins operands
// of many megabytes; borrowing them from argv keeps one copy of the line in
// memory instead of three (argv, std's copy, the line).

static ARGC: AtomicUsize = AtomicUsize::new(0);
static ARGV: AtomicPtr<*const libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn record_argv(
    argc: libc::c_int,
    argv: *mut *const libc::c_char,
    _envp: *const *const libc::c_char,
) {
    ARGC.store(usize::try_from(argc).unwrap_or(0), Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

type InitArrayFn = extern "C" fn(libc::c_int, *mut *const libc::c_char, *const *const libc::c_char);

#[used]
#[link_section = ".init_array"]
static RECORD_ARGV: InitArrayFn = record_argv;

/// The program's arguments, without the program name, borrowed from argv.
pub fn args_borrowed() -> Vec<&'static [u8]> {
    let (argc, argv) = (ARGC.load(Ordering::Relaxed), ARGV.load(Ordering::Relaxed));
    if argv.is_null() {
        // Not started by glibc's loader (no arguments were passed to the
        // constructor): fall back to std's copies, kept for the process.
        use std::os::unix::ffi::OsStringExt;
        return std::env::args_os()
            .skip(1)
            .map(|a| &*Vec::leak(a.into_vec()))
            .collect();
    }
    (1..argc)
        .map(|i| {
            // SAFETY: glibc passes the argv `main` receives: `argc` valid
            // pointers to NUL-terminated strings in the initial stack, which
            // live as long as the process.  Nothing in samebytes or std
            // writes to them, so shared 'static borrows are sound.
            unsafe { std::ffi::CStr::from_ptr(*argv.add(i)).to_bytes() }
        })
        .collect()
}

/// What the binaries need done before anything else, in place of Rust's
/// runtime start-up: stdin, stdout and stderr, if closed, are reopened on
/// /dev/null (after the constructor above recorded which were closed), so
/// that a file we open never becomes descriptor 0, 1 or 2.
pub fn start_process() {
    for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
        // SAFETY: F_GETFD only queries the descriptor.  open is given a
        // valid NUL-terminated path; with every lower descriptor open, the
        // lowest free one is `fd` itself, and it is kept open for the rest
        // of the process (as Rust's runtime keeps it).
        unsafe {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
            {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Locale.

/// Set by [`ctype_locale_is_utf8`] when the process's own locale (the
/// environment's, as GNU's `setlocale(LC_ALL, "")` picks it) is UTF-8.
static PROCESS_CTYPE_IS_UTF8: AtomicBool = AtomicBool::new(false);

/// Run `setlocale(LC_CTYPE, "")` as GNU's `setlocale(LC_ALL, "")` would for
/// character classes, and report whether the resulting codeset is UTF-8.
/// An unknown or missing locale falls back to C, exactly as in GNU.
pub fn ctype_locale_is_utf8() -> bool {
    // SAFETY: setlocale with a valid NUL-terminated empty string and
    // nl_langinfo(CODESET) are called before any other thread exists; the
    // returned pointer is read immediately as a C string and not kept.
    let utf8 = unsafe {
        if libc::setlocale(libc::LC_CTYPE, c"".as_ptr()).is_null() {
            return false;
        }
        let codeset = libc::nl_langinfo(libc::CODESET);
        if codeset.is_null() {
            return false;
        }
        let name = std::ffi::CStr::from_ptr(codeset).to_bytes();
        name.eq_ignore_ascii_case(b"UTF-8") || name.eq_ignore_ascii_case(b"UTF8")
    };
    PROCESS_CTYPE_IS_UTF8.store(utf8, Ordering::Relaxed);
    utf8
}

extern "C" {
    // glibc's <wchar.h> and <wctype.h>; wint_t is an unsigned 32-bit
    // integer on Linux.  The libc crate does not bind these.
    fn wcwidth(c: libc::wchar_t) -> libc::c_int;
    fn iswspace(c: u32) -> libc::c_int;
    fn iswalnum(c: u32) -> libc::c_int;
    fn towupper(c: u32) -> u32;
    fn wctype(name: *const libc::c_char) -> libc::c_ulong;
    fn iswctype(c: u32, class: libc::c_ulong) -> libc::c_int;
}

/// The code points (below U+110000, surrogates left out) in the UTF-8
/// locale's class `name` (one of the POSIX names), as sorted inclusive
/// ranges: `iswctype` asked for each, with that locale installed for this
/// thread only while asking.
pub fn utf8_class_ranges(name: &std::ffi::CStr) -> Vec<(u32, u32)> {
    let handle = utf8_ctype_handle();
    // SAFETY: as in `utf8_ctype_block`: a valid locale object, installed
    // for this thread only, and the previous one put back below.
    let previous = unsafe { libc::uselocale(handle) };
    // SAFETY: a NUL-terminated name; wctype only reads the locale's tables
    // (an unknown name gives 0, which iswctype answers false for).
    let class = unsafe { wctype(name.as_ptr()) };
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for code in (0..0xD800).chain(0xE000..0x110000) {
        // SAFETY: iswctype only reads the current locale's tables.
        if unsafe { iswctype(code, class) } == 0 {
            continue;
        }
        match ranges.last_mut() {
            Some((_, hi)) if *hi + 1 == code => *hi = code,
            _ => ranges.push((code, code)),
        }
    }
    // SAFETY: `previous` came from uselocale, so it is valid to reinstall.
    unsafe { libc::uselocale(previous) };
    ranges
}

/// The C library's classes of one code point of a UTF-8 locale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtypeAnswer {
    /// `wcwidth`: −1 for a character that is not printable.
    pub width: i32,
    /// `iswspace`.
    pub space: bool,
    /// `iswalnum`.
    pub alnum: bool,
}

/// A locale object kept for the rest of the process.
struct Handle(libc::locale_t);
// SAFETY: a glibc locale object is immutable once made, and POSIX lets any
// number of threads install the same one with uselocale.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

/// The UTF-8 locale the tools classify characters in: the process's own
/// when `setlocale` chose a UTF-8 one (the binaries), otherwise (a library
/// caller that never set a locale, such as the tests) a C.UTF-8 object of
/// our own, so that asking never touches the global locale.
fn utf8_ctype_handle() -> libc::locale_t {
    // glibc's LC_GLOBAL_LOCALE, which the libc crate does not define:
    // installed with uselocale it means "the process's global locale".
    const GLOBAL: libc::locale_t = -1isize as libc::locale_t;
    static HANDLE: OnceLock<Handle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            if PROCESS_CTYPE_IS_UTF8.load(Ordering::Relaxed) {
                return Handle(GLOBAL);
            }
            // SAFETY: a valid NUL-terminated name and a null base ask for a
            // fresh object; the result is checked.  It is never freed.
            let own = unsafe {
                libc::newlocale(
                    libc::LC_CTYPE_MASK,
                    c"C.UTF-8".as_ptr(),
                    std::ptr::null_mut(),
                )
            };
            // Without a C.UTF-8 the global locale is all there is.
            Handle(if own.is_null() { GLOBAL } else { own })
        })
        .0
}

/// Ask the C library for the classes of the code points `first..` (one
/// per slot of `out`) in the UTF-8 locale, with that locale installed for
/// this thread only while asking.
pub fn utf8_ctype_block(first: u32, out: &mut [CtypeAnswer]) {
    let handle = utf8_ctype_handle();
    // SAFETY: `handle` is a valid locale object (or LC_GLOBAL_LOCALE) that
    // lives for the rest of the process; uselocale changes only this
    // thread's locale, and the previous one is put back below.
    let previous = unsafe { libc::uselocale(handle) };
    for (code, slot) in (first..).zip(out.iter_mut()) {
        // SAFETY: wcwidth and iswspace only read the current locale's
        // tables; Linux's wchar_t holds every code point below 2^31.
        *slot = unsafe {
            CtypeAnswer {
                width: wcwidth(code as libc::wchar_t),
                space: iswspace(code) != 0,
                alnum: iswalnum(code) != 0,
            }
        };
    }
    // SAFETY: `previous` came from uselocale, so it is valid to reinstall.
    unsafe { libc::uselocale(previous) };
}

/// `towupper(code)` in the UTF-8 locale (grep's `-i` compares characters
/// by their upper case), with that locale installed for this thread only
/// while asking.
pub fn utf8_towupper(code: u32) -> u32 {
    let handle = utf8_ctype_handle();
    // SAFETY: as in `utf8_ctype_block`: a valid locale object, installed
    // for this thread only, and the previous one put back below.
    let previous = unsafe { libc::uselocale(handle) };
    // SAFETY: towupper only reads the current locale's tables.
    let upper = unsafe { towupper(code) };
    // SAFETY: `previous` came from uselocale, so it is valid to reinstall.
    unsafe { libc::uselocale(previous) };
    upper
}

// ---------------------------------------------------------------------------
// glibc's GNU regex.

/// `struct re_pattern_buffer` of glibc's <regex.h> on 64-bit Linux.  The
/// byte after `re_nsub` holds the bit fields `can_be_null:1`,
/// `regs_allocated:2`, `fastmap_accurate:1`, `no_sub:1`, `not_bol:1`,
/// `not_eol:1` and `newline_anchor:1`, lowest bit first.
#[repr(C)]
struct RePatternBuffer {
    buffer: *mut libc::c_void,
    allocated: usize,
    used: usize,
    syntax: libc::c_ulong,
    fastmap: *mut libc::c_char,
    translate: *mut libc::c_uchar,
    re_nsub: usize,
    flags: u8,
    _padding: [u8; 7],
}

const NOT_EOL: u8 = 1 << 6;

/// `struct re_registers`: glibc allocates the arrays on the first search
/// and reallocates them after (the buffer's `regs_allocated` says so).
#[repr(C)]
struct ReRegisters {
    num_regs: libc::c_uint,
    start: *mut libc::c_int,
    end: *mut libc::c_int,
}
const NEWLINE_ANCHOR: u8 = 1 << 7;

extern "C" {
    static mut re_syntax_options: libc::c_ulong;
    fn re_compile_pattern(
        pattern: *const libc::c_char,
        length: usize,
        buffer: *mut RePatternBuffer,
    ) -> *const libc::c_char;
    fn re_search(
        buffer: *mut RePatternBuffer,
        string: *const libc::c_char,
        length: libc::c_int,
        start: libc::c_int,
        range: libc::c_int,
        regs: *mut ReRegisters,
    ) -> libc::c_int;
    fn re_match(
        buffer: *mut RePatternBuffer,
        string: *const libc::c_char,
        length: libc::c_int,
        start: libc::c_int,
        regs: *mut libc::c_void,
    ) -> libc::c_int;
    fn regfree(buffer: *mut RePatternBuffer);
}

/// A compiled pattern (its fastmap is malloc'd: regfree frees it) and
/// the registers of its searches.
struct GnuRegexCell {
    buffer: RePatternBuffer,
    regs: ReRegisters,
}

// SAFETY: the compiled pattern is plain memory owned by this value; it is
// only used behind the Mutex below, one thread at a time.
unsafe impl Send for GnuRegexCell {}

impl Drop for GnuRegexCell {
    fn drop(&mut self) {
        // SAFETY: the buffer was filled by a successful re_compile_pattern
        // and is freed once; the register arrays are glibc's malloc'd
        // ones, or null.
        unsafe {
            regfree(&mut self.buffer);
            libc::free(self.regs.start.cast());
            libc::free(self.regs.end.cast());
        }
    }
}

/// A pattern compiled by glibc's `re_compile_pattern`, in the C or the
/// UTF-8 locale, searched one line at a time.
pub struct GnuRegex {
    cell: std::sync::Mutex<GnuRegexCell>,
    locale: libc::locale_t,
}

// SAFETY: the locale object is immutable and lives for the process; the
// pattern is behind a Mutex.
unsafe impl Send for GnuRegex {}
// SAFETY: as above.
unsafe impl Sync for GnuRegex {}

/// A C locale object of our own, for C-locale searches.
fn c_ctype_handle() -> libc::locale_t {
    static HANDLE: OnceLock<Handle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            // SAFETY: a valid name and a null base; the result is checked.
            let own = unsafe {
                libc::newlocale(libc::LC_CTYPE_MASK, c"C".as_ptr(), std::ptr::null_mut())
            };
            assert!(!own.is_null(), "newlocale(C) failed");
            Handle(own)
        })
        .0
}

/// Run `f` with `locale` installed for this thread.
fn in_locale<T>(locale: libc::locale_t, f: impl FnOnce() -> T) -> T {
    // SAFETY: `locale` is a valid object (or LC_GLOBAL_LOCALE) for the
    // process's lifetime; the previous one is put back below.
    let previous = unsafe { libc::uselocale(locale) };
    let answer = f();
    // SAFETY: `previous` came from uselocale.
    unsafe { libc::uselocale(previous) };
    answer
}

impl GnuRegex {
    /// Compile `pattern` with these syntax bits.  The error is glibc's
    /// message.  `^` and `$` match only at the ends of the searched line
    /// (not at a newline inside it, which only `-z` lines hold).
    pub fn compile(pattern: &[u8], syntax: u64, utf8: bool) -> Result<GnuRegex, String> {
        static SYNTAX_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let locale = if utf8 {
            utf8_ctype_handle()
        } else {
            c_ctype_handle()
        };
        // SAFETY: malloc of 256 bytes; checked below.  regfree frees it.
        let fastmap = unsafe { libc::malloc(256) }.cast::<libc::c_char>();
        if fastmap.is_null() {
            return Err("memory exhausted".into());
        }
        let mut buffer = RePatternBuffer {
            buffer: std::ptr::null_mut(),
            allocated: 0,
            used: 0,
            syntax: 0,
            fastmap,
            translate: std::ptr::null_mut(),
            re_nsub: 0,
            flags: 0,
            _padding: [0; 7],
        };
        let error = {
            let _guard = SYNTAX_LOCK.lock().unwrap_or_else(|e| e.into_inner());
            in_locale(locale, || {
                // SAFETY: the syntax global is written and read only under
                // SYNTAX_LOCK; the pattern pointer and length are valid;
                // the buffer is zeroed but for its fastmap, as glibc asks.
                unsafe {
                    re_syntax_options = syntax as libc::c_ulong;
                    re_compile_pattern(pattern.as_ptr().cast(), pattern.len(), &mut buffer)
                }
            })
        };
        if !error.is_null() {
            // SAFETY: glibc returns a NUL-terminated static message.
            let text = unsafe { std::ffi::CStr::from_ptr(error) }
                .to_string_lossy()
                .into_owned();
            // SAFETY: a failed compile leaves the buffer freeable: glibc
            // has freed its own parts, and regfree frees the fastmap.
            unsafe { regfree(&mut buffer) };
            return Err(text);
        }
        buffer.flags &= !NEWLINE_ANCHOR;
        Ok(GnuRegex {
            cell: std::sync::Mutex::new(GnuRegexCell {
                buffer,
                regs: ReRegisters {
                    num_regs: 0,
                    start: std::ptr::null_mut(),
                    end: std::ptr::null_mut(),
                },
            }),
            locale,
        })
    }

    /// The leftmost match in `line` at or after `from`, as GNU grep asks
    /// for it: `re_search`, and the end of the whole match from its
    /// registers.  `None` also for a line too long for glibc's offsets.
    pub fn search(&self, line: &[u8], from: usize) -> Option<(usize, usize)> {
        let len = libc::c_int::try_from(line.len()).ok()?;
        let from = libc::c_int::try_from(from).ok()?;
        let mut guard = self.cell.lock().unwrap_or_else(|e| e.into_inner());
        let cell = &mut *guard;
        let found = in_locale(self.locale, || {
            cell.buffer.flags &= !NOT_EOL;
            // SAFETY: a compiled buffer; `line` is valid for `len` bytes;
            // the registers are glibc's to (re)allocate.
            let start = unsafe {
                re_search(
                    &mut cell.buffer,
                    line.as_ptr().cast(),
                    len,
                    from,
                    len - from,
                    &mut cell.regs,
                )
            };
            if start < 0 || cell.regs.num_regs == 0 {
                return None;
            }
            // SAFETY: after a match, register 0 holds the whole match.
            let end = unsafe { *cell.regs.end };
            Some((start, end))
        })?;
        Some((
            usize::try_from(found.0).ok()?,
            usize::try_from(found.1).ok()?,
        ))
    }

    /// The length of the longest match at `start` in `line[..end]`.  With
    /// `end` short of the line, `$` does not match there (GNU's `not_eol`).
    pub fn match_len(&self, line: &[u8], start: usize, end: usize) -> Option<usize> {
        let len = libc::c_int::try_from(end).ok()?;
        let start = libc::c_int::try_from(start).ok()?;
        let mut cell = self.cell.lock().unwrap_or_else(|e| e.into_inner());
        let n = in_locale(self.locale, || {
            if end < line.len() {
                cell.buffer.flags |= NOT_EOL;
            } else {
                cell.buffer.flags &= !NOT_EOL;
            }
            // SAFETY: as in `search`.
            unsafe {
                re_match(
                    &mut cell.buffer,
                    line.as_ptr().cast(),
                    len,
                    start,
                    std::ptr::null_mut(),
                )
            }
        });
        usize::try_from(n).ok()
    }
}

// ---------------------------------------------------------------------------
// Error text.

/// glibc's `strerror` text for an I/O error, without Rust's "(os error N)".
/// Every error a system call gives carries its errno; only std's own
/// synthetic errors have none (`write_all` after a write of 0 bytes, which
/// the kernel never gives for a non-empty write), and those read as EIO.
pub fn error_text(e: &io::Error) -> String {
    let full = io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(libc::EIO)).to_string();
    match full.rfind(" (os error ") {
        Some(cut) => full[..cut].to_string(),
        None => full,
    }
}

// ---------------------------------------------------------------------------
// File status and seeking.

/// What `fstat` says about an open descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileInfo {
    pub kind: FileKind,
    pub size: u64,
    pub block_size: u64,
    /// Device and inode: the file's identity.
    pub id: (u64, u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Fifo,
    Directory,
    /// A symbolic link: only `lstat` sees one.
    Symlink,
    /// Devices, sockets and the rest: read and written as streams.
    Other,
}

fn info_from_stat(st: &libc::stat) -> FileInfo {
    let kind = match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => FileKind::Regular,
        libc::S_IFIFO => FileKind::Fifo,
        libc::S_IFDIR => FileKind::Directory,
        libc::S_IFLNK => FileKind::Symlink,
        _ => FileKind::Other,
    };
    FileInfo {
        kind,
        size: u64::try_from(st.st_size).unwrap_or(0),
        block_size: u64::try_from(st.st_blksize).unwrap_or(512).max(1),
        id: (st.st_dev, st.st_ino),
    }
}

/// `fstat(fd)`.
pub fn fstat(fd: RawFd) -> io::Result<FileInfo> {
    // SAFETY: fstat writes into a zeroed stat struct we own; an invalid fd
    // yields EBADF, not undefined behaviour.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info_from_stat(&st))
    }
}

/// `stat(path)`.
pub fn stat_path(path: &[u8]) -> io::Result<FileInfo> {
    let c = std::ffi::CString::new(path).map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
    // SAFETY: `c` is a valid NUL-terminated path; stat writes into a zeroed
    // struct we own.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::stat(c.as_ptr(), &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info_from_stat(&st))
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Whence {
    Set,
    Cur,
    End,
}

/// `lseek(fd, offset, whence)`.
pub fn lseek(fd: RawFd, offset: i64, whence: Whence) -> io::Result<u64> {
    let w = match whence {
        Whence::Set => libc::SEEK_SET,
        Whence::Cur => libc::SEEK_CUR,
        Whence::End => libc::SEEK_END,
    };
    // SAFETY: lseek has no memory effects; errors are reported via -1.
    let r = unsafe { libc::lseek(fd, offset as libc::off_t, w) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as u64)
    }
}

/// Was `fd` opened for appending (`O_APPEND`)?  `false` if it cannot be
/// asked.
pub fn is_append(fd: RawFd) -> bool {
    // SAFETY: F_GETFL takes no argument and has no memory effects; errors
    // are reported as -1.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags >= 0 && flags & libc::O_APPEND != 0
}

pub fn page_size() -> u64 {
    static PAGE: OnceLock<u64> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no memory effects.  It cannot fail for
        // _SC_PAGESIZE (POSIX requires the value); 4 KiB if it ever did.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(p).unwrap_or(4096)
    })
}

/// Advise the kernel that `fd` will be read sequentially.
pub fn advise_sequential(fd: RawFd) {
    // SAFETY: posix_fadvise only gives a hint; failure is harmless.
    unsafe {
        libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

/// Try to grow a pipe's buffer to `size` bytes (F_SETPIPE_SZ); returns the
/// size the pipe has afterwards, if it is a pipe at all.  A pipe that is
/// already as large is left alone: F_SETPIPE_SZ would shrink it.
pub fn grow_pipe(fd: RawFd, size: usize) -> Option<usize> {
    // SAFETY: fcntl with F_GETPIPE_SZ takes and returns plain integers; on
    // a non-pipe it fails (-1, so no size) and changes nothing.
    let pipe_size = || usize::try_from(unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) }).ok();
    if pipe_size()? < size {
        let size = libc::c_int::try_from(size).unwrap_or(libc::c_int::MAX);
        // SAFETY: as above; F_SETPIPE_SZ takes a plain integer too.
        unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, size) };
    }
    pipe_size()
}

/// Would a read of `fd` wait now: has the input nothing to give yet, and
/// has its writer not gone (`poll` with no timeout finds it neither
/// readable nor hung up)?  A poll that does not wait is never interrupted
/// (no handler of ours runs while it does), and an input that cannot be
/// asked (`poll` fails) is taken as ready: the read that follows tells.
pub fn read_would_wait(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd, and the count passed is 1; a zero
    // timeout returns at once.
    unsafe { libc::poll(&mut p, 1, 0) == 0 }
}

// ---------------------------------------------------------------------------
// Borrowed descriptors as std types.

/// A `File` view of a descriptor we do not own (stdin, stdout).  It is never
/// closed by us.
pub fn borrow_fd(fd: RawFd) -> ManuallyDrop<File> {
    // SAFETY: the File is wrapped in ManuallyDrop, so it never closes `fd`;
    // callers only use it while the descriptor stays open (the process's
    // standard streams, which are open for its whole life or report EBADF).
    ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })
}

/// A writer on a raw descriptor with no buffering of its own.
pub struct FdWriter {
    file: ManuallyDrop<File>,
}

impl FdWriter {
    pub fn stdout() -> Self {
        FdWriter {
            file: borrow_fd(libc::STDOUT_FILENO),
        }
    }
}

impl Write for FdWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// splice into /dev/null: count the bytes of a pipe without copying them.

/// Outcome of trying to drain a pipe with splice.
pub enum SpliceCount {
    /// Everything up to EOF was counted.
    Done(u64),
    /// splice is not possible here; `u64` bytes were already consumed and
    /// counted, the caller continues with read().
    Unsupported(u64),
    /// A real error after `u64` bytes.
    Failed(u64, io::Error),
}

pub fn splice_count_to_null(fd: RawFd) -> SpliceCount {
    static DEV_NULL: OnceLock<Option<File>> = OnceLock::new();
    let Some(null) = DEV_NULL.get_or_init(|| File::options().write(true).open("/dev/null").ok())
    else {
        return SpliceCount::Unsupported(0);
    };
    let mut total = 0u64;
    loop {
        // SAFETY: splice moves data between two descriptors inside the
        // kernel; the null offset pointers mean "use the file positions".
        let n = unsafe {
            libc::splice(
                fd,
                std::ptr::null_mut(),
                null.as_raw_fd(),
                std::ptr::null_mut(),
                1 << 30,
                libc::SPLICE_F_MOVE,
            )
        };
        if n > 0 {
            total += n as u64;
            continue;
        }
        if n == 0 {
            return SpliceCount::Done(total);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EINVAL)
            | Some(libc::ENOSYS)
            | Some(libc::EOPNOTSUPP)
            | Some(libc::EBADF) => return SpliceCount::Unsupported(total),
            _ => return SpliceCount::Failed(total, e),
        }
    }
}

// ---------------------------------------------------------------------------
// Kernel copies for cat: copy_file_range, splice and pipes.
//
// Each wrapper makes one call and reports what it moved; the caller owns
// the loop, so it always knows how many bytes have left the input and can
// switch paths without losing or repeating any.

/// Errors that mean "this kind of copy is not possible between these two
/// descriptors" rather than "the data could not be read or written".
pub fn means_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL)
            | Some(libc::ENOSYS)
            | Some(libc::EOPNOTSUPP)
            | Some(libc::EXDEV)
            | Some(libc::EBADF)
            | Some(libc::ETXTBSY)
            | Some(libc::EPERM)
    )
}

fn byte_count(r: isize) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// Can one byte be read from `fd` at `offset`?  Reads it with pread(2),
/// which leaves the descriptor's offset alone, retrying EINTR.
pub fn pread_probe(fd: RawFd, offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let file = borrow_fd(fd);
    let mut byte = [0u8; 1];
    loop {
        match file.read_at(&mut byte, offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// One `copy_file_range(from, NULL, to, NULL, len, 0)`: copy at the file
/// positions of both descriptors and advance them.
pub fn copy_file_range(from: RawFd, to: RawFd, len: usize) -> io::Result<usize> {
    // SAFETY: null offset pointers mean "use and advance the file
    // positions"; the kernel touches no memory of ours.
    byte_count(unsafe {
        libc::copy_file_range(from, std::ptr::null_mut(), to, std::ptr::null_mut(), len, 0)
    })
}

/// One `splice(from, NULL, to, NULL, len, SPLICE_F_MOVE)`; one end must be
/// a pipe.
pub fn splice(from: RawFd, to: RawFd, len: usize) -> io::Result<usize> {
    // SAFETY: as for copy_file_range: file positions, no user memory.
    byte_count(unsafe {
        libc::splice(
            from,
            std::ptr::null_mut(),
            to,
            std::ptr::null_mut(),
            len,
            libc::SPLICE_F_MOVE,
        )
    })
}

/// A new pipe, both ends close-on-exec: (read end, write end).
pub fn pipe() -> io::Result<(File, File)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we own; on
    // success we take sole ownership of both.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])))
    }
}

// ---------------------------------------------------------------------------
// vmsplice for yes.
//
// vmsplice puts references to our pages into the pipe, not a copy of the
// bytes: the reader sees whatever the pages hold when it reads, which may
// be long after the call returned, even after we exit.  So only bytes that
// never change and are never freed may be spliced.  `FrozenPipe` enforces
// that: it keeps a clone of every buffer it has spliced from and never
// gives it back (an `Rc` with another owner cannot be mutated through safe
// code), and it leaks them if it is ever dropped.  SPLICE_F_GIFT is not
// used: it only lets a consumer steal the pages, which we never want.

/// Page-aligned memory of its own anonymous mapping, for bytes that may be
/// vmspliced.  From 1 MiB up it is aligned to 2 MiB and advised for
/// transparent huge pages: vmsplice then pins one huge page where it would
/// pin 512 small ones, which measured twice as fast into `pv` here.
pub struct PageBuffer {
    map: *mut libc::c_void,
    map_len: usize,
    start: *mut u8,
    len: usize,
}

const HUGE_PAGE: usize = 2 << 20;

impl PageBuffer {
    /// A zero-filled buffer of `len` bytes.
    pub fn new(len: usize) -> io::Result<PageBuffer> {
        let page = page_size() as usize;
        let huge = len >= HUGE_PAGE / 2;
        let round = |n: usize, to: usize| n.div_ceil(to) * to;
        let span = if huge {
            round(len, HUGE_PAGE)
        } else {
            round(len.max(1), page)
        };
        let map_len = if huge { span + HUGE_PAGE } else { span };
        // SAFETY: a fresh private anonymous mapping; the kernel picks the
        // address and nothing else refers to it.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let offset = if huge {
            (HUGE_PAGE - map as usize % HUGE_PAGE) % HUGE_PAGE
        } else {
            0
        };
        // SAFETY: `offset + span <= map_len`, so `start` and the advised
        // range lie inside the mapping.  madvise only changes how the
        // kernel backs the range; its failure is harmless.
        let start = unsafe {
            let start = (map as *mut u8).add(offset);
            if huge {
                libc::madvise(start as *mut libc::c_void, span, libc::MADV_HUGEPAGE);
            }
            start
        };
        Ok(PageBuffer {
            map,
            map_len,
            start,
            len,
        })
    }
}

impl std::ops::Deref for PageBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `start..start + len` lies inside our mapping, which lives
        // until drop, and is initialised (anonymous memory is zero-filled).
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
}

impl std::ops::DerefMut for PageBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as for Deref; `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.start, self.len) }
    }
}

impl Drop for PageBuffer {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `new` made; no slice of it can
        // outlive `self`.
        unsafe {
            libc::munmap(self.map, self.map_len);
        }
    }
}

/// A pipe that takes bytes by vmsplice from buffers frozen for the rest of
/// the process.
pub struct FrozenPipe {
    fd: RawFd,
    frozen: Vec<std::rc::Rc<PageBuffer>>,
}

impl FrozenPipe {
    pub fn new(fd: RawFd) -> FrozenPipe {
        FrozenPipe {
            fd,
            frozen: Vec::new(),
        }
    }

    /// One vmsplice of `buf[from..to]`: returns how many bytes the pipe
    /// took.  It waits for room, then takes what fits; with `nonblocking`
    /// a full pipe gives `WouldBlock` instead of waiting.
    pub fn vmsplice(
        &mut self,
        buf: &std::rc::Rc<PageBuffer>,
        from: usize,
        to: usize,
        nonblocking: bool,
    ) -> io::Result<usize> {
        let bytes = &buf[from..to];
        if !self.frozen.iter().any(|b| std::rc::Rc::ptr_eq(b, buf)) {
            self.frozen.push(std::rc::Rc::clone(buf));
        }
        let iov = libc::iovec {
            iov_base: bytes.as_ptr() as *mut libc::c_void,
            iov_len: bytes.len(),
        };
        let flags = if nonblocking {
            libc::SPLICE_F_NONBLOCK
        } else {
            0
        };
        // SAFETY: `iov` describes `bytes`, which lie inside a buffer that
        // `self.frozen` holds a clone of and never releases (see Drop), so
        // the pages stay allocated and unmodified for the life of the
        // process, as vmsplice's page references require.  The kernel only
        // reads the one iovec we pass.
        byte_count(unsafe { libc::vmsplice(self.fd, &iov, 1, flags) })
    }
}

impl Drop for FrozenPipe {
    fn drop(&mut self) {
        // The pipe may still hold references to these pages.
        for buf in self.frozen.drain(..) {
            std::mem::forget(buf);
        }
    }
}

/// How many bytes can be read from `fd` without blocking (FIONREAD), if
/// the descriptor can tell.
pub fn bytes_ready(fd: RawFd) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into `n`, which we own.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    (r == 0).then_some(n.max(0) as usize)
}

// ---------------------------------------------------------------------------
// Byte masks with SIMD compares.

/// Bit `i` is set when `block[i] == needle`: SSE2 (always present on
/// x86_64), four 16-byte compares and move-masks.  Other targets have no
/// such function; their callers compare byte by byte in safe code.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn byte_mask_64(block: &[u8; 64], needle: u8) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are
    // always available; `block` is 64 readable bytes, so each 16-byte load
    // at `lane * 16` is in bounds, and loadu tolerates any alignment.
    unsafe {
        let n = _mm_set1_epi8(needle as i8);
        let mut mask = 0u64;
        for lane in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(lane * 16).cast::<__m128i>());
            let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, n)) as u32 as u64;
            mask |= m << (lane * 16);
        }
        mask
    }
}

// ---------------------------------------------------------------------------
// Counting one byte value.

/// How many bytes of `bytes` equal `needle`.  Where the CPU has
/// AVX-512BW, 64 bytes at a time compare into a mask whose bits POPCNT
/// counts: two and a half times memchr's count on lines already in cache
/// (memchr's build has no POPCNT, so it adds its masks' bits in vector
/// registers).  Otherwise memchr counts.  The tests compare both with a
/// plain count at every alignment and length.
pub fn count_byte(bytes: &[u8], needle: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU has both features the function is built for,
        // checked just above.
        return unsafe { count_byte_avx512(bytes, needle) };
    }
    memchr::memchr_iter(needle, bytes).count() as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,popcnt")]
fn count_byte_avx512(bytes: &[u8], needle: u8) -> u64 {
    use std::arch::x86_64::{
        _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_mask_cmpeq_epi8_mask,
        _mm512_maskz_loadu_epi8, _mm512_set1_epi8,
    };
    let n = _mm512_set1_epi8(needle as i8);
    let mut blocks = bytes.chunks_exact(64);
    let mut total = 0u64;
    for block in &mut blocks {
        // SAFETY: `block` is 64 readable bytes; loadu takes any alignment.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        total += u64::from(_mm512_cmpeq_epi8_mask(v, n).count_ones());
    }
    let rest = blocks.remainder();
    if rest.is_empty() {
        return total;
    }
    let lanes = (1u64 << rest.len()) - 1;
    // SAFETY: the masked load reads only the `rest.len()` bytes whose
    // lanes are set, all inside `rest`; masked-off lanes never fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(lanes, rest.as_ptr().cast()) };
    total + u64::from(_mm512_mask_cmpeq_epi8_mask(lanes, v, n).count_ones())
}

/// Ask the CPU to bring the cache line holding `bytes[at]` in, without
/// waiting for it; nothing happens where there is no such byte.
#[inline]
pub fn prefetch(bytes: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(at) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint: it never faults (not even on a
        // page the file was cut short under) and reads nothing into the
        // program; the pointer is in bounds anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// memchr's way: the fast count beside a plain one, for every
    /// alignment of every length up to a few blocks, with the needle at
    /// the edges, everywhere and nowhere.
    #[test]
    fn count_byte_is_a_plain_count_at_every_alignment_and_length() {
        let mut buf = vec![0u8; 64 * 5];
        for (i, b) in buf.iter_mut().enumerate() {
            *b = [b'\n', b'x', 0, 0xff, b'\n'][(i * 7 + i / 3) % 5];
        }
        let all = vec![b'\n'; buf.len()];
        for bytes in [&buf[..], &all[..]] {
            for start in 0..64 {
                for len in 0..bytes.len() - start {
                    let part = &bytes[start..start + len];
                    for needle in [b'\n', b'x', 0, 0xff, b'q'] {
                        let plain = part.iter().filter(|&&b| b == needle).count() as u64;
                        assert_eq!(count_byte(part, needle), plain, "{start}+{len} {needle}");
                        let memchr = memchr::memchr_iter(needle, part).count() as u64;
                        assert_eq!(memchr, plain);
                    }
                }
            }
        }
    }
}
