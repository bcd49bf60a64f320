//! Bounded exhaustive checking: every input up to a length bound over a
//! tool's alphabet of byte classes, every way the reads can cut it, the
//! buffer capacities around the bound, and every option set that changes
//! line handling — each compared with the spec.
//!
//! This is the small-scope method.  Random cases and fuzzing sample; this
//! checks *all* of a neighbourhood, and the buffers are shrunk to the
//! bound, so the neighbourhood holds every buffer boundary and line
//! boundary a case of that size can meet.
//!
//! - An [`Alphabet`] is a list of [`Symbol`]s.  A symbol is one byte class
//!   (or one multibyte character class), given by a representative and a
//!   list of members, with the reason every member behaves the same.
//!   Inputs are enumerated over representatives only; the symmetry tests
//!   (`tests/exhaustive.rs`) substitute random members into random inputs
//!   and check that the spec's answer keeps its shape and that the
//!   implementation still agrees, so the claim stays honest.
//! - [`compositions`]: every way to cut `len` bytes into reads of at most
//!   `cap` bytes.  wc and cat read into a buffer of fixed capacity, so a
//!   composition with a longer part behaves as one of these: the parts
//!   no longer than the capacity are every cut a kernel can make.  grep's
//!   stream buffer grows, so grep takes every composition at every
//!   capacity.
//! - [`run`]: inputs by increasing length, split over worker threads; the
//!   first length with a counterexample stops the run, and the smallest
//!   counterexample of that length (in enumeration order) is reported,
//!   whichever thread found it first.
//!
//! - Shifted mode ([`placements`], [`Checker::check_shifted`]): the
//!   bounds above shrink the buffers, so they never reach the fast lanes
//!   that need room: wc's and cat's 8-byte words and 64-byte blocks, wc's
//!   4 KiB small-block threshold, grep's mapped windows at full size.  In
//!   shifted mode every input up to a second bound is also checked
//!   embedded after a whole line of the tool's filler, at every offset
//!   modulo 64 and straddling 4096 at every position, on the paths
//!   production-sized buffers take.
//!
//! Each tool's checker ([`wc`], [`cat`], [`yes`], [`grep`]) builds the
//! driver's own case type for every run, so a counterexample is the
//! driver's one-line reproducer: `samebytes-oracle replay TOOL:<hex>`
//! checks it again.

pub mod cat;
pub mod grep;
pub mod grep_outputs;
pub mod grep_patterns;
pub mod wc;
pub mod yes;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::mismatch::Mismatch;
use crate::schedule::{
    ReadSchedule, ReadStep, WriteFailure, WriteFailureKind, WriteSchedule, WriteStep,
};

/// One class of input bytes.
#[derive(Debug)]
pub struct Symbol {
    /// A short name for reports (`word`, `nbsp`, …).
    pub name: &'static str,
    /// The bytes enumerated for the class.
    pub rep: &'static [u8],
    /// Every member of the class (the representative among them), each as
    /// long as the representative.
    pub members: fn() -> Vec<Vec<u8>>,
    /// Why every member is handled as the representative is.
    pub why: &'static str,
}

/// A tool's input classes.
pub type Alphabet = &'static [Symbol];

/// The members of a class given as byte ranges.
pub fn byte_members(ranges: &[(u8, u8)], except: &[u8]) -> Vec<Vec<u8>> {
    ranges
        .iter()
        .flat_map(|&(lo, hi)| lo..=hi)
        .filter(|b| !except.contains(b))
        .map(|b| vec![b])
        .collect()
}

/// Every string of exactly `len` bytes over the alphabet, as symbol
/// indices, in order (shorter symbols and lower indices first at each
/// position).
pub fn strings(alphabet: Alphabet, len: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn extend(
        alphabet: Alphabet,
        left: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if left == 0 {
            out.push(current.clone());
            return;
        }
        for (i, s) in alphabet.iter().enumerate() {
            if s.rep.len() <= left {
                current.push(i);
                extend(alphabet, left - s.rep.len(), current, out);
                current.pop();
            }
        }
    }
    extend(alphabet, len, &mut current, &mut out);
    out
}

/// The bytes of a string of symbols, spelled with representatives.
pub fn representatives(alphabet: Alphabet, string: &[usize]) -> Vec<u8> {
    string
        .iter()
        .flat_map(|&i| alphabet[i].rep.to_vec())
        .collect()
}

/// Every composition of `len` into parts of at most `cap` (`len` 0 has
/// one, the empty one), in lexicographic order of the parts.
pub fn compositions(len: usize, cap: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn extend(left: usize, cap: usize, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if left == 0 {
            out.push(current.clone());
            return;
        }
        for part in 1..=left.min(cap) {
            current.push(part);
            extend(left - part, cap, current, out);
            current.pop();
        }
    }
    extend(len, cap.max(1), &mut current, &mut out);
    out
}

/// The buffer capacities checked at bound `n`: 1, `n`−1 and `n`, without
/// repeats.
pub fn capacities(n: usize) -> Vec<usize> {
    let mut caps = vec![1, n.saturating_sub(1).max(1), n.max(1)];
    caps.dedup();
    caps
}

/// The write schedules checked for an output of `len` bytes at bound `n`
/// and capacity `cap`: every cut of its first `min(len, n)` bytes into
/// short writes of at most `cap` bytes (repeating after that), and a
/// write failure (EPIPE, then ENOSPC) at every offset before its end.
pub fn write_schedules(len: usize, n: usize, cap: usize) -> Vec<WriteSchedule> {
    let mut out: Vec<WriteSchedule> = compositions(len.min(n), cap)
        .into_iter()
        .filter(|parts| !parts.is_empty())
        .map(|parts| WriteSchedule {
            steps: parts.into_iter().map(WriteStep::Accept).collect(),
            failure: None,
        })
        .collect();
    for kind in [WriteFailureKind::BrokenPipe, WriteFailureKind::NoSpace] {
        for after in 0..len {
            out.push(WriteSchedule {
                steps: Vec::new(),
                failure: Some(WriteFailure { after, kind }),
            });
        }
    }
    out
}

/// A read schedule that cuts the input into these parts.
pub fn reads(parts: &[usize]) -> ReadSchedule {
    ReadSchedule {
        steps: parts.iter().map(|&p| ReadStep::Chunk(p)).collect(),
    }
}

/// The shifted mode's placements of an input of `len` bytes: how many
/// filler bytes come before it.  Every offset from 0 to 63, so that the
/// input meets every lane of an 8-byte word and every place in a 64-byte
/// block; then straddling 4096 (a page, and wc's small-block threshold)
/// at every position, from ending a byte before it to starting on it.
pub fn placements(len: usize) -> Vec<usize> {
    const THRESHOLD: usize = 4096;
    let mut out: Vec<usize> = (0..64).collect();
    out.extend(THRESHOLD - len - 1..=THRESHOLD);
    out
}

/// `before` bytes of filler ending a line: `byte` repeated, then a
/// newline (nothing for 0, a lone newline for 1).
pub fn filler_line(byte: u8, before: usize) -> Vec<u8> {
    let mut out = vec![byte; before.saturating_sub(1)];
    if before > 0 {
        out.push(b'\n');
    }
    out
}

/// The read schedules of the shifted mode for `input_len` bytes after
/// `before` bytes of filler: the whole file at once, and reads that end
/// at the input's start and at its end.
pub fn shifted_reads(before: usize, input_len: usize) -> Vec<ReadSchedule> {
    let mut cut: Vec<usize> = [before, input_len].into_iter().filter(|&p| p > 0).collect();
    if cut.is_empty() {
        cut.push(0);
    }
    vec![ReadSchedule::whole(), reads(&cut)]
}

/// Counts of a run, shared by worker threads.
#[derive(Default)]
pub struct Tally {
    /// Implementation runs compared with the spec.
    pub runs: AtomicU64,
    /// Of those, runs of the shifted mode.
    pub shifted_runs: AtomicU64,
    /// Spec runs (one per input and option set).
    pub spec_runs: AtomicU64,
}

impl Tally {
    pub fn run(&self) {
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
    pub fn shifted_run(&self) {
        self.runs.fetch_add(1, Ordering::Relaxed);
        self.shifted_runs.fetch_add(1, Ordering::Relaxed);
    }
    pub fn spec(&self) {
        self.spec_runs.fetch_add(1, Ordering::Relaxed);
    }
}

/// A tool's exhaustive checker.  Its option sets are numbered
/// `0..option_count()`.
pub trait Checker: Sync {
    fn tool(&self) -> &'static str;
    fn alphabet(&self) -> Alphabet;
    fn option_count(&self) -> usize;
    /// What the option sets are, in a few words.
    fn option_sets(&self) -> String;
    /// `None` if option set `index` is checked on `input`; otherwise the
    /// input and option set checked in its place, whose spec outcome is
    /// the same (the checker says why; the symmetry tests check it).
    fn stand_in(&self, _input: &[u8], _index: usize) -> Option<(Vec<u8>, usize)> {
        None
    }
    /// The spec's outcome on `input` under option set `index`, with a
    /// stdout that never fails.
    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome;
    /// Check `input` under option set `index` at every read schedule,
    /// write schedule and capacity at bound `n`.
    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>>;
    /// Has the checker a shifted mode?  grep's pattern and output grids
    /// have none of their own: the `grep` grid's shifted runs cover the
    /// searcher's lanes, and `--shifted` on them is refused.
    fn has_shifted_mode(&self) -> bool {
        true
    }
    /// Shifted mode: check `input` under option set `index`, embedded after
    /// `before` bytes of the tool's filler (a whole line that every option
    /// set treats as it treats any line), on the paths production-sized
    /// buffers take, with [`shifted_reads`].  Called only for a checker
    /// that [has one](Checker::has_shifted_mode).
    fn check_shifted(
        &self,
        _input: &[u8],
        _before: usize,
        _index: usize,
        _tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        unreachable!("{} has no shifted mode", self.tool())
    }
    /// The most worker threads worth running: yes maps a buffer per run,
    /// and unmapping on two threads at once costs more than it gains.
    fn max_jobs(&self) -> usize {
        usize::MAX
    }
    /// Enumerate option sets in the outer loop and inputs in the inner
    /// one: a worker takes an option set and checks every input of the
    /// length under it, so a checker that prepares an option set (grep's
    /// compiled patterns) keeps one prepared at a time, however many
    /// option sets there are.
    fn option_major(&self) -> bool {
        false
    }
    /// Compare spec outputs exactly in the symmetry tests (wc prints only
    /// numbers), rather than by [`shape`].
    fn exact(&self) -> bool {
        false
    }
}

/// What a run found.
pub struct Report {
    pub tool: &'static str,
    /// The longest input length fully checked.
    pub reached: Option<usize>,
    pub max_len: usize,
    pub inputs: u64,
    pub runs: u64,
    /// Of `runs`, the shifted mode's.
    pub shifted_runs: u64,
    /// Inputs up to this length were also checked shifted.
    pub shifted_len: Option<usize>,
    pub spec_runs: u64,
    pub elapsed: Duration,
    pub jobs: usize,
    /// The option sets each input was checked under: how many, and what.
    pub option_sets: (usize, String),
    /// Classes enumerated.
    pub classes: Vec<&'static str>,
    /// The smallest counterexample: its input (as class names) and the
    /// mismatch, whose reproducer replays it.
    pub counterexample: Option<(Vec<&'static str>, Box<Mismatch>)>,
    /// The run stopped at its time limit before `max_len`.
    pub timed_out: bool,
}

impl Report {
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}: inputs up to {} bytes over {} classes ({}), {} option sets ({}), every read \
             schedule and capacity: {} inputs, {} implementation runs, {} spec runs, {:.1} s on {} jobs",
            self.tool,
            self.reached.map_or("-".into(), |n| n.to_string()),
            self.classes.len(),
            self.classes.join(" "),
            self.option_sets.0,
            self.option_sets.1,
            self.inputs,
            self.runs,
            self.spec_runs,
            self.elapsed.as_secs_f64(),
            self.jobs,
        );
        if let Some(len) = self.shifted_len {
            s.push_str(&format!(
                "\n{}: shifted, inputs up to {len} bytes at {} placements each: {} of those runs",
                self.tool,
                placements(len).len(),
                self.shifted_runs
            ));
        }
        if self.timed_out {
            s.push_str(&format!(
                "\n{}: stopped at the time limit before length {}",
                self.tool,
                self.reached.map_or(0, |n| n + 1)
            ));
        }
        match &self.counterexample {
            None => s.push_str(&format!("\n{}: 0 counterexamples", self.tool)),
            Some((classes, m)) => s.push_str(&format!(
                "\n{}: counterexample, input [{}] ({} differs, {})\n{}",
                self.tool,
                classes.join(" "),
                format!("{:?}", m.stream).to_lowercase(),
                m.variant,
                m.reproducer
            )),
        }
        s
    }
}

/// Check every input of every length up to `max_len`, on `jobs` threads,
/// those up to `shifted_len` in shifted mode too, stopping at the first
/// length with a counterexample or at `deadline`.
pub fn run(
    checker: &dyn Checker,
    max_len: usize,
    shifted_len: Option<usize>,
    jobs: usize,
    deadline: Option<Instant>,
) -> Report {
    let started = Instant::now();
    let alphabet = checker.alphabet();
    let tally = Tally::default();
    let mut report = Report {
        tool: checker.tool(),
        reached: None,
        max_len,
        inputs: 0,
        runs: 0,
        shifted_runs: 0,
        shifted_len,
        spec_runs: 0,
        elapsed: Duration::ZERO,
        jobs: jobs.clamp(1, checker.max_jobs()),
        option_sets: (checker.option_count(), checker.option_sets()),
        classes: alphabet.iter().map(|s| s.name).collect(),
        counterexample: None,
        timed_out: false,
    };
    for len in 0..=max_len {
        let inputs = strings(alphabet, len);
        let shifted = checker.has_shifted_mode() && shifted_len.is_some_and(|s| len <= s);
        let options = checker.option_count();
        // The work items: inputs, each under every option set; or, option
        // major, option sets, each over every input.
        let (items, per_item) = match checker.option_major() {
            false => (inputs.len(), options),
            true => (options, inputs.len()),
        };
        let pair = |item: usize, k: usize| match checker.option_major() {
            false => (item, k),
            true => (k, item),
        };
        let next = AtomicUsize::new(0);
        // The lowest (input, option set) with a counterexample so far, as
        // `input * options + option`: no work past it is started.
        let lowest_bad = AtomicUsize::new(usize::MAX);
        let found: Mutex<Option<(usize, Box<Mismatch>)>> = Mutex::new(None);
        let out_of_time = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for _ in 0..report.jobs {
                scope.spawn(|| loop {
                    let item = next.fetch_add(1, Ordering::Relaxed);
                    if item >= items {
                        return;
                    }
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        out_of_time.store(true, Ordering::Relaxed);
                        return;
                    }
                    for k in 0..per_item {
                        let (i, index) = pair(item, k);
                        let at = i * options + index;
                        if at > lowest_bad.load(Ordering::Relaxed) {
                            if checker.option_major() {
                                continue;
                            }
                            return;
                        }
                        let bytes = representatives(alphabet, &inputs[i]);
                        if checker.stand_in(&bytes, index).is_some() {
                            continue;
                        }
                        let checked = checker
                            .check_option_set(&bytes, index, max_len, &tally)
                            .and_then(|()| match shifted {
                                false => Ok(()),
                                true => {
                                    placements(bytes.len()).into_iter().try_for_each(|before| {
                                        checker.check_shifted(&bytes, before, index, &tally)
                                    })
                                }
                            });
                        if let Err(m) = checked {
                            lowest_bad.fetch_min(at, Ordering::Relaxed);
                            let mut f = found.lock().unwrap_or_else(|e| e.into_inner());
                            if f.as_ref().is_none_or(|(j, _)| at < *j) {
                                *f = Some((at, m));
                            }
                            if !checker.option_major() {
                                break;
                            }
                        }
                    }
                });
            }
        });
        if let Some((at, m)) = found.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let i = at / options;
            report.inputs += i as u64;
            let names = inputs[i].iter().map(|&s| alphabet[s].name).collect();
            report.counterexample = Some((names, m));
            break;
        }
        if out_of_time.load(Ordering::Relaxed) {
            report.timed_out = true;
            break;
        }
        report.inputs += inputs.len() as u64;
        report.reached = Some(len);
    }
    report.runs = tally.runs.load(Ordering::Relaxed);
    report.shifted_runs = tally.shifted_runs.load(Ordering::Relaxed);
    report.spec_runs = tally.spec_runs.load(Ordering::Relaxed);
    report.elapsed = started.elapsed();
    report
}

/// A tool's classes as a Markdown table (docs/exhaustive.md holds each
/// tool's, and a test keeps them equal).
pub fn class_table(checker: &dyn Checker) -> String {
    let mut out = format!(
        "| {} class | enumerated as | members | why every member behaves alike |\n|---|---|---:|---|\n",
        checker.tool()
    );
    for s in checker.alphabet() {
        let rep: String = s.rep.iter().map(|b| format!("\\x{b:02x}")).collect();
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} |\n",
            s.name,
            rep,
            (s.members)().len(),
            s.why.replace('|', "\\|")
        ));
    }
    out
}

/// The checker for a tool name.
pub fn checker(tool: &str) -> Option<&'static dyn Checker> {
    match tool {
        "wc" => Some(&wc::WcChecker),
        "cat" => Some(&cat::CatChecker),
        "yes" => Some(&yes::YesChecker),
        "grep" => Some(&grep::GrepChecker),
        "grep-outputs" => Some(&grep_outputs::GrepOutputsChecker),
        "grep-tokens1" => Some(&grep_patterns::GrepPatternsChecker { tokens: 1 }),
        "grep-tokens2" => Some(&grep_patterns::GrepPatternsChecker { tokens: 2 }),
        "grep-tokens3" => Some(&grep_patterns::GrepPatternsChecker { tokens: 3 }),
        _ => None,
    }
}

/// The shape of a spec output, which must not change when members stand
/// in for representatives: each byte of a single-byte class becomes the
/// class's representative, and any other byte from 0x80 up becomes 0x80
/// (the bytes of multibyte members, which a C-locale search may print
/// one by one).  The tool's own bytes (numbers, separators, messages)
/// are the same on both sides, so they map alike.
pub fn shape(alphabet: Alphabet, bytes: &[u8]) -> Vec<u8> {
    let mut map: [u8; 256] = std::array::from_fn(|b| if b >= 0x80 { 0x80 } else { b as u8 });
    for s in alphabet.iter().filter(|s| s.rep.len() == 1) {
        for m in (s.members)() {
            if let [b] = m[..] {
                map[b as usize] = s.rep[0];
            }
        }
    }
    bytes.iter().map(|&b| map[b as usize]).collect()
}

/// An input from picks of (class, member): the representatives' bytes
/// and the members' bytes.
pub fn substitute(alphabet: Alphabet, picks: &[(usize, usize)]) -> (Vec<u8>, Vec<u8>) {
    let (mut reps, mut members) = (Vec::new(), Vec::new());
    for &(class, member) in picks {
        let symbol = &alphabet[class % alphabet.len()];
        let all = (symbol.members)();
        reps.extend_from_slice(symbol.rep);
        members.extend_from_slice(&all[member % all.len()]);
    }
    (reps, members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositions_are_every_cut() {
        // 2^(len-1) compositions without a cap; with a cap, those whose
        // parts fit, counted by brute force over bit masks.
        for len in 0..9usize {
            for cap in 1..=len.max(1) {
                let got = compositions(len, cap);
                let mut want = 0;
                for mask in 0..(1u32 << len.saturating_sub(1)) {
                    let mut part = 1;
                    let mut ok = true;
                    for bit in 0..len.saturating_sub(1) {
                        if mask & (1 << bit) != 0 {
                            ok &= part <= cap;
                            part = 1;
                        } else {
                            part += 1;
                        }
                    }
                    ok &= len == 0 || part <= cap;
                    want += usize::from(ok);
                }
                assert_eq!(got.len(), want, "len {len} cap {cap}");
                assert!(got.iter().all(|c| c.iter().sum::<usize>() == len));
                assert!(got
                    .iter()
                    .all(|c| c.iter().all(|&p| (1..=cap).contains(&p))));
                let mut sorted = got.clone();
                sorted.dedup();
                assert_eq!(sorted.len(), got.len());
            }
        }
    }

    static TEST_ALPHABET: &[Symbol] = &[
        Symbol {
            name: "x",
            rep: b"x",
            members: || vec![b"x".to_vec()],
            why: "",
        },
        Symbol {
            name: "yz",
            rep: b"yz",
            members: || vec![b"yz".to_vec()],
            why: "",
        },
    ];

    /// Fails every input holding two `x` in a row, or any `yz`.
    struct Picky;

    impl Checker for Picky {
        fn tool(&self) -> &'static str {
            "picky"
        }
        fn alphabet(&self) -> Alphabet {
            TEST_ALPHABET
        }
        fn option_count(&self) -> usize {
            2
        }
        fn option_sets(&self) -> String {
            String::new()
        }
        fn spec_outcome(&self, input: &[u8], _: usize) -> samebytes_spec::Outcome {
            samebytes_spec::Outcome::new(input.to_vec(), Vec::new(), 0)
        }
        fn has_shifted_mode(&self) -> bool {
            false
        }
        fn check_option_set(
            &self,
            input: &[u8],
            index: usize,
            _: usize,
            tally: &Tally,
        ) -> Result<(), Box<Mismatch>> {
            tally.run();
            let bad = input.windows(2).any(|w| w == b"xx" || w == b"yz");
            match (bad, index) {
                (true, 1) => Err(Box::new(Mismatch {
                    tool: "picky",
                    variant: String::new(),
                    stream: crate::mismatch::Stream::Stdout,
                    expected: Vec::new(),
                    actual: input.to_vec(),
                    reproducer: String::from_utf8_lossy(input).into_owned(),
                })),
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn the_smallest_counterexample_is_reported_on_any_number_of_jobs() {
        for jobs in 1..=4 {
            let report = run(&Picky, 6, None, jobs, None);
            // Length 2 holds "xx" (index 0) and "yz" (index 1): the first.
            assert_eq!(report.reached, Some(1), "{jobs} jobs");
            let (classes, m) = report.counterexample.expect("a counterexample");
            assert_eq!(classes, ["x", "x"]);
            assert_eq!(m.reproducer, "xx");
            // Lengths 0 and 1 (one input each) passed whole.
            assert!(report.inputs >= 2);
        }
        // Without a bad input the run reaches its bound.
        let report = run(&Picky, 1, None, 2, None);
        assert_eq!((report.reached, report.inputs), (Some(1), 2));
        assert!(report.counterexample.is_none());
    }

    #[test]
    fn strings_are_every_spelling_of_each_length() {
        // Strings over {1-byte, 2-byte} of byte length n: Fibonacci.
        let fib = [1, 1, 2, 3, 5, 8, 13, 21];
        for (len, &want) in fib.iter().enumerate() {
            let got = strings(TEST_ALPHABET, len);
            assert_eq!(got.len(), want);
            for s in &got {
                assert_eq!(representatives(TEST_ALPHABET, s).len(), len);
            }
        }
    }
}
