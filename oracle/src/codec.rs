//! A minimal byte encoding for reproducers: varints and length-prefixed
//! byte strings, written as hex so a case fits on one command line.

#[derive(Default)]
pub struct Encoder {
    pub bytes: Vec<u8>,
}

impl Encoder {
    pub fn uint(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.bytes.push(low);
                return;
            }
            self.bytes.push(low | 0x80);
        }
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.uint(b.len() as u64);
        self.bytes.extend_from_slice(b);
    }

    pub fn hex(&self) -> String {
        self.bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

pub struct Decoder<'a> {
    rest: &'a [u8],
}

#[derive(Debug)]
pub struct DecodeError;

impl<'a> Decoder<'a> {
    pub fn new(rest: &'a [u8]) -> Self {
        Decoder { rest }
    }

    pub fn uint(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.rest.split_first().ok_or(DecodeError)?;
            self.rest = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(DecodeError)
    }

    pub fn usize(&mut self) -> Result<usize, DecodeError> {
        usize::try_from(self.uint()?).map_err(|_| DecodeError)
    }

    pub fn bytes(&mut self) -> Result<Vec<u8>, DecodeError> {
        let n = self.usize()?;
        if n > self.rest.len() {
            return Err(DecodeError);
        }
        let (b, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(b.to_vec())
    }

    pub fn finished(&self) -> bool {
        self.rest.is_empty()
    }
}

pub fn from_hex(s: &str) -> Result<Vec<u8>, DecodeError> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(DecodeError);
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| DecodeError))
        .collect()
}

use samebytes_spec::world::{Node, Stdin, World};

use crate::schedule::{
    ReadSchedule, ReadStep, WriteFailure, WriteFailureKind, WriteSchedule, WriteStep,
};

pub fn put_read_schedule(e: &mut Encoder, s: &ReadSchedule) {
    e.uint(s.steps.len() as u64);
    for step in &s.steps {
        match step {
            ReadStep::Interrupted => e.uint(0),
            ReadStep::Chunk(n) => e.uint(*n as u64),
        }
    }
}

pub fn get_read_schedule(d: &mut Decoder<'_>) -> Result<ReadSchedule, DecodeError> {
    let n = d.usize()?;
    let mut steps = Vec::new();
    for _ in 0..n {
        steps.push(match d.usize()? {
            0 => ReadStep::Interrupted,
            k => ReadStep::Chunk(k),
        });
    }
    Ok(ReadSchedule { steps })
}

pub fn put_write_schedule(e: &mut Encoder, s: &WriteSchedule) {
    e.uint(s.steps.len() as u64);
    for step in &s.steps {
        match step {
            WriteStep::Interrupted => e.uint(0),
            WriteStep::Accept(n) => e.uint(*n as u64),
        }
    }
    match s.failure {
        None => e.uint(0),
        Some(f) => {
            e.uint(match f.kind {
                WriteFailureKind::BrokenPipe => 1,
                WriteFailureKind::NoSpace => 2,
                WriteFailureKind::BadDescriptor => 3,
            });
            e.uint(f.after as u64);
        }
    }
}

pub fn get_write_schedule(d: &mut Decoder<'_>) -> Result<WriteSchedule, DecodeError> {
    let n = d.usize()?;
    let mut steps = Vec::new();
    for _ in 0..n {
        steps.push(match d.usize()? {
            0 => WriteStep::Interrupted,
            k => WriteStep::Accept(k),
        });
    }
    let failure = match d.uint()? {
        0 => None,
        k => Some(WriteFailure {
            kind: match k {
                1 => WriteFailureKind::BrokenPipe,
                3 => WriteFailureKind::BadDescriptor,
                _ => WriteFailureKind::NoSpace,
            },
            after: d.usize()?,
        }),
    };
    Ok(WriteSchedule { steps, failure })
}

// ---------------------------------------------------------------------------
// Command lines and worlds, shared by every tool's case.

pub fn put_args(e: &mut Encoder, args: &[Vec<u8>]) {
    e.uint(args.len() as u64);
    for a in args {
        e.bytes(a);
    }
}

pub fn get_args(d: &mut Decoder<'_>) -> Result<Vec<Vec<u8>>, DecodeError> {
    let n = d.usize()?;
    (0..n).map(|_| d.bytes()).collect()
}

/// Where stdin pauses: a count, then each pause as the gap from the one
/// before.
pub fn put_pauses(e: &mut Encoder, pauses: &[usize]) {
    e.uint(pauses.len() as u64);
    let mut last = 0;
    for &p in pauses {
        e.uint(p.saturating_sub(last) as u64);
        last = p;
    }
}

pub fn get_pauses(d: &mut Decoder<'_>) -> Result<Vec<usize>, DecodeError> {
    let n = d.usize()?;
    let mut pauses = Vec::new();
    let mut last = 0usize;
    for _ in 0..n {
        last = last.checked_add(d.usize()?).ok_or(DecodeError)?;
        pauses.push(last);
    }
    Ok(pauses)
}

/// The files, then stdin's node and offset.
pub fn put_world(e: &mut Encoder, world: &World) {
    e.uint(world.files.len() as u64);
    for (name, node) in &world.files {
        e.bytes(name);
        put_node(e, node);
    }
    put_node(e, &world.stdin.node);
    e.uint(world.stdin.offset as u64);
    e.uint(world.read_errors.files.len() as u64);
    for (name, at) in &world.read_errors.files {
        e.bytes(name);
        e.uint(*at as u64);
    }
    // The stdin error point, plus one; 0 for none.
    e.uint(world.read_errors.stdin.map_or(0, |at| at as u64 + 1));
    e.uint(u64::from(world.read_errors.stdin_would_block));
}

pub fn get_world(d: &mut Decoder<'_>) -> Result<World, DecodeError> {
    let nfiles = d.usize()?;
    let mut world = World::default();
    for _ in 0..nfiles {
        let name = d.bytes()?;
        let node = get_node(d)?;
        world.files.insert(name, node);
    }
    let node = get_node(d)?;
    let offset = d.usize()?;
    world.stdin = Stdin { node, offset };
    for _ in 0..d.usize()? {
        let name = d.bytes()?;
        let at = d.usize()?;
        world.read_errors.files.insert(name, at);
    }
    world.read_errors.stdin = d.usize()?.checked_sub(1);
    world.read_errors.stdin_would_block = d.uint()? == 1;
    Ok(world)
}

fn put_node(e: &mut Encoder, n: &Node) {
    match n {
        Node::Regular(d) => {
            e.uint(0);
            e.bytes(d);
        }
        Node::Stream(d) => {
            e.uint(1);
            e.bytes(d);
        }
        Node::Directory => e.uint(2),
        Node::Unreadable => e.uint(3),
        Node::Closed => e.uint(4),
    }
}

fn get_node(d: &mut Decoder<'_>) -> Result<Node, DecodeError> {
    Ok(match d.uint()? {
        0 => Node::Regular(d.bytes()?),
        1 => Node::Stream(d.bytes()?),
        2 => Node::Directory,
        3 => Node::Unreadable,
        4 => Node::Closed,
        _ => return Err(DecodeError),
    })
}

/// Total input bytes a run can read from a world: every file and stdin.
pub fn world_input_bytes(world: &World) -> u64 {
    let node_len = |n: &Node| match n {
        Node::Regular(d) | Node::Stream(d) => d.len() as u64,
        _ => 0,
    };
    world.files.values().map(node_len).sum::<u64>() + node_len(&world.stdin.node)
}
