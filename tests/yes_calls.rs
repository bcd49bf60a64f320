//! yes's calls on its stdout, as strace prints them: the warm-up sends what
//! GNU's yes writes and waits for a full pipe as GNU's does, and after it a
//! slow reader costs yes one poll of a full pipe in every
//! `SLEEPS_AFTER_FAILED_POLL + 1` waits.  The bytes are checked against the
//! spec as in `yes_binary.rs`; these tests prove the shape of the calls,
//! which no byte comparison can see (and never time anything).

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{binary, Scratch};
use samebytes::yes::YesConfig;
use samebytes_spec::yes::{line, prefix};

/// One call on fd 1, as strace printed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    /// vmsplice or write: the bytes offered, the bytes taken (`None` for
    /// EAGAIN), and whether the call was non-blocking.
    Send {
        offered: usize,
        took: Option<usize>,
        nonblocking: bool,
    },
    /// F_SETPIPE_SZ: the output is being prepared for the long run.
    Grow,
}

/// The calls on fd 1 in a trace, up to the first that failed otherwise
/// than with EAGAIN (the reader went away).
fn stdout_calls(trace: &str) -> Vec<Call> {
    let mut calls = Vec::new();
    for l in trace.lines() {
        if l.starts_with("fcntl(1, F_SETPIPE_SZ") {
            calls.push(Call::Grow);
            continue;
        }
        let offered = if let Some(rest) = l.strip_prefix("vmsplice(1, ") {
            let at = rest.find("iov_len=").expect("iov_len") + "iov_len=".len();
            let digits: String = rest[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<usize>().expect("iov_len value")
        } else if l.starts_with("write(1, ") {
            let args = &l[..l.rfind(") = ").expect("result")];
            args[args.rfind(", ").expect("count") + 2..]
                .parse::<usize>()
                .expect("count value")
        } else {
            continue;
        };
        let result = &l[l.rfind(") = ").expect("result") + 4..];
        let took = if result.starts_with("-1 EAGAIN") {
            None
        } else if let Ok(n) = result.trim().parse::<usize>() {
            Some(n)
        } else {
            break;
        };
        calls.push(Call::Send {
            offered,
            took,
            nonblocking: l.contains("SPLICE_F_NONBLOCK"),
        });
    }
    calls
}

/// Run `program` with one operand under strace, its stdout a pipe that
/// `read` reads until it returns; then the reader goes away.  Returns what
/// was read and the calls on fd 1.
fn traced(
    program: &Path,
    operand: &str,
    read: impl FnOnce(&mut std::process::ChildStdout) -> Vec<u8>,
) -> (Vec<u8>, Vec<Call>) {
    let scratch = Scratch::new("yes-calls");
    let trace = scratch.path.join("trace");
    let mut child = Command::new("strace")
        .arg("-o")
        .arg(&trace)
        .args(["-e", "trace=write,vmsplice,fcntl"])
        .arg(program)
        .arg(operand)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("strace is installed (.ci/setup)");
    let mut stdout = child.stdout.take().expect("stdout");
    let got = read(&mut stdout);
    drop(stdout);
    child.wait().expect("wait");
    let trace = std::fs::read_to_string(&trace).expect("trace");
    (got, stdout_calls(&trace))
}

fn read_n(r: &mut impl Read, len: usize) -> Vec<u8> {
    let mut got = vec![0u8; len];
    r.read_exact(&mut got).expect("read");
    got
}

fn took(c: &Call) -> Option<usize> {
    match c {
        Call::Send { took, .. } => *took,
        Call::Grow => None,
    }
}

fn would_block(c: &Call) -> bool {
    matches!(c, Call::Send { took: None, .. })
}

/// The first writes are GNU's writes, of GNU's size, until the warm-up's
/// bytes are out (a line too long for one is not warmed up); a full pipe
/// meanwhile is waited on in the kernel, as GNU's blocking write waits,
/// never polled.
#[test]
fn the_warm_up_sends_gnus_writes_and_waits_as_gnu_does() {
    let cfg = YesConfig::default();
    for line_len in [2usize, 3, 4096, 4097, 8191, 8192, 20_000] {
        let operand = "y".repeat(line_len - 1);
        let (_, gnu) = traced(Path::new("/usr/bin/yes"), &operand, |r| read_n(r, 64 << 10));
        let Some(Call::Send {
            offered: gnu_size, ..
        }) = gnu.first().copied()
        else {
            panic!("GNU yes wrote nothing: {gnu:?}");
        };
        // The pipe fills before anything is read, then is read slowly.
        let total = 2 << 20;
        let (got, ours) = traced(&binary("yes"), &operand, |r| {
            std::thread::sleep(Duration::from_millis(30));
            let mut got = Vec::new();
            while got.len() < total {
                got.extend(read_n(r, (16 << 10).min(total - got.len())));
                if got.len() < cfg.warm_up + (64 << 10) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            got
        });
        let what = format!("line of {line_len} bytes");
        assert!(
            got == prefix(&line(&[operand.as_bytes()]), total),
            "{what}: bytes"
        );
        let grown = ours
            .iter()
            .position(|c| *c == Call::Grow)
            .unwrap_or_else(|| panic!("{what}: the warm-up never ended: {ours:?}"));
        let warm_up = &ours[..grown];
        let sent: usize = warm_up.iter().filter_map(took).sum();
        if line_len < cfg.warm_up_write {
            assert_eq!(
                sent,
                cfg.warm_up.div_ceil(gnu_size) * gnu_size,
                "{what}: warm-up bytes, in writes of GNU's {gnu_size}"
            );
            let Some(Call::Send { offered, .. }) = warm_up.first() else {
                panic!("{what}: no warm-up send");
            };
            assert_eq!(*offered, gnu_size, "{what}: the first send");
            assert!(
                warm_up.iter().any(would_block),
                "{what}: the pipe was never full in the warm-up, so the test shows nothing"
            );
        } else {
            assert_eq!(sent, 0, "{what}: a line this long is not warmed up");
        }
        for pair in warm_up.windows(2) {
            assert!(
                !(would_block(&pair[0]) && would_block(&pair[1])),
                "{what}: a full pipe polled during the warm-up: {pair:?}"
            );
        }
    }
}

/// After the warm-up, a reader slower than a poll makes every poll fail:
/// then the next waits sleep in the kernel at once, and only every
/// seventeenth wait polls again.  A wait starts with a non-blocking send
/// that finds the pipe full; it polls if the next send is non-blocking too.
#[test]
fn a_slow_reader_costs_one_poll_in_seventeen_waits() {
    let (fast, slow) = (3 << 20, 64usize);
    let (got, calls) = traced(&binary("yes"), "y", |r| {
        let mut got = read_n(r, fast);
        for _ in 0..slow {
            std::thread::sleep(Duration::from_millis(3));
            got.extend(read_n(r, 64 << 10));
        }
        got
    });
    assert!(got == prefix(&line(&[b"y"]), got.len()), "bytes");
    let grown = calls.iter().position(|c| *c == Call::Grow).expect("grown");
    let after = &calls[grown + 1..];
    // Each wait: did it poll, and did the poll fail (end in a blocking
    // send)?
    let mut waits = Vec::new();
    for (i, c) in after.iter().enumerate() {
        let starts_wait = matches!(
            c,
            Call::Send {
                took: None,
                nonblocking: true,
                ..
            }
        ) && (i == 0 || !would_block(&after[i - 1]));
        if !starts_wait {
            continue;
        }
        let nonblocking = |c: Option<&Call>| {
            matches!(
                c,
                Some(Call::Send {
                    nonblocking: true,
                    ..
                })
            )
        };
        let polled = nonblocking(after.get(i + 1));
        let mut end = i + 1;
        while matches!(
            after.get(end),
            Some(Call::Send {
                took: None,
                nonblocking: true,
                ..
            })
        ) {
            end += 1;
        }
        waits.push((polled, polled && !nonblocking(after.get(end))));
    }
    // From the first failed poll on, the reader is the slow one.
    let first_failed = waits
        .iter()
        .position(|&(_, failed)| failed)
        .expect("a poll that failed");
    let later = &waits[first_failed + 1..];
    let (waits, polls) = (later.len(), later.iter().filter(|w| w.0).count());
    assert!(waits >= slow / 2, "{waits} waits for {slow} slow reads");
    assert!(
        polls >= waits / 17,
        "{polls} polls in {waits} waits after a failed poll: polling never came back"
    );
    assert!(
        polls <= waits.div_ceil(17) + 1,
        "{polls} polls in {waits} waits: a slow reader is polled too often"
    );
}
