//! The run: options, patterns, the matcher and the filters, then the walk
//! of the operands (`walk.rs`), its items searched on this thread in turn
//! or on several threads and printed in order (`ordered.rs`), and the
//! exit status GNU gives.

use std::io::Write;

use samebytes_spec::grep::color::Colors;
use samebytes_spec::grep::{
    assemble_patterns, parse_args, pattern_file_error, Directories, GrepEnv, GrepOptions,
    Invocation, ListFiles, PatternConfig, PatternList,
};

use super::file::RunContext;
use super::filters::Filters;
use super::matcher::Matcher;
use super::ordered::{search_ordered, Printer};
use super::paint::Palette;
use super::search::Search;
use super::sink::{Sink, Stop};
use super::system::GrepSystem;
use super::walk::{WalkState, Walker};
use super::GrepConfig;
use crate::io::diagnose;

/// Run grep on a command line.  Returns the exit status.
pub fn run(
    args: &[Vec<u8>],
    env: &GrepEnv,
    system: &mut dyn GrepSystem,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    cfg: &GrepConfig,
) -> i32 {
    match prepare(args, env, system, stdout, stderr) {
        Prepare::Exit(status) => status,
        Prepare::Ready(prepared) => search(&prepared, env, system, stdout, stderr, cfg),
    }
}

/// A command line made ready to search: its options, its patterns and
/// their matcher, its file filters and colours.  One can search any
/// number of times (the exhaustive checker searches every input of an
/// option set with one, as the binary searches every operand with one):
/// what [`prepare`] read (pattern and exclude files) and printed
/// (warnings) belongs to the command line, not to the inputs.
pub struct Prepared {
    opts: GrepOptions,
    patterns: PatternList,
    pcfg: PatternConfig,
    matcher: Matcher,
    filters: Filters,
    colors: Option<Colors>,
}

/// What [`prepare`] made of a command line.
pub enum Prepare {
    /// grep is done before any input, with this status (help, usage and
    /// pattern errors, unreadable pattern files, nothing to select).
    Exit(i32),
    Ready(Box<Prepared>),
}

/// Parse the command line, read the pattern and exclude files, compile
/// the patterns, and print what GNU prints before it reads any input.
pub fn prepare(
    args: &[Vec<u8>],
    env: &GrepEnv,
    system: &dyn GrepSystem,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Prepare {
    let program = env.program.as_str();
    let opts = match parse_args(args, env) {
        Invocation::Run(o) => o,
        Invocation::Exit(outcome) => {
            let _ = stderr.write_all(&outcome.stderr);
            if let Err(e) = stdout.write_all(&outcome.stdout) {
                let _ = writeln!(
                    stderr,
                    "{program}: write error: {}",
                    crate::sys::error_text(&e)
                );
                return Prepare::Exit(2);
            }
            return Prepare::Exit(outcome.status);
        }
    };
    for w in &opts.warnings {
        let _ = writeln!(stderr, "{program}: {w}");
    }
    let patterns = assemble_patterns(&opts.sources, |name| match name {
        b"-" => system.read_stdin_whole(),
        _ => system.files().read_whole(name),
    });
    let patterns = match patterns {
        Ok(p) => p,
        Err((name, e)) => {
            diagnose(
                stderr,
                &pattern_file_error(program, &name, &crate::sys::error_text(&e)),
            );
            return Prepare::Exit(2);
        }
    };
    // Nothing can be selected (`-m0`; only empty `-f` files and no `-v`;
    // `-v` with only empty patterns and neither `-x` nor `-w`): GNU exits
    // before compiling the patterns or reading any input, unless -L has
    // names to print.
    let all_empty = |p: &[Vec<u8>]| p.iter().all(|p| p.is_empty());
    let selects_nothing = match &patterns {
        None => !opts.invert,
        Some(list) => opts.invert && !opts.line && !opts.word && all_empty(&list.patterns),
    };
    if (opts.max_count == Some(0) || selects_nothing)
        && opts.effective(system.stdout_is_dev_null()).list != ListFiles::NonMatching
    {
        return Prepare::Exit(1);
    }
    // After GNU's early exit, before the patterns are compiled.
    let (colors, color_warning) = Colors::of_run(&opts, env);
    if let Some(w) = color_warning {
        let _ = writeln!(stderr, "{program}: {w}");
    }
    let pcfg = opts.pattern_config(env.locale);
    let patterns = patterns.unwrap_or_default();
    let matcher = match Matcher::build(&patterns.patterns, &pcfg) {
        Ok((m, warnings)) => {
            for w in &warnings {
                let _ = writeln!(stderr, "{program}: {w}");
            }
            m
        }
        Err(errors) => {
            for e in &errors {
                diagnose(stderr, &patterns.error_line(program, e));
            }
            return Prepare::Exit(2);
        }
    };
    let filters = Filters::read(&opts, env.locale, |name| match name {
        b"-" => system.read_stdin_whole(),
        _ => system.files().read_whole(name),
    });
    let filters = match filters {
        Ok(f) => f,
        Err((name, e)) => {
            let text = crate::sys::error_text(&e);
            diagnose(stderr, &pattern_file_error(program, &name, &text));
            return Prepare::Exit(2);
        }
    };
    Prepare::Ready(Box::new(Prepared {
        opts,
        patterns,
        pcfg,
        matcher,
        filters,
        colors,
    }))
}

/// Search the operands of a prepared command line (the walk, on this
/// thread or several) and print; the exit status.
pub fn search(
    prepared: &Prepared,
    env: &GrepEnv,
    system: &mut dyn GrepSystem,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    cfg: &GrepConfig,
) -> i32 {
    let program = env.program.as_str();
    let system: &dyn GrepSystem = system;
    let Prepared {
        opts,
        patterns,
        pcfg,
        matcher,
        filters,
        colors,
    } = prepared;
    let eff = opts.effective(system.stdout_is_dev_null());
    let recursive = opts.directories == Directories::Recurse;
    let (operands, omit_dot_slash) = match (opts.operands.is_empty(), recursive) {
        (false, _) => (opts.operands.clone(), false),
        (true, true) => (vec![b".".to_vec()], true),
        (true, false) => (vec![b"-".to_vec()], false),
    };
    let with_filename = std::sync::OnceLock::new();
    match opts.with_filename {
        Some(h) => drop(with_filename.set(h)),
        None if opts.operands.len() > 1 => drop(with_filename.set(true)),
        None if recursive => {}
        None => drop(with_filename.set(false)),
    }
    // Several inputs are searched on a thread each, one is searched with
    // the look-ahead helper (`ahead.rs`) when there are two cores.
    let parallel = cfg.threads > 1 && (recursive || operands.len() > 1);
    let ctx = RunContext {
        opts,
        env,
        eff,
        files: system.files(),
        cfg: GrepConfig {
            threads: if parallel { 1 } else { cfg.threads },
            ..*cfg
        },
        with_filename,
        palette: colors.clone().map(Palette::new),
        line_buffered: opts.line_buffered || env.stdout_is_terminal,
    };
    let files = ctx.files;
    let ctx = &ctx;
    let walker = Walker {
        opts,
        files,
        filters,
        program,
        omit_dot_slash,
        with_filename: &ctx.with_filename,
    };
    let mut printer = Printer::new(stdout, stderr, system, cfg.write_size, ctx.line_buffered);
    // This thread searches too: `threads - 1` more.
    let more = match parallel {
        true => (1..cfg.threads)
            .map(|_| matcher.for_thread(&patterns.patterns, pcfg))
            .collect::<Option<Vec<_>>>(),
        false => None,
    };
    let mut status = None;
    if let Some(matchers) = more {
        let walk = WalkState::new(operands.clone());
        (status, printer) = search_ordered(ctx, matcher, matchers, &walker, walk, printer);
    }
    let status = match status {
        Some(status) => status,
        None => search_in_turn(ctx, matcher, &walker, operands, &mut printer),
    };
    match printer.stdout_failed.take() {
        Some(e) => {
            let text = crate::sys::error_text(&e);
            let _ = writeln!(printer.stderr, "{program}: write error: {text}");
            2
        }
        None => status,
    }
}

/// Every item searched on this thread, in turn; the exit status.
fn search_in_turn(
    ctx: &RunContext,
    matcher: &Matcher,
    walker: &Walker,
    operands: Vec<Vec<u8>>,
    printer: &mut Printer,
) -> i32 {
    let sink = Sink::new(&mut *printer.stdout, ctx.cfg.write_size, ctx.line_buffered);
    let mut search = Search::new(ctx, matcher, sink);
    let (stderr, system) = (&mut *printer.stderr, printer.system);
    let mut walk = WalkState::new(operands);
    let mut items = Vec::new();
    let mut exit = None;
    let mut failed = None;
    while exit.is_none() {
        walker.fill(&mut walk, &mut items, 1);
        if items.is_empty() {
            break;
        }
        for item in items.drain(..) {
            if exit.is_some() {
                break;
            }
            match search.item(item, ctx, stderr, Some(system)) {
                Ok(end) => exit = printer.tally.add(end),
                Err(stop) => {
                    if let Stop::Write(e) = stop {
                        failed = Some(e);
                    }
                    exit = Some(2);
                }
            }
        }
    }
    if let (None, Err(Stop::Write(e))) = (&failed, search.sink.flush()) {
        failed = Some(e);
    }
    printer.stdout_failed = failed;
    exit.unwrap_or_else(|| printer.tally.status())
}
