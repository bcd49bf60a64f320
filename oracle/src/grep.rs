//! The grep driver: cases (arguments, a world of inputs, schedules, buffer
//! sizes, mmap or stream), generation for proptest and the fuzzer, and the
//! check that runs spec and implementation on a case.

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;

use crate::codec::{self, Decoder, Encoder};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::order;
use std::io;

use crate::schedule::{self, ChunkedReader, ReadSchedule, ShortWriter, WriteSchedule};
use samebytes::grep::{GrepConfig, GrepInput, GrepSystem};
use samebytes_spec::grep::{GrepEnv, GrepStdout, BINARY_PREFIX};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Errno, Locale, Outcome};

/// One grep run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepCase {
    pub args: Vec<Vec<u8>>,
    pub utf8: bool,
    pub world: World,
    pub stdout: GrepStdout,
    pub read: ReadSchedule,
    pub write: WriteSchedule,
    /// The stream buffer's starting capacity (the binary uses 256 KiB).
    pub buffer: usize,
}

impl GrepCase {
    pub fn env(&self) -> GrepEnv {
        GrepEnv::new(if self.utf8 { Locale::Utf8 } else { Locale::C })
    }

    /// The size of the biggest input.
    fn largest_input(&self) -> usize {
        let nodes = self.world.files.values().chain([&self.world.stdin.node]);
        nodes
            .map(|n| match n {
                Node::Regular(d) | Node::Stream(d) => d.len(),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Does an input outgrow the stream buffer, so that the search
    /// refills it and carries a partial line over?
    pub fn crosses_refill(&self) -> bool {
        self.largest_input() > self.buffer
    }

    /// Does an input reach past the 32 KiB binary probe?
    pub fn passes_probe(&self) -> bool {
        self.largest_input() > BINARY_PREFIX
    }

    /// Total input bytes a run of this case can read.
    pub fn input_bytes(&self) -> u64 {
        codec::world_input_bytes(&self.world)
    }

    fn write_schedule(&self) -> WriteSchedule {
        let mut w = self.write.clone();
        if self.stdout != GrepStdout::Stream {
            w.failure = None;
        }
        w
    }

    pub fn spec_outcome(&self) -> Outcome {
        samebytes_spec::grep::grep(
            &self.args,
            &self.env(),
            &self.world,
            &self.stdout,
            self.write_schedule().spec_failure(),
        )
    }

    /// `samebytes-oracle replay grep:<hex>`.
    pub fn reproducer(&self) -> String {
        format!("samebytes-oracle replay grep:{}", self.encode())
    }

    pub fn encode(&self) -> String {
        let mut e = Encoder::default();
        e.uint(1);
        codec::put_args(&mut e, &self.args);
        e.uint(u64::from(self.utf8));
        codec::put_world(&mut e, &self.world);
        match &self.stdout {
            GrepStdout::Stream => e.uint(0),
            GrepStdout::File(name) => {
                e.uint(1);
                e.bytes(name);
            }
            GrepStdout::DevNull => e.uint(2),
        }
        codec::put_read_schedule(&mut e, &self.read);
        codec::put_write_schedule(&mut e, &self.write);
        e.uint(self.buffer as u64);
        e.hex()
    }

    pub fn decode(hex: &str) -> Result<GrepCase, codec::DecodeError> {
        let raw = codec::from_hex(hex)?;
        let mut d = Decoder::new(&raw);
        if d.uint()? != 1 {
            return Err(codec::DecodeError);
        }
        let args = codec::get_args(&mut d)?;
        let flags = d.uint()?;
        let world = codec::get_world(&mut d)?;
        let stdout = match d.uint()? {
            0 => GrepStdout::Stream,
            1 => GrepStdout::File(d.bytes()?),
            2 => GrepStdout::DevNull,
            _ => return Err(codec::DecodeError),
        };
        let read = codec::get_read_schedule(&mut d)?;
        let write = codec::get_write_schedule(&mut d)?;
        let buffer = d.usize()?.max(1);
        if !d.finished() {
            return Err(codec::DecodeError);
        }
        Ok(GrepCase {
            args,
            utf8: flags & 1 != 0,
            world,
            stdout,
            read,
            write,
            buffer,
        })
    }
}

// ---------------------------------------------------------------------------
// Generation.

/// Pieces of input text: words that patterns mention, separators, a
/// multibyte letter, and (rarely) bytes that make an input binary.
const TOKENS: &[&[u8]] = &[
    b"a",
    b"b",
    b"ab",
    b"foo",
    b"Foo",
    b"bar",
    b"x1",
    b" ",
    b" ",
    b"_",
    b"-",
    b"\t",
    b".",
    b"*",
    b"\xc3\xa9",
    b"\xc3\x89",
    b"\n",
    b"\n",
    b"\n",
    b"\n",
];
/// glibc takes `\xf8\x88\x80\x80\x80` (5 bytes) and `\xf4\x90\x80\x80`
/// (beyond U+10FFFF) as characters; a surrogate and a cut sequence are
/// encoding errors.
const RARE_TOKENS: &[&[u8]] = &[
    b"\x00",
    b"\xff",
    b"\r",
    b"\n\n",
    b"{1}",
    b"\xf8\x88\x80\x80\x80",
    b"\xf4\x90\x80\x80",
    b"\xed\xa0\x80",
    b"\xe2\x80",
];

/// Regex atoms; `\` forms are written for BRE and adapted for ERE.
const ATOMS: &[&str] = &[
    "a",
    "b",
    "o",
    "f",
    "foo",
    "ab",
    ".",
    "[ab]",
    "[^a]",
    "[[:alpha:]]",
    "[[:space:]]",
    "[[:upper:]]",
    "[]a]",
    "[a-f]",
    "[[=a=]]",
    "[[=\u{e9}=]]",
    "[[.a.]]",
    "[[.-.]a]",
    "[a[.-.]z]",
    "[[=e=][:digit:]]",
    "[]-a]",
    "[^]]",
    "[a-]",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "x",
    "\u{e9}",
    "_",
    " ",
];
const ANCHORS: &[&str] = &["^", "$", "\\b", "\\B", "\\<", "\\>"];
/// Repetitions, with the interval's edge forms: `{0}`, an open upper
/// bound, an omitted lower one, and (ERE) `{,}`.
const REPEATS_BRE: &[&str] = &[
    "*",
    "\\+",
    "\\?",
    "\\{1,2\\}",
    "\\{2\\}",
    "\\{0,1\\}",
    "\\{0\\}",
    "\\{1,\\}",
    "\\{,2\\}",
    "\\{0,0\\}",
];
const REPEATS_ERE: &[&str] = &[
    "*", "+", "?", "{1,2}", "{2}", "{,1}", "{0}", "{1,}", "{,}", "{0,0}", "{,2}",
];
/// Pieces glibc or GNU's DFA rejects (each with its own message), or
/// that are GNU's edge cases of acceptance, in BRE and ERE spelling.
const ERRORS_BRE: &[&str] = &[
    "a\\{\\}",
    "a\\{2,1\\}",
    "a\\{1",
    "a\\{1,2",
    "a\\{65536\\}",
    "[1-3-5]",
    "[[:foo:]]",
    "[b-a]",
    "[[.ab.]]",
    "[",
    "[^",
    "[a-",
    "\\(",
    "\\)",
    "\\9",
    "**",
];
const ERRORS_ERE: &[&str] = &[
    "a{}",
    "a{2,1}",
    "a{1",
    "a{1,2",
    "a{65536}",
    "[1-3-5]",
    "[[:foo:]]",
    "[b-a]",
    "[[.ab.]]",
    "[",
    "[^",
    "[a-",
    "(",
    ")",
    "(*)",
    "(a|*)",
    "\\9",
    "**",
];

const FLAGS: &[&[u8]] = &[
    b"-i",
    b"-v",
    b"-w",
    b"-x",
    b"-c",
    b"-n",
    b"-b",
    b"-o",
    b"-l",
    b"-L",
    b"-q",
    b"-s",
    b"-H",
    b"-h",
    b"-z",
    b"-a",
    b"-I",
    b"-Z",
    b"-y",
    b"-on",
    b"-nb",
    b"-vn",
    b"-ci",
    b"-U",
    b"--binary-files=text",
    b"--binary-files=without-match",
    b"--no-group-separator",
    b"--group-separator=##",
    b"--label=L",
    b"--line-buffered",
    b"--color=never",
    b"--no-ignore-case",
    b"-vc",
    b"-vm1",
    b"-cvm2",
    b"-vm3",
];
const NUMBERED: &[&[u8]] = &[b"-m", b"-A", b"-B", b"-C"];

fn arbitrary_text(u: &mut Unstructured<'_>, max_tokens: usize) -> arbitrary::Result<Vec<u8>> {
    let mut data = Vec::new();
    for _ in 0..u.int_in_range(0..=max_tokens)? {
        let t = if u.ratio(1, 24)? {
            u.choose(RARE_TOKENS)?
        } else {
            u.choose(TOKENS)?
        };
        data.extend_from_slice(t);
    }
    Ok(data)
}

/// An input: mostly a few dozen tokens; 1 in 16 a big one.
fn arbitrary_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    if u.ratio(1, 16)? {
        arbitrary_big_text(u)
    } else {
        arbitrary_text(u, 40)
    }
}

/// The most a big input holds, and the longest line in one.  The spec
/// matches a line by sets of positions from each start, and `-o` searches
/// again after each match, so its time on one line grows as about the
/// cube of the line's length: `-on 'é*[^]]{2}\B'` takes 0.3 s on a
/// 1 KiB line and 9.5 s on 4 KiB.  1 KiB lines still outgrow every small
/// buffer the generator draws (1 to 300 bytes); 320 KiB of short lines
/// cross the binaries' 256 KiB buffer.
const BIG_INPUT_MAX: usize = 320 * 1024;
const LONG_LINE_MAX: usize = 1024;

/// Bytes that turn an input binary (a NUL) or hold an encoding error.
const LATE_BYTES: &[&[u8]] = &[b"\x00", b"\xff", b"\xe2\x80", b"\xed\xa0\x80"];

/// A big input: a stretch of tokens repeated to between 1 KiB and 320 KiB
/// (log-uniform), as short lines or as long ones, and maybe with a NUL or
/// an encoding error placed after the 32 KiB binary probe (at it, or just
/// before or after it, or anywhere later).  Most such cases refill the
/// stream buffer many times: carry-over, before-context kept across a
/// refill, compaction, and the binary rule decided late.
fn arbitrary_big_text(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let mut unit = arbitrary_text(u, 24)?;
    let long_lines = u.ratio(1, 4)?;
    if long_lines {
        unit.retain(|&b| b != b'\n');
    }
    if unit.is_empty() {
        unit = b"a b".to_vec();
    }
    if !long_lines && !unit.contains(&b'\n') {
        // Short lines: a unit of one line at most.
        unit.push(b'\n');
    }
    let size = 1usize << u.int_in_range(10..=18u32)?;
    let size = (size + u.int_in_range(0..=size)?).min(BIG_INPUT_MAX);
    let line = u.int_in_range(64..=LONG_LINE_MAX)?;
    // A short-line unit may still be long: keep it to a line.
    unit.truncate(LONG_LINE_MAX);
    let mut data = Vec::with_capacity(size + unit.len());
    let mut line_start = 0;
    while data.len() < size {
        data.extend_from_slice(&unit);
        if long_lines && data.len() - line_start >= line {
            data.push(b'\n');
            line_start = data.len();
        }
    }
    if u.ratio(1, 2)? && data.len() > BINARY_PREFIX {
        let at = match u.int_in_range(0..=2u8)? {
            0 => BINARY_PREFIX,
            1 => (BINARY_PREFIX as i64 + i64::from(u.int_in_range(-3..=3i8)?)) as usize,
            _ => u.int_in_range(BINARY_PREFIX..=data.len() - 1)?,
        };
        let bytes = u.choose(LATE_BYTES)?;
        data.splice(at..at, bytes.iter().copied());
    }
    Ok(data)
}

/// The groups of the regex being drawn: how many have opened (their
/// numbers), and which have closed (a back-reference may name those).
#[derive(Default)]
struct Groups {
    opened: usize,
    closed: Vec<usize>,
}

/// A small regex in GNU syntax.
fn arbitrary_regex(
    u: &mut Unstructured<'_>,
    ere: bool,
    depth: u32,
    groups: &mut Groups,
) -> arbitrary::Result<String> {
    let mut s = String::new();
    for _ in 0..u.int_in_range(1..=3u8)? {
        let mut repeatable = true;
        match u.int_in_range(0..=10u8)? {
            // GNU's DFA and its regex fallback disagree on a repeated
            // anchor, so none is generated.
            0 => {
                s.push_str(u.choose(ANCHORS)?);
                continue;
            }
            1 if depth < 2 && groups.opened < 9 => {
                groups.opened += 1;
                let number = groups.opened;
                let inner = arbitrary_regex(u, ere, depth + 1, groups)?;
                let other = arbitrary_regex(u, ere, depth + 1, groups)?;
                let (open, bar, close) = if ere {
                    ("(", "|", ")")
                } else {
                    ("\\(", "\\|", "\\)")
                };
                let group = if u.arbitrary()? {
                    format!("{open}{inner}{bar}{other}{close}")
                } else {
                    format!("{open}{inner}{close}")
                };
                groups.closed.push(number);
                // glibc misjudges a repeated group that holds an anchor
                // (`(\\<\\S)+` and `(o*|^b)+\\W` fail where they match), and
                // GNU and our binaries ask glibc for the patterns with
                // word operators in UTF-8 (docs/differences.md,
                // glibc-repeated-anchor).
                repeatable = !ANCHORS.iter().any(|a| group.contains(a));
                s.push_str(&group);
            }
            // A back-reference to a group closed before it.
            2 if !groups.closed.is_empty() => {
                s.push_str(&format!("\\{}", u.choose(&groups.closed)?));
            }
            3 if u.ratio(1, 10)? => {
                s.push_str(u.choose(if ere { ERRORS_ERE } else { ERRORS_BRE })?);
                continue;
            }
            _ => s.push_str(u.choose(ATOMS)?),
        }
        if repeatable && u.ratio(1, 3)? {
            s.push_str(u.choose(if ere { REPEATS_ERE } else { REPEATS_BRE })?);
        }
    }
    Ok(s)
}

/// PCRE2 atoms for `-P`: classes and escapes GNU's dialects lack, and
/// some PCRE2 rejects (an unmatched `)`, a lookbehind of no fixed length,
/// a range out of order, a trailing backslash).
const PERL_ATOMS: &[&str] = &[
    "a",
    "b",
    "o",
    "foo",
    "ab",
    ".",
    "[ab]",
    "[^a]",
    "[a-f]",
    "\\d",
    "\\D",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\h",
    "\\N",
    "\\x{e9}",
    "\\xe9",
    "\\p{L}",
    "\\p{Lu}",
    "[[:alpha:]]",
    "\\Qa.\\E",
    "\u{e9}",
    "\u{c9}",
    "_",
    " ",
    "\\.",
    "x1",
    "\\C",
    "(?i)f",
    "\\0",
];
const PERL_ANCHORS: &[&str] = &["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z", "\\G", "\\K"];
const PERL_REPEATS: &[&str] = &[
    "*", "+", "?", "*?", "+?", "??", "{1,2}", "{2}", "*+", "{,1}",
];
const PERL_ERRORS: &[&str] = &[
    ")",
    "(?<=a+)",
    "[b-a]",
    "\\",
    "(?<n>a)\\k<m>",
    "*",
    "(?P<",
    "\\8",
];

/// A small regex in PCRE2 syntax.
fn arbitrary_perl(
    u: &mut Unstructured<'_>,
    depth: u32,
    groups: &mut Groups,
) -> arbitrary::Result<String> {
    let mut s = String::new();
    for _ in 0..u.int_in_range(1..=3u8)? {
        let mut repeatable = true;
        match u.int_in_range(0..=12u8)? {
            0 => {
                s.push_str(u.choose(PERL_ANCHORS)?);
                repeatable = false;
            }
            1 if u.ratio(1, 8)? => {
                s.push_str(u.choose(PERL_ERRORS)?);
                repeatable = false;
            }
            2 | 3 if depth < 2 && groups.opened < 9 => {
                // A group of one kind or another, maybe with an alternative.
                let kind = *u.choose(&["(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"])?;
                if kind == "(" {
                    groups.opened += 1;
                }
                let number = groups.opened;
                let inner = arbitrary_perl(u, depth + 1, groups)?;
                let group = if u.arbitrary()? {
                    let other = arbitrary_perl(u, depth + 1, groups)?;
                    format!("{kind}{inner}|{other})")
                } else {
                    format!("{kind}{inner})")
                };
                if kind == "(" {
                    groups.closed.push(number);
                }
                s.push_str(&group);
            }
            4 if !groups.closed.is_empty() => {
                s.push_str(&format!("\\{}", u.choose(&groups.closed)?));
            }
            5 if depth == 0 => s.push('|'),
            _ => s.push_str(u.choose(PERL_ATOMS)?),
        }
        if repeatable && u.ratio(1, 3)? {
            s.push_str(u.choose(PERL_REPEATS)?);
        }
    }
    Ok(s)
}

/// A pattern: a piece of some input, or a small regex.
fn arbitrary_pattern(
    u: &mut Unstructured<'_>,
    inputs: &[Vec<u8>],
    syntax: u8,
) -> arbitrary::Result<Vec<u8>> {
    let from_input = !inputs.is_empty() && u.ratio(1, 2)?;
    if from_input {
        let data = u.choose(inputs)?;
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let start = u.int_in_range(0..=data.len() - 1)?;
        let len = u.int_in_range(0..=6usize.min(data.len() - start))?;
        let piece: Vec<u8> = data[start..start + len]
            .iter()
            .copied()
            .filter(|&b| b != b'\n')
            .collect();
        return Ok(piece);
    }
    let mut groups = Groups::default();
    let mut pattern = match syntax {
        3 => arbitrary_perl(u, 0, &mut groups)?,
        _ => arbitrary_regex(u, syntax == 1, 0, &mut groups)?,
    };
    if syntax < 2 && u.ratio(1, 40)? {
        // Trailing backslash.
        pattern.push('\\');
    }
    Ok(pattern.into_bytes())
}

fn arbitrary_node(u: &mut Unstructured<'_>) -> arbitrary::Result<Node> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=6 => Node::Regular(arbitrary_input(u)?),
        7..=8 => Node::Stream(arbitrary_input(u)?),
        _ => Node::Directory,
    })
}

const NAMES: &[&[u8]] = &[b"f", b"g", b"h h", b"d"];

type Body = (Vec<Vec<u8>>, bool, World, GrepStdout);

fn arbitrary_body(u: &mut Unstructured<'_>) -> arbitrary::Result<Body> {
    let utf8 = u.arbitrary()?;
    let mut world = World::default();
    for _ in 0..u.int_in_range(0..=3usize)? {
        world
            .files
            .insert(u.choose(NAMES)?.to_vec(), arbitrary_node(u)?);
    }
    world.stdin = Stdin {
        node: if u.ratio(1, 3)? {
            Node::Regular(arbitrary_input(u)?)
        } else if u.ratio(1, 12)? {
            // `<&-`
            Node::Closed
        } else {
            Node::Stream(arbitrary_input(u)?)
        },
        offset: 0,
    };
    let f_is_regular = matches!(world.files.get(b"f".as_slice()), Some(Node::Regular(_)));
    let stdout = if u.ratio(1, 12)? && f_is_regular {
        GrepStdout::File(b"f".to_vec())
    } else if u.ratio(1, 10)? {
        GrepStdout::DevNull
    } else {
        GrepStdout::Stream
    };
    let inputs: Vec<Vec<u8>> = world
        .files
        .values()
        .chain(std::iter::once(&world.stdin.node))
        .filter_map(|n| match n {
            Node::Regular(d) | Node::Stream(d) => Some(d.clone()),
            _ => None,
        })
        .collect();
    let syntax = u.int_in_range(0..=3u8)?;
    let mut args: Vec<Vec<u8>> = Vec::new();
    match syntax {
        1 => args.push(b"-E".to_vec()),
        2 => args.push(b"-F".to_vec()),
        3 => args.push(b"-P".to_vec()),
        _ => {}
    }
    for _ in 0..u.int_in_range(0..=4usize)? {
        if u.ratio(1, 3)? {
            let opt = u.choose(NUMBERED)?;
            let n = u.int_in_range(0..=3u8)?;
            args.push([*opt, n.to_string().as_bytes()].concat());
        } else {
            args.push(u.choose(FLAGS)?.to_vec());
        }
    }
    // -P takes one pattern: two are mostly its error.
    let pattern_count = if syntax == 3 && u.ratio(3, 4)? {
        1
    } else {
        u.int_in_range(1..=2u8)?
    };
    if u.ratio(1, 6)? {
        // `-f FILE`: a pattern file of its own (patterns a line each, the
        // last maybe unterminated), an input, stdin, a directory or a name
        // that is not there; maybe with `-e` too.
        let mut list = Vec::new();
        for i in 0..pattern_count {
            if i > 0 {
                list.push(b'\n');
            }
            list.extend(arbitrary_pattern(u, &inputs, syntax)?);
        }
        if u.arbitrary()? {
            list.push(b'\n');
        }
        world.files.insert(b"p".to_vec(), Node::Regular(list));
        // An input's text as patterns only with -F and only if it is valid
        // UTF-8: as a regex, or with encoding errors, it is outside the
        // dialect the generator keeps to (issue 13 widens it).
        let usable = |n: &Node| match n {
            Node::Regular(d) | Node::Stream(d) => syntax == 2 && std::str::from_utf8(d).is_ok(),
            _ => true,
        };
        let mut sources: Vec<Vec<u8>> = world
            .files
            .iter()
            .filter(|(_, n)| usable(n))
            .map(|(k, _)| k.clone())
            .collect();
        if usable(&world.stdin.node) {
            sources.push(b"-".to_vec());
        }
        sources.extend([b"missing".to_vec(), b"p".to_vec(), b"p".to_vec()]);
        args.push(b"-f".to_vec());
        args.push(u.choose(&sources)?.clone());
        if u.ratio(1, 4)? {
            args.push(b"-e".to_vec());
            args.push(arbitrary_pattern(u, &inputs, syntax)?);
        }
    } else if pattern_count == 1 && u.ratio(2, 3)? {
        args.push(arbitrary_pattern(u, &inputs, syntax)?);
    } else {
        for _ in 0..pattern_count {
            args.push(b"-e".to_vec());
            args.push(arbitrary_pattern(u, &inputs, syntax)?);
        }
    }
    let mut names: Vec<Vec<u8>> = world.files.keys().cloned().collect();
    names.push(b"-".to_vec());
    names.push(b"missing".to_vec());
    for _ in 0..u.int_in_range(0..=3usize)? {
        args.push(u.choose(&names)?.clone());
    }
    if args.iter().any(|a| a == b"-z") {
        // With -z a record ends at a NUL: a big input's lines become
        // records, so that none outgrows what the spec can match.
        let nodes = world.files.values_mut().chain([&mut world.stdin.node]);
        for node in nodes {
            if let Node::Regular(d) | Node::Stream(d) = node {
                if d.len() > 2 * LONG_LINE_MAX {
                    d.iter_mut().filter(|b| **b == b'\n').for_each(|b| *b = 0);
                }
            }
        }
    }
    schedule::arbitrary_read_error(u, &mut world)?;
    Ok((args, utf8, world, stdout))
}

fn arbitrary_buffer(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => 1,
        1 => u.int_in_range(2..=16)?,
        2 => u.int_in_range(17..=300)?,
        _ => 256 * 1024,
    })
}

impl<'a> Arbitrary<'a> for GrepCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (args, utf8, world, stdout) = arbitrary_body(u)?;
        Ok(GrepCase {
            args,
            utf8,
            world,
            stdout,
            read: u.arbitrary()?,
            write: u.arbitrary()?,
            buffer: arbitrary_buffer(u)?,
        })
    }
}

/// proptest strategy: the body from the fuzz generator over proptest's
/// bytes, schedules and sizes from their own strategies.
pub fn grep_case() -> impl Strategy<Value = GrepCase> {
    schedule::case_parts().prop_map(|(seed, read, write, buffer, _)| {
        let (args, utf8, world, stdout) =
            arbitrary_body(&mut Unstructured::new(&seed)).unwrap_or_default();
        GrepCase {
            args,
            utf8,
            world,
            stdout,
            read,
            write,
            buffer,
        }
    })
}

// ---------------------------------------------------------------------------
// Running the implementation against the model.

/// The world as `samebytes::grep` sees it in tests.
struct ModelGrep<'w> {
    case: &'w GrepCase,
    stdin_consumed: bool,
    /// Where the last read of a regular stdin started, and where the next
    /// one starts when grep put it back.
    stdin_last_start: usize,
    stdin_next: Option<usize>,
}

impl GrepSystem for ModelGrep<'_> {
    fn open(&mut self, name: Option<&[u8]>) -> io::Result<GrepInput> {
        let world = &self.case.world;
        // The node, and where in its bytes a read fails with EIO.
        let (node, fail_at) = match name {
            Some(n) => (
                world
                    .lookup(n)
                    .map_err(|e| {
                        io::Error::from_raw_os_error(match e {
                            Errno::NameTooLong => libc::ENAMETOOLONG,
                            _ => libc::ENOENT,
                        })
                    })?
                    .clone(),
                world.read_errors.files.get(n).copied(),
            ),
            None => {
                let s = &world.stdin;
                let consumed = std::mem::replace(&mut self.stdin_consumed, true);
                let fail_at = world.read_errors.stdin;
                match (&s.node, consumed) {
                    (Node::Regular(d), _) if self.stdin_next.is_some() => {
                        let from = self.stdin_next.take().unwrap_or(0);
                        self.stdin_last_start = from;
                        (
                            Node::Regular(d.get(from..).unwrap_or_default().to_vec()),
                            fail_at.map(|at| at.saturating_sub(from)),
                        )
                    }
                    (Node::Regular(_), true) => (Node::Regular(Vec::new()), None),
                    (Node::Stream(_), true) => (Node::Stream(Vec::new()), None),
                    (Node::Regular(d), false) => {
                        self.stdin_last_start = s.offset;
                        (
                            Node::Regular(d.get(s.offset..).unwrap_or_default().to_vec()),
                            fail_at.map(|at| at.saturating_sub(s.offset)),
                        )
                    }
                    (other, _) => (other.clone(), None),
                }
            }
        };
        Ok(match node {
            Node::Unreadable => return Err(io::Error::from_raw_os_error(libc::EACCES)),
            Node::Closed => return Err(io::Error::from_raw_os_error(libc::EBADF)),
            Node::Directory => GrepInput::Directory,
            Node::Regular(d) => GrepInput::Reader {
                reader: Box::new(ChunkedReader::new(
                    schedule::failing_reader(&d, 0, fail_at),
                    self.case.read.clone(),
                )),
                may_block: false,
            },
            Node::Stream(d) => GrepInput::Reader {
                reader: Box::new(ChunkedReader::new(
                    schedule::stream_reader(
                        &d,
                        name.is_none() && world.read_errors.stdin_would_block,
                    ),
                    self.case.read.clone(),
                )),
                may_block: true,
            },
        })
    }

    fn is_output_file(&mut self, name: &[u8]) -> bool {
        matches!(&self.case.stdout, GrepStdout::File(f) if f == name)
    }

    fn stdout_is_dev_null(&mut self) -> bool {
        self.case.stdout == GrepStdout::DevNull
    }

    fn stdin_done(&mut self, resume_at: Option<u64>) {
        if let (Node::Regular(_), Some(r)) = (&self.case.world.stdin.node, resume_at) {
            self.stdin_next = Some(self.stdin_last_start + r as usize);
        }
    }

    fn drain_stdin(&mut self) -> io::Result<()> {
        let world = &self.case.world;
        match world.stdin.node {
            Node::Stream(_) if world.read_errors.stdin_would_block => {
                Err(io::Error::from_raw_os_error(libc::EAGAIN))
            }
            _ => Ok(()),
        }
    }
}

/// Run the implementation on a case.
pub fn run_impl(case: &GrepCase) -> Outcome {
    let mut system = ModelGrep {
        case,
        stdin_consumed: false,
        stdin_last_start: 0,
        stdin_next: None,
    };
    let (stdout_sink, mut stderr) = order::sinks();
    let mut stdout = ShortWriter::new(stdout_sink, case.write_schedule());
    let cfg = GrepConfig {
        buffer: case.buffer,
        write_size: case.buffer.max(1),
    };
    let status = samebytes::grep::run(
        &case.args,
        &case.env(),
        &mut system,
        &mut stdout,
        &mut stderr,
        &cfg,
        false,
    );
    drop(stdout);
    stderr.outcome(status)
}

/// Run the spec and the implementation on a case and compare.
pub fn check_grep(case: &GrepCase) -> Result<(), Box<Mismatch>> {
    // For a campaign that hangs: the case it hangs on, as a reproducer.
    if let Some(path) = std::env::var_os("SAMEBYTES_ORACLE_LAST_CASE") {
        let _ = std::fs::write(path, case.reproducer());
    }
    let expected = case.spec_outcome();
    let actual = run_impl(case);
    let variant = format!("buffer {}", case.buffer);
    compare_in_order("grep", &variant, &expected, &actual, &|| case.reproducer())
}

/// The fuzz target's body.
/// Returns whether `data` decoded to a case (an input that does not is
/// rejected from the fuzz corpus, and fails the corpus replay).
pub fn fuzz_grep(data: &[u8]) -> bool {
    let Ok(case) = GrepCase::arbitrary(&mut Unstructured::new(data)) else {
        return false;
    };
    if let Err(m) = check_grep(&case) {
        panic!("{m}");
    }
    true
}
