//! wc's positioned reads, as strace prints them: a large regular file is
//! counted in two halves on two threads, cut just after a newline past the
//! middle, even when the probe for that newline is interrupted.  The
//! counts are checked against GNU's wc; these tests prove the shape of the
//! calls, which no count comparison can see (and never time anything).

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use common::{binary, Scratch};

/// One pread64 call: thread, length asked, offset, and bytes read (`None`
/// for an error).
#[derive(Clone, Copy, Debug)]
struct Pread {
    tid: u32,
    len: u64,
    offset: u64,
    got: Option<u64>,
}

/// The pread64 calls in one thread's trace (`strace -ff`: a file per
/// thread, so no call is split by another's).
fn preads(tid: u32, trace: &str) -> Vec<Pread> {
    trace
        .lines()
        .filter_map(|l| {
            let call = l.strip_prefix("pread64(")?;
            let (args, result) = call.rsplit_once(") = ")?;
            let mut from_end = args.rsplitn(3, ", ");
            let offset = from_end.next()?.parse().ok()?;
            let len = from_end.next()?.parse().ok()?;
            Some(Pread {
                tid,
                len,
                offset,
                got: result.split(' ').next()?.parse().ok(),
            })
        })
        .collect()
}

/// Run our wc under strace (`inject`: extra strace arguments); returns
/// stdout and the pread64 calls, the main thread's first.
fn traced_wc(args: &[&str], dir: &std::path::Path, inject: &[String]) -> (Vec<u8>, Vec<Pread>) {
    let traces = dir.join("traces");
    let _ = std::fs::remove_dir_all(&traces);
    std::fs::create_dir_all(&traces).expect("trace folder");
    let child = Command::new("strace")
        .args(["-ff", "-o"])
        .arg(traces.join("t"))
        .args(["-e", "trace=pread64"])
        .args(inject)
        .arg(binary("wc"))
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("strace is installed (.ci/setup)");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut calls = Vec::new();
    let mut files: Vec<(u32, std::path::PathBuf)> = std::fs::read_dir(&traces)
        .expect("traces")
        .map(|e| {
            let path = e.expect("entry").path();
            let tid = path.extension().and_then(|x| x.to_str()).expect("t.TID");
            (tid.parse().expect("tid"), path)
        })
        .collect();
    // The main thread's id is the lowest: the other is made after it.
    files.sort();
    for (tid, path) in files {
        calls.extend(preads(tid, &std::fs::read_to_string(path).expect("trace")));
    }
    (out.stdout, calls)
}

/// The bytes each thread read, as one contiguous range per thread.
fn ranges_by_thread(calls: &[Pread]) -> Vec<(u64, u64)> {
    let mut by_thread: BTreeMap<u32, Vec<(u64, u64)>> = BTreeMap::new();
    for c in calls {
        if let Some(got) = c.got {
            by_thread
                .entry(c.tid)
                .or_default()
                .push((c.offset, c.offset + got));
        }
    }
    let mut ranges: Vec<(u64, u64)> = by_thread
        .into_values()
        .map(|mut reads| {
            reads.sort();
            for pair in reads.windows(2) {
                assert_eq!(
                    pair[0].1, pair[1].0,
                    "a thread's reads leave a gap or overlap"
                );
            }
            (reads[0].0, reads[reads.len() - 1].1)
        })
        .collect();
    ranges.sort();
    ranges
}

#[test]
fn a_large_file_is_counted_in_two_halves_cut_past_the_middle() {
    let scratch = Scratch::new("wc-calls");
    let data: Vec<u8> = (0..700_000u32)
        .flat_map(|i| format!("line {i} of some text\n").into_bytes())
        .collect();
    let size = data.len() as u64;
    let path = scratch.file("big", &data);
    let args = ["-lw", "big"];
    let gnu = Command::new("/usr/bin/wc")
        .args(args)
        .current_dir(&scratch.path)
        .env("LC_ALL", "C")
        .output()
        .expect("GNU wc");
    let (out, calls) = traced_wc(&args, &scratch.path, &[]);
    assert_eq!(out, gnu.stdout, "counts");
    // The probe: the first read of a whole chunk, just past the middle.
    let probe = calls
        .iter()
        .position(|c| c.len == 64 << 10)
        .expect("a probe for the cut");
    assert_eq!(
        calls[probe].offset,
        size / 2,
        "the probe starts at the middle"
    );
    let halves = |calls: &[Pread]| {
        let data = &data;
        let ranges = ranges_by_thread(calls);
        assert_eq!(ranges.len(), 2, "two threads: {ranges:?}");
        let (first, second) = (ranges[0], ranges[1]);
        let cut = first.1;
        assert_eq!((first.0, second.0, second.1), (0, cut, size), "{ranges:?}");
        assert!(
            cut > size / 2 && cut - size / 2 <= 64 << 10,
            "cut at {cut} of {size}"
        );
        assert_eq!(data[cut as usize - 1], b'\n', "the cut follows a newline");
    };
    halves(&calls[probe + 1..]);
    // The same with the probe interrupted: it is asked again, and the file
    // is still cut in two.  (strace counts the calls from 1; the dynamic
    // loader's come first.)
    let inject = [
        "-e".to_string(),
        format!("inject=pread64:error=EINTR:when={}", probe + 1),
    ];
    let (out, calls) = traced_wc(&args, &scratch.path, &inject);
    assert_eq!(out, gnu.stdout, "counts, probe interrupted");
    assert_eq!(calls[probe].got, None, "the probe was interrupted");
    assert!(
        calls.len() > probe + 2,
        "no read after the interrupted probe: {calls:?}"
    );
    assert_eq!(
        (calls[probe + 1].offset, calls[probe + 1].len),
        (size / 2, 64 << 10),
        "the probe asked again"
    );
    halves(&calls[probe + 2..]);
    drop(path);
}
