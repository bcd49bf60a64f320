//! Binary-level tests: the built `cat` on real files, pipes, sockets, a
//! terminal, devices and signals.  Each kernel path is checked to have been
//! taken (`--debug`) and to have written exactly what the spec says.

mod common;

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{binary, describe, dev_full, feed_in_chunks, mixed_text, Scratch};
use samebytes_spec::cat::{CatEnv, CatStdout};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Errno, Locale, Outcome, StdoutFailure};

/// The built cat, invoked as plain `cat` (argv[0] names it in messages).
fn cat() -> Command {
    let mut c = Command::new(binary("cat"));
    std::os::unix::process::CommandExt::arg0(&mut c, "cat");
    c.env_remove("POSIXLY_CORRECT").env("LC_ALL", "C");
    c
}

fn spec(
    args: &[&str],
    world: &World,
    stdout: &CatStdout,
    failure: Option<StdoutFailure>,
) -> Outcome {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    samebytes_spec::cat::cat(
        &args,
        &CatEnv::new(Locale::C, false),
        world,
        stdout,
        failure,
    )
}

fn world_of(files: &[(&str, &[u8])], stdin: Node) -> World {
    World {
        files: files
            .iter()
            .map(|(n, d)| (n.as_bytes().to_vec(), Node::Regular(d.to_vec())))
            .collect(),
        stdin: Stdin {
            node: stdin,
            offset: 0,
        },
        ..Default::default()
    }
}

/// The `--debug` lines for inputs copied by `path`.
fn debug_lines(names: &[&str], path: &str) -> String {
    names
        .iter()
        .map(|n| format!("cat: {n}: copied by {path}\n"))
        .collect()
}

fn stderr_text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Run `cmd` with its stdin a pipe fed by `feed_in_chunks`; stdout is
/// whatever `cmd` set (pipe it to see it in the output); stderr is piped.
fn run_fed(cmd: &mut Command, data: &[u8], seed: u64) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cat");
    let stdin = child.stdin.take().expect("stdin");
    let feed = data.to_vec();
    let writer = std::thread::spawn(move || feed_in_chunks(stdin, feed, seed));
    let out = child.wait_with_output().expect("wait cat");
    writer.join().expect("writer");
    out
}

#[test]
fn file_to_file_uses_copy_file_range() {
    let s = Scratch::new("cat-cfr");
    let a = mixed_text(3 * 1024 * 1024 + 17, 1);
    let b = mixed_text(70_000, 2);
    s.file("a", &a);
    s.file("b", &b);
    let out_path = s.path.join("out");
    let out = cat()
        .args(["--debug", "a", "b"])
        .current_dir(&s.path)
        .stdout(File::create(&out_path).expect("create out"))
        .output()
        .expect("run cat");
    assert_eq!(
        stderr_text(&out),
        debug_lines(&["a", "b"], "copy_file_range")
    );
    assert!(out.status.success());
    let world = world_of(&[("a", &a), ("b", &b)], Node::Stream(Vec::new()));
    let expected = spec(&["a", "b"], &world, &CatStdout::Stream, None);
    assert!(std::fs::read(&out_path).expect("read out") == expected.stdout);
}

#[test]
fn appending_to_a_file_falls_back_from_copy_file_range() {
    // copy_file_range refuses O_APPEND outputs (EBADF): read/write goes on
    // from where it stopped, after the bytes already in the file.
    let s = Scratch::new("cat-append");
    let a = mixed_text(1024 * 1024 + 3, 3);
    s.file("a", &a);
    let out_path = s.file("out", b"already here\n");
    let sink = OpenOptions::new()
        .append(true)
        .open(&out_path)
        .expect("open");
    let out = cat()
        .args(["--debug", "a"])
        .current_dir(&s.path)
        .stdout(sink)
        .output()
        .expect("run cat");
    assert_eq!(
        stderr_text(&out),
        debug_lines(&["a"], "copy_file_range then read/write")
    );
    let mut expected = b"already here\n".to_vec();
    expected.extend_from_slice(&a);
    assert!(std::fs::read(&out_path).expect("read out") == expected);
}

#[test]
fn file_to_pipe_splices() {
    let s = Scratch::new("cat-f2p");
    let a = mixed_text(5 * 1024 * 1024 + 1, 4);
    let b = mixed_text(1000, 5);
    s.file("a", &a);
    s.file("b", &b);
    let out = cat()
        .args(["--debug", "a", "b", "a"])
        .current_dir(&s.path)
        .output()
        .expect("run cat");
    assert_eq!(stderr_text(&out), debug_lines(&["a", "b", "a"], "splice"));
    let world = world_of(&[("a", &a), ("b", &b)], Node::Stream(Vec::new()));
    assert!(out.stdout == spec(&["a", "b", "a"], &world, &CatStdout::Stream, None).stdout);
}

#[test]
fn pipe_to_pipe_splices_a_slow_producer() {
    let data = mixed_text(2 * 1024 * 1024 + 9, 6);
    let out = run_fed(cat().arg("--debug").stdout(Stdio::piped()), &data, 77);
    assert_eq!(stderr_text(&out), debug_lines(&["-"], "splice"));
    assert!(out.stdout == data);
}

#[test]
fn pipe_to_file_splices_and_appending_falls_back() {
    let s = Scratch::new("cat-p2f");
    let data = mixed_text(1024 * 1024 + 5, 8);
    for (append, path) in [(false, "splice"), (true, "splice then read/write")] {
        let out_path = s.file("out", b"x");
        let sink = if append {
            OpenOptions::new().append(true).open(&out_path)
        } else {
            File::create(&out_path)
        }
        .expect("open out");
        let out = run_fed(cat().arg("--debug").stdout(sink), &data, 5);
        assert_eq!(stderr_text(&out), debug_lines(&["-"], path));
        let mut expected = if append { b"x".to_vec() } else { Vec::new() };
        expected.extend_from_slice(&data);
        assert!(
            std::fs::read(&out_path).expect("read out") == expected,
            "append {append}"
        );
    }
}

#[test]
fn file_to_socket_splices_through_a_pipe() {
    let s = Scratch::new("cat-sock");
    let a = mixed_text(3 * 1024 * 1024 + 11, 9);
    s.file("a", &a);
    let (ours, theirs) = UnixStream::pair().expect("socketpair");
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut ours = ours;
        ours.read_to_end(&mut got).expect("read socket");
        got
    });
    let out = cat()
        .args(["--debug", "a"])
        .current_dir(&s.path)
        .stdout(std::os::fd::OwnedFd::from(theirs))
        .output()
        .expect("run cat");
    assert_eq!(
        stderr_text(&out),
        debug_lines(&["a"], "splice through a pipe")
    );
    assert!(reader.join().expect("reader") == a);
}

#[test]
fn socket_to_appended_file_drains_the_pipe_without_losing_bytes() {
    // splice into an O_APPEND file is refused after the first splice has
    // already filled our pipe: those bytes must come out first, once.
    let s = Scratch::new("cat-drain");
    let data = mixed_text(3 * 1024 * 1024 + 7, 10);
    let out_path = s.file("out", b"head\n");
    let (ours, theirs) = UnixStream::pair().expect("socketpair");
    let feed = data.clone();
    let writer = std::thread::spawn(move || feed_in_chunks(ours, feed, 3));
    let out = cat()
        .arg("--debug")
        .stdin(std::os::fd::OwnedFd::from(theirs))
        .stdout(
            OpenOptions::new()
                .append(true)
                .open(&out_path)
                .expect("open"),
        )
        .output()
        .expect("run cat");
    writer.join().expect("writer");
    assert_eq!(
        stderr_text(&out),
        debug_lines(&["-"], "splice through a pipe then read/write")
    );
    let mut expected = b"head\n".to_vec();
    expected.extend_from_slice(&data);
    assert!(std::fs::read(&out_path).expect("read out") == expected);
}

#[test]
fn terminal_output_is_exact() {
    // `script` gives cat a pseudo-terminal; raw mode keeps the bytes as
    // they are.
    // Never a silent skip: `.ci/run` installs script (bsdutils).
    assert!(
        Command::new("script").arg("--version").output().is_ok(),
        "this test needs script(1) from util-linux (apt-get install bsdutils)"
    );
    let s = Scratch::new("cat-tty");
    let a = mixed_text(400_000, 12);
    s.file("a", &a);
    for opts in ["", "-A"] {
        let command = format!(
            "stty raw -echo; exec {} {opts} a 2>err",
            binary("cat").display()
        );
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .current_dir(&s.path)
            .stdin(Stdio::null())
            .output()
            .expect("run script");
        let world = world_of(&[("a", &a)], Node::Stream(Vec::new()));
        let args: Vec<&str> = opts.split_whitespace().chain(["a"]).collect();
        let expected = spec(&args, &world, &CatStdout::Stream, None);
        assert!(out.stdout == expected.stdout, "cat {opts} a on a terminal");
    }
}

#[test]
fn formatting_a_slow_pipe_matches_spec() {
    let data = mixed_text(600 * 1024, 13);
    for opts in [&["-n"][..], &["-A"], &["-bsE"], &["-vT", "-s"]] {
        let out = run_fed(cat().args(opts).stdout(Stdio::piped()), &data, 21);
        let world = world_of(&[], Node::Stream(data.clone()));
        let expected = spec(opts, &world, &CatStdout::Stream, None);
        assert!(out.stdout == expected.stdout, "{opts:?}");
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn numbered_lines_appear_as_soon_as_they_arrive() {
    let mut child = cat()
        .arg("-n")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn cat");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 256];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    for i in 1..=5 {
        let line = format!("line {i}\n");
        stdin.write_all(line.as_bytes()).expect("write line");
        let expected = format!("{i:>6}\t{line}").into_bytes();
        let mut got = Vec::new();
        while got.len() < expected.len() {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(chunk) => got.extend(chunk),
                Err(_) => panic!("line {i} did not come out while the pipe stayed open"),
            }
        }
        assert_eq!(got, expected);
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    reader.join().expect("reader");
}

#[test]
fn dev_full_reports_the_write_error() {
    let s = Scratch::new("cat-full");
    let a = mixed_text(100_000, 14);
    s.file("a", &a);
    let world = world_of(&[("a", &a)], Node::Stream(Vec::new()));
    let failure = Some(StdoutFailure {
        limit: 0,
        errno: Errno::NoSpace,
    });
    for args in [&["a", "missing"][..], &["-n", "a", "missing"], &["--help"]] {
        let out = cat()
            .args(args)
            .current_dir(&s.path)
            .stdout(dev_full())
            .output()
            .expect("run cat");
        let expected = spec(args, &world, &CatStdout::Stream, failure);
        assert_eq!(
            stderr_text(&out),
            String::from_utf8_lossy(&expected.stderr),
            "{args:?}"
        );
        assert_eq!(out.status.code(), Some(expected.status), "{args:?}");
    }
}

/// Run cat with stdout a pipe whose reader is gone, SIGPIPE as `trap` sets
/// it up before exec.
fn closed_pipe_run(trap: &str, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new("sh")
        .args(["-c", &format!("trap {trap} PIPE; exec \"$0\" \"$@\"")])
        .arg(binary("cat"))
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .output()
        .expect("run cat")
}

#[test]
fn closed_pipe_sigpipe_default_and_ignored() {
    use std::os::unix::process::ExitStatusExt;
    let s = Scratch::new("cat-pipe");
    s.file("a", &mixed_text(300_000, 15));
    for args in [&["a"][..], &["-n", "a"], &["-"]] {
        let killed = closed_pipe_run("-", &s.path, args);
        assert_eq!(
            killed.status.signal(),
            Some(libc::SIGPIPE),
            "{args:?}: {}",
            describe(killed.status)
        );
        assert!(killed.stderr.is_empty());
        let ignored = closed_pipe_run("''", &s.path, args);
        assert_eq!(ignored.status.code(), Some(1), "{args:?}");
        let name = binary("cat").display().to_string();
        assert_eq!(
            stderr_text(&ignored),
            format!("{name}: write error: Broken pipe\n")
        );
    }
}

#[test]
fn input_file_is_output_file() {
    let s = Scratch::new("cat-same");
    let f_path = s.path.join("f");
    // (args, a's content, f's content before, is stdout appending to f?)
    type SameFileCase<'a> = (&'a [&'a str], &'a [u8], &'a [u8], bool);
    let cases: &[SameFileCase] = &[
        (&["f"], b"", b"data\n", true),
        (&["-n", "a", "f"], b"A\n", b"", true),
        (&["f", "a"], b"A\n", b"", true),
        (&["a", "f"], b"A\n", b"old", false),
        (&["f"], b"", b"old", false),
        (&["-E", "a", "f", "a"], b"x\r", b"", true),
    ];
    for &(args, a, f, append) in cases {
        s.file("a", a);
        s.file("f", f);
        // `>` empties f before cat starts; `>>` keeps it.
        let sink = if append {
            OpenOptions::new().append(true).open(&f_path)
        } else {
            File::create(&f_path)
        }
        .expect("open f");
        let out = cat()
            .args(args)
            .current_dir(&s.path)
            .stdout(sink)
            .output()
            .expect("run cat");
        let initial: &[u8] = if append { f } else { b"" };
        let world = world_of(&[("a", a), ("f", initial)], Node::Stream(Vec::new()));
        let expected = spec(args, &world, &CatStdout::File(b"f".to_vec()), None);
        let mut file = initial.to_vec();
        file.extend_from_slice(&expected.stdout);
        assert_eq!(
            stderr_text(&out),
            String::from_utf8_lossy(&expected.stderr),
            "{args:?}"
        );
        assert_eq!(out.status.code(), Some(expected.status), "{args:?}");
        assert_eq!(std::fs::read(&f_path).expect("read f"), file, "{args:?}");
    }
    // Stdin as the output file: refused while there is something to read.
    s.file("f", b"data\n");
    let out = cat()
        .stdin(File::open(&f_path).expect("open f"))
        .stdout(
            OpenOptions::new()
                .append(true)
                .open(&f_path)
                .expect("open f"),
        )
        .output()
        .expect("run cat");
    assert_eq!(stderr_text(&out), "cat: -: input file is output file\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&f_path).expect("read f"), b"data\n");
}

#[test]
fn missing_files_and_directories_are_reported_and_skipped() {
    let s = Scratch::new("cat-err");
    s.file("a", b"one\n");
    std::fs::create_dir(s.path.join("d")).expect("mkdir");
    let args = ["a", "missing", "d", "a", "-n"];
    let out = cat()
        .args(args)
        .current_dir(&s.path)
        .stdin(Stdio::null())
        .output()
        .expect("run cat");
    let mut world = world_of(&[("a", b"one\n")], Node::Stream(Vec::new()));
    world.files.insert(b"d".to_vec(), Node::Directory);
    let expected = spec(&args, &world, &CatStdout::Stream, None);
    assert_eq!(out.stdout, expected.stdout);
    assert_eq!(stderr_text(&out), String::from_utf8_lossy(&expected.stderr));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn buffer_sizes_never_change_the_output() {
    let s = Scratch::new("cat-sizes");
    let a = mixed_text(200_000, 16);
    s.file("a", &a);
    let world = world_of(&[("a", &a)], Node::Stream(a.clone()));
    for opts in [&[][..], &["-n"], &["-A"], &["-s", "-b"]] {
        let expected = spec(
            &[opts, &["a", "-"]].concat(),
            &world,
            &CatStdout::Stream,
            None,
        );
        for size in ["1", "7", "4096", "64K", "1M"] {
            let r = format!("--read-buffer-size={size}");
            let w = format!("--write-buffer-size={size}");
            for extra in [vec![r.clone()], vec![w.clone()], vec![r.clone(), w.clone()]] {
                let out = run_fed(
                    cat()
                        .args(opts)
                        .args(&extra)
                        .args(["a", "-"])
                        .current_dir(&s.path)
                        .stdout(Stdio::piped()),
                    &a,
                    1,
                );
                assert!(out.stdout == expected.stdout, "{opts:?} {extra:?}");
            }
        }
    }
}

#[test]
fn bad_buffer_sizes_are_refused() {
    let world = World::default();
    for arg in [
        "--read-buffer-size=0",
        "--read-buffer-size=12x",
        "--write-buffer-size=",
        "--write-buffer-size=2G",
        "--read-buffer-size=99999999999999999999999",
    ] {
        let out = cat()
            .arg(arg)
            .stdin(Stdio::null())
            .output()
            .expect("run cat");
        let expected = spec(&[arg], &world, &CatStdout::Stream, None);
        assert_eq!(
            stderr_text(&out),
            String::from_utf8_lossy(&expected.stderr),
            "{arg}"
        );
        assert_eq!(out.status.code(), Some(1), "{arg}");
        assert!(!expected.stderr.is_empty());
    }
}

#[test]
fn a_line_of_twelve_mebibytes() {
    let s = Scratch::new("cat-long");
    let mut line = mixed_text(12 * 1024 * 1024, 17);
    line.retain(|&b| b != b'\n');
    line.push(b'\n');
    s.file("a", &line);
    let world = world_of(&[("a", &line)], Node::Stream(Vec::new()));
    for opts in [&["-n"][..], &["-A"], &[]] {
        let out = cat()
            .args(opts)
            .arg("a")
            .current_dir(&s.path)
            .output()
            .expect("run cat");
        let expected = spec(&[opts, &["a"]].concat(), &world, &CatStdout::Stream, None);
        assert!(out.stdout == expected.stdout, "{opts:?}");
    }
}

#[test]
fn pipes_are_grown_for_splicing_and_for_formatted_output() {
    // Growing pipes changes only speed, so only the pipes can tell.
    let s = Scratch::new("cat-pipesize");
    s.file("a", b"some text\n");
    for args in [&["a"][..], &["-n", "a"], &["-"]] {
        let (out_r, out_w) = std::io::pipe().expect("pipe");
        let (in_r, in_w) = std::io::pipe().expect("pipe");
        let in_probe = in_r.try_clone().expect("clone");
        assert_eq!(common::sys::pipe_size(&out_r), 64 * 1024);
        let mut child = cat()
            .args(args)
            .current_dir(&s.path)
            .stdin(in_r)
            .stdout(out_w)
            .spawn()
            .expect("spawn cat");
        drop(in_w);
        assert!(child.wait().expect("wait").success());
        assert_eq!(
            common::sys::pipe_size(&out_r),
            1024 * 1024,
            "stdout pipe, {args:?}"
        );
        // Spliced from, the input pipe is grown too; otherwise left alone.
        let want_in = if args == ["-"] {
            1024 * 1024
        } else {
            64 * 1024
        };
        assert_eq!(
            common::sys::pipe_size(&in_probe),
            want_in,
            "stdin pipe, {args:?}"
        );
    }
}

/// A non-blocking pipe on stdin that runs dry (its writer still open)
/// ends cat with EAGAIN against the input, after the bytes it held, as
/// GNU's cat ends, whether stdout is a pipe (ours splices directly, and a
/// splice cannot tell which end said EAGAIN) or a file.
#[test]
fn a_dry_non_blocking_stdin_pipe_ends_cat_as_gnu() {
    let scratch = Scratch::new("cat-dry-pipe");
    let run = |program: &std::path::Path, to_file: bool| {
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        writer.write_all(b"held bytes\n").expect("preload");
        common::sys::set_nonblocking(&reader);
        let mut c = Command::new(program);
        std::os::unix::process::CommandExt::arg0(&mut c, "cat");
        c.stdin(reader).env("LC_ALL", "C");
        let out_path = scratch.path.join("out");
        if to_file {
            c.stdout(File::create(&out_path).expect("stdout file"));
        }
        let out = c.output().expect("run cat");
        drop(writer);
        let stdout = if to_file {
            std::fs::read(&out_path).expect("read stdout")
        } else {
            out.stdout
        };
        (
            out.status.code(),
            stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for to_file in [false, true] {
        let mine = run(&binary("cat"), to_file);
        for build in samebytes_oracle::gnu::columns_or_panic() {
            let gnu = run(&build.tool("cat"), to_file);
            assert_eq!(gnu.0, Some(1), "{gnu:?}");
            assert_eq!(
                mine,
                gnu,
                "stdout to a file: {to_file}, GNU {}",
                build.label()
            );
        }
    }
}
