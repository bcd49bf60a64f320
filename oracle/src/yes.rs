//! The yes driver: generate a case (operands and options, how many bytes
//! stdout takes before it fails and how, a short-write schedule, buffer
//! sizes), run the spec and the implementation on it, and compare stdout,
//! stderr and exit status.
//!
//! yes never stops by itself, so every case ends with a write failure:
//! stdout takes `limit` bytes (from none to several MiB) and then fails
//! with EPIPE or ENOSPC.  The spec's prefix of that length is the proof
//! that every prefix of the endless output is right.
//!
//! The implementation runs three times per case, always through the case's
//! write schedule: with the case's sizes, with the binary's default sizes,
//! and with tiny sizes (warm-up writes of a few bytes, sends of 3).  A case
//! is kept to a few thousand sends (see [`YesCase::bounded`]).

use std::io::{self, Write};
use std::rc::Rc;

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use samebytes::sys::PageBuffer;
use samebytes::yes::{YesConfig, YesOutput};
use samebytes_spec::yes::YesEnv;
use samebytes_spec::{Outcome, StdoutFailure};

use crate::codec::{self, Decoder, Encoder};
use crate::mismatch::{compare_in_order, Mismatch};
use crate::order;
use crate::schedule::{
    self, ShortWriter, WriteFailure, WriteFailureKind, WriteSchedule, WriteStep,
};

/// One yes test case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YesCase {
    pub args: Vec<Vec<u8>>,
    pub posixly_correct: bool,
    /// How stdout cuts writes short (its failure is `limit` and `failure`).
    pub steps: Vec<WriteStep>,
    /// Bytes stdout takes before every write fails.
    pub limit: usize,
    pub failure: WriteFailureKind,
    pub config: YesConfig,
}

impl YesCase {
    pub fn env(&self) -> YesEnv {
        YesEnv::new(self.posixly_correct)
    }

    pub fn write_schedule(&self) -> WriteSchedule {
        WriteSchedule {
            steps: self.steps.clone(),
            failure: Some(WriteFailure {
                after: self.limit,
                kind: self.failure,
            }),
        }
    }

    /// Keep a case to a few thousand sends: a long prefix gets writes,
    /// warm-up pieces and sends at least `limit / 4096` long.  Small
    /// prefixes keep their byte-sized steps.
    pub fn bounded(mut self) -> YesCase {
        let floor = (self.limit / 4096).max(1);
        for step in &mut self.steps {
            if let WriteStep::Accept(n) = step {
                *n = (*n).max(floor);
            }
        }
        let c = &mut self.config;
        for size in [&mut c.warm_up_write, &mut c.pipe_size, &mut c.write_size] {
            *size = (*size).max(floor);
        }
        self
    }

    /// `samebytes-oracle replay yes:<hex>`.
    pub fn reproducer(&self) -> String {
        format!("samebytes-oracle replay yes:{}", self.encode())
    }

    pub fn encode(&self) -> String {
        let mut e = Encoder::default();
        e.uint(1); // format version
        codec::put_args(&mut e, &self.args);
        e.uint(u64::from(self.posixly_correct));
        codec::put_write_schedule(&mut e, &self.write_schedule());
        for size in [
            self.config.warm_up_write,
            self.config.warm_up,
            self.config.pipe_size,
            self.config.write_size,
        ] {
            e.uint(size as u64);
        }
        e.hex()
    }

    pub fn decode(hex: &str) -> Result<YesCase, codec::DecodeError> {
        let raw = codec::from_hex(hex)?;
        let mut d = Decoder::new(&raw);
        if d.uint()? != 1 {
            return Err(codec::DecodeError);
        }
        let args = codec::get_args(&mut d)?;
        let posixly_correct = d.uint()? != 0;
        let write = codec::get_write_schedule(&mut d)?;
        // Without a failure the run would never end.
        let failure = write.failure.ok_or(codec::DecodeError)?;
        let config = YesConfig {
            warm_up_write: d.usize()?,
            warm_up: d.usize()?,
            pipe_size: d.usize()?,
            write_size: d.usize()?,
        };
        if !d.finished() {
            return Err(codec::DecodeError);
        }
        Ok(YesCase {
            args,
            posixly_correct,
            steps: write.steps,
            limit: failure.after,
            failure: failure.kind,
            config,
        })
    }
}

// ---------------------------------------------------------------------------
// Generation.

const OPERANDS: &[&[u8]] = &[
    b"y",
    b"",
    b"a b",
    b"x\ny",
    b"\n",
    b"-",
    b"\xff\xc3",
    b"\0",
    b"-- ",
];

const OPTIONS: &[&[u8]] = &[
    b"--",
    b"--help",
    b"--version",
    b"--hel",
    b"--v",
    b"--h",
    b"--help=1",
    b"--versionx",
    b"--foo",
    b"--=",
    b"-x",
    b"-h",
    b"-y",
];

/// An operand: from the pool, random bytes, or long (up to a few MiB,
/// rarely, so a line can be longer than any buffer).
fn arbitrary_operand(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    Ok(match u.int_in_range(0..=19u8)? {
        0..=9 => u.choose(OPERANDS)?.to_vec(),
        10..=15 => {
            let n = u.int_in_range(0..=12usize)?;
            (0..n).map(|_| u.arbitrary()).collect::<Result<_, _>>()?
        }
        16..=18 => {
            let unit: u8 = u.arbitrary()?;
            vec![unit; u.int_in_range(13..=70_000usize)?]
        }
        _ => {
            let pattern = [u.arbitrary::<u8>()?, b'\n', u.arbitrary::<u8>()?];
            let len = u.int_in_range(70_000..=3 << 20usize)?;
            pattern.iter().copied().cycle().take(len).collect()
        }
    })
}

/// Prefix lengths from nothing to several MiB, mostly small.
fn arbitrary_limit(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    // Long prefixes are rarer: with sends of a byte or two they cost
    // milliseconds per case.
    Ok(match u.int_in_range(0..=19u8)? {
        0..=11 => u.int_in_range(0..=64usize)?,
        12..=16 => u.int_in_range(65..=5_000usize)?,
        17..=18 => u.int_in_range(5_001..=100_000usize)?,
        _ if u.ratio(1, 3)? => u.int_in_range(100_001..=6 << 20usize)?,
        _ => u.int_in_range(0..=100_000usize)?,
    })
}

/// Buffer sizes: mostly tiny, so every boundary is crossed often.
fn arbitrary_size(u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=5u8)? {
        0..=3 => u.int_in_range(1..=16usize)?,
        4 => u.int_in_range(17..=300usize)?,
        _ => u.int_in_range(301..=70_000usize)?,
    })
}

type Body = (Vec<Vec<u8>>, bool, usize, WriteFailureKind);

fn arbitrary_body(u: &mut Unstructured<'_>) -> arbitrary::Result<Body> {
    let posixly_correct = u.ratio(1, 8)?;
    let mut args = Vec::new();
    for _ in 0..u.int_in_range(0..=5usize)? {
        if u.ratio(1, 6)? {
            args.push(u.choose(OPTIONS)?.to_vec());
        } else {
            args.push(arbitrary_operand(u)?);
        }
    }
    let limit = arbitrary_limit(u)?;
    let failure = if u.arbitrary()? {
        WriteFailureKind::BrokenPipe
    } else {
        WriteFailureKind::NoSpace
    };
    Ok((args, posixly_correct, limit, failure))
}

fn config(warm_up_write: usize, warm_up: usize, send: usize) -> YesConfig {
    YesConfig {
        warm_up_write,
        warm_up,
        pipe_size: send,
        write_size: send,
    }
}

impl<'a> Arbitrary<'a> for YesCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (args, posixly_correct, limit, failure) = arbitrary_body(u)?;
        let schedule: WriteSchedule = u.arbitrary()?;
        Ok(YesCase {
            args,
            posixly_correct,
            steps: schedule.steps,
            limit,
            failure,
            config: config(arbitrary_size(u)?, arbitrary_size(u)?, arbitrary_size(u)?),
        }
        .bounded())
    }
}

/// proptest strategy: the body from the fuzz generator (driven by
/// proptest's bytes, so it shrinks), the write steps and sizes from their
/// own strategies.
pub fn yes_case() -> impl Strategy<Value = YesCase> {
    (schedule::case_parts(), 1..=300usize).prop_map(
        |((seed, _read, write, warm_up_write, warm_up), send)| {
            let (args, posixly_correct, limit, failure) = arbitrary_body(&mut Unstructured::new(
                &seed,
            ))
            .unwrap_or((Vec::new(), false, 0, WriteFailureKind::BrokenPipe));
            YesCase {
                args,
                posixly_correct,
                steps: write.steps,
                limit,
                failure,
                config: config(warm_up_write, warm_up, send),
            }
            .bounded()
        },
    )
}

// ---------------------------------------------------------------------------
// Running the implementation.

/// Stdout in tests: the case's write schedule behind the implementation's
/// output seam.  A send takes what one short write accepts.
struct ModelOutput {
    writer: ShortWriter<order::StdoutSink>,
    send_size: usize,
}

impl YesOutput for ModelOutput {
    fn prepare(&mut self, _config: &YesConfig) -> usize {
        self.send_size
    }

    fn send(&mut self, buf: &Rc<PageBuffer>, from: usize, to: usize) -> io::Result<usize> {
        self.writer.write(&buf[from..to])
    }

    fn describe(&self) -> String {
        "the case's write schedule".into()
    }
}

/// Run the implementation on a case with one config.
pub fn run_impl(case: &YesCase, config: &YesConfig) -> Outcome {
    let (stdout_sink, mut stderr) = order::sinks();
    let mut out = ModelOutput {
        writer: ShortWriter::new(stdout_sink, case.write_schedule()),
        send_size: config.pipe_size,
    };
    let status = samebytes::yes::run(
        &case.args,
        &case.env(),
        &mut out,
        &mut stderr,
        config,
        false,
    );
    stderr.outcome(status)
}

/// Run the spec on a case.
pub fn run_spec(case: &YesCase) -> Outcome {
    samebytes_spec::yes::yes(
        &case.args,
        &case.env(),
        StdoutFailure {
            limit: case.limit,
            errno: case.failure.spec_errno(),
        },
    )
}

/// The configurations a case is checked with.
pub fn variants(case: &YesCase) -> [(String, YesConfig); 3] {
    let c = &case.config;
    [
        (
            format!(
                "warm-up {}/{}, sends of {}",
                c.warm_up_write, c.warm_up, c.pipe_size
            ),
            c.clone(),
        ),
        ("default sizes".into(), YesConfig::default()),
        {
            // Sends of 3 bytes, or of a 4096th of a long prefix.
            let send = 3.max(case.limit / 4096);
            (format!("warm-up 5/7, sends of {send}"), config(5, 7, send))
        },
    ]
}

/// Check one case: spec against every implementation variant.
pub fn check_yes(case: &YesCase) -> Result<(), Box<Mismatch>> {
    let expected = run_spec(case);
    let repro = || case.reproducer();
    for (name, config) in variants(case) {
        let actual = run_impl(case, &config);
        compare_in_order("yes", &name, &expected, &actual, &repro)?;
    }
    Ok(())
}

/// The fuzz target's body: any bytes, any case.
/// Returns whether `data` decoded to a case (an input that does not is
/// rejected from the fuzz corpus, and fails the corpus replay).
pub fn fuzz_yes(data: &[u8]) -> bool {
    let Ok(case) = YesCase::arbitrary(&mut Unstructured::new(data)) else {
        return false;
    };
    if let Err(m) = check_yes(&case) {
        panic!("{m}");
    }
    true
}
