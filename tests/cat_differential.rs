//! Differential tests: samebytes cat against the spec, under adversarial
//! reads and writes, with buffer sizes from one byte up.

use proptest::prelude::*;
use samebytes::cat::format::{Formatter, OutBuf};
use samebytes_oracle::cat::{cat_case, check_cat};
use samebytes_oracle::wc::TOKENS;
use samebytes_spec::cat::{Formatter as SpecFormatter, Formatting};

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whole command lines: every option in every spelling, several files,
    /// stdin, stdout a regular file that may also be an input, read
    /// schedules, short and failing writes, tiny and default buffers.
    #[test]
    fn cat_matches_spec(case in cat_case()) {
        if let Err(m) = check_cat(&case) {
            prop_assert!(false, "{}", m);
        }
    }
}

fn token_data() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        8 => prop::sample::select(TOKENS).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => (prop::sample::select(vec![b'x', b'\n', b'\t', b'\r', 0x80u8, 0xff]), 1..300usize)
            .prop_map(|(b, n)| vec![b; n]),
    ];
    prop::collection::vec(token, 0..150).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The formatter alone, with the input cut into arbitrary chunks,
    /// against the spec fed one byte at a time: every bulk copy, every
    /// word-at-a-time rendering and every carried state at every boundary.
    #[test]
    fn formatter_is_independent_of_chunk_boundaries(
        data in token_data(),
        mask in 0u8..64,
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let opts = Formatting {
            number: mask & 3 != 0,
            number_nonblank: mask & 2 != 0,
            squeeze_blank: mask & 4 != 0,
            show_ends: mask & 8 != 0,
            show_nonprinting: mask & 16 != 0,
            show_tabs: mask & 32 != 0,
        };
        let mut expected = Vec::new();
        let mut spec = SpecFormatter::new(opts);
        for &b in &data {
            spec.push(b, &mut expected);
        }
        spec.finish(&mut expected);

        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(data.len() + 1)).collect();
        at.sort_unstable();
        let mut actual = OutBuf::new();
        let mut f = Formatter::new(opts);
        let mut from = 0;
        for c in at {
            f.feed(&data[from..c], &mut actual);
            from = c;
        }
        f.feed(&data[from..], &mut actual);
        f.finish(&mut actual);
        prop_assert_eq!(actual.as_slice(), &expected[..]);
    }
}

/// A regular file for `samebytes::cat::run`, counting what has been read.
struct CountingFile {
    data: std::io::Cursor<Vec<u8>>,
    read: std::rc::Rc<std::cell::Cell<usize>>,
}

impl std::io::Read for CountingFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.data.read(buf)?;
        self.read.set(self.read.get() + n);
        Ok(n)
    }
}

struct OneFile {
    data: Vec<u8>,
    read: std::rc::Rc<std::cell::Cell<usize>>,
}

impl samebytes::cat::CatSystem for OneFile {
    fn open(&mut self, _name: Option<&[u8]>) -> std::io::Result<samebytes::cat::CatInput> {
        Ok(samebytes::cat::CatInput::Reader {
            reader: Box::new(CountingFile {
                data: std::io::Cursor::new(self.data.clone()),
                read: self.read.clone(),
            }),
            may_block: false,
        })
    }
    fn is_output_file(&mut self, _: &samebytes::cat::CatInput) -> bool {
        false
    }
    fn self_copy(&mut self, _: &samebytes::cat::CatInput) -> samebytes::cat::SelfCopy {
        unreachable!("no input is the output file")
    }
    fn stdout_fd(&self) -> Option<std::os::fd::RawFd> {
        None
    }
}

/// Records each write: its size and how much input had been read by then.
struct WriteLog {
    writes: Vec<(usize, usize)>,
    read: std::rc::Rc<std::cell::Cell<usize>>,
}

impl std::io::Write for WriteLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writes.push((buf.len(), self.read.get()));
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Output that the equality checks cannot see: output leaves in whole
/// `write_size` pieces while the input is still being read (so the buffer
/// stays bounded), and only the last write is shorter.
#[test]
fn formatted_output_leaves_in_whole_pieces_as_it_is_produced() {
    let data = samebytes_spec_text(300_000);
    for (opts, write_size) in [("-n", 4096usize), ("-A", 1000), ("-s", 7), ("", 4096)] {
        let read = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut system = OneFile {
            data: data.clone(),
            read: read.clone(),
        };
        let mut out = WriteLog {
            writes: Vec::new(),
            read: read.clone(),
        };
        let cfg = samebytes::cat::CatConfig {
            read_size: 8192,
            format_read_size: 8192,
            write_size,
            ..samebytes::cat::CatConfig::default()
        };
        let env = samebytes_spec::cat::CatEnv::new(samebytes_spec::Locale::C, false);
        let args: Vec<Vec<u8>> = opts
            .split_whitespace()
            .map(|a| a.as_bytes().to_vec())
            .collect();
        let status = samebytes::cat::run(&args, &env, &mut system, &mut out, &mut Vec::new(), &cfg);
        assert_eq!(status, 0);
        let (last, rest) = out.writes.split_last().expect("some writes");
        assert!(last.0 <= write_size, "{opts}: last write {}", last.0);
        for (i, &(size, _)) in rest.iter().enumerate() {
            assert_eq!(
                size,
                write_size,
                "{opts}: write {i} of {}",
                out.writes.len()
            );
        }
        // Bounded buffering: once the last input byte has been read, at
        // most one step's output and a partial piece are still to go.
        let total: usize = out.writes.iter().map(|w| w.0).sum();
        let after_input: usize = out
            .writes
            .iter()
            .filter(|w| w.1 == data.len())
            .map(|w| w.0)
            .sum();
        assert!(
            after_input <= write_size + 8192 * 8,
            "{opts}: {after_input} of {total} bytes were written after all input was read"
        );
        let first_read = out.writes[0].1;
        assert!(
            first_read < data.len() / 2,
            "{opts}: the first write came after {first_read} of {} input bytes",
            data.len()
        );
    }
}

/// Lines of text with tabs, control bytes and blank runs.
fn samebytes_spec_text(len: usize) -> Vec<u8> {
    let pieces: &[&[u8]] = &[
        b"word ",
        b"\n",
        b"\t",
        b"\n\n\n",
        b"\x01\xc3\xa9",
        b"\r\n",
        b"text",
    ];
    let mut out = Vec::with_capacity(len + 8);
    let mut state = 12345u64;
    while out.len() < len {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
        out.extend_from_slice(pieces[(state >> 33) as usize % pieces.len()]);
    }
    out
}
