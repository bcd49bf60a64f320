//! A file rewritten in place by another process while grep and wc read it
//! through their mapped windows: every line grep prints is a line of some
//! version of the file, in its place; wc's counts, the same for every
//! version, are exact; nothing crashes or hangs.
//!
//! The file is 64K lines of 8 bytes, `Dnnnnnn\n`: `D` is the version's
//! digit and `nnnnnn` the line's number from 0, so a line of any version
//! says where it belongs.  The test rewrites it version
//! after version with aligned 8-byte stores through a shared mapping, each
//! line whole, for as long as the tools run.

mod common;

use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::sys::SharedWords;

const LINES: usize = 64 * 1024;

fn line(version: usize, i: usize) -> [u8; 8] {
    let text = format!("{}{i:06}\n", version % 10);
    text.as_bytes().try_into().expect("8 bytes")
}

/// Run `cmd`, killed if it takes a minute: a hang fails the test.
fn run(mut cmd: Command) -> Output {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !done.load(Ordering::SeqCst) {
                if Instant::now() > deadline {
                    common::sys::kill(pid, libc::SIGKILL);
                    return true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            false
        })
    };
    let out = child.wait_with_output().expect("wait");
    done.store(true, Ordering::SeqCst);
    assert!(!watchdog.join().unwrap(), "{cmd:?} hung");
    out
}

#[test]
fn a_file_rewritten_while_mapped_gives_lines_of_its_versions_and_exact_counts() {
    let scratch = common::Scratch::new("mapped-rewrite");
    let path = scratch.path.join("f");
    let first: Vec<u8> = (0..LINES).flat_map(|i| line(0, i)).collect();
    std::fs::write(&path, &first).expect("write");
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&path)
        .expect("open");
    let words = SharedWords::map(&file);
    let stop = AtomicBool::new(false);
    let versions = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut version = 0;
            while !stop.load(Ordering::SeqCst) {
                version += 1;
                for i in 0..LINES {
                    words.store(i, line(version, i));
                }
                versions.store(version, Ordering::SeqCst);
            }
        });
        for round in 0..40 {
            let mut grep = Command::new(common::binary("grep"));
            grep.args(["-n", "[0-9]"]).arg(&path).env("LC_ALL", "C");
            grep.env("SAMEBYTES_GREP_MAP_MIN", "0");
            grep.env(
                "SAMEBYTES_GREP_WINDOW",
                ["65536", "4096", "1048576"][round % 3],
            );
            let out = run(grep);
            assert_eq!(
                out.status.code(),
                Some(0),
                "grep: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).expect("grep prints the file's text");
            let mut n = 0;
            for (i, got) in text.lines().enumerate() {
                let (number, rest) = got.split_once(':').expect("-n's line number");
                assert_eq!(number, (i + 1).to_string(), "line {} out of place", i + 1);
                let b = rest.as_bytes();
                assert!(
                    b.len() == 7 && b[0].is_ascii_digit() && rest[1..] == format!("{i:06}"),
                    "round {round}: line {} is no version's: {rest:?}",
                    i + 1
                );
                n += 1;
            }
            assert_eq!(n, LINES, "round {round}: every line printed");
            let mut wc = Command::new(common::binary("wc"));
            wc.arg("-lwc").arg(&path).env("LC_ALL", "C");
            let out = run(wc);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!(" {LINES}  {LINES} {} {}\n", LINES * 8, path.display()),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        stop.store(true, Ordering::SeqCst);
    });
    assert!(
        versions.load(Ordering::SeqCst) > 1,
        "the file was rewritten while read"
    );
}
