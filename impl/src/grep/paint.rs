//! Colour output (`--color`), as GNU grep 3.8's `pr_sgr_start` and
//! `pr_sgr_end` write it: a piece in colour `V` is `ESC[Vm ESC[K`, the
//! piece, `ESC[m ESC[K` (no `ESC[K` under `ne`); an empty colour writes
//! the piece alone.  The colours themselves come from the reference's
//! reading of `GREP_COLORS` (configuration, not rendering).

use samebytes_spec::grep::color::Colors;

/// The escape sequences of one run, made once.
pub(super) struct Palette {
    pub(super) colors: Colors,
    /// `ESC[` and `m ESC[K` (or `m`): around a colour's value.
    open: &'static [u8],
    close: &'static [u8],
    /// `ESC[m ESC[K` (or `ESC[m`).
    reset: &'static [u8],
}

/// Which colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ink {
    SelectedMatch,
    ContextMatch,
    SelectedLine,
    ContextLine,
    FileName,
    LineNumber,
    ByteOffset,
    Separator,
}

impl Palette {
    pub(super) fn new(colors: Colors) -> Palette {
        let (close, reset): (&[u8], &[u8]) = match colors.ne {
            true => (b"m", b"\x1b[m"),
            false => (b"m\x1b[K", b"\x1b[m\x1b[K"),
        };
        Palette {
            colors,
            open: b"\x1b[",
            close,
            reset,
        }
    }

    fn value(&self, ink: Ink) -> &[u8] {
        let c = &self.colors;
        match ink {
            Ink::SelectedMatch => &c.ms,
            Ink::ContextMatch => &c.mc,
            Ink::SelectedLine => &c.sl,
            Ink::ContextLine => &c.cx,
            Ink::FileName => &c.fname,
            Ink::LineNumber => &c.ln,
            Ink::ByteOffset => &c.bn,
            Ink::Separator => &c.se,
        }
    }

    /// Does this colour write anything?
    pub(super) fn inks(&self, ink: Ink) -> bool {
        !self.value(ink).is_empty()
    }

    pub(super) fn start(&self, out: &mut Vec<u8>, ink: Ink) {
        let v = self.value(ink);
        if !v.is_empty() {
            out.extend_from_slice(self.open);
            out.extend_from_slice(v);
            out.extend_from_slice(self.close);
        }
    }

    pub(super) fn end(&self, out: &mut Vec<u8>, ink: Ink) {
        if self.inks(ink) {
            out.extend_from_slice(self.reset);
        }
    }

    /// The colour of the text of a line that is `selected` (or context),
    /// in a run with or without `-v`: `rv` swaps them under `-v`.
    pub(super) fn line_ink(&self, selected: bool, invert: bool) -> Ink {
        match selected != (invert && self.colors.rv) {
            true => Ink::SelectedLine,
            false => Ink::ContextLine,
        }
    }
}

/// Append `bytes` in `ink`, or plain without a palette.
pub(super) fn painted(out: &mut Vec<u8>, palette: Option<&Palette>, ink: Ink, bytes: &[u8]) {
    match palette {
        Some(p) => {
            p.start(out, ink);
            out.extend_from_slice(bytes);
            p.end(out, ink);
        }
        None => out.extend_from_slice(bytes),
    }
}
