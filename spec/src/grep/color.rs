//! `--color`: when it applies, the colours GNU grep 3.8 takes from
//! `GREP_COLORS` (and the old `GREP_COLOR`), and the escape sequences it
//! wraps coloured text in.
//!
//! - `--color=always` colours; `auto` (or `--color` alone) colours when
//!   stdout is a terminal and `TERM` is set and not `dumb`; `never` not.
//! - Defaults: `ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36`.
//! - `GREP_COLOR`, if not empty and only digits and `;`, sets `ms` and
//!   `mc` first.  If either still holds it after `GREP_COLORS`, grep
//!   warns `GREP_COLOR='V' is deprecated; use GREP_COLORS='mt=V'`.
//! - `GREP_COLORS` is a `:`-separated list of `NAME=VALUE` or `NAME`.  A
//!   value holds only digits and `;`, and may be empty.  `mt` sets `ms`
//!   and then copies `ms` into `mc` (`mt` with no value just copies).
//!   `rv` and `ne` take no value.  Unknown names are skipped.  A name
//!   that starts with `=`, a second `=`, or any other byte in a value
//!   ends the parsing there, keeping the entries before it.
//! - A coloured piece is `ESC [ VALUE m ESC [ K`, the text, then
//!   `ESC [ m ESC [ K` (without the `ESC [ K`s under `ne`).  A colour
//!   whose value is empty adds nothing.

use super::*;

/// The colours of one run, by `GREP_COLORS` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colors {
    /// `ms`, `mc`: matches in selected and in context lines.
    pub ms: Vec<u8>,
    pub mc: Vec<u8>,
    /// `sl`, `cx`: the rest of selected and of context lines.
    pub sl: Vec<u8>,
    pub cx: Vec<u8>,
    /// `fn`, `ln`, `bn`, `se`: names, line numbers, byte offsets and
    /// separators.
    pub fname: Vec<u8>,
    pub ln: Vec<u8>,
    pub bn: Vec<u8>,
    pub se: Vec<u8>,
    /// `rv`: with `-v`, `sl` and `cx` swap.
    pub rv: bool,
    /// `ne`: no erase-to-end-of-line after each sequence.
    pub ne: bool,
}

impl Default for Colors {
    fn default() -> Colors {
        let v = |s: &str| s.as_bytes().to_vec();
        Colors {
            ms: v("01;31"),
            mc: v("01;31"),
            sl: Vec::new(),
            cx: Vec::new(),
            fname: v("35"),
            ln: v("32"),
            bn: v("32"),
            se: v("36"),
            rv: false,
            ne: false,
        }
    }
}

/// Is this a colour value GNU accepts (digits and `;`)?
fn is_value(v: &[u8]) -> bool {
    v.iter().all(|&b| b == b';' || b.is_ascii_digit())
}

impl Colors {
    /// The colours of a run, or `None` when it is not coloured; and the
    /// warning about `GREP_COLOR`, if one is due.
    pub fn of_run(opts: &GrepOptions, env: &GrepEnv) -> (Option<Colors>, Option<String>) {
        let on = match opts.color {
            ColorWhen::Never => false,
            ColorWhen::Always => true,
            ColorWhen::Auto => {
                env.stdout_is_terminal && env.term.as_deref().is_some_and(|t| t != b"dumb")
            }
        };
        if !on {
            return (None, None);
        }
        let mut colors = Colors::default();
        // Which of ms and mc still hold GREP_COLOR's value.
        let mut from_old = [false, false];
        let old = env
            .grep_color
            .as_deref()
            .filter(|v| !v.is_empty() && is_value(v));
        if let Some(v) = old {
            colors.ms = v.to_vec();
            colors.mc = v.to_vec();
            from_old = [true, true];
        }
        if let Some(list) = env.grep_colors.as_deref() {
            colors.apply(list, &mut from_old);
        }
        let warning = match (old, from_old) {
            (Some(v), [true, _] | [_, true]) => {
                let v = String::from_utf8_lossy(v);
                Some(format!(
                    "warning: GREP_COLOR='{v}' is deprecated; use GREP_COLORS='mt={v}'"
                ))
            }
            _ => None,
        };
        (Some(colors), warning)
    }

    /// Apply a `GREP_COLORS` list, as far as it is well formed.
    fn apply(&mut self, list: &[u8], from_old: &mut [bool; 2]) {
        for entry in list.split(|&b| b == b':') {
            let (name, value) = match entry.iter().position(|&b| b == b'=') {
                Some(0) => return,
                Some(eq) => (&entry[..eq], Some(&entry[eq + 1..])),
                None => (entry, None),
            };
            if let Some(v) = value {
                if !is_value(v) {
                    // A second `=` is not a digit either.
                    return;
                }
            }
            self.set(name, value, from_old);
        }
    }

    fn set(&mut self, name: &[u8], value: Option<&[u8]>, from_old: &mut [bool; 2]) {
        let slot = match name {
            b"mt" | b"ms" => Some(&mut self.ms),
            b"mc" => Some(&mut self.mc),
            b"sl" => Some(&mut self.sl),
            b"cx" => Some(&mut self.cx),
            b"fn" => Some(&mut self.fname),
            b"ln" => Some(&mut self.ln),
            b"bn" => Some(&mut self.bn),
            b"se" => Some(&mut self.se),
            b"rv" => {
                self.rv = true;
                None
            }
            b"ne" => {
                self.ne = true;
                None
            }
            _ => None,
        };
        if let (Some(slot), Some(v)) = (slot, value) {
            *slot = v.to_vec();
            match name {
                b"mt" | b"ms" => from_old[0] = false,
                b"mc" => from_old[1] = false,
                _ => {}
            }
        }
        if name == b"mt" {
            self.mc = self.ms.clone();
            from_old[1] = from_old[0];
        }
    }

    /// Append `text` in colour `color`.
    pub fn paint(&self, out: &mut Vec<u8>, color: &[u8], text: &[u8]) {
        self.start(out, color);
        out.extend_from_slice(text);
        self.end(out, color);
    }

    /// The sequence that starts colour `color` (none for an empty one).
    pub fn start(&self, out: &mut Vec<u8>, color: &[u8]) {
        if !color.is_empty() {
            out.extend_from_slice(b"\x1b[");
            out.extend_from_slice(color);
            out.push(b'm');
            if !self.ne {
                out.extend_from_slice(b"\x1b[K");
            }
        }
    }

    /// The sequence that ends colour `color` (none for an empty one).
    pub fn end(&self, out: &mut Vec<u8>, color: &[u8]) {
        if !color.is_empty() {
            out.extend_from_slice(b"\x1b[m");
            if !self.ne {
                out.extend_from_slice(b"\x1b[K");
            }
        }
    }
}
