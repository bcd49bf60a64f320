//! Inputs and command lines for grep cases: text from tokens patterns
//! mention, big inputs with long lines and late NULs or encoding errors,
//! worlds of files, option sets, and the stream buffer size.

use arbitrary::Unstructured;

use super::patterns::arbitrary_pattern;
use crate::schedule;
use samebytes_spec::grep::{GrepStdout, BINARY_PREFIX};
use samebytes_spec::world::{Node, Stdin, World};

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
    // Characters the POSIX classes sort differently beyond ASCII: a
    // no-break space, a combining mark, an Arabic-Indic digit, a
    // superscript, a feminine ordinal, a line separator, a soft hyphen,
    // a fraction, a Greek letter.
    "\u{a0}".as_bytes(),
    "\u{301}".as_bytes(),
    "\u{663}".as_bytes(),
    "\u{b2}".as_bytes(),
    "\u{aa}".as_bytes(),
    "\u{2028}".as_bytes(),
    "\u{ad}".as_bytes(),
    "\u{bd}".as_bytes(),
    "\u{3a9}".as_bytes(),
    // For `-P '(a+)+$'`, which meets PCRE2's backtracking limit here.
    b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
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
            // Up to 3 past the probe, but inside the data (which may end
            // 1 byte past it: fuzz crash 10777b43).
            1 => (BINARY_PREFIX as i64 + i64::from(u.int_in_range(-3..=3i8)?))
                .min(data.len() as i64) as usize,
            _ => u.int_in_range(BINARY_PREFIX..=data.len() - 1)?,
        };
        let bytes = u.choose(LATE_BYTES)?;
        data.splice(at..at, bytes.iter().copied());
    }
    Ok(data)
}

fn arbitrary_node(u: &mut Unstructured<'_>) -> arbitrary::Result<Node> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=6 => Node::Regular(arbitrary_input(u)?),
        7..=8 => Node::Stream(arbitrary_input(u)?),
        _ => Node::Directory,
    })
}

const NAMES: &[&[u8]] = &[b"f", b"g", b"h h", b"d"];

pub(super) type Body = (Vec<Vec<u8>>, bool, World, GrepStdout);

pub(super) fn arbitrary_body(u: &mut Unstructured<'_>) -> arbitrary::Result<Body> {
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
    if matches!(stdout, GrepStdout::File(_)) && u.ratio(1, 3)? {
        // GNU refuses an input that is also the output only when -m
        // allows more than one line: -m1 reads it anyway.
        args.push(b"-m1".to_vec());
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
        // dialect the generator keeps to (issue 13 widens it).  Not a big
        // one: with -z its lines become one record (below), and a
        // pattern of a hundred KiB costs the spec minutes a line.
        let usable = |n: &Node| match n {
            Node::Regular(d) | Node::Stream(d) => {
                syntax == 2 && d.len() <= 2 * LONG_LINE_MAX && std::str::from_utf8(d).is_ok()
            }
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

pub(super) fn arbitrary_buffer(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => 1,
        1 => u.int_in_range(2..=16)?,
        2 => u.int_in_range(17..=300)?,
        _ => 256 * 1024,
    })
}
