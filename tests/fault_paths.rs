//! Faults around the data path, forced on the binaries under the fault
//! layer: files that cannot be described (`stat` failing), entries of a
//! tree that cannot be opened or described.  The binary campaign meets
//! each in a share of its cases; here each is forced so that a few seconds
//! check them all (the mutation gate runs this file), and the files' cases
//! run GNU's own tools as well.

mod common;

use common::campaign_binaries as binaries;
use samebytes_oracle::binary::case::Faults;
use samebytes_oracle::binary::{check, expected, generate, run, StdoutKind, Tool};
use samebytes_oracle::faultplan::{Kind, Outcome};
use samebytes_spec::world::{Node, Stdin};

/// Files whose every `stat` fails with EIO though they open and read (a
/// file system whose attributes fail), a regular stdin among them: GNU's
/// wc leaves them out of its number width and reads a `--files0-from`
/// list it cannot size name by name; cat and grep report each and go on;
/// grep reads a `-f` file (or `-f -`) all the same.  The system's GNU tools under the layer, the spec, and ours
/// agree on each.
#[test]
fn stat_failures_follow_gnu() {
    let files: [(&str, &[u8]); 4] = [
        ("f1", b"a b\nc\n"),
        ("f2", b"hello\n"),
        ("pats", b"b\n"),
        ("list", b"f1\0f2\0"),
    ];
    let cases: &[(Tool, &[&str], &str)] = &[
        (Tool::Wc, &["f1", "f2"], "f1"),
        (Tool::Wc, &["f1", "f2"], "f2"),
        (Tool::Wc, &["-c", "f1", "f2"], "f1"),
        (Tool::Wc, &["-l", "--files0-from=list"], "list"),
        (Tool::Wc, &["--files0-from=list"], "f2"),
        (Tool::Cat, &["f1", "f2"], "f1"),
        (Tool::Cat, &["-n", "f1", "f2"], "f2"),
        (Tool::Grep, &["-e", "b", "-e", "h", "f1", "f2"], "f1"),
        (Tool::Grep, &["-c", "h", "f1", "f2"], "f2"),
        (Tool::Grep, &["-f", "pats", "f1", "f2"], "pats"),
        // `-`: a regular stdin that cannot be described.
        (Tool::Wc, &[], "-"),
        (Tool::Wc, &["-c", "f1", "-"], "-"),
        (Tool::Wc, &["--files0-from=-"], "-"),
        (Tool::Cat, &["f1", "-", "f2"], "-"),
        (Tool::Grep, &["-c", "a"], "-"),
        (Tool::Grep, &["-f", "-", "f1"], "-"),
    ];
    for (i, &(tool, args, failing)) in cases.iter().enumerate() {
        let mut case = generate(tool, i as u64);
        case.args = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        case.tree = None;
        case.world.files = files
            .iter()
            .map(|(n, d)| (n.as_bytes().to_vec(), Node::Regular(d.to_vec())))
            .collect();
        case.world.read_errors = Default::default();
        let stdin: &[u8] = match args.contains(&"--files0-from=-") {
            true => b"f1\0f2\0",
            false => b"a b\nh\n",
        };
        case.world.stdin = Stdin {
            node: Node::Regular(stdin.to_vec()),
            offset: 0,
        };
        case.world.stdin_stat_fails = failing == "-";
        case.world.stat_fails = match failing {
            "-" => Default::default(),
            name => [name.as_bytes().to_vec()].into(),
        };
        case.faults = Faults {
            output_failure: None,
            close_failure: None,
            ..case.faults
        };
        case.stdout = StdoutKind::Pipe;
        case.stderr_full = false;
        case.reader_stops_after = None;
        case.sigpipe_default = false;
        let want = expected(&case);
        // GNU runs without interrupted calls: it installs no signal
        // handler, so the kernel never gives it EINTR, and current gnulib
        // (coreutils 9.7's safe_read) no longer retries one.
        let mut gnu_case = case.clone();
        gnu_case.faults.eintr = 0;
        let gnu = samebytes_oracle::gnu::columns_or_panic()
            .into_iter()
            .map(|g| (g.tool(tool.name()), &gnu_case));
        for (binary, case) in gnu.chain([(binaries().tool(tool), &case)]) {
            let got = run::run(case, &binary, &binaries().layer());
            let what = format!("{} {args:?}, stat of {failing} failing", binary.display());
            // A pattern file is read whatever `stat` says: GNU's stdio
            // sizes its buffer through the C library's own call, and ours
            // asks only for a size hint, so a failure there may not show.
            let read_whole = failing == "pats" || args.contains(&"-f");
            assert!(
                read_whole || got.counts.get(Kind::Stat, Outcome::InputFailed) > 0,
                "{what}: no stat failed"
            );
            let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            assert_eq!(
                shown(&want.stdout),
                shown(&got.stdout.unwrap_or_default()),
                "{what}"
            );
            assert_eq!(shown(&want.stderr), shown(&got.stderr), "{what}");
            assert_eq!(want.status, got.status, "{what}");
        }
    }
}

/// Recursive cases whose entries cannot be opened (ENOENT, EMFILE, ENFILE,
/// EIO) or described (every `stat` failing with EIO): the generator's
/// own trees, each case run against the spec.
#[test]
fn tree_entries_that_cannot_be_opened_or_described_follow_the_spec() {
    let (mut opened, mut described) = (0, 0);
    for seed in 0..6000u64 {
        let mut case = generate(Tool::Grep, seed);
        let Some(tree) = &case.tree else { continue };
        let opens = !tree.open_errors.is_empty();
        let stats = !tree.stat_errors.is_empty();
        if !(opens && opened < 10 || stats && described < 10) {
            continue;
        }
        case.faults.output_failure = None;
        case.faults.close_failure = None;
        case.stderr_full = false;
        if let Err(m) = check(&case, binaries()).1 {
            panic!("{m}\n{case}");
        }
        opened += usize::from(opens);
        described += usize::from(stats);
        if opened >= 10 && described >= 10 {
            return;
        }
    }
    panic!("{opened} trees with open failures and {described} with stat failures in 6000 seeds");
}
