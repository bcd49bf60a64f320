//! A time-boxed randomized campaign over every tool.

use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::binary::Tool;
use crate::mismatch::Mismatch;

/// What a campaign found for one tool.
#[derive(Debug, Default)]
pub struct ToolReport {
    pub tool: &'static str,
    pub cases: u64,
    pub bytes_pushed: u64,
    /// grep: cases where an input outgrew the stream buffer (a refill
    /// with carry-over), and where one reached past the 32 KiB probe.
    pub refilled: Option<u64>,
    pub past_probe: Option<u64>,
    pub mismatches: Vec<Mismatch>,
}

/// Run each named tool's generator and driver for `per_tool` wall time,
/// from a seed (so a campaign can be repeated). The tools run in the order
/// wc, cat, yes, grep whatever order they were named in, so one seed draws
/// the same cases for a tool whichever others run beside it only when the
/// tools before it are the same.
pub fn run(tools: &[Tool], per_tool: Duration, seed: u64) -> Vec<ToolReport> {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let mut reports = Vec::new();
    for tool in [Tool::Wc, Tool::Cat, Tool::Yes, Tool::Grep] {
        if !tools.contains(&tool) {
            continue;
        }
        let runner = &mut runner;
        reports.push(match tool {
            Tool::Wc => campaign_one(
                "wc",
                runner,
                per_tool,
                crate::wc::wc_case(),
                |case| case.input_bytes() * crate::wc::variants(case).len() as u64,
                crate::wc::check_wc,
            ),
            Tool::Cat => campaign_one(
                "cat",
                runner,
                per_tool,
                crate::cat::cat_case(),
                |case| case.input_bytes() * crate::cat::variants(case).len() as u64,
                crate::cat::check_cat,
            ),
            Tool::Yes => campaign_one(
                "yes",
                runner,
                per_tool,
                crate::yes::yes_case(),
                |case| case.limit as u64 * crate::yes::variants(case).len() as u64,
                crate::yes::check_yes,
            ),
            Tool::Grep => {
                let (refilled, past_probe) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
                let mut report = campaign_one(
                    "grep",
                    runner,
                    per_tool,
                    crate::grep::grep_case(),
                    |case| {
                        refilled.set(refilled.get() + u64::from(case.crosses_refill()));
                        past_probe.set(past_probe.get() + u64::from(case.passes_probe()));
                        case.input_bytes()
                    },
                    crate::grep::check_grep,
                );
                report.refilled = Some(refilled.get());
                report.past_probe = Some(past_probe.get());
                report
            }
        });
    }
    reports
}

/// One tool's share of a campaign: generate cases until the deadline, and
/// keep the first few mismatches.
fn campaign_one<S: Strategy>(
    tool: &'static str,
    runner: &mut TestRunner,
    per_tool: Duration,
    strategy: S,
    bytes_pushed: impl Fn(&S::Value) -> u64,
    check: impl Fn(&S::Value) -> Result<(), Box<Mismatch>>,
) -> ToolReport {
    let mut report = ToolReport {
        tool,
        ..ToolReport::default()
    };
    let deadline = Instant::now() + per_tool;
    while Instant::now() < deadline {
        let Ok(tree) = strategy.new_tree(runner) else {
            continue;
        };
        let case = tree.current();
        report.cases += 1;
        // Every case runs through each implementation variant.
        report.bytes_pushed += bytes_pushed(&case);
        if let Err(m) = check(&case) {
            if report.mismatches.len() < 5 {
                report.mismatches.push(*m);
            }
        }
    }
    report
}

/// The campaign report as a table, then each mismatch in full.
pub fn render(reports: &[ToolReport], per_tool: Duration, seed: u64) -> String {
    let mut out = format!(
        "samebytes differential campaign: {}s per tool, seed {seed}\n\n",
        per_tool.as_secs()
    );
    out.push_str(&format!(
        "{:<6} {:>10} {:>16} {:>11}\n",
        "tool", "cases", "bytes pushed", "mismatches"
    ));
    for r in reports {
        out.push_str(&format!(
            "{:<6} {:>10} {:>16} {:>11}\n",
            r.tool,
            r.cases,
            r.bytes_pushed,
            r.mismatches.len()
        ));
    }
    for r in reports {
        let percent = |n: u64| 100.0 * n as f64 / r.cases.max(1) as f64;
        if let (Some(refilled), Some(past)) = (r.refilled, r.past_probe) {
            out.push_str(&format!(
                "\n{}: {:.1} % of cases outgrow the stream buffer (refill, carry-over), \
                 {:.1} % reach past the 32 KiB binary probe\n",
                r.tool,
                percent(refilled),
                percent(past)
            ));
        }
    }
    for r in reports {
        for m in &r.mismatches {
            out.push_str(&format!("\n{m}"));
        }
    }
    out
}
