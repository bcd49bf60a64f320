//! Binary-level tests: the built `wc` on real pipes, files, devices and
//! signals, each compared with what the spec says for the same input.

mod common;

use std::io::{Seek, SeekFrom, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{binary, describe, dev_full, mixed_text, Scratch};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Errno, Locale, Outcome, StdoutFailure};

/// The built wc, invoked as plain `wc` (argv[0] names it in diagnostics).
fn wc() -> Command {
    let mut c = Command::new(binary("wc"));
    std::os::unix::process::CommandExt::arg0(&mut c, "wc");
    c.env_remove("POSIXLY_CORRECT")
        .env_remove("LANG")
        .env_remove("LC_CTYPE");
    c
}

fn locale_name(l: Locale) -> &'static str {
    match l {
        Locale::C => "C",
        Locale::Utf8 => "C.UTF-8",
    }
}

fn spec(args: &[&str], locale: Locale, world: &World, failure: Option<StdoutFailure>) -> Outcome {
    spec_as("wc", args, locale, world, failure)
}

fn spec_as(
    program: &str,
    args: &[&str],
    locale: Locale,
    world: &World,
    failure: Option<StdoutFailure>,
) -> Outcome {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let mut env = samebytes_spec::wc::WcEnv::new(locale, false);
    env.program = program.into();
    samebytes_spec::wc::wc(&args, &env, world, failure)
}

fn outcome(out: std::process::Output) -> Outcome {
    Outcome::unplaced(
        out.stdout,
        out.stderr,
        out.status
            .code()
            .unwrap_or_else(|| panic!("killed: {}", describe(out.status))),
    )
}

fn assert_same(actual: &Outcome, expected: &Outcome, what: &str) {
    assert_eq!(
        String::from_utf8_lossy(&actual.stdout),
        String::from_utf8_lossy(&expected.stdout),
        "stdout: {what}"
    );
    assert_eq!(
        String::from_utf8_lossy(&actual.stderr),
        String::from_utf8_lossy(&expected.stderr),
        "stderr: {what}"
    );
    assert_eq!(actual.status, expected.status, "status: {what}");
}

const OPTION_SETS: &[&[&str]] = &[
    &[],
    &["-l"],
    &["-c"],
    &["-m"],
    &["-w"],
    &["-L"],
    &["-lwmcL"],
    &["-wm"],
];

#[test]
fn pipe_written_in_random_chunks_with_pauses() {
    let data = mixed_text(300 * 1024, 7);
    for locale in [Locale::C, Locale::Utf8] {
        for opts in OPTION_SETS {
            let mut child = wc()
                .args(*opts)
                .env("LC_ALL", locale_name(locale))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn wc");
            let mut stdin = child.stdin.take().expect("stdin");
            let feed = data.clone();
            let writer = std::thread::spawn(move || {
                let mut state = 12345u64;
                let mut at = 0;
                while at < feed.len() {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let n = 1 + (state >> 40) as usize % 9000;
                    let end = (at + n).min(feed.len());
                    stdin.write_all(&feed[at..end]).expect("feed wc");
                    at = end;
                    if (state >> 20).is_multiple_of(16) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                }
            });
            let out = child.wait_with_output().expect("wait wc");
            writer.join().expect("writer");
            let world = World {
                files: Default::default(),
                stdin: Stdin {
                    node: Node::Stream(data.clone()),
                    offset: 0,
                },
                read_errors: Default::default(),
                ..Default::default()
            };
            assert_same(
                &outcome(out),
                &spec(opts, locale, &world, None),
                &format!("{opts:?} {locale:?}"),
            );
        }
    }
}

#[test]
fn regular_files_through_read_and_mmap_windows() {
    let dir = Scratch::new("wc-files");
    // f3 spans two mapping windows; f4 is cut in halves.
    let sizes = [0usize, 10, 4096, 3 * 1024 * 1024 + 7, 5 * 1024 * 1024 + 3];
    let mut world = World::default();
    let mut names = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let name = format!("f{i}");
        let data = mixed_text(*size, i as u64);
        dir.file(&name, &data);
        world
            .files
            .insert(name.clone().into_bytes(), Node::Regular(data));
        names.push(name);
    }
    for locale in [Locale::C, Locale::Utf8] {
        for opts in OPTION_SETS {
            let mut args: Vec<&str> = opts.to_vec();
            args.extend(names.iter().map(String::as_str));
            let out = wc()
                .args(&args)
                .current_dir(&dir.path)
                .env("LC_ALL", locale_name(locale))
                .output()
                .expect("run wc");
            assert_same(
                &outcome(out),
                &spec(&args, locale, &world, None),
                &format!("{args:?} {locale:?}"),
            );
        }
    }
    // Each path is really taken: read for the small files, mapping for the
    // middle one, two threads for the big one.
    let out = wc()
        .args(["--debug", "-w", "f1", "f3", "f4"])
        .current_dir(&dir.path)
        .output()
        .expect("run wc");
    let debug = String::from_utf8_lossy(&out.stderr);
    assert!(
        debug.contains("f1: counted by read\n")
            && debug.contains("f3: counted by mmap\n")
            && debug.contains("f4: counted by pread, 2 threads\n"),
        "{:?}",
        out
    );
}

#[test]
fn large_files_count_lines_on_two_threads() {
    let dir = Scratch::new("wc-big");
    let data = mixed_text(40 * 1024 * 1024 + 17, 99);
    dir.file("big", &data);
    let world = World {
        files: [(b"big".to_vec(), Node::Regular(data))].into(),
        stdin: Stdin::default(),
        read_errors: Default::default(),
        ..Default::default()
    };
    for opts in [&["-l"][..], &["-lc"], &["-c"]] {
        let mut args = opts.to_vec();
        args.push("big");
        let out = wc()
            .args(&args)
            .current_dir(&dir.path)
            .output()
            .expect("run wc");
        assert_same(
            &outcome(out),
            &spec(&args, Locale::C, &world, None),
            &format!("{args:?}"),
        );
    }
    let mut cmd = wc();
    cmd.args(["--debug", "-l", "big"]).current_dir(&dir.path);
    assert_debug_path(cmd, "big: counted by pread, 2 threads\n");
}

#[test]
fn byte_count_honours_the_inherited_offset_and_leaves_stdin_at_eof() {
    let dir = Scratch::new("wc-offset");
    // 5000 bytes: st_size is trusted; 8192: a page multiple, read near EOF.
    for size in [5000usize, 8192, 300 * 1024] {
        for opts in [&["-c"][..], &["-l"], &[]] {
            let data = mixed_text(size, 3);
            let path = dir.file("f", &data);
            let mut file = std::fs::File::open(&path).expect("open");
            file.seek(SeekFrom::Start(100)).expect("seek");
            let first = wc()
                .args(opts)
                .stdin(file.try_clone().expect("dup"))
                .output()
                .expect("run wc");
            let second = wc().args(opts).stdin(file).output().expect("run wc");
            let world = |offset| World {
                files: Default::default(),
                stdin: Stdin {
                    node: Node::Regular(data.clone()),
                    offset,
                },
                read_errors: Default::default(),
                ..Default::default()
            };
            assert_same(
                &outcome(first),
                &spec(opts, Locale::C, &world(100), None),
                &format!("first {opts:?} {size}"),
            );
            assert_same(
                &outcome(second),
                &spec(opts, Locale::C, &world(size), None),
                &format!("second {opts:?} {size}"),
            );
        }
    }
    let path = dir.file("g", &mixed_text(5000, 4));
    let mut cmd = wc();
    cmd.args(["--debug", "-c"])
        .stdin(std::fs::File::open(path).expect("open"));
    assert_debug_path(cmd, "counted by fstat\n");
}

/// Run wc (with `--debug` among its arguments) and check the path it says
/// it took.
fn assert_debug_path(mut cmd: Command, expected: &str) {
    let out = cmd.output().expect("run wc");
    let debug = String::from_utf8_lossy(&out.stderr);
    assert!(debug.contains(expected), "{expected:?} not in {debug:?}");
}

#[test]
fn byte_count_of_a_pipe_uses_splice() {
    let data = mixed_text(3 * 1024 * 1024 + 5, 11);
    let mut child = wc()
        .args(["--debug", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn wc");
    let mut stdin = child.stdin.take().expect("stdin");
    let feed = data.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&feed).expect("feed"));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("counted by splice"),
        "{:?}",
        out.stderr
    );
    let world = World {
        files: Default::default(),
        stdin: Stdin {
            node: Node::Stream(data),
            offset: 0,
        },
        read_errors: Default::default(),
        ..Default::default()
    };
    assert_eq!(out.stdout, spec(&["-c"], Locale::C, &world, None).stdout);
}

#[test]
fn dev_null_missing_files_and_directories() {
    let dir = Scratch::new("wc-errors");
    std::fs::create_dir(dir.path.join("d")).expect("mkdir");
    dir.file("a", b"hello world\n");
    let world = World {
        files: [
            (b"/dev/null".to_vec(), Node::Stream(Vec::new())),
            (b"d".to_vec(), Node::Directory),
            (b"a".to_vec(), Node::Regular(b"hello world\n".to_vec())),
        ]
        .into(),
        stdin: Stdin {
            node: Node::Stream(Vec::new()),
            offset: 0,
        },
        read_errors: Default::default(),
        ..Default::default()
    };
    for args in [
        &["/dev/null"][..],
        &["missing", "d", "a"],
        &["-c", "d"],
        &["-l", "a", "missing"],
        &["--total=only", "a", "d", "/dev/null"],
    ] {
        let out = wc()
            .args(args)
            .current_dir(&dir.path)
            .stdin(Stdio::null())
            .output()
            .expect("run wc");
        assert_same(
            &outcome(out),
            &spec(args, Locale::C, &world, None),
            &format!("{args:?}"),
        );
    }
    let out = wc().stdin(Stdio::null()).output().expect("run wc");
    assert_same(
        &outcome(out),
        &spec(&[], Locale::C, &world, None),
        "stdin /dev/null",
    );
}

#[test]
fn write_error_on_dev_full() {
    let dir = Scratch::new("wc-full");
    dir.file("a", b"one two\n");
    let world = World {
        files: [(b"a".to_vec(), Node::Regular(b"one two\n".to_vec()))].into(),
        stdin: Stdin::default(),
        read_errors: Default::default(),
        ..Default::default()
    };
    let full = dev_full();
    let out = wc()
        .args(["a", "missing"])
        .current_dir(&dir.path)
        .stdout(full)
        .output()
        .expect("run wc");
    let failure = Some(StdoutFailure {
        limit: 0,
        errno: Errno::NoSpace,
    });
    assert_same(
        &outcome(out),
        &spec(&["a", "missing"], Locale::C, &world, failure),
        "/dev/full",
    );
}

/// Run wc with stdout on a pipe whose reader is already gone, with SIGPIPE
/// set up by a shell trap before exec.
fn closed_pipe_run(trap: &str, dir: &std::path::Path) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new("sh")
        .args([
            "-c",
            &format!("trap {trap} PIPE; exec \"$0\" \"$@\""),
            binary("wc").to_str().expect("path"),
            "a",
        ])
        .current_dir(dir)
        .stdout(writer)
        .output()
        .expect("run wc")
}

#[test]
fn closed_pipe_with_sigpipe_default_and_ignored() {
    use std::os::unix::process::ExitStatusExt;
    let dir = Scratch::new("wc-pipe");
    dir.file("a", b"one two\n");
    let killed = closed_pipe_run("-", &dir.path);
    assert_eq!(
        killed.status.signal(),
        Some(libc::SIGPIPE),
        "{}",
        describe(killed.status)
    );
    assert!(
        killed.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&killed.stderr)
    );

    let ignored = closed_pipe_run("''", &dir.path);
    let world = World {
        files: [(b"a".to_vec(), Node::Regular(b"one two\n".to_vec()))].into(),
        stdin: Stdin::default(),
        read_errors: Default::default(),
        ..Default::default()
    };
    let failure = Some(StdoutFailure {
        limit: 0,
        errno: Errno::BrokenPipe,
    });
    let program = binary("wc").to_string_lossy().into_owned();
    assert_same(
        &outcome(ignored),
        &spec_as(&program, &["a"], Locale::C, &world, failure),
        "SIGPIPE ignored",
    );
}

#[test]
fn diagnostics_name_the_program_as_invoked() {
    let world = World::default();
    for args in [
        &["missing"][..],
        &["-q"],
        &["--total=x"],
        &["--files0-from=F", "x"],
        &["--help"],
    ] {
        let mut cmd = Command::new(binary("wc"));
        std::os::unix::process::CommandExt::arg0(&mut cmd, "/opt/bin/wc");
        let out = cmd
            .args(args)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .output()
            .expect("run wc");
        assert_same(
            &outcome(out),
            &spec_as("/opt/bin/wc", args, Locale::C, &world, None),
            &format!("{args:?}"),
        );
    }
}

#[test]
fn a_file_truncated_under_a_mapping_is_not_a_crash() {
    // Deterministic: map, truncate, then touch every page.
    let dir = Scratch::new("wc-trunc");
    let path = dir.file("t", &vec![b'x'; 1 << 20]);
    let file = std::fs::File::open(&path).expect("open");
    let window = samebytes::sys::MappedWindow::map(&file, 0, 1 << 20).expect("map");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open rw")
        .set_len(0)
        .expect("truncate");
    let seen = window.read(|b| b.iter().map(|&x| u64::from(x)).sum::<u64>());
    assert_eq!(
        seen, None,
        "a fault must be reported, not a sum of zero pages"
    );

    // Racy, but exact: wc on a file truncated while it counts never dies
    // of SIGBUS, and counts exactly the bytes it read before the file ended
    // for it.  `-c` beside `-w` is counted from the bytes read (not from
    // fstat), so it says how far that was.
    // No newline: there is nowhere to cut it in halves, so it is mapped.
    let mut data = mixed_text(48 * 1024 * 1024, 5);
    data.retain(|&b| b != b'\n');
    for delay_ms in [0u64, 5, 20] {
        std::fs::write(&path, &data).expect("rewrite");
        let child = wc()
            .args(["-wc", "t"])
            .current_dir(&dir.path)
            .env("LC_ALL", "C")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open rw")
            .set_len(4096)
            .expect("truncate");
        let out = child.wait_with_output().expect("wait");
        let read: usize = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .nth(1)
            .and_then(|w| w.parse().ok())
            .expect("a byte count");
        assert!(read <= data.len());
        let expected = spec(
            &["-wc", "t"],
            Locale::C,
            &World {
                files: [(b"t".to_vec(), Node::Regular(data[..read].to_vec()))].into(),
                stdin: Stdin::default(),
                read_errors: Default::default(),
                ..Default::default()
            },
            None,
        );
        // The columns' width comes from the size wc saw at the start (the
        // whole file), not from the bytes there were: compare the fields.
        let fields = |o: &[u8]| -> Vec<String> {
            String::from_utf8_lossy(o)
                .split_whitespace()
                .map(String::from)
                .collect()
        };
        let what = format!("truncated after {read} of {} bytes", data.len());
        assert_eq!(fields(&out.stdout), fields(&expected.stdout), "{what}");
        assert_eq!(
            (out.status.code(), out.stderr),
            (Some(expected.status), expected.stderr),
            "{what}"
        );
    }
}

#[test]
fn a_long_line_without_newline() {
    let dir = Scratch::new("wc-long");
    let mut data = mixed_text(12 * 1024 * 1024, 21);
    data.retain(|&b| b != b'\n' && b != b'\r' && b != 0x0c);
    dir.file("long", &data);
    let world = World {
        files: [(b"long".to_vec(), Node::Regular(data))].into(),
        stdin: Stdin::default(),
        read_errors: Default::default(),
        ..Default::default()
    };
    for locale in [Locale::C, Locale::Utf8] {
        let out = wc()
            .args(["-lwmcL", "long"])
            .current_dir(&dir.path)
            .env("LC_ALL", locale_name(locale))
            .output()
            .expect("run wc");
        assert_same(
            &outcome(out),
            &spec(&["-lwmcL", "long"], locale, &world, None),
            &format!("{locale:?}"),
        );
    }
}

#[test]
fn byte_count_reads_files_whose_size_is_a_guess() {
    // sysfs reports st_size 4096 for attributes holding a few bytes: the
    // size must not be trusted for page-multiple sizes.
    let candidates = [
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/cpu/online",
        "/sys/devices/system/cpu/possible",
    ];
    let mut checked = 0;
    for path in candidates {
        let Ok(data) = std::fs::read(path) else {
            continue;
        };
        let world = World {
            files: [(path.as_bytes().to_vec(), Node::Regular(data))].into(),
            stdin: Stdin::default(),
            read_errors: Default::default(),
            ..Default::default()
        };
        let out = wc().args(["-c", path]).output().expect("run wc");
        assert_same(
            &outcome(out),
            &spec(&["-c", path], Locale::C, &world, None),
            path,
        );
        checked += 1;
    }
    assert!(checked > 0, "no sysfs attribute to read on this machine");
}

/// A stray SIGBUS (`kill -BUS`: its si_addr is 0) is no fault in a mapped
/// window: it kills wc as it kills GNU's, whether a window is being read
/// at that moment or not.
#[test]
fn a_stray_sigbus_kills_wc_as_it_kills_gnus() {
    use std::os::unix::process::ExitStatusExt;
    let dir = Scratch::new("wc-sigbus");
    // No newline: nowhere to cut it in halves, so it is mapped, and slow
    // enough to count (-mw in UTF-8) that the signal finds a window armed.
    let mut data = mixed_text(16 << 20, 9);
    data.retain(|&b| b != b'\n');
    dir.file("m", &data);
    let mut killed = 0;
    for delay_ms in [0u64, 5, 20, 40, 80] {
        let child = wc()
            .args(["-mw", "m"])
            .current_dir(&dir.path)
            .env("LC_ALL", "C.UTF-8")
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn wc");
        std::thread::sleep(Duration::from_millis(delay_ms));
        common::sys::kill(child.id(), libc::SIGBUS);
        let out = child.wait_with_output().expect("wait");
        if out.status.success() {
            continue; // it was done before the signal came
        }
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGBUS),
            "after {delay_ms} ms: {}",
            describe(out.status)
        );
        killed += 1;
    }
    assert!(killed >= 3, "only {killed} runs met the signal");
}

/// A non-blocking pipe on stdin that runs dry (its writer still open)
/// ends wc with EAGAIN against `-`, after counting the bytes it held, as
/// GNU's wc ends: for `-c` (ours splices to /dev/null, and the splice's
/// failure carries the bytes it had already moved), and for counts read.
/// The pipe holds data at first, so the error comes after bytes counted.
#[test]
fn a_dry_non_blocking_stdin_pipe_is_counted_to_its_error_as_gnu() {
    // Printable ASCII and spaces: 9.1 and current GNU count its words
    // alike (`words-count-unprintables-since-9.5`).
    let held: Vec<u8> = (0..300)
        .flat_map(|i: u32| format!("w{i}{}", [" ", "\t", "\n", "  "][i as usize % 4]).into_bytes())
        .collect();
    let run = |program: &std::path::Path, args: &[&str]| {
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        writer.write_all(&held).expect("preload");
        common::sys::set_nonblocking(&reader);
        let mut c = Command::new(program);
        std::os::unix::process::CommandExt::arg0(&mut c, "wc");
        let out = c
            .args(args)
            .stdin(reader)
            .env("LC_ALL", "C")
            .output()
            .expect("run wc");
        drop(writer);
        (
            describe(out.status),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // `-l` and `-lc` alone not against 9.1: its line loop prints 0 for
    // them after an error (docs/differences.md, `read-error-keeps-counts`);
    // `-lw` counts lines by the general loop, which keeps them.
    let arg_sets = [
        &["-c"][..],
        &["-lw"],
        &[],
        &["-c", "-"],
        &["-L"],
        &["-l"],
        &["-lc"],
    ];
    for args in arg_sets {
        let mine = run(&binary("wc"), args);
        for build in samebytes_oracle::gnu::columns_or_panic() {
            let line_loop = args == ["-l"] || args == ["-lc"];
            if line_loop && build.coreutils < samebytes_oracle::gnu::Version(9, 2) {
                continue;
            }
            let gnu = run(&build.tool("wc"), args);
            assert!(
                gnu.2.contains("Resource temporarily unavailable"),
                "{gnu:?}"
            );
            assert_eq!(mine, gnu, "{args:?}, GNU {}", build.label());
        }
    }
}

/// The binaries skip Rust's runtime start-up, which reopened closed
/// standard descriptors on /dev/null; `sys::start_process` does it instead,
/// so a file the tool opens can never become descriptor 1 or 2.  Read off
/// /proc while wc waits on its stdin pipe: with stdout and stderr closed,
/// 1 and 2 are open on /dev/null, and every other descriptor is the same
/// as in a run with all three given (the ones the test harness leaks).
#[test]
fn closed_standard_descriptors_are_reopened_on_dev_null() {
    let open_fds = |close: &[i32]| -> Vec<(i32, String)> {
        let mut cmd = Command::new(binary("wc"));
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for &fd in close {
            common::close_in_child(&mut cmd, fd);
        }
        let mut child = cmd.spawn().expect("spawn wc");
        // Wait until wc blocks in its read of stdin.
        let wchan = format!("/proc/{}/wchan", child.id());
        for _ in 0..200 {
            if std::fs::read_to_string(&wchan)
                .unwrap_or_default()
                .contains("pipe")
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut open: Vec<(i32, String)> = std::fs::read_dir(format!("/proc/{}/fd", child.id()))
            .expect("read /proc fd")
            .map(|e| {
                let e = e.expect("fd entry");
                let fd = e.file_name().to_string_lossy().parse().expect("fd number");
                let target = std::fs::read_link(e.path()).expect("fd link");
                (fd, target.to_string_lossy().into_owned())
            })
            .collect();
        open.sort();
        drop(child.stdin.take());
        // With stdout closed the counts cannot be written (status 1).
        let status = child.wait().expect("wait wc");
        assert_eq!(status.success(), close.is_empty(), "closed {close:?}");
        open
    };
    let given = open_fds(&[]);
    let reopened = open_fds(&[1, 2]);
    let at = |list: &[(i32, String)], fd: i32| {
        list.iter().find(|(n, _)| *n == fd).map(|(_, t)| t.clone())
    };
    assert_eq!(
        at(&reopened, 1).as_deref(),
        Some("/dev/null"),
        "{reopened:?}"
    );
    assert_eq!(
        at(&reopened, 2).as_deref(),
        Some("/dev/null"),
        "{reopened:?}"
    );
    let others = |list: &[(i32, String)]| -> Vec<(i32, String)> {
        list.iter()
            .filter(|(fd, _)| *fd > 2)
            .map(|(fd, t)| {
                (
                    *fd,
                    if t.starts_with("pipe:") {
                        "pipe".into()
                    } else {
                        t.clone()
                    },
                )
            })
            .collect()
    };
    assert_eq!(
        others(&reopened),
        others(&given),
        "given {given:?}, reopened {reopened:?}"
    );
}
