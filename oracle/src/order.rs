//! The order in which stdout and stderr bytes were written, as a reader of
//! both (`2>&1`) sees it.
//!
//! The implementation runs with two writers that share one record: every
//! stderr write notes how many stdout bytes had been accepted before it.
//! The spec places each diagnostic ([`Placement`]); [`compare`] checks the
//! record against those places.  A tool that buffers its output and writes
//! a diagnostic before what it buffered, or after what came later, fails
//! here even when both streams are right on their own.

use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard};

use samebytes_spec::{Outcome, Placement};

use crate::mismatch::{Mismatch, Stream};

#[derive(Default)]
struct Record {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// (first stderr byte of a write, stdout bytes accepted before it).
    stderr_writes: Vec<(usize, usize)>,
}

/// The stdout end: appends what the writer above it accepted.
pub struct StdoutSink(Arc<Mutex<Record>>);

/// The stderr end: appends, and notes where among the stdout bytes.
pub struct StderrSink(Arc<Mutex<Record>>);

/// A view of what the two ends have been given so far, for whoever
/// watches the run while it goes (`crate::live`).
#[derive(Clone)]
pub struct Written(Arc<Mutex<Record>>);

impl Written {
    /// Stdout and stderr as written so far.
    pub fn so_far(&self) -> (Vec<u8>, Vec<u8>) {
        let r = lock(&self.0);
        (r.stdout.clone(), r.stderr.clone())
    }
}

/// A fresh pair of ends sharing one record.
pub fn sinks() -> (StdoutSink, StderrSink) {
    let (out, err, _) = watched_sinks();
    (out, err)
}

/// [`sinks`], and a view of what they have been given.
pub fn watched_sinks() -> (StdoutSink, StderrSink, Written) {
    let record = Arc::new(Mutex::new(Record::default()));
    (
        StdoutSink(record.clone()),
        StderrSink(record.clone()),
        Written(record),
    )
}

/// The record, whatever a thread that panicked while holding it left.
fn lock(record: &Mutex<Record>) -> MutexGuard<'_, Record> {
    record.lock().unwrap_or_else(|e| e.into_inner())
}

impl Write for StdoutSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        lock(&self.0).stdout.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Write for StderrSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut r = lock(&self.0);
        if !buf.is_empty() {
            let at = (r.stderr.len(), r.stdout.len());
            r.stderr_writes.push(at);
            r.stderr.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl StderrSink {
    /// What the run wrote, with one exact placement per stderr write.
    pub fn outcome(self, status: i32) -> Outcome {
        let r = std::mem::take(&mut *lock(&self.0));
        Outcome {
            stdout: r.stdout,
            stderr: r.stderr,
            status,
            placements: r
                .stderr_writes
                .iter()
                .map(|&(stderr_at, n)| Placement {
                    stderr_at,
                    stdout_min: n,
                    stdout_max: n,
                })
                .collect(),
        }
    }
}

/// The placement in `placements` that covers stderr byte `at`.
fn covering(placements: &[Placement], at: usize) -> Option<&Placement> {
    placements.iter().rev().find(|p| p.stderr_at <= at)
}

/// Does the implementation's record put every diagnostic where the spec
/// does?  Called once stdout and stderr are known to be equal.  Each of the
/// spec's diagnostics is checked at the write that began it, and each write
/// against the diagnostic it falls in (so stdout cannot grow in the middle
/// of one).
pub fn compare(
    tool: &'static str,
    variant: &str,
    expected: &Outcome,
    actual: &Outcome,
    reproducer: &dyn Fn() -> String,
) -> Result<(), Box<Mismatch>> {
    let fits = |p: &Placement, n: usize| (p.stdout_min..=p.stdout_max).contains(&n);
    let mut good = expected
        .placements
        .iter()
        .all(|p| covering(&actual.placements, p.stderr_at).is_some_and(|a| fits(p, a.stdout_min)));
    good &= actual.placements.iter().all(|a| {
        covering(&expected.placements, a.stderr_at).is_some_and(|p| fits(p, a.stdout_min))
    });
    if good {
        return Ok(());
    }
    Err(Box::new(Mismatch {
        tool,
        variant: variant.to_string(),
        stream: Stream::Order,
        expected: render(&expected.stderr, &expected.placements, None),
        actual: render(
            &actual.stderr,
            &expected.placements,
            Some(&actual.placements),
        ),
        reproducer: reproducer(),
    }))
}

/// One line per spec diagnostic: its first line, and after how many stdout
/// bytes it was (or is to be) written.  A diagnostic the implementation
/// placed within the spec's range is shown as the spec shows it, so the
/// diff marks only the misplaced ones.
fn render(stderr: &[u8], spec: &[Placement], actual: Option<&[Placement]>) -> Vec<u8> {
    let mut out = String::new();
    for (i, p) in spec.iter().enumerate() {
        let end = spec.get(i + 1).map_or(stderr.len(), |q| q.stderr_at);
        let text = String::from_utf8_lossy(&stderr[p.stderr_at.min(end)..end]);
        let first = text.lines().next().unwrap_or_default();
        let range = if p.stdout_min == p.stdout_max {
            format!("{}", p.stdout_min)
        } else {
            format!("{}..={}", p.stdout_min, p.stdout_max)
        };
        let place = match actual.map(|a| covering(a, p.stderr_at)) {
            None => range,
            Some(None) => "never".to_string(),
            Some(Some(a)) if (p.stdout_min..=p.stdout_max).contains(&a.stdout_min) => range,
            Some(Some(a)) => a.stdout_min.to_string(),
        };
        out.push_str(&format!("after {place} stdout bytes: {first}\n"));
    }
    out.into_bytes()
}

/// Is `combined` (what one descriptor got as both stdout and stderr) what
/// `spec` allows: its stdout with each diagnostic written at a place its
/// placement allows?  For checking the placements themselves against GNU.
pub fn fits_combined(spec: &Outcome, combined: &[u8]) -> bool {
    fn from(spec: &Outcome, i: usize, stdout_at: usize, combined: &[u8]) -> bool {
        let Some(p) = spec.placements.get(i) else {
            return combined == &spec.stdout[stdout_at..];
        };
        let end = spec
            .placements
            .get(i + 1)
            .map_or(spec.stderr.len(), |q| q.stderr_at);
        let text = &spec.stderr[p.stderr_at..end];
        let last = p.stdout_max.min(spec.stdout.len());
        (p.stdout_min.max(stdout_at)..=last).any(|k| {
            let piece = &spec.stdout[stdout_at..k];
            combined.starts_with(piece)
                && combined[piece.len()..].starts_with(text)
                && from(spec, i + 1, k, &combined[piece.len() + text.len()..])
        })
    }
    from(spec, 0, 0, combined)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_outcome() -> Outcome {
        let mut o = Outcome::default();
        o.stdout.extend_from_slice(b"one\n");
        o.diagnose(b"tool: a: Input/output error\n");
        o.stdout.extend_from_slice(b"two\n");
        o.diagnose_between(b"tool: b: Input/output error\n", 4, 8);
        o
    }

    fn run(writes: &[(bool, &[u8])]) -> Outcome {
        let (mut out, mut err) = sinks();
        for &(to_stderr, bytes) in writes {
            if to_stderr {
                err.write_all(bytes).unwrap();
            } else {
                out.write_all(bytes).unwrap();
            }
        }
        err.outcome(0)
    }

    #[test]
    fn a_diagnostic_in_its_place_or_range_passes_and_out_of_it_fails() {
        let spec = spec_outcome();
        let a: &[u8] = b"tool: a: Input/output error\n";
        let b: &[u8] = b"tool: b: Input/output error\n";
        let repro = || "r".to_string();
        for (writes, ok) in [
            (
                vec![
                    (false, &b"one\n"[..]),
                    (true, a),
                    (false, b"two\n"),
                    (true, b),
                ],
                true,
            ),
            (
                vec![
                    (false, &b"one\n"[..]),
                    (true, a),
                    (true, b),
                    (false, b"two\n"),
                ],
                true,
            ),
            (
                vec![
                    (true, a),
                    (false, &b"one\n"[..]),
                    (false, b"two\n"),
                    (true, b),
                ],
                false,
            ),
            (
                vec![(false, &b"one\ntwo\n"[..]), (true, a), (true, b)],
                false,
            ),
            // Stdout grows in the middle of a diagnostic.
            (
                vec![
                    (false, &b"one\n"[..]),
                    (true, &a[..5]),
                    (false, b"two\n"),
                    (true, &a[5..]),
                    (true, b),
                ],
                false,
            ),
        ] {
            let actual = run(&writes);
            assert_eq!(actual.stderr, spec.stderr);
            let result = compare("t", "v", &spec, &actual, &repro);
            assert_eq!(result.is_ok(), ok, "{writes:?}");
            let combined: Vec<u8> = writes.iter().flat_map(|w| w.1.iter().copied()).collect();
            assert_eq!(fits_combined(&spec, &combined), ok, "{writes:?}");
        }
    }
}
