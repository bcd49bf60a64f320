//! The wc driver: generate a case, run the spec and the implementation on
//! it, and compare stdout, stderr and exit status.
//!
//! The implementation runs four times per case: through the slice (mmap)
//! path with the case's window size and with the default, and through the
//! streaming path under the case's read schedule with the case's buffer
//! size and with the default.  Every run writes through the case's write
//! schedule.

use std::io::{self, BufRead, Read};

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use samebytes::io::Opened;
use samebytes::wc::{WcConfig, WcInputs};
use samebytes_spec::wc::WcEnv;
use samebytes_spec::world::{Node, Stat, Stdin, World};
use samebytes_spec::{Locale, Outcome};

use crate::codec::{self, Decoder, Encoder};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::order;
use crate::schedule::{self, ChunkedReader, ReadSchedule, ShortWriter, WriteSchedule};

/// One wc test case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WcCase {
    pub args: Vec<Vec<u8>>,
    pub utf8: bool,
    pub posixly_correct: bool,
    pub world: World,
    pub read: ReadSchedule,
    pub write: WriteSchedule,
    pub buffer_size: usize,
    pub window_size: usize,
}

impl WcCase {
    pub fn env(&self) -> WcEnv {
        WcEnv::new(
            if self.utf8 { Locale::Utf8 } else { Locale::C },
            self.posixly_correct,
        )
    }

    /// Total input bytes a run of this case can read.
    pub fn input_bytes(&self) -> u64 {
        codec::world_input_bytes(&self.world)
    }

    /// `samebytes-oracle replay wc:<hex>`.
    pub fn reproducer(&self) -> String {
        format!("samebytes-oracle replay wc:{}", self.encode())
    }

    pub fn encode(&self) -> String {
        let mut e = Encoder::default();
        e.uint(1); // format version
        codec::put_args(&mut e, &self.args);
        e.uint(u64::from(self.utf8) | (u64::from(self.posixly_correct) << 1));
        codec::put_world(&mut e, &self.world);
        codec::put_read_schedule(&mut e, &self.read);
        codec::put_write_schedule(&mut e, &self.write);
        e.uint(self.buffer_size as u64);
        e.uint(self.window_size as u64);
        e.hex()
    }

    pub fn decode(hex: &str) -> Result<WcCase, codec::DecodeError> {
        let raw = codec::from_hex(hex)?;
        let mut d = Decoder::new(&raw);
        if d.uint()? != 1 {
            return Err(codec::DecodeError);
        }
        let args = codec::get_args(&mut d)?;
        let flags = d.uint()?;
        let world = codec::get_world(&mut d)?;
        let read = codec::get_read_schedule(&mut d)?;
        let write = codec::get_write_schedule(&mut d)?;
        let buffer_size = d.usize()?;
        let window_size = d.usize()?;
        if !d.finished() {
            return Err(codec::DecodeError);
        }
        Ok(WcCase {
            args,
            utf8: flags & 1 != 0,
            posixly_correct: flags & 2 != 0,
            world,
            read,
            write,
            buffer_size,
            window_size,
        })
    }
}

// ---------------------------------------------------------------------------
// Generation.

/// Input pieces that matter to wc: every separator class, line ends, the
/// no-break spaces, wide and zero-width characters, and each kind of
/// encoding error (truncated, overlong, surrogate, beyond U+10FFFF, the old
/// 5-byte form, stray continuation bytes).
pub const TOKENS: &[&[u8]] = &[
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\0",
    b"a",
    b"word",
    b"\r\n",
    b"\n\n",
    b"\xc2\xa0",
    b"\xe2\x80\x87",
    b"\xe2\x80\xaf",
    b"\xe2\x81\xa0",
    b"\xe3\x80\x80",
    b"\xe1\x9a\x80",
    b"\xe2\x80\xa8",
    b"\xe2\x80\x89",
    b"\xe4\xb8\xad",
    b"\xf0\x9f\x98\x80",
    b"\xcc\x81",
    b"\xc3\xa9",
    b"\xc2\x85",
    b"\xe2\x80",
    b"\xf0\x9f",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xfc\x84\x80\x80\x80\x80",
    b"\xc0\x80",
    b"\x80",
    b"\xbf",
    b"\xff",
    b"\xfe",
    b"\x7f",
    b"\x01",
    b"\xa0",
    b"\xe0\x80\x80",
    // The classes come from the C library: a separator that is not
    // printable (U+2029), a printable format character (U+00AD, width 1),
    // more white space (U+2000, U+205F), wide Hangul (U+1100), an
    // unassigned code point (U+0378), private use (U+E000), a lead whose
    // characters never separate (Cyrillic), and one whose block holds a
    // separator but whose character does not (hiragana after U+3000).
    b"\xe2\x80\xa9",
    b"\xc2\xad",
    b"\xe2\x80\x80",
    b"\xe2\x81\x9f",
    b"\xe1\x84\x80",
    b"\xcd\xb8",
    b"\xee\x80\x80",
    b"\xd0\xb0",
    b"\xe3\x81\x82",
];

const NAME_POOL: &[&[u8]] = &[
    b"a",
    b"b c",
    b"it's",
    b"x\ny",
    b"-dash",
    b"\xc3\xa9",
    b"d:e",
    b"t\tab",
    b"f\xff",
    // Not printable to the C library, so quoted: unassigned U+0378, and
    // U+2028.
    b"u\xcd\xb8",
    b"l\xe2\x80\xa8s",
];

pub(crate) fn arbitrary_data(
    u: &mut Unstructured<'_>,
    max_tokens: usize,
) -> arbitrary::Result<Vec<u8>> {
    let n = u.int_in_range(0..=max_tokens)?;
    let mut data = Vec::new();
    for _ in 0..n {
        match u.int_in_range(0..=19u8)? {
            0 => data.push(u.arbitrary()?),
            1 => {
                // A long run, to cross the 255-byte blocks of the fast paths.
                let b = *u.choose(&[b'x', b' ', b'\t', b'\n', 0x80u8, 0xa0])?;
                let len = u.int_in_range(1..=700usize)?;
                data.extend(std::iter::repeat_n(b, len));
            }
            2 => {
                // A run of one token, so that multibyte characters fall at
                // every offset of the 8-byte words the word counter scans.
                let token = u.choose(TOKENS)?;
                let times = u.int_in_range(1..=120usize)?;
                for _ in 0..times {
                    data.extend_from_slice(token);
                }
            }
            _ => data.extend_from_slice(u.choose(TOKENS)?),
        }
    }
    Ok(data)
}

fn arbitrary_node(u: &mut Unstructured<'_>) -> arbitrary::Result<Node> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => Node::Regular(arbitrary_data(u, 60)?),
        6..=7 => Node::Stream(arbitrary_data(u, 60)?),
        8 => Node::Directory,
        _ => Node::Unreadable,
    })
}

/// Build everything but the schedules and sizes from fuzzer bytes.
fn arbitrary_body(
    u: &mut Unstructured<'_>,
) -> arbitrary::Result<(Vec<Vec<u8>>, bool, bool, World)> {
    let utf8 = u.ratio(7, 10)?;
    let posixly_correct = u.ratio(1, 8)?;
    let mut world = World::default();
    let nfiles = u.int_in_range(0..=4usize)?;
    for _ in 0..nfiles {
        let name = u.choose(NAME_POOL)?.to_vec();
        world.files.insert(name, arbitrary_node(u)?);
    }
    let stdin_node = match u.int_in_range(0..=5u8)? {
        0..=1 => Node::Regular(arbitrary_data(u, 60)?),
        2..=3 => Node::Stream(arbitrary_data(u, 60)?),
        4 => Node::Directory,
        // `<&-`
        _ => Node::Closed,
    };
    let offset = match &stdin_node {
        Node::Regular(d) if u.ratio(1, 4)? => u.int_in_range(0..=d.len() + 2)?,
        _ => 0,
    };
    world.stdin = Stdin {
        node: stdin_node,
        offset,
    };

    // Options, in any form and order, with operands mixed in.
    const OPTIONS: &[&[u8]] = &[
        b"-c",
        b"-l",
        b"-w",
        b"-m",
        b"-L",
        b"--bytes",
        b"--lines",
        b"--words",
        b"--chars",
        b"--max-line-length",
        b"--by",
        b"--li",
        b"--max",
        b"-lw",
        b"-cmL",
        b"-wL",
        b"--total=auto",
        b"--total=always",
        b"--total=only",
        b"--total=never",
        b"--total=al",
        b"--tot=o",
    ];
    const BAD_OPTIONS: &[&[u8]] = &[
        b"-q",
        b"--foo",
        b"--bytes=1",
        b"--total=bad",
        b"--total=a",
        b"--help",
        b"--version",
        b"-",
        b"--",
        b"--files0-from",
    ];
    let mut args: Vec<Vec<u8>> = Vec::new();
    let mut names: Vec<Vec<u8>> = world.files.keys().cloned().collect();
    names.push(b"-".to_vec());
    names.push(b"missing".to_vec());
    let nargs = u.int_in_range(0..=6usize)?;
    for _ in 0..nargs {
        match u.int_in_range(0..=9u8)? {
            0..=4 => args.push(u.choose(OPTIONS)?.to_vec()),
            5..=8 => args.push(u.choose(&names)?.clone()),
            _ if u.ratio(1, 3)? => args.push(schedule::raw_argument(u, &[])?),
            _ => args.push(u.choose(BAD_OPTIONS)?.to_vec()),
        }
    }
    if u.ratio(1, 6)? {
        // A --files0-from list: a file, or stdin.
        let mut list = Vec::new();
        for i in 0..u.int_in_range(0..=4usize)? {
            if i > 0 || u.ratio(1, 10)? {
                list.push(0);
            }
            if !u.ratio(1, 10)? {
                list.extend_from_slice(u.choose(&names)?);
            }
        }
        if u.arbitrary()? {
            list.push(0);
        }
        if u.ratio(1, 3)? {
            world.stdin = Stdin {
                node: if u.arbitrary()? {
                    Node::Regular(list)
                } else {
                    Node::Stream(list)
                },
                offset: 0,
            };
            args.push(b"--files0-from=-".to_vec());
        } else {
            let node = if u.arbitrary()? {
                Node::Regular(list)
            } else {
                Node::Stream(list)
            };
            world.files.insert(b"LIST".to_vec(), node);
            args.push(b"--files0-from".to_vec());
            args.push(b"LIST".to_vec());
        }
    }
    // Not when only bytes are counted: the in-process paths (slice and
    // reader) have no size shortcut, which decides whether a regular file
    // is read at all; that runs only on a descriptor, where the binary
    // campaign gives it read errors.
    let locale = if utf8 { Locale::Utf8 } else { Locale::C };
    let bytes_only = matches!(
        samebytes_spec::wc::parse_args(&args, &WcEnv::new(locale, posixly_correct)),
        samebytes_spec::wc::Invocation::Run(o) if o.select.bytes_only(locale)
    );
    if !bytes_only {
        schedule::arbitrary_read_error(u, &mut world)?;
    }
    Ok((args, utf8, posixly_correct, world))
}

pub(crate) fn arbitrary_size(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=5u8)? {
        0..=3 => u.int_in_range(1..=16usize)?,
        4 => u.int_in_range(17..=300usize)?,
        _ => u.int_in_range(301..=70_000usize)?,
    })
}

impl<'a> Arbitrary<'a> for WcCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (args, utf8, posixly_correct, world) = arbitrary_body(u)?;
        Ok(WcCase {
            args,
            utf8,
            posixly_correct,
            world,
            read: u.arbitrary()?,
            write: u.arbitrary()?,
            buffer_size: arbitrary_size(u)?,
            window_size: arbitrary_size(u)?,
        })
    }
}

/// proptest strategy: the case body comes from the same biased generator
/// as the fuzz target (driven by proptest's bytes, so it shrinks), the
/// schedules and sizes from their own strategies.
pub fn wc_case() -> impl Strategy<Value = WcCase> {
    schedule::case_parts().prop_map(|(seed, read, write, buffer_size, window_size)| {
        let (args, utf8, posixly_correct, world) =
            arbitrary_body(&mut Unstructured::new(&seed)).unwrap_or_default();
        WcCase {
            args,
            utf8,
            posixly_correct,
            world,
            read,
            write,
            buffer_size,
            window_size,
        }
    })
}

// ---------------------------------------------------------------------------
// Running the implementation against the model.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImplPath {
    Slice,
    Stream,
}

/// The world as `samebytes::wc` sees it in tests, read through the case's
/// read schedule (the streaming path).
struct ModelInputs<'w> {
    world: &'w World,
    read: ReadSchedule,
    stdin_consumed: bool,
}

pub(crate) fn os_error(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

/// A reader that fails at once, as reading a directory does.
pub(crate) struct FailingReader(pub(crate) i32);

impl Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(os_error(self.0))
    }
}

impl<'w> ModelInputs<'w> {
    /// The node `name` names (stdin for `None`, from where it is now), and
    /// where in its bytes a read fails with EIO.
    fn node(&mut self, name: Option<&[u8]>) -> io::Result<(Node, Option<usize>)> {
        match name {
            Some(n) => self
                .world
                .lookup(n)
                .cloned()
                .map(|node| (node, self.world.read_errors.files.get(n).copied()))
                .map_err(|e| {
                    os_error(match e {
                        samebytes_spec::Errno::NameTooLong => libc::ENAMETOOLONG,
                        _ => libc::ENOENT,
                    })
                }),
            None => {
                let s = &self.world.stdin;
                let fail_at = self.world.read_errors.stdin;
                let (node, fail_at) = match (&s.node, self.stdin_consumed) {
                    (Node::Regular(_), true) => (Node::Regular(Vec::new()), None),
                    (Node::Stream(_), true) => (Node::Stream(Vec::new()), None),
                    (Node::Regular(d), false) => (
                        Node::Regular(d.get(s.offset..).unwrap_or_default().to_vec()),
                        fail_at.map(|at| at.saturating_sub(s.offset)),
                    ),
                    (other, _) => (other.clone(), None),
                };
                self.stdin_consumed = true;
                Ok((node, fail_at))
            }
        }
    }
}

impl WcInputs for ModelInputs<'_> {
    fn stat(&mut self, name: Option<&[u8]>) -> Option<Stat> {
        match name {
            None => self.world.fstat_stdin().ok(),
            Some(n) => self.world.stat(n).ok(),
        }
    }

    fn stdin_close_error(&self) -> Option<io::Error> {
        self.world.stdin_closed().then(|| os_error(libc::EBADF))
    }

    fn open(&mut self, name: Option<&[u8]>) -> io::Result<Opened<'_>> {
        let (node, fail_at) = self.node(name)?;
        if let (None, Node::Stream(d)) = (name, &node) {
            return Ok(Opened::Reader(Box::new(ChunkedReader::new(
                schedule::stream_reader(d, self.world.read_errors.stdin_would_block),
                self.read.clone(),
            ))));
        }
        let data = match node {
            Node::Unreadable => return Err(os_error(libc::EACCES)),
            Node::Directory => return Ok(Opened::Reader(Box::new(FailingReader(libc::EISDIR)))),
            Node::Closed => return Ok(Opened::Reader(Box::new(FailingReader(libc::EBADF)))),
            Node::Regular(d) | Node::Stream(d) => d,
        };
        Ok(Opened::Reader(Box::new(ChunkedReader::new(
            schedule::failing_reader(&data, 0, fail_at),
            self.read.clone(),
        ))))
    }

    fn open_list(&mut self, name: Option<&[u8]>) -> io::Result<(Box<dyn BufRead>, bool)> {
        let (node, fail_at) = self.node(name)?;
        if let (None, Node::Stream(d)) = (name, &node) {
            let reader = ChunkedReader::new(
                schedule::stream_reader(d, self.world.read_errors.stdin_would_block),
                self.read.clone(),
            );
            return Ok((Box::new(io::BufReader::new(reader)), false));
        }
        let (data, regular) = match node {
            Node::Unreadable => return Err(os_error(libc::EACCES)),
            Node::Directory => {
                return Ok((
                    Box::new(io::BufReader::new(FailingReader(libc::EISDIR))),
                    false,
                ))
            }
            Node::Closed => {
                return Ok((
                    Box::new(io::BufReader::new(FailingReader(libc::EBADF))),
                    false,
                ))
            }
            Node::Regular(d) => (d, true),
            Node::Stream(d) => (d, false),
        };
        let small = regular && data.len() <= 10 * 1024 * 1024;
        let reader = ChunkedReader::new(
            schedule::failing_reader(&data, 0, fail_at),
            self.read.clone(),
        );
        Ok((Box::new(io::BufReader::new(reader)), small))
    }
}

/// Slice-path inputs: each open hands out a slice of data owned by the
/// inputs object, exactly what the binary's mmap windows look like.
struct SliceInputs<'w> {
    model: ModelInputs<'w>,
    held: Vec<Vec<u8>>,
}

impl WcInputs for SliceInputs<'_> {
    fn stat(&mut self, name: Option<&[u8]>) -> Option<Stat> {
        self.model.stat(name)
    }

    fn open(&mut self, name: Option<&[u8]>) -> io::Result<Opened<'_>> {
        if name.is_none() && matches!(self.model.world.stdin.node, Node::Stream(_)) {
            // A stream is never mapped.
            return self.model.open(name);
        }
        let (node, fail_at) = self.model.node(name)?;
        match node {
            Node::Unreadable => Err(os_error(libc::EACCES)),
            Node::Directory => Ok(Opened::Reader(Box::new(FailingReader(libc::EISDIR)))),
            Node::Closed => Ok(Opened::Reader(Box::new(FailingReader(libc::EBADF)))),
            // A mapped file with a bad block faults, and the binary reads it
            // again with read(), which fails: the reader path.
            Node::Regular(d) | Node::Stream(d) if fail_at.is_some() => Ok(Opened::Reader(
                Box::new(schedule::failing_reader(&d, 0, fail_at)),
            )),
            Node::Regular(d) | Node::Stream(d) => {
                self.held.push(d);
                Ok(Opened::Slice(self.held.last().expect("just pushed")))
            }
        }
    }

    fn open_list(&mut self, name: Option<&[u8]>) -> io::Result<(Box<dyn BufRead>, bool)> {
        self.model.open_list(name)
    }

    fn stdin_close_error(&self) -> Option<io::Error> {
        self.model.stdin_close_error()
    }
}

/// Run the implementation on a case through one path with one config.
pub fn run_impl(case: &WcCase, path: ImplPath, cfg: &WcConfig) -> Outcome {
    let model = ModelInputs {
        world: &case.world,
        read: case.read.clone(),
        stdin_consumed: false,
    };
    let (stdout_sink, mut stderr) = order::sinks();
    let mut stdout = ShortWriter::new(stdout_sink, case.write.clone());
    let status = match path {
        ImplPath::Slice => {
            let mut inputs = SliceInputs {
                model,
                held: Vec::new(),
            };
            samebytes::wc::run(
                &case.args,
                &case.env(),
                &mut inputs,
                &mut stdout,
                &mut stderr,
                cfg,
            )
        }
        ImplPath::Stream => {
            let mut inputs = model;
            samebytes::wc::run(
                &case.args,
                &case.env(),
                &mut inputs,
                &mut stdout,
                &mut stderr,
                cfg,
            )
        }
    };
    drop(stdout);
    stderr.outcome(status)
}

/// Run the spec on a case.
pub fn run_spec(case: &WcCase) -> Outcome {
    samebytes_spec::wc::wc(
        &case.args,
        &case.env(),
        &case.world,
        case.write.spec_failure(),
    )
}

/// The case's own sizes: the first two of [`variants`].
pub fn small_config(case: &WcCase) -> WcConfig {
    WcConfig {
        buffer_size: case.buffer_size,
        window_size: case.window_size,
        mmap_min: 0,
        // Split every input of a few dozen bytes or more across threads.
        parallel_min: 48,
    }
}

/// The implementation runs a case is checked through.
pub fn variants(case: &WcCase) -> [(String, ImplPath, WcConfig); 4] {
    let default = WcConfig::default();
    let small = small_config(case);
    [
        (
            format!("slice, window {}", case.window_size),
            ImplPath::Slice,
            small,
        ),
        (
            format!("stream, buffer {}", case.buffer_size),
            ImplPath::Stream,
            small,
        ),
        ("slice, default window".into(), ImplPath::Slice, default),
        ("stream, default buffer".into(), ImplPath::Stream, default),
    ]
}

/// Check one case: spec against every implementation variant.
pub fn check_wc(case: &WcCase) -> Result<(), Box<Mismatch>> {
    let expected = run_spec(case);
    let repro = || case.reproducer();
    for (name, path, cfg) in variants(case) {
        let actual = run_impl(case, path, &cfg);
        compare_in_order("wc", &name, &expected, &actual, &repro)?;
    }
    Ok(())
}

/// The fuzz target's body: any bytes, any case.
/// Returns whether `data` decoded to a case (an input that does not is
/// rejected from the fuzz corpus, and fails the corpus replay).
pub fn fuzz_wc(data: &[u8]) -> bool {
    let Ok(case) = WcCase::arbitrary(&mut Unstructured::new(data)) else {
        return false;
    };
    if let Err(m) = check_wc(&case) {
        panic!("{m}");
    }
    true
}
