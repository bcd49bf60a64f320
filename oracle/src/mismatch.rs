//! A disagreement between the spec and the implementation, rendered for a
//! human: a unified diff for text, a hex window around the first differing
//! byte for binary data, and a one-line reproducer.

use std::fmt;

/// Which output differed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
    Status,
    /// Where an inherited regular stdin was left.
    StdinOffset,
    /// Where the diagnostics fall among the stdout bytes.
    Order,
    /// How many hard failures the binary met again on a descriptor that
    /// had already failed (the layer's `FailedAgain`): a silent retry.
    Retries,
    /// What had been written, and whether the run had exited, when its
    /// stdin paused (`crate::live`).
    Pause,
}

#[derive(Clone, Debug)]
pub struct Mismatch {
    pub tool: &'static str,
    /// Which run of the implementation disagreed (path and sizes).
    pub variant: String,
    pub stream: Stream,
    pub expected: Vec<u8>,
    pub actual: Vec<u8>,
    /// A command that replays the case: `samebytes-oracle replay ...`.
    pub reproducer: String,
}

impl Mismatch {
    /// Compare one output stream; `None` when equal.
    pub fn compare(
        tool: &'static str,
        variant: &str,
        stream: Stream,
        expected: &[u8],
        actual: &[u8],
        reproducer: &dyn Fn() -> String,
    ) -> Option<Mismatch> {
        (expected != actual).then(|| Mismatch {
            tool,
            variant: variant.to_string(),
            stream,
            expected: expected.to_vec(),
            actual: actual.to_vec(),
            reproducer: reproducer(),
        })
    }
}

/// Compare two whole outcomes: stdout, then stderr, then status.
pub fn compare_outcomes(
    tool: &'static str,
    variant: &str,
    expected: &samebytes_spec::Outcome,
    actual: &samebytes_spec::Outcome,
    reproducer: &dyn Fn() -> String,
) -> Result<(), Box<Mismatch>> {
    let (es, as_) = (expected.status.to_string(), actual.status.to_string());
    for (stream, e, a) in [
        (Stream::Stdout, &expected.stdout[..], &actual.stdout[..]),
        (Stream::Stderr, &expected.stderr[..], &actual.stderr[..]),
        (Stream::Status, es.as_bytes(), as_.as_bytes()),
    ] {
        if let Some(m) = Mismatch::compare(tool, variant, stream, e, a, reproducer) {
            return Err(Box::new(m));
        }
    }
    Ok(())
}

/// [`compare_outcomes`], then the order of the two streams: for runs whose
/// writes were recorded in one place (the in-process drivers).
pub fn compare_in_order(
    tool: &'static str,
    variant: &str,
    expected: &samebytes_spec::Outcome,
    actual: &samebytes_spec::Outcome,
    reproducer: &dyn Fn() -> String,
) -> Result<(), Box<Mismatch>> {
    compare_outcomes(tool, variant, expected, actual, reproducer)?;
    crate::order::compare(tool, variant, expected, actual, reproducer)
}

fn looks_textual(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes)
        .is_ok_and(|s| s.chars().all(|c| c == '\n' || c == '\t' || !c.is_control()))
}

/// Lines of context kept on each side of what differs.
const CONTEXT_LINES: usize = 3;

/// A report shows this much of a diff at most.
const DIFF_LINES_SHOWN: usize = 200;

/// `expected` and `actual` without the whole lines they share at the start
/// and at the end (but for `CONTEXT_LINES` of each), and how many bytes
/// were left out before and after: multi-MiB outputs that differ in one
/// place (yes's, a cat of a large file) are diffed over that place only.
fn differing_lines<'a>(expected: &'a [u8], actual: &'a [u8]) -> (usize, &'a [u8], &'a [u8], usize) {
    let common = expected
        .iter()
        .zip(actual)
        .take_while(|(e, a)| e == a)
        .count();
    let line_starts = expected[..common]
        .iter()
        .enumerate()
        .rev()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1);
    let before = line_starts.clone().nth(CONTEXT_LINES).unwrap_or(0);
    let (e, a) = (&expected[before..], &actual[before..]);
    let common_end = e
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(e.len().min(a.len()));
    // Cut the shared tail just after a newline, CONTEXT_LINES + 1 newlines
    // into it, so whole lines of context stay.
    let tail = &e[e.len() - common_end..];
    let after = tail
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(CONTEXT_LINES)
        .map_or(0, |(i, _)| common_end - (i + 1));
    (before, &e[..e.len() - after], &a[..a.len() - after], after)
}

/// 16 bytes a row, with offsets, around `at`.
fn hex_window(bytes: &[u8], at: usize) -> String {
    let start = at.saturating_sub(32) & !15;
    let end = (at + 48).min(bytes.len());
    let mut out = String::new();
    let mut row = start;
    while row < end {
        out.push_str(&format!("  {row:08x} "));
        for (i, byte) in bytes.iter().enumerate().take((row + 16).min(end)).skip(row) {
            let mark = if i == at { '>' } else { ' ' };
            out.push_str(&format!("{mark}{byte:02x}"));
        }
        out.push('\n');
        row += 16;
    }
    if start >= end {
        out.push_str(&format!("  (ends at {} bytes)\n", bytes.len()));
    }
    out
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let which = match self.stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
            Stream::Status => "exit status",
            Stream::StdinOffset => "stdin offset",
            Stream::Order => "the order of stdout and stderr",
            Stream::Retries => "hard failures met again on one descriptor (a retry)",
            Stream::Pause => "what was written by a pause of stdin",
        };
        writeln!(f, "{} mismatch in {which} ({})", self.tool, self.variant)?;
        if matches!(
            self.stream,
            Stream::Status | Stream::StdinOffset | Stream::Order | Stream::Retries | Stream::Pause
        ) || (looks_textual(&self.expected) && looks_textual(&self.actual))
        {
            let (before, e, a, after) = differing_lines(&self.expected, &self.actual);
            if before + after > 0 {
                writeln!(
                    f,
                    "(the diff leaves out {before} bytes the two share before it and {after} after)"
                )?;
            }
            let expected = String::from_utf8_lossy(e);
            let actual = String::from_utf8_lossy(a);
            // Myers is quadratic in the worst case; past the timeout it
            // gives a coarser diff, still correct, instead of none.
            let diff = similar::TextDiff::configure()
                .timeout(std::time::Duration::from_secs(2))
                .diff_lines(expected.as_ref(), actual.as_ref());
            let text = diff
                .unified_diff()
                .context_radius(CONTEXT_LINES)
                .header("spec", "impl")
                .to_string();
            let mut lines = text.split_inclusive('\n');
            for line in lines.by_ref().take(DIFF_LINES_SHOWN) {
                f.write_str(line)?;
            }
            let more = lines.count();
            if more > 0 {
                writeln!(f, "(and {more} more lines of diff)")?;
            }
        } else {
            let at = self
                .expected
                .iter()
                .zip(&self.actual)
                .position(|(a, b)| a != b)
                .unwrap_or(self.expected.len().min(self.actual.len()));
            writeln!(
                f,
                "first difference at byte {at} (spec {} bytes, impl {} bytes)",
                self.expected.len(),
                self.actual.len()
            )?;
            writeln!(f, "spec:\n{}", hex_window(&self.expected, at))?;
            writeln!(f, "impl:\n{}", hex_window(&self.actual, at))?;
        }
        writeln!(f, "reproduce: {}", self.reproducer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(expected: &[u8], actual: &[u8]) -> String {
        Mismatch::compare("yes", "v", Stream::Stdout, expected, actual, &|| "r".into())
            .expect("they differ")
            .to_string()
    }

    /// Megabytes of identical lines around one difference: the report
    /// shows that difference with three lines of context a side, and says
    /// how much it left out.
    #[test]
    fn a_large_output_is_diffed_only_where_it_differs() {
        let line = b"y\n";
        let expected = line.repeat(4 << 20);
        let mut actual = expected.clone();
        actual.splice(2_000_000..2_000_002, *b"n\n");
        let text = report(&expected, &actual);
        let removed = text.lines().filter(|l| *l == "-y").count();
        let added: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .collect();
        let context = text.lines().filter(|l| *l == " y").count();
        assert_eq!((removed, added, context), (1, vec!["+n"], 6), "{text}");
        let (before, after) = (2_000_000 - 6, expected.len() - 2_000_002 - 6);
        assert!(
            text.contains(&format!(
                "leaves out {before} bytes the two share before it and {after} after"
            )),
            "{text}"
        );
    }

    /// An output cut short by megabytes: the diff is cut to what a reader
    /// can use, and says how much more there was.
    #[test]
    fn a_long_one_sided_diff_is_cut_short() {
        let expected = b"y\n".repeat(1 << 20);
        let actual = b"y\n".repeat(1000);
        let text = report(&expected, &actual);
        assert!(
            text.lines().count() < DIFF_LINES_SHOWN + 10,
            "{} lines",
            text.lines().count()
        );
        // Two header lines, a hunk header, three lines of context, then one
        // deletion a missing line.
        let more = 2 + 1 + 3 + ((1 << 20) - 1000) - DIFF_LINES_SHOWN;
        assert!(
            text.contains(&format!("(and {more} more lines of diff)")),
            "{text}"
        );
    }
}
