//! Helpers shared by the binary-level and GNU conformance tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

#[allow(unsafe_code)]
pub mod sys;
#[allow(unused_imports)]
pub use sys::{close_in_child, limit_file_size};

/// The built binary `name` from the `samebytes` package, building it (in
/// the same profile as the tests) if it is not there yet.
pub fn binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> -> target/<profile>
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target profile dir")
        .to_path_buf();
    let path = dir.join(name);
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let profile = dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug");
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", "samebytes", "--bins"]);
        // `test` builds into `debug`; any other profile (release, or
        // cargo-mutants' `mutants`) into its own folder.
        if profile != "debug" {
            cmd.args(["--profile", profile]);
        }
        let status = cmd.status().expect("run cargo build");
        assert!(status.success(), "building the samebytes binaries failed");
    });
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// The binaries and the fault layer for the binary campaign's cases,
/// built in the tests' own profile.
pub fn campaign_binaries() -> &'static samebytes_oracle::binary::Binaries {
    static BUILT: OnceLock<samebytes_oracle::binary::Binaries> = OnceLock::new();
    BUILT.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable");
        // target/<profile>/deps/<test> -> target/<profile>
        let dir = exe.parent().and_then(Path::parent).expect("profile folder");
        let profile = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("profile name");
        let target = dir.parent().expect("target folder");
        samebytes_oracle::binary::Binaries::build(target, profile)
            .expect("build the binaries and the fault layer")
    })
}

/// A fresh scratch directory, removed on drop.
pub struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("samebytes-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create scratch dir");
        Scratch { path }
    }

    pub fn file(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.path.join(name);
        std::fs::write(&p, data).expect("write scratch file");
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Deterministic pseudo-random text with every byte class wc cares about.
pub fn mixed_text(len: usize, seed: u64) -> Vec<u8> {
    let pieces: &[&[u8]] = &[
        b"word",
        b" ",
        b"\n",
        b"\t",
        b"\r\n",
        b"\xc3\xa9t\xc3\xa9",
        b"\xe4\xb8\xad\xe6\x96\x87",
        b"\xc2\xa0",
        b"\xe3\x80\x80",
        b"\xff",
        b"\xe2\x80",
        b"\0",
        b"x",
        b"  ",
        b"\x0b",
        b"\x0c",
    ];
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(pieces[(state >> 33) as usize % pieces.len()]);
    }
    out.truncate(len);
    out
}

/// The exit status or, if killed, the signal.
pub fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "unknown".into(),
    }
}

/// Build `world` in `dir` and set `cmd` up as a GNU tool is run on it:
/// argv[0], locale, `POSIXLY_CORRECT`, stdin (a regular file at its offset,
/// a pipe, or a directory).  Then spawn it, feed a piped stdin from another
/// thread, and wait.  Named pipes and unreadable files cannot be built.
pub fn run_in_world(
    mut cmd: Command,
    argv0: &str,
    world: &samebytes_spec::world::World,
    utf8: bool,
    posixly_correct: bool,
    dir: &Scratch,
) -> std::process::Output {
    use samebytes_spec::world::Node;
    use std::ffi::OsStr;
    use std::io::{Seek, SeekFrom, Write};
    use std::os::unix::ffi::OsStrExt;
    use std::process::Stdio;

    for (name, node) in &world.files {
        let path = dir.path.join(OsStr::from_bytes(name));
        match node {
            Node::Regular(d) => std::fs::write(&path, d).expect("write file"),
            Node::Directory => std::fs::create_dir_all(&path).expect("mkdir"),
            Node::Stream(_) | Node::Unreadable | Node::Closed => unreachable!("filtered"),
        }
    }
    // GNU names itself after argv[0]; both sides run under the same name.
    std::os::unix::process::CommandExt::arg0(&mut cmd, argv0);
    cmd.current_dir(&dir.path)
        .env_remove("LANG")
        .env_remove("LC_CTYPE")
        .env("LC_ALL", if utf8 { "C.UTF-8" } else { "C" })
        .stderr(Stdio::piped());
    if posixly_correct {
        cmd.env("POSIXLY_CORRECT", "1");
    } else {
        cmd.env_remove("POSIXLY_CORRECT");
    }
    let mut feed = None;
    match &world.stdin.node {
        Node::Regular(d) => {
            let p = dir.path.join(".stdin");
            std::fs::write(&p, d).expect("write stdin");
            let mut f = std::fs::File::open(&p).expect("open stdin");
            f.seek(SeekFrom::Start(world.stdin.offset as u64))
                .expect("seek");
            cmd.stdin(f);
        }
        Node::Stream(d) => {
            cmd.stdin(Stdio::piped());
            feed = Some(d.clone());
        }
        Node::Directory => {
            cmd.stdin(std::fs::File::open(&dir.path).expect("open dir"));
        }
        Node::Unreadable => unreachable!("stdin is never unreadable"),
        Node::Closed => {
            cmd.stdin(Stdio::null());
            close_in_child(&mut cmd, 0);
        }
    }
    let mut child = cmd.spawn().expect("spawn");
    let writer = feed.map(|d| {
        let mut stdin = child.stdin.take().expect("stdin");
        std::thread::spawn(move || {
            let _ = stdin.write_all(&d);
        })
    });
    let watchdog = Watchdog::new(child.id(), std::time::Duration::from_secs(60));
    let out = child.wait_with_output().expect("wait");
    watchdog.disarm();
    if let Some(w) = writer {
        w.join().expect("writer");
    }
    out
}

/// Kills a process that runs past its time, so that a run that never ends
/// (a copy that feeds itself) fails its test as killed instead of hanging
/// it.
pub struct Watchdog {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Watchdog {
    pub fn new(pid: u32, limit: std::time::Duration) -> Watchdog {
        use std::sync::atomic::{AtomicBool, Ordering};
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let seen = done.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while start.elapsed() < limit {
                std::thread::sleep(std::time::Duration::from_millis(50));
                if seen.load(Ordering::Acquire) {
                    return;
                }
            }
            if !seen.load(Ordering::Acquire) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        });
        Watchdog { done }
    }

    /// The process has been waited for: leave it alone.
    pub fn disarm(self) {
        self.done.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// /dev/full opened for writing, to be a tool's stdout.
pub fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

/// Write `data` to `w` in pseudo-random chunks with pauses, as a slow
/// producer does.
pub fn feed_in_chunks(mut w: impl std::io::Write, data: Vec<u8>, seed: u64) {
    let mut state = seed;
    let mut at = 0;
    while at < data.len() {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
        let n = 1 + (state >> 40) as usize % 9000;
        let end = (at + n).min(data.len());
        if w.write_all(&data[at..end]).is_err() {
            return;
        }
        at = end;
        if (state >> 20).is_multiple_of(16) {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// How many generated cases a conformance test runs: `var` in the
/// environment (`WC_GNU_CASES`, ...), or `default`.
pub fn case_count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
