//! The run loop: options, patterns and the matcher, then each input in
//! turn with its diagnostics, count, name and binary message, and the
//! exit status GNU gives.

use std::io::{self, Read, Write};

use samebytes_spec::grep::{
    assemble_patterns, parse_args, pattern_file_error, BinaryFiles, Devices, Directories, GrepEnv,
    GrepOptions, Invocation, ListFiles,
};

use super::matcher::Matcher;
use super::search::{binary_chunk, FileState, Search};
use super::sink::{Sink, Stop};
use super::system::{GrepInput, GrepSystem};
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
    stdout_is_terminal: bool,
) -> i32 {
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
                return 2;
            }
            return outcome.status;
        }
    };
    if let Some(what) = not_built_yet(&opts) {
        let _ = writeln!(stderr, "{program}: {what} is not supported yet");
        return 2;
    }
    if stdout_is_terminal && opts.color_auto {
        let _ = writeln!(
            stderr,
            "{program}: --color=auto on a terminal is not supported"
        );
        return 2;
    }
    for w in &opts.warnings {
        let _ = writeln!(stderr, "{program}: {w}");
    }
    let patterns = assemble_patterns(&opts.sources, |name| {
        let input = if name == b"-" {
            system.open(None)
        } else {
            system.open(Some(name))
        };
        read_all(input)
    });
    let patterns = match patterns {
        Ok(p) => p,
        Err((name, e)) => {
            diagnose(
                stderr,
                &pattern_file_error(program, &name, &crate::sys::error_text(&e)),
            );
            return 2;
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
        return 1;
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
            return 2;
        }
    };
    let eff = opts.effective(system.stdout_is_dev_null());
    let operands = if opts.operands.is_empty() {
        vec![b"-".to_vec()]
    } else {
        opts.operands.clone()
    };
    let with_filename = opts.with_filename.unwrap_or(operands.len() > 1);
    let mut search = Search {
        opts: &opts,
        eff,
        env,
        matcher: &matcher,
        terminator: pcfg.terminator,
        with_filename,
        sink: Sink::new(stdout, cfg.write_size, opts.line_buffered),
        used: false,
        limit: opts.max_count.unwrap_or(u64::MAX),
        name: Vec::new(),
        file: FileState::default(),
        scratch: Vec::new(),
        binary_chunk: binary_chunk(cfg.buffer),
        ahead: None,
    };
    match search_all(&mut search, &operands, system, stderr, cfg) {
        Ok(status) => status,
        Err(Stop::Write(e)) => {
            let _ = writeln!(
                stderr,
                "{program}: write error: {}",
                crate::sys::error_text(&e)
            );
            2
        }
        // search_all reports these itself, naming the input.
        Err(Stop::Match(_)) => 2,
    }
}

/// Options the reference has and the binaries do not yet (issue 15 is
/// building them): they fail loudly rather than do something else.
fn not_built_yet(opts: &GrepOptions) -> Option<&'static str> {
    Some(if opts.dereference {
        "-R"
    } else if opts.directories == Directories::Recurse {
        "-r"
    } else if !opts.filters.is_empty() {
        "--include/--exclude"
    } else if !opts.dir_excludes.is_empty() {
        "--exclude-dir"
    } else if opts.devices == Devices::Skip {
        "-D skip"
    } else if opts.initial_tab {
        "-T"
    } else {
        return None;
    })
}

fn search_all(
    search: &mut Search<'_, '_>,
    operands: &[Vec<u8>],
    system: &mut dyn GrepSystem,
    stderr: &mut dyn Write,
    cfg: &GrepConfig,
) -> Result<i32, Stop> {
    let opts = search.opts;
    let program = search.env.program.as_str();
    let mut matched = false;
    let mut error_seen = false;
    for name in operands {
        let is_stdin = name.as_slice() == b"-";
        let display: Vec<u8> = if is_stdin {
            opts.label
                .clone()
                .unwrap_or_else(|| b"(standard input)".to_vec())
        } else {
            name.clone()
        };
        let diagnose =
            |search: &mut Search, stderr: &mut dyn Write, what: &str| -> Result<(), Stop> {
                if !opts.no_messages {
                    search.sink.flush()?;
                    let _ = writeln!(
                        stderr,
                        "{program}: {}: {what}",
                        String::from_utf8_lossy(&display)
                    );
                }
                Ok(())
            };
        let input = match system.open(if is_stdin { None } else { Some(name) }) {
            Ok(i) => i,
            Err(e) => {
                diagnose(search, stderr, &crate::sys::error_text(&e))?;
                error_seen = true;
                continue;
            }
        };
        // As GNU's `grepdesc`: `-d skip` never skips stdin.
        let skip_dirs = opts.directories == Directories::Skip && !is_stdin;
        if skip_dirs && matches!(input, GrepInput::Directory) {
            continue;
        }
        if !is_stdin
            && !search.eff.out_quiet
            && search.eff.list == ListFiles::None
            && opts.max_count.is_none_or(|m| m > 1)
            && system.is_output_file(name)
        {
            diagnose(search, stderr, "input file is also the output")?;
            error_seen = true;
            continue;
        }
        let (st, read_error) = if opts.max_count == Some(0) {
            // GNU reads until it holds a whole line before it finds it
            // has nothing to do: only a failure before that shows.
            let nul_ends_lines = search.binary_rule_applies();
            let error = first_line_read_error(input, search.terminator, nul_ends_lines);
            (FileState::default(), error)
        } else {
            match search.input(&display, input, cfg) {
                Err(Stop::Match(why)) => {
                    // GNU dies here, with what it printed so far.
                    search.sink.flush()?;
                    let shown = String::from_utf8_lossy(&display);
                    let _ = writeln!(stderr, "{program}: {shown}: {}", why.0);
                    return Ok(2);
                }
                other => other?,
            }
        };
        if is_stdin {
            // `-l -L -q` (and /dev/null output) stop where reading stopped,
            // as GNU 3.8 does, whatever `-m` says.
            let reached = !search.eff.done_on_match
                && opts.max_count.is_some_and(|m| m > 0 && st.selected == m);
            system.stdin_done(reached.then_some(st.after_last_selected));
        }
        let read_failed = read_error.is_some();
        if let Some(e) = read_error {
            diagnose(search, stderr, &crate::sys::error_text(&e))?;
            error_seen = true;
        }
        let selected = st.selected;
        if search.eff.count {
            if search.with_filename {
                search.sink.buf.extend_from_slice(&display);
                search
                    .sink
                    .buf
                    .push(if opts.null_after_name { 0 } else { b':' });
            }
            search
                .sink
                .buf
                .extend_from_slice(format!("{selected}\n").as_bytes());
            search.sink.line_done()?;
        }
        let listed = match search.eff.list {
            ListFiles::Matching => selected > 0,
            ListFiles::NonMatching => selected == 0,
            ListFiles::None => false,
        };
        if listed {
            search.sink.buf.extend_from_slice(&display);
            search
                .sink
                .buf
                .push(if opts.null_after_name { 0 } else { b'\n' });
            search.sink.line_done()?;
        }
        let binary_matched = (st.binary_selected
            || (st.encoding_error && opts.binary_files == BinaryFiles::Binary))
            && !search.eff.out_quiet;
        if binary_matched {
            search.sink.flush()?;
            let _ = writeln!(
                stderr,
                "{program}: {}: binary file matches",
                String::from_utf8_lossy(&display)
            );
        }
        if selected > 0 {
            matched = true;
            if opts.quiet {
                search.sink.flush()?;
                return Ok(0);
            }
        }
        // GNU's `finalize_input` (see the spec): without `-l`/`-L`, and
        // unless `-m` was reached, a stdin that stopped short is drained.
        if is_stdin
            && search.eff.list == ListFiles::None
            && opts.max_count != Some(selected)
            && (read_failed || st.done)
        {
            if let Err(e) = system.drain_stdin() {
                diagnose(search, stderr, &crate::sys::error_text(&e))?;
                error_seen = true;
            }
        }
    }
    search.sink.flush()?;
    Ok(if error_seen {
        2
    } else if matched {
        0
    } else {
        1
    })
}

/// With `-m0`, GNU still reads until it holds one whole line (a line ends
/// at `terminator`, or with `nul_ends_lines` at a NUL too), and only then
/// sees it has nothing to do: the error of a read before that, if any.
fn first_line_read_error(
    input: GrepInput,
    terminator: u8,
    nul_ends_lines: bool,
) -> Option<io::Error> {
    let mut reader: Box<dyn Read> = match input.into_reader() {
        Ok(Some(reader)) => reader,
        Ok(None) => return Some(io::Error::from_raw_os_error(libc::EISDIR)),
        Err(e) => return Some(e),
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match crate::io::read_retrying(&mut *reader, &mut buf) {
            Ok(0) => return None,
            Ok(n) => {
                let got = &buf[..n];
                if memchr::memchr(terminator, got).is_some()
                    || (nul_ends_lines && memchr::memchr(0, got).is_some())
                {
                    return None;
                }
            }
            Err(e) => return Some(e),
        }
    }
}

fn read_all(input: io::Result<GrepInput>) -> io::Result<Vec<u8>> {
    match input?.into_reader()? {
        Some(mut reader) => {
            let mut v = Vec::new();
            reader.read_to_end(&mut v)?;
            Ok(v)
        }
        None => Err(io::Error::from_raw_os_error(libc::EISDIR)),
    }
}
