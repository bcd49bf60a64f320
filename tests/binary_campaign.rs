//! The binaries themselves under the fault layer, against the spec: a
//! bounded share of `samebytes-oracle campaign --binaries` for each tool,
//! and checks that the layer really intercepts the calls each kernel path
//! depends on (on our binaries and on GNU's).

mod common;

use common::campaign_binaries as binaries;

use std::path::{Path, PathBuf};
use std::process::Command;

use samebytes_oracle::binary::{report, Tool};
use samebytes_oracle::faultplan::{Counts, InputEio, Kind, Outcome, Plan, COUNTS_FILE_LEN, ENV};
use samebytes_oracle::gnu::Version;

/// The most cases a bounded campaign runs before it gives up on reaching
/// every cell.
const MAX_CASES: u64 = 1500;

/// Run `tool`'s cases from `seed` until every kernel path it has was
/// taken under every fault that applies to it (the `--strict` table of
/// `samebytes-oracle campaign --binaries`), failing on a mismatch or on a
/// cell never met within [`MAX_CASES`].
fn every_cell_matches_spec(tool: Tool, seed: u64) {
    let r = report::until_every_cell(binaries(), tool, seed, MAX_CASES);
    if let Some(m) = r.mismatches.first() {
        panic!("{m}");
    }
    let unreached = r.unreached();
    assert!(
        unreached.is_empty(),
        "after {} cases:\n{}",
        r.cases,
        unreached.join("\n")
    );
    eprintln!("{}: every cell met in {} cases", tool.name(), r.cases);
}

#[test]
fn wc_binary_matches_spec_on_every_path_and_fault() {
    every_cell_matches_spec(Tool::Wc, 0x77c0);
}

#[test]
fn cat_binary_matches_spec_on_every_path_and_fault() {
    every_cell_matches_spec(Tool::Cat, 0xca70);
}

#[test]
fn grep_binary_matches_spec_on_every_path_and_fault() {
    every_cell_matches_spec(Tool::Grep, 0x96e0);
}

#[test]
fn yes_binary_matches_spec_on_every_path_and_fault() {
    every_cell_matches_spec(Tool::Yes, 0x7e50);
}

#[test]
fn campaign_report_names_every_unreached_cell() {
    // A report from no cases: every applicable path is unreached, and says so.
    let settings = samebytes_oracle::campaign::Settings {
        tools: Tool::ALL.to_vec(),
        seconds: std::time::Duration::ZERO,
        jobs: 2,
        seed: 1,
    };
    let progress = samebytes_oracle::campaign::Progress::silent();
    let done = report::campaign(binaries(), &settings, &progress);
    for (_, r) in &done.tallies {
        assert_eq!(r.cases, 0);
        assert_eq!(r.unreached().len(), report::applicable(r.tool).len());
    }
    let text = report::render(&done, &settings);
    assert!(text.contains("Unreached"), "{text}");
    // The file report lists them too.
    let summary = report::summary(&done, &settings);
    for t in &summary.tools {
        assert_eq!(t.notes.len(), t.paths.len(), "{}: {:?}", t.name, t.notes);
    }
}

/// Run `program args` under the layer with `plan`; returns (stdout,
/// stderr, status, counts).
fn under_layer(
    program: &Path,
    args: &[&str],
    plan: Plan,
    stdout_file: Option<&Path>,
) -> (Vec<u8>, String, i32, Counts) {
    under_layer_with_env(program, args, plan, stdout_file, &[])
}

/// [`under_layer`] with more environment.
fn under_layer_with_env(
    program: &Path,
    args: &[&str],
    mut plan: Plan,
    stdout_file: Option<&Path>,
    env: &[(&str, &str)],
) -> (Vec<u8>, String, i32, Counts) {
    let dir = std::env::temp_dir().join(format!(
        "samebytes-layer-{}-{}",
        std::process::id(),
        args.join("_").len()
    ));
    std::fs::create_dir_all(&dir).expect("scratch");
    let counts_path = dir.join(format!(
        "counts-{}",
        program.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&counts_path, vec![0u8; COUNTS_FILE_LEN]).expect("counts file");
    plan.counts = Some(counts_path.to_string_lossy().into_owned());
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("LD_PRELOAD", binaries().layer())
        .env(ENV, plan.render())
        .env("LC_ALL", "C")
        .envs(env.iter().copied());
    if let Some(p) = stdout_file {
        cmd.stdout(std::fs::File::create(p).expect("stdout file"));
    }
    let out = cmd.output().expect("run under the layer");
    let counts = Counts::from_bytes(&std::fs::read(&counts_path).expect("counts"));
    let _ = std::fs::remove_file(&counts_path);
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
        counts,
    )
}

/// The GNU builds `SAMEBYTES_GNU` names (samebytes_oracle::gnu).
fn gnu_builds() -> &'static [samebytes_oracle::gnu::Gnu] {
    static BUILDS: std::sync::OnceLock<Vec<samebytes_oracle::gnu::Gnu>> =
        std::sync::OnceLock::new();
    BUILDS.get_or_init(samebytes_oracle::gnu::columns_or_panic)
}

fn big_file(name: &str, len: usize) -> PathBuf {
    let p = std::env::temp_dir().join(format!("samebytes-layer-{}-{name}", std::process::id()));
    let line = b"the quick brown fox jumps over the lazy dog\n";
    let data: Vec<u8> = line.iter().copied().cycle().take(len).collect();
    std::fs::write(&p, data).expect("write big file");
    p
}

fn eio_at(path: &Path, at: u64) -> InputEio {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).expect("stat");
    InputEio {
        dev: m.dev(),
        ino: m.ino(),
        at,
    }
}

#[test]
fn layer_fails_gnu_wc_reads_too() {
    // The test of the test: GNU's wc, whose reads go through the same
    // symbol, meets the layer's EIO and reports it as it reports any.
    let file = big_file("gnu-wc", 300_000);
    let plan = Plan {
        seed: 7,
        short: 30,
        eintr: 10,
        input_eio: vec![eio_at(&file, 100_000)],
        ..Plan::default()
    };
    let (stdout, stderr, status, counts) = under_layer(
        Path::new("/usr/bin/wc"),
        &["-l", file.to_str().unwrap()],
        plan,
        None,
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains("Input/output error"), "{stderr}");
    assert!(counts.get(Kind::Read, Outcome::InputFailed) > 0);
    assert!(
        counts.get(Kind::Read, Outcome::Short) > 0,
        "short reads were applied"
    );
    // GNU 9.1 discards the lines of a -l count that failed; current GNU
    // keeps them (ours does).  Either way a count line was printed.
    assert!(!stdout.is_empty());
    let _ = std::fs::remove_file(file);
}

#[test]
fn layer_intercepts_every_path_of_our_wc() {
    // A file past the two-thread threshold with a bad byte in its second
    // half: the pread threads meet it, and the binary reports it with the
    // lines before it.
    let file = big_file("our-wc", 9 << 20);
    let at = 7 << 20;
    let plan = Plan {
        seed: 3,
        short: 20,
        eintr: 10,
        input_eio: vec![eio_at(&file, at)],
        ..Plan::default()
    };
    let wc = binaries().tool(Tool::Wc);
    let (stdout, stderr, status, counts) =
        under_layer(&wc, &["-l", file.to_str().unwrap()], plan, None);
    assert!(
        counts.get(Kind::Pread, Outcome::Calls) > 0,
        "pread threads ran"
    );
    assert!(
        counts.get(Kind::Pread, Outcome::InputFailed) > 0,
        "and met the error"
    );
    // The error is reported, not retried down the mapping path.
    assert_eq!(
        counts.get(Kind::MmapFile, Outcome::Calls),
        0,
        "retried by mapping"
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.ends_with("Input/output error\n"), "{stderr}");
    let data = std::fs::read(&file).expect("read back");
    let lines = data[..at as usize].iter().filter(|&&b| b == b'\n').count();
    assert_eq!(
        String::from_utf8_lossy(&stdout),
        format!("{lines} {}\n", file.display())
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn wc_grows_a_pipe_it_reads() {
    // Counting lines from a pipe, wc asks for a bigger pipe (so the writer
    // runs ahead), as counting bytes from one does before it splices.
    let wc = binaries().tool(Tool::Wc);
    for option in ["-l", "-c"] {
        let script = format!("head -c 300000 /dev/zero | '{}' {option}", wc.display());
        let (stdout, stderr, status, counts) = under_layer(
            Path::new("/bin/sh"),
            &["-c", &script],
            Plan::default(),
            None,
        );
        assert_eq!((status, stderr.as_str()), (0, ""), "{option}");
        assert!(!stdout.is_empty());
        assert!(
            counts.get(Kind::SetPipeSize, Outcome::Calls) > 0,
            "wc {option} left its pipe at the default size"
        );
    }
}

#[test]
fn grep_drains_a_stdin_pipe_through_interrupted_reads_as_gnu() {
    // Binary input with -I ends grep's search at once; it then drains a
    // stdin pipe as GNU's finalize_input does, so the writer is never cut
    // off, and a drain read that is interrupted or cut short is asked
    // again, never reported.  The script exits 99 if the writer was cut
    // off, and with grep's status (1: no match) otherwise.
    // (Not with stdout on /dev/null: GNU drains by splice then, and reports
    // an EINTR from it.)
    let file = big_file("grep-drain", 4 << 20);
    let plan = || Plan {
        seed: 11,
        eintr: 30,
        short: 30,
        ..Plan::default()
    };
    let run = |grep: &Path| {
        let script = format!(
            "{{ printf '\\0'; /usr/bin/cat '{}'; }} | '{}' -I fox; \
             s=(\"${{PIPESTATUS[@]}}\"); [ \"${{s[0]}}\" = 0 ] || exit 99; exit \"${{s[1]}}\"",
            file.display(),
            grep.display()
        );
        under_layer(Path::new("/bin/bash"), &["-c", &script], plan(), None)
    };
    let (_, ours_err, ours_status, counts) = run(&binaries().tool(Tool::Grep));
    for gnu in gnu_builds() {
        let (_, gnu_err, gnu_status, _) = run(&gnu.tool("grep"));
        assert_eq!(
            (gnu_status, gnu_err.as_str()),
            (1, ""),
            "GNU {} under the plan",
            gnu.label()
        );
    }
    assert_eq!(
        (ours_status, ours_err.as_str()),
        (1, ""),
        "ours under the plan"
    );
    assert!(
        counts.get(Kind::Read, Outcome::Eintr) > 10,
        "interrupted reads: {}",
        counts.get(Kind::Read, Outcome::Eintr)
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn grep_search_of_stdin_at_an_offset_ends_at_a_read_error_as_gnu() {
    // stdin is a file already read 1000 bytes into; ours reads it from
    // there in 64 KiB pieces and meets the bad region several reads in,
    // and ends as GNU's search ends: the same count, the same error.
    let file = big_file("grep-offset", 1 << 20);
    let plan = || Plan {
        seed: 5,
        input_eio: vec![eio_at(&file, 700_000)],
        ..Plan::default()
    };
    let env = [("SAMEBYTES_GREP_BUFFER", "65536")];
    let script = |grep: &Path| {
        format!(
            "{{ head -c 1000 >/dev/null; '{}' -c fox -; }} < '{}'",
            grep.display(),
            file.display()
        )
    };
    let ours = binaries().tool(Tool::Grep);
    let (got, got_err, got_status, counts) = under_layer_with_env(
        Path::new("/bin/sh"),
        &["-c", &script(&ours)],
        plan(),
        None,
        &env,
    );
    assert!(
        counts.get(Kind::Read, Outcome::InputFailed) > 0,
        "a read failed"
    );
    for gnu in gnu_builds() {
        let gnu_grep = gnu.tool("grep");
        let (want, want_err, want_status, _) = under_layer(
            Path::new("/bin/sh"),
            &["-c", &script(&gnu_grep)],
            plan(),
            None,
        );
        assert_eq!(
            (
                got_status,
                String::from_utf8_lossy(&got),
                got_err.replace(&ours.display().to_string(), "grep")
            ),
            (
                want_status,
                String::from_utf8_lossy(&want),
                want_err.replace(&gnu_grep.display().to_string(), "grep")
            ),
            "GNU {}",
            gnu.label()
        );
    }
    let _ = std::fs::remove_file(file);
}

#[test]
fn layer_refusals_move_cat_to_another_path() {
    // Every copy_file_range refused: cat goes on with another path and
    // still copies every byte.
    let file = big_file("our-cat", 3 << 20);
    let out = std::env::temp_dir().join(format!("samebytes-layer-{}-cat-out", std::process::id()));
    let plan = Plan {
        seed: 11,
        refuse: 100,
        ..Plan::default()
    };
    let cat = binaries().tool(Tool::Cat);
    let (_, stderr, status, counts) =
        under_layer(&cat, &[file.to_str().unwrap()], plan, Some(&out));
    assert_eq!((status, stderr.as_str()), (0, ""));
    assert!(counts.get(Kind::CopyFileRange, Outcome::Refused) > 0);
    assert_eq!(
        std::fs::read(&out).expect("output"),
        std::fs::read(&file).expect("input")
    );
    let _ = std::fs::remove_file(out);
    let _ = std::fs::remove_file(file);
}

#[test]
fn yes_goes_on_with_write_when_vmsplice_is_refused_midway() {
    // Half the vmsplice calls refused, at any point after the warm-up:
    // every refusal hands over to write(2) without losing or repeating a
    // byte.
    use std::io::Read;
    let counts_path =
        std::env::temp_dir().join(format!("samebytes-layer-{}-yes", std::process::id()));
    std::fs::write(&counts_path, vec![0u8; COUNTS_FILE_LEN]).expect("counts file");
    let plan = Plan {
        seed: 5,
        refuse: 50,
        short: 20,
        counts: Some(counts_path.to_string_lossy().into_owned()),
        ..Plan::default()
    };
    let mut child = Command::new(binaries().tool_named("yes"))
        .arg("abc")
        .env("LD_PRELOAD", binaries().layer())
        .env(ENV, plan.render())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start yes");
    let mut got = vec![0u8; 8 << 20];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut got)
        .expect("read from yes");
    let _ = child.kill();
    let _ = child.wait();
    let want: Vec<u8> = b"abc\n".iter().copied().cycle().take(got.len()).collect();
    assert!(got == want, "yes output changed under refusals");
    let counts = Counts::from_bytes(&std::fs::read(&counts_path).expect("counts"));
    assert!(counts.get(Kind::Vmsplice, Outcome::Calls) > 0);
    assert!(counts.get(Kind::Vmsplice, Outcome::Refused) > 0);
    let _ = std::fs::remove_file(counts_path);
}

/// What the spec says grep `argv` prints in the C locale, over one
/// regular file `name` holding `data` whose reads fail with EIO from
/// `at` on.
fn spec_over_failing_file(
    argv: &[Vec<u8>],
    name: &[u8],
    data: &[u8],
    at: usize,
) -> samebytes_spec::Outcome {
    use samebytes_spec::grep::{grep, GrepEnv, GrepStdout};
    use samebytes_spec::world::{Node, World};
    let mut world = World::default();
    world
        .files
        .insert(name.to_vec(), Node::Regular(data.to_vec()));
    world.read_errors.files.insert(name.to_vec(), at);
    grep(
        argv,
        &GrepEnv::new(samebytes_spec::Locale::C),
        &world,
        &GrepStdout::Stream,
        None,
    )
}

/// The spec's model of a read error in grep, checked against GNU grep
/// itself under the layer: the line the error cuts short is not searched,
/// and a search that needed no more input (`-q`, `-l`, `-m`) never meets
/// the error.  Ours is held to the same outcomes.
#[test]
fn grep_read_errors_follow_gnu() {
    let dir = std::env::temp_dir().join(format!("samebytes-grep-eio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let mut data = Vec::new();
    for i in 0..5000 {
        let mark = if [2, 900, 901, 3500].contains(&i) {
            " x"
        } else {
            ""
        };
        data.extend_from_slice(format!("line {i} of the file{mark}\n").as_bytes());
    }
    let path = dir.join("f");
    std::fs::write(&path, &data).expect("write");
    let x_lines: Vec<usize> = (0..data.len()).filter(|&i| data[i] == b'x').collect();
    let mut offsets = vec![0u64, 1, 5, 4095, 4096, 32767, 32768, 98304, 100_000];
    for &x in &x_lines {
        offsets.extend([
            x as u64 - 3,
            x as u64,
            x as u64 + 1,
            x as u64 + 2,
            x as u64 + 40,
        ]);
    }
    let arg_sets: &[&[&str]] = &[
        &["x"],
        &["-c", "x"],
        &["-q", "x"],
        &["-l", "x"],
        &["-L", "x"],
        &["-m1", "x"],
        &["-m2", "-A3", "x"],
        &["-m3", "-c", "x"],
        &["-v", "-c", "x"],
        &["-n", "-B1", "x"],
        // GNU reads once even when -m0 leaves nothing to do.
        &["-L", "-m0", "x"],
    ];
    let ours = binaries().tool(Tool::Grep);
    let programs: Vec<PathBuf> = gnu_builds()
        .iter()
        .map(|g| g.tool("grep"))
        .chain([ours])
        .collect();
    let mut compared = 0;
    for &at in &offsets {
        for args in arg_sets {
            let mut argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
            argv.push(b"f".to_vec());
            let want = spec_over_failing_file(&argv, b"f", &data, at as usize);
            for program in &programs {
                let plan = Plan {
                    seed: at,
                    short: 20,
                    input_eio: vec![eio_at(&path, at)],
                    ..Plan::default()
                };
                let mut cmd = Command::new(program);
                std::os::unix::process::CommandExt::arg0(&mut cmd, "grep");
                let out = cmd
                    .args(*args)
                    .arg("f")
                    .current_dir(&dir)
                    .env("LD_PRELOAD", binaries().layer())
                    .env(ENV, plan.render())
                    .env("LC_ALL", "C")
                    .output()
                    .expect("run grep");
                let got = (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                    out.stdout,
                );
                let wanted = (
                    Some(want.status),
                    String::from_utf8_lossy(&want.stderr).into_owned(),
                    want.stdout.clone(),
                );
                assert!(
                    got == wanted,
                    "{} {args:?} with EIO at {at}: status/stderr {:?} {:?}, spec {:?} {:?}",
                    program.display(),
                    got.0,
                    got.1,
                    wanted.0,
                    wanted.1
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, offsets.len() * arg_sets.len() * programs.len());
    let _ = std::fs::remove_dir_all(dir);
}

/// One file with a bad page, named four times and searched mapped on four
/// threads at once: every search meets the fault in its own window at the
/// same time, and each must report it as the spec does (one guard for the
/// process let all but one of them kill grep with SIGBUS).
#[test]
fn grep_maps_one_failing_file_on_many_threads_at_once() {
    let path = big_file("grep-sigbus-threads", 1 << 20);
    let data = std::fs::read(&path).expect("read back");
    let dir = path.parent().expect("scratch folder");
    let name = path
        .file_name()
        .expect("file name")
        .as_encoded_bytes()
        .to_vec();
    for at in [4096u64, 300_000, 1_000_000] {
        let mut argv = vec![b"-c".to_vec(), b"x".to_vec()];
        argv.extend(std::iter::repeat_n(name.clone(), 4));
        let want = spec_over_failing_file(&argv, &name, &data, at as usize);
        for seed in 0..8 {
            let plan = Plan {
                seed,
                input_eio: vec![eio_at(&path, at)],
                ..Plan::default()
            };
            let mut cmd = Command::new(binaries().tool(Tool::Grep));
            std::os::unix::process::CommandExt::arg0(&mut cmd, "grep");
            let out = cmd
                .args(
                    argv.iter()
                        .map(|a| <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(a)),
                )
                .current_dir(dir)
                .env("LD_PRELOAD", binaries().layer())
                .env(ENV, plan.render())
                .env("LC_ALL", "C")
                .env("SAMEBYTES_GREP_THREADS", "4")
                .env("SAMEBYTES_GREP_MAP_MIN", "0")
                .env("SAMEBYTES_GREP_WINDOW", "65536")
                .output()
                .expect("run grep");
            assert_eq!(
                (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr),
                    String::from_utf8_lossy(&out.stdout)
                ),
                (
                    Some(want.status),
                    String::from_utf8_lossy(&want.stderr),
                    String::from_utf8_lossy(&want.stdout)
                ),
                "EIO at {at}, seed {seed}"
            );
        }
    }
    let _ = std::fs::remove_file(path);
}

/// An inherited stdin is left where reading stopped, whichever path read
/// it: wc's pread threads (which move no offset) seek it to the failed
/// read, as a sequential read would have left it, and GNU's wc does.
#[test]
fn wc_leaves_stdin_where_its_pread_failed() {
    use std::io::{Seek, SeekFrom};
    let file = big_file("wc-stdin-offset", 9 << 20);
    let at = 7 << 20;
    let programs = gnu_builds()
        .iter()
        .map(|g| g.tool("wc"))
        .chain([binaries().tool(Tool::Wc)]);
    for program in programs {
        for start in [0u64, 1000] {
            let mut stdin = std::fs::File::open(&file).expect("open");
            stdin.seek(SeekFrom::Start(start)).expect("seek");
            let ours = stdin.try_clone().expect("dup");
            let plan = Plan {
                seed: 9,
                input_eio: vec![eio_at(&file, at)],
                ..Plan::default()
            };
            let out = Command::new(&program)
                .arg("-l")
                .stdin(stdin)
                .env("LD_PRELOAD", binaries().layer())
                .env(ENV, plan.render())
                .env("LC_ALL", "C")
                .output()
                .expect("run wc");
            assert_eq!(out.status.code(), Some(1), "{}", program.display());
            let mut ours = ours;
            let left = ours.stream_position().expect("offset");
            assert_eq!(left, at, "{} from {start}", program.display());
        }
    }
    let _ = std::fs::remove_file(file);
}

/// Where diagnostics fall among the stdout bytes is the spec's to say
/// (`Outcome::placements`), and the in-process oracle holds ours to it.
/// Here the placements themselves are checked against GNU: GNU's wc, cat
/// and grep and ours run with stdout and stderr on one pipe (`2>&1`), with
/// a read error in the middle of a file (the layer's EIO), a missing file
/// and a directory among the operands.
#[test]
fn diagnostics_fall_where_the_spec_places_them_as_in_gnu() {
    use samebytes_oracle::order::fits_combined;
    use samebytes_spec::world::{Node, World};
    use samebytes_spec::Locale;
    let dir = std::env::temp_dir().join(format!("samebytes-order-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("d")).expect("scratch");
    let lines = |n: usize| -> Vec<u8> {
        (1..=n)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect()
    };
    let (a, b) = (lines(2000), lines(100));
    std::fs::write(dir.join("a"), &a).expect("write a");
    std::fs::write(dir.join("b"), &b).expect("write b");
    let eio = 3000;
    let mut world = World::default();
    world.files.insert(b"a".to_vec(), Node::Regular(a));
    world.files.insert(b"b".to_vec(), Node::Regular(b));
    world.files.insert(b"d".to_vec(), Node::Directory);
    world.read_errors.files.insert(b"a".to_vec(), eio);

    // The name of the docs/differences.md rule that keeps GNU 9.1 out of
    // a case, if one does: current GNU's wc prints the counts of an input
    // it failed to read, then the error; 9.1 the other way round.
    let keeps_counts = Some("read-error-keeps-counts");
    let cases: &[(Tool, &[&str], Option<&str>)] = &[
        (Tool::Wc, &["b", "missing", "b"], None),
        (Tool::Wc, &["b", "a", "missing", "d", "b"], keeps_counts),
        (Tool::Wc, &["-l", "a", "b"], keeps_counts),
        (Tool::Wc, &["-L", "--total=always", "a"], keeps_counts),
        (Tool::Cat, &["b", "a", "missing", "b"], None),
        (Tool::Cat, &["-n", "b", "a", "b"], None),
        (Tool::Cat, &["-A", "b", "missing", "a", "d"], None),
        (Tool::Grep, &["-n", "1", "b", "a", "missing", "b"], None),
        (Tool::Grep, &["-c", "7", "a", "b", "d", "missing"], None),
        (Tool::Grep, &["-H", "-A1", "5", "a", "b"], None),
    ];
    let plan = Plan {
        input_eio: vec![eio_at(&dir.join("a"), eio as u64)],
        ..Plan::default()
    };
    let (mut compared, mut expected) = (0, 0);
    for &(tool, args, gnu_differs) in cases {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let spec = match tool {
            Tool::Wc => samebytes_spec::wc::wc(
                &argv,
                &samebytes_spec::wc::WcEnv::new(Locale::C, false),
                &world,
                None,
            ),
            Tool::Cat => samebytes_spec::cat::cat(
                &argv,
                &samebytes_spec::cat::CatEnv::new(Locale::C, false),
                &world,
                &samebytes_spec::cat::CatStdout::Stream,
                None,
            ),
            Tool::Grep => samebytes_spec::grep::grep(
                &argv,
                &samebytes_spec::grep::GrepEnv::new(Locale::C),
                &world,
                &samebytes_spec::grep::GrepStdout::Stream,
                None,
            ),
            Tool::Yes => unreachable!("yes writes its one diagnostic last"),
        };
        assert!(!spec.placements.is_empty(), "{args:?}: no diagnostic");
        // 9.1 is the only build the rule holds for.
        let gnu = gnu_builds()
            .iter()
            .filter(|g| gnu_differs.is_none() || g.coreutils >= Version(9, 2))
            .map(|g| g.tool(tool.name()));
        let programs: Vec<PathBuf> = gnu.chain([binaries().tool(tool)]).collect();
        expected += programs.len();
        for program in &programs {
            let (mut reader, writer) = std::io::pipe().expect("pipe");
            let mut cmd = Command::new(program);
            std::os::unix::process::CommandExt::arg0(&mut cmd, tool.name());
            cmd.args(args)
                .current_dir(&dir)
                .env("LD_PRELOAD", binaries().layer())
                .env(ENV, plan.render())
                .env("LC_ALL", "C")
                .stdout(writer.try_clone().expect("dup"))
                .stderr(writer);
            let mut child = cmd.spawn().expect("spawn");
            drop(cmd);
            let mut combined = Vec::new();
            std::io::Read::read_to_end(&mut reader, &mut combined).expect("read");
            let status = child.wait().expect("wait");
            assert_eq!(
                status.code(),
                Some(spec.status),
                "{} {args:?}",
                program.display()
            );
            assert!(
                fits_combined(&spec, &combined),
                "{} {args:?}: stdout and stderr interleaved as\n{}\nnot as the spec places them: {:?}",
                program.display(),
                String::from_utf8_lossy(&combined),
                spec.placements
            );
            compared += 1;
        }
    }
    assert_eq!(compared, expected);
    assert!(compared > cases.len(), "GNU ran none of the cases");
    let _ = std::fs::remove_dir_all(dir);
}
