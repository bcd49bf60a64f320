//! Differential tests: samebytes yes against the spec, on every prefix of
//! the endless output, under short, interrupted and failing writes, with
//! buffer sizes from one byte up.

use std::io;
use std::rc::Rc;

use proptest::prelude::*;
use samebytes::sys::PageBuffer;
use samebytes::yes::{YesConfig, YesOutput};
use samebytes_oracle::schedule::{WriteFailureKind, WriteStep};
use samebytes_oracle::yes::{check_yes, yes_case, YesCase};
use samebytes_spec::yes::{line, YesEnv};

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whole command lines (operands from empty to a few MiB, options
    /// anywhere), prefixes from nothing to several MiB, short and
    /// interrupted writes, EPIPE or ENOSPC at the end, sizes from 1 byte.
    #[test]
    fn yes_matches_spec(case in yes_case()) {
        if let Err(m) = check_yes(&case) {
            prop_assert!(false, "{}", m);
        }
    }
}

/// Every prefix length up to three buffers' worth, for short lines around
/// every buffer size, with writes that take 1, 2 or 7 bytes at a time: each
/// switch from warm-up to the big buffer, each wrap of a period, each
/// partial send, at every offset into the line.
#[test]
fn every_prefix_of_short_lines_around_every_buffer_boundary() {
    let operands: &[&[u8]] = &[b"", b"y", b"ab", b"abcdef", b"a\nb c"];
    for operand in operands {
        for (warm_up_write, warm_up, send) in [(1, 1, 1), (7, 20, 5), (8, 8, 13), (3, 0, 2)] {
            let config = YesConfig {
                warm_up_write,
                warm_up,
                pipe_size: send,
                write_size: send,
            };
            let line_len = operand.len() + 1;
            let reach = 3 * (warm_up.max(warm_up_write) + 2 * send.max(line_len)) + line_len;
            for accept in [1, 2, 7] {
                for limit in 0..=reach {
                    let case = YesCase {
                        args: vec![operand.to_vec()],
                        posixly_correct: false,
                        steps: vec![WriteStep::Accept(accept)],
                        limit,
                        failure: WriteFailureKind::BrokenPipe,
                        config: config.clone(),
                    };
                    if let Err(m) = check_yes(&case) {
                        panic!("{m}");
                    }
                }
            }
        }
    }
}

/// An output that records what it is offered and takes `take` bytes per
/// send, failing after `limit`.
struct RecordingOutput {
    send_size: usize,
    take: usize,
    limit: usize,
    taken: usize,
    offered: Vec<(Rc<PageBuffer>, usize, usize)>,
}

impl YesOutput for RecordingOutput {
    fn prepare(&mut self, _config: &YesConfig) -> usize {
        self.send_size
    }

    fn send(&mut self, buf: &Rc<PageBuffer>, from: usize, to: usize) -> io::Result<usize> {
        self.offered.push((Rc::clone(buf), from, to));
        if self.taken >= self.limit {
            return Err(io::Error::from_raw_os_error(libc::EPIPE));
        }
        let n = self.take.min(to - from).min(self.limit - self.taken);
        self.taken += n;
        Ok(n)
    }

    fn describe(&self) -> String {
        "a recording".into()
    }
}

/// The buffer shape the fast path relies on: every buffer offered holds
/// only whole copies of the line; a big buffer is two periods of at least
/// one send (so every offer is a full send, however little the last one
/// took), and a line longer than a send is kept as one copy, never two.
#[test]
fn buffers_hold_whole_lines_and_at_most_one_copy_of_a_long_line() {
    for (operands, send_size, take) in [
        (vec![b"y".to_vec()], 1000, 333),
        (vec![b"a".to_vec(), b"bc".to_vec()], 64, 1),
        (vec![vec![b'x'; 499]], 4096, 4096),
        (vec![vec![b'z'; 10_000]], 4096, 3000),
        (vec![vec![b'w'; 5000], vec![b'v'; 5000]], 8192, 8192),
    ] {
        let the_line = {
            let borrowed: Vec<&[u8]> = operands.iter().map(Vec::as_slice).collect();
            line(&borrowed)
        };
        let len = the_line.len();
        let config = YesConfig {
            pipe_size: send_size,
            write_size: send_size,
            ..YesConfig::default()
        };
        let mut out = RecordingOutput {
            send_size,
            take,
            limit: 40 * send_size + 3 * config.warm_up,
            taken: 0,
            offered: Vec::new(),
        };
        let status = samebytes::yes::run(
            &operands,
            &YesEnv::new(false),
            &mut out,
            &mut Vec::new(),
            &config,
            false,
        );
        assert_eq!(status, 1);
        // The warm-up buffer, then the big one.
        let (last, _, _) = out.offered.last().expect("offers").clone();
        let mut big = Vec::new();
        for (buf, from, to) in &out.offered {
            assert_eq!(buf.len() % len, 0, "a buffer of {} bytes", buf.len());
            assert!(
                buf.chunks(len).all(|c| c == the_line.as_slice()),
                "not whole copies"
            );
            assert!(from < to && *to <= buf.len());
            if Rc::ptr_eq(buf, &last) {
                big.push(to - from);
            } else {
                assert!(buf.len() <= config.warm_up_write, "a warm-up buffer");
            }
        }
        // The last offer failed; every other took `take` bytes at most.
        big.pop();
        let size = last.len();
        if len >= send_size {
            assert_eq!(size, len, "a long line is kept once");
        } else {
            let period = send_size / len * len;
            assert_eq!(size, 2 * period);
            assert!(big.iter().all(|n| *n == period), "full sends: {big:?}");
        }
    }
}

/// Resident memory of this process, in KiB.
fn rss_kib() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Buffers that were never spliced go back to the system when dropped:
/// 64 filled 2 MiB buffers must not stay resident.
#[test]
fn page_buffers_are_unmapped_when_dropped() {
    let before = rss_kib();
    for i in 0..64u8 {
        let mut buf = PageBuffer::new(2 << 20).expect("map");
        buf.fill(i);
        assert!(buf.iter().all(|&b| b == i));
    }
    let grown = rss_kib().saturating_sub(before);
    assert!(grown < 32 << 10, "RSS grew by {grown} KiB");
}
