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
    let report = exhaustive::run(checker, n, None, 2, None);
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
    every_input_up_to("grep", 2);
}

/// grep's output modes and inputs (a file, stdin, two files); `.ci/run`
/// goes one byte deeper.
#[test]
fn grep_outputs_every_input_up_to_the_bound() {
    every_input_up_to("grep-outputs", 1);
}

/// grep's matchers over the grammar's one-token patterns; `.ci/run`
/// runs the two- and three-token grids.
#[test]
fn grep_patterns_every_input_up_to_the_bound() {
    every_input_up_to("grep-tokens1", 2);
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
    fn grep_output_classes_stand_for_their_members(
        p in picks(4),
        options in prop::collection::vec(any::<usize>(), 100),
        checked in prop::collection::vec(any::<usize>(), 4),
    ) {
        symmetry("grep-outputs", &p, Some(&options), &checked)?;
    }

    #[test]
    fn grep_pattern_classes_stand_for_their_members(
        p in picks(4),
        options in prop::collection::vec(any::<usize>(), 200),
        checked in prop::collection::vec(any::<usize>(), 8),
    ) {
        symmetry("grep-tokens2", &p, Some(&options), &checked)?;
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
    for tool in ["wc", "cat", "yes", "grep", "grep-tokens1"] {
        let table = exhaustive::class_table(exhaustive::checker(tool).expect("a checker"));
        assert!(
            doc.contains(&table),
            "docs/exhaustive.md lacks the {tool} classes as `samebytes-oracle exhaustive {tool} --classes` prints them:\n{table}"
        );
    }
}

/// The shifted mode runs for every tool in `cargo test` too, at small
/// bounds (`.ci/run` goes deeper): every input up to the bound, at every
/// placement, on the production-sized paths.
#[test]
fn shifted_mode_checks_every_tool() {
    for (tool, n) in [("wc", 1), ("cat", 1), ("yes", 2), ("grep", 0)] {
        let n = n + extra();
        let checker = exhaustive::checker(tool).expect("a checker");
        let report = exhaustive::run(checker, n, Some(n), 2, None);
        println!("{}", report.summary());
        if let Some((classes, m)) = &report.counterexample {
            panic!("{tool} shifted, input [{}]\n{m}", classes.join(" "));
        }
        assert_eq!(report.reached, Some(n), "{tool} stopped short");
        assert!(report.shifted_runs > 0, "{tool}: no shifted run");
    }
}

/// The shifted mode's filler is a whole line whose effect on the spec's
/// output is known, so an embedded input is checked as itself: for wc the
/// counts of filler and input add up (the width is the longer line's);
/// for cat, without numbering or squeezing, the output is the filler's
/// then the input's; for grep, with a pattern the filler line never
/// matches and no option that counts, numbers or inverts, the output is
/// the input's alone.  Random inputs over the classes' members, at every
/// placement.
#[test]
fn the_shifted_filler_keeps_outputs_equivalent() {
    use samebytes_oracle::exhaustive::{filler_line, placements};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (picks(5), any::<usize>(), any::<usize>());
    let mut related = std::collections::BTreeMap::new();
    for _ in 0..300 {
        let (p, option, place) = proptest::strategy::ValueTree::current(
            &strategy.new_tree(&mut runner).expect("a draw"),
        );
        for tool in ["wc", "cat", "grep"] {
            let checker = exhaustive::checker(tool).expect("a checker");
            let (_, input) = exhaustive::substitute(checker.alphabet(), &p);
            let spots = placements(input.len());
            let before = spots[place % spots.len()];
            let index = option % checker.option_count();
            let filler_byte = if tool == "grep" { b'b' } else { b'a' };
            let filler = filler_line(filler_byte, before);
            let mut embedded = filler.clone();
            embedded.extend_from_slice(&input);
            let whole = checker.spec_outcome(&embedded, index);
            let alone = checker.spec_outcome(&input, index);
            let what = format!("{tool} option set {index}, {input:?} after {before}");
            match tool {
                "wc" => {
                    let apart = checker.spec_outcome(&filler, index);
                    assert_eq!(whole.status, alone.status, "{what}");
                    let numbers = |o: &samebytes_spec::Outcome| -> Vec<u64> {
                        String::from_utf8_lossy(&o.stdout)
                            .split_whitespace()
                            .filter_map(|w| w.parse().ok())
                            .collect()
                    };
                    let (w, a, f) = (numbers(&whole), numbers(&alone), numbers(&apart));
                    // Count set index / 3 is the mask index / 3 + 1 over
                    // -l -w -m -c -L, printed in the order l, w, m, c, L.
                    let mask = index / 3 + 1;
                    let printed: Vec<usize> = [0, 1, 2, 3, 4]
                        .into_iter()
                        .filter(|bit| mask & (1 << bit) != 0)
                        .collect();
                    if alone.status != 0 || w.len() != printed.len() {
                        continue;
                    }
                    for (k, &bit) in printed.iter().enumerate() {
                        let want = if bit == 4 {
                            a[k].max(f[k])
                        } else {
                            a[k] + f[k]
                        };
                        assert_eq!(w[k], want, "{what}: count {bit}");
                    }
                    *related.entry(tool).or_insert(0) += 1;
                }
                "cat" => {
                    let numbered = checker
                        .spec_outcome(b"x\n", index)
                        .stdout
                        .starts_with(b"     1\t");
                    let lines = |o: samebytes_spec::Outcome| {
                        o.stdout.iter().filter(|&&b| b == b'\n').count()
                    };
                    let squeezed = lines(checker.spec_outcome(b"\n\n\n", index)) < 3;
                    let numbered_or_squeezed = numbered || squeezed;
                    if numbered_or_squeezed {
                        continue;
                    }
                    let mut want = checker.spec_outcome(&filler, index).stdout;
                    want.extend_from_slice(&alone.stdout);
                    assert_eq!(whole.stdout, want, "{what}");
                    *related.entry(tool).or_insert(0) += 1;
                }
                _ => {
                    // Patterns a, ^a and a$ (option sets 0..3072 of each
                    // locale), no -v, -c, -n, -B1 (bits 0, 1, 2, 8), and no
                    // -x or -o with an empty filler line in play.
                    let mask = index % 1024;
                    let pattern = index / 1024 % 5;
                    if pattern > 2 || mask & 0b1_0000_0111 != 0 {
                        continue;
                    }
                    assert_eq!(
                        (&whole.stdout, whole.status),
                        (&alone.stdout, alone.status),
                        "{what}"
                    );
                    *related.entry(tool).or_insert(0) += 1;
                }
            }
        }
    }
    eprintln!("embeddings related to their inputs: {related:?}");
    for tool in ["wc", "cat", "grep"] {
        assert!(
            related.get(tool).copied().unwrap_or(0) >= 10,
            "{tool}: {related:?}"
        );
    }
}
