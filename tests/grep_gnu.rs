//! GNU conformance: the spec against GNU grep on generated cases
//! materialised as real files, pipes and output files, for every GNU build
//! `SAMEBYTES_GNU` names (samebytes_oracle::gnu: by default the system's
//! grep 3.8 and Debian trixie's 3.11).  A rule that holds only for some
//! releases excludes its cases for those builds alone.
//!
//! Excluded by named rules (docs/differences.md): help and version text,
//! arguments that cannot be passed through argv, and cases that read a
//! stream: GNU's reads of a pipe decide where binary input starts, and
//! the spec's rule only agrees with GNU up to 32 KiB, which all of these
//! inputs are, but a pipe can still deliver them in pieces.

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use arbitrary::{Arbitrary, Unstructured};
use common::{run_in_world, Scratch};
use samebytes_oracle::gnu::{columns_or_panic, Gnu, Version};
use samebytes_oracle::grep::GrepCase;
use samebytes_spec::grep::{
    parse_args, BinaryFiles, GrepStdout, Invocation, ListFiles, PatternSource, Syntax,
};
use samebytes_spec::world::Node;
use samebytes_spec::Outcome;

/// The documented reasons a case is not compared with `gnu`, by rule name
/// (docs/differences.md, which gives the releases each holds for: every
/// rule here holds for grep 3.8, 3.11 and 3.12 alike, but for
/// `pcre2-release`, a property of the build, and
/// `binary-message-when-listing-3.12`).
fn excluded(case: &GrepCase, gnu: &Gnu) -> Option<&'static str> {
    if case.args.iter().any(|a| a.is_empty() || a.contains(&0)) {
        return Some("argument not passable through argv");
    }
    if case
        .world
        .files
        .values()
        .any(|n| matches!(n, Node::Unreadable | Node::Stream(_)))
    {
        return Some("not materialisable");
    }
    if case.utf8 && case.args.iter().any(|a| std::str::from_utf8(a).is_err()) {
        return Some("pattern-encoding-error (utf8)");
    }
    if case.args.iter().any(|a| a.first() == Some(&b'{')) {
        // GNU's DFA takes a leading `{` as literal when it selects lines,
        // but its regex finds no match for `-o`.
        return Some("ere-leading-brace");
    }
    if case.args.iter().any(|a| backref_after_repeated_group(a)) {
        return Some("glibc-backref-misses");
    }
    let star_then_not_boundary = |d: &[u8]| {
        d.windows(3)
            .any(|w| matches!(w, [b'*' | b'}', b'\\', b'B']))
    };
    // A pattern file is one of the inputs.
    if case.args.iter().any(|a| star_then_not_boundary(a))
        || inputs(case).any(star_then_not_boundary)
    {
        return Some("glibc-star-then-not-boundary");
    }
    let parsed = parse_args(&case.args, &case.env());
    if let Invocation::Run(opts) = &parsed {
        if opts.syntax == Syntax::Perl && !gnu.pcre2_is_ours() {
            return Some("pcre2-release");
        }
        if gnu.grep >= Version(3, 12) && reads_on_to_max_count(opts) {
            return Some("listing-reads-on-to-max-count-3.12");
        }
        // A pattern file is read as patterns too.
        let file_patterns = opts.sources.iter().filter_map(|s| match s {
            PatternSource::File(name) if name.as_slice() == b"-" => match &case.world.stdin.node {
                Node::Regular(d) | Node::Stream(d) => Some(d.as_slice()),
                _ => None,
            },
            PatternSource::File(name) => match case.world.files.get(name) {
                Some(Node::Regular(d)) => Some(d.as_slice()),
                _ => None,
            },
            PatternSource::Expr(_) => None,
        });
        if case.utf8
            && file_patterns
                .into_iter()
                .any(|d| std::str::from_utf8(d).is_err())
        {
            return Some("pattern-encoding-error (utf8)");
        }
    }
    match parsed {
        Invocation::Exit(o) if o.status == 0 => Some("help-and-version-text"),
        Invocation::Exit(o) if o.stderr.ends_with(b" is not supported\n") => Some("refused-option"),
        Invocation::Run(opts) if case.utf8 && kept_back_match_possible(case, &opts) => {
            Some("kept-back-match")
        }
        Invocation::Run(opts) if newline_anchor_possible(case, &opts) => {
            Some("glibc-newline-anchors")
        }
        _ => None,
    }
}

/// `-m` with `-q`, `-l`, `-L` or `-c`: grep 3.12 reads on past the first
/// selected line, up to the `-m`th, so it exits later on a live stream and
/// meets binary input it then reports (`binary file matches`, which 3.8
/// and 3.11 do not print, nor 3.12 itself without `-m`); once, on a pipe,
/// it printed that message with `-c -m` too.  docs/differences.md,
/// `listing-reads-on-to-max-count-3.12`.
fn reads_on_to_max_count(opts: &samebytes_spec::grep::GrepOptions) -> bool {
    let listing = opts.quiet || opts.count || opts.list != ListFiles::None;
    opts.max_count.is_some() && listing
}

/// A back-reference in a pattern where a group is repeated: glibc's regex,
/// which GNU asks for back-references, misses matches there
/// (docs/differences.md, glibc-backref-misses).  Read off the bytes,
/// for both syntaxes: a `\\N`, and a group's close followed by a
/// repetition.
fn backref_after_repeated_group(arg: &[u8]) -> bool {
    let backref = arg
        .windows(2)
        .any(|w| w[0] == b'\\' && (b'1'..=b'9').contains(&w[1]));
    let repeated = (0..arg.len()).any(|i| {
        let rest = &arg[i..];
        let after = match rest {
            [b'\\', b')', after @ ..] | [b')', after @ ..] => after,
            _ => return false,
        };
        matches!(
            after,
            [b'*' | b'+' | b'?' | b'{', ..] | [b'\\', b'+' | b'?' | b'{', ..]
        )
    });
    backref && repeated
}

/// Context with an input holding a line with an encoding error: if that
/// line is selected, GNU 3.8 owes after-context from wherever its last
/// output ended, and prints a group separator as if nothing were adjacent
/// (docs/differences.md, kept-back-match).  Whether the
/// line is selected is the matcher's business, so every such case is left
/// out.
fn kept_back_match_possible(case: &GrepCase, opts: &samebytes_spec::grep::GrepOptions) -> bool {
    let context = opts.before.is_some() || opts.after.is_some();
    if !context || opts.binary_files == BinaryFiles::Text {
        return false;
    }
    let terminator = if opts.null_data { 0 } else { b'\n' };
    let bad_line = |data: &[u8]| {
        data.split(|&b| b == terminator)
            .any(|line| std::str::from_utf8(line).is_err())
    };
    inputs(case).any(bad_line)
}

/// The bytes of every input the case can read.
fn inputs(case: &GrepCase) -> impl Iterator<Item = &[u8]> {
    let stdin = match &case.world.stdin.node {
        Node::Regular(d) | Node::Stream(d) => Some(d.as_slice()),
        _ => None,
    };
    case.world
        .files
        .values()
        .filter_map(|n| match n {
            Node::Regular(d) => Some(d.as_slice()),
            _ => None,
        })
        .chain(stdin)
}

/// With `-z`, an anchor in a pattern glibc decides and a newline in the
/// input: glibc takes a newline the match steps over as a line start or
/// end (docs/differences.md, glibc-newline-anchors).  Which patterns glibc
/// decides is the matcher's business, so every such case is left out.
fn newline_anchor_possible(case: &GrepCase, opts: &samebytes_spec::grep::GrepOptions) -> bool {
    // A pattern file is one of the inputs.
    let anchor = |d: &[u8]| d.contains(&b'^') || d.contains(&b'$');
    let anchor = case.args.iter().any(|a| anchor(a)) || inputs(case).any(anchor);
    opts.null_data && anchor && inputs(case).any(|d| d.contains(&b'\n'))
}

fn run_gnu(gnu: &Gnu, case: &GrepCase, dir: &Scratch) -> (Outcome, Option<Vec<u8>>) {
    let mut cmd = Command::new(gnu.tool("grep"));
    cmd.args(case.args.iter().map(|a| OsStr::from_bytes(a)));
    cmd.env_remove("GREP_COLORS").env_remove("GREP_COLOR");
    if let Some(v) = &case.colors.grep_colors {
        cmd.env("GREP_COLORS", OsStr::from_bytes(v));
    }
    if let Some(v) = &case.colors.grep_color {
        cmd.env("GREP_COLOR", OsStr::from_bytes(v));
    }
    let out_path = match &case.stdout {
        GrepStdout::Stream => {
            cmd.stdout(Stdio::piped());
            None
        }
        GrepStdout::File(name) => Some(dir.path.join(OsStr::from_bytes(name))),
        GrepStdout::DevNull => {
            cmd.stdout(
                OpenOptions::new()
                    .write(true)
                    .open("/dev/null")
                    .expect("/dev/null"),
            );
            None
        }
    };
    if let Some(p) = &out_path {
        let initial = match case.world.files.get(b"f".as_slice()) {
            Some(Node::Regular(d)) => d.clone(),
            _ => Vec::new(),
        };
        std::fs::write(p, initial).expect("create out");
        cmd.stdout(OpenOptions::new().append(true).open(p).expect("open out"));
    }
    let out = run_in_world(cmd, "grep", &case.world, case.utf8, false, dir);
    (
        Outcome::unplaced(
            out.stdout,
            out.stderr,
            out.status.code().expect("grep exited"),
        ),
        out_path.map(|p| std::fs::read(p).expect("read out")),
    )
}

fn show(o: &Outcome) -> String {
    format!(
        "status {}\nstdout: {:?}\nstderr: {:?}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Where GNU's output and the spec's first differ, for a long output.
fn where_they_part(got: &(Outcome, Option<Vec<u8>>), spec: &(Outcome, Option<Vec<u8>>)) -> String {
    let part = |a: &[u8], b: &[u8], what: &str| {
        let at = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        if at == a.len() && at == b.len() {
            return String::new();
        }
        let tail = |d: &[u8]| String::from_utf8_lossy(&d[at..d.len().min(at + 120)]).into_owned();
        format!(
            "{what} parts at byte {at} of {} (GNU) and {} (spec): GNU {:?}, spec {:?}\n",
            a.len(),
            b.len(),
            tail(a),
            tail(b)
        )
    };
    part(&got.0.stdout, &spec.0.stdout, "stdout")
        + &part(
            got.1.as_deref().unwrap_or_default(),
            spec.1.as_deref().unwrap_or_default(),
            "output file",
        )
}

/// The spec's outcome as a real run would show it: with an output file,
/// stdout is in the file after its initial content.
fn spec_view(case: &GrepCase) -> (Outcome, Option<Vec<u8>>) {
    let mut o = case.spec_outcome();
    match &case.stdout {
        GrepStdout::Stream | GrepStdout::DevNull => (o, None),
        GrepStdout::File(_) => {
            let mut file = match case.world.files.get(b"f".as_slice()) {
                Some(Node::Regular(d)) => d.clone(),
                _ => Vec::new(),
            };
            file.extend_from_slice(&std::mem::take(&mut o.stdout));
            (o, Some(file))
        }
    }
}

#[test]
fn spec_agrees_with_gnu_grep_on_generated_cases() {
    let cases: usize = std::env::var("GREP_GNU_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let builds = columns_or_panic();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut compared: BTreeMap<&str, usize> = BTreeMap::new();
    let mut excluded_counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for i in 0..cases {
        let bytes: Vec<u8> = (0..512)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng >> 24) as u8
            })
            .collect();
        let Ok(mut case) = GrepCase::arbitrary(&mut Unstructured::new(&bytes)) else {
            continue;
        };
        case.write.failure = None;
        // Read errors need the fault layer: binary_campaign.rs checks GNU
        // grep against the spec's read-error model under it.
        case.world.read_errors = Default::default();
        // GNU reads stdin here whole, without pauses: grep_live_gnu.rs
        // feeds it burst by burst.
        case.world.stdin_pauses.clear();
        let spec = spec_view(&case);
        for gnu in &builds {
            if let Some(why) = excluded(&case, gnu) {
                *excluded_counts.entry((&gnu.column, why)).or_default() += 1;
                continue;
            }
            let dir = Scratch::new(&format!("grep-gnu-{}-{i}", std::process::id()));
            let got = run_gnu(gnu, &case, &dir);
            *compared.entry(&gnu.column).or_default() += 1;
            if got != spec {
                failures.push(
                    format!(
                    "case {i}, GNU {}: args {:?} utf8 {}\nworld {:?}\n-- GNU:\n{}\n-- spec:\n{}\n",
                    gnu.label(),
                    case.args
                        .iter()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect::<Vec<_>>(),
                    case.utf8,
                    case.world,
                    show(&got.0),
                    show(&spec.0)
                ) + &where_they_part(&got, &spec),
                );
            }
        }
    }
    eprintln!(
        "compared with GNU grep, per build, of {cases} generated cases: {compared:?}; \
         excluded: {excluded_counts:?}"
    );
    for gnu in &builds {
        let n = compared.get(gnu.column.as_str()).copied().unwrap_or(0);
        assert!(
            n > cases / 3,
            "too few cases compared with {}: {n}",
            gnu.label()
        );
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.iter().take(8).cloned().collect::<String>()
    );
}

/// `-m` on a regular-file stdin leaves it just after the last selected
/// line, so the next reader goes on from there (GNU documents this); with
/// no limit reached, at its end, unless it started past the end.
#[test]
fn max_count_leaves_stdin_after_the_last_selected_line() {
    let dir = Scratch::new(&format!("grep-gnu-m-{}", std::process::id()));
    let data = b"a foo\nb\nc foo\nd\ne foo\nf\nno newline foo";
    let path = dir.path.join("in");
    std::fs::write(&path, data).expect("write input");
    let ours = common::binary("grep");
    for args in [
        "-m1 foo",
        "-m2 -A1 foo",
        "-c -m2 foo",
        "-v -m2 foo",
        "-l foo",
        "-m9 foo",
        "-m1 -o o",
        "-l -m1 foo",
        "-L -v -m1 foo",
        "-q -m1 foo",
    ] {
        // From the start, the middle, the end, and past the end (where
        // GNU leaves stdin put, not at the end).
        for start in [0, 7, data.len(), data.len() + 100] {
            let run = |grep: &std::path::Path| {
                let mut input = std::fs::File::open(&path).expect("open input");
                input
                    .seek(SeekFrom::Start(start as u64))
                    .expect("seek input");
                let out = Command::new("sh")
                    .args([
                        "-c",
                        &format!("\"$0\" {args}; echo ==; \"$0\" {args} -; echo =="),
                    ])
                    .arg(grep)
                    .stdin(input.try_clone().expect("dup input"))
                    .env("LC_ALL", "C")
                    .output()
                    .expect("run sh");
                let left_at = input.stream_position().expect("offset");
                format!("{}left at {left_at}", String::from_utf8_lossy(&out.stdout))
            };
            let mine = run(&ours);
            for gnu in columns_or_panic() {
                assert_eq!(
                    mine,
                    run(&gnu.tool("grep")),
                    "{args} from {start}, GNU {}",
                    gnu.label()
                );
            }
        }
    }
}

/// A dialect case: the arguments (the file `f` is added), whether GNU is
/// compared too, and the text of `f`.
type DialectRow = (Vec<Vec<u8>>, bool, &'static [u8]);

/// GNU 3.8's dialect at its edges, each case found by trying GNU itself:
/// syntax errors (glibc's messages, every pattern's), warnings, word
/// constituents from the C library, `-w` by GNU's rule, encoding errors
/// and glibc's long forms, `-z` records.  The spec must give GNU's bytes
/// and status, and the binary's library the spec's.  Back-references
/// where glibc misses matches, and anchors next to newlines with `-z`
/// (docs/differences.md), are compared between the spec and the binary
/// only.
#[test]
fn gnu_dialect_edges_agree_with_the_spec_and_the_implementation() {
    let text: &[u8] = b"_\xf8\x88\x80\x80\x80\nze\xcc\x81\ne\xcc\x81x\nabcabc\nabab\nxyzzy\n_x\nba\n\xff\na\xff\na\x80\n\
        \xf8\x88\x80\x80\x80\n\xf4\x90\x80\x80\n a{1}\n1}a\nx\n\n-a\n\xc5\xbf\nS\n\
        \xf8\x88\x80\x80\x80  \nxay x\xf8\x88\x80\x80\x80\n";
    let perl_text: &[u8] =
        b"12 ab abc\n\xffa\n\xff\n\x80\xffab\n\xc3\xa9ab \xc3\x89x\nb\na\n\nx\n@ a-b\n\
        a\nb\0ab\n\xc3\xa9\xff\xc3\xa9b\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nx\n";
    let e = |p: &[u8]| vec![b"-e".to_vec(), p.to_vec()];
    let with = |opts: &[&[u8]], p: &[u8]| {
        let mut a: Vec<Vec<u8>> = opts.iter().map(|o| o.to_vec()).collect();
        a.extend(e(p));
        a
    };
    let mut table: Vec<DialectRow> = Vec::new();
    let gnu_too = true;
    for p in [
        &b"a{}"[..],
        b"a[1-3-5]c",
        b"(*)b",
        b"(*)b)",
        b"(a|*)b",
        b"a{1,2,3}",
        b"a{2,1}",
        b"a{32768}",
        b"{99999}a",
        b"{1}a",
        b"a{1",
        b"a{,}",
        b"[[.\xc3\xa9.]]",
        b"[[=\xc3\xa9=]]",
        b"[[.a.]-c]",
        b"[[=a=]-c]",
        b"[a-[:alpha:]]",
        b"[z-a]",
        b"[:space:]",
        b"[[:foo:]]",
        b"[[:alpha:]",
        b"x\\",
        b"\\1",
        b"(a)\\2",
        b"*a|*b",
        b"^**",
        b"a|+b",
        b"[\x80-z]",
        b"a[\x80]b",
    ] {
        table.push((with(&[b"-E"], p), gnu_too, text));
    }
    for p in [
        &b"a\\{1"[..],
        b"a\\{1x\\}",
        b"a\\{1,x",
        b"\\(a\\)\\|\\1",
        b"\\(a\\1\\)",
        b"\\{1\\}a",
        b"a\\|*b",
        b"\\(^*a\\)",
        b"\\W\\w",
        b"\\w*",
        b"\\B$",
        b"\\b$",
        b"a\\>",
        b"^.$",
        b"^[^a]$",
        b"^\\S$",
        b"^\\W$",
    ] {
        table.push((with(&[], p), gnu_too, text));
    }
    for (opts, p) in [
        (&[&b"-w"[..]][..], &b"ze"[..]),
        (&[b"-o"], b"\\w*"),
        (&[b"-w"], b""),
        (&[b"-w", b"-c"], b"a"),
        (&[b"-i"], b"s"),
        (&[b"-i"], b"[r-t]"),
        (&[b"-i"], b"[_-a]"),
        (&[b"-i", b"-E"], b"[A-z]"),
        (&[b"-i", b"-E"], b"[^[:lower:]]"),
        (&[b"-x"], b"a."),
        (&[b"-o", b"-E"], b"(a|x)(b|y)"),
        // `.` takes glibc's long forms only where GNU asks glibc.
        (&[b"-o"], b"\\w\\{0,1\\}."),
        (&[b"-o"], b"_\\{0,1\\}."),
        // GNU's DFA runs -x patterns anchored before it asks glibc, and
        // -w ones unwrapped.
        (&[b"-x", b"-E"], b".+(\\W+){1,2}"),
        (&[b"-w"], b"x."),
        // With -i glibc checks a range's ends upcased (`A-[`); in C, GNU's
        // DFA then loops from `a` to `[`, which holds nothing.
        (&[b"-ci"], b"[a-[[:space:]]"),
        (&[b"-ci", b"-E"], b"[a-[ab]"),
        (&[b"-ci"], b"[^a-[]"),
        // A bracket the pattern's end cuts: REG_BADPAT right after `[` or
        // `[^`, REG_EBRACK in a range.
        (&[b"-c"], b"["),
        (&[b"-c", b"-E"], b"a[^"),
        (&[b"-c"], b"x\\|["),
        (&[b"-c"], b"[a-"),
        (&[b"-c"], b"[[:alpha:]-"),
        // A range with an end beyond ASCII, in UTF-8: REG_ECOLLATE first.
        (&[b"-c"], "[a-\u{e9}]".as_bytes()),
        (&[b"-c", b"-i"], "[\u{e9}-z]".as_bytes()),
        (&[b"-c", b"-E"], "[[.a.]-\u{ff}]".as_bytes()),
    ] {
        table.push((with(opts, p), gnu_too, text));
    }
    // Back-references: every option that changes how a match is chosen.
    for (opts, p) in [
        (&[&b"-o"[..]][..], &b"\\(ab*\\)c\\1"[..]),
        (&[b"-o"], b"\\(a\\)\\1"),
        (&[b"-o"], b"\\(b\\)\\1*"),
        (&[b"-E", b"-c"], b"(a|x)(b|y)\\2"),
        (&[b"-E", b"-o"], b"(ab|a)(c|bcd)\\2"),
        (&[b"-w"], b"\\(ab\\)\\1"),
        (&[b"-x"], b"\\(.*\\)\\1"),
        (&[b"-i", b"-o"], b"\\(.\\)\\1"),
        (&[b"-o"], b"\\(z*\\)y\\1"),
        (&[b"-E", b"-o"], b"(a)|b\\1"),
        (&[b"-o"], b"\\(\\w\\)\\1"),
        (&[b"-o"], b"\\(\\<.\\).\\1"),
        (&[b"-n", b"-e", b"xy", b"-e"], b"\\(b\\)a\\1"),
        (&[b"-o", b"-e", b"a"], b"\\(.\\)\\1"),
    ] {
        table.push((with(opts, p), gnu_too, text));
    }
    // glibc misses these matches (`F`, `o`, then `o` again; an empty line
    // twice, then again); the spec and the binary find them.
    for p in [
        &b"\\(\\S\\{,1\\}\\w\\)\\{2\\}\\1"[..],
        b"\\( *$\\)\\{2\\}\\1",
    ] {
        table.push((with(&[b"-c"], p), false, text));
    }
    // GNU compiles several patterns as one newline-joined regex: glibc
    // then finds the empty word between the spaces, which alone (GNU's
    // glibc-star-then-not-boundary) it misses; the binaries compile
    // every pattern joined, so spec and binary agree either way.
    let spaced: &[u8] = b"\xc3\xa9 a  _\na  _\n\xc3\xa9 a _\n";
    table.push((with(&[b"-w", b"-e", b"zzz"], b" *\\B"), gnu_too, spaced));
    table.push((with(&[b"-c", b"-e", b"zzz"], b"\\w \\B"), gnu_too, spaced));
    table.push((with(&[b"-w"], b" *\\B"), false, spaced));
    // A pattern byte that is no character, beside `.`, on a long form:
    // the DFA's superset may start at any byte (GNU's lets every line
    // through), and glibc's `.` takes the long form under -w.
    for opts in [&[&b"-w"[..]][..], &[b"-c"], &[b"-cw"]] {
        let mut opts = opts.to_vec();
        opts.extend([&b"-e"[..], b"\x80\x80\x80"]);
        table.push((with(&opts, b"."), false, text));
    }
    // Records with newlines (no long form: GNU's DFA lets every one
    // through): GNU's glibc takes the newlines the match steps over as
    // line ends, the spec and the binary do not.
    let records: &[u8] = b"a \n\xc3\xa9\0\xc3\xa9a\nb\0x\n\n-a\0";
    for p in [&b"\\B\\W*^"[..], b"\\w$\\W*", b"\\W^\\w"] {
        for o in [&b"-c"[..], b"-o"] {
            table.push((with(&[b"-z", o, b"-E"], p), false, records));
        }
    }
    // -P: PCRE2 as GNU 3.8 compiles it (one pattern; -w as text around
    // it, -x as PCRE2's line option, $ only at the end, no Unicode
    // classes), its messages, and GNU's search around it: each line a
    // subject, bytes no character starts with stepped over (`\G`, `^`
    // and lookbehinds see the subject start again after them).
    for (opts, p) in [
        (&[&b"-o"[..]][..], &b"\\d+"[..]),
        (&[b"-o"], b"a(?=b)"),
        (&[b"-o"], b"(?<=a)b"),
        (&[b"-o"], b"(?<!a)b"),
        (&[b"-o"], b"a.*?c"),
        (&[b"-o"], b"(?<=a)"),
        (&[b"-c"], b"^"),
        (&[b"-c"], b"$"),
        (&[b"-o"], b"\\Ga"),
        (&[b"-o"], b"\\w+"),
        (&[b"-o"], b"[[:alpha:]]+"),
        (&[b"-o", b"-i"], b"\\x{e9}"),
        (&[b"-w"], b"a"),
        (&[b"-w"], b"a)|(b"),
        (&[b"-w", b"-o"], b"\\W"),
        (&[b"-x"], b"a)|(b"),
        (&[b"-x"], b"ab|abc"),
        (&[b"-x", b"-w"], b"x|a"),
        (&[b"-z", b"-o"], b"a$"),
        (&[b"-z", b"-c"], b"^b"),
        (&[b"-o"], b"a)"),
        (&[b"-c"], b"(?<=a+)b"),
        (&[b"-c"], b"\\"),
        (&[b"-c"], b"[b-a]"),
        (&[b"-c"], b"\xff"),
        (&[b"-c"], b"x|(a|aa)*b"),
        (&[b"-e", b"a"], b"b"),
        (&[b"-e", b"a"], b"a"),
        (&[b"-c", b"-v"], b""),
    ] {
        let mut opts = opts.to_vec();
        opts.insert(0, b"-P");
        table.push((with(&opts, p), gnu_too, perl_text));
    }
    let builds = columns_or_panic();
    let mut failures = Vec::new();
    let mut compared = 0;
    for (i, (args, with_gnu, text)) in table.into_iter().enumerate() {
        for utf8 in [true, false] {
            let mut args = args.clone();
            args.push(b"f".to_vec());
            let mut world = samebytes_spec::world::World::default();
            world
                .files
                .insert(b"f".to_vec(), Node::Regular(text.to_vec()));
            let mut case = GrepCase {
                args,
                utf8,
                world,
                stdout: GrepStdout::Stream,
                read: Default::default(),
                write: Default::default(),
                buffer: 4096,
                colors: Default::default(),
            };
            case.write.failure = None;
            let dir = Scratch::new(&format!("grep-dialect-{}-{i}-{utf8}", std::process::id()));
            let spec = spec_view(&case);
            compared += 1;
            let shown = || {
                case.args
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>()
            };
            // -P on another PCRE2 release than ours is `pcre2-release`.
            let perl = case.args.iter().any(|a| a.as_slice() == b"-P");
            for gnu in builds
                .iter()
                .filter(|g| with_gnu && (!perl || g.pcre2_is_ours()))
            {
                let got = run_gnu(gnu, &case, &dir);
                if got != spec {
                    failures.push(format!(
                        "{:?} utf8 {utf8}\n-- GNU {}:\n{}\n-- spec:\n{}\n",
                        shown(),
                        gnu.label(),
                        show(&got.0),
                        show(&spec.0)
                    ));
                }
            }
            if let Err(m) = samebytes_oracle::grep::check_grep(&case) {
                failures.push(format!("{:?} utf8 {utf8}: impl vs spec\n{m}\n", shown()));
            }
        }
    }
    assert!(compared > 100, "{compared}");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// GNU grep on a live stdin (oracle/src/binary/live.rs): on a terminal,
/// and with `--line-buffered`, what it has written and whether it has
/// exited at each pause is what the spec decides; on a pipe without it,
/// what it has written is a prefix of that (stdio holds the rest).  Only
/// where GNU's answer does not depend on how its reads fall: no NUL in
/// stdin (GNU decides binary input per read), and the named rules above.
#[test]
fn gnu_grep_on_a_live_stream_agrees_with_the_spec() {
    use proptest::strategy::{Strategy, ValueTree};
    use samebytes_oracle::binary::live::LiveStdout;
    use samebytes_oracle::binary::live_check::{check_grep_live, grep_runs_live, Strictness};
    let cases: usize = std::env::var("GREP_GNU_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(150, |n: usize| n / 4);
    let builds = columns_or_panic();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = samebytes_oracle::grep::grep_case();
    let (mut ran, mut drawn, mut pauses) = (0, 0, 0);
    let mut failures = Vec::new();
    while ran < cases && drawn < cases * 400 {
        drawn += 1;
        let mut case = strategy.new_tree(&mut runner).expect("a case").current();
        let nul_free = matches!(&case.world.stdin.node, Node::Stream(d) if !d.contains(&0));
        if !grep_runs_live(&case)
            || !nul_free
            || builds.iter().any(|gnu| excluded(&case, gnu).is_some())
        {
            continue;
        }
        let (stdout, strictness) = match ran % 3 {
            0 => (LiveStdout::Terminal, Strictness::Exact),
            1 => (LiveStdout::Pipe, Strictness::Prefix),
            _ => {
                case.args.insert(0, b"--line-buffered".to_vec());
                (LiveStdout::Pipe, Strictness::Exact)
            }
        };
        for gnu in &builds {
            let program = gnu.tool("grep");
            let what = || format!("GNU {}: {case:?}", gnu.label());
            match check_grep_live(&case, &program, stdout, strictness, &[], &what) {
                Ok(n) => pauses += n,
                Err(m) => failures.push(m.to_string()),
            }
        }
        ran += 1;
    }
    eprintln!(
        "{ran} live cases against each GNU grep build, {pauses} pauses checked ({drawn} drawn)"
    );
    assert_eq!(ran, cases, "too few generated cases can run live");
    assert!(
        failures.is_empty(),
        "{} of {ran} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A line longer than glibc's regex offsets reach (2 GiB), in a sparse
/// file whose holes read as NULs: where ours needs glibc's regex to decide
/// it (`\<` in UTF-8), it dies as GNU does there, `memory exhausted` with
/// status 2 after the lines before it, and leaves the next file unread.
#[test]
fn a_line_past_glibcs_offsets_ends_the_run_as_gnu_does() {
    let dir = Scratch::new("longline");
    let long = dir.path.join("long");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&long).unwrap();
        f.write_all(b"ab first\n").unwrap();
        f.seek(SeekFrom::Start((1 << 31) + 100)).unwrap();
        f.write_all(" \u{e9} ab\nab last\n".as_bytes()).unwrap();
    }
    std::fs::write(dir.path.join("small"), "ab small\n").unwrap();
    let ours = common::binary("grep");
    // One case: ours, a debug build, takes some 20 s over the long line.
    {
        let args = ["-a", "-n", "\\<ab", "small", "long", "small"];
        let run = |program: &std::path::Path| {
            let out = Command::new(program)
                .arg0("grep")
                .args(args)
                .current_dir(&dir.path)
                .env("LC_ALL", "C.UTF-8")
                .stdin(Stdio::null())
                .output()
                .expect("run grep");
            (
                out.stdout,
                String::from_utf8_lossy(&out.stderr).into_owned(),
                out.status.code(),
            )
        };
        let got = run(&ours);
        for build in columns_or_panic() {
            let gnu = run(&build.tool("grep"));
            assert!(
                gnu.1.contains("memory exhausted"),
                "GNU {}: {}",
                build.label(),
                gnu.1
            );
            assert!(
                got.0 == gnu.0,
                "{args:?}: stdout {:?}, GNU {}'s {:?}",
                got.0,
                build.label(),
                gnu.0
            );
            assert_eq!(
                (&got.1, got.2),
                (&gnu.1, gnu.2),
                "{args:?}, GNU {}",
                build.label()
            );
        }
    }
}
