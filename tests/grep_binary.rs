//! Binary-level tests: the built `grep` on real files (read with buffers of
//! every size, mapped in windows of every size, from an offset, truncated
//! while read or mapped), pipes written in
//! chunks, /dev/full, closed pipes and its own output file, each against
//! the spec.

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{binary, describe, dev_full, feed_in_chunks, Scratch};
use samebytes_spec::grep::{GrepEnv, GrepStdout};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Errno, Locale, Outcome, StdoutFailure};

fn grep() -> Command {
    let mut c = Command::new(binary("grep"));
    std::os::unix::process::CommandExt::arg0(&mut c, "grep");
    c.env_remove("POSIXLY_CORRECT").env("LC_ALL", "C.UTF-8");
    c
}

fn spec(args: &[&str], world: &World, failure: Option<StdoutFailure>) -> Outcome {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    samebytes_spec::grep::grep(
        &args,
        &GrepEnv::new(Locale::Utf8),
        world,
        &GrepStdout::Stream,
        failure,
    )
}

fn world_of(files: &[(&str, &[u8])], stdin: Stdin) -> World {
    World {
        files: files
            .iter()
            .map(|(n, d)| (n.as_bytes().to_vec(), Node::Regular(d.to_vec())))
            .collect(),
        stdin,
        read_errors: Default::default(),
        ..Default::default()
    }
}

fn outcome(out: std::process::Output) -> Outcome {
    Outcome::unplaced(
        out.stdout,
        out.stderr,
        out.status
            .code()
            .unwrap_or_else(|| panic!("grep died: {}", describe(out.status))),
    )
}

fn assert_same(actual: &Outcome, expected: &Outcome, what: &str) {
    if actual != expected {
        let show = |o: &Outcome| {
            format!(
                "status {} stdout {} bytes, stderr {:?}",
                o.status,
                o.stdout.len(),
                String::from_utf8_lossy(&o.stderr)
            )
        };
        let first = actual
            .stdout
            .iter()
            .zip(&expected.stdout)
            .position(|(a, b)| a != b);
        panic!(
            "{what}\n  actual:   {}\n  expected: {}\n  first stdout difference at {first:?}",
            show(actual),
            show(expected)
        );
    }
}

/// Lines of words (with a rare encoding error, never a NUL), a line of
/// 200 KB, and no final newline.
fn corpus(seed: u64) -> Vec<u8> {
    let words: &[&[u8]] = &[
        b"foo",
        b"bar",
        b"e",
        b"a",
        b"Foo",
        b"x1",
        b"\xc3\xa9t\xc3\xa9",
        b"word",
        b"oo",
    ];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut data = Vec::new();
    while data.len() < 300_000 {
        for i in 0..next(12) {
            if i > 0 {
                data.push(b' ');
            }
            data.extend_from_slice(words[next(words.len() as u64) as usize]);
        }
        if next(500) == 0 {
            data.push(0xff);
        }
        data.push(b'\n');
    }
    data.extend_from_slice(b"foo bar\n");
    data.extend(std::iter::repeat_n(b'x', 200_000));
    data.extend_from_slice(b" foo\nlast foo line without newline");
    data
}

const ARG_SETS: &[&[&str]] = &[
    &["-c", "e"],
    &["-n", "foo"],
    &["-b", "-o", "[a-z]*oo"],
    &["-v", "-c", "a"],
    &["-n", "-C2", "foo"],
    &["-i", "-w", "FOO"],
    &["-x", "-n", "foo bar"],
    &["-m3", "-A1", "e"],
    // Before-context of the last line, which has no newline.
    &["-B2", "-n", "-b", "last"],
];

/// Read buffers from one byte up, and mapped windows from one byte up,
/// must find exactly what the spec finds, for a named file and for stdin
/// as a file at an offset.
#[test]
fn regular_files_read_with_buffers_of_every_size_match_the_spec() {
    let s = Scratch::new("grep-map");
    let data = corpus(3);
    s.file("f", &data);
    let mut with_nul = data.clone();
    with_nul.splice(200_000..200_000, *b"\0");
    s.file("n", &with_nul);
    // A NUL in the first 32 KiB, beyond the first reads.
    let mut early_nul = data.clone();
    early_nul.splice(20_000..20_000, *b"\0");
    s.file("e", &early_nul);
    let offset = 1234;
    for args in ARG_SETS {
        for file in ["f", "n", "e"] {
            let content = match file {
                "f" => &data,
                "n" => &with_nul,
                _ => &early_nul,
            };
            let world = world_of(&[(file, content)], Stdin::default());
            let mut with_name = args.to_vec();
            with_name.push(file);
            let expected = spec(&with_name, &world, None);
            let stdin_world = World {
                files: Default::default(),
                stdin: Stdin {
                    node: Node::Regular(content.clone()),
                    offset,
                },
                read_errors: Default::default(),
                ..Default::default()
            };
            let expected_stdin = spec(args, &stdin_world, None);
            // (stream buffer, mapping threshold, window): read only, then
            // mapped from one-byte windows up, and as shipped.
            let never = "1000000000000";
            for (buffer, map_min, window) in [
                ("1", never, "1"),
                ("7", "0", "1"),
                ("4096", "0", "5000"),
                ("65536", never, "1"),
                ("65536", "262144", "16777216"),
                ("2097152", "0", "100000"),
            ] {
                let run = |cmd: &mut Command| {
                    outcome(
                        cmd.env("SAMEBYTES_GREP_BUFFER", buffer)
                            .env("SAMEBYTES_GREP_MAP_MIN", map_min)
                            .env("SAMEBYTES_GREP_WINDOW", window)
                            .current_dir(&s.path)
                            .output()
                            .expect("run grep"),
                    )
                };
                let named = run(grep().args(&with_name));
                let how = format!("buffer {buffer}, map_min {map_min}, window {window}");
                assert_same(&named, &expected, &format!("{with_name:?} {how}"));
                let mut input = std::fs::File::open(s.path.join(file)).expect("open");
                std::io::Seek::seek(&mut input, std::io::SeekFrom::Start(offset as u64))
                    .expect("seek");
                let from_stdin = run(grep().args(*args).stdin(input));
                assert_same(
                    &from_stdin,
                    &expected_stdin,
                    &format!("{args:?} stdin at {offset}, {how}"),
                );
            }
        }
    }
}

#[test]
fn pipes_written_in_chunks_match_the_spec() {
    let data = corpus(5);
    for (i, args) in ARG_SETS.iter().enumerate() {
        for buffer in ["1", "300", "262144"] {
            let mut child = grep()
                .args(*args)
                .env("SAMEBYTES_GREP_BUFFER", buffer)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn grep");
            let stdin = child.stdin.take().expect("stdin");
            let feed = data.clone();
            let writer = std::thread::spawn(move || feed_in_chunks(stdin, feed, i as u64));
            let out = outcome(child.wait_with_output().expect("wait"));
            writer.join().expect("writer");
            let world = world_of(
                &[],
                Stdin {
                    node: Node::Stream(data.clone()),
                    offset: 0,
                },
            );
            assert_same(
                &out,
                &spec(args, &world, None),
                &format!("{args:?} buffer {buffer}"),
            );
        }
    }
}

/// The file shrinks while grep reads it: what grep prints is exactly what
/// the spec prints for the bytes grep read before the file ended for it.
/// With `-z` the zeros a shrunk mapping reads as are whole lines that
/// `-v` selects, so a mapped search that trusted them would print them.
#[test]
fn a_file_truncated_during_the_search() {
    // (stream buffer, mapping threshold, window): read, then mapped with
    // the shipped window and with small ones.
    let never = "1000000000000";
    let ways = [
        ("65536", never, "1"),
        ("262144", never, "1"),
        ("262144", "0", "16777216"),
        ("65536", "0", "1048576"),
        ("4096", "0", "65536"),
    ];
    // Cut to 1000 bytes, the pages past them vanish (a read of them
    // faults); cut by 100 bytes only, under one window holding the whole
    // file, nothing faults: the tail of the last page reads as zeros, and
    // only the file's size says so.
    let cuts = [Cut::To(1000), Cut::By(100)];
    let one_window = ("262144", "0", "33554432");
    for (cut, (buffer, map_min, window)) in ways
        .map(|way| (cuts[0], way))
        .into_iter()
        .chain([(cuts[1], one_window)])
    {
        truncated_under(
            &["-n", "matches", "big"],
            b'\n',
            cut,
            buffer,
            map_min,
            window,
        );
        truncated_under(
            &["-z", "-n", "-v", "zzz", "big"],
            0,
            cut,
            buffer,
            map_min,
            window,
        );
    }
}

/// Where the file is cut: to a size, or by some bytes.
#[derive(Clone, Copy, Debug)]
enum Cut {
    To(u64),
    By(u64),
}

fn truncated_under(args: &[&str], t: u8, cut: Cut, buffer: &str, map_min: &str, window: &str) {
    let s = Scratch::new("grep-trunc");
    let mut line = b"a line that matches the pattern, long enough to fill pages".to_vec();
    line.push(t);
    let data: Vec<u8> = line.repeat(400_000);
    let path = s.file("big", &data);
    let mut child = grep()
        .args(args)
        .env("SAMEBYTES_GREP_BUFFER", buffer)
        .env("SAMEBYTES_GREP_MAP_MIN", map_min)
        .env("SAMEBYTES_GREP_WINDOW", window)
        .current_dir(&s.path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn grep");
    // grep fills the pipe and blocks; shrink the file under it, then read.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = vec![0u8; 4096];
    stdout.read_exact(&mut first).expect("first output");
    std::thread::sleep(Duration::from_millis(100));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open for truncation")
        .set_len(match cut {
            Cut::To(size) => size,
            Cut::By(bytes) => data.len() as u64 - bytes,
        })
        .expect("truncate");
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).expect("rest of output");
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_end(&mut stderr)
        .expect("stderr");
    let status = child.wait().expect("wait");
    assert!(
        matches!(status.code(), Some(0) | Some(1)),
        "grep: {}",
        describe(status)
    );
    first.extend_from_slice(&rest);
    // Every line is selected, so the output says how far grep read: all
    // of its lines but the last are whole, and the last may be the start
    // of one, cut where the file ended.
    let last = first[..first.len() - 1]
        .rsplit(|&b| b == t)
        .next()
        .expect("a last line");
    let number_len = last.iter().position(|&b| b == b':').expect("-n prefix") + 1;
    let cut = last.len() - number_len;
    let lines = first.iter().filter(|&&b| b == t).count();
    let read = (lines - 1) * line.len() + cut + usize::from(cut == line.len() - 1);
    assert!(read < data.len(), "the truncation came too late");
    let expected = spec(
        args,
        &world_of(&[("big", &data[..read])], Stdin::default()),
        None,
    );
    assert_same(
        &Outcome::unplaced(first, stderr, status.code().unwrap_or(-1)),
        &expected,
        &format!("{args:?} cut {cut:?}, read {read} bytes, buffer {buffer}, map_min {map_min}, window {window}"),
    );
}

#[test]
fn dev_full_reports_the_write_error() {
    let s = Scratch::new("grep-full");
    let data = corpus(7);
    s.file("a", &data);
    let world = world_of(&[("a", &data)], Stdin::default());
    let failure = Some(StdoutFailure {
        limit: 0,
        errno: Errno::NoSpace,
    });
    for args in [&["e", "a", "missing"][..], &["-c", "e", "a"], &["--help"]] {
        let out = outcome(
            grep()
                .args(args)
                .current_dir(&s.path)
                .stdout(dev_full())
                .output()
                .expect("run grep"),
        );
        let expected = spec(args, &world, failure);
        assert_eq!(out.stderr, expected.stderr, "{args:?}");
        assert_eq!(out.status, expected.status, "{args:?}");
    }
}

fn closed_pipe_run(trap: &str, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new("sh")
        .args(["-c", &format!("trap {trap} PIPE; exec \"$0\" \"$@\"")])
        .arg(binary("grep"))
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .output()
        .expect("run grep")
}

#[test]
fn closed_pipe_sigpipe_default_and_ignored() {
    use std::os::unix::process::ExitStatusExt;
    let s = Scratch::new("grep-pipe");
    // Text, so that lines are printed (a binary file prints none).
    s.file("a", &b"the e line\nanother\n".repeat(50_000));
    for args in [&["e", "a"][..], &["-n", "-v", "zzz", "a"]] {
        let killed = closed_pipe_run("-", &s.path, args);
        assert_eq!(killed.status.signal(), Some(libc::SIGPIPE), "{args:?}");
        let ignored = closed_pipe_run("''", &s.path, args);
        assert_eq!(ignored.status.code(), Some(2), "{args:?}");
        let name = binary("grep").display().to_string();
        assert_eq!(
            String::from_utf8_lossy(&ignored.stderr),
            format!("{name}: write error: Broken pipe\n")
        );
    }
}

#[test]
fn input_file_is_also_the_output() {
    let s = Scratch::new("grep-same");
    let data = corpus(11);
    let path = s.file("f", &data);
    let g = s.file("g", b"foo\n");
    for (args, refused) in [
        (&["foo", "g", "f"][..], true),
        (&["-c", "foo", "f"], false),
        (&["-m1", "foo", "f"], false),
        (&["-l", "foo", "f"], false),
    ] {
        std::fs::write(&path, &data).expect("reset f");
        let out = grep()
            .args(args)
            .current_dir(&s.path)
            .stdout(
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .expect("open f"),
            )
            .output()
            .expect("run grep");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.contains("grep: f: input file is also the output"),
            refused,
            "{args:?}: {stderr}"
        );
        assert_eq!(
            out.status.code(),
            Some(if refused { 2 } else { 0 }),
            "{args:?}"
        );
    }
    let _ = g;
}

/// Output reaches a pipe before grep waits for more input: each line is
/// readable while the writer still holds stdin open (with `-a`, since
/// otherwise the binary rule waits for 32 KiB or the end of input), both
/// with and without `--line-buffered`.
#[test]
fn output_is_flushed_before_a_read_that_may_block() {
    use std::io::BufRead;
    for extra in [&[][..], &["--line-buffered"]] {
        let mut child = grep()
            .args(["-a", "-n", "hit"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn grep");
        // A grep that waits for input before writing would hang the test:
        // kill it after a while, so the read below ends and fails.
        let pid = child.id();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchdog = {
            let done = done.clone();
            std::thread::spawn(move || {
                for _ in 0..200 {
                    std::thread::sleep(Duration::from_millis(100));
                    if done.load(std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                }
                // Our own child, not yet reaped (we wait for it only after
                // `done`).
                common::sys::kill(pid, libc::SIGKILL);
            })
        };
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        for i in 1..=3 {
            stdin
                .write_all(format!("miss\nhit {i}\n").as_bytes())
                .expect("feed");
            let mut line = String::new();
            stdout.read_line(&mut line).expect("read a line");
            assert_eq!(line, format!("{}:hit {i}\n", 2 * i), "{extra:?}");
        }
        drop(stdin);
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).expect("rest");
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(child.wait().expect("wait").code(), Some(0));
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        watchdog.join().expect("watchdog");
    }
}

/// Directories named on the command line and as stdin, read (`Is a
/// directory`) or skipped with `-d skip`: the binary tells a directory by
/// its stat, as GNU does.
#[test]
fn directory_operands_are_read_or_skipped_as_the_spec_says() {
    let s = Scratch::new("grep-dirs");
    s.file("f", b"x\ny\n");
    std::fs::create_dir(s.path.join("d")).expect("mkdir");
    let mut world = world_of(&[("f", b"x\ny\n")], Stdin::default());
    world.files.insert(b"d".to_vec(), Node::Directory);
    world.stdin = Stdin {
        node: Node::Directory,
        offset: 0,
    };
    for args in [
        &["x", "d", "f"][..],
        &["-d", "skip", "x", "d", "f"],
        &["--directories=skip", "-c", "x", "-", "d"],
        &["-d", "read", "x", "d", "-"],
    ] {
        let expected = spec(args, &world, None);
        let got = outcome(
            grep()
                .args(args)
                .current_dir(&s.path)
                .stdin(std::fs::File::open(s.path.join("d")).expect("open dir"))
                .output()
                .expect("run grep"),
        );
        assert_same(&got, &expected, &format!("{args:?}"));
    }
}

/// After stopping early, GNU reads the rest of a stdin pipe (its
/// `finalize_input`), so the producer finishes instead of dying of
/// SIGPIPE; not with `-l`, `-L`, `-q` or `-m` reached.  Each run reports
/// the pipeline's status (`pipefail`: the producer's death shows), against
/// GNU's on the same pipeline.
#[test]
fn a_stdin_pipe_is_drained_as_gnu_drains_it() {
    let s = Scratch::new("grep-drain");
    let run = |grep: &str, producer: &str, args: &str, out: &str| -> String {
        let script = format!("set -o pipefail; {producer} | \"$0\" {args} >{out}; echo $?");
        let o = Command::new("bash")
            .args(["-c", &script, grep])
            .current_dir(&s.path)
            .env("LC_ALL", "C")
            .output()
            .expect("run bash");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // Far more than the 1 MiB our pipe is grown to plus the 256 KiB read
    // buffer (docs/differences.md): a producer that fits could finish
    // before a grep that stopped early exits, and then dies of nothing.
    let text = "seq 1 2000000";
    let binary_early = "{ printf 'x\\0y\\n'; seq 1 2000000; }";
    let cases = [
        (text, "1", "/dev/null"),
        (text, "-c 1", "/dev/null"),
        (binary_early, "--binary-files=without-match -c 1", "out"),
        (text, "-m1 1", "/dev/null"),
        (text, "-m1 1", "out"),
        (text, "-l 1", "out"),
        (text, "-q 1", "out"),
        (text, "-c 1", "out"),
    ];
    let ours = binary("grep").display().to_string();
    let mut statuses = std::collections::BTreeSet::new();
    let builds = samebytes_oracle::gnu::columns_or_panic();
    for (producer, args, out) in cases {
        let mine = run(&ours, producer, args, out);
        for build in &builds {
            let gnu = run(
                &build.tool("grep").display().to_string(),
                producer,
                args,
                out,
            );
            assert_eq!(
                mine,
                gnu,
                "{producer} | grep {args} >{out}, GNU {}",
                build.label()
            );
            statuses.insert(gnu);
        }
    }
    // Both kinds of outcome occur, so the comparison means something.
    assert!(statuses.len() > 1, "{statuses:?}");
}

/// `--line-buffered` writes each selected line as soon as it is found, as
/// GNU's does (a reader of the pipe sees it at once).  strace counts the
/// writes of both (GNU's go through stdio, which no LD_PRELOAD layer sees).
#[test]
fn line_buffered_writes_each_line_as_gnu_does() {
    let scratch = Scratch::new("line-buffered");
    let line = b"the quick brown fox jumps over the lazy dog\n";
    let data: Vec<u8> = line.iter().copied().cycle().take(100_000).collect();
    let file = scratch.file("in", &data);
    let ours = binary("grep");
    let mut runs = Vec::new();
    for (name, program) in [
        ("gnu", std::path::Path::new("/usr/bin/grep")),
        ("ours", ours.as_path()),
    ] {
        let trace = scratch.path.join(format!("trace-{name}"));
        let mut cmd = Command::new("strace");
        cmd.arg("-o")
            .arg(&trace)
            .args(["-e", "trace=write,close"])
            .arg(program);
        cmd.args(["--line-buffered", "fox"])
            .arg(&file)
            .env("LC_ALL", "C");
        let out = cmd.output().expect("strace is installed (.ci/setup)");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let trace = std::fs::read_to_string(&trace).expect("trace");
        // Up to the close of stdout at exit: after it, descriptor 1 may
        // be a file of the process's own (an instrumented build's profile).
        let writes = (trace.lines())
            .take_while(|l| !l.starts_with("close(1)"))
            .filter(|l| l.starts_with("write(1,"))
            .count();
        let lines = out.stdout.iter().filter(|&&b| b == b'\n').count();
        runs.push((out.stdout, lines, writes));
    }
    let (gnu, ours) = (&runs[0], &runs[1]);
    assert!(gnu.0 == ours.0, "the same lines");
    assert!(gnu.1 > 1000, "enough lines to tell");
    assert_eq!(gnu.2, gnu.1, "GNU writes one line per write(2)");
    assert_eq!(ours.2, gnu.2, "ours writes as often as GNU");
}

/// A `-f` file that cannot be read is named with the system's own text
/// for its error, whatever the errno: a symbolic link loop (ELOOP), a
/// directory, a missing file, each as GNU's grep says it.
#[test]
fn pattern_file_errors_read_as_gnu_writes_them() {
    let scratch = Scratch::new("pattern-file-errors");
    std::os::unix::fs::symlink("loop", scratch.path.join("loop")).expect("symlink loop");
    std::fs::create_dir(scratch.path.join("dir")).expect("dir");
    scratch.file("in", b"a\nx\n");
    let run = |program: &std::path::Path, pattern_file: &str| {
        let mut c = Command::new(program);
        std::os::unix::process::CommandExt::arg0(&mut c, "grep");
        let out = c
            .args(["-f", pattern_file, "in"])
            .current_dir(&scratch.path)
            .env("LC_ALL", "C")
            .output()
            .expect("run grep");
        (
            out.status.code(),
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for pattern_file in ["loop", "dir", "missing"] {
        let mine = run(&binary("grep"), pattern_file);
        for build in samebytes_oracle::gnu::columns_or_panic() {
            let gnu = run(&build.tool("grep"), pattern_file);
            assert_eq!(gnu.0, Some(2), "{gnu:?}");
            assert_eq!(mine, gnu, "-f {pattern_file}, GNU {}", build.label());
        }
    }
}

/// Run grep with `args` and `env` to its end; its stdout, status and
/// peak resident size in KiB.  The kernel counts into a process's peak
/// the image it was exec'd from, so a child of this (large) test process
/// would report the test's own size: a small python3 forks grep and
/// reports wait4's account of it.
fn run_with_peak_rss(
    args: &[&str],
    path: &std::path::Path,
    env: &[(&str, &str)],
) -> (Vec<u8>, i32, i64) {
    const WAIT4: &str = "import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))";
    let out = Command::new("python3")
        .args(["-c", WAIT4])
        .arg(binary("grep"))
        .args(args)
        .arg(path)
        .env_remove("POSIXLY_CORRECT")
        .env("LC_ALL", "C.UTF-8")
        .envs(env.iter().copied())
        .output()
        .expect("run python3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let peak = stderr
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("peak RSS from {stderr:?}"));
    let status = out
        .status
        .code()
        .unwrap_or_else(|| panic!("died: {}", describe(out.status)));
    (out.stdout, status, peak)
}

/// The helper thread's records (impl/src/grep/ahead.rs) take 32 bytes a
/// matching line.  On a file of 9 Mi empty lines, every one a match,
/// they stay within their cap and the helper's budget (about 2 MiB in
/// all), where uncapped they grow with the window: one record of a 256
/// KiB region is 8 MiB (114 MiB peak measured with no cap).  The counts
/// are the spec's.
#[test]
fn records_of_short_matching_lines_stay_small() {
    let scratch = Scratch::new("grep-records");
    let data = vec![b'\n'; 9 << 20];
    let path = scratch.file("empty-lines", &data);
    let world = world_of(&[("empty-lines", &data)], Stdin::default());
    for args in [&["-c", ""][..], &["-v", "-c", "-E", "^$"]] {
        let (stdout, status, peak_kib) =
            run_with_peak_rss(args, &path, &[("SAMEBYTES_GREP_THREADS", "2")]);
        let mut named: Vec<&str> = args.to_vec();
        named.push("empty-lines");
        let expected = spec(&named, &world, None);
        assert_eq!(stdout, expected.stdout, "{args:?}");
        assert_eq!(status, expected.status, "{args:?}");
        assert!(peak_kib < 20 * 1024, "{args:?}: peak RSS {peak_kib} KiB");
    }
}
