//! Recursive grep on generated trees: the spec walks a [`Tree`] in order
//! on one thread; the implementation walks the same tree through
//! [`TreeFiles`] and searches it on 1 to 5 threads, with random delays in
//! every open, listing and read so that the threads finish in a different
//! order each run, files that read in chunks or are mapped in windows
//! that fail and spoil, and listings that sometimes leave an entry's kind
//! unknown (as some file systems do), so that it is asked with `lstat`.
//! Output must be byte for byte the spec's.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arbitrary::{Arbitrary, Unstructured};

use super::{FileStrategy, ModelMapped};
use crate::codec::{self, Decoder, Encoder};
use crate::live::Flowing;
use crate::mismatch::{compare_in_order, Mismatch};
use crate::order;
use crate::schedule::{self, ChunkedReader, ReadSchedule};
use samebytes::grep::{
    DirType, GrepConfig, GrepFiles, GrepInput, GrepStream, GrepSystem, Listing, NeverPauses,
    OpenFlags, RawEntry,
};
use samebytes_spec::grep::{grep_in_tree, GrepEnv, GrepStdout};
use samebytes_spec::tree::{child_key, Entry, Tree};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Errno, Locale, Outcome};

/// One recursive run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeCase {
    pub args: Vec<Vec<u8>>,
    pub utf8: bool,
    pub tree: Tree,
    /// A stream on stdin (for `-` and `--exclude-from=-`).
    pub stdin: Vec<u8>,
    pub read: ReadSchedule,
    pub buffer: usize,
    /// The search threads of the parallel run (a run on one thread is
    /// always checked too).
    pub threads: usize,
    /// Seeds the delays and which entries' kinds a listing leaves out.
    pub seed: u64,
}

impl TreeCase {
    pub fn env(&self) -> GrepEnv {
        GrepEnv::new(if self.utf8 { Locale::Utf8 } else { Locale::C })
    }

    fn world(&self) -> World {
        World {
            stdin: Stdin {
                node: Node::Stream(self.stdin.clone()),
                offset: 0,
            },
            ..World::default()
        }
    }

    pub fn spec_outcome(&self) -> Outcome {
        let world = self.world();
        grep_in_tree(
            &self.args,
            &self.env(),
            &world,
            &self.tree,
            &GrepStdout::Stream,
            None,
        )
    }

    /// `samebytes-oracle replay grep-tree:<hex>`.
    pub fn reproducer(&self) -> String {
        format!("samebytes-oracle replay grep-tree:{}", self.encode())
    }

    pub fn encode(&self) -> String {
        let mut e = Encoder::default();
        e.uint(4);
        codec::put_args(&mut e, &self.args);
        e.uint(u64::from(self.utf8));
        e.uint(self.tree.entries.len() as u64);
        for (key, entry) in &self.tree.entries {
            e.bytes(key);
            match entry {
                Entry::File(d) => {
                    e.uint(0);
                    e.bytes(d);
                }
                Entry::Dir(names) => {
                    e.uint(1);
                    codec::put_args(&mut e, names);
                }
                Entry::Symlink(t) => {
                    e.uint(2);
                    e.bytes(t);
                }
                Entry::Special(d) => {
                    e.uint(3);
                    e.bytes(d);
                }
            }
        }
        let unreadable: Vec<Vec<u8>> = self.tree.unreadable.iter().cloned().collect();
        codec::put_args(&mut e, &unreadable);
        e.uint(self.tree.list_errors.len() as u64);
        for (key, read) in &self.tree.list_errors {
            e.bytes(key);
            e.uint(*read as u64);
        }
        e.uint(self.tree.open_errors.len() as u64);
        for (key, error) in &self.tree.open_errors {
            e.bytes(key);
            let at = OPEN_ERRORS.iter().position(|x| x == error);
            e.uint(at.expect("an open error the generator makes") as u64);
        }
        let stat_errors: Vec<Vec<u8>> = self.tree.stat_errors.iter().cloned().collect();
        codec::put_args(&mut e, &stat_errors);
        e.bytes(&self.stdin);
        codec::put_read_schedule(&mut e, &self.read);
        e.uint(self.buffer as u64);
        e.uint(self.threads as u64);
        e.uint(self.seed);
        e.hex()
    }

    pub fn decode(hex: &str) -> Result<TreeCase, codec::DecodeError> {
        let raw = codec::from_hex(hex)?;
        let mut d = Decoder::new(&raw);
        // Version 1 had no listing errors, version 2 no open errors,
        // version 3 no stat errors.
        let version = d.uint()?;
        if !(1..=4).contains(&version) {
            return Err(codec::DecodeError);
        }
        let args = codec::get_args(&mut d)?;
        let utf8 = d.uint()? != 0;
        let mut tree = Tree::default();
        tree.entries.clear();
        for _ in 0..d.uint()? {
            let key = d.bytes()?;
            let entry = match d.uint()? {
                0 => Entry::File(d.bytes()?),
                1 => Entry::Dir(codec::get_args(&mut d)?),
                2 => Entry::Symlink(d.bytes()?),
                3 => Entry::Special(d.bytes()?),
                _ => return Err(codec::DecodeError),
            };
            tree.entries.insert(key, entry);
        }
        tree.unreadable = codec::get_args(&mut d)?.into_iter().collect();
        if version >= 2 {
            for _ in 0..d.uint()? {
                let key = d.bytes()?;
                tree.list_errors.insert(key, d.usize()?);
            }
        }
        if version >= 3 {
            for _ in 0..d.uint()? {
                let key = d.bytes()?;
                let error = *OPEN_ERRORS.get(d.usize()?).ok_or(codec::DecodeError)?;
                tree.open_errors.insert(key, error);
            }
        }
        if version >= 4 {
            tree.stat_errors = codec::get_args(&mut d)?.into_iter().collect();
        }
        let case = TreeCase {
            args,
            utf8,
            tree,
            stdin: d.bytes()?,
            read: codec::get_read_schedule(&mut d)?,
            buffer: d.usize()?.max(1),
            threads: d.usize()?.clamp(1, 64),
            seed: d.uint()?,
        };
        match d.finished() {
            true => Ok(case),
            false => Err(codec::DecodeError),
        }
    }
}

// ---------------------------------------------------------------------------
// Generation.

/// The errors an entry's opening fails with besides EACCES (the tree's
/// `unreadable`): removed since it was listed, descriptors run out, a
/// failing file system.  GNU reports each as it reports EACCES.
pub const OPEN_ERRORS: [Errno; 4] = [
    Errno::NoEntry,
    Errno::TooManyOpen,
    Errno::TooManyOpenInSystem,
    Errno::Io,
];

/// The names trees are made of: plain, with a dot, a space, a newline,
/// invalid UTF-8, hidden, the `sub` and `d1` the globs and links name, and
/// UTF-8 that globs match by characters.
pub const NAMES: &[&[u8]] = &[
    b"a",
    b"b.c",
    b"x.txt",
    b"sp ace",
    b"nl\nname",
    b"\xff\xfe",
    b".hid",
    b"sub",
    b"d1",
    b"zeta",
    b"a.c",
    b"\xc3\xa9t\xc3\xa9",
];
const PIECES: &[&[u8]] = &[
    b"foo", b"bar", b"o", b"\n", b"\n", b" ", b"\0", b"\xff", b"x", b"foo\n",
];

fn body(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let mut data = Vec::new();
    for _ in 0..u.int_in_range(0..=12)? {
        let piece = *u.choose(PIECES)?;
        let times = if u.ratio(1, 12)? { 700 } else { 1 };
        for _ in 0..times {
            data.extend_from_slice(piece);
        }
    }
    Ok(data)
}

/// How many names the directory `key` holds.
fn names_of(tree: &Tree, key: &[u8]) -> usize {
    match tree.get(key) {
        Some(Entry::Dir(names)) => names.len(),
        _ => 0,
    }
}

/// Fill the directory `key` (`depth` deep) with entries.
fn fill(
    u: &mut Unstructured<'_>,
    tree: &mut Tree,
    key: &[u8],
    depth: usize,
) -> arbitrary::Result<()> {
    let mut names = Vec::new();
    for _ in 0..u.int_in_range(0..=4)? + usize::from(depth == 0) {
        let name = u.choose(NAMES)?.to_vec();
        if names.contains(&name) {
            continue;
        }
        let k = child_key(key, &name);
        let entry = match u.int_in_range(0..=9)? {
            0..=4 => Entry::File(body(u)?),
            5 | 6 if depth < 3 => {
                names.push(name);
                tree.entries.insert(k.clone(), Entry::Dir(Vec::new()));
                fill(u, tree, &k, depth + 1)?;
                if u.ratio(1, 12)? {
                    tree.unreadable.insert(k);
                } else if u.ratio(1, 12)? {
                    tree.open_errors.insert(k, *u.choose(&OPEN_ERRORS)?);
                } else if u.ratio(1, 12)? {
                    tree.stat_errors.insert(k);
                } else if u.ratio(1, 10)? {
                    // Its listing fails with EIO after some of its names.
                    let read = u.int_in_range(0..=names_of(tree, &k))?;
                    tree.list_errors.insert(k, read);
                }
                continue;
            }
            7 => Entry::Symlink(
                u.choose(&[&b"a"[..], b"nowhere", b"x.txt", b"../a", b"/a"])?
                    .to_vec(),
            ),
            8 => Entry::Symlink(
                u.choose(&[&b"."[..], b"sub", b"..", b"../sub", b"/", b"sub/"])?
                    .to_vec(),
            ),
            _ => Entry::Special(body(u)?),
        };
        if !matches!(entry, Entry::Symlink(_)) && u.ratio(1, 12)? {
            tree.unreadable.insert(k.clone());
        } else if !matches!(entry, Entry::Symlink(_)) && u.ratio(1, 12)? {
            tree.open_errors.insert(k.clone(), *u.choose(&OPEN_ERRORS)?);
        }
        if !matches!(entry, Entry::Symlink(_)) && u.ratio(1, 16)? {
            tree.stat_errors.insert(k.clone());
        }
        tree.entries.insert(k, entry);
        names.push(name);
    }
    tree.entries.insert(key.to_vec(), Entry::Dir(names));
    Ok(())
}

/// The option sets a recursive case draws from (the GNU tree test draws
/// from them too): each output mode, context, `-m`, `-z`, names.
pub const TREE_FLAGS: &[&[&str]] = &[
    &[],
    &["-l"],
    &["-c"],
    &["-n"],
    &["-H"],
    &["-h"],
    &["-L"],
    &["-s"],
    &["-q"],
    &["-T"],
    &["-T", "-n", "-b"],
    &["-o", "-b"],
    &["-Z", "-l"],
    &["-a"],
    &["-I", "-c"],
    &["-C1"],
    &["-A1", "-n"],
    &["-B2", "-v"],
    &["-m1", "-A1"],
    &["-v", "-c"],
    &["-z"],
    &["--group-separator=XX", "-C1"],
    &["--line-buffered", "-n"],
];

fn arbitrary_args(u: &mut Unstructured<'_>, tree: &Tree) -> arbitrary::Result<Vec<Vec<u8>>> {
    let s = |x: &str| x.as_bytes().to_vec();
    let mut args = vec![s(u.choose(&[
        "-r",
        "-R",
        "--recursive",
        "--directories=recurse",
        "-rR",
    ])?)];
    let flags = TREE_FLAGS;
    for _ in 0..u.int_in_range(1..=2)? {
        args.extend(u.choose(flags)?.iter().map(|f| s(f)));
    }
    for _ in 0..u.int_in_range(0..=3)? {
        let glob = u.choose(&[
            "*.c", "a*", "*a", "x.txt", "sub", "d*", "[ab]*", "?", "*", "\\a*", "*.txt", "[!a-m]*",
            "sub/",
            // Plain names with backslashes (compared unescaped), and
            // globs that match `été` by characters in UTF-8 only.
            "\\a", "x\\.txt", "su\\b", "???", "?t?", "\\",
        ])?;
        let opt = u.choose(&["--include=", "--exclude=", "--exclude-dir="])?;
        args.push(s(&format!("{opt}{glob}")));
    }
    if u.ratio(1, 10)? {
        args.push(s("--exclude-from=-"));
    }
    if u.ratio(1, 5)? {
        args.push(s(u.choose(&["-D", "-d"])?));
        args.push(s(u.choose(&["read", "skip"])?));
    }
    args.push(s(u.choose(&["foo", "o", "^", "fo*o$", "bar|x", "[^o]"])?));
    let dirs: Vec<&Vec<u8>> = (tree.entries.iter())
        .filter(|(k, e)| !k.is_empty() && matches!(e, Entry::Dir(_)))
        .map(|(k, _)| k)
        .collect();
    let others: Vec<&Vec<u8>> = (tree.entries.iter())
        .filter(|(_, e)| !matches!(e, Entry::Dir(_)))
        .map(|(k, _)| k)
        .collect();
    for _ in 0..u.int_in_range(0..=3)? {
        let operand = match u.int_in_range(0..=6)? {
            0 => s(u.choose(&[
                ".",
                "./",
                ".//",
                "-",
                "nonexistent",
                "sub/../a",
                "//",
                "///",
            ])?),
            1 | 2 if !dirs.is_empty() => {
                let d = u.choose(&dirs)?;
                [&d[..], if u.ratio(1, 3)? { b"/" } else { b"" }].concat()
            }
            3 | 4 if !others.is_empty() => u.choose(&others)?.to_vec(),
            _ => s("."),
        };
        args.push(operand);
    }
    Ok(args)
}

impl<'a> Arbitrary<'a> for TreeCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut tree = Tree::default();
        fill(u, &mut tree, b"", 0)?;
        let args = arbitrary_args(u, &tree)?;
        let stdin = match u.ratio(1, 2)? {
            true => b"a*\nfoo\nsub\n".to_vec(),
            false => body(u)?,
        };
        Ok(TreeCase {
            args,
            utf8: u.arbitrary()?,
            tree,
            stdin,
            read: u.arbitrary()?,
            buffer: *u.choose(&[1, 2, 7, 64, 4096, 1 << 16])?,
            threads: u.int_in_range(2..=5)?,
            seed: u.arbitrary()?,
        })
    }
}

// ---------------------------------------------------------------------------
// The tree as the implementation sees it.

/// The tree's named files, with delays and `d_type`s left out.
pub struct TreeFiles<'t> {
    case: &'t TreeCase,
    strategy: FileStrategy,
    chance: Chance,
}

/// Random choices, each call a new one, shared by the readers.
#[derive(Clone)]
struct Chance {
    seed: u64,
    calls: Arc<AtomicU64>,
}

impl Chance {
    fn next(&self) -> u64 {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        mix(self.seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// Wait a little, one time in `one_in`: up to 300 µs.
    fn delay(&self, one_in: u64) {
        let r = self.next();
        if (r >> 20).is_multiple_of(one_in) {
            std::thread::sleep(std::time::Duration::from_micros(r % 300));
        }
    }
}

fn errno(e: Errno) -> io::Error {
    io::Error::from_raw_os_error(match e {
        Errno::NoEntry => libc::ENOENT,
        Errno::Access => libc::EACCES,
        Errno::NameTooLong => libc::ENAMETOOLONG,
        Errno::NotDirectory => libc::ENOTDIR,
        Errno::Loop => libc::ELOOP,
        Errno::TooManyOpen => libc::EMFILE,
        Errno::TooManyOpenInSystem => libc::ENFILE,
        _ => libc::EIO,
    })
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl TreeFiles<'_> {
    fn resolve(&self, name: &[u8], follow: bool) -> io::Result<(Vec<u8>, &Entry)> {
        let tree = &self.case.tree;
        let key = tree.resolve(name, follow).map_err(errno)?;
        let entry = tree.get(&key).ok_or_else(|| errno(Errno::NoEntry))?;
        Ok((key, entry))
    }
}

/// A reader that waits a little before some reads.
struct Slow<R> {
    inner: R,
    chance: Chance,
}

impl<R: io::Read> io::Read for Slow<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Reads are many (a byte at a time, with some schedules): rarely.
        self.chance.delay(40);
        self.inner.read(buf)
    }
}

impl<R: GrepStream> GrepStream for Slow<R> {
    fn paused(&mut self) -> bool {
        self.inner.paused()
    }
}

impl GrepFiles for TreeFiles<'_> {
    fn open(&self, name: &[u8], how: OpenFlags) -> io::Result<GrepInput> {
        self.chance.delay(3);
        let (key, entry) = self.resolve(name, how.follow)?;
        if let Some(e) = self.case.tree.open_and_stat_error(&key) {
            return Err(errno(e));
        }
        let read = self.case.read.clone();
        Ok(match entry {
            Entry::Dir(_) => GrepInput::Directory,
            Entry::Symlink(_) => return Err(errno(Errno::Loop)),
            Entry::File(d) if self.strategy == FileStrategy::Mapped => GrepInput::Mapped {
                size: d.len() as u64,
                file: Box::new(ModelMapped::cut(d.clone(), None, read, self.case.buffer)),
            },
            Entry::File(d) => GrepInput::Reader {
                size: Some(d.len() as u64),
                reader: Box::new(Slow {
                    inner: NeverPauses(ChunkedReader::new(
                        schedule::failing_reader(d, 0, None),
                        read,
                    )),
                    chance: self.chance.clone(),
                }),
            },
            Entry::Special(d) => GrepInput::Reader {
                size: None,
                reader: Box::new(Slow {
                    inner: Flowing(ChunkedReader::new(schedule::stream_reader(d, false), read)),
                    chance: self.chance.clone(),
                }),
            },
        })
    }

    fn open_entry(
        &self,
        dir: Option<&std::fs::File>,
        path: &[u8],
        leaf: usize,
        how: OpenFlags,
    ) -> io::Result<GrepInput> {
        check_leaf(dir, path, leaf);
        self.open(path, how)
    }

    fn list_entry(
        &self,
        dir: Option<&std::fs::File>,
        path: &[u8],
        leaf: usize,
        out: &mut Vec<RawEntry>,
    ) -> io::Result<Listing> {
        check_leaf(dir, path, leaf);
        self.list(path, out)
    }

    fn status(&self, name: &[u8], follow: bool) -> io::Result<DirType> {
        let (key, entry) = self.resolve(name, follow)?;
        if self.case.tree.stat_errors.contains(&key) {
            return Err(errno(Errno::Io));
        }
        Ok(kind(entry))
    }

    fn list(&self, name: &[u8], out: &mut Vec<RawEntry>) -> io::Result<Listing> {
        self.chance.delay(3);
        out.clear();
        let (key, entry) = self.resolve(name, true)?;
        let Entry::Dir(names) = entry else {
            return Err(errno(Errno::NotDirectory));
        };
        if let Some(e) = self.case.tree.open_and_stat_error(&key) {
            return Err(errno(e));
        }
        let stop = self.case.tree.list_errors.get(&key);
        let read = stop.map_or(names.len(), |&read| read.min(names.len()));
        for n in &names[..read] {
            // A file system that does not say an entry's type makes the
            // walker describe it: harmless, unless describing it fails,
            // which the spec (a file system that says) does not meet.
            let k = child_key(&key, n);
            let known =
                self.case.tree.stat_errors.contains(&k) || !self.chance.next().is_multiple_of(4);
            let entry = self.case.tree.get(&k);
            out.push(RawEntry {
                name: n.clone(),
                kind: entry.filter(|_| known).map(kind),
                ino: 0,
            });
        }
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        Ok(Listing {
            id: (1, h.finish()),
            dir: None,
            stopped: stop.map(|_| errno(Errno::Io)),
        })
    }

    fn is_output_file(&self, _name: &[u8]) -> bool {
        false
    }
}

/// The tree's listings give no handles; the leaf must still be the
/// entry's own name, after a `/` (or the whole name, when `-r` with no
/// operand leaves `./` off), which the real system opens it by.
fn check_leaf(dir: Option<&std::fs::File>, path: &[u8], leaf: usize) {
    assert!(dir.is_none());
    let at = path.len() - leaf;
    assert!(
        leaf > 0 && (at == 0 || path[at - 1] == b'/'),
        "leaf {leaf} of {path:?}"
    );
    assert!(!path[at..].contains(&b'/'), "leaf {leaf} of {path:?}");
}

fn kind(entry: &Entry) -> DirType {
    match entry {
        Entry::File(_) => DirType::Regular,
        Entry::Dir(_) => DirType::Directory,
        Entry::Symlink(_) => DirType::Symlink,
        Entry::Special(_) => DirType::Device,
    }
}

/// Stdin (a stream, read once) and the tree.
struct TreeGrep<'t> {
    files: TreeFiles<'t>,
    stdin_read: std::cell::Cell<bool>,
}

impl GrepSystem for TreeGrep<'_> {
    fn open_stdin(&self) -> io::Result<GrepInput> {
        let data = match self.stdin_read.replace(true) {
            true => &[][..],
            false => &self.files.case.stdin[..],
        };
        Ok(GrepInput::Reader {
            size: None,
            reader: Box::new(Flowing(ChunkedReader::new(
                schedule::stream_reader(data, false),
                self.files.case.read.clone(),
            ))),
        })
    }

    fn files(&self) -> &dyn GrepFiles {
        &self.files
    }

    fn stdout_is_dev_null(&self) -> bool {
        false
    }

    fn stdin_done(&self, _resume_at: Option<u64>) {}

    fn drain_stdin(&self) -> io::Result<()> {
        Ok(())
    }
}

/// Run the implementation on `threads` threads.
pub fn run_impl(case: &TreeCase, strategy: FileStrategy, threads: usize) -> Outcome {
    let mut system = TreeGrep {
        files: TreeFiles {
            case,
            strategy,
            chance: Chance {
                seed: case.seed,
                calls: Arc::new(AtomicU64::new(0)),
            },
        },
        stdin_read: std::cell::Cell::new(false),
    };
    let (mut stdout, mut stderr) = order::sinks();
    let cfg = GrepConfig {
        buffer: case.buffer,
        write_size: case.buffer,
        map_min: 0,
        window: case.buffer.saturating_mul(2 + case.buffer % 3),
        threads,
        record_hits: GrepConfig::default().record_hits,
        // Output waits behind the printed input in a few bytes only, and
        // few inputs are queued, so that searchers wait for room and the
        // walk for the printing, in small trees too.
        held: (case.seed % 97) as usize,
        head_held: (case.seed / 97 % 13) as usize,
        queued: 1 + (case.seed / 1261 % 6) as usize,
    };
    let status = samebytes::grep::run(
        &case.args,
        &case.env(),
        &mut system,
        &mut stdout,
        &mut stderr,
        &cfg,
    );
    drop(stdout);
    stderr.outcome(status)
}

/// The spec against the implementation on one thread and on several,
/// reading streams and mapping windows.
pub fn check_grep_tree(case: &TreeCase) -> Result<(), Box<Mismatch>> {
    let expected = case.spec_outcome();
    for (strategy, threads) in [
        (FileStrategy::Stream, 1),
        (FileStrategy::Stream, case.threads),
        (FileStrategy::Mapped, case.threads),
    ] {
        let actual = run_impl(case, strategy, threads);
        let variant = format!("buffer {}, {strategy:?}, {threads} threads", case.buffer);
        compare_in_order("grep", &variant, &expected, &actual, &|| case.reproducer())?;
    }
    Ok(())
}

/// The fuzz target's body; false when `data` is no case.
pub fn fuzz_grep_tree(data: &[u8]) -> bool {
    let Ok(case) = TreeCase::arbitrary(&mut Unstructured::new(data)) else {
        return false;
    };
    if let Err(m) = check_grep_tree(&case) {
        panic!("{m}");
    }
    true
}
