//! `samebytes-oracle`: run a differential campaign, or replay a reproducer.
//!
//!     samebytes-oracle [campaign] [--binaries [--strict | --memcheck SUPPRESSIONS]] [--tool T]... [--seconds N]
//!                      [--jobs N] [--seed S] [--report FILE.json|FILE.md]
//!     samebytes-oracle replay 'wc:<hex>'
//!     samebytes-oracle dict grep
//!     samebytes-oracle replay 'binary:wc:<seed>' [--world DIR]
//!     samebytes-oracle exhaustive wc|cat|yes|grep|grep-outputs|grep-tokens1|grep-tokens2|grep-tokens3 --max-len N [--shifted M] [--jobs N] [--seconds S]
//!     samebytes-oracle exhaustive wc|cat|yes|grep --classes

use std::process::ExitCode;
use std::time::Duration;

use samebytes_oracle::binary::Tool;
use samebytes_oracle::campaign::{self, report::Format, Ending, Progress, Settings};

const USAGE: &str = "usage: samebytes-oracle [campaign] [--binaries [--strict | --memcheck SUPPRESSIONS]] [--tool wc|cat|grep|yes]... [--seconds N] [--jobs N] [--seed S] [--report FILE.json|FILE.md]\n       samebytes-oracle replay REPRODUCER|@FILE [--world DIR]   (wc:, cat:, yes:, grep:, grep-tree:, binary:, live:)\n       samebytes-oracle exhaustive wc|cat|yes|grep|grep-outputs|grep-tokens1|grep-tokens2|grep-tokens3 --max-len N [--shifted M] [--jobs N] [--seconds S] | --classes\n       samebytes-oracle dict FUZZ-TARGET   (its libFuzzer dictionary)\n       samebytes-oracle spec grep ARG... < INPUT   (the reference on stdin; LC_ALL=C.UTF-8 for UTF-8)\n";

/// The binaries next to this program, built (by cargo, in this program's
/// profile) if they are missing or stale.
fn binaries() -> Result<samebytes_oracle::binary::Binaries, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("no folder")?;
    let profile = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("release");
    let target = dir.parent().ok_or("no target folder")?;
    samebytes_oracle::binary::Binaries::build(target, profile)
}

/// `--world DIR`: make the case's files in DIR (stdin as `.stdin`) and
/// say how to run a binary there under the same plan.
fn write_world(case: &samebytes_oracle::binary::BinaryCase, dir: &str) -> Result<(), String> {
    use samebytes_oracle::binary::run;
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let made = run::materialize(case, dir);
    let plan = samebytes_oracle::faultplan::Plan {
        input_eio: made.eio,
        open_failures: made.open_failures,
        stat_failures: made.stat_failures,
        ..run::plan_of(case)
    };
    println!(
        "world written to {}; run a binary there under the case's plan (stdout failure not included) with\n  {}='{}' LD_PRELOAD=<layer> ...",
        dir.display(),
        samebytes_oracle::faultplan::ENV,
        plan.render()
    );
    Ok(())
}

fn replay_binary(spec: &str, world: Option<&str>) -> ExitCode {
    let parsed = spec.split_once(':').and_then(|(tool, seed)| {
        Some((
            samebytes_oracle::binary::Tool::from_name(tool)?,
            seed.parse::<u64>().ok()?,
        ))
    });
    let Some((tool, seed)) = parsed else {
        eprintln!("samebytes-oracle: not a binary reproducer: binary:{spec}");
        return ExitCode::from(2);
    };
    let Some(bins) = binaries_or_say() else {
        return ExitCode::from(2);
    };
    let case = samebytes_oracle::binary::generate(tool, seed);
    println!("{case}");
    if let Some(dir) = world {
        if let Err(e) = write_world(&case, dir) {
            eprintln!("samebytes-oracle: {e}");
            return ExitCode::from(2);
        }
    }
    match samebytes_oracle::binary::check(&case, &bins).1 {
        Ok(()) => {
            println!("replayed: spec and binary agree");
            ExitCode::SUCCESS
        }
        Err(m) => {
            println!("{m}");
            ExitCode::from(1)
        }
    }
}

/// The built binaries, or `None` having said why not.
fn binaries_or_say() -> Option<samebytes_oracle::binary::Binaries> {
    binaries()
        .map_err(|e| eprintln!("samebytes-oracle: {e}"))
        .ok()
}

/// `replay live:TOOL:SEED:INDEX`: a live case of the binary campaign.
fn replay_live(spec: &str) -> ExitCode {
    let mut parts = spec.split(':');
    let tool = parts
        .next()
        .and_then(samebytes_oracle::binary::Tool::from_name);
    let seed = parts.next().and_then(|s| s.parse::<u64>().ok());
    let index = parts.next().and_then(|s| s.parse::<u64>().ok());
    let (Some(tool), Some(seed), Some(index), None) = (tool, seed, index, parts.next()) else {
        eprintln!("samebytes-oracle: not a live reproducer: live:{spec}");
        return ExitCode::from(2);
    };
    let Some(bins) = binaries_or_say() else {
        return ExitCode::from(2);
    };
    use samebytes_oracle::binary::live_check::campaign_case;
    match campaign_case(&bins, tool, seed, index) {
        Ok(Some(n)) => {
            println!("replayed: spec and binary agree at {n} pauses and at the end");
            ExitCode::SUCCESS
        }
        Ok(None) => {
            println!("no case that can run live was drawn for this seed and index");
            ExitCode::SUCCESS
        }
        Err(m) => {
            println!("{m}");
            ExitCode::from(1)
        }
    }
}

/// `--report FILE`: the final report as JSON or Markdown.
fn write_report(path: Option<&str>, summary: &samebytes_oracle::campaign::report::Summary) -> bool {
    use samebytes_oracle::campaign::report::Format;
    let Some(path) = path else {
        return true;
    };
    let format = Format::of_path(path).unwrap_or(Format::Markdown);
    match std::fs::write(path, summary.render(format)) {
        Ok(()) => {
            eprintln!("report written to {path}");
            true
        }
        Err(e) => {
            eprintln!("samebytes-oracle: {path}: {e}");
            false
        }
    }
}

/// The binary campaign; under memcheck (`--memcheck SUPPRESSIONS`) only
/// its mismatches fail it: a run under valgrind is too slow to take every
/// path in its time.
fn binary_campaign(
    settings: &Settings,
    strict: bool,
    memcheck: Option<std::path::PathBuf>,
    report_path: Option<&str>,
) -> ExitCode {
    use samebytes_oracle::binary::report;
    let mut bins = match binaries() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("samebytes-oracle: {e}");
            return ExitCode::from(2);
        }
    };
    let under_memcheck = memcheck.is_some();
    if let Some(suppressions) = memcheck {
        match samebytes_oracle::binary::run::Memcheck::new(&bins.dir, suppressions) {
            Ok(m) => bins.memcheck = Some(m),
            Err(e) => {
                eprintln!("samebytes-oracle: memcheck: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let done = report::campaign(&bins, settings, &Progress::on_stderr());
    print!("{}", report::render(&done, settings));
    let written = write_report(report_path, &report::summary(&done, settings));
    let reports = || done.tallies.iter().map(|(_, r)| r);
    let unreached = !under_memcheck
        && reports()
            .any(|r| !r.paths_not_taken().is_empty() || (strict && !r.unreached().is_empty()));
    if reports().any(|r| !r.mismatches.is_empty()) || unreached {
        ExitCode::from(1)
    } else if done.ending == Ending::Interrupted {
        // As a shell reports a process ended by SIGINT.
        ExitCode::from(130)
    } else if !written {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// `exhaustive TOOL --max-len N [--shifted M] [--jobs N] [--seconds S]`:
/// every input up to N bytes, and those up to M also shifted; exits 1 on
/// a counterexample, 3 when the time ran out first.
fn exhaustive(args: &[String]) -> ExitCode {
    use samebytes_oracle::exhaustive;
    let Some(checker) = args.first().and_then(|t| exhaustive::checker(t)) else {
        return usage_error();
    };
    if args.get(1).map(String::as_str) == Some("--classes") {
        print!("{}", exhaustive::class_table(checker));
        return ExitCode::SUCCESS;
    }
    let (mut max_len, mut jobs, mut seconds) = (None, campaign::default_jobs(), None);
    let mut shifted = None;
    let mut it = args[1..].iter();
    while let Some(flag) = it.next() {
        let Some(v) = it.next().and_then(|v| v.parse::<u64>().ok()) else {
            return usage_error();
        };
        match flag.as_str() {
            "--max-len" => max_len = Some(v as usize),
            "--shifted" => shifted = Some(v as usize),
            "--jobs" if v > 0 => jobs = v as usize,
            "--seconds" => seconds = Some(Duration::from_secs(v)),
            _ => return usage_error(),
        }
    }
    let Some(max_len) = max_len else {
        return usage_error();
    };
    if shifted.is_some() && !checker.has_shifted_mode() {
        eprintln!(
            "samebytes-oracle: {} has no shifted mode (the grep grid's covers the searcher)",
            checker.tool()
        );
        return ExitCode::from(2);
    }
    let deadline = seconds.map(|s| std::time::Instant::now() + s);
    let report = exhaustive::run(checker, max_len, shifted, jobs, deadline);
    println!("{}", report.summary());
    if report.counterexample.is_some() {
        ExitCode::from(1)
    } else if report.timed_out {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

fn usage_error() -> ExitCode {
    eprint!("{USAGE}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    // `spec` takes any bytes as arguments, so it comes before the rest,
    // which are text.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if raw.first().is_some_and(|a| a == "spec") {
        return spec_run(&raw[1..]);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("exhaustive") {
        return exhaustive(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("dict") {
        return match args
            .get(1)
            .and_then(|t| samebytes_oracle::dict::dictionary(t))
        {
            Some(dict) => {
                print!("{dict}");
                ExitCode::SUCCESS
            }
            None => usage_error(),
        };
    }
    if args.first().map(String::as_str) == Some("replay") {
        let Some(repro) = args.get(1) else {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        };
        // `@FILE`: a reproducer too long for a command line, in a file.
        let from_file = repro.strip_prefix('@').map(std::fs::read_to_string);
        let repro = match from_file {
            Some(Ok(text)) => text.trim().to_string(),
            Some(Err(e)) => {
                eprintln!("samebytes-oracle: {}: {e}", &repro[1..]);
                return ExitCode::from(2);
            }
            None => repro.clone(),
        };
        let repro = &repro;
        if let Some(spec) = repro
            .rsplit(' ')
            .next()
            .and_then(|r| r.strip_prefix("live:"))
        {
            return replay_live(spec);
        }
        if let Some(spec) = repro
            .rsplit(' ')
            .next()
            .and_then(|r| r.strip_prefix("binary:"))
        {
            let world = match (args.get(2).map(String::as_str), args.get(3)) {
                (Some("--world"), Some(dir)) => Some(dir.as_str()),
                (None, _) => None,
                _ => {
                    eprint!("{USAGE}");
                    return ExitCode::from(2);
                }
            };
            return replay_binary(spec, world);
        }
        return match samebytes_oracle::replay(repro) {
            Ok(Ok(())) => {
                println!("replayed: spec and implementation agree");
                ExitCode::SUCCESS
            }
            Ok(Err(m)) => {
                println!("{m}");
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("samebytes-oracle: {e}");
                ExitCode::from(2)
            }
        };
    }
    let mut settings = Settings {
        tools: Vec::new(),
        seconds: Duration::from_secs(60),
        jobs: samebytes_oracle::campaign::default_jobs(),
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
    };
    let mut on_binaries = false;
    let mut strict = false;
    let mut memcheck = None;
    let mut report_path = None;
    let usage = || {
        eprint!("{USAGE}");
        ExitCode::from(2)
    };
    let mut it = args.iter().skip_while(|a| *a == "campaign");
    while let Some(a) = it.next() {
        match a.as_str() {
            "--binaries" => on_binaries = true,
            "--strict" => strict = true,
            "--memcheck" => match it.next() {
                // Absolute: each run starts in its own scratch folder.
                Some(path) => match std::fs::canonicalize(path) {
                    Ok(path) => memcheck = Some(path),
                    Err(e) => {
                        eprintln!("samebytes-oracle: --memcheck {path}: {e}");
                        return ExitCode::from(2);
                    }
                },
                None => return usage(),
            },
            "--tool" => match it.next().and_then(|t| Tool::from_name(t)) {
                Some(t) => settings.tools.push(t),
                None => return usage(),
            },
            "--report" => match it.next() {
                Some(path) if Format::of_path(path).is_some() => report_path = Some(path.clone()),
                Some(path) => {
                    eprintln!(
                        "samebytes-oracle: --report {path}: the name must end in .json or .md"
                    );
                    return ExitCode::from(2);
                }
                None => return usage(),
            },
            flag @ ("--seconds" | "--seed" | "--jobs") => {
                let Some(v) = it.next().and_then(|v| v.parse::<u64>().ok()) else {
                    return usage();
                };
                match flag {
                    "--seconds" => settings.seconds = Duration::from_secs(v),
                    "--seed" => settings.seed = v,
                    _ if v == 0 => return usage(),
                    _ => settings.jobs = usize::try_from(v).unwrap_or(usize::MAX),
                }
            }
            _ => return usage(),
        }
    }
    if settings.tools.is_empty() {
        settings.tools = Tool::ALL.to_vec();
    }
    if on_binaries {
        return binary_campaign(&settings, strict, memcheck, report_path.as_deref());
    }
    let done = campaign::run(&settings, &Progress::on_stderr());
    print!("{}", campaign::render(&done, &settings));
    let written = write_report(report_path.as_deref(), &campaign::summary(&done, &settings));
    if done.tallies.iter().any(|(_, r)| !r.mismatches.is_empty()) {
        ExitCode::from(1)
    } else if done.ending == Ending::Interrupted {
        // As a shell reports a process ended by SIGINT.
        ExitCode::from(130)
    } else if !written {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// `spec grep ARG...`: the reference grep on this process's stdin, read
/// whole as a regular file, with the locale's character set from LC_ALL
/// (or LC_CTYPE, LANG): for triage beside GNU, `printf ... | grep ...`.
fn spec_run(args: &[std::ffi::OsString]) -> ExitCode {
    use std::io::{Read, Write};
    use std::os::unix::ffi::OsStrExt;
    let Some((tool, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    if tool != "grep" {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    }
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("samebytes-oracle: stdin: {e}");
        return ExitCode::from(2);
    }
    let locale_name = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_default();
    let utf8 = locale_name
        .to_ascii_lowercase()
        .replace('-', "")
        .contains("utf8");
    let locale = if utf8 {
        samebytes_spec::Locale::Utf8
    } else {
        samebytes_spec::Locale::C
    };
    let world = samebytes_spec::world::World {
        stdin: samebytes_spec::world::Stdin {
            node: samebytes_spec::world::Node::Regular(input),
            offset: 0,
        },
        ..Default::default()
    };
    let argv: Vec<Vec<u8>> = rest.iter().map(|a| a.as_bytes().to_vec()).collect();
    let outcome = samebytes_spec::grep::grep(
        &argv,
        &samebytes_spec::grep::GrepEnv::new(locale),
        &world,
        &samebytes_spec::grep::GrepStdout::Stream,
        None,
    );
    let _ = std::io::stdout().write_all(&outcome.stdout);
    let _ = std::io::stderr().write_all(&outcome.stderr);
    ExitCode::from(outcome.status as u8)
}
