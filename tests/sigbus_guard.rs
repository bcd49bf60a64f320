//! The SIGBUS guard of mapped windows is a good citizen of its process
//! (`impl/src/sys/guard.rs`): it keeps `errno`, passes a SIGBUS that is
//! not a window's to the handler that was there before it, runs on the
//! thread's alternate signal stack, and still catches its own faults.
//!
//! One test, in a process of its own: the host's handler must be there
//! before the guard is installed, and the guard is installed once.

mod common;

use std::fs::File;
use std::sync::atomic::Ordering;

use common::sys::signal::{self, HOST_CALLS, HOST_ERRNO, HOST_SAW_SIGNO, HOST_STACK};
use samebytes::sys::MappedWindow;

#[test]
fn the_sigbus_guard_keeps_errno_chains_to_the_host_and_uses_the_alternate_stack() {
    signal::install_host_sigbus_handler();
    let path = std::env::temp_dir().join(format!("samebytes-guard-{}", std::process::id()));
    std::fs::write(&path, vec![b'x'; 3 * 4096]).expect("write");
    let file = File::open(&path).expect("open");
    // Mapping installs the guard over the host's handler.
    let whole = MappedWindow::map(&file, 0, 3 * 4096).expect("map");
    assert_eq!(whole.read(|b| b[2 * 4096]), Some(b'x'));

    // A SIGBUS that is no window's goes to the host's handler, and the
    // errno the interrupted code had is there again after it.
    signal::set_errno(libc::ENOTTY);
    signal::raise_sigbus();
    let errno = signal::errno();
    assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 1, "the host's handler");
    assert_eq!(
        HOST_SAW_SIGNO.load(Ordering::SeqCst),
        libc::SIGBUS as usize,
        "the host's handler was given the kernel's siginfo_t"
    );
    assert_ne!(HOST_ERRNO, libc::ENOTTY);
    assert_eq!(errno, libc::ENOTTY, "errno after the handler");

    // The guard's own fault is still its own: the file shrinks under a
    // window, whose read completes and reports it; the host hears nothing.
    let window = MappedWindow::map(&file, 0, 3 * 4096).expect("map");
    File::options()
        .write(true)
        .open(&path)
        .expect("open for writing")
        .set_len(4096)
        .expect("truncate");
    assert_eq!(window.read(|b| std::hint::black_box(b[2 * 4096])), None);
    assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 1, "a window's fault");

    // On a thread with an alternate signal stack, the handler runs there
    // (and so does the host's, which it calls).
    let range = std::thread::spawn(|| {
        let stack = Vec::leak(vec![0u8; 256 << 10]);
        let range = signal::use_alternate_stack(stack);
        signal::raise_sigbus();
        range
    })
    .join()
    .expect("the thread");
    assert_eq!(HOST_CALLS.load(Ordering::SeqCst), 2);
    let at = HOST_STACK.load(Ordering::SeqCst);
    assert!(
        range.contains(&at),
        "the handler ran at {at:#x}, outside the alternate stack {range:x?}"
    );
    let _ = std::fs::remove_file(&path);
}
