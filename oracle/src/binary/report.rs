//! The binary campaign's loop and its report: per tool, the cases run and
//! mismatches found, and a table of kernel path × fault kind giving how
//! many cases took each path and how many of those met each fault.

use super::{check, generate, Binaries, BinaryCase, Tool};
use crate::campaign::engine::{self, Finished, Lane, Progress, Tally};
use crate::campaign::Settings;
use crate::campaign::{pause_table, PauseTally};
use crate::faultplan::{Counts, Kind, Outcome};
use crate::mismatch::Mismatch;

/// The fault kinds of the table's columns.
pub const FAULTS: [Outcome; 6] = [
    Outcome::Short,
    Outcome::Eintr,
    Outcome::Refused,
    Outcome::InputFailed,
    Outcome::OutputFailed,
    Outcome::Sigbus,
];

/// The paths each tool's binary takes, with the faults that apply to each:
/// every one of these cells must be met by some case.
pub fn applicable(tool: Tool) -> &'static [(Kind, &'static [Outcome])] {
    use Outcome::*;
    // A read fails on its input, a write on its output, and a kernel copy
    // on either end; an open fails with EACCES (in-fail); closing stdout
    // at exit fails as NFS's does (out-fail); a file's `stat` fails with
    // EIO though it reads (in-fail); a pipe of the tool's own, a
    // pipe size asked, FIONREAD and the hints are refused (the output must
    // not change).
    const INPUT: &[Outcome] = &[Short, Eintr, InputFailed];
    const OUTPUT: &[Outcome] = &[Short, Eintr, OutputFailed];
    const COPY: &[Outcome] = &[Short, Eintr, Refused, InputFailed, OutputFailed];
    match tool {
        Tool::Wc => &[
            (Kind::Open, &[InputFailed]),
            (Kind::Read, INPUT),
            (Kind::Pread, INPUT),
            (Kind::MmapFile, &[Refused, Sigbus]),
            (Kind::Splice, &[Short, Eintr, Refused]),
            (Kind::SetPipeSize, &[Refused]),
            (Kind::Write, OUTPUT),
            (Kind::Close, &[OutputFailed]),
            (Kind::GetPipeSize, &[Refused]),
            (Kind::Advise, &[Refused]),
            (Kind::Stat, &[InputFailed]),
        ],
        Tool::Cat => &[
            (Kind::Open, &[InputFailed]),
            (Kind::Read, INPUT),
            (Kind::Write, OUTPUT),
            (Kind::CopyFileRange, COPY),
            (Kind::Splice, COPY),
            (Kind::SpliceOwnPipe, COPY),
            (Kind::SetPipeSize, &[Refused]),
            (Kind::Close, &[OutputFailed]),
            (Kind::Pipe, &[Refused]),
            (Kind::GetPipeSize, &[Refused]),
            (Kind::Fionread, &[Refused]),
            (Kind::Advise, &[Refused]),
            (Kind::Stat, &[InputFailed]),
        ],
        Tool::Grep => &[
            (Kind::Open, &[InputFailed]),
            (Kind::Getdents, &[InputFailed]),
            (Kind::Read, INPUT),
            (Kind::MmapFile, &[Refused, Sigbus]),
            (Kind::SetPipeSize, &[Refused]),
            (Kind::Write, OUTPUT),
            (Kind::Close, &[OutputFailed]),
            (Kind::GetPipeSize, &[Refused]),
            // fstatfs is asked only of a directory of more than 10,000
            // entries, which no case builds: `grep_tree_gnu`'s big
            // directories refuse it instead.
            (Kind::Stat, &[InputFailed]),
        ],
        Tool::Yes => &[
            // The page buffer's own mapping, denied (ENOMEM): yes goes on
            // with a small buffer, as GNU's does.
            (Kind::MmapAnon, &[Refused]),
            (Kind::Vmsplice, &[Short, Eintr, Refused, OutputFailed]),
            (Kind::SetPipeSize, &[Refused]),
            (Kind::Write, OUTPUT),
            (Kind::GetPipeSize, &[Refused]),
            (Kind::Advise, &[Refused]),
        ],
    }
}

/// One tool's share of a campaign.
#[derive(Debug)]
pub struct ToolReport {
    pub tool: Tool,
    pub cases: u64,
    pub mismatches: Vec<Mismatch>,
    /// Per applicable path: cases that took it, and per fault column how
    /// many of those met it.
    pub paths: Vec<(Kind, u64, [u64; FAULTS.len()])>,
    /// The live runs (`super::live_check::campaign_case`).
    pub live: PauseTally,
}

/// One case's end: a run under the fault layer with its counts, or a live
/// run with the pauses it checked.
pub enum CaseDone {
    Faulted(Counts, Result<(), Box<Mismatch>>),
    Live(Result<usize, Box<Mismatch>>),
}

/// Run case `index` of `tool` from `seed`: live on its turn, when a live
/// case can be drawn; else under the fault layer.  Under memcheck no case
/// runs live: its pauses are timed, and valgrind is slow.
fn run_case(bins: &Binaries, tool: Tool, seed: u64, index: u64) -> CaseDone {
    if bins.memcheck.is_none() && super::live_check::live_turn(tool, index) {
        match super::live_check::campaign_case(bins, tool, seed, index) {
            Ok(Some(pauses)) => return CaseDone::Live(Ok(pauses)),
            Ok(None) => {}
            Err(m) => return CaseDone::Live(Err(m)),
        }
    }
    let (counts, result) = check(&case_of(tool, seed, index), bins);
    CaseDone::Faulted(counts, result)
}

impl ToolReport {
    fn new(tool: Tool) -> ToolReport {
        ToolReport {
            tool,
            cases: 0,
            mismatches: Vec::new(),
            paths: applicable(tool)
                .iter()
                .map(|(k, _)| (*k, 0, [0; FAULTS.len()]))
                .collect(),
            live: PauseTally::default(),
        }
    }

    /// Run the next case of the campaign from `seed`, and record it.
    fn run_next(&mut self, bins: &Binaries, seed: u64) {
        let done = run_case(bins, self.tool, seed, self.cases);
        self.add(done);
    }

    fn record(&mut self, counts: &Counts) {
        for (kind, took, met) in &mut self.paths {
            if counts.get(*kind, Outcome::Calls) == 0 {
                continue;
            }
            *took += 1;
            for (cell, fault) in met.iter_mut().zip(FAULTS) {
                *cell += u64::from(counts.get(*kind, fault) > 0);
            }
        }
    }

    /// The paths no case took at all.
    pub fn paths_not_taken(&self) -> Vec<&'static str> {
        self.paths
            .iter()
            .filter(|(_, took, _)| *took == 0)
            .map(|(k, _, _)| k.name())
            .collect()
    }

    /// The applicable (path, fault) cells no case reached.
    pub fn unreached(&self) -> Vec<String> {
        let mut out = Vec::new();
        for ((kind, faults), (_, took, met)) in applicable(self.tool).iter().zip(&self.paths) {
            if *took == 0 {
                out.push(format!(
                    "{} {}: no case took it",
                    self.tool.name(),
                    kind.name()
                ));
                continue;
            }
            for fault in *faults {
                let i = FAULTS.iter().position(|f| f == fault).expect("a column");
                if met[i] == 0 {
                    out.push(format!(
                        "{} {} x {}: never met",
                        self.tool.name(),
                        kind.name(),
                        fault.name()
                    ));
                }
            }
        }
        out
    }
}

/// Case `index` of `tool` in the campaign from `seed`.
fn case_of(tool: Tool, seed: u64, index: u64) -> BinaryCase {
    generate(tool, seed.wrapping_mul(1_000_003).wrapping_add(index))
}

impl Tally for ToolReport {
    type Case = CaseDone;

    fn add(&mut self, done: CaseDone) -> Option<String> {
        self.cases += 1;
        let result = match done {
            CaseDone::Faulted(counts, result) => {
                self.record(&counts);
                result
            }
            CaseDone::Live(result) => {
                let checked = *result.as_ref().unwrap_or(&0) as u64;
                self.live.add(checked, result.is_err());
                result.map(|_| ())
            }
        };
        let m = result.err()?;
        let line = format!(
            "{}: mismatch in {:?} ({}): {}",
            self.tool.name(),
            m.stream,
            m.variant,
            m.reproducer
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

/// Run the binary campaign: each named tool's cases under the fault layer,
/// on `settings.jobs` threads, for `settings.seconds` in all.
pub fn campaign(bins: &Binaries, settings: &Settings, progress: &Progress) -> Finished<ToolReport> {
    let seed = settings.seed;
    let lanes = settings
        .tools
        .iter()
        .map(|&tool| Lane {
            name: tool.name(),
            tally: ToolReport::new(tool),
            run: Box::new(move |i| run_case(bins, tool, seed, i)),
        })
        .collect();
    engine::run(lanes, settings.seconds, settings.jobs, progress)
}

/// Run `tool`'s cases from `seed` until every applicable cell has been
/// met, a case mismatches, or `max_cases` have run: the bounded campaign
/// of `cargo test`, which then asserts that nothing was left unreached.
pub fn until_every_cell(bins: &Binaries, tool: Tool, seed: u64, max_cases: u64) -> ToolReport {
    let mut report = ToolReport::new(tool);
    while report.cases < max_cases && report.mismatches.is_empty() {
        report.run_next(bins, seed);
        if report.unreached().is_empty() {
            break;
        }
    }
    report
}

/// The reports as text: a summary row per tool, the path × fault tables,
/// the unreached cells, then each mismatch in full.
pub fn render(done: &Finished<ToolReport>, settings: &Settings) -> String {
    let reports: Vec<&ToolReport> = done.tallies.iter().map(|(_, t)| t).collect();
    let mut out = format!(
        "samebytes binary campaign: release binaries under the fault layer, {}\n\n",
        settings.describe(done.elapsed, done.ending)
    );
    out.push_str(&format!(
        "{:<6} {:>8} {:>11}\n",
        "tool", "cases", "mismatches"
    ));
    for r in &reports {
        out.push_str(&format!(
            "{:<6} {:>8} {:>11}\n",
            r.tool.name(),
            r.cases,
            r.mismatches.len()
        ));
    }
    for r in &reports {
        out.push_str(&format!(
            "\n{}: cases that took each path, and how many of those met each fault\n",
            r.tool.name()
        ));
        out.push_str(&format!("| {:<16} | {:>6} |", "path", "cases"));
        for f in FAULTS {
            out.push_str(&format!(" {:>8} |", f.name()));
        }
        out.push('\n');
        out.push_str(&format!("|{}|{}|", "-".repeat(18), "-".repeat(8)));
        for _ in FAULTS {
            out.push_str(&format!("{}|", "-".repeat(10)));
        }
        out.push('\n');
        for ((kind, faults), (_, took, met)) in applicable(r.tool).iter().zip(&r.paths) {
            out.push_str(&format!("| {:<16} | {:>6} |", kind.name(), took));
            for (f, n) in FAULTS.iter().zip(met) {
                let cell = if faults.contains(f) {
                    n.to_string()
                } else {
                    "n/a".into()
                };
                out.push_str(&format!(" {cell:>8} |"));
            }
            out.push('\n');
        }
    }
    let live: Vec<_> = reports.iter().map(|r| (r.tool.name(), r.live)).collect();
    out.push_str(&pause_table(
        "live runs: a pipe written burst by burst, ",
        &live,
    ));
    let unreached: Vec<String> = reports.iter().flat_map(|r| r.unreached()).collect();
    if !unreached.is_empty() {
        out.push_str("\nUnreached (paths not taken fail every campaign; cells not met fail a --strict one):\n");
        for u in &unreached {
            out.push_str(&format!("  {u}\n"));
        }
    }
    for r in &reports {
        for m in &r.mismatches {
            out.push_str(&format!("\n{m}"));
        }
    }
    out
}

/// The binary campaign's report for `--report`.
pub fn summary(
    done: &Finished<ToolReport>,
    settings: &Settings,
) -> crate::campaign::report::Summary {
    use crate::campaign::report::{MismatchSummary, PathRow, Summary, ToolSummary};
    let mut s = Summary::new(
        "binaries",
        settings,
        done.elapsed.as_secs_f64(),
        done.ending,
    );
    for (_, r) in &done.tallies {
        let paths = applicable(r.tool)
            .iter()
            .zip(&r.paths)
            .map(|((kind, faults), (_, took, met))| PathRow {
                path: kind.name(),
                cases: *took,
                faults: FAULTS
                    .iter()
                    .zip(met)
                    .map(|(f, n)| (f.name(), faults.contains(f).then_some(*n)))
                    .collect(),
            })
            .collect();
        s.tools.push(ToolSummary {
            name: r.tool.name(),
            cases: r.cases,
            mismatch_count: r.mismatches.len(),
            bytes_pushed: None,
            notes: r
                .unreached()
                .into_iter()
                .chain((r.live.cases > 0).then(|| r.live.note()))
                .collect(),
            paths,
            mismatches: r.mismatches.iter().map(MismatchSummary::of).collect(),
        });
    }
    s
}
