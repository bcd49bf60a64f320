//! glibc's GNU regex: `re_compile_pattern`, `re_search` and `re_match`,
//! the exact matcher GNU grep itself uses for back-references.

use super::locale::{c_ctype_handle, in_locale, utf8_ctype_handle};

/// `struct re_pattern_buffer` of glibc's <regex.h> on 64-bit Linux,
/// checked against the header by a test (docs/safety.md, "glibc's
/// regex").  The
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
    /// registers.
    pub fn search(&self, line: &[u8], from: usize) -> Result<Option<(usize, usize)>, LineTooLong> {
        let len = libc::c_int::try_from(line.len()).map_err(|_| LineTooLong)?;
        let from = libc::c_int::try_from(from).map_err(|_| LineTooLong)?;
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
        });
        // Offsets glibc gave within a line it could take.
        Ok(found.map(|(start, end)| (start as usize, end as usize)))
    }

    /// The length of the longest match at `start` in `line[..end]`.  With
    /// `end` short of the line, `$` does not match there (GNU's `not_eol`).
    pub fn match_len(
        &self,
        line: &[u8],
        start: usize,
        end: usize,
    ) -> Result<Option<usize>, LineTooLong> {
        let len = libc::c_int::try_from(end).map_err(|_| LineTooLong)?;
        let start = libc::c_int::try_from(start).map_err(|_| LineTooLong)?;
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
        Ok(usize::try_from(n).ok())
    }
}

/// A line longer than glibc's offsets (`regoff_t`, an int) reach: its
/// regex cannot search it, and GNU grep dies (`memory exhausted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTooLong;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// What the C compiler says of glibc's <regex.h>: each size, offset
    /// and flag bit the layouts above write by hand, as "name value" lines.
    const LAYOUT_C: &str = r#"
#define _GNU_SOURCE
#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct re_pattern_buffer B;

static void flag_byte(const char *name, B *b) {
    const unsigned char *p = (const unsigned char *) b;
    for (size_t i = 0; i < sizeof *b; i++)
        if (p[i])
            printf("%s %zu %u\n", name, i, p[i]);
}

int main(void) {
    printf("size %zu\n", sizeof(B));
    printf("buffer %zu\n", offsetof(B, buffer));
    printf("allocated %zu\n", offsetof(B, allocated));
    printf("used %zu\n", offsetof(B, used));
    printf("syntax %zu\n", offsetof(B, syntax));
    printf("fastmap %zu\n", offsetof(B, fastmap));
    printf("translate %zu\n", offsetof(B, translate));
    printf("re_nsub %zu\n", offsetof(B, re_nsub));
    B b;
    memset(&b, 0, sizeof b); b.not_eol = 1; flag_byte("not_eol", &b);
    memset(&b, 0, sizeof b); b.newline_anchor = 1; flag_byte("newline_anchor", &b);
    printf("registers %zu\n", sizeof(struct re_registers));
    printf("num_regs %zu\n", offsetof(struct re_registers, num_regs));
    printf("start %zu\n", offsetof(struct re_registers, start));
    printf("end %zu\n", offsetof(struct re_registers, end));
    printf("syntax_options %zu\n", sizeof re_syntax_options);
    return 0;
}
"#;

    /// The hand-written layouts match glibc's header, as the C compiler
    /// lays it out on this machine.
    #[test]
    fn the_regex_structs_are_laid_out_as_glibcs_header_says() {
        let dir = std::env::temp_dir().join(format!("samebytes-regex-h-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let (source, exe) = (dir.join("layout.c"), dir.join("layout"));
        std::fs::write(&source, LAYOUT_C).expect("write the C source");
        let built = std::process::Command::new("cc")
            .arg(&source)
            .arg("-o")
            .arg(&exe)
            .status()
            .expect("a C compiler (cc) compiles the layout check");
        assert!(built.success(), "cc failed on the layout check");
        let out = std::process::Command::new(&exe).output().expect("run it");
        let _ = std::fs::remove_dir_all(&dir);
        let c = String::from_utf8(out.stdout).expect("text");
        let flag =
            |name: &str, bit: u8| format!("{name} {} {bit}", offset_of!(RePatternBuffer, flags));
        let rust = [
            format!("size {}", size_of::<RePatternBuffer>()),
            format!("buffer {}", offset_of!(RePatternBuffer, buffer)),
            format!("allocated {}", offset_of!(RePatternBuffer, allocated)),
            format!("used {}", offset_of!(RePatternBuffer, used)),
            format!("syntax {}", offset_of!(RePatternBuffer, syntax)),
            format!("fastmap {}", offset_of!(RePatternBuffer, fastmap)),
            format!("translate {}", offset_of!(RePatternBuffer, translate)),
            format!("re_nsub {}", offset_of!(RePatternBuffer, re_nsub)),
            flag("not_eol", NOT_EOL),
            flag("newline_anchor", NEWLINE_ANCHOR),
            format!("registers {}", size_of::<ReRegisters>()),
            format!("num_regs {}", offset_of!(ReRegisters, num_regs)),
            format!("start {}", offset_of!(ReRegisters, start)),
            format!("end {}", offset_of!(ReRegisters, end)),
            format!("syntax_options {}", size_of::<libc::c_ulong>()),
        ];
        assert_eq!(c.lines().collect::<Vec<_>>(), rust);
    }
}
