//! The C library's own character classes, asked directly.
//!
//! GNU tools take printability, display width and white space from the C
//! library after `setlocale` (`iswprint`, `wcwidth`, `iswspace`), so a
//! reference that wants to agree with them on every code point has to ask
//! the same library.  The reference implementations forbid `unsafe`, so the
//! three foreign calls they need live here, behind safe functions.
//!
//! The questions are asked of the machine's `C.UTF-8` locale (the one the
//! conformance tests run GNU in), through a locale object of this crate's
//! own installed for the calling thread only for the duration of one call:
//! the process's global locale is never touched, so callers on any thread,
//! in any order, get the same answers.

// An FFI crate: the C library's locale calls are its whole purpose, so `unsafe` is
// allowed here (the workspace denies it elsewhere); each block says why it
// holds.
#![allow(unsafe_code)]

use std::ffi::{c_int, CStr};
use std::sync::OnceLock;

extern "C" {
    // glibc's declarations (<wchar.h>, <wctype.h>); wint_t is an unsigned
    // 32-bit integer on Linux.  The libc crate does not bind these.
    fn wcwidth(c: libc::wchar_t) -> c_int;
    fn iswprint(c: u32) -> c_int;
    fn iswspace(c: u32) -> c_int;
    fn wctype(name: *const std::ffi::c_char) -> libc::c_ulong;
    fn iswctype(c: u32, class: libc::c_ulong) -> c_int;
    fn towupper(c: u32) -> u32;
}

/// The names the UTF-8 locale is looked for under, in order.  glibc
/// normalises the codeset part, so `C.UTF-8` also finds `C.utf8`.
const UTF8_LOCALE_NAMES: &[&CStr] = &[c"C.UTF-8", c"en_US.UTF-8"];

/// A locale object, created once and never freed.
struct Handle(libc::locale_t);

// SAFETY: a glibc locale object is immutable once created; POSIX lets any
// number of threads install the same object with uselocale at once.
unsafe impl Send for Handle {}
// SAFETY: as above: shared use is read-only.
unsafe impl Sync for Handle {}

fn utf8_locale() -> libc::locale_t {
    static HANDLE: OnceLock<Handle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            for name in UTF8_LOCALE_NAMES {
                // SAFETY: `name` is a valid NUL-terminated string; a null
                // base asks for a fresh object.  The result is checked.
                let handle = unsafe {
                    libc::newlocale(libc::LC_CTYPE_MASK, name.as_ptr(), std::ptr::null_mut())
                };
                if !handle.is_null() {
                    return Handle(handle);
                }
            }
            panic!(
                "samebytes-clocale: this machine has no UTF-8 locale (looked for {:?}); \
                 install one (Debian: the libc-bin package provides C.UTF-8)",
                UTF8_LOCALE_NAMES
            )
        })
        .0
}

/// Run one query with the UTF-8 locale installed for this thread.
fn in_utf8_locale<T>(query: impl FnOnce() -> T) -> T {
    let handle = utf8_locale();
    // SAFETY: `handle` is a valid locale object that lives for the rest of
    // the process; uselocale only changes this thread's current locale,
    // and the previous one (possibly LC_GLOBAL_LOCALE) is put back before
    // returning.
    let previous = unsafe { libc::uselocale(handle) };
    let answer = query();
    // SAFETY: `previous` came from uselocale, so it is a valid argument.
    unsafe { libc::uselocale(previous) };
    answer
}

// Linux's wchar_t and wint_t hold every value a UTF-8 decoder of up to six
// bytes produces (below 2^31), so the casts below keep the code point.

/// `wcwidth(code)` in the UTF-8 locale: the columns the character takes,
/// or −1 for a character that is not printable (and for code points the
/// locale does not know).
pub fn utf8_wcwidth(code: u32) -> i32 {
    // SAFETY: wcwidth only reads the current locale's tables.
    in_utf8_locale(|| unsafe { wcwidth(code as libc::wchar_t) })
}

/// `iswprint(code)` in the UTF-8 locale.
pub fn utf8_iswprint(code: u32) -> bool {
    // SAFETY: iswprint only reads the current locale's tables.
    in_utf8_locale(|| unsafe { iswprint(code) }) != 0
}

/// `iswspace(code)` in the UTF-8 locale.
pub fn utf8_iswspace(code: u32) -> bool {
    // SAFETY: iswspace only reads the current locale's tables.
    in_utf8_locale(|| unsafe { iswspace(code) }) != 0
}

/// The POSIX character class names every locale has (`[[:alpha:]]` and
/// the rest).
pub const CLASS_NAMES: [&str; 12] = [
    "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph",
    "cntrl", "xdigit",
];

/// `iswctype(code, wctype(class))` in the UTF-8 locale, for one of
/// [`CLASS_NAMES`]; `None` for any other name.
pub fn utf8_iswctype(class: &str, code: u32) -> Option<bool> {
    if !CLASS_NAMES.contains(&class) {
        return None;
    }
    let name = std::ffi::CString::new(class).expect("class names hold no NUL");
    let answer = in_utf8_locale(|| {
        // SAFETY: `name` is a valid NUL-terminated string; wctype and
        // iswctype only read the current locale's tables.
        unsafe { iswctype(code, wctype(name.as_ptr())) }
    });
    Some(answer != 0)
}

/// `towupper(code)` in the UTF-8 locale.
pub fn utf8_towupper(code: u32) -> u32 {
    // SAFETY: towupper only reads the current locale's tables.
    in_utf8_locale(|| unsafe { towupper(code) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answers do not depend on the thread or on the global locale
    /// (which stays C here: a program that never calls setlocale).
    #[test]
    fn answers_are_the_same_on_every_thread() {
        let probe = [0x41, 0x2028, 0x00ad, 0x3000, 0x4e00, 0x0301, 0x11_0000];
        let here: Vec<_> = probe
            .iter()
            .map(|&c| (utf8_wcwidth(c), utf8_iswprint(c), utf8_iswspace(c)))
            .collect();
        let there = std::thread::spawn(move || {
            probe
                .iter()
                .map(|&c| (utf8_wcwidth(c), utf8_iswprint(c), utf8_iswspace(c)))
                .collect::<Vec<_>>()
        })
        .join()
        .unwrap();
        assert_eq!(here, there);
        // The global locale is C: there, U+3000 is not white space at all.
        // SAFETY: iswspace reads the global C locale's table.
        assert_eq!(unsafe { iswspace(0x3000) }, 0);
        assert!(utf8_iswspace(0x3000));
    }

    /// The class and case questions reach the UTF-8 tables, not C's.
    #[test]
    fn classes_and_case_come_from_the_utf8_locale() {
        assert_eq!(utf8_iswctype("alpha", 0xe9), Some(true));
        assert_eq!(utf8_iswctype("alnum", 0x0301), Some(false));
        assert_eq!(utf8_iswctype("upper", 0x41), Some(true));
        assert_eq!(utf8_iswctype("nonsense", 0x41), None);
        assert_eq!(utf8_towupper(0xe9), 0xc9);
        assert_eq!(utf8_towupper(0x17f), 0x53);
        assert_eq!(utf8_towupper(0x11_0000), 0x11_0000);
    }
}
