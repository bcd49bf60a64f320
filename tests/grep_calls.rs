//! grep's calls on its descriptors, as strace prints them: a pipe on stdin
//! or stdout is grown (F_SETPIPE_SZ) so the other side runs ahead, and
//! nothing else is.  The counts are checked against GNU's grep; this
//! proves the shape of the calls, which no output comparison can see (and
//! never times anything).

mod common;

use std::path::Path;
use std::process::Command;

use common::{binary, mixed_text, Scratch};

/// Runs `grep -c word` on `input` under strace, stdin a pipe fed by `cat` or
/// the file itself, stdout a pipe or a file; returns the count printed and
/// the descriptors F_SETPIPE_SZ was asked of, in order.
fn count_and_grown(
    grep: &Path,
    input: &Path,
    stdin_pipe: bool,
    stdout_pipe: bool,
) -> (String, Vec<String>) {
    let scratch = Scratch::new("grep-calls");
    let trace = scratch.path.join("trace");
    let output = scratch.path.join("out");
    let feed = if stdin_pipe { "cat \"$2\" |" } else { "" };
    let from = if stdin_pipe { "" } else { "<\"$2\"" };
    let to = if stdout_pipe { "" } else { ">\"$4\"" };
    let out = Command::new("sh")
        .args([
            "-c",
            &format!("{feed} strace -o \"$3\" -e trace=fcntl \"$1\" -c word {from} {to}"),
            "sh",
        ])
        .arg(grep)
        .arg(input)
        .arg(&trace)
        .arg(&output)
        .env("LC_ALL", "C")
        .output()
        .expect("run sh");
    assert!(
        out.status.success(),
        "grep -c word ran: {:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = if stdout_pipe {
        out.stdout
    } else {
        std::fs::read(&output).expect("output file")
    };
    let trace = std::fs::read_to_string(&trace).expect("strace is installed (.ci/setup)");
    let grown = trace
        .lines()
        .filter(|l| l.contains("F_SETPIPE_SZ"))
        .map(|l| l[l.find('(').expect("call") + 1..l.find(',').expect("fd")].to_string())
        .collect();
    (String::from_utf8_lossy(&printed).into_owned(), grown)
}

#[test]
fn pipes_are_grown_and_regular_files_are_not() {
    let scratch = Scratch::new("grep-calls-input");
    let input = scratch.file("in", &mixed_text(300_000, 5));
    let ours = binary("grep");
    for stdin_pipe in [true, false] {
        for stdout_pipe in [true, false] {
            let case = format!("stdin pipe: {stdin_pipe}, stdout pipe: {stdout_pipe}");
            let (count, grown) = count_and_grown(&ours, &input, stdin_pipe, stdout_pipe);
            let (gnu_count, _) =
                count_and_grown(Path::new("/usr/bin/grep"), &input, stdin_pipe, stdout_pipe);
            assert_eq!(count, gnu_count, "{case}");
            assert!(!count.trim().is_empty(), "{case}: a count was printed");
            // stdout is looked at first, when grep starts; stdin when it
            // is opened.
            let expected: Vec<&str> = [(stdout_pipe, "1"), (stdin_pipe, "0")]
                .iter()
                .filter_map(|&(pipe, fd)| pipe.then_some(fd))
                .collect();
            assert_eq!(grown, expected, "{case}: F_SETPIPE_SZ asked of");
        }
    }
}

/// A regular file is searched through mappings, windows that grow for a
/// line longer than one: read(2) takes none of its bytes when every line
/// ends (reading takes over only for a last line without its newline, or
/// after a window fails).  Which path ran is invisible in the output, so
/// only the calls show a mapped search that quietly fell back to reading.
/// The count and the lines are GNU's.
#[test]
fn regular_files_are_mapped_not_read() {
    let scratch = Scratch::new("grep-calls-mapped");
    // Every line ends.
    let ended = |mut text: Vec<u8>| {
        text.push(b'\n');
        text
    };
    let short = scratch.file("short", &ended(mixed_text(1 << 20, 9)));
    // One line longer than the 8 MiB window, between short ones.
    let mut long_line = ended(mixed_text(200_000, 3));
    long_line.extend(std::iter::repeat_n(b'x', 9 << 20));
    long_line.extend_from_slice(b" word\n");
    long_line.extend(ended(mixed_text(200_000, 4)));
    let long = scratch.file("long", &long_line);
    // Counted, and printed into a pipe: only a terminal or
    // `--line-buffered` (a write per line) reads a file instead.
    let searches: [&[&str]; 2] = [&["-c", "word"], &["word"]];
    for (input, args) in [&short, &long]
        .into_iter()
        .flat_map(|i| searches.map(|a| (i, a)))
    {
        let (count, trace) = traced(&binary("grep"), "read,mmap", args, input);
        let (gnu_count, _) = traced(Path::new("/usr/bin/grep"), "read", args, input);
        assert_eq!(count, gnu_count, "{} {args:?}", input.display());
        let name = input.file_name().and_then(|n| n.to_str()).expect("name");
        let of_input = |l: &&str| l.contains(&format!("/{name}>"));
        let read: u64 = trace
            .lines()
            .filter(|l| l.starts_with("read(") && of_input(l))
            .filter_map(|l| l.rsplit("= ").next()?.trim().parse::<u64>().ok())
            .sum();
        let maps = trace
            .lines()
            .filter(|l| l.starts_with("mmap(") && of_input(l))
            .count();
        assert!(maps >= 1, "{name}: the file was never mapped:\n{trace}");
        assert_eq!(read, 0, "{name}: bytes read instead of mapped");
    }
}

/// `--line-buffered` writes each line as it is found, as GNU does, on a
/// file large enough to be mapped too: a mapped search holds output
/// until a window is checked, so such a file is read instead.  Counted in
/// write(2) calls on stdout, against GNU's.
#[test]
fn line_buffered_output_of_a_mapped_size_file_is_written_per_line() {
    let scratch = Scratch::new("grep-calls-line-buffered");
    // Text (no NUL), 600 KB, a matching line in every ten.
    let text: Vec<u8> = (0..20_000)
        .flat_map(|i| {
            match i % 10 {
                0 => format!("line {i} has the word\n"),
                _ => format!("line {i} has nothing\n"),
            }
            .into_bytes()
        })
        .collect();
    let input = scratch.file("in", &text);
    let writes = |grep: &Path| {
        let (out, trace) = traced(grep, "write", &["--line-buffered", "word"], &input);
        // `strace -y` names the descriptor: `write(1<pipe:[…]>, …`.
        let calls = trace.lines().filter(|l| l.starts_with("write(1<")).count();
        (out, calls)
    };
    let (ours, our_writes) = writes(&binary("grep"));
    let (gnu, gnu_writes) = writes(Path::new("/usr/bin/grep"));
    assert_eq!(ours, gnu);
    assert!(
        gnu_writes > 10,
        "the input has lines to write: {gnu_writes}"
    );
    assert_eq!(our_writes, gnu_writes, "write(2) calls on stdout");
}

/// On a terminal, output is line-buffered as GNU's stdio makes it: each
/// line its own write(2), without `--line-buffered`, from a file large
/// enough to be mapped.  The terminal is a pseudo-terminal from
/// util-linux's `script`; counted in writes to it, against GNU's.
#[test]
fn terminal_output_is_written_per_line() {
    let scratch = Scratch::new("grep-calls-terminal");
    let text: Vec<u8> = (0..20_000)
        .flat_map(|i| match i % 10 {
            0 => format!("line {i} has the word\n").into_bytes(),
            _ => format!("line {i} has nothing\n").into_bytes(),
        })
        .collect();
    let input = scratch.file("in", &text);
    let writes = |grep: &Path, name: &str| {
        let trace = scratch.path.join(name);
        let command = format!(
            "strace -y -e trace=write -o '{}' '{}' word '{}'",
            trace.display(),
            grep.display(),
            input.display()
        );
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("LC_ALL", "C")
            .env_remove("TERM")
            .output()
            .expect("script is installed (.ci/setup)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let trace = std::fs::read_to_string(&trace).expect("trace");
        // `strace -y` names the descriptor: `write(1</dev/pts/N>, …`.
        let calls = trace
            .lines()
            .filter(|l| l.starts_with("write(1</dev/pts/"))
            .count();
        (out.stdout.len(), calls)
    };
    let (ours, our_writes) = writes(&binary("grep"), "ours");
    let (gnu, gnu_writes) = writes(Path::new("/usr/bin/grep"), "gnu");
    assert_eq!(ours, gnu, "bytes on the terminal");
    assert_eq!(gnu_writes, 2000, "GNU writes each of the 2000 lines");
    assert_eq!(our_writes, gnu_writes, "write(2) calls on the terminal");
}

/// Run `grep ARGS input` under `strace -y -e trace=CALLS` (C locale);
/// its stdout and the trace.
fn traced(grep: &Path, calls: &str, args: &[&str], input: &Path) -> (Vec<u8>, String) {
    let scratch = Scratch::new("grep-calls-trace");
    let trace = scratch.path.join("trace");
    let out = Command::new("strace")
        .arg("-y")
        .args(["-e", &format!("trace={calls}"), "-o"])
        .arg(&trace)
        .arg(grep)
        .args(args)
        .arg(input)
        .env("LC_ALL", "C")
        .output()
        .expect("strace is installed (.ci/setup)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.stdout, std::fs::read_to_string(&trace).expect("trace"))
}
