//! samebytes-faultlayer: an `LD_PRELOAD` library that plays an adversarial
//! but honest kernel for the I/O calls of the unmodified release binaries.
//!
//! It interposes `read`, `readv`, `pread`, `write`, `writev`, `splice`,
//! `copy_file_range`, `vmsplice`, `fcntl(F_SETPIPE_SZ)`, `mmap`, `open`
//! and `openat` (and their 64 forms), and the
//! same calls made through `syscall(2)` (and `pipe`/`pipe2`, only to tell
//! a splice through the process's own pipe from one on an inherited
//! pipe), and does to them only what a real
//! kernel may do (see [`plan`] for the plan's syntax):
//!
//! - cut the length passed to the real call, down to one byte, so progress
//!   is real but partial;
//! - fail with EINTR before the call;
//! - refuse a kernel copy (EINVAL, ENOSYS, EXDEV, EOPNOTSUPP) before it
//!   moves anything, so the fallback must go on from where the kernel
//!   stopped;
//! - fail reads of a file with EIO from a byte offset on (and make mapped
//!   pages from there raise SIGBUS, as a bad page does);
//! - fail an output descriptor after N bytes with ENOSPC, EFBIG, EDQUOT,
//!   EIO, or EPIPE (raising SIGPIPE first, as the kernel does);
//! - deny F_SETPIPE_SZ (EPERM) and mmap (ENOMEM);
//! - fail the opening of a file or directory the plan names with EACCES
//!   (an unreadable file, which a root user cannot otherwise be shown),
//!   ENOENT (removed since it was listed), EMFILE, ENFILE or EIO.
//!
//! Every decision is a pure function of the seed, the call kind, the
//! descriptor and either the descriptor's call number or the file offset
//! (for positioned calls, which may come from several threads), so a plan
//! replays exactly; `log=PATH` records each one.
//!
//! The real calls are made with raw system-call instructions, never through
//! libc: the layer's own calls must not come back into the layer.

// An FFI crate: it interposes the C library's calls, so `unsafe` is
// allowed here (the workspace denies it elsewhere); each block says why it
// holds.
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

pub mod plan;
mod stat;

use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU64, Ordering};

use libc::{c_int, c_long, c_uint, c_void, iovec, off_t, size_t, ssize_t};
use plan::{Kind, Outcome, Plan};

// ---------------------------------------------------------------------------
// Raw system calls.

mod raw {
    use libc::c_long;

    /// One system call; returns the kernel's value (-errno on failure).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub unsafe fn syscall6(n: c_long, a: [c_long; 6]) -> c_long {
        let ret: c_long;
        // SAFETY: the caller passes a valid system call and arguments; the
        // instruction clobbers only rcx and r11 besides rax.
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") n => ret,
                in("rdi") a[0], in("rsi") a[1], in("rdx") a[2],
                in("r10") a[3], in("r8") a[4], in("r9") a[5],
                lateout("rcx") _, lateout("r11") _,
                options(nostack),
            );
        }
        ret
    }

    #[cfg(target_arch = "aarch64")]
    #[inline]
    pub unsafe fn syscall6(n: c_long, a: [c_long; 6]) -> c_long {
        let ret: c_long;
        // SAFETY: as above; svc clobbers only x0.
        unsafe {
            std::arch::asm!(
                "svc 0",
                in("x8") n,
                inlateout("x0") a[0] => ret,
                in("x1") a[1], in("x2") a[2], in("x3") a[3], in("x4") a[4], in("x5") a[5],
                options(nostack),
            );
        }
        ret
    }

    pub unsafe fn call(n: c_long, args: &[c_long]) -> c_long {
        let mut a = [0; 6];
        a[..args.len()].copy_from_slice(args);
        // SAFETY: forwarded from the caller.
        unsafe { syscall6(n, a) }
    }
}

/// Turn a raw result into libc's convention: -1 with errno set.
fn libc_result(r: c_long) -> c_long {
    if (-4095..0).contains(&r) {
        set_errno(-r as c_int);
        -1
    } else {
        r
    }
}

fn set_errno(e: c_int) {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = e };
}

fn fail(e: c_int) -> c_long {
    -(e as c_long)
}

// ---------------------------------------------------------------------------
// The layer's state, set up once by a constructor before `main`.

struct Layer {
    plan: Plan,
    /// One running total per output failure rule.
    written: Vec<AtomicU64>,
    /// A memfd of size 0: pages mapped from it raise SIGBUS.
    sigbus_fd: c_int,
}

static LAYER: AtomicPtr<Layer> = AtomicPtr::new(std::ptr::null_mut());
static COUNTERS: AtomicPtr<AtomicU64> = AtomicPtr::new(std::ptr::null_mut());
static LOG_FD: AtomicI32 = AtomicI32::new(-1);
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

fn layer() -> Option<&'static Layer> {
    // SAFETY: the pointer is either null or a leaked Box that lives for
    // the rest of the process.
    unsafe { LAYER.load(Ordering::Acquire).as_ref() }
}

fn count(kind: Kind, outcome: Outcome, n: u64) {
    let base = COUNTERS.load(Ordering::Relaxed);
    if !base.is_null() {
        // SAFETY: the counters mapping is COUNTS_FILE_LEN bytes of u64s and
        // lives for the rest of the process; slot() is in range.
        unsafe { (*base.add(plan::slot(kind, outcome))).fetch_add(n, Ordering::Relaxed) };
    }
}

extern "C" fn init() {
    let Some(text) = std::env::var_os(plan::ENV) else {
        return;
    };
    let plan = match Plan::parse(&text.to_string_lossy()) {
        Ok(p) => p,
        Err(item) => {
            let msg = format!("samebytes-faultlayer: bad plan item: {item}\n");
            // SAFETY: write(2) of a buffer we own.
            unsafe {
                raw::call(
                    libc::SYS_write,
                    &[2, msg.as_ptr() as c_long, msg.len() as c_long],
                )
            };
            // SAFETY: exit_group ends the process.
            unsafe { raw::call(libc::SYS_exit_group, &[125]) };
            return;
        }
    };
    if let Some(path) = &plan.log {
        let fd = open_raw(path, libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND);
        LOG_FD.store(fd, Ordering::Relaxed);
    }
    if let Some(path) = &plan.counts {
        map_counters(path);
    }
    // SAFETY: memfd_create with a NUL-terminated name we own.
    let sigbus_fd = unsafe {
        raw::call(
            libc::SYS_memfd_create,
            &[c"sigbus".as_ptr() as c_long, libc::MFD_CLOEXEC as c_long],
        )
    } as c_int;
    let sigbus_fd = if sigbus_fd < 0 {
        sigbus_fd
    } else {
        above_standard(sigbus_fd)
    };
    let written = plan
        .output_failures
        .iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    let layer = Box::new(Layer {
        plan,
        written,
        sigbus_fd,
    });
    LAYER.store(Box::into_raw(layer), Ordering::Release);
}

#[used]
#[link_section = ".init_array"]
static INIT: extern "C" fn() = init;

/// Move a descriptor the layer opened to 10 or above: run under `<&-` or
/// `>&-`, the kernel hands out 0 or 1 first, and the binary must still find
/// them closed (its start-up code records which standard descriptors were).
fn above_standard(fd: c_int) -> c_int {
    if fd > 2 {
        return fd;
    }
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) and close(2) on a descriptor we own.
    unsafe {
        let high = raw::call(
            libc::SYS_fcntl,
            &[fd as c_long, libc::F_DUPFD_CLOEXEC as c_long, 10],
        );
        raw::call(libc::SYS_close, &[fd as c_long]);
        if high < 0 {
            -1
        } else {
            high as c_int
        }
    }
}

fn open_raw(path: &str, flags: c_int) -> c_int {
    let Ok(c) = std::ffi::CString::new(path) else {
        return -1;
    };
    // SAFETY: openat with a NUL-terminated path we own.
    let r = unsafe {
        raw::call(
            libc::SYS_openat,
            &[
                libc::AT_FDCWD as c_long,
                c.as_ptr() as c_long,
                (flags | libc::O_CLOEXEC) as c_long,
                0o644,
            ],
        )
    };
    if r < 0 {
        -1
    } else {
        above_standard(r as c_int)
    }
}

fn map_counters(path: &str) {
    let fd = open_raw(path, libc::O_RDWR | libc::O_CREAT);
    if fd < 0 {
        return;
    }
    let len = plan::COUNTS_FILE_LEN as c_long;
    // SAFETY: fstat into a struct we own, ftruncate and mmap of our own
    // descriptor; the shared mapping stays for the life of the process.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        raw::call(
            libc::SYS_fstat,
            &[fd as c_long, &mut st as *mut libc::stat as c_long],
        );
        if (st.st_size as c_long) < len {
            raw::call(libc::SYS_ftruncate, &[fd as c_long, len]);
        }
        let p = raw::call(
            libc::SYS_mmap,
            &[
                0,
                len,
                (libc::PROT_READ | libc::PROT_WRITE) as c_long,
                libc::MAP_SHARED as c_long,
                fd as c_long,
                0,
            ],
        );
        raw::call(libc::SYS_close, &[fd as c_long]);
        if p > 0 {
            COUNTERS.store(p as *mut AtomicU64, Ordering::Relaxed);
        }
    }
}

// ---------------------------------------------------------------------------
// Decisions.

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The random value for one decision about one call.
#[derive(Clone, Copy)]
struct Roll(u64);

impl Roll {
    fn new(seed: u64, kind: Kind, fd: c_int, key: u64) -> Roll {
        Roll(mix(seed ^ mix(kind as u64 ^ mix(fd as u64 ^ mix(key)))))
    }
    /// An independent value for the `which`-th decision about this call.
    fn pick(self, which: u64) -> u64 {
        mix(self.0 ^ which.wrapping_mul(0x2545_f491_4f6c_dd1d))
    }
    fn chance(self, which: u64, percent: u8) -> bool {
        percent > 0 && self.pick(which) % 100 < u64::from(percent)
    }
}

std::thread_local! {
    static THREAD_CALLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The key of a call: the calling thread's call number, mixed with the
/// descriptor's.  A thread's own calls come in a deterministic order, so
/// this replays exactly even when two threads read one file (given the
/// same schedule of threads' own calls), and a retry
/// of the same call gets a fresh decision.
fn next_call(fd: c_int) -> u64 {
    let own = THREAD_CALLS.with(|c| {
        let n = c.get();
        c.set(n + 1);
        n
    });
    mix(own) ^ mix(fd as u64)
}

/// One decision, for the log.
struct Note<'a> {
    kind: Kind,
    fd: c_int,
    len: usize,
    action: &'a str,
    detail: i64,
}

fn log(note: &Note<'_>, result: c_long) {
    let fd = LOG_FD.load(Ordering::Relaxed);
    if fd < 0 {
        return;
    }
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    // SAFETY: gettid has no arguments and no memory effects.
    let tid = unsafe { raw::call(libc::SYS_gettid, &[]) };
    let line = format!(
        "{n} tid={tid} {} fd={} len={} {} {} -> {result}\n",
        note.kind.name(),
        note.fd,
        note.len,
        note.action,
        note.detail
    );
    // SAFETY: write(2) of a buffer we own to the log descriptor.
    unsafe {
        raw::call(
            libc::SYS_write,
            &[fd as c_long, line.as_ptr() as c_long, line.len() as c_long],
        )
    };
}

fn finish(kind: Kind, note: &Note<'_>, r: c_long) -> c_long {
    if r > 0 && !matches!(kind, Kind::MmapFile | Kind::MmapAnon | Kind::SetPipeSize) {
        count(kind, Outcome::Bytes, r as u64);
    }
    log(note, r);
    r
}

/// ((device, inode), size) of an open descriptor.
fn identity(fd: c_int) -> Option<((u64, u64), u64)> {
    // SAFETY: fstat into a zeroed struct we own.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        let r = raw::call(
            libc::SYS_fstat,
            &[fd as c_long, &mut st as *mut libc::stat as c_long],
        );
        (r == 0).then_some(((st.st_dev, st.st_ino), st.st_size as u64))
    }
}

fn current_offset(fd: c_int) -> Option<u64> {
    // SAFETY: lseek(fd, 0, SEEK_CUR) only reports the position.
    let r = unsafe {
        raw::call(
            libc::SYS_lseek,
            &[fd as c_long, 0, libc::SEEK_CUR as c_long],
        )
    };
    u64::try_from(r).ok()
}

/// The pipes the process made itself, by a nonzero mix of (device,
/// inode): a pipe's two ends share one inode, and a descriptor number
/// reused for another file after the pipe is closed has another.
static OWN_PIPES: [AtomicU64; 16] = [const { AtomicU64::new(0) }; 16];
static NEXT_OWN_PIPE: AtomicU64 = AtomicU64::new(0);

fn pipe_key(id: (u64, u64)) -> u64 {
    mix(id.0 ^ mix(id.1)) | 1
}

fn note_own_pipe(fd: c_int) {
    if let Some((id, _)) = identity(fd) {
        let i = NEXT_OWN_PIPE.fetch_add(1, Ordering::Relaxed) as usize % OWN_PIPES.len();
        OWN_PIPES[i].store(pipe_key(id), Ordering::Relaxed);
    }
}

fn is_own_pipe(fd: c_int) -> bool {
    identity(fd).is_some_and(|(id, _)| {
        let key = pipe_key(id);
        OWN_PIPES.iter().any(|p| p.load(Ordering::Relaxed) == key)
    })
}

/// The places where a descriptor failed hard, as `fd << 32 | hash of its
/// file and the position` (0 = free): the input offset of a failed read,
/// or the bytes written before a failed write.  A second hard failure at
/// the same place before the descriptor is closed is a retry of what
/// failed, and is counted as `FailedAgain`.  (Meeting the bad region of an
/// input again somewhere else is not: a probe past it, then the read that
/// reaches it, is how an error is found where a sequential read finds it.)
static FAILED: [AtomicU64; 16] = [const { AtomicU64::new(0) }; 16];
static NEXT_FAILED: AtomicU64 = AtomicU64::new(0);

/// Record a hard failure on `fd` at `position`; true if it had already
/// failed there.
fn failed_before(fd: c_int, position: u64) -> bool {
    let id = identity(fd).map_or(0, |(id, _)| mix(id.0 ^ mix(id.1 ^ mix(position))));
    let key = (fd as u32 as u64) << 32 | (id & 0xffff_ffff) | 1;
    if FAILED.iter().any(|f| f.load(Ordering::Relaxed) == key) {
        return true;
    }
    let i = NEXT_FAILED.fetch_add(1, Ordering::Relaxed) as usize % FAILED.len();
    FAILED[i].store(key, Ordering::Relaxed);
    false
}

fn forget_failures(fd: c_int) {
    for f in &FAILED {
        let v = f.load(Ordering::Relaxed);
        if v != 0 && v >> 32 == fd as u32 as u64 {
            let _ = f.compare_exchange(v, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// A call whose failure the program must survive with the same output (a
/// hint, a probe, a pipe of its own), counted, and refused in the plan's
/// `refuse` share with `errno`, the error the kernel gives when it cannot
/// oblige: the refusal, to return, or `None` to make the call.
fn refused(kind: Kind, fd: c_int, errno: c_int) -> Option<c_long> {
    let layer = layer()?;
    count(kind, Outcome::Calls, 1);
    let roll = Roll::new(layer.plan.seed, kind, fd, next_call(fd));
    if !roll.chance(2, layer.plan.refuse) {
        return None;
    }
    count(kind, Outcome::Refused, 1);
    let r = fail(errno);
    let note = Note {
        kind,
        fd,
        len: 0,
        action: "refuse",
        detail: errno.into(),
    };
    log(&note, r);
    Some(r)
}

/// How many entries each descriptor's listing has returned, plus one (0:
/// none yet), by descriptor number, for the plan's `listfail` rules.
static LISTED: [AtomicU64; 1024] = [const { AtomicU64::new(0) }; 1024];

fn forget_listing(fd: c_int) {
    if let Some(slot) = usize::try_from(fd).ok().and_then(|i| LISTED.get(i)) {
        slot.store(0, Ordering::Relaxed);
    }
}

/// getdents64 on `fd` into `buf` (`len` bytes).  A directory the plan
/// names fails with EIO once its entries up to the rule's count have been
/// returned: the call that would pass the count returns the records
/// before it, and the next one fails, as a bad block met mid-listing does.
///
/// # Safety
/// `buf` must be valid for writes of `len` bytes.
unsafe fn handle_getdents(fd: c_int, buf: *mut u8, len: usize) -> c_long {
    let real = || {
        // SAFETY: forwarded from our caller, who vouches for `buf`.
        unsafe {
            raw::call(
                libc::SYS_getdents64,
                &[fd as c_long, buf as c_long, len as c_long],
            )
        }
    };
    let Some(layer) = layer() else {
        return real();
    };
    count(Kind::Getdents, Outcome::Calls, 1);
    let rule = match layer.plan.list_failures.is_empty() {
        true => None,
        false => identity(fd)
            .and_then(|(id, _)| (layer.plan.list_failures.iter()).find(|r| (r.0, r.1) == id)),
    };
    let slot = usize::try_from(fd).ok().and_then(|i| LISTED.get(i));
    let (Some(&(_, _, after)), Some(slot)) = (rule, slot) else {
        return real();
    };
    let returned = slot.load(Ordering::Relaxed).saturating_sub(1);
    let note = |action| Note {
        kind: Kind::Getdents,
        fd,
        len,
        action,
        detail: returned as i64,
    };
    if returned >= after {
        count(Kind::Getdents, Outcome::InputFailed, 1);
        if failed_before(fd, u64::MAX) {
            count(Kind::Getdents, Outcome::FailedAgain, 1);
        }
        let r = fail(libc::EIO);
        log(&note("eio"), r);
        return r;
    }
    let r = real();
    let Ok(got) = usize::try_from(r) else {
        return r;
    };
    // Keep the records up to the count (`.` and `..` are not counted):
    // each is `d_reclen` (a u16 at offset 16) bytes long, its name from
    // offset 19, NUL-terminated and padded to at least 24 bytes in all.
    let (mut kept, mut entries) = (0, 0);
    while kept + 22 <= got {
        // SAFETY: the kernel wrote `got` bytes of whole records at `buf`,
        // and this record's header and the first three bytes of its name
        // lie inside them.
        let (reclen, name) = unsafe {
            let at = buf.add(kept);
            let name = [*at.add(19), *at.add(20), *at.add(21)];
            (at.add(16).cast::<u16>().read_unaligned(), name)
        };
        let dot = matches!(name, [b'.', 0, _] | [b'.', b'.', 0]);
        if !dot && returned + entries >= after {
            break;
        }
        kept += usize::from(reclen).max(1);
        entries += usize::from(!dot) as u64;
    }
    slot.store(returned + entries + 1, Ordering::Relaxed);
    if kept < got {
        log(&note("cut"), kept as c_long);
    }
    kept.min(got) as c_long
}

/// Where reading `fd` at `offset` (or its position) starts failing with
/// EIO, as a distance from that offset, and the offset.
fn eio_distance(layer: &Layer, fd: c_int, offset: Option<u64>) -> Option<(u64, u64)> {
    if layer.plan.input_eio.is_empty() {
        return None;
    }
    let (id, size) = identity(fd)?;
    let rule = layer.plan.input_eio.iter().find(|e| (e.dev, e.ino) == id)?;
    let at = offset.or_else(|| current_offset(fd))?;
    // At or past the end a read returns 0 without touching the bad region.
    (at < size).then(|| (rule.at.saturating_sub(at), at))
}

/// The output failure rule of `fd`, with its index.
fn output_rule(layer: &Layer, fd: c_int) -> Option<(usize, plan::OutputFailure)> {
    layer
        .plan
        .output_failures
        .iter()
        .copied()
        .enumerate()
        .find(|(_, f)| f.fd == fd)
}

/// What the layer does before a data call: `Err(raw result)` to fail it
/// without calling the kernel, or the length to pass on.
struct DataCall {
    kind: Kind,
    roll: Roll,
    /// The length the program asked for; `len` is what the kernel gets.
    asked: usize,
    len: usize,
    action: &'static str,
    detail: i64,
}

impl DataCall {
    fn new(layer: &Layer, kind: Kind, fd: c_int, key: u64, len: usize) -> DataCall {
        count(kind, Outcome::Calls, 1);
        DataCall {
            kind,
            roll: Roll::new(layer.plan.seed, kind, fd, key),
            asked: len,
            len,
            action: "pass",
            detail: 0,
        }
    }

    fn note(&self, fd: c_int) -> Note<'static> {
        Note {
            kind: self.kind,
            fd,
            len: self.len,
            action: self.action,
            detail: self.detail,
        }
    }

    fn eintr(&mut self, layer: &Layer) -> bool {
        if self.roll.chance(1, layer.plan.eintr) {
            count(self.kind, Outcome::Eintr, 1);
            self.action = "eintr";
            return true;
        }
        false
    }

    fn refuse(&mut self, layer: &Layer, errnos: &[c_int]) -> Option<c_int> {
        if errnos.is_empty() || !self.roll.chance(2, layer.plan.refuse) {
            return None;
        }
        count(self.kind, Outcome::Refused, 1);
        let e = errnos[(self.roll.pick(3) % errnos.len() as u64) as usize];
        self.action = "refuse";
        self.detail = e.into();
        Some(e)
    }

    fn shorten(&mut self, layer: &Layer) {
        if self.len > 1 && self.roll.chance(4, layer.plan.short) {
            count(self.kind, Outcome::Short, 1);
            self.len = 1 + (self.roll.pick(5) % self.len as u64) as usize;
            self.action = "short";
            self.detail = self.len as i64;
        }
    }

    /// Count a hard failure met again on `fd` as `FailedAgain`.  Two
    /// failures are not hard in that sense: EAGAIN asks to be retried (a
    /// splice cannot tell which end gave it, and a non-blocking vmsplice
    /// waits and tries again), and a one-byte pread is a probe that asks
    /// the input whether it failed (cat's copy_file_range error), moving
    /// neither data nor the offset.
    fn note_hard_failure(&self, fd: c_int, position: u64, errno: c_int) {
        let probe = self.kind == Kind::Pread && self.asked <= 1;
        if errno == libc::EAGAIN || probe {
            return;
        }
        if failed_before(fd, position) {
            count(self.kind, Outcome::FailedAgain, 1);
        }
    }

    /// Input: clamp to the EIO point, or fail at it.
    fn input_limit(&mut self, layer: &Layer, fd: c_int, offset: Option<u64>) -> Option<c_int> {
        let (distance, at) = eio_distance(layer, fd, offset)?;
        if distance == 0 {
            count(self.kind, Outcome::InputFailed, 1);
            self.note_hard_failure(fd, at, libc::EIO);
            self.action = "eio";
            return Some(libc::EIO);
        }
        self.len = self
            .len
            .min(usize::try_from(distance).unwrap_or(usize::MAX));
        None
    }

    /// Output: clamp to the failure point, or fail at it.
    fn output_limit(&mut self, layer: &Layer, fd: c_int) -> Option<c_int> {
        let (i, rule) = output_rule(layer, fd)?;
        let done = layer.written[i].load(Ordering::Relaxed);
        if done >= rule.after {
            count(self.kind, Outcome::OutputFailed, 1);
            self.note_hard_failure(fd, done, rule.errno.code());
            self.action = "outfail";
            self.detail = rule.errno.code().into();
            if rule.errno == plan::OutputErrno::BrokenPipe {
                raise_sigpipe();
            }
            return Some(rule.errno.code());
        }
        self.len = self
            .len
            .min(usize::try_from(rule.after - done).unwrap_or(usize::MAX));
        None
    }
}

fn raise_sigpipe() {
    // SAFETY: tgkill to our own thread; with SIGPIPE at its default the
    // process ends here, as it would on a real broken pipe.
    unsafe {
        let pid = raw::call(libc::SYS_getpid, &[]);
        let tid = raw::call(libc::SYS_gettid, &[]);
        raw::call(libc::SYS_tgkill, &[pid, tid, libc::SIGPIPE as c_long]);
    }
}

fn account_output(layer: &Layer, fd: c_int, moved: c_long) {
    if moved > 0 {
        if let Some((i, _)) = output_rule(layer, fd) {
            layer.written[i].fetch_add(moved as u64, Ordering::Relaxed);
        }
    }
}

// ---------------------------------------------------------------------------
// The calls.  Each handler returns the raw kernel convention (-errno).

unsafe fn handle_read(
    kind: Kind,
    fd: c_int,
    buf: *mut c_void,
    len: usize,
    offset: Option<off_t>,
) -> c_long {
    let nr = if offset.is_some() {
        libc::SYS_pread64
    } else {
        libc::SYS_read
    };
    let off = offset.unwrap_or(0);
    let pass = || {
        // SAFETY: the caller's own buffer and length.
        unsafe { raw::call(nr, &[fd as c_long, buf as c_long, len as c_long, off]) }
    };
    let Some(layer) = layer() else {
        return pass();
    };
    let key = next_call(fd) ^ offset.map_or(0, |o| mix(o as u64));
    let mut call = DataCall::new(layer, kind, fd, key, len);
    let r = if call.eintr(layer) {
        fail(libc::EINTR)
    } else if len == 0 {
        // SAFETY: a zero-length call, as the caller asked.
        unsafe { raw::call(nr, &[fd as c_long, buf as c_long, 0, off]) }
    } else {
        call.shorten(layer);
        match call.input_limit(layer, fd, offset.and_then(|o| u64::try_from(o).ok())) {
            Some(e) => fail(e),
            // SAFETY: a prefix of the caller's buffer.
            None => unsafe {
                raw::call(nr, &[fd as c_long, buf as c_long, call.len as c_long, off])
            },
        }
    };
    finish(kind, &call.note(fd), r)
}

unsafe fn handle_write(kind: Kind, fd: c_int, buf: *const c_void, len: usize) -> c_long {
    let Some(layer) = layer() else {
        // SAFETY: the caller's own buffer and length.
        return unsafe {
            raw::call(
                libc::SYS_write,
                &[fd as c_long, buf as c_long, len as c_long],
            )
        };
    };
    let mut call = DataCall::new(layer, kind, fd, next_call(fd), len);
    let r = if call.eintr(layer) {
        fail(libc::EINTR)
    } else {
        if len > 0 {
            call.shorten(layer);
        }
        match call.output_limit(layer, fd) {
            Some(e) => fail(e),
            // SAFETY: a prefix of the caller's buffer.
            None => unsafe {
                raw::call(
                    libc::SYS_write,
                    &[fd as c_long, buf as c_long, call.len as c_long],
                )
            },
        }
    };
    account_output(layer, fd, r);
    finish(kind, &call.note(fd), r)
}

/// Copy at most `MAX_IOV` iovecs, trimmed to `len` bytes in all.
const MAX_IOV: usize = 64;

/// Make the system call `call(vector, count)` with `iov` trimmed to `len`
/// bytes (prefixes of the caller's buffers, at most `MAX_IOV` of them).
fn with_trimmed_iov(
    iov: &[iovec],
    len: usize,
    call: impl FnOnce(*const iovec, usize) -> c_long,
) -> c_long {
    let mut out = [iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    }; MAX_IOV];
    let mut left = len;
    let mut n = 0;
    for v in iov.iter().take(MAX_IOV) {
        if left == 0 {
            break;
        }
        let take = v.iov_len.min(left);
        out[n] = iovec {
            iov_base: v.iov_base,
            iov_len: take,
        };
        left -= take;
        n += 1;
    }
    call(out.as_ptr(), n)
}

unsafe fn handle_vector(kind: Kind, fd: c_int, iov: *const iovec, cnt: c_int) -> c_long {
    let nr = if kind == Kind::Readv {
        libc::SYS_readv
    } else {
        libc::SYS_writev
    };
    let pass = || {
        // SAFETY: the caller's own vector.
        unsafe { raw::call(nr, &[fd as c_long, iov as c_long, cnt as c_long]) }
    };
    let Some(layer) = layer() else {
        return pass();
    };
    if cnt <= 0 || cnt as usize > MAX_IOV {
        return pass();
    }
    // SAFETY: the caller promises `cnt` valid iovecs.
    let vecs = unsafe { std::slice::from_raw_parts(iov, cnt as usize) };
    let total: usize = vecs.iter().map(|v| v.iov_len).sum();
    let mut call = DataCall::new(layer, kind, fd, next_call(fd), total);
    let r = if call.eintr(layer) {
        fail(libc::EINTR)
    } else {
        if total > 0 {
            call.shorten(layer);
        }
        let limit = if kind == Kind::Readv {
            call.input_limit(layer, fd, None)
        } else {
            call.output_limit(layer, fd)
        };
        match limit {
            Some(e) => fail(e),
            // SAFETY: the trimmed vector describes prefixes of the
            // caller's buffers.
            None => with_trimmed_iov(vecs, call.len, |v, n| unsafe {
                raw::call(nr, &[fd as c_long, v as c_long, n.max(1) as c_long])
            }),
        }
    };
    if kind == Kind::Writev {
        account_output(layer, fd, r);
    }
    finish(kind, &call.note(fd), r)
}

/// splice and copy_file_range: one input, one output, file positions or
/// explicit offsets.
#[allow(clippy::too_many_arguments)]
unsafe fn handle_copy(
    kind: Kind,
    fd_in: c_int,
    off_in: *mut i64,
    fd_out: c_int,
    off_out: *mut i64,
    len: usize,
    flags: c_uint,
) -> c_long {
    let nr = if kind == Kind::Splice {
        libc::SYS_splice
    } else {
        libc::SYS_copy_file_range
    };
    let real = |len: usize| {
        // SAFETY: the caller's own descriptors, offset pointers and flags.
        unsafe {
            raw::call(
                nr,
                &[
                    fd_in as c_long,
                    off_in as c_long,
                    fd_out as c_long,
                    off_out as c_long,
                    len as c_long,
                    flags as c_long,
                ],
            )
        }
    };
    let Some(layer) = layer() else {
        return real(len);
    };
    let kind = if kind == Kind::Splice && (is_own_pipe(fd_in) || is_own_pipe(fd_out)) {
        Kind::SpliceOwnPipe
    } else {
        kind
    };
    // SAFETY: a non-null offset pointer is the caller's valid loff_t.
    let in_offset = unsafe { off_in.as_ref() }.and_then(|o| u64::try_from(*o).ok());
    let key = next_call(fd_in) ^ mix(fd_out as u64);
    let mut call = DataCall::new(layer, kind, fd_out, key, len);
    let refusals: &[c_int] = if kind != Kind::CopyFileRange {
        &[libc::EINVAL]
    } else {
        &[libc::EINVAL, libc::ENOSYS, libc::EXDEV, libc::EOPNOTSUPP]
    };
    let r = if call.eintr(layer) {
        fail(libc::EINTR)
    } else if let Some(e) = call.refuse(layer, refusals) {
        fail(e)
    } else {
        call.shorten(layer);
        match call
            .input_limit(layer, fd_in, in_offset)
            .or_else(|| call.output_limit(layer, fd_out))
        {
            Some(e) => fail(e),
            None => real(call.len),
        }
    };
    account_output(layer, fd_out, r);
    finish(kind, &call.note(fd_out), r)
}

unsafe fn handle_vmsplice(fd: c_int, iov: *const iovec, nr_segs: usize, flags: c_uint) -> c_long {
    let pass = || {
        // SAFETY: the caller's own vector.
        unsafe {
            raw::call(
                libc::SYS_vmsplice,
                &[
                    fd as c_long,
                    iov as c_long,
                    nr_segs as c_long,
                    flags as c_long,
                ],
            )
        }
    };
    let Some(layer) = layer() else {
        return pass();
    };
    if nr_segs == 0 || nr_segs > MAX_IOV {
        return pass();
    }
    // SAFETY: the caller promises `nr_segs` valid iovecs.
    let vecs = unsafe { std::slice::from_raw_parts(iov, nr_segs) };
    let total: usize = vecs.iter().map(|v| v.iov_len).sum();
    let mut call = DataCall::new(layer, Kind::Vmsplice, fd, next_call(fd), total);
    let r = if call.eintr(layer) {
        fail(libc::EINTR)
    } else if let Some(e) = call.refuse(layer, &[libc::EINVAL, libc::ENOSYS]) {
        fail(e)
    } else {
        call.shorten(layer);
        match call.output_limit(layer, fd) {
            Some(e) => fail(e),
            // SAFETY: prefixes of the caller's pages, which the caller
            // keeps as vmsplice requires.
            None => with_trimmed_iov(vecs, call.len, |v, n| unsafe {
                raw::call(
                    libc::SYS_vmsplice,
                    &[fd as c_long, v as c_long, n as c_long, flags as c_long],
                )
            }),
        }
    };
    account_output(layer, fd, r);
    finish(Kind::Vmsplice, &call.note(fd), r)
}

unsafe fn handle_fcntl(fd: c_int, cmd: c_int, arg: c_long) -> c_long {
    let pass = || {
        // SAFETY: forwarded unchanged.
        unsafe { raw::call(libc::SYS_fcntl, &[fd as c_long, cmd as c_long, arg]) }
    };
    let Some(layer) = layer() else {
        return pass();
    };
    if cmd == libc::F_GETPIPE_SZ {
        return refused(Kind::GetPipeSize, fd, libc::EBADF).unwrap_or_else(pass);
    }
    if cmd != libc::F_SETPIPE_SZ {
        return pass();
    }
    let mut call = DataCall::new(layer, Kind::SetPipeSize, fd, next_call(fd), arg as usize);
    let r = if call.roll.chance(6, layer.plan.pipe_size) {
        count(Kind::SetPipeSize, Outcome::Refused, 1);
        call.action = "deny";
        fail(libc::EPERM)
    } else {
        pass()
    };
    finish(Kind::SetPipeSize, &call.note(fd), r)
}

/// Open `path` relative to `dirfd`: the plan's error for a file or
/// directory it names (found by device and inode, whatever name reaches
/// it), otherwise the real openat.
unsafe fn handle_open(
    dirfd: c_int,
    path: *const libc::c_char,
    flags: c_int,
    mode: c_uint,
) -> c_long {
    let pass = || {
        // SAFETY: forwarded unchanged: the caller's path and flags.
        unsafe {
            raw::call(
                libc::SYS_openat,
                &[
                    dirfd as c_long,
                    path as c_long,
                    flags as c_long,
                    mode as c_long,
                ],
            )
        }
    };
    let Some(layer) = layer() else {
        return pass();
    };
    count(Kind::Open, Outcome::Calls, 1);
    if !layer.plan.open_failures.is_empty() {
        // The file the open would reach: with O_NOFOLLOW a final link is
        // not followed (the real open then fails with ELOOP, which GNU's
        // recursive grep takes as "a link: skip it").
        let stat_flags = match flags & libc::O_NOFOLLOW {
            0 => 0,
            _ => libc::AT_SYMLINK_NOFOLLOW,
        };
        // SAFETY: a zeroed stat of our own, filled by newfstatat for the
        // caller's (NUL-terminated) path; a failure leaves it unused.
        let id = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            let r = raw::call(
                libc::SYS_newfstatat,
                &[
                    dirfd as c_long,
                    path as c_long,
                    &mut st as *mut libc::stat as c_long,
                    stat_flags as c_long,
                ],
            );
            (r == 0).then_some((st.st_dev, st.st_ino))
        };
        let failure = id.and_then(|(dev, ino)| {
            layer
                .plan
                .open_failures
                .iter()
                .find(|f| (f.dev, f.ino) == (dev, ino))
        });
        if let Some(f) = failure {
            count(Kind::Open, Outcome::InputFailed, 1);
            let note = Note {
                kind: Kind::Open,
                fd: dirfd,
                len: 0,
                action: f.errno.name(),
                detail: 0,
            };
            log(&note, fail(f.errno.code()));
            return fail(f.errno.code());
        }
    }
    pass()
}

const ANON_REFUSE_MIN: usize = 1 << 20;

unsafe fn handle_mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> c_long {
    let real = || {
        // SAFETY: forwarded unchanged.
        unsafe {
            raw::call(
                libc::SYS_mmap,
                &[
                    addr as c_long,
                    len as c_long,
                    prot as c_long,
                    flags as c_long,
                    fd as c_long,
                    off,
                ],
            )
        }
    };
    let Some(layer) = layer() else {
        return real();
    };
    // Fixed mappings replace what the caller already owns (the SIGBUS guard
    // does this from a signal handler): never touched.
    if flags & libc::MAP_FIXED != 0 {
        return real();
    }
    let anonymous = flags & libc::MAP_ANONYMOUS != 0 || fd < 0;
    let kind = if anonymous {
        Kind::MmapAnon
    } else {
        Kind::MmapFile
    };
    let key = if anonymous {
        len as u64
    } else {
        off as u64 ^ (len as u64) << 20
    };
    let mut call = DataCall::new(layer, kind, fd, key, len);
    let may_refuse = !anonymous || len >= ANON_REFUSE_MIN;
    if may_refuse && call.roll.chance(7, layer.plan.mmap) {
        count(kind, Outcome::Refused, 1);
        call.action = "deny";
        return finish(kind, &call.note(fd), fail(libc::ENOMEM));
    }
    let r = real();
    if !anonymous && r > 0 {
        if let Some((distance, _)) = eio_distance(layer, fd, u64::try_from(off).ok()) {
            arm_sigbus(layer, r as usize, len, distance, &mut call);
        }
    }
    finish(kind, &call.note(fd), r)
}

/// Replace the pages of a fresh mapping from the page holding the EIO
/// point on with pages that raise SIGBUS, as unreadable pages do.
fn arm_sigbus(layer: &Layer, base: usize, len: usize, distance: u64, call: &mut DataCall) {
    let page = 4096usize;
    let from = (usize::try_from(distance).unwrap_or(usize::MAX) / page) * page;
    if from >= len || layer.sigbus_fd < 0 {
        return;
    }
    // SAFETY: [base + from, base + len) lies inside the mapping the caller
    // just made and has not seen yet; MAP_FIXED over it with an empty file
    // makes every access there fault with SIGBUS.
    unsafe {
        raw::call(
            libc::SYS_mmap,
            &[
                (base + from) as c_long,
                (len - from) as c_long,
                libc::PROT_READ as c_long,
                (libc::MAP_PRIVATE | libc::MAP_FIXED) as c_long,
                layer.sigbus_fd as c_long,
                0,
            ],
        );
    }
    count(Kind::MmapFile, Outcome::Sigbus, 1);
    call.action = "sigbus";
    call.detail = from as i64;
}

// ---------------------------------------------------------------------------
// The interposed symbols.

#[no_mangle]
pub unsafe extern "C" fn read(fd: c_int, buf: *mut c_void, count: size_t) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_read(Kind::Read, fd, buf, count, None) }) as ssize_t
}

#[no_mangle]
pub unsafe extern "C" fn __read_chk(
    fd: c_int,
    buf: *mut c_void,
    count: size_t,
    _buflen: size_t,
) -> ssize_t {
    // SAFETY: forwarded from our caller.
    unsafe { read(fd, buf, count) }
}

#[no_mangle]
pub unsafe extern "C" fn pread64(
    fd: c_int,
    buf: *mut c_void,
    count: size_t,
    offset: off_t,
) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_read(Kind::Pread, fd, buf, count, Some(offset)) }) as ssize_t
}

#[no_mangle]
pub unsafe extern "C" fn pread(
    fd: c_int,
    buf: *mut c_void,
    count: size_t,
    offset: off_t,
) -> ssize_t {
    // SAFETY: forwarded from our caller.
    unsafe { pread64(fd, buf, count, offset) }
}

#[no_mangle]
pub unsafe extern "C" fn readv(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_vector(Kind::Readv, fd, iov, cnt) }) as ssize_t
}

#[no_mangle]
pub unsafe extern "C" fn write(fd: c_int, buf: *const c_void, count: size_t) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_write(Kind::Write, fd, buf, count) }) as ssize_t
}

#[no_mangle]
pub unsafe extern "C" fn writev(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_vector(Kind::Writev, fd, iov, cnt) }) as ssize_t
}

#[no_mangle]
pub unsafe extern "C" fn splice(
    fd_in: c_int,
    off_in: *mut i64,
    fd_out: c_int,
    off_out: *mut i64,
    len: size_t,
    flags: c_uint,
) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_copy(Kind::Splice, fd_in, off_in, fd_out, off_out, len, flags) })
        as ssize_t
}

/// close(2): forget the failures of a descriptor whose number may now be
/// given to another file, and fail a close the plan names after closing
/// (as NFS reports a write's failure at close, the descriptor gone).
#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    let layer = layer();
    if layer.is_some() {
        forget_failures(fd);
        forget_listing(fd);
        count(Kind::Close, Outcome::Calls, 1);
    }
    // SAFETY: the caller's own descriptor.
    let r = unsafe { raw::call(libc::SYS_close, &[fd as c_long]) };
    let failure = layer.and_then(|l| l.plan.close_failures.iter().find(|f| f.0 == fd));
    if let (0, Some(&(_, errno))) = (r, failure) {
        count(Kind::Close, Outcome::OutputFailed, 1);
        let note = Note {
            kind: Kind::Close,
            fd,
            len: 0,
            action: "closefail",
            detail: 0,
        };
        let r = fail(errno.code());
        log(&note, r);
        return libc_result(r) as c_int;
    }
    libc_result(r) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn pipe2(fds: *mut c_int, flags: c_int) -> c_int {
    if let Some(r) = refused(Kind::Pipe, -1, libc::EMFILE) {
        return libc_result(r) as c_int;
    }
    // SAFETY: the caller's two-slot array, written only by the kernel.
    let r = unsafe { raw::call(libc::SYS_pipe2, &[fds as c_long, flags as c_long]) };
    if r == 0 && layer().is_some() {
        // SAFETY: on success the kernel filled both slots.
        note_own_pipe(unsafe { *fds });
    }
    libc_result(r) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn pipe(fds: *mut c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { pipe2(fds, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn copy_file_range(
    fd_in: c_int,
    off_in: *mut i64,
    fd_out: c_int,
    off_out: *mut i64,
    len: size_t,
    flags: c_uint,
) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe {
        handle_copy(
            Kind::CopyFileRange,
            fd_in,
            off_in,
            fd_out,
            off_out,
            len,
            flags,
        )
    }) as ssize_t
}

#[no_mangle]
pub unsafe extern "C" fn vmsplice(
    fd: c_int,
    iov: *const iovec,
    nr_segs: size_t,
    flags: c_uint,
) -> ssize_t {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_vmsplice(fd, iov, nr_segs, flags) }) as ssize_t
}

// fcntl is variadic in C.  On x86_64 and aarch64 Linux a variadic integer
// argument travels in the same register as a fixed one, so a fixed third
// parameter receives it (and garbage, never read, when there is none).
#[no_mangle]
pub unsafe extern "C" fn fcntl(fd: c_int, cmd: c_int, arg: c_long) -> c_int {
    // SAFETY: forwarded from our caller.
    libc_result(unsafe { handle_fcntl(fd, cmd, arg) }) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn fcntl64(fd: c_int, cmd: c_int, arg: c_long) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { fcntl(fd, cmd, arg) }
}

#[no_mangle]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    // SAFETY: forwarded from our caller.
    let r = unsafe { handle_mmap(addr, len, prot, flags, fd, off) };
    libc_result(r) as *mut c_void
}

#[no_mangle]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    // SAFETY: forwarded from our caller.
    unsafe { mmap(addr, len, prot, flags, fd, off) }
}

// open and openat are variadic (the mode comes only with O_CREAT or
// O_TMPFILE); on x86_64 and aarch64 a variadic integer argument travels in
// the same register as a fixed one, so it is read as one.
#[no_mangle]
pub unsafe extern "C" fn open(path: *const libc::c_char, flags: c_int, mode: c_uint) -> c_int {
    // SAFETY: the caller's arguments, forwarded.
    libc_result(unsafe { handle_open(libc::AT_FDCWD, path, flags, mode) }) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn open64(path: *const libc::c_char, flags: c_int, mode: c_uint) -> c_int {
    // SAFETY: as above.
    libc_result(unsafe { handle_open(libc::AT_FDCWD, path, flags, mode) }) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn openat(
    dirfd: c_int,
    path: *const libc::c_char,
    flags: c_int,
    mode: c_uint,
) -> c_int {
    // SAFETY: as above.
    libc_result(unsafe { handle_open(dirfd, path, flags, mode) }) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn openat64(
    dirfd: c_int,
    path: *const libc::c_char,
    flags: c_int,
    mode: c_uint,
) -> c_int {
    // SAFETY: as above.
    libc_result(unsafe { handle_open(dirfd, path, flags, mode) }) as c_int
}

// syscall(2) is variadic too; the same register argument applies, and the
// sixth argument is read from the caller's stack slot for it, which every
// caller of a six-argument call fills.  Only the I/O calls above are
// diverted; everything else (futexes, getrandom, ...) passes unchanged.
/// ioctl(2): FIONREAD may be refused (ENOTTY, as for a file that cannot
/// say), the rest passed on.  Declared with the one argument every
/// request the programs make takes; the C calling convention passes a
/// variadic argument in the same register.
#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: libc::c_ulong, arg: *mut c_void) -> c_int {
    if request == libc::FIONREAD as libc::c_ulong {
        if let Some(r) = refused(Kind::Fionread, fd, libc::ENOTTY) {
            return libc_result(r) as c_int;
        }
    }
    // SAFETY: forwarded unchanged to the kernel.
    let r = unsafe {
        raw::call(
            libc::SYS_ioctl,
            &[fd as c_long, request as c_long, arg as c_long],
        )
    };
    libc_result(r) as c_int
}

/// posix_fadvise(2), which returns its error rather than setting errno: a
/// hint, refused (EINVAL) in the plan's share.
#[no_mangle]
pub unsafe extern "C" fn posix_fadvise64(fd: c_int, offset: i64, len: i64, advice: c_int) -> c_int {
    if let Some(r) = refused(Kind::Advise, fd, libc::EINVAL) {
        return -r as c_int;
    }
    // SAFETY: forwarded unchanged to the kernel.
    let r = unsafe {
        raw::call(
            libc::SYS_fadvise64,
            &[
                fd as c_long,
                offset as c_long,
                len as c_long,
                advice as c_long,
            ],
        )
    };
    if r < 0 {
        -r as c_int
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn posix_fadvise(fd: c_int, offset: i64, len: i64, advice: c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { posix_fadvise64(fd, offset, len, advice) }
}

/// madvise(2): a hint about the caller's own memory, refused (EAGAIN, the
/// kernel short of resources) in the plan's share.
#[no_mangle]
pub unsafe extern "C" fn madvise(addr: *mut c_void, len: size_t, advice: c_int) -> c_int {
    if let Some(r) = refused(Kind::Advise, -1, libc::EAGAIN) {
        return libc_result(r) as c_int;
    }
    // SAFETY: forwarded unchanged to the kernel.
    let r = unsafe {
        raw::call(
            libc::SYS_madvise,
            &[addr as c_long, len as c_long, advice as c_long],
        )
    };
    libc_result(r) as c_int
}

#[no_mangle]
pub unsafe extern "C" fn syscall(
    n: c_long,
    a1: c_long,
    a2: c_long,
    a3: c_long,
    a4: c_long,
    a5: c_long,
    a6: c_long,
) -> c_long {
    let io = [
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_pread64,
        libc::SYS_readv,
        libc::SYS_writev,
        libc::SYS_splice,
        libc::SYS_copy_file_range,
        libc::SYS_vmsplice,
        libc::SYS_openat,
        libc::SYS_getdents64,
    ];
    if layer().is_some() && io.contains(&n) {
        count(Kind::RawSyscall, Outcome::Calls, 1);
    }
    // SAFETY: each arm forwards the caller's arguments to the matching
    // handler with the types the system call takes.
    let r = unsafe {
        match n {
            libc::SYS_read => handle_read(
                Kind::Read,
                a1 as c_int,
                a2 as *mut c_void,
                a3 as usize,
                None,
            ),
            libc::SYS_pread64 => handle_read(
                Kind::Pread,
                a1 as c_int,
                a2 as *mut c_void,
                a3 as usize,
                Some(a4),
            ),
            libc::SYS_write => {
                handle_write(Kind::Write, a1 as c_int, a2 as *const c_void, a3 as usize)
            }
            libc::SYS_readv => {
                handle_vector(Kind::Readv, a1 as c_int, a2 as *const iovec, a3 as c_int)
            }
            libc::SYS_writev => {
                handle_vector(Kind::Writev, a1 as c_int, a2 as *const iovec, a3 as c_int)
            }
            libc::SYS_splice => handle_copy(
                Kind::Splice,
                a1 as c_int,
                a2 as *mut i64,
                a3 as c_int,
                a4 as *mut i64,
                a5 as usize,
                a6 as c_uint,
            ),
            libc::SYS_getdents64 => handle_getdents(a1 as c_int, a2 as *mut u8, a3 as usize),
            libc::SYS_copy_file_range => handle_copy(
                Kind::CopyFileRange,
                a1 as c_int,
                a2 as *mut i64,
                a3 as c_int,
                a4 as *mut i64,
                a5 as usize,
                a6 as c_uint,
            ),
            libc::SYS_vmsplice => {
                handle_vmsplice(a1 as c_int, a2 as *const iovec, a3 as usize, a4 as c_uint)
            }
            libc::SYS_openat => handle_open(
                a1 as c_int,
                a2 as *const libc::c_char,
                a3 as c_int,
                a4 as c_uint,
            ),
            _ => raw::syscall6(n, [a1, a2, a3, a4, a5, a6]),
        }
    };
    libc_result(r)
}
