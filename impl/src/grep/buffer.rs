//! The line buffer of the stream strategy: one allocation reused for a
//! whole input.
//!
//! Invariants: `bytes[..filled]` is input from absolute offset `base`;
//! `searched <= filled` and `complete <= filled`, where the lines before `searched`
//! were handed to the core and `complete` ends the last whole line seen.
//! The buffer grows (doubling) only when it is full of unsearched bytes,
//! that is for a line longer than it, and only the new bytes of a read
//! are scanned for line ends.

use std::io::{self, Read};

/// A view of input bytes at an absolute offset: `bytes[0]` is input byte
/// `base`.
#[derive(Clone, Copy)]
pub(super) struct Window<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) base: u64,
}

impl Window<'_> {
    /// The absolute offset of `bytes[at]`.
    pub(super) fn offset(&self, at: usize) -> u64 {
        self.base + at as u64
    }

    /// Where absolute offset `offset` falls in `bytes` (0 if before it).
    pub(super) fn index(&self, offset: u64) -> usize {
        offset.saturating_sub(self.base) as usize
    }
}

pub(super) struct LineBuffer {
    bytes: Vec<u8>,
    base: u64,
    filled: usize,
    searched: usize,
    complete: usize,
    terminator: u8,
    /// Bytes from `base` a previous strategy already searched: reads
    /// count them as searched as they arrive.
    resume: usize,
}

impl LineBuffer {
    #[cfg(test)]
    pub(super) fn new(capacity: usize, terminator: u8) -> LineBuffer {
        LineBuffer::recycling(Vec::new(), capacity, terminator)
    }

    /// A buffer in `storage` when it has the capacity wanted (its bytes
    /// are never read before they are filled), else in a new allocation:
    /// a walk of many small files allocates (and zeroes) one buffer, not
    /// one per file.
    pub(super) fn recycling(storage: Vec<u8>, capacity: usize, terminator: u8) -> LineBuffer {
        let capacity = capacity.max(1);
        let bytes = match storage.len() == capacity {
            true => storage,
            false => vec![0; capacity],
        };
        LineBuffer {
            bytes,
            base: 0,
            filled: 0,
            searched: 0,
            complete: 0,
            terminator,
            resume: 0,
        }
    }

    /// A buffer that reads from absolute offset `base` on, where the lines
    /// before `searched` were already searched (they are read again only
    /// as context).
    pub(super) fn resuming(
        storage: Vec<u8>,
        capacity: usize,
        terminator: u8,
        base: u64,
        searched: u64,
    ) -> LineBuffer {
        let mut buf = LineBuffer::recycling(storage, capacity, terminator);
        buf.base = base;
        buf.resume = searched.saturating_sub(base) as usize;
        buf
    }

    /// The storage, for the next buffer.
    pub(super) fn into_storage(self) -> Vec<u8> {
        self.bytes
    }

    /// Read once into the free space (grown first if there is none).
    /// Returns how many bytes came; 0 at end of input.
    pub(super) fn fill(&mut self, reader: &mut dyn Read) -> io::Result<usize> {
        if self.filled == self.bytes.len() {
            self.bytes.resize(self.bytes.len() * 2, 0);
        }
        let n = crate::io::read_retrying(reader, &mut self.bytes[self.filled..])?;
        let new = &self.bytes[self.filled..self.filled + n];
        if let Some(p) = memchr::memrchr(self.terminator, new) {
            self.complete = self.filled + p + 1;
        }
        self.filled += n;
        if self.searched < self.resume {
            // Whole lines, unless the file changed under us: then at
            // least the invariants hold.
            self.searched = self.resume.min(self.filled);
            self.complete = self.complete.max(self.searched);
        }
        Ok(n)
    }

    /// Everything held, unsearched or not.
    pub(super) fn window(&self) -> Window<'_> {
        Window {
            bytes: &self.bytes[..self.filled],
            base: self.base,
        }
    }

    /// The absolute offset just after the last byte read.
    pub(super) fn seen(&self) -> u64 {
        self.base + self.filled as u64
    }

    pub(super) fn searched(&self) -> usize {
        self.searched
    }

    /// The end of the last whole line held.
    pub(super) fn complete(&self) -> usize {
        self.complete
    }

    pub(super) fn filled(&self) -> usize {
        self.filled
    }

    /// The lines up to `to` have been searched.
    pub(super) fn mark_searched(&mut self, to: usize) {
        debug_assert!(self.searched <= to && to <= self.filled);
        self.searched = to;
    }

    /// Drop the bytes before `keep` (at most the searched end), moving the
    /// rest to the front.
    pub(super) fn discard_before(&mut self, keep: usize) {
        let keep = keep.min(self.searched);
        if keep == 0 {
            return;
        }
        self.bytes.copy_within(keep..self.filled, 0);
        self.filled -= keep;
        self.searched -= keep;
        self.complete = self.complete.saturating_sub(keep);
        self.resume = self.resume.saturating_sub(keep);
        self.base += keep as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines;
    use super::*;

    /// A reader that hands out `data` a few bytes at a time.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn the_window_always_holds_the_input_at_its_offset() {
        let data = b"ab\ncd\n\nlong line here\nx";
        for capacity in 1..8 {
            for step in 1..6 {
                let mut reader = Trickle { data, step };
                let mut buf = LineBuffer::new(capacity, b'\n');
                while buf.fill(&mut reader).unwrap() > 0 {
                    let w = buf.window();
                    let at = w.base as usize;
                    assert_eq!(w.bytes, &data[at..at + w.bytes.len()]);
                    let complete = buf.complete();
                    assert!(buf.searched() <= complete && complete <= buf.filled());
                    assert!(complete == 0 || w.bytes[complete - 1] == b'\n');
                    assert!(!w.bytes[complete..].contains(&b'\n'));
                    // Search every whole line, keep one line of context.
                    buf.mark_searched(complete);
                    let keep = lines::back(&buf.bytes, b'\n', 0, buf.searched(), 1);
                    buf.discard_before(keep);
                    assert_eq!(buf.window().offset(0), (at + keep) as u64);
                }
                assert_eq!(buf.seen(), data.len() as u64);
            }
        }
    }
}
