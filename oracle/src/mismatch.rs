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
        };
        writeln!(f, "{} mismatch in {which} ({})", self.tool, self.variant)?;
        if matches!(
            self.stream,
            Stream::Status | Stream::StdinOffset | Stream::Order | Stream::Retries
        ) || (looks_textual(&self.expected) && looks_textual(&self.actual))
        {
            let expected = String::from_utf8_lossy(&self.expected);
            let actual = String::from_utf8_lossy(&self.actual);
            let diff = similar::TextDiff::from_lines(expected.as_ref(), actual.as_ref());
            write!(
                f,
                "{}",
                diff.unified_diff().context_radius(3).header("spec", "impl")
            )?;
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
