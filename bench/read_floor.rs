//! The floor of a recursive search: list a tree and read every regular
//! file in it once, on N threads, in no particular order, searching
//! nothing.  `bench/run.sh` builds it with rustc and times it beside the
//! grep rows on the same tree.
//!
//!   read_floor DIR [THREADS]

use std::io::Read;
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};

fn main() {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().expect("usage: read_floor DIR [THREADS]"));
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(2);
    let (send, recv) = mpsc::sync_channel::<PathBuf>(1024);
    let recv = Arc::new(Mutex::new(recv));
    let readers: Vec<_> = (0..threads)
        .map(|_| {
            let recv = Arc::clone(&recv);
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 256 * 1024];
                let mut total = 0u64;
                loop {
                    let path = match recv.lock().unwrap().recv() {
                        Ok(p) => p,
                        Err(_) => return total,
                    };
                    if let Ok(mut f) = std::fs::File::open(&path) {
                        while let Ok(n) = f.read(&mut buf) {
                            if n == 0 {
                                break;
                            }
                            total += n as u64;
                        }
                    }
                }
            })
        })
        .collect();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let Ok(listing) = std::fs::read_dir(&dir) else { continue };
        for entry in listing.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(entry.path()),
                Ok(t) if t.is_file() => send.send(entry.path()).unwrap(),
                _ => {}
            }
        }
    }
    drop(send);
    let total: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    println!("{total}");
}
