//! Windowed, SIGBUS-guarded read-only mappings.
//!
//! A file truncated while mapped makes access past its new end raise
//! SIGBUS (so does a page the disk cannot read).  While a window is mapped,
//! its guard slot (`super::guard`) lets the handler replace the vanished
//! pages with zero pages and record the fault.  The caller then discards
//! what it computed from that window and re-reads the file from the
//! window's start with read(), which sees the truncated file as it is.

use super::fd::page_size;
use super::guard::{guards, install};
use std::fs::File;
use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::AsRawFd;

/// A read-only view of part of a file, read once ([`MappedWindow::read`]),
/// guarded from the moment it is mapped until it is read or dropped.
pub struct MappedWindow {
    ptr: *mut libc::c_void,
    map_len: usize,
    skip: usize,
    len: usize,
    slot: usize,
}

impl MappedWindow {
    /// Map `len` bytes of `file` starting at `offset` (any alignment).
    pub fn map(file: &File, offset: u64, len: usize) -> io::Result<MappedWindow> {
        if len == 0 || !install() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let slot = guards()
            .claim()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EAGAIN))?;
        let page = page_size();
        let aligned = offset - offset % page;
        let skip = (offset - aligned) as usize;
        let map_len = skip + len;
        // SAFETY: a fresh PROT_READ, MAP_PRIVATE mapping chosen by the
        // kernel; it aliases nothing in this process.  Truncation of the
        // file while mapped is handled by the SIGBUS guard.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                aligned as libc::off_t,
            )
        };
        if ptr == libc::MAP_FAILED {
            let error = io::Error::last_os_error();
            guards().release(slot);
            return Err(error);
        }
        guards().arm(slot, ptr as usize, map_len);
        Ok(MappedWindow {
            ptr,
            map_len,
            skip,
            len,
            slot,
        })
    }

    /// Run `f` on the window's bytes, then unmap.  Returns `None` if the
    /// file shrank under the window while `f` ran: some of the bytes `f`
    /// saw were zero pages, not the file's, so whatever it computed must
    /// be discarded.  Taking the window by value means no later read can
    /// see those zero pages without a fault.
    pub fn read<R>(self, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        let (r, faulted, _unmapped_here) = self.read_probing_retired(|bytes, _| f(bytes));
        (!faulted).then_some(r)
    }

    /// As [`MappedWindow::read`], for a reader that must know mid-way:
    /// `f` gets the bytes and a probe that is true once some page of the
    /// window has vanished (its bytes read as zeros from there on).  The
    /// window is not unmapped here: it comes back retired, to be unmapped
    /// wherever it is dropped, with whether a page vanished at all.
    pub fn read_probing_retired<R>(
        self,
        f: impl FnOnce(&[u8], &dyn Fn() -> bool) -> R,
    ) -> (R, bool, RetiredWindow) {
        let guard = guards().slot(self.slot);
        // SAFETY: the mapping is live for `self`'s lifetime and at least
        // skip + len bytes long; it is read-only and private, so no Rust
        // reference elsewhere can alias it mutably.  Pages that vanish by
        // truncation are replaced by zero pages in the handler, so every
        // read of the slice completes.  Another process may still rewrite
        // the file's bytes under the slice: docs/safety.md, "Mapped
        // windows", argues why no decision of ours rests on them.
        let bytes =
            unsafe { std::slice::from_raw_parts((self.ptr as *const u8).add(self.skip), self.len) };
        let r = f(bytes, &|| guard.faulted());
        let faulted = guard.faulted();
        guards().release(self.slot);
        let window = ManuallyDrop::new(self);
        let retired = RetiredWindow {
            addr: window.ptr as usize,
            len: window.map_len,
        };
        (r, faulted, retired)
    }
}

/// A window no longer read and still mapped: dropping it unmaps it, on
/// whichever thread drops it.  Zapping a window's pages costs a quarter
/// of what faulting them in did, so grep's helper thread unmaps the last
/// window while the core searches the next.  Its guard is already gone:
/// nothing reads it any more, so nothing can fault in it.
pub struct RetiredWindow {
    addr: usize,
    len: usize,
}

impl Drop for RetiredWindow {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the region returned by mmap in
        // `MappedWindow::map`, once (the window was consumed into this);
        // nothing refers to it any more: the only slice of its bytes was
        // lent to the reader in `read_probing_retired`, which returned.
        unsafe {
            libc::munmap(self.addr as *mut libc::c_void, self.len);
        }
    }
}

impl Drop for MappedWindow {
    fn drop(&mut self) {
        guards().release(self.slot);
        // SAFETY: unmaps exactly the region returned by mmap in `map`,
        // after its guard was disarmed.
        unsafe {
            libc::munmap(self.ptr, self.map_len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_file(tag: &str, len: usize) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("samebytes-{tag}-{}", std::process::id()));
        std::fs::write(&path, vec![b'x'; len]).expect("write");
        path
    }

    fn truncate(path: &std::path::Path, len: u64) {
        File::options()
            .write(true)
            .open(path)
            .expect("open for writing")
            .set_len(len)
            .expect("truncate");
    }

    /// A file cut short under a window: the read that meets the missing
    /// pages completes on zero pages and reports the fault; what is still
    /// there maps and reads as the file's bytes.
    #[test]
    fn a_window_the_file_shrank_under_reads_as_faulted() {
        let path = scratch_file("shrunk", 3 * 4096);
        let file = File::open(&path).expect("open");
        let intact = MappedWindow::map(&file, 0, 3 * 4096).expect("map");
        assert_eq!(intact.read(|b| b.iter().all(|&c| c == b'x')), Some(true));
        let window = MappedWindow::map(&file, 0, 3 * 4096).expect("map");
        truncate(&path, 4096);
        // The first page is still there; the third faults.
        assert_eq!(window.read(|b| (b[0], b[2 * 4096])), None);
        let rest = MappedWindow::map(&file, 1, 4095).expect("map");
        assert_eq!(
            rest.read(|b| b.len() == 4095 && b.iter().all(|&c| c == b'x')),
            Some(true)
        );
        let _ = std::fs::remove_file(&path);
    }

    /// Windows read at the same time on several threads each keep their
    /// guard: every thread's file shrinks while all the windows are being
    /// read, and every read completes and reports its own fault, while a
    /// window whose file stays whole reports none.  (One guard for the
    /// process let all but one of these faults kill it.)
    #[test]
    fn windows_read_at_once_on_many_threads_each_catch_their_own_fault() {
        const THREADS: usize = 6;
        let armed = std::sync::Barrier::new(THREADS + 1);
        let cut = std::sync::Barrier::new(THREADS + 1);
        let paths: Vec<_> = (0..THREADS)
            .map(|i| scratch_file(&format!("shrunk-{i}"), 4 * 4096))
            .collect();
        let faults: Vec<Option<bool>> = std::thread::scope(|scope| {
            let readers: Vec<_> = paths
                .iter()
                .map(|path| {
                    let (armed, cut) = (&armed, &cut);
                    scope.spawn(move || {
                        let file = File::open(path).expect("open");
                        let Ok(window) = MappedWindow::map(&file, 0, 4 * 4096) else {
                            // Fail, not hang: the others wait for this one.
                            armed.wait();
                            cut.wait();
                            return None;
                        };
                        let (first, faulted, _retired) =
                            window.read_probing_retired(|bytes, vanished| {
                                let first = bytes[0];
                                armed.wait();
                                cut.wait();
                                // black_box: the load happens here, not
                                // sunk past the probe, which could then
                                // be asked before the fault.
                                let last = std::hint::black_box(bytes[3 * 4096]);
                                assert_eq!(vanished(), last != b'x');
                                first
                            });
                        assert_eq!(first, b'x');
                        Some(faulted)
                    })
                })
                .collect();
            armed.wait();
            // Every file but the first loses its last two pages.
            for path in &paths[1..] {
                truncate(path, 2 * 4096);
            }
            cut.wait();
            readers
                .into_iter()
                .map(|r| r.join().ok().flatten())
                .collect()
        });
        let mut expected = vec![Some(true); THREADS];
        expected[0] = Some(false);
        assert_eq!(faults, expected);
        for path in &paths {
            let _ = std::fs::remove_file(path);
        }
    }

    /// A window starting anywhere shows exactly the file's bytes there:
    /// at a page boundary, inside a page, inside a later page.
    #[test]
    fn a_window_shows_the_bytes_at_its_offset() {
        let path = scratch_file("offsets", 0);
        let data: Vec<u8> = (0..3 * 4096 + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).expect("write");
        let file = File::open(&path).expect("open");
        for (offset, len) in [(0, 10), (1, 4095), (4096, 100), (4097, 5000), (8192, 4196)] {
            let window = MappedWindow::map(&file, offset as u64, len).expect("map");
            assert_eq!(
                window.read(|b| b.to_vec()).as_deref(),
                Some(&data[offset..offset + len]),
                "{offset}+{len}"
            );
        }
        let _ = std::fs::remove_file(&path);
    }

    /// The zero pages replace the window from the faulting page on, and
    /// not the page before it, wherever the window lies (the page mask
    /// matters only where the address has bit 12 set, so windows are
    /// mapped until the faulting page's address has it).
    #[test]
    fn the_page_before_the_fault_stays_the_files() {
        let path = scratch_file("fault-page", 4 * 4096);
        let mut kept = Vec::new();
        let mut checked = 0;
        for _ in 0..16 {
            std::fs::write(&path, vec![b'x'; 4 * 4096]).expect("write");
            let file = File::open(&path).expect("open");
            let window = MappedWindow::map(&file, 0, 4 * 4096).expect("map");
            let (seen, faulted, retired) = window.read_probing_retired(|bytes, vanished| {
                if (bytes.as_ptr() as usize + 2 * 4096) & 4096 == 0 {
                    return None;
                }
                truncate(&path, 2 * 4096);
                let gone = std::hint::black_box(bytes[2 * 4096]);
                let before = std::hint::black_box(bytes[2 * 4096 - 1]);
                Some((gone, before, vanished()))
            });
            // Kept mapped, so that the next window lies elsewhere.
            kept.push(retired);
            if let Some(seen) = seen {
                assert_eq!((seen, faulted), ((0, b'x', true), true));
                checked += 1;
            } else {
                // Windows of four pages placed one after another all have
                // the same bit 12 at their third page: a page kept mapped
                // in between moves the next one by a page.
                let filler = MappedWindow::map(&file, 0, 4096).expect("map a page");
                kept.push(filler.read_probing_retired(|b, _| b[0]).2);
            }
        }
        assert!(checked > 0, "no window had bit 12 set at its third page");
        let _ = std::fs::remove_file(&path);
    }

    /// A slot is given back whichever way a window ends: read, retired or
    /// dropped unread.  Far more windows than slots come and go, and each
    /// still maps (a slot kept would leave none after `GUARD_SLOTS`).
    #[test]
    fn every_window_gives_its_guard_back() {
        let path = scratch_file("slots", 4096);
        let file = File::open(&path).expect("open");
        for round in 0..3 * crate::sys::guard::GUARD_SLOTS {
            let window = MappedWindow::map(&file, 0, 4096).expect("map");
            match round % 3 {
                0 => assert_eq!(window.read(|b| b[0]), Some(b'x')),
                1 => drop(window.read_probing_retired(|b, _| b[0]).2),
                _ => drop(window),
            }
        }
        let _ = std::fs::remove_file(&path);
    }
}
