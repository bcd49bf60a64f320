//! The `stat` family: each call is made, and when it describes a file the
//! plan names (`statfail=DEV:INO`), it fails with EIO instead, as on a
//! file system whose attributes cannot be read though the file opens and
//! reads (FUSE, NFS).  GNU's tools meet this in different places: wc
//! leaves the file out of its column width, cat and grep report the file
//! and go on.
//!
//! Every entry point the C library exports for it is interposed: `stat`,
//! `lstat`, `fstat`, `fstatat` and their `64` names (one layout on the
//! 64-bit targets), and `statx`.  `fstatfs`, which only says what file
//! system a descriptor is on, is refused (EIO) in the plan's `refuse`
//! share instead.

use libc::{c_char, c_int, c_long, c_uint};

use super::plan::{Kind, Outcome};
use super::{count, layer, libc_result, log, raw, refused, Note};

/// Fail a successful call `r` (0) that described (dev, ino) when the plan
/// says so; count the call either way.
fn judge(r: c_long, fd: c_int, id: impl FnOnce() -> (u64, u64)) -> c_long {
    let Some(layer) = layer() else {
        return r;
    };
    count(Kind::Stat, Outcome::Calls, 1);
    if r != 0 || layer.plan.stat_failures.is_empty() || !layer.plan.stat_failures.contains(&id()) {
        return r;
    }
    count(Kind::Stat, Outcome::InputFailed, 1);
    let failed = -(libc::EIO as c_long);
    let note = Note {
        kind: Kind::Stat,
        fd,
        len: 0,
        action: "eio",
        detail: 0,
    };
    log(&note, failed);
    failed
}

/// `newfstatat(dirfd, path, buf, flags)`, judged.
///
/// # Safety
/// The caller's arguments: `path` NUL-terminated (or empty with
/// AT_EMPTY_PATH), `buf` writable for a `struct stat`.
unsafe fn stat_at(dirfd: c_int, path: *const c_char, buf: *mut libc::stat, flags: c_int) -> c_int {
    // SAFETY: the caller's arguments, forwarded to the kernel.
    let r = unsafe {
        raw::call(
            libc::SYS_newfstatat,
            &[
                dirfd as c_long,
                path as c_long,
                buf as c_long,
                flags as c_long,
            ],
        )
    };
    // SAFETY: read only after the kernel filled `buf` (r == 0).
    let r = judge(r, dirfd, || unsafe { ((*buf).st_dev, (*buf).st_ino) });
    libc_result(r) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn stat(path: *const c_char, buf: *mut libc::stat) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { stat_at(libc::AT_FDCWD, path, buf, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn stat64(path: *const c_char, buf: *mut libc::stat) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { stat_at(libc::AT_FDCWD, path, buf, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn lstat(path: *const c_char, buf: *mut libc::stat) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { stat_at(libc::AT_FDCWD, path, buf, libc::AT_SYMLINK_NOFOLLOW) }
}

#[no_mangle]
pub unsafe extern "C" fn lstat64(path: *const c_char, buf: *mut libc::stat) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { stat_at(libc::AT_FDCWD, path, buf, libc::AT_SYMLINK_NOFOLLOW) }
}

#[no_mangle]
pub unsafe extern "C" fn fstat(fd: c_int, buf: *mut libc::stat) -> c_int {
    // SAFETY: the caller's arguments; an empty path with AT_EMPTY_PATH
    // describes the descriptor itself.
    unsafe { stat_at(fd, c"".as_ptr(), buf, libc::AT_EMPTY_PATH) }
}

#[no_mangle]
pub unsafe extern "C" fn fstat64(fd: c_int, buf: *mut libc::stat) -> c_int {
    // SAFETY: as in `fstat`.
    unsafe { stat_at(fd, c"".as_ptr(), buf, libc::AT_EMPTY_PATH) }
}

#[no_mangle]
pub unsafe extern "C" fn fstatat(
    dirfd: c_int,
    path: *const c_char,
    buf: *mut libc::stat,
    flags: c_int,
) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { stat_at(dirfd, path, buf, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn fstatat64(
    dirfd: c_int,
    path: *const c_char,
    buf: *mut libc::stat,
    flags: c_int,
) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { stat_at(dirfd, path, buf, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn statx(
    dirfd: c_int,
    path: *const c_char,
    flags: c_int,
    mask: c_uint,
    buf: *mut libc::statx,
) -> c_int {
    // SAFETY: the caller's arguments, forwarded to the kernel.
    let r = unsafe {
        raw::call(
            libc::SYS_statx,
            &[
                dirfd as c_long,
                path as c_long,
                flags as c_long,
                mask as c_long,
                buf as c_long,
            ],
        )
    };
    let id = || {
        // SAFETY: read only after the kernel filled `buf` (r == 0).
        let b = unsafe { &*buf };
        (libc::makedev(b.stx_dev_major, b.stx_dev_minor), b.stx_ino)
    };
    libc_result(judge(r, dirfd, id)) as c_int
}

/// `fstatfs(fd, buf)`: refused in the plan's share, as a FUSE file system
/// that cannot say fails it.
///
/// # Safety
/// The caller's arguments: `buf` writable for a `struct statfs`.
unsafe fn statfs_of(fd: c_int, buf: *mut libc::statfs) -> c_int {
    if let Some(r) = refused(Kind::Statfs, fd, libc::EIO) {
        return libc_result(r) as c_int;
    }
    // SAFETY: the caller's arguments, forwarded to the kernel.
    let r = unsafe { raw::call(libc::SYS_fstatfs, &[fd as c_long, buf as c_long]) };
    libc_result(r) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn fstatfs(fd: c_int, buf: *mut libc::statfs) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { statfs_of(fd, buf) }
}

#[no_mangle]
pub unsafe extern "C" fn fstatfs64(fd: c_int, buf: *mut libc::statfs) -> c_int {
    // SAFETY: the caller's arguments (one layout on the 64-bit targets).
    unsafe { statfs_of(fd, buf) }
}
