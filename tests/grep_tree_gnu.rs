//! GNU conformance of the reference's recursive search: generated trees on
//! disk (nested folders; symbolic links to files, to folders, to an
//! ancestor and to nothing; FIFOs; unreadable files and folders; empty and
//! binary files; names with spaces, newlines and invalid UTF-8) searched
//! by GNU grep (each build `SAMEBYTES_GNU` names: by default the system's 3.8
//! and Debian trixie's 3.11) and by the spec, which sees the tree through
//! `Tree::load` (`std::fs::read_dir`, so the same `readdir` order as GNU's
//! fts).  stdout, stderr and the status must match byte for byte.
//!
//! The samebytes binary searches the same trees, on one to four search
//! threads with files mapped in small windows, and must print GNU's bytes.
//!
//! Unreadable entries need a user the permission bits apply to: as root,
//! GNU runs under `setpriv` as `nobody`.

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::Scratch;
use samebytes_oracle::binary::run;
use samebytes_oracle::faultplan::{Plan, ENV};
use samebytes_oracle::gnu::columns_or_panic;
use samebytes_oracle::grep::tree::{NAMES, OPEN_ERRORS};
use samebytes_spec::grep::{grep_in_tree, GrepEnv, GrepStdout};
use samebytes_spec::tree::Tree;
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::Locale;

/// splitmix64: cases are a function of their seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    fn pick_ref<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const BODIES: &[&[u8]] = &[
    b"foo\n",
    b"bar foo\nbaz\n",
    b"",
    b"x\0foo\n",
    b"foo",
    b"\xc3\xa9 foo\n",
    b"nothing\n",
];

/// What the generator made, for the case's arguments.
#[derive(Default)]
struct Made {
    dirs: Vec<Vec<u8>>,
    files: Vec<Vec<u8>>,
    fifos: bool,
    unreadable: Vec<Vec<u8>>,
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        name.to_vec()
    } else {
        [dir, b"/", name].concat()
    }
}

fn make_dir(rng: &mut Rng, root: &Path, rel: &[u8], depth: usize, made: &mut Made, fifos: bool) {
    let count = rng.below(5) + usize::from(depth == 0);
    for _ in 0..count {
        let name = rng.pick(NAMES);
        let path = join(rel, name);
        let full = root.join(OsStr::from_bytes(&path));
        if full.symlink_metadata().is_ok() {
            continue;
        }
        match rng.below(10) {
            0..=4 => {
                std::fs::write(&full, rng.pick(BODIES)).unwrap();
                made.files.push(path.clone());
            }
            5 | 6 if depth < 3 => {
                std::fs::create_dir(&full).unwrap();
                made.dirs.push(path.clone());
                make_dir(rng, root, &path, depth + 1, made, fifos);
            }
            // Links never leave the tree: `..` only below its root.
            7 => {
                let targets: &[&[u8]] = &[b"a", b"nowhere", b"x.txt", b"../a"];
                let target = rng.pick(&targets[..3 + usize::from(depth > 0)]);
                std::os::unix::fs::symlink(OsStr::from_bytes(target), &full).unwrap();
            }
            8 => {
                let targets: &[&[u8]] = &[b".", b"sub", b"sub/", b"..", b"../sub"];
                let target = rng.pick(&targets[..3 + 2 * usize::from(depth > 0)]);
                std::os::unix::fs::symlink(OsStr::from_bytes(target), &full).unwrap();
            }
            _ if fifos => {
                common::sys::mkfifo(&full).expect("mkfifo");
                made.fifos = true;
            }
            _ => {}
        }
        let exists = full
            .symlink_metadata()
            .is_ok_and(|m| !m.file_type().is_symlink());
        if exists && rng.chance(8) {
            made.unreadable.push(path);
        }
    }
}

fn args_for(rng: &mut Rng, made: &Made, deref: bool) -> Vec<Vec<u8>> {
    let mut args: Vec<Vec<u8>> = Vec::new();
    let s = |x: &str| x.as_bytes().to_vec();
    args.push(s(match (deref, rng.below(3)) {
        (true, _) => "-R",
        (false, 0) => "-r",
        (false, 1) => "--directories=recurse",
        _ => "--recursive",
    }));
    // The tree differential test's option sets: GNU checks them too.
    let output: &[&str] = rng.pick(samebytes_oracle::grep::tree::TREE_FLAGS);
    args.extend(output.iter().map(|o| s(o)));
    for _ in 0..rng.below(3) {
        let glob = rng.pick(&[
            "*.c", "a*", "*a", "x.txt", "sub", "d*", "[ab]*", "?", "*", "\\a*", "*.txt", "[!a-m]*",
        ]);
        let opt = rng.pick(&["--include=", "--exclude=", "--exclude-dir="]);
        args.push(s(&format!("{opt}{glob}")));
    }
    if !made.fifos && rng.chance(20) {
        args.push(s(rng.pick(&["-D", "-d"])));
        let last = args.last().unwrap().clone();
        args.push(s(if last == b"-D" { "read" } else { "skip" }));
    } else if rng.chance(10) {
        args.push(s("--devices=skip"));
    }
    args.push(s("foo"));
    let mut operands: Vec<Vec<u8>> = Vec::new();
    match rng.below(6) {
        0 | 1 => {}
        2 => operands.push(s(rng.pick(&[".", "./", ".//"]))),
        3 if !made.dirs.is_empty() => {
            let d = rng.pick_ref(&made.dirs).clone();
            operands.push(if rng.chance(50) {
                [&d[..], b"/"].concat()
            } else {
                d
            });
        }
        4 if !made.files.is_empty() => operands.push(rng.pick_ref(&made.files).clone()),
        _ => {
            operands.extend(made.dirs.first().cloned());
            operands.extend(made.files.first().cloned());
            operands.push(s("nonexistent"));
        }
    }
    args.extend(operands);
    args
}

/// A generated tree under `root` (made here) and a command line over it:
/// `-R` three times in ten; FIFOs only where allowed and not under `-R`.
fn tree_and_args(rng: &mut Rng, root: &Path, fifos: bool) -> (Made, Vec<Vec<u8>>) {
    std::fs::create_dir(root).unwrap();
    let deref = rng.chance(30);
    let mut made = Made::default();
    make_dir(rng, root, b"", 0, &mut made, fifos && !deref);
    let args = args_for(rng, &made, deref);
    (made, args)
}

/// The world the tree cases run in: stdin an empty stream.
fn empty_stream_stdin() -> World {
    World {
        stdin: Stdin {
            node: Node::Stream(Vec::new()),
            offset: 0,
        },
        ..World::default()
    }
}

/// Run `program` (GNU's grep or ours) in `root`; `threads` sets our
/// search threads, with small mapping windows so that files are mapped.
fn run_grep(
    program: &Path,
    root: &Path,
    args: &[Vec<u8>],
    utf8: bool,
    as_nobody: bool,
    threads: usize,
) -> (Vec<u8>, Vec<u8>, i32) {
    let out = grep_command(program, root, args, utf8, as_nobody, threads)
        .output()
        .expect("run grep");
    (out.stdout, out.stderr, out.status.code().unwrap_or(-1))
}

/// The command [`run_grep`] runs.
fn grep_command(
    program: &Path,
    root: &Path,
    args: &[Vec<u8>],
    utf8: bool,
    as_nobody: bool,
    threads: usize,
) -> Command {
    let mut cmd = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        c.arg(program);
        c
    } else {
        Command::new(program)
    };
    cmd.env("SAMEBYTES_GREP_THREADS", threads.to_string())
        .env("SAMEBYTES_GREP_MAP_MIN", "3")
        .env("SAMEBYTES_GREP_WINDOW", "4096")
        // Little room for output behind the file being printed, and few
        // files queued: the search threads wait, in small trees too.
        .env("SAMEBYTES_GREP_HELD", (threads * 7).to_string())
        .env("SAMEBYTES_GREP_HEAD_HELD", "5")
        .env("SAMEBYTES_GREP_QUEUED", threads.to_string());
    cmd.args(args.iter().map(|a| OsStr::from_bytes(a)))
        .current_dir(root)
        .env("LC_ALL", if utf8 { "C.UTF-8" } else { "C" })
        .env_remove("GREP_COLORS")
        .env_remove("GREP_COLOR")
        .stdin(Stdio::null());
    cmd
}

#[test]
fn recursive_search_matches_gnu_on_generated_trees() {
    let root_user = common::sys::is_root();
    let cases = std::env::var("SAMEBYTES_TREE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150u64);
    let builds = columns_or_panic();
    let mut compared = 0;
    for seed in 0..cases {
        let mut rng = Rng(seed);
        let scratch = Scratch::new("tree");
        let root = scratch.path.join("tree");
        let (made, args) = tree_and_args(&mut rng, &root, true);
        let utf8 = rng.chance(50);
        // Let `nobody` in, then lock the unreadable entries.
        for dir in [&scratch.path, &root] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let mut tree = Tree::load(&root).expect("load the tree");
        for u in &made.unreadable {
            let full = root.join(OsStr::from_bytes(u));
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o000)).unwrap();
            tree.unreadable.insert(u.clone());
        }
        // Ours, on one to four search threads.
        let threads = 1 + rng.below(4);
        let ours = common::binary("grep");
        let (our_out, our_err, our_status) =
            run_grep(&ours, &root, &args, utf8, root_user, threads);
        let world = empty_stream_stdin();
        let mut outcomes = Vec::new();
        for build in &builds {
            let gnu_grep = build.tool("grep");
            let mut env = GrepEnv::new(if utf8 { Locale::Utf8 } else { Locale::C });
            if root_user {
                // setpriv runs GNU with argv[0] as given.
                env.program = gnu_grep.to_string_lossy().into_owned();
            }
            let spec = grep_in_tree(&args, &env, &world, &tree, &GrepStdout::Stream, None);
            let gnu = run_grep(&gnu_grep, &root, &args, utf8, root_user, 1);
            outcomes.push((build.label(), gnu_grep, spec, gnu));
        }
        // Restore permissions so that the scratch folder can be removed.
        for u in &made.unreadable {
            let full = root.join(OsStr::from_bytes(u));
            let _ = std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755));
        }
        for (label, gnu_grep, spec, (out, err, status)) in outcomes {
            let context = format!(
                "seed {seed}: grep {:?} in {:?} (utf8 {utf8}), GNU {label}\ntree {:?}",
                args.iter().map(|a| shown(a)).collect::<Vec<_>>(),
                root,
                tree
            );
            assert_eq!(shown(&spec.stdout), shown(&out), "stdout, {context}");
            // Diagnostics name files with invalid UTF-8 replaced
            // (docs/differences.md).
            assert_eq!(shown(&spec.stderr), shown(&err), "stderr, {context}");
            assert_eq!(spec.status, status, "status, {context}");
            // Ours: GNU's bytes, named as GNU.
            let context = format!("{context}\nsamebytes grep on {threads} threads");
            let named_as_gnu =
                shown(&our_err).replace(&*ours.to_string_lossy(), &gnu_grep.to_string_lossy());
            assert!(
                our_out == out,
                "stdout: {:?} instead of {:?}, {context}",
                shown(&our_out),
                shown(&out)
            );
            assert_eq!(named_as_gnu, shown(&err), "stderr, {context}");
            assert_eq!(our_status, status, "status, {context}");
        }
        compared += 1;
    }
    assert_eq!(compared, cases);
}

/// Entries whose opening fails though they are listed and `stat` sees
/// them: removed in between (ENOENT), descriptors run out (EMFILE,
/// ENFILE), a failing file system (EIO); and entries no `stat` describes
/// (EIO) though they open, which fts filters as files.  The fault layer
/// fails the calls, by device and inode, for GNU's grep (whose `openat`
/// and `stat` calls go through the same symbols) and for ours; GNU, the
/// spec and ours must agree byte for byte.
#[test]
fn failing_opens_and_stats_in_a_tree_match_gnu() {
    let layer = common::campaign_binaries().layer();
    let ours = common::binary("grep");
    let builds = columns_or_panic();
    let mut failing = 0;
    for seed in 0..150u64 {
        let mut rng = Rng(seed ^ 0x6f70_656e);
        let scratch = Scratch::new("treeopen");
        let root = scratch.path.join("tree");
        let (made, args) = tree_and_args(&mut rng, &root, false);
        let mut tree = Tree::load(&root).expect("load the tree");
        // The generator's unreadable picks (files and folders, no links)
        // and as many more fail to open here.
        let mut plan = Plan::default();
        let picks = made
            .dirs
            .iter()
            .chain(&made.files)
            .filter(|_| rng.chance(25));
        for key in made.unreadable.iter().chain(picks.collect::<Vec<_>>()) {
            let path = root.join(OsStr::from_bytes(key));
            if rng.chance(35) {
                if tree.stat_errors.insert(key.clone()) {
                    let m = std::fs::metadata(&path).unwrap();
                    plan.stat_failures.push((m.dev(), m.ino()));
                }
                continue;
            }
            if tree.open_errors.contains_key(key) {
                continue;
            }
            let errno = rng.pick(&OPEN_ERRORS);
            plan.open_failures.push(run::open_failure(&path, errno));
            tree.open_errors.insert(key.clone(), errno);
        }
        failing += tree.open_errors.len() + tree.stat_errors.len();
        let utf8 = rng.chance(50);
        let world = empty_stream_stdin();
        let mut env = GrepEnv::new(if utf8 { Locale::Utf8 } else { Locale::C });
        env.program = "grep".into();
        let spec = grep_in_tree(&args, &env, &world, &tree, &GrepStdout::Stream, None);
        let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let context = format!(
            "seed {seed}: grep {:?}, plan {}\ntree {tree:?}",
            args.iter().map(|a| shown(a)).collect::<Vec<_>>(),
            plan.render()
        );
        let gnu: Vec<(PathBuf, usize)> = builds.iter().map(|b| (b.tool("grep"), 1)).collect();
        for (program, threads) in gnu.into_iter().chain([(ours.clone(), 1 + rng.below(4))]) {
            let out = grep_command(&program, &root, &args, utf8, false, threads)
                .arg0("grep")
                .env("LD_PRELOAD", &layer)
                .env(ENV, plan.render())
                .output()
                .expect("run grep under the layer");
            let what = format!("{} on {threads} threads, {context}", program.display());
            assert_eq!(shown(&spec.stdout), shown(&out.stdout), "stdout of {what}");
            assert_eq!(shown(&spec.stderr), shown(&out.stderr), "stderr of {what}");
            assert_eq!(Some(spec.status), out.status.code(), "status of {what}");
        }
    }
    assert!(
        failing >= 100,
        "only {failing} failing opens and stats in 150 trees"
    );
}

/// A directory of more than 10,000 entries: gnulib's fts sorts such a
/// listing by inode number (unless the file system is tmpfs, NFS or
/// CIFS), so GNU prints its files in that order, not `readdir`'s; ours
/// must print the same, on one thread and on several.
#[test]
fn big_directories_come_in_gnus_order() {
    let scratch = Scratch::new("bigdir");
    let root = scratch.path.join("big");
    std::fs::create_dir(&root).unwrap();
    for i in 0..10_050u32 {
        // Names in an order unrelated to creation (and so to inodes).
        let n = (i * 7919) % 10_050;
        std::fs::write(
            root.join(format!("f{n:05}")),
            if n % 3 == 0 { "x\n" } else { "y\n" },
        )
        .unwrap();
    }
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/inner"), "x\n").unwrap();
    let args: Vec<Vec<u8>> = vec![b"-r".to_vec(), b"x".to_vec(), b".".to_vec()];
    let ours = common::binary("grep");
    for build in columns_or_panic() {
        let gnu = run_grep(&build.tool("grep"), &root, &args, false, false, 1);
        assert_eq!(gnu.2, 0);
        for threads in [1, 2, 3] {
            let got = run_grep(&ours, &root, &args, false, false, threads);
            assert!(
                got.0 == gnu.0,
                "{threads} threads: stdout differs from GNU {}'s",
                build.label()
            );
            assert_eq!((got.1, got.2), (gnu.1.clone(), gnu.2));
        }
    }
}

/// The same on tmpfs, where gnulib leaves a big directory in `readdir`
/// order, and with `fstatfs` failing there (the fault layer refuses it),
/// when it cannot tell and sorts by inode after all: GNU's order each
/// time, and the two orders differ.
#[test]
fn big_directories_follow_gnu_when_fstatfs_fails() {
    let shm = Path::new("/dev/shm");
    assert!(shm.is_dir(), "/dev/shm (tmpfs) is needed");
    let root = shm.join(format!("samebytes-bigdir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir(&root).unwrap();
    for i in 0..10_050u32 {
        let n = (i * 7919) % 10_050;
        std::fs::write(root.join(format!("f{n:05}")), "x\n").unwrap();
    }
    let args: Vec<Vec<u8>> = vec![b"-r".to_vec(), b"-l".to_vec(), b"x".to_vec(), b".".to_vec()];
    let layer = common::campaign_binaries().layer();
    let plan = Plan {
        refuse: 100,
        ..Plan::default()
    };
    let run = |program: &Path, refused: bool, threads: usize| {
        let mut cmd = grep_command(program, &root, &args, false, false, threads);
        if refused {
            cmd.env("LD_PRELOAD", &layer).env(ENV, plan.render());
        }
        let out = cmd.output().expect("run grep");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let ours = common::binary("grep");
    let mut orders = Vec::new();
    let builds = columns_or_panic();
    for refused in [false, true] {
        let mut gnu_order = None;
        for build in &builds {
            let gnu = run(&build.tool("grep"), refused, 1);
            for threads in [1, 2] {
                assert!(
                    run(&ours, refused, threads) == gnu,
                    "fstatfs refused: {refused}, {threads} threads: not GNU {}'s order",
                    build.label()
                );
            }
            gnu_order = Some(gnu);
        }
        orders.push(gnu_order.expect("a GNU build"));
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(orders[0] != orders[1], "a failing fstatfs changed nothing");
}
