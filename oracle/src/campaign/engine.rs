//! The campaign engine shared by the in-process and the binary campaigns:
//! `jobs` worker threads run cases of every tool ("lanes") until a wall
//! clock deadline or Ctrl-C, sharing the time out evenly between the
//! tools, while the calling thread shows progress.
//!
//! Invariants:
//! - Case `i` of a lane is a pure function of the campaign's seed and `i`,
//!   whatever the number of jobs: indices are handed out by one counter
//!   per lane, so a campaign of N cases per tool runs the same cases on
//!   one job or many.
//! - A worker picks the lane with the least busy time so far, so each tool
//!   gets about `seconds × jobs / tools` of worker time.
//! - A result that finishes after Ctrl-C is dropped: the interrupt reaches
//!   the binaries' process group too, and a case it killed is no mismatch.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a lane's results add up to.
pub trait Tally: Send {
    /// One case's result.
    type Case: Send;
    /// Record a case; returns a line to show at once (a mismatch's
    /// reproducer), so that a campaign cut short still names it.
    fn add(&mut self, case: Self::Case) -> Option<String>;
    fn cases(&self) -> u64;
    fn mismatches(&self) -> usize;
}

/// One tool's share: its name, its running tally, and the function that
/// runs its case `i`.
pub struct Lane<'a, T: Tally> {
    pub name: &'static str,
    pub tally: T,
    pub run: Box<dyn Fn(u64) -> T::Case + Sync + 'a>,
}

/// How a campaign ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Its time was up.
    Deadline,
    /// Ctrl-C: the report covers the cases finished before it.
    Interrupted,
}

/// A finished campaign: each lane's tally, how long it ran, how it ended.
pub struct Finished<T> {
    pub tallies: Vec<(&'static str, T)>,
    pub elapsed: Duration,
    pub ending: Ending,
}

/// Where progress goes: a terminal gets one line redrawn in place, four
/// times a second; anything else a line every `every`.
pub struct Progress {
    pub terminal: bool,
    pub every: Duration,
}

impl Progress {
    /// stderr as it is: a terminal or not.
    pub fn on_stderr() -> Progress {
        let terminal = std::io::stderr().is_terminal();
        Progress {
            terminal,
            every: if terminal {
                Duration::from_millis(250)
            } else {
                Duration::from_secs(5)
            },
        }
    }

    /// No progress at all (tests).
    pub fn silent() -> Progress {
        Progress {
            terminal: false,
            every: Duration::MAX,
        }
    }
}

struct Shared<'a, T: Tally> {
    lanes: Vec<(&'static str, Mutex<T>)>,
    runs: Vec<&'a (dyn Fn(u64) -> T::Case + Sync + 'a)>,
    next_index: Vec<AtomicU64>,
    busy_nanos: Vec<AtomicU64>,
    stop: AtomicBool,
}

/// Run `lanes` on `jobs` threads for `seconds` of wall time.
pub fn run<T: Tally>(
    lanes: Vec<Lane<'_, T>>,
    seconds: Duration,
    jobs: usize,
    progress: &Progress,
) -> Finished<T> {
    let start = Instant::now();
    let deadline = start + seconds;
    let (names_tallies, runs): (Vec<_>, Vec<_>) = lanes
        .into_iter()
        .map(|l| ((l.name, Mutex::new(l.tally)), l.run))
        .unzip();
    let shared = Shared {
        next_index: names_tallies.iter().map(|_| AtomicU64::new(0)).collect(),
        busy_nanos: names_tallies.iter().map(|_| AtomicU64::new(0)).collect(),
        lanes: names_tallies,
        runs: runs.iter().map(|r| &**r).collect(),
        stop: AtomicBool::new(false),
    };
    let interrupts = interrupt::arm();
    let on_line = Mutex::new(false);
    let mut printer = Printer::new(progress, start, seconds, &on_line);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| scope.spawn(|| work(&shared, deadline, interrupts, &on_line)))
            .collect();
        while workers.iter().any(|w| !w.is_finished()) {
            if interrupt::raised(interrupts) {
                shared.stop.store(true, Ordering::Relaxed);
            }
            printer.tick(&shared.lanes);
            std::thread::sleep(Duration::from_millis(50));
        }
        for w in workers {
            if let Err(panic) = w.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    printer.finish(&shared.lanes);
    let ending = if interrupt::raised(interrupts) {
        Ending::Interrupted
    } else {
        Ending::Deadline
    };
    interrupt::disarm();
    Finished {
        tallies: shared
            .lanes
            .into_iter()
            .map(|(n, t)| (n, t.into_inner().unwrap_or_else(|e| e.into_inner())))
            .collect(),
        elapsed: start.elapsed(),
        ending,
    }
}

fn work<T: Tally>(shared: &Shared<'_, T>, deadline: Instant, interrupts: u64, say: &Mutex<bool>) {
    let stopped = || shared.stop.load(Ordering::Relaxed) || interrupt::raised(interrupts);
    while !stopped() && Instant::now() < deadline {
        let lane = (0..shared.lanes.len())
            .min_by_key(|&i| shared.busy_nanos[i].load(Ordering::Relaxed))
            .expect("a campaign has a lane");
        let index = shared.next_index[lane].fetch_add(1, Ordering::Relaxed);
        let began = Instant::now();
        let case = (shared.runs[lane])(index);
        let took = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX);
        shared.busy_nanos[lane].fetch_add(took.max(1), Ordering::Relaxed);
        if stopped() {
            break;
        }
        let line = lock(&shared.lanes[lane].1).add(case);
        if let Some(line) = line {
            let mut on_line = lock(say);
            let clear = if *on_line { "\r\x1b[K" } else { "" };
            eprintln!("{clear}  {line}");
            *on_line = false;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker that panicked has already failed the campaign (its panic
    // is resumed on join); the tallies it leaves are still whole.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The progress line: elapsed and remaining time, then per tool its
/// cases, their rate and its mismatches.
struct Printer<'a> {
    terminal: bool,
    every: Duration,
    start: Instant,
    seconds: Duration,
    last: Instant,
    /// Is a progress line on the terminal, unfinished?  Workers that
    /// print a reproducer end it first.
    on_line: &'a Mutex<bool>,
}

impl<'a> Printer<'a> {
    fn new(
        p: &Progress,
        start: Instant,
        seconds: Duration,
        on_line: &'a Mutex<bool>,
    ) -> Printer<'a> {
        Printer {
            terminal: p.terminal,
            every: p.every,
            start,
            seconds,
            last: start,
            on_line,
        }
    }

    fn tick<T: Tally>(&mut self, lanes: &[(&'static str, Mutex<T>)]) {
        if self.last.elapsed() < self.every {
            return;
        }
        self.last = Instant::now();
        let line = status_line(lanes, self.start.elapsed(), self.seconds);
        let mut on_line = lock(self.on_line);
        if self.terminal {
            eprint!("\r\x1b[K{line}");
            *on_line = true;
        } else {
            eprintln!("{line}");
        }
    }

    fn finish<T: Tally>(&mut self, lanes: &[(&'static str, Mutex<T>)]) {
        let mut on_line = lock(self.on_line);
        if *on_line {
            let line = status_line(lanes, self.start.elapsed(), self.seconds);
            eprintln!("\r\x1b[K{line}");
            *on_line = false;
        }
    }
}

/// `[ 12s / 60s, 48s left] wc 1234 (103/s, 0 mismatches) | cat ...`
pub fn status_line<T: Tally>(
    lanes: &[(&'static str, Mutex<T>)],
    elapsed: Duration,
    seconds: Duration,
) -> String {
    let secs = elapsed.as_secs_f64().max(0.001);
    let left = seconds.saturating_sub(elapsed).as_secs();
    let tools: Vec<String> = lanes
        .iter()
        .map(|(name, tally)| {
            let t = lock(tally);
            format!(
                "{name} {} ({:.0}/s, {} mismatch{})",
                t.cases(),
                t.cases() as f64 / secs,
                t.mismatches(),
                if t.mismatches() == 1 { "" } else { "es" }
            )
        })
        .collect();
    format!(
        "[{:>4}s / {}s, {left}s left] {}",
        elapsed.as_secs(),
        seconds.as_secs(),
        tools.join(" | ")
    )
}

use crate::sys::interrupt;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Count {
        seen: Vec<u64>,
        bad: usize,
    }

    impl Tally for Count {
        type Case = (u64, bool);
        fn add(&mut self, (index, bad): (u64, bool)) -> Option<String> {
            self.seen.push(index);
            self.bad += usize::from(bad);
            bad.then(|| format!("case {index} is bad"))
        }
        fn cases(&self) -> u64 {
            self.seen.len() as u64
        }
        fn mismatches(&self) -> usize {
            self.bad
        }
    }

    fn lane<'a>(name: &'static str, cost: Duration) -> Lane<'a, Count> {
        Lane {
            name,
            tally: Count::default(),
            run: Box::new(move |i| {
                std::thread::sleep(cost);
                (i, i == 3)
            }),
        }
    }

    /// The interrupt count is global: tests that run a campaign take turns.
    static ONE_CAMPAIGN: Mutex<()> = Mutex::new(());

    #[test]
    fn every_index_runs_once_and_the_time_is_shared_out() {
        let _turn = lock(&ONE_CAMPAIGN);
        // A lane whose cases cost four times as much gets about a quarter
        // of the cases: the same worker time.
        let lanes = vec![
            lane("cheap", Duration::from_millis(1)),
            lane("dear", Duration::from_millis(4)),
        ];
        let done = run(lanes, Duration::from_millis(600), 3, &Progress::silent());
        assert_eq!(done.ending, Ending::Deadline);
        for (name, t) in &done.tallies {
            let mut seen = t.seen.clone();
            seen.sort_unstable();
            let n = seen.len() as u64;
            assert_eq!(
                seen,
                (0..n).collect::<Vec<_>>(),
                "{name}: indices 0..n, once each"
            );
            assert_eq!(t.bad, usize::from(n > 3), "{name}");
        }
        let (cheap, dear) = (done.tallies[0].1.cases(), done.tallies[1].1.cases());
        assert!(cheap > 2 * dear && dear > 10, "cheap {cheap}, dear {dear}");
    }

    #[test]
    fn an_interrupt_ends_the_campaign_early_and_says_so() {
        let _turn = lock(&ONE_CAMPAIGN);
        let lanes = vec![Lane {
            name: "t",
            tally: Count::default(),
            run: Box::new(|i| {
                if i == 5 {
                    interrupt::raise_for_test();
                }
                std::thread::sleep(Duration::from_millis(1));
                (i, false)
            }),
        }];
        let done = run(lanes, Duration::from_secs(60), 1, &Progress::silent());
        assert_eq!(done.ending, Ending::Interrupted);
        assert!(done.elapsed < Duration::from_secs(30));
        // Case 5 finished after the interrupt: dropped.
        assert_eq!(done.tallies[0].1.cases(), 5);
    }

    #[test]
    fn the_status_line_gives_time_rates_and_mismatches() {
        let lanes = [(
            "wc",
            Mutex::new(Count {
                seen: vec![0; 40],
                bad: 1,
            }),
        )];
        let line = status_line(&lanes, Duration::from_secs(4), Duration::from_secs(60));
        assert_eq!(line, "[   4s / 60s, 56s left] wc 40 (10/s, 1 mismatch)");
    }
}
