//! GNU conformance: the spec against GNU cat on generated cases
//! materialised as real files, pipes and output files, and the built
//! binary against the spec on the same setup.  Every GNU build
//! `SAMEBYTES_GNU` names is compared (samebytes_oracle::gnu: by default
//! the system's coreutils 9.1 and Debian trixie's 9.7); a rule that holds
//! only for older GNU excludes its cases for those builds alone.
//!
//! Cases that use what only samebytes has (`--read-buffer-size`,
//! `--write-buffer-size`, `--debug`) run GNU without those options, which
//! must not change the output; cases where they would change the outcome
//! (a bad value) are excluded by a named rule, as is the help text.

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use common::{binary, dev_full, run_in_world, Scratch};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use samebytes_oracle::cat::{cat_case, CatCase};
use samebytes_oracle::gnu::{columns_or_panic, quotes_name_otherwise, Gnu, Version};
use samebytes_spec::cat::{parse_args, CatStdout, Invocation};
use samebytes_spec::world::Node;
use samebytes_spec::Outcome;

fn is_samebytes_option(a: &[u8]) -> bool {
    [b"--read".as_slice(), b"--write", b"--debug"]
        .iter()
        .any(|p| a.starts_with(p))
}

/// The documented reasons a case is not compared with `gnu`, by rule
/// name (docs/differences.md).
fn excluded(case: &CatCase, gnu: &Gnu) -> Option<&'static str> {
    if case.args.iter().any(|a| a.is_empty()) {
        return Some("empty argument (not materialisable)");
    }
    if case.args.iter().any(|a| quotes_name_otherwise(gnu, a)) {
        return Some("quotearg-restart-state");
    }
    let ours = case.args.iter().any(|a| is_samebytes_option(a));
    let parsed = parse_args(&case.args, &case.env());
    if let (CatStdout::Overwrite(out), Invocation::Run(opts)) = (&case.stdout, &parsed) {
        let names_out = opts.operands.iter().any(|o| o == out);
        let refills = names_out && !initial_out(case).is_empty();
        if refills && gnu.coreutils < Version(9, 6) && !opts.format.may_lengthen() {
            // 9.1 refuses the output file as an input whenever it holds
            // bytes; current GNU (and we) copy it onto itself when nothing
            // has been written to it yet and the output cannot outgrow
            // the input.
            return Some("self-copy-behind-the-reader-since-9.6");
        }
        if refills && gnu.coreutils >= Version(9, 6) && opts.format.may_lengthen() {
            // Current GNU copies it with `-n`, `-E`, `-A` as well, and the
            // output, longer than what it read, refills the input forever;
            // we refuse it as a copy that never ends.
            return Some("self-copy-that-lengthens");
        }
    }
    match parsed {
        Invocation::Exit(o) if o.status == 0 => Some("help-and-version-text"),
        Invocation::Exit(_) if ours => Some("samebytes-options"),
        _ if ours && (case.posixly_correct || case.args.iter().any(|a| a == b"--")) => {
            // Where an option ends and operands begin depends on the
            // options we would strip.
            Some("samebytes-options")
        }
        _ => None,
    }
}

/// What the case's stdout file holds after a run: its initial content and
/// everything appended.
struct RealOutcome {
    outcome: Outcome,
    out_file: Option<Vec<u8>>,
}

fn run_real(program: &OsStr, case: &CatCase, args: &[Vec<u8>], dir: &Scratch) -> RealOutcome {
    let mut cmd = Command::new(program);
    cmd.args(args.iter().map(|a| OsStr::from_bytes(a)));
    let out_path = match &case.stdout {
        CatStdout::Stream => {
            cmd.stdout(Stdio::piped());
            None
        }
        CatStdout::File(name) | CatStdout::Overwrite(name) => {
            Some(dir.path.join(OsStr::from_bytes(name)))
        }
        CatStdout::Regular => Some(dir.path.join(".stdout")),
        CatStdout::Closed => {
            cmd.stdout(Stdio::null());
            common::close_in_child(&mut cmd, 1);
            None
        }
    };
    if let Some(p) = &out_path {
        // run_in_world writes the same bytes again (same size, same
        // inode); the descriptor opened here stays valid.
        std::fs::write(p, initial_out(case)).expect("create out");
        let mut open = OpenOptions::new();
        match case.stdout {
            CatStdout::Overwrite(_) => open.read(true).write(true),
            _ => open.append(true),
        };
        cmd.stdout(open.open(p).expect("open out"));
    }
    let out = run_in_world(
        cmd,
        "cat",
        &case.world,
        case.utf8,
        case.posixly_correct,
        dir,
    );
    RealOutcome {
        outcome: Outcome::unplaced(
            out.stdout,
            out.stderr,
            out.status.code().unwrap_or_else(|| {
                panic!(
                    "{} killed: {:?} {args:?}",
                    program.to_string_lossy(),
                    out.status
                )
            }),
        ),
        out_file: out_path.map(|p| std::fs::read(p).expect("read out")),
    }
}

/// What the case's stdout file holds before the run.
fn initial_out(case: &CatCase) -> Vec<u8> {
    match &case.stdout {
        CatStdout::File(name) | CatStdout::Overwrite(name) => match case.world.files.get(name) {
            Some(Node::Regular(d)) => d.clone(),
            _ => Vec::new(),
        },
        CatStdout::Stream | CatStdout::Regular | CatStdout::Closed => Vec::new(),
    }
}

fn show(o: &Outcome) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The spec's outcome as the real setup shows it: with stdout a file, the
/// bytes land in the file after its initial content.
fn expected(case: &CatCase) -> RealOutcome {
    let mut outcome =
        samebytes_spec::cat::cat(&case.args, &case.env(), &case.world, &case.stdout, None);
    let out_file = match &case.stdout {
        CatStdout::Stream | CatStdout::Closed => None,
        CatStdout::File(_) | CatStdout::Overwrite(_) | CatStdout::Regular => {
            let written = std::mem::take(&mut outcome.stdout);
            Some(case.stdout.after_writing(initial_out(case), &written))
        }
    };
    RealOutcome { outcome, out_file }
}

#[test]
fn spec_matches_gnu_cat_and_binary_matches_spec() {
    let builds = columns_or_panic();
    let ours = binary("cat");
    // No shrinking: a failure is reported as generated, with its reproducer.
    let cases = common::case_count("CAT_GNU_CASES", 700);
    let mut runner = TestRunner::new(Config {
        cases: cases as u32,
        max_shrink_iters: 0,
        ..Config::default()
    });
    let excluded_counts: std::cell::RefCell<BTreeMap<(&str, &str), usize>> = Default::default();
    let compared: std::cell::RefCell<BTreeMap<&str, usize>> = Default::default();
    let strategy = cat_case().prop_map(|mut c| {
        // Partial write failures cannot be built with real descriptors;
        // read errors need the fault layer, under which binary_campaign.rs
        // holds GNU to the spec's read-error model.
        c.write = Default::default();
        c.world.read_errors = Default::default();
        // Named FIFOs and unreadable files (we run as root) become regular
        // files: the harness cannot build them, the binary tests cover them.
        for node in c.world.files.values_mut() {
            if let Node::Stream(d) = node {
                *node = Node::Regular(std::mem::take(d));
            } else if matches!(node, Node::Unreadable) {
                *node = Node::Regular(b"secret\n".to_vec());
            }
        }
        c
    });
    runner
        .run(&strategy, |case| {
            let want = expected(&case);
            let gnu_args: Vec<Vec<u8>> = case
                .args
                .iter()
                .filter(|a| !is_samebytes_option(a))
                .cloned()
                .collect();
            for gnu in &builds {
                if let Some(why) = excluded(&case, gnu) {
                    *excluded_counts
                        .borrow_mut()
                        .entry((&gnu.column, why))
                        .or_default() += 1;
                    continue;
                }
                *compared.borrow_mut().entry(&gnu.column).or_default() += 1;
                let got = run_real(
                    gnu.tool("cat").as_os_str(),
                    &case,
                    &gnu_args,
                    &Scratch::new("gnu"),
                );
                prop_assert_eq!(
                    &got.outcome,
                    &want.outcome,
                    "GNU {}:\n{}\nspec:\n{}\nreproduce: {}",
                    gnu.label(),
                    show(&got.outcome),
                    show(&want.outcome),
                    case.reproducer()
                );
                prop_assert_eq!(
                    &got.out_file,
                    &want.out_file,
                    "output file, GNU {}; {}",
                    gnu.label(),
                    case.reproducer()
                );
            }
            let bin = run_real(ours.as_os_str(), &case, &case.args, &Scratch::new("bin"));
            prop_assert_eq!(
                &bin.outcome,
                &want.outcome,
                "binary:\n{}\nspec:\n{}\nreproduce: {}",
                show(&bin.outcome),
                show(&want.outcome),
                case.reproducer()
            );
            prop_assert_eq!(
                &bin.out_file,
                &want.out_file,
                "output file; {}",
                case.reproducer()
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let (compared, excluded_counts) = (compared.into_inner(), excluded_counts.into_inner());
    eprintln!("compared with GNU cat, per build: {compared:?}; excluded: {excluded_counts:?}");
    for gnu in &builds {
        let n = compared.get(gnu.column.as_str()).copied().unwrap_or(0);
        assert!(
            n >= cases * 350 / 700,
            "too few cases compared with {}: {n}, excluded {excluded_counts:?}",
            gnu.label()
        );
    }
}

/// Ours through `run`, then every GNU build: the same stderr and status.
/// GNU's runs, for what else a test asks of them.
fn stderr_and_status_as_gnus(
    run: &dyn Fn(&OsStr) -> std::process::Output,
    what: &str,
) -> Vec<std::process::Output> {
    let bin = run(binary("cat").as_os_str());
    columns_or_panic()
        .into_iter()
        .map(|build| {
            let gnu = run(build.tool("cat").as_os_str());
            assert_eq!(
                String::from_utf8_lossy(&bin.stderr),
                String::from_utf8_lossy(&gnu.stderr),
                "{what}, GNU {}",
                build.label()
            );
            assert_eq!(bin.status.code(), gnu.status.code(), "{what}");
            gnu
        })
        .collect()
}

#[test]
fn dev_full_and_help_match_gnu() {
    // Write failures GNU can show for real: /dev/full under each path.
    let s = Scratch::new("cat-gnu-full");
    std::fs::write(s.path.join("a"), b"line\n\x01\r\n").expect("write a");
    for args in [
        &["a"][..],
        &["-A", "a"],
        &["-n", "a", "missing"],
        &["missing", "a"],
    ] {
        let run = |program: &OsStr| {
            let mut cmd = Command::new(program);
            std::os::unix::process::CommandExt::arg0(&mut cmd, "cat");
            cmd.args(args)
                .current_dir(&s.path)
                .env("LC_ALL", "C")
                .stdout(dev_full())
                .output()
                .expect("run cat")
        };
        stderr_and_status_as_gnus(&run, &format!("{args:?}"));
    }
}

#[test]
fn closed_standard_descriptors_match_gnu() {
    // Rust's start-up code reopens closed standard descriptors on
    // /dev/null; GNU sees EBADF.  Both run from the same shell line.
    let s = Scratch::new("cat-gnu-closed");
    std::fs::write(s.path.join("a"), b"line\n").expect("write a");
    for line in [
        "\"$0\" a >&-",
        "\"$0\" --help >&-",
        "\"$0\" <&-",
        "\"$0\" -n - a - <&-",
        "\"$0\" a <&-",
    ] {
        let run = |program: &OsStr| {
            let out = Command::new("sh")
                .args([OsStr::new("-c"), OsStr::new(line), program])
                .current_dir(&s.path)
                .env("LC_ALL", "C")
                .output()
                .expect("run sh");
            let name = program.to_string_lossy().into_owned();
            (
                out.stdout,
                String::from_utf8_lossy(&out.stderr).replace(&name, "cat"),
                out.status.code(),
            )
        };
        let bin = run(binary("cat").as_os_str());
        for build in columns_or_panic() {
            let gnu = run(build.tool("cat").as_os_str());
            assert_eq!(bin, gnu, "{line}, GNU {}", build.label());
        }
    }
}

#[test]
fn unreadable_stdin_socket_matches_gnu() {
    // A listening socket refuses both splice and read (EINVAL): the splice
    // path must hand over to read/write, which reports the error as GNU
    // does, instead of retrying or losing it.
    let s = Scratch::new("cat-gnu-listen");
    let listener =
        std::os::unix::net::UnixListener::bind(s.path.join("sock")).expect("bind socket");
    for args in [&[][..], &["-n"]] {
        let run = |program: &OsStr| {
            let mut cmd = Command::new(program);
            std::os::unix::process::CommandExt::arg0(&mut cmd, "cat");
            let out_file = std::fs::File::create(s.path.join("out")).expect("create out");
            cmd.args(args)
                .env("LC_ALL", "C")
                .stdin(std::os::fd::OwnedFd::from(
                    listener.try_clone().expect("clone listener"),
                ))
                .stdout(out_file)
                .output()
                .expect("run cat")
        };
        for gnu in stderr_and_status_as_gnus(&run, &format!("{args:?}")) {
            assert!(!gnu.stderr.is_empty());
        }
    }
}

/// GNU's quoting of a file name in a diagnostic (gnulib quotearg's
/// shell-escape style), for any name: control bytes, invalid UTF-8,
/// apostrophes next to escaped bytes (`$'\212'\'''`), both locales.  The
/// spec's `quotef` is what the tools print; GNU cat says it for a name that
/// does not exist.  Every GNU build `SAMEBYTES_GNU` names is asked, each
/// but for the names its quoting is known to differ on
/// (`quotearg-restart-state`).
#[test]
fn quoting_of_any_name_matches_gnu() {
    let builds = columns_or_panic();
    let byte = prop_oneof![
        Just(b'\''),
        Just(b'a'),
        Just(b' '),
        Just(b'\n'),
        Just(b'\\'),
        Just(b'$'),
        0x01u8..0x20,
        0x80u8..=0xff,
        Just(0xc3),
        Just(0xa9),
    ];
    let name = proptest::collection::vec(byte, 1..12);
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 500,
        ..Default::default()
    });
    runner
        .run(&(name, any::<bool>()), |(name, utf8)| {
            let locale = if utf8 {
                samebytes_spec::Locale::Utf8
            } else {
                samebytes_spec::Locale::C
            };
            let dir = Scratch::new("quote");
            let mut want = b"cat: ".to_vec();
            want.extend(samebytes_spec::quote::quotef(&name, locale));
            want.extend_from_slice(b": No such file or directory\n");
            for gnu in &builds {
                if quotes_name_otherwise(gnu, &name) {
                    continue;
                }
                let out = Command::new(gnu.tool("cat"))
                    .arg0("cat")
                    .arg(std::ffi::OsStr::from_bytes(&name))
                    .current_dir(&dir.path)
                    .env("LC_ALL", if utf8 { "C.UTF-8" } else { "C" })
                    .output()
                    .expect("run GNU cat");
                prop_assert_eq!(
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                    String::from_utf8_lossy(&want).into_owned(),
                    "{:?} by GNU {}",
                    name,
                    gnu.label()
                );
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}
