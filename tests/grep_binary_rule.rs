//! The binary rule at every edge the search has: the first NUL, or the
//! first encoding error, placed before, at and after
//! - the 32 KiB probe,
//! - a read's end (so a region's end, or inside the partial line after it),
//! - the stream buffer's end, before and after it grows,
//! - the end of a binary chunk (a quarter of the buffer, counted from the
//!   line of the NUL), and the end of a piece longer than a chunk,
//!
//! with the searches the binary rule changes: `-c`, `-l`, `-q`, `-v -c`,
//! `-i -c`, printing, `-n`, `-o`, `-m` (with stdin read again from
//! where it left the offset, and with owed context), context and
//! `--binary-files=without-match`.  Each case is checked against the spec.
//!
//! Every case runs the implementation twice (`check_grep`): regular files
//! read as streams cut into reads, and mapped in windows as small as the
//! buffer, one of them refused and one with a probe that cries "spoiled"
//! (`oracle::grep::ModelMapped`), so the edges also fall on window and
//! region ends and on the marks the mapped search goes back to.

use proptest::prelude::*;
use samebytes_oracle::grep::{check_grep, GrepCase};
use samebytes_oracle::schedule::{ReadSchedule, ReadStep};
use samebytes_spec::grep::{GrepStdout, BINARY_PREFIX};
use samebytes_spec::world::{Node, Stdin, World};

/// The searches whose result the binary rule changes.
const SEARCHES: &[&[&str]] = &[
    &["-c", "foo"],
    &["-l", "foo"],
    &["-q", "foo"],
    &["-v", "-c", "foo"],
    &["-i", "-c", "FOO"],
    &["foo"],
    &["-n", "foo"],
    &["-v", "foo"],
    &["-v", "-c", "-E", "fo|^$"],
    &["-o", "-b", "fo+"],
    &["-m", "2", "-c", "foo"],
    &["-m", "3", "-v", "-c", "o"],
    // Stdin named twice: the second search starts where `-m` left the
    // offset, just after the last selected line (binary ones too).
    &["-m", "2", "-c", "foo", "-", "-"],
    &["-m", "1", "-v", "-c", "o", "-", "-"],
    &["-c", "-w", "foo"],
    &["-c", "-E", "é|x$"],
    &["-A", "1", "bar"],
    // Owed context after `-m` stops must not run into the binary part.
    &["-m", "1", "-A", "3", "foo"],
    &["-m", "2", "-A", "2", "-v", "o"],
    &["--binary-files=without-match", "-c", "foo"],
    &["-a", "-c", "foo"],
];

/// The bytes placed at an edge: a NUL turns the input binary, the others
/// are encoding errors (in UTF-8) that matter to printed lines.
const MARKS: &[&[u8]] = &[
    b"\0",
    b"\0\0",
    b"\n\0",
    b"\xff",
    b"\xe2\x80",
    b"\xed\xa0\x80",
];

/// Text of lines whose lengths follow `line`, from a seeded generator (so
/// that a case of 300 KiB costs proptest a few numbers, not 300 K).
fn text(seed: u64, len: usize, line: usize) -> Vec<u8> {
    const TOKENS: &[&[u8]] = &[b"foo", b"FOO", b"bar", b" ", b" ", b"x", b"\xc3\xa9", b"fo"];
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut data = Vec::with_capacity(len + 8);
    let mut line_start = 0;
    while data.len() < len {
        let r = next();
        data.extend_from_slice(TOKENS[(r % TOKENS.len() as u64) as usize]);
        if data.len() - line_start > (r >> 32) as usize % line {
            data.push(b'\n');
            line_start = data.len();
        }
    }
    data.truncate(len);
    data
}

/// Where an edge falls, before the offset `delta`.
#[derive(Clone, Copy, Debug)]
enum Edge {
    Probe,
    /// The end of the `k`th read.
    Read(usize),
    /// `k` times the starting buffer: where it is full, or grows.
    Buffer(usize),
    /// One chunk past the line of the first mark: where the first chunk
    /// of the binary part ends.
    Chunk,
    /// A fraction (in 1/64ths) of the input.
    Anywhere(usize),
}

#[derive(Clone, Debug)]
struct Layout {
    seed: u64,
    len: usize,
    line: usize,
    /// Marks at `edge + delta`, in order; a later one lands after the
    /// first, or is left out when it would not.
    marks: Vec<(Edge, i64, usize)>,
    buffer: usize,
    read: Option<usize>,
    regular: bool,
    search: usize,
    utf8: bool,
}

fn layout() -> impl Strategy<Value = Layout> {
    let edge = prop_oneof![
        Just(Edge::Probe),
        (1..40usize).prop_map(Edge::Read),
        (1..6usize).prop_map(Edge::Buffer),
        Just(Edge::Chunk),
        (0..64usize).prop_map(Edge::Anywhere),
    ];
    let mark = (edge, -3i64..=3, 0..MARKS.len());
    (
        any::<u64>(),
        prop_oneof![1..40_000usize, 30_000..120_000usize, 100_000..300_000usize],
        prop_oneof![1..80usize, 80..2_000usize, 2_000..150_000usize],
        prop::collection::vec(mark, 0..4),
        prop_oneof![
            1..=16usize,
            17..=300usize,
            Just(4096usize),
            Just(256 * 1024)
        ],
        prop_oneof![
            Just(None),
            (1..8usize).prop_map(Some),
            (4090..4100usize).prop_map(Some),
            (20_000..70_000usize).prop_map(Some),
        ],
        any::<bool>(),
        0..SEARCHES.len(),
        any::<bool>(),
    )
        .prop_map(
            |(seed, len, line, marks, buffer, read, regular, search, utf8)| Layout {
                seed,
                len,
                line,
                marks,
                buffer,
                read,
                regular,
                search,
                utf8,
            },
        )
}

impl Layout {
    fn at(&self, edge: Edge, first: Option<usize>, data: &[u8]) -> usize {
        let read = self.read.unwrap_or(self.len.max(1));
        match edge {
            Edge::Probe => BINARY_PREFIX,
            Edge::Read(k) => k * read,
            Edge::Buffer(k) => k * self.buffer,
            Edge::Chunk => {
                let first = first.unwrap_or(BINARY_PREFIX).min(data.len());
                let line = data[..first]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
                line + (self.buffer / 4).max(1)
            }
            Edge::Anywhere(f) => self.len * f / 64,
        }
    }

    fn data(&self) -> Vec<u8> {
        let mut data = text(self.seed, self.len, self.line);
        let mut first = None;
        let mut last = 0;
        for &(edge, delta, mark) in &self.marks {
            let Some(at) = (self.at(edge, first, &data) as i64 + delta).try_into().ok() else {
                continue;
            };
            let at: usize = at;
            let bytes = MARKS[mark];
            if at < last || at + bytes.len() > data.len() {
                continue;
            }
            data[at..at + bytes.len()].copy_from_slice(bytes);
            first.get_or_insert(at);
            last = at + bytes.len();
        }
        data
    }

    fn case(&self) -> GrepCase {
        let data = self.data();
        GrepCase {
            args: SEARCHES[self.search]
                .iter()
                .map(|a| a.as_bytes().to_vec())
                .collect(),
            utf8: self.utf8,
            world: World {
                files: Default::default(),
                stdin: Stdin {
                    node: match self.regular {
                        true => Node::Regular(data),
                        false => Node::Stream(data),
                    },
                    offset: 0,
                },
                read_errors: Default::default(),
                ..Default::default()
            },
            stdout: GrepStdout::Stream,
            read: ReadSchedule {
                steps: self.read.map(ReadStep::Chunk).into_iter().collect(),
            },
            write: Default::default(),
            buffer: self.buffer,
            colors: Default::default(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn binary_rule_at_every_edge_matches_spec(l in layout()) {
        let case = l.case();
        if let Err(m) = check_grep(&case) {
            prop_assert!(false, "{:?}\n{}", l, m);
        }
    }
}

/// A whole regular file (one read) with the binaries' buffer.
fn real_buffer_case(search: &[&str], data: &[u8]) -> GrepCase {
    GrepCase {
        args: search.iter().map(|a| a.as_bytes().to_vec()).collect(),
        utf8: true,
        world: World {
            files: Default::default(),
            stdin: Stdin {
                node: Node::Regular(data.to_vec()),
                offset: 0,
            },
            read_errors: Default::default(),
            ..Default::default()
        },
        stdout: GrepStdout::Stream,
        read: Default::default(),
        write: Default::default(),
        buffer: REAL_BUFFER,
        colors: Default::default(),
    }
}

const REAL_BUFFER: usize = 256 * 1024;

/// Check each search on `data` (a regular stdin) with each buffer size.
fn check_each(data: &[u8], searches: &[&[&str]], buffers: &[usize], what: &str) {
    for search in searches {
        for &buffer in buffers {
            let mut case = real_buffer_case(search, data);
            case.buffer = buffer;
            if let Err(m) = check_grep(&case) {
                panic!("{what}, buffer {buffer}, {search:?}: {m}");
            }
        }
    }
}

/// The binary part's paths with the binaries' own sizes, each met by a
/// fixed case (the random ones above meet them by chance): a chunk whose
/// last NUL falls just before, at and just after the chunk's end, and a
/// piece longer than a chunk.
#[test]
fn chunk_ends_and_long_pieces_with_the_real_buffer() {
    let chunk = REAL_BUFFER / 4;
    let base = text(7, 200_000, 60);
    let first = 40_000;
    let line = base[..first].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    for d in -2i64..=2 {
        let mut data = base.clone();
        data[first] = 0;
        data[((line + chunk - 1) as i64 + d) as usize] = 0;
        for search in SEARCHES {
            if let Err(m) = check_grep(&real_buffer_case(search, &data)) {
                panic!("second NUL at the chunk's end {d:+}: {m}");
            }
        }
    }
    // One line of 100 KiB that a NUL ends: a piece longer than a chunk.
    let mut data = base.clone();
    for b in &mut data[first..first + 100_000] {
        if *b == b'\n' {
            *b = b' ';
        }
    }
    data[first + 100_000 - 1] = 0;
    for search in SEARCHES {
        if let Err(m) = check_grep(&real_buffer_case(search, &data)) {
            panic!("a piece longer than a chunk: {m}");
        }
    }
}

/// A NUL just before, at and just after the 32 KiB probe, alone on its
/// line or not, with every search and buffers small and real: the one
/// byte where the lines before a NUL stop being binary too.  Printed
/// searches tell the two apart, and only when the line before matches,
/// which random marks meet too rarely to count on.
#[test]
fn nul_at_the_probe_edge() {
    let base = text(11, 80_000, 40);
    for d in -2i64..=2 {
        for mark in [&b"\0"[..], b"\n\0"] {
            let mut data = base.clone();
            let at = (BINARY_PREFIX as i64 + d) as usize;
            data[at..at + mark.len()].copy_from_slice(mark);
            let what = format!("{mark:?} at the probe {d:+}");
            check_each(&data, SEARCHES, &[1, 4096, REAL_BUFFER], &what);
        }
    }
}

/// `-m` on a regular stdin leaves the offset just after the last selected
/// line, and a second `-` searches on from there.  In a binary part that
/// line may be a piece longer than a chunk, which ends at a NUL: the
/// offset must be just past the NUL, or the second search meets an empty
/// piece first (which `-v` selects).  Pieces of lengths around the chunk,
/// with every buffer from one byte up.
#[test]
fn stdin_searched_again_after_a_long_binary_piece() {
    for buffer in [1, 3, 16, 64, 4096, REAL_BUFFER] {
        let chunk = (buffer / 4).max(1);
        for len in [chunk.saturating_sub(1), chunk, chunk + 1, 2 * chunk + 3] {
            let mut data = b"foo\n".to_vec();
            data.extend(std::iter::repeat_n(b'x', len));
            data.push(0);
            data.extend_from_slice(b"foo\nxo\n");
            for search in [
                &["-m", "1", "-v", "-c", "o", "-", "-"][..],
                &["-m", "1", "-c", "x", "-", "-"],
                &["-m", "1", "-v", "-c", "fo", "-", "-"],
            ] {
                let mut case = real_buffer_case(search, &data);
                case.buffer = buffer;
                if let Err(m) = check_grep(&case) {
                    panic!("piece of {len} bytes, buffer {buffer}, {search:?}: {m}");
                }
            }
        }
    }
}

/// `-m` stops the search a line or two before the first NUL (past the
/// probe, where the NUL scan trails the matcher), with after-context
/// still owed: the context stops where the binary part starts, at the
/// NUL's line, and never prints it.  For every buffer from one byte up,
/// the NUL one to four lines after the last selected line.
#[test]
fn owed_context_after_max_count_stops_at_the_binary_part() {
    let mut base = b"filler line without the word\n".repeat(2000);
    base.extend_from_slice(b"the foo line\n");
    for gap in 0..4 {
        let mut data = base.clone();
        for i in 0..gap {
            data.extend_from_slice(format!("context {i}\n").as_bytes());
        }
        data.extend_from_slice(b"nul \0 here foo\nafter foo\n");
        let searches: &[&[&str]] = &[
            &["-m", "1", "-A", "3", "foo"],
            &["-m", "1", "-A", "3", "-n", "foo"],
            &["-m", "1", "-A", "9", "-c", "foo"],
        ];
        let what = format!("{gap} lines before the NUL");
        check_each(&data, searches, &[1, 7, 4096, REAL_BUFFER], &what);
    }
}

/// A binary part's NULs at every spacing, from every byte to farther
/// apart than a chunk: the binary part is searched in place where a
/// stretch looks free of NULs, with the NUL scan trailing the matcher,
/// and NUL by NUL where they are dense.  A NUL ends a line there, which
/// anchors see (`^foo` matches after one) and `-v` counts.  Every guess
/// of a NUL-free stretch that a NUL proves wrong, before a match, in the
/// lines before it or after the last one, must give the spec's count.
#[test]
fn nul_spacings_in_a_binary_part() {
    let base = text(5, 150_000, 30);
    for spacing in [1usize, 2, 3, 7, 40, 333, 1000, 5000, 20_000, 70_000] {
        let mut data = base.clone();
        // The first NUL early (the whole input is binary), then every
        // `spacing` bytes, off the terminators.
        let mut at = 100;
        while at < data.len() {
            if data[at] != b'\n' {
                data[at] = 0;
            }
            at += spacing;
        }
        let searches: &[&[&str]] = &[
            &["-c", "^foo"],
            &["-c", "foo$"],
            &["-v", "-c", "o"],
            &["-v", "-c", "-E", "^(foo|bar)"],
            &["-c", "-x", "bar"],
        ];
        let what = format!("NULs {spacing} apart");
        check_each(&data, searches, &[1, 16, 300, 4096, REAL_BUFFER], &what);
    }
}

/// Edges of the NUL scan that trails the matcher, which the random
/// layouts meet too rarely:
/// - a NUL as the last byte of a matching line, just before its newline,
///   past the probe (the first NUL) and later inside a binary part;
/// - `-m` stopping in a NUL-free stretch of a binary part, or in the
///   lines between where that stretch met a NUL and the NUL's line, and
///   stdin searched again from just after the last selected line;
/// - `-P` giving up (its backtracking limit) on a line after the first
///   NUL, past the probe, and in a NUL-free stretch of a binary part:
///   the lines before it are split as without the failure.
#[test]
fn trailing_nul_scan_edges() {
    let filler = b"filler line without the word\n".repeat(1500);
    let endless = [b"a".repeat(30), b"!\n".to_vec()].concat();
    let mut past_probe = filler.clone();
    past_probe.extend_from_slice(b"foo\0\nfoo\nbar foo\n");
    past_probe.extend_from_slice(&endless);
    past_probe.extend_from_slice(b"foo\n");
    let mut in_binary = b"x\0\n".to_vec();
    in_binary.extend_from_slice(&filler);
    // Lines `-v word` selects just before a NUL's line: `-m` stops in
    // them, between where the trailing scan met the NUL and its line.
    in_binary.extend_from_slice(b"a\nb\nc\nd\0\n");
    in_binary.extend_from_slice(&filler);
    in_binary.extend_from_slice(b"foo here\0\nfoo\n");
    in_binary.extend_from_slice(&filler);
    in_binary.extend_from_slice(b"foo\nfoo\nbar\0x\n");
    in_binary.extend_from_slice(&endless);
    in_binary.extend_from_slice(b"foo\n");
    let searches: &[&[&str]] = &[
        &["-c", "foo"],
        &["-c", "-x", "foo"],
        &["-v", "-c", "o"],
        &["-m", "2", "-c", "foo", "-", "-"],
        &["-m", "3", "-c", "foo", "-", "-"],
        &["-m", "1", "-v", "-c", "l", "-", "-"],
        &["-m", "2", "-v", "-c", "word", "-", "-"],
        &["-v", "-P", "^(a+)+$"],
        &["-v", "-c", "-P", "^(a+)+$"],
    ];
    // `-m` just before or after the failing line, where the NULs that
    // split lines change how many were selected before it.
    let limits: Vec<String> = (1..=12).map(|m| m.to_string()).collect();
    let limited: Vec<Vec<&str>> = limits
        .iter()
        .map(|m| vec!["-m", m, "-v", "-c", "-P", "^(a+)+$|word"])
        .collect();
    let limited: Vec<&[&str]> = limited.iter().map(|v| &v[..]).collect();
    for (what, data) in [
        ("past the probe", &past_probe),
        ("in a binary part", &in_binary),
    ] {
        check_each(data, searches, &[1, 7, 4096, REAL_BUFFER], what);
        check_each(data, &limited, &[1, 7, 4096, REAL_BUFFER], what);
    }
}

/// The records of the helper thread (impl/src/grep/ahead.rs), which `-c`
/// takes at once, at the edges random layouts meet too rarely:
/// - the first NUL past the probe inside a region the helper searched,
///   on a line counted once as text and twice as binary (`foo\0foo`),
///   at offsets that put it in every region of the windows after the
///   first;
/// - `-m` with `-c` stopping inside a record, and stdin searched again
///   from just after the last line taken (an empty line matches there,
///   so a resumption one byte early counts one more).
///
/// The oracle's model refuses or spoils one view from the second to the
/// fifth, after which the rest is read; with buffers of 1007 and 4100
/// that view is the fifth and the fourth, so three windows of four
/// regions each are mapped after the first.
#[test]
fn first_nul_and_max_count_inside_helper_records() {
    let filler = b"a foo line\n\n".repeat(6000);
    let searches: &[&[&str]] = &[
        &["-c", "foo"],
        &["-c", "-E", "foo|^$"],
        &["-v", "-c", "zzz"],
        &["-m", "6001", "-c", "-E", "foo|^$", "-", "-"],
        &["-m", "8000", "-c", "-E", "foo|^$", "-", "-"],
    ];
    for (buffer, windows) in [(1007, 3 * 4028), (4100, 2 * 16400)] {
        for at in (32_800..32_768 + windows).step_by(buffer / 2) {
            let line = filler[..at].iter().rposition(|&b| b == b'\n').unwrap() + 1;
            let mut data = filler.clone();
            data.splice(line..line, b"foo\0foo\n".iter().copied());
            let what = format!("first NUL at {line}");
            check_each(&data, searches, &[buffer], &what);
        }
    }
    check_each(&filler, searches, &[1007, 4100], "no NUL");
}
