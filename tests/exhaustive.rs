//! The bounded exhaustive checkers (`oracle/src/exhaustive/`): every input
//! up to a bound over each tool's byte classes, every read schedule that
//! fits, the capacities 1, N−1 and N, and every option set of the grid,
//! compared with the spec.  The bounds here take about 20 seconds per tool
//! on two cores in the test profile; `.ci/run` runs deeper ones through
//! `samebytes-oracle exhaustive`, and `SAMEBYTES_EXHAUSTIVE_EXTRA=K` adds K
//! to every bound here.
//!
//! Then the symmetry tests, which keep the classes honest: an input is
//! drawn as (class, member) pairs, and
//! - the spec's outputs on the members' bytes have the shape of its
//!   outputs on the representatives' (`exhaustive::shape`; wc's exactly),
//!   under every option set, or a random sample of grep's 10240;
//! - an option set that a checker checks through a stand-in has the
//!   stand-in's spec outcome;
//! - the implementation agrees with the spec on the members' bytes under
//!   sampled option sets, at every schedule and capacity of that length.

use proptest::prelude::*;
use samebytes_oracle::exhaustive::{self, Checker, Tally};

fn extra() -> usize {
    std::env::var("SAMEBYTES_EXHAUSTIVE_EXTRA")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn every_input_up_to(tool: &str, bound: usize) {
    let n = bound + extra();
    let checker = exhaustive::checker(tool).expect("a checker");
    let report = exhaustive::run(checker, n, 2, None);
    println!("{}", report.summary());
    if let Some((classes, m)) = &report.counterexample {
        panic!("input [{}]\n{m}", classes.join(" "));
    }
    assert_eq!(report.reached, Some(n), "{tool} stopped short");
    // Every input of every length was checked, under some option set.
    let all: usize = (0..=n)
        .map(|len| exhaustive::strings(checker.alphabet(), len).len())
        .sum();
    assert_eq!(report.inputs, all as u64);
    assert!(report.runs >= report.inputs);
}

#[test]
fn wc_every_input_up_to_the_bound() {
    every_input_up_to("wc", 4);
}

#[test]
fn cat_every_input_up_to_the_bound() {
    every_input_up_to("cat", 3);
}

#[test]
fn yes_every_input_up_to_the_bound() {
    every_input_up_to("yes", 5);
}

#[test]
fn grep_every_input_up_to_the_bound() {
    every_input_up_to("grep", 1);
}

/// The shape of an outcome under `checker`'s comparison.
fn shape(checker: &dyn Checker, o: &samebytes_spec::Outcome) -> (Vec<u8>, Vec<u8>, i32) {
    if checker.exact() {
        return (o.stdout.clone(), o.stderr.clone(), o.status);
    }
    let a = checker.alphabet();
    (
        exhaustive::shape(a, &o.stdout),
        exhaustive::shape(a, &o.stderr),
        o.status,
    )
}

/// One symmetry case: `picks` spell the input, `options` pick the option
/// sets whose spec outputs are compared (all of them if `None`), and
/// `checked` the ones run through the implementation.
fn symmetry(
    tool: &str,
    picks: &[(usize, usize)],
    options: Option<&[usize]>,
    checked: &[usize],
) -> Result<(), TestCaseError> {
    let checker = exhaustive::checker(tool).expect("a checker");
    let (reps, members) = exhaustive::substitute(checker.alphabet(), picks);
    let count = checker.option_count();
    let all: Vec<usize> = (0..count).collect();
    let indices = options.unwrap_or(&all);
    for &i in indices {
        let i = i % count;
        let on_reps = checker.spec_outcome(&reps, i);
        let on_members = checker.spec_outcome(&members, i);
        prop_assert_eq!(
            shape(checker, &on_reps),
            shape(checker, &on_members),
            "{} option set {}: {:?} against {:?}",
            tool,
            i,
            reps,
            members
        );
        for input in [&reps, &members] {
            if let Some((other, j)) = checker.stand_in(input, i) {
                prop_assert_eq!(
                    checker.spec_outcome(input, i),
                    checker.spec_outcome(&other, j),
                    "{} option set {} on {:?} stands in for set {} on {:?}",
                    tool,
                    j,
                    other,
                    i,
                    input
                );
            }
        }
    }
    let tally = Tally::default();
    for &i in checked {
        let i = i % count;
        if let Err(m) = checker.check_option_set(&members, i, members.len(), &tally) {
            return Err(TestCaseError::fail(format!("members {members:?}\n{m}")));
        }
    }
    Ok(())
}

fn picks(max: usize) -> impl Strategy<Value = Vec<(usize, usize)>> {
    prop::collection::vec((any::<usize>(), any::<usize>()), 0..=max)
}

proptest! {
    // 48 cases, or PROPTEST_CASES.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn wc_classes_stand_for_their_members(
        p in picks(6),
        checked in prop::collection::vec(any::<usize>(), 4),
    ) {
        symmetry("wc", &p, None, &checked)?;
    }

    #[test]
    fn cat_classes_stand_for_their_members(
        p in picks(6),
        checked in prop::collection::vec(any::<usize>(), 3),
    ) {
        symmetry("cat", &p, None, &checked)?;
    }

    #[test]
    fn yes_classes_stand_for_their_members(
        p in picks(6),
        checked in prop::collection::vec(any::<usize>(), 1),
    ) {
        symmetry("yes", &p, None, &checked)?;
    }

    #[test]
    fn grep_classes_stand_for_their_members(
        p in picks(5),
        options in prop::collection::vec(any::<usize>(), 200),
        checked in prop::collection::vec(any::<usize>(), 8),
    ) {
        symmetry("grep", &p, Some(&options), &checked)?;
    }
}

/// docs/exhaustive.md holds every tool's class table as the code states
/// it (`samebytes-oracle exhaustive TOOL --classes` prints it).
#[test]
fn the_docs_hold_every_class_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/exhaustive.md");
    let doc = std::fs::read_to_string(path).expect("docs/exhaustive.md");
    for tool in ["wc", "cat", "yes", "grep"] {
        let table = exhaustive::class_table(exhaustive::checker(tool).expect("a checker"));
        assert!(
            doc.contains(&table),
            "docs/exhaustive.md lacks the {tool} classes as `samebytes-oracle exhaustive {tool} --classes` prints them:\n{table}"
        );
    }
}
