//! The SIGBUS guard of mapped windows: a table of slots, one per live
//! window, and the handler that finds the faulting window by address.
//!
//! A file truncated while mapped makes access past its new end raise
//! SIGBUS (so does a page the disk cannot read).  While a window is armed
//! in a slot, the handler owns its address range: on a fault inside it,
//! the handler maps anonymous zero pages over the rest of the window (so
//! the access completes) and marks the slot faulted; the reader then
//! discards what it computed from that window (`super::mapped`).
//!
//! Many threads read windows at once, so each live window has its own
//! slot, and the handler finds it by address: live mappings never
//! overlap, so the address names exactly one slot.  Looking it up by
//! address rather than in thread-local storage keeps the handler to
//! atomic loads and stores.
//!
//! The handler is a good citizen of the process (docs/safety.md, "The
//! SIGBUS handler", has the whole argument):
//! - it saves and restores `errno`, which its system calls may change
//!   under the interrupted code;
//! - a fault that is not in a window goes to the disposition that was
//!   there before the guard (a sanitizer's, a host program's, Rust's own
//!   stack-overflow handler in a test), and only where that was the
//!   default does the signal end the process as it would have;
//! - it runs on the thread's alternate signal stack where there is one
//!   (`SA_ONSTACK`);
//! - it calls only async-signal-safe code: atomics, `mmap`, `signal`,
//!   `raise`, and the previous handler.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

pub mod table;
use table::GuardTable;

/// More slots than windows grep and wc ever hold at once (one per search
/// thread, at most 64).  With every slot taken, mapping fails and the
/// caller reads instead, as it does when mmap itself fails.
pub const GUARD_SLOTS: usize = 128;

/// The process's table, made when the handler is installed, before any
/// window is mapped; the handler only reads it (`OnceLock::get` is one
/// atomic load).
static GUARDS: OnceLock<GuardTable<GUARD_SLOTS>> = OnceLock::new();

/// The process's table (the handler is installed, or mapping would have
/// failed before a slot was claimed).
pub fn guards() -> &'static GuardTable<GUARD_SLOTS> {
    GUARDS.get_or_init(GuardTable::new)
}

// ---------------------------------------------------------------------------
// The handler.

/// The page size, as a mask of a page's start, read by the handler (which
/// must not run `page_size`'s one-time initialisation).
static PAGE_MASK: AtomicUsize = AtomicUsize::new(0);
/// The SIGBUS disposition found when the guard was installed: SIG_DFL,
/// SIG_IGN or a handler's address, and whether that handler takes
/// `siginfo_t`.
static PREVIOUS_ACTION: AtomicUsize = AtomicUsize::new(0);
static PREVIOUS_TAKES_INFO: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: `__errno_location` gives this thread's errno, valid for the
    // thread's life; it is read here and written back at the end, so the
    // interrupted code finds it as it left it.
    let errno = unsafe { libc::__errno_location() };
    // SAFETY: as above.
    let saved = unsafe { *errno };
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let holder = GUARDS.get().and_then(|table| table.holding(addr));
    match holder {
        Some((slot, end)) => {
            let from = addr & PAGE_MASK.load(Ordering::Relaxed);
            // SAFETY: [from, end) lies inside a window this process mapped
            // and still has mapped (a slot's length is non-zero only while
            // its mapping lives); MAP_FIXED replaces exactly those pages
            // with zero-filled private memory, so the faulting load can be
            // restarted.  mmap is a plain system call, safe to issue from
            // a signal handler on Linux.
            unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
            }
            slot.mark_faulted();
        }
        // SAFETY: the arguments are the kernel's own, passed on.
        None => unsafe { pass_on(sig, info, ctx) },
    }
    // SAFETY: as above.
    unsafe { *errno = saved };
}

/// Hand a SIGBUS that is not a window's to the disposition found when the
/// guard was installed.
///
/// # Safety
///
/// Only from the SIGBUS handler, with the arguments the kernel gave it.
unsafe fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    match PREVIOUS_ACTION.load(Ordering::Relaxed) {
        // A SIGBUS another process sent is dropped, as it would have been
        // (a fault cannot be ignored: the kernel kills then, as below).
        // SAFETY: the kernel's siginfo_t.
        libc::SIG_IGN if unsafe { (*info).si_code } <= 0 => {}
        libc::SIG_DFL | libc::SIG_IGN => {
            // The default action again, and the signal raised once more
            // (blocked until the handler returns): it ends the process as
            // usual; returning alone would do for a fault, which
            // re-executes the access, but would swallow a SIGBUS sent
            // with kill(2).
            // SAFETY: signal() and raise() are async-signal-safe.
            unsafe {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                libc::raise(libc::SIGBUS);
            }
        }
        handler if PREVIOUS_TAKES_INFO.load(Ordering::Relaxed) => {
            type Action = extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);
            // SAFETY: the address came from sigaction as an SA_SIGINFO
            // handler of this process, which takes exactly these
            // arguments; it is called as the kernel would have called it.
            let previous = unsafe { std::mem::transmute::<usize, Action>(handler) };
            previous(sig, info, ctx);
        }
        handler => {
            type Handler = extern "C" fn(libc::c_int);
            // SAFETY: as above, for a plain handler.
            let previous = unsafe { std::mem::transmute::<usize, Handler>(handler) };
            previous(sig);
        }
    }
}

/// Install the handler once for the process; false if it cannot be (the
/// caller then reads instead of mapping).
pub fn install() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        PAGE_MASK.store(!(super::fd::page_size() as usize - 1), Ordering::Relaxed);
        guards();
        // SAFETY: sigaction reads and writes sigaction structs we own,
        // zeroed and then filled; the handler installed touches only
        // atomics and async-signal-safe calls (above).
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) != 0 {
                return false;
            }
            PREVIOUS_ACTION.store(previous.sa_sigaction, Ordering::Relaxed);
            PREVIOUS_TAKES_INFO.store(previous.sa_flags & libc::SA_SIGINFO != 0, Ordering::Relaxed);
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigbus as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut()) == 0
        }
    })
}
