//! A time-boxed randomized campaign over every tool, on every core
//! ([`engine`]), with a report as text, JSON or Markdown ([`report`]).

pub mod engine;
pub mod report;

use std::time::Duration;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::binary::Tool;
use crate::mismatch::Mismatch;
pub use engine::{Ending, Finished, Lane, Progress};

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
    /// The pauses of stdin checked (`crate::live`).
    pub pauses: PauseTally,
    pub mismatches: Vec<Mismatch>,
}

/// Pauses of stdin a campaign checked for one tool: the cases whose stdin
/// paused, the pauses checked in them, and the mismatches found at one.
#[derive(Clone, Copy, Debug, Default)]
pub struct PauseTally {
    pub cases: u64,
    pub checked: u64,
    pub mismatches: u64,
}

impl PauseTally {
    /// One case's: the pauses it checked, or its mismatch.
    pub fn add(&mut self, checked: u64, mismatch_at_pause: bool) {
        self.cases += 1;
        self.checked += checked;
        self.mismatches += u64::from(mismatch_at_pause);
    }

    /// For a report's notes.
    pub fn note(&self) -> String {
        format!(
            "pauses of stdin: {} cases with pauses, {} pauses checked, {} mismatches",
            self.cases, self.checked, self.mismatches
        )
    }
}

/// A row per tool whose cases paused: what had been written, and whether
/// the run had exited, checked at each pause of stdin (`how`: where).
pub(crate) fn pause_table(how: &str, rows: &[(&str, PauseTally)]) -> String {
    let rows: Vec<_> = rows.iter().filter(|(_, p)| p.cases > 0).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\npauses of stdin ({how}output and exit checked at each):\n{:<6} {:>17} {:>15} {:>11}\n",
        "tool", "cases with pauses", "pauses checked", "mismatches"
    );
    for (tool, p) in rows {
        out.push_str(&format!(
            "{:<6} {:>17} {:>15} {:>11}\n",
            tool, p.cases, p.checked, p.mismatches
        ));
    }
    out
}

/// What a campaign is asked to do.
#[derive(Clone, Debug)]
pub struct Settings {
    pub tools: Vec<Tool>,
    /// The whole campaign's wall time, shared out between the tools.
    pub seconds: Duration,
    /// Worker threads.
    pub jobs: usize,
    pub seed: u64,
}

impl Settings {
    /// The header line of a report: what ran, for how long, on how many
    /// jobs, from which seed, and whether Ctrl-C cut it short.
    pub fn describe(&self, elapsed: Duration, ending: Ending) -> String {
        format!(
            "{:.1}s of {}s on {} job{}, seed {}{}",
            elapsed.as_secs_f64(),
            self.seconds.as_secs(),
            self.jobs,
            if self.jobs == 1 { "" } else { "s" },
            self.seed,
            if ending == Ending::Interrupted {
                ", interrupted (Ctrl-C): the cases finished before it"
            } else {
                ""
            }
        )
    }
}

/// The number of jobs when none is asked for: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One case's result in the in-process campaign.
pub struct CaseResult {
    pub bytes_pushed: u64,
    /// grep only: did an input outgrow the stream buffer, reach past the
    /// binary probe?
    pub refilled: bool,
    pub past_probe: bool,
    /// The case's stdin pauses; how many pauses were checked.
    pub paused: bool,
    pub pauses_checked: u64,
    pub mismatch: Option<Box<Mismatch>>,
}

impl engine::Tally for ToolReport {
    type Case = CaseResult;

    fn add(&mut self, case: CaseResult) -> Option<String> {
        self.cases += 1;
        self.bytes_pushed += case.bytes_pushed;
        if let (Some(r), Some(p)) = (&mut self.refilled, &mut self.past_probe) {
            *r += u64::from(case.refilled);
            *p += u64::from(case.past_probe);
        }
        if case.paused {
            let at_pause = case
                .mismatch
                .as_ref()
                .is_some_and(|m| m.stream == crate::mismatch::Stream::Pause);
            self.pauses.add(case.pauses_checked, at_pause);
        }
        let m = case.mismatch?;
        let line = format!(
            "{}: mismatch in {:?}: {}",
            self.tool, m.stream, m.reproducer
        );
        if self.mismatches.len() < 5 {
            self.mismatches.push(*m);
        }
        Some(line)
    }

    fn cases(&self) -> u64 {
        self.cases
    }

    fn mismatches(&self) -> usize {
        self.mismatches.len()
    }
}

/// The random source of case `index` of `tool`: a pure function of the
/// campaign seed, the tool and the index, so that a case is the same on
/// one job or many.
pub(crate) fn runner_for(seed: u64, tool: Tool, index: u64) -> TestRunner {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    seed_bytes[8..16].copy_from_slice(&(tool as u64).to_le_bytes());
    seed_bytes[16..24].copy_from_slice(&index.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    TestRunner::new_with_rng(Config::default(), rng)
}

/// What a case is, beside its outcome: grep's refill and probe, and
/// whether its stdin pauses.
#[derive(Clone, Copy, Default)]
struct Shape {
    refilled: bool,
    past_probe: bool,
    paused: bool,
}

/// Draw case `index` from `strategy` and check it; the check returns how
/// many pauses of stdin it checked.
fn one_case<S: Strategy>(
    strategy: &S,
    runner: &mut TestRunner,
    bytes_pushed: impl Fn(&S::Value) -> u64,
    shape: impl Fn(&S::Value) -> Shape,
    check: impl Fn(&S::Value) -> Result<usize, Box<Mismatch>>,
) -> CaseResult {
    // A strategy that rejects its draw (none of ours filter) is redrawn.
    let case = loop {
        if let Ok(tree) = strategy.new_tree(runner) {
            break tree.current();
        }
    };
    let shape = shape(&case);
    let checked = check(&case);
    CaseResult {
        // Every case runs through each implementation variant.
        bytes_pushed: bytes_pushed(&case),
        refilled: shape.refilled,
        past_probe: shape.past_probe,
        paused: shape.paused,
        pauses_checked: *checked.as_ref().unwrap_or(&0) as u64,
        mismatch: checked.err(),
    }
}

fn no_stats<T>(_: &T) -> Shape {
    Shape::default()
}

/// A check that has no pauses to count.
fn counting_none<T>(
    check: impl Fn(&T) -> Result<(), Box<Mismatch>>,
) -> impl Fn(&T) -> Result<usize, Box<Mismatch>> {
    move |case| check(case).map(|()| 0)
}

/// The lane of one tool: its cases, drawn and checked.
fn lane<'a>(tool: Tool, seed: u64) -> Lane<'a, ToolReport> {
    let grep = tool == Tool::Grep;
    let tally = ToolReport {
        tool: tool.name(),
        refilled: grep.then_some(0),
        past_probe: grep.then_some(0),
        ..ToolReport::default()
    };
    let run: Box<dyn Fn(u64) -> CaseResult + Sync> = match tool {
        Tool::Wc => Box::new(move |i| {
            one_case(
                &crate::wc::wc_case(),
                &mut runner_for(seed, tool, i),
                |case| case.input_bytes() * crate::wc::variants(case).len() as u64,
                no_stats::<_>,
                counting_none(crate::wc::check_wc),
            )
        }),
        Tool::Cat => Box::new(move |i| {
            one_case(
                &crate::cat::cat_case(),
                &mut runner_for(seed, tool, i),
                |case| case.input_bytes() * crate::cat::variants(case).len() as u64,
                |case| Shape {
                    paused: !case.world.stdin_pauses().is_empty(),
                    ..Shape::default()
                },
                crate::cat::check_cat_counting,
            )
        }),
        Tool::Yes => Box::new(move |i| {
            one_case(
                &crate::yes::yes_case(),
                &mut runner_for(seed, tool, i),
                |case| case.limit as u64 * crate::yes::variants(case).len() as u64,
                no_stats::<_>,
                counting_none(crate::yes::check_yes),
            )
        }),
        Tool::Grep => Box::new(move |i| {
            one_case(
                &crate::grep::grep_case(),
                &mut runner_for(seed, tool, i),
                |case| case.input_bytes(),
                |case| Shape {
                    refilled: case.crosses_refill(),
                    past_probe: case.passes_probe(),
                    paused: !case.world.stdin_pauses().is_empty(),
                },
                crate::grep::check_grep_counting,
            )
        }),
    };
    Lane {
        name: tool.name(),
        tally,
        run,
    }
}

/// Run the in-process campaign: each named tool's generator and driver,
/// on `settings.jobs` threads, for `settings.seconds` in all.
pub fn run(settings: &Settings, progress: &Progress) -> Finished<ToolReport> {
    let lanes = Tool::ALL
        .into_iter()
        .filter(|t| settings.tools.contains(t))
        .map(|t| lane(t, settings.seed))
        .collect();
    engine::run(lanes, settings.seconds, settings.jobs, progress)
}

/// The campaign report as a table, then each mismatch in full.
pub fn render(done: &Finished<ToolReport>, settings: &Settings) -> String {
    let reports: Vec<&ToolReport> = done.tallies.iter().map(|(_, t)| t).collect();
    let mut out = format!(
        "samebytes differential campaign: {}\n\n",
        settings.describe(done.elapsed, done.ending)
    );
    out.push_str(&format!(
        "{:<6} {:>10} {:>16} {:>11}\n",
        "tool", "cases", "bytes pushed", "mismatches"
    ));
    for r in &reports {
        out.push_str(&format!(
            "{:<6} {:>10} {:>16} {:>11}\n",
            r.tool,
            r.cases,
            r.bytes_pushed,
            r.mismatches.len()
        ));
    }
    for r in &reports {
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
    let pauses: Vec<_> = reports.iter().map(|r| (r.tool, r.pauses)).collect();
    out.push_str(&pause_table("", &pauses));
    for r in &reports {
        for m in &r.mismatches {
            out.push_str(&format!("\n{m}"));
        }
    }
    out
}

/// The in-process campaign's report for `--report`.
pub fn summary(done: &Finished<ToolReport>, settings: &Settings) -> report::Summary {
    let mut s = report::Summary::new(
        "in-process",
        settings,
        done.elapsed.as_secs_f64(),
        done.ending,
    );
    for (_, r) in &done.tallies {
        let percent = |n: u64| 100.0 * n as f64 / r.cases.max(1) as f64;
        let mut notes = match (r.refilled, r.past_probe) {
            (Some(refilled), Some(past)) => vec![format!(
                "{:.1} % of cases outgrow the stream buffer, {:.1} % reach past the 32 KiB binary probe",
                percent(refilled),
                percent(past)
            )],
            _ => Vec::new(),
        };
        if r.pauses.cases > 0 {
            notes.push(r.pauses.note());
        }
        s.tools.push(report::ToolSummary {
            name: r.tool,
            cases: r.cases,
            mismatch_count: r.mismatches.len(),
            bytes_pushed: Some(r.bytes_pushed),
            notes,
            paths: Vec::new(),
            mismatches: r
                .mismatches
                .iter()
                .map(report::MismatchSummary::of)
                .collect(),
        });
    }
    s
}
