//! Every system call and every `unsafe` block of samebytes lives here, one
//! file per facility the kernel or the C library offers; the rest of the
//! crate, where the compiler denies `unsafe_code`, sees safe wrappers.
//!
//! - [`start`] — start-up without Rust's runtime, closed standard
//!   descriptors, argv borrowed;
//! - [`fd`] — descriptors and their status, seeking, readiness, error text;
//! - [`pipe`] — pipe sizes, splice, new pipes, vmsplice from frozen memory;
//! - [`copy`] — copy_file_range;
//! - [`mapped`] — read-only windows of a file's mapping;
//! - [`guard`] — the SIGBUS guard of those windows;
//! - [`dir`] — opening by name, directories, `fnmatch`;
//! - [`locale`] — the C library's locale tables;
//! - [`regex`] — glibc's GNU regex;
//! - [`cpu`] — SIMD byte masks and counts, prefetch.
//!
//! Each `unsafe fn` says in `# Safety` what its caller must uphold, and
//! each `unsafe` block says in `// SAFETY:` why it holds; where the
//! argument is long, the comment points into `docs/safety.md`.

pub mod copy;
pub mod cpu;
pub mod dir;
pub mod fd;
pub mod guard;
pub mod locale;
pub mod mapped;
pub mod pipe;
pub mod regex;
pub mod start;

pub use copy::{copy_file_range, means_unsupported, pread_probe};
#[cfg(target_arch = "x86_64")]
pub use cpu::byte_mask_64;
pub use cpu::{count_byte, prefetch};
pub use dir::{
    fnmatch_in, list_dir, list_dir_in, lstat_path, open_in, open_path, DirListing, DirType,
    OpenFlags, RawEntry,
};
pub use fd::{
    advise_sequential, borrow_fd, bytes_ready, close_at_exit, error_text, fstat, is_append, lseek,
    page_size, read_would_wait, stat_path, FdWriter, FileInfo, FileKind, Whence,
};
pub use locale::{
    ctype_locale_is_utf8, utf8_class_ranges, utf8_ctype_block, utf8_towupper, CtypeAnswer,
};
pub use mapped::{MappedWindow, RetiredWindow};
pub use pipe::{
    grow_pipe, pipe, splice, splice_count_to_null, FrozenPipe, PageBuffer, SpliceCount,
};
pub use regex::{GnuRegex, LineTooLong};
pub use start::{args_borrowed, start_process, stdin_was_closed, stdout_was_closed, ClosedWriter};
