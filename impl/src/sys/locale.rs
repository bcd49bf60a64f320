//! The C library's locale tables: the process's codeset, and the classes,
//! widths and upper cases of code points in a UTF-8 locale, asked with that
//! locale installed for the asking thread only.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

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
pub(super) fn utf8_ctype_handle() -> libc::locale_t {
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

/// A C locale object of our own, for C-locale searches.
pub(super) fn c_ctype_handle() -> libc::locale_t {
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
pub(super) fn in_locale<T>(locale: libc::locale_t, f: impl FnOnce() -> T) -> T {
    // SAFETY: `locale` is a valid object (or LC_GLOBAL_LOCALE) for the
    // process's lifetime; the previous one is put back below.
    let previous = unsafe { libc::uselocale(locale) };
    let answer = f();
    // SAFETY: `previous` came from uselocale.
    unsafe { libc::uselocale(previous) };
    answer
}
