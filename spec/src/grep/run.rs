//! One run of the reference: compile, then each operand in turn, line by
//! line, into a transcript of stdout with the diagnostics placed in it.

use super::*;
use crate::tree::Tree;
use crate::world::{Node, Reads, StdinLeft, World};
use crate::{Decided, Errno, Outcome, StdoutFailure};
use matcher::{Compiled, Matcher};

/// Does GNU give up before compiling the patterns or reading any input?
/// When no line can be selected, grep exits 1 at once, unless `-L` has
/// names to print: with `-m0`; with no patterns at all (only empty `-f`
/// files) and no `-v`; and with `-v` and only empty patterns (each matches
/// every line) unless `-x` or `-w` narrows them.
fn nothing_can_match(opts: &GrepOptions, patterns: Option<&[Vec<u8>]>, eff: &Effective) -> bool {
    let selects_nothing = match patterns {
        None => !opts.invert,
        Some(p) => opts.invert && !opts.line && !opts.word && p.iter().all(|p| p.is_empty()),
    };
    (opts.max_count == Some(0) || selects_nothing) && eff.list != ListFiles::NonMatching
}

/// Everything a run writes, with each diagnostic placed after the stdout
/// bytes written before it.
pub(super) struct Transcript {
    stdout: Vec<u8>,
    diagnostics: Vec<(usize, Vec<u8>)>,
}

impl Transcript {
    pub(super) fn diagnose(&mut self, text: impl Into<Vec<u8>>) {
        self.diagnostics.push((self.stdout.len(), text.into()));
    }
}

/// State carried from one file to the next.
pub(super) struct Run<'a> {
    pub(super) opts: &'a GrepOptions,
    pub(super) eff: Effective,
    pub(super) env: &'a GrepEnv,
    pub(super) matcher: &'a Matcher,
    pub(super) terminator: u8,
    /// `None` until the first input is opened: `grep -r PATTERN NAME`
    /// prints names only if NAME is a directory.
    pub(super) with_filename: Option<bool>,
    /// `-T`'s number width for the current input.
    pub(super) width: usize,
    /// GNU's `omit_dot_slash`: `-r` with no operand walks `.` and names
    /// what it finds without the leading `./`.
    pub(super) omit_dot_slash: bool,
    pub(super) out: Transcript,
    /// Has any line or separator been printed (for the group separator)?
    pub(super) used: bool,
    /// `--color`'s colours, when output is coloured.
    pub(super) colors: Option<color::Colors>,
}

/// What one file produced.
struct FileResult {
    selected: u64,
    /// Just after the last selected line (its terminator included).
    after_last_selected: usize,
    /// An encoding error kept a line from being printed, or a line was
    /// selected in the binary part.
    binary_matched: bool,
    /// The search needed no more input: `-l -L -q` (or /dev/null, or a
    /// binary part) met a selected line, `-m` was reached and no context
    /// was owed, or `--binary-files=without-match` met binary input.  GNU
    /// reads no further, so a read error after this point is never seen.
    ended_early: bool,
}

impl Run<'_> {
    fn prefix(&mut self, name: &[u8], number: u64, offset: u64, sep: u8, text_len: usize) {
        let name = self.with_filename.unwrap_or(false).then_some(name);
        let (out, opts, width) = (&mut self.out.stdout, self.opts, self.width);
        let colors = self.colors.as_ref();
        write_prefix(
            out, opts, name, number, offset, sep, width, text_len, colors,
        );
    }

    /// Append `text`, in `color` when output is coloured.
    fn paint(&mut self, color: impl Fn(&color::Colors) -> &[u8], text: &[u8]) {
        match &self.colors {
            Some(c) => c.paint(&mut self.out.stdout, color(c), text),
            None => self.out.stdout.extend_from_slice(text),
        }
    }

    /// A line's text after its prefix, coloured as GNU's `prline` does:
    /// in a line that matches (a selected one, or with `-v` a context
    /// one), each match in `ms` (`mc` in a context line), the text before
    /// it started in the line's colour (`sl`, or `cx` for context; `rv`
    /// swaps them with `-v`); then the rest of the line, but for a
    /// trailing carriage return, in the line's colour.
    fn line_text(&mut self, line: &[u8], selected: bool) {
        let Some(c) = self.colors.clone() else {
            self.out.stdout.extend_from_slice(line);
            return;
        };
        let invert = self.opts.invert;
        let out = &mut self.out.stdout;
        let line_color = if selected != (invert && c.rv) {
            &c.sl
        } else {
            &c.cx
        };
        let match_color = if selected { &c.ms } else { &c.mc };
        let mut at = 0;
        if selected != invert && !match_color.is_empty() {
            for (s, e) in self.matcher.matches(line) {
                c.start(out, line_color);
                out.extend_from_slice(&line[at..s]);
                c.paint(out, match_color, &line[s..e]);
                at = e;
            }
        }
        if !line_color.is_empty() {
            let end = match line.last() {
                Some(b'\r') => line.len() - 1,
                _ => line.len(),
            };
            if end > at {
                c.paint(out, line_color, &line[at..end]);
                at = end;
            }
        }
        out.extend_from_slice(&line[at..]);
    }

    /// Print one line (selected: `:`, context: `-`).  Returns false when an
    /// encoding error kept something from being printed.
    fn print_line(
        &mut self,
        name: &[u8],
        line: &[u8],
        number: u64,
        offset: u64,
        selected: bool,
    ) -> bool {
        let (locale, bf) = (self.env.locale, self.opts.binary_files);
        if self.opts.only_matching {
            // `-o` prints the matches of the lines that match: selected
            // ones, or with `-v` context ones (marked `-` then).
            if selected == self.opts.invert {
                return true;
            }
            let sep = if self.opts.invert { b'-' } else { b':' };
            for (s, e) in self.matcher.matches(line) {
                if has_encoding_error(&line[s..e], locale, bf) {
                    return false;
                }
                self.prefix(name, number, offset + s as u64, sep, e - s);
                let selected_line = sep == b':';
                self.paint(|c| if selected_line { &c.ms } else { &c.mc }, &line[s..e]);
                self.out.stdout.push(self.terminator);
            }
            return true;
        }
        if has_encoding_error(line, locale, bf) {
            return false;
        }
        let sep = if selected { b':' } else { b'-' };
        self.prefix(name, number, offset, sep, line.len());
        self.line_text(line, selected);
        self.out.stdout.push(self.terminator);
        true
    }

    /// Print owed after-context lines from `lastout` up to line `limit`.
    fn print_pending(
        &mut self,
        name: &[u8],
        lines: &[(usize, &[u8])],
        p: &mut Printed,
        limit: usize,
    ) {
        if p.pending == 0 {
            return;
        }
        let mut at = p.lastout.unwrap_or(0);
        while p.pending > 0 && at < limit {
            let (o, l) = lines[at];
            if self.print_line(name, l, at as u64 + 1, o as u64, false) {
                at += 1;
            } else {
                p.encoding_error = true;
            }
            p.pending -= 1;
        }
        p.lastout = Some(at);
    }

    /// Print selected line `i` with what comes before it: owed
    /// after-context, the group separator, and its before-context.
    fn print_group(&mut self, name: &[u8], lines: &[(usize, &[u8])], p: &mut Printed, i: usize) {
        self.print_pending(name, lines, p, i);
        let before = self.eff.before.unwrap_or(0);
        let context = self.eff.before.is_some() || self.eff.after.is_some();
        let floor = p.lastout.unwrap_or(0);
        let first = i.saturating_sub(before.min(i as u64) as usize).max(floor);
        if context && self.used && p.lastout != Some(first) {
            if let Some(sep) = self.opts.group_separator.clone() {
                self.paint(|c| &c.se, &sep);
                self.out.stdout.push(b'\n');
            }
        }
        for (j, &(o, l)) in lines.iter().enumerate().take(i + 1).skip(first) {
            let ok = self.print_line(name, l, j as u64 + 1, o as u64, j == i);
            p.encoding_error |= !ok;
            if ok || j == i {
                p.lastout = Some(j + 1);
            }
        }
        p.pending = self.eff.after.unwrap_or(0);
    }

    /// Search one input's bytes, whose binary probe is `probe` bytes long;
    /// `cut` says a read error ended them, or the input paused there.
    fn search(&mut self, name: &[u8], data: &[u8], cut: bool, probe: usize) -> FileResult {
        let t = self.terminator;
        let eff = self.eff;
        let invert = self.opts.invert;
        let binary_at = binary_point_probed(data, t, self.opts.binary_files, probe);
        // GNU searches whole lines only: the line a read error cut short
        // is never searched, nor the line a pause leaves unfinished.
        let data = if cut {
            whole_lines(data, t, binary_at)
        } else {
            data
        };
        let binary_at = binary_at.map(|p| p.min(data.len()));
        let (text, binary) = match binary_at {
            Some(p) if self.opts.binary_files == BinaryFiles::WithoutMatch => (&data[..p], None),
            Some(p) => (&data[..p], Some(&data[p..])),
            None => (data, None),
        };
        let lines = text_lines(text, t);
        let limit = self.opts.max_count.unwrap_or(u64::MAX);
        let mut selected = 0u64;
        // GNU's `lastout`: the line after the last one printed.  A context
        // line kept back by an encoding error does not move it; a selected
        // line kept back does, as if printed.  (GNU 3.8 leaves it where it
        // was, so the after-context it then owes starts at some earlier
        // line: which one depends on GNU's buffer boundaries and on how a
        // pipe's reads arrive.  docs/differences.md, kept-back-match.)
        let mut printed = Printed::default();
        let mut stopped = false;
        let mut after_last_selected = 0;
        let mut last_selected: Option<usize> = None;
        for (i, &(offset, line)) in lines.iter().enumerate() {
            if selected >= limit {
                break;
            }
            let matched = self.matcher.is_match(line);
            if self.matcher.failure().is_some() {
                // GNU dies in the search: nothing owed is printed.
                stopped = true;
                break;
            }
            if matched == invert {
                continue;
            }
            selected += 1;
            after_last_selected = (offset + line.len() + 1).min(text.len());
            // With -v, GNU handles a run of consecutive selected lines as
            // one piece: context and the separator come before its first
            // line only.
            let continues_run = invert && last_selected == Some(i.wrapping_sub(1));
            last_selected = Some(i);
            if continues_run && !eff.out_quiet {
                let ok = self.print_line(name, line, i as u64 + 1, offset as u64, true);
                printed.encoding_error |= !ok;
                printed.lastout = Some(i + 1);
                printed.pending = eff.after.unwrap_or(0);
            } else if !eff.out_quiet {
                self.print_group(name, &lines, &mut printed, i);
            }
            self.used = true;
            if eff.done_on_match || self.matcher.failure().is_some() {
                stopped = true;
                break;
            }
        }
        if !eff.out_quiet && self.matcher.failure().is_none() {
            self.print_pending(name, &lines, &mut printed, lines.len());
        }
        let mut binary_matched =
            printed.encoding_error && self.opts.binary_files == BinaryFiles::Binary;
        let without_match =
            binary_at.is_some() && self.opts.binary_files == BinaryFiles::WithoutMatch;
        let mut ended_early = stopped
            || without_match
            || (selected >= limit && (printed.pending == 0 || binary.is_some()));
        if let (Some(region), false) = (binary, stopped || selected >= limit) {
            // GNU stops owing context when the input turns binary.
            let scan = self.search_binary(region, data.len() - region.len(), limit - selected);
            selected += scan.selected;
            after_last_selected = scan.after_last_selected.unwrap_or(after_last_selected);
            ended_early |= scan.ended_early;
            binary_matched |= scan.selected > 0;
        }
        FileResult {
            selected,
            after_last_selected,
            binary_matched: binary_matched && !eff.out_quiet,
            ended_early,
        }
    }

    /// The lines of the binary part, which starts at offset `start`:
    /// nothing is printed, and the first selected line ends the input
    /// (unless `-c`).  At most `room` lines are selected (`-m`).
    fn search_binary(&mut self, region: &[u8], start: usize, room: u64) -> BinaryScan {
        let mut scan = BinaryScan::default();
        let mut at = start;
        for piece in region_pieces(region, self.terminator) {
            if scan.selected >= room {
                break;
            }
            at += piece.len() + 1;
            let matched = self.matcher.is_match(piece);
            if self.matcher.failure().is_some() {
                break;
            }
            if matched != self.opts.invert {
                scan.selected += 1;
                scan.after_last_selected = Some(at.min(start + region.len()));
                // GNU marks output as used even when it prints nothing.
                self.used = true;
                if !self.eff.count {
                    scan.ended_early = true;
                    break;
                }
            }
        }
        scan.ended_early |= scan.selected >= room;
        scan
    }
}

/// Where printing has got to in one input.
#[derive(Default)]
struct Printed {
    /// GNU's `lastout` (see [`Run::search`]).
    lastout: Option<usize>,
    /// After-context lines still owed; each attempt to print one, kept
    /// back or not, uses one up (GNU's `prpending`).
    pending: u64,
    /// An encoding error kept a line from being printed.
    encoding_error: bool,
}

/// What the binary part of an input added.
#[derive(Default)]
struct BinaryScan {
    selected: u64,
    after_last_selected: Option<usize>,
    ended_early: bool,
}

/// `data` up to the end of its last whole line.  In the binary part
/// (from `binary_at`) a NUL ends a line too.
fn whole_lines(data: &[u8], t: u8, binary_at: Option<usize>) -> &[u8] {
    let ends_line = |(i, &b): (usize, &u8)| b == t || (b == 0 && binary_at.is_some_and(|p| i >= p));
    let whole = data
        .iter()
        .enumerate()
        .rposition(ends_line)
        .map_or(0, |i| i + 1);
    &data[..whole]
}

/// The lines of the text part, as (offset, bytes).  A last line without a
/// terminator is a line too.
fn text_lines(text: &[u8], t: u8) -> Vec<(usize, &[u8])> {
    let mut lines = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let end = text[at..]
            .iter()
            .position(|&b| b == t)
            .map_or(text.len(), |p| at + p);
        lines.push((at, &text[at..end]));
        at = end + 1;
    }
    lines
}

/// The lines of a binary region: NULs end lines too.
fn region_pieces(region: &[u8], terminator: u8) -> Vec<&[u8]> {
    let mut pieces: Vec<&[u8]> = region.split(|&b| b == terminator || b == 0).collect();
    if region.last().is_some_and(|&b| b == terminator || b == 0) {
        pieces.pop();
    }
    pieces
}

/// Run grep on a command line against a world.
pub fn grep(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Outcome {
    grep_leaving_stdin(args, env, world, None, stdout, stdout_failure).0
}

/// [`grep`] at each pause of `world`'s stdin (`World::stdin_pauses`): the
/// run over the bytes that had come, where the next read would wait.
/// Whole lines are searched and printed, the last partial one is not, and
/// a search that needs no more input (`-q`, `-l`, `-L`, `-m` reached,
/// `binary file matches`) has ended: grep then goes on to the other
/// operands and exits, or, where GNU drains stdin, waits there.
pub fn grep_at_pauses(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Vec<Decided> {
    let decided = |at: usize| {
        let paused = world.at_pause(at);
        let mut reads = Reads::new(&paused);
        let ran = grep_with(args, env, &paused, None, &mut reads, stdout, stdout_failure);
        Decided {
            at,
            outcome: ran.outcome,
            exited: !ran.paused,
        }
    };
    world.stdin_pauses().into_iter().map(decided).collect()
}

/// [`grep`], and where it left stdin: untouched (it exits before reading,
/// `-m 0` say), put back after the last selected line by `-m` (a regular
/// file, as an offset in it), or read.  Named files are looked up in
/// `tree` when there is one, as [`grep_in_tree`] does.
pub fn grep_leaving_stdin(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    tree: Option<&Tree>,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> (Outcome, StdinLeft) {
    let mut reads = Reads::new(world);
    let ran = grep_with(args, env, world, tree, &mut reads, stdout, stdout_failure);
    (ran.outcome, reads.stdin_left())
}

/// [`grep`] with named files looked up in `tree` (relative to the working
/// directory, its root) instead of `world`, which still gives stdin.
pub fn grep_in_tree(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    tree: &Tree,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Outcome {
    let mut reads = Reads::new(world);
    let ran = grep_with(
        args,
        env,
        world,
        Some(tree),
        &mut reads,
        stdout,
        stdout_failure,
    );
    ran.outcome
}

/// How a run went: what it wrote (and its status), and whether it stopped
/// at a pause of stdin instead of exiting.
struct Ran {
    outcome: Outcome,
    paused: bool,
}

fn grep_with(
    args: &[Vec<u8>],
    env: &GrepEnv,
    world: &World,
    tree: Option<&Tree>,
    reads: &mut Reads<'_>,
    stdout: &GrepStdout,
    stdout_failure: Option<StdoutFailure>,
) -> Ran {
    let failure = match stdout {
        GrepStdout::Stream | GrepStdout::DevNull => stdout_failure,
        GrepStdout::File(_) => None,
    };
    let program = env.program.as_str();
    let files = walk::Files { world, tree };
    let (opts, matcher, out, colors) = match prepare(args, env, &files, reads, stdout) {
        Ok(ready) => ready,
        Err((out, Some(status))) => return exit(out, status, failure, program, world, false),
        Err((out, None)) => return paused(out, failure, program),
    };
    let recursive = opts.directories == Directories::Recurse;
    let (operands, omit_dot_slash) = match (opts.operands.is_empty(), recursive) {
        (false, _) => (opts.operands.clone(), false),
        (true, true) => (vec![b".".to_vec()], true),
        (true, false) => (vec![b"-".to_vec()], false),
    };
    let with_filename = match opts.with_filename {
        Some(h) => Some(h),
        None if opts.operands.len() > 1 => Some(true),
        None if recursive => None,
        None => Some(false),
    };
    let mut run = Run {
        opts: &opts,
        eff: opts.effective(*stdout == GrepStdout::DevNull),
        env,
        matcher: &matcher,
        terminator: if opts.null_data { 0 } else { b'\n' },
        with_filename,
        width: 0,
        omit_dot_slash,
        out,
        used: false,
        colors,
    };
    let filters = match walk::Filters::read(&opts, env.locale, &files, reads) {
        Ok(f) => f,
        Err((name, e)) => {
            run.out
                .diagnose(pattern_file_error(program, &name, e.message()));
            return exit(run.out, 2, failure, program, world, false);
        }
    };
    if reads.stdin_open() {
        // Blocked reading a list of names to skip from stdin.
        return paused(run.out, failure, program);
    }
    let mut matched = false;
    let mut error_seen = false;
    for name in &operands {
        let end = if name == b"-" {
            run.stdin_operand(world, reads, stdout)
        } else {
            run.command_line_arg(name, &files, &filters, reads, stdout)
        };
        match end {
            OperandEnd::Next { selected, error } => {
                matched |= selected;
                error_seen |= error;
            }
            OperandEnd::Exit(status) => {
                let quiet_match = opts.quiet && status == 0;
                return exit(run.out, status, failure, program, world, quiet_match);
            }
            OperandEnd::Paused => return paused(run.out, failure, program),
        }
    }
    let status = if error_seen {
        2
    } else if matched {
        0
    } else {
        1
    };
    exit(run.out, status, failure, program, world, false)
}

/// What a run starts from: its options, matcher, transcript so far and
/// colours.
type Prepared = (GrepOptions, Matcher, Transcript, Option<color::Colors>);

/// Everything before the first operand: the options, the patterns and
/// their compilation, with the diagnostics they give.  `Err` carries the
/// exit status when grep ends there, or none when it waits at a pause of
/// stdin, reading patterns from it.
fn prepare(
    args: &[Vec<u8>],
    env: &GrepEnv,
    files: &walk::Files<'_>,
    reads: &mut Reads<'_>,
    stdout: &GrepStdout,
) -> Result<Prepared, (Transcript, Option<i32>)> {
    let program = env.program.as_str();
    let mut out = Transcript {
        stdout: Vec::new(),
        diagnostics: Vec::new(),
    };
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(outcome) => {
            out.stdout = outcome.stdout;
            out.diagnose(outcome.stderr);
            return Err((out, Some(outcome.status)));
        }
    };
    for w in &opts.warnings {
        out.diagnose(format!("{program}: {w}\n"));
    }
    let patterns = assemble_patterns(&opts.sources, |name| {
        let (data, error) = if name == b"-" {
            reads.read_stdin()
        } else {
            files.read_file(name, reads)?
        };
        match error {
            Some(e) => Err(e),
            None => Ok(data),
        }
    });
    if reads.stdin_open() {
        return Err((out, None));
    }
    let patterns = match patterns {
        Ok(p) => p,
        Err((name, e)) => {
            // GNU names the file as given, unquoted (`die (..., "%s", optarg)`).
            out.diagnose(pattern_file_error(program, &name, e.message()));
            return Err((out, Some(2)));
        }
    };
    // Before the patterns are compiled: GNU neither warns about them nor
    // rejects them then.
    if nothing_can_match(
        &opts,
        patterns.as_ref().map(|l| &l.patterns[..]),
        &opts.effective(*stdout == GrepStdout::DevNull),
    ) {
        return Err((out, Some(1)));
    }
    let cfg = opts.pattern_config(env.locale);
    let patterns = patterns.unwrap_or_default();
    // After the patterns are read and GNU's early exit, before they are
    // compiled: the warning about GREP_COLOR.
    let (colors, color_warning) = color::Colors::of_run(&opts, env);
    if let Some(w) = color_warning {
        out.diagnose(format!("{program}: {w}\n"));
    }
    match Matcher::compile(&patterns.patterns, &cfg) {
        Compiled::Ready(m, warnings) => {
            for w in &warnings {
                out.diagnose(format!("{program}: {w}\n"));
            }
            Ok((opts, *m, out, colors))
        }
        Compiled::Failed(errors) => {
            for e in &errors {
                out.diagnose(patterns.error_line(program, e));
            }
            Err((out, Some(2)))
        }
    }
}

/// How one operand ended: on to the next (did it select a line, did it
/// have an error), grep exits now with this status, or it waits at a
/// pause of stdin for more.
pub(super) enum OperandEnd {
    Next { selected: bool, error: bool },
    Exit(i32),
    Paused,
}

/// An input grep has opened, ready to search.
pub(super) struct Input {
    /// The name it is reported by.
    pub display: Vec<u8>,
    pub data: Vec<u8>,
    /// The read error that ended `data`, if one did.
    pub read_error: Option<Errno>,
    /// Its size, for `-T`, when it is a regular file.
    pub size: Option<u64>,
    pub is_stdin: bool,
    /// It is the regular file stdout appends to.
    pub is_output: bool,
    /// Its binary probe's length (see [`binary_point_probed`]).
    pub probe: usize,
    /// `data` is what had come by a pause: more may follow.
    pub open: bool,
}

impl Run<'_> {
    /// Report a problem with an input (not with `-s`).
    pub(super) fn file_error(&mut self, display: &[u8], what: &str) {
        if !self.opts.no_messages {
            let program = self.env.program.as_str();
            let name = String::from_utf8_lossy(display);
            self.out.diagnose(format!("{program}: {name}: {what}\n"));
        }
    }

    /// The `-` operand: stdin, never skipped and never walked.
    fn stdin_operand(
        &mut self,
        world: &World,
        reads: &mut Reads<'_>,
        stdout: &GrepStdout,
    ) -> OperandEnd {
        let display = (self.opts.label.clone()).unwrap_or_else(|| b"(standard input)".to_vec());
        if let Err(e) = world.fstat_stdin() {
            // GNU's `fstat` fails first (a closed stdin, or one that cannot
            // be described): the input is skipped, with no count line and
            // no `-L` listing.
            self.file_error(&display, e.message());
            return OperandEnd::Next {
                selected: false,
                error: true,
            };
        }
        let is_dir = matches!(world.stdin.node, Node::Directory);
        self.with_filename.get_or_insert(is_dir);
        let size = match &world.stdin.node {
            Node::Regular(d) => Some(d.len() as u64),
            _ => None,
        };
        let (data, read_error) = reads.read_stdin();
        let probe = world
            .first_stdin_burst()
            .map_or(BINARY_PREFIX, |b| b.min(BINARY_PREFIX));
        let input = Input {
            display,
            data,
            read_error,
            size,
            is_stdin: true,
            is_output: false,
            probe,
            open: reads.stdin_open(),
        };
        self.search_input(input, world, reads, stdout)
    }

    /// One opened input: search it, then its count, listing and messages.
    pub(super) fn search_input(
        &mut self,
        input: Input,
        world: &World,
        reads: &mut Reads<'_>,
        stdout: &GrepStdout,
    ) -> OperandEnd {
        let (opts, eff, program) = (self.opts, self.eff, self.env.program.as_str());
        let Input {
            display,
            data,
            read_error,
            size,
            is_stdin,
            is_output,
            probe,
            open,
        } = input;
        let diag_name = String::from_utf8_lossy(&display).into_owned();
        let mut error = false;
        if !is_stdin
            && !eff.out_quiet
            && eff.list == ListFiles::None
            && opts.max_count.is_none_or(|m| m > 1)
            && is_output
        {
            self.file_error(&display, "input file is also the output");
            return OperandEnd::Next {
                selected: false,
                error: true,
            };
        }
        let _ = stdout;
        self.width = number_width(size, opts.line_number);
        let (selected, binary_matched, ended_early) = if opts.max_count == Some(0) {
            (0, false, self.holds_whole_line(&data))
        } else {
            let r = self.search(&display, &data, read_error.is_some() || open, probe);
            if let Some(why) = self.matcher.failure() {
                // GNU's `die`: the run ends here, with what it printed.
                self.out
                    .diagnose(format!("{program}: {diag_name}: {why}\n"));
                return OperandEnd::Exit(2);
            }
            if is_stdin && !eff.done_on_match && opts.max_count == Some(r.selected) {
                // `-m` was reached: stdin, if a regular file, is left just
                // after the last selected line, for whoever reads it next.
                // Not with `-l -L -q` (or /dev/null output): GNU 3.8 leaves
                // it where its reading stopped.
                reads.reposition_stdin(r.after_last_selected);
            }
            (r.selected, r.binary_matched, r.ended_early)
        };
        if open && !ended_early {
            return OperandEnd::Paused;
        }
        if let (Some(e), false) = (read_error, ended_early) {
            self.file_error(&display, e.message());
            error = true;
        }
        self.summary(&display, selected);
        if binary_matched {
            self.out
                .diagnose(format!("{program}: {diag_name}: binary file matches\n"));
        }
        if selected > 0 && opts.quiet {
            return OperandEnd::Exit(0);
        }
        // GNU's `finalize_input`: without `-l`/`-L`, a stream stdin that
        // was not read to its end is drained (so that its writer is not
        // cut off), unless `-m` was reached.  A non-blocking one fails
        // again there.
        let drained = is_stdin
            && matches!(world.stdin.node, Node::Stream(_))
            && eff.list == ListFiles::None
            && opts.max_count != Some(selected)
            && (read_error.is_some() || ended_early);
        if drained && open {
            // Blocked in the drain until the writer closes stdin.
            return OperandEnd::Paused;
        }
        if drained && world.read_errors.stdin_would_block {
            self.file_error(&display, Errno::WouldBlock.message());
            error = true;
        }
        OperandEnd::Next {
            selected: selected > 0,
            error,
        }
    }

    /// With `-m 0`, GNU reads until it holds a whole line, then finds it
    /// has nothing to do: a read error shows only before that.  A NUL ends
    /// a line too where the binary rule applies.
    fn holds_whole_line(&self, data: &[u8]) -> bool {
        let nul_ends = self.opts.binary_files != BinaryFiles::Text && self.terminator != 0;
        data.iter()
            .any(|&b| b == self.terminator || (nul_ends && b == 0))
    }

    /// The per-file lines of `-c`, `-l` and `-L`.
    fn summary(&mut self, display: &[u8], selected: u64) {
        let null = self.opts.null_after_name;
        if self.eff.count {
            if self.with_filename.unwrap_or(false) {
                self.paint(|c| &c.fname, display);
                match null {
                    true => self.out.stdout.push(0),
                    false => self.paint(|c| &c.se, b":"),
                }
            }
            self.out
                .stdout
                .extend_from_slice(format!("{selected}\n").as_bytes());
        }
        let listed = match self.eff.list {
            ListFiles::Matching => selected > 0,
            ListFiles::NonMatching => selected == 0,
            ListFiles::None => false,
        };
        if listed {
            self.paint(|c| &c.fname, display);
            self.out.stdout.push(if null { 0 } else { b'\n' });
        }
    }
}

/// A run waiting at a pause of stdin: what it has written, unless a write
/// failed on the way, which has ended it.
fn paused(out: Transcript, failure: Option<StdoutFailure>, program: &str) -> Ran {
    let failed = failure.is_some_and(|f| out.stdout.len() > f.limit);
    Ran {
        paused: !failed,
        ..finish(out, 0, failure, program)
    }
}

/// grep exits: [`finish`], then GNU's `close_stdout`, unless a write
/// failed (grep then leaves stdout alone, having reported it) or `-q`
/// matched (`quiet_match`: grep leaves at once, with `_exit`).
fn exit(
    out: Transcript,
    status: i32,
    failure: Option<StdoutFailure>,
    program: &str,
    world: &World,
    quiet_match: bool,
) -> Ran {
    let write_failed = failure.is_some_and(|f| out.stdout.len() > f.limit);
    let mut ran = finish(out, status, failure, program);
    if !(write_failed || quiet_match) {
        ran.outcome.close_at_exit(program, world, 2);
    }
    ran
}

/// Apply a stdout failure: the first write that fails ends grep, so the
/// diagnostics written after it never appear.
fn finish(out: Transcript, status: i32, failure: Option<StdoutFailure>, program: &str) -> Ran {
    let mut outcome = Outcome {
        stdout: out.stdout,
        status,
        ..Outcome::default()
    };
    let failed = failure.filter(|f| outcome.stdout.len() > f.limit);
    for (at, text) in out.diagnostics {
        if failed.is_some_and(|f| at > f.limit) {
            break;
        }
        outcome.diagnose_between(&text, at, at);
    }
    if outcome.clip_stdout(failed) {
        let what = failed.map(|f| f.errno.message()).unwrap_or_default();
        outcome.diagnose(format!("{program}: write error: {what}\n").as_bytes());
        outcome.status = 2;
    }
    Ran {
        outcome,
        paused: false,
    }
}
