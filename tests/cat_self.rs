//! An input that is also the output, as current GNU decides it: refused
//! only when the copy could never end (`samebytes_spec::cat::
//! self_copy_never_ends`).  The cases of coreutils' own `tests/cat/
//! cat-self.sh` (9.6 and later), run through real redirections, then the
//! copy paths an allowed self-copy takes, checked against the spec.

mod common;

use std::path::Path;
use std::process::Command;

use common::{binary, mixed_text, Scratch};
use samebytes_spec::cat::{CatEnv, CatStdout};
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::Locale;

/// How long a copy may take before it counts as one that never ends.
const NEVER_ENDS_AFTER: &str = "20";

/// Run a shell line in `dir` with `cat` on the PATH being `program`
/// (through a symlink, so that it names itself `cat`).  A copy that does
/// not end is killed by `timeout` and fails the test (status 124).
fn sh(program: &Path, dir: &Path, line: &str) -> (i32, String) {
    let bin = dir.join(".bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let link = bin.join("cat");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(program, &link).expect("symlink cat");
    let out = Command::new("timeout")
        .args([NEVER_ENDS_AFTER, "sh", "-c", line])
        .current_dir(dir)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("LC_ALL", "C")
        .env_remove("POSIXLY_CORRECT")
        .output()
        .expect("run sh");
    let status = out.status.code().expect("exit status");
    assert_ne!(status, 124, "`{line}` never ended");
    (status, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// One case of cat-self.sh: the shell line, the file whose content is
/// checked, what it must hold, and the refused input's name if refused.
struct SelfCase {
    line: &'static str,
    file: &'static str,
    holds: &'static [u8],
    refused: Option<&'static str>,
    /// Does coreutils 9.1 (this machine's GNU cat) decide it the same way?
    /// Before 9.6 GNU refused every input that was the output file and had
    /// bytes left to read.
    same_in_9_1: bool,
}

const CAT_SELF: &[SelfCase] = &[
    SelfCase {
        line: "cat - fy <fxy1 1<>fxy1",
        file: "fxy1",
        holds: b"x\ny\n",
        refused: None,
        same_in_9_1: false,
    },
    SelfCase {
        line: "cat fxy2 fy 1<>fxy2",
        file: "fxy2",
        holds: b"x\ny\n",
        refused: None,
        same_in_9_1: false,
    },
    SelfCase {
        line: "cat doc doc.end >doc",
        file: "doc",
        holds: b"end\n",
        refused: None,
        same_in_9_1: true,
    },
    SelfCase {
        line: "exec 3<fend 4>>fend; cat <&3 >&4",
        file: "fend",
        holds: b"x\n",
        refused: None,
        same_in_9_1: true,
    },
    SelfCase {
        line: "cat fx fx3 1<>fx3",
        file: "fx3",
        holds: b"x\n",
        refused: Some("fx3"),
        same_in_9_1: true,
    },
    SelfCase {
        line: "cat - fx4 <fx 1<>fx4",
        file: "fx4",
        holds: b"x\n",
        refused: Some("fx4"),
        same_in_9_1: true,
    },
    SelfCase {
        line: "cat fx5 >>fx5",
        file: "fx5",
        holds: b"x\n",
        refused: Some("fx5"),
        same_in_9_1: true,
    },
    SelfCase {
        line: "cat <fx6 >>fx6",
        file: "fx6",
        holds: b"x\n",
        refused: Some("-"),
        same_in_9_1: true,
    },
];

fn cat_self_files(dir: &Path) {
    let x = b"x\n";
    for name in ["fx", "fxy1", "fxy2", "fx3", "fx4", "fx5", "fx6"] {
        std::fs::write(dir.join(name), x).expect("write");
    }
    std::fs::write(dir.join("fy"), b"y\n").expect("write");
    std::fs::write(dir.join("doc"), b"old contents\n").expect("write");
    std::fs::write(dir.join("doc.end"), b"end\n").expect("write");
    // fd 3 reads it from its end: `exec 3<` opens at the start, so the
    // line below moves it first.
    std::fs::write(dir.join("fend"), x).expect("write");
}

/// Each case run for real: by ours, which must do what cat-self.sh says,
/// and by every GNU build `SAMEBYTES_GNU` names that decides it by the
/// current rule (9.6 and later, every case; older builds only the cases
/// where their rule agrees), which must do what ours did.
#[test]
fn the_cases_of_gnu_cat_self_sh() {
    let ours = binary("cat");
    let builds = samebytes_oracle::gnu::columns_or_panic();
    let mut current_runs = 0;
    for case in CAT_SELF {
        // For the fd-3 case, put fd 3 at the end of fend before cat runs:
        // read it through once.
        let line = case.line.replace(
            "exec 3<fend 4>>fend;",
            "exec 3<fend 4>>fend; while read -r l <&3; do :; done;",
        );
        let run = |program: &Path| {
            let s = Scratch::new("cat-self");
            cat_self_files(&s.path);
            let (status, stderr) = sh(program, &s.path, &line);
            let held = std::fs::read(s.path.join(case.file)).expect("read");
            (held, status, stderr)
        };
        let mine = run(&ours);
        assert_eq!(mine.0, case.holds, "`{}`: {} holds", case.line, case.file);
        let want = match case.refused {
            None => (0, String::new()),
            Some(name) => (1, format!("cat: {name}: input file is output file\n")),
        };
        assert_eq!((mine.1, mine.2.clone()), want, "`{}`", case.line);
        for gnu in &builds {
            let current = gnu.coreutils >= samebytes_oracle::gnu::Version(9, 6);
            if !current && !case.same_in_9_1 {
                continue;
            }
            current_runs += usize::from(current);
            let theirs = run(&gnu.tool("cat"));
            assert_eq!(
                theirs,
                mine,
                "`{}`: GNU {} (file, status, stderr) against ours",
                case.line,
                gnu.label()
            );
        }
    }
    if builds
        .iter()
        .any(|g| g.coreutils >= samebytes_oracle::gnu::Version(9, 6))
    {
        assert!(
            current_runs >= CAT_SELF.len(),
            "each case meets current GNU"
        );
    }
}

/// `self-copy-that-lengthens` (docs/differences.md): current GNU copies a
/// file onto itself under an option that lengthens the output (`-n`,
/// `-E`, `-A`) when the writer starts at or behind the reader, and then
/// reads back what it wrote for ever; we refuse it.  Run under a 100 KiB
/// file-size limit with SIGXFSZ ignored, GNU stops at the limit with a
/// write error, and ours refuses the input.  The day GNU refuses it too,
/// this test says so.
#[test]
fn a_lengthening_self_copy_fills_the_disk_in_current_gnu_and_ours_refuses_it() {
    let line = r#"ulimit -f 100; trap "" XFSZ; exec -a cat "$0" "$1" f 1<>f"#;
    let run = |program: &Path, opt: &str| {
        let s = Scratch::new("cat-self-long");
        std::fs::write(s.path.join("f"), b"a\nb\n").expect("write f");
        let out = Command::new("timeout")
            .args([NEVER_ENDS_AFTER, "bash", "-c", line])
            .arg(program)
            .arg(opt)
            .current_dir(&s.path)
            .env("LC_ALL", "C")
            .output()
            .expect("run bash");
        let size = std::fs::metadata(s.path.join("f")).expect("f").len();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            size,
        )
    };
    for opt in ["-n", "-E", "-A"] {
        let mine = run(&binary("cat"), opt);
        assert_eq!(
            mine,
            (
                Some(1),
                "cat: f: input file is output file\n".to_string(),
                4
            ),
            "ours, {opt}"
        );
        for gnu in samebytes_oracle::gnu::columns_or_panic() {
            if gnu.coreutils < samebytes_oracle::gnu::Version(9, 6) {
                // Older GNU refuses it, as we do.
                assert_eq!(
                    run(&gnu.tool("cat"), opt),
                    mine,
                    "GNU {}, {opt}",
                    gnu.label()
                );
                continue;
            }
            let theirs = run(&gnu.tool("cat"), opt);
            assert_eq!(
                theirs,
                (
                    Some(1),
                    "cat: write error: File too large\n".to_string(),
                    100 << 10
                ),
                "GNU {}, {opt}: it no longer copies for ever?",
                gnu.label()
            );
        }
    }
}

/// The spec's outcome for stdout overwriting (`1<>`) or appending to `f`.
fn spec_on_f(
    args: &[&str],
    files: &[(&str, &[u8])],
    stdout: &CatStdout,
) -> (Vec<u8>, i32, Vec<u8>) {
    let mut world = World::default();
    for (name, data) in files {
        world
            .files
            .insert(name.as_bytes().to_vec(), Node::Regular(data.to_vec()));
    }
    world.stdin = Stdin {
        node: Node::Stream(Vec::new()),
        offset: 0,
    };
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let out = samebytes_spec::cat::cat(&args, &CatEnv::new(Locale::C, false), &world, stdout, None);
    let initial = files
        .iter()
        .find(|(n, _)| *n == "f")
        .map_or(&b""[..], |(_, d)| d);
    let file = stdout.after_writing(initial.to_vec(), &out.stdout);
    (file, out.status, out.stderr)
}

/// An allowed self-copy through each path cat has, with a file larger than
/// every buffer: copy_file_range (which the kernel refuses for overlapping
/// ranges of one file, so cat falls back to read/write), the read/write
/// loop with odd buffers and writes, and formatting with `-s` (which only
/// drops bytes).  A formatting option that can lengthen the output is
/// refused, and so is a writer ahead of the reader.  Each against the spec.
#[test]
fn allowed_self_copies_end_on_every_path_as_the_spec_says() {
    let mut big = mixed_text(3 << 20, 12);
    big.extend_from_slice(b"\n\n\n\nend\n");
    let other = b"other\n\n\n";
    let runs: &[(&[&str], &str)] = &[
        (&["f"], "copy_file_range then read/write"),
        (
            &["--read-buffer-size=999", "--write-buffer-size=7", "f"],
            "",
        ),
        (&["--read-buffer-size=4099", "f", "o"], ""),
        (&["-s", "f"], "formatting"),
        (&["-s", "--read-buffer-size=3", "f", "o"], ""),
        (&["-n", "f"], ""),
        (&["-E", "f"], ""),
        (&["-v", "f"], ""),
        (&["o", "f"], ""),
        (&["-s", "o", "f"], ""),
    ];
    for (args, path) in runs {
        let s = Scratch::new("cat-self-paths");
        s.file("f", &big);
        s.file("o", other);
        let f = s.path.join("f");
        // Through `timeout`, so that a copy that never ends fails (124);
        // `exec -a` keeps the name cat uses in messages.
        let mut cmd = Command::new("timeout");
        cmd.args([NEVER_ENDS_AFTER, "bash", "-c", "exec -a cat \"$0\" \"$@\""])
            .arg(binary("cat"));
        let out = cmd
            .args(args.iter())
            .arg("--debug")
            .current_dir(&s.path)
            .env("LC_ALL", "C")
            .stdout(
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&f)
                    .expect("open f"),
            )
            .output()
            .expect("run cat");
        let (file, status, stderr) = spec_on_f(
            args,
            &[("f", &big), ("o", other)],
            &CatStdout::Overwrite(b"f".to_vec()),
        );
        let held = std::fs::read(&f).expect("read f");
        assert!(
            held == file,
            "{args:?}: f differs from the spec ({} vs {} bytes)",
            held.len(),
            file.len()
        );
        assert_eq!(out.status.code(), Some(status), "{args:?}");
        let debug = String::from_utf8_lossy(&out.stderr).into_owned();
        let diagnostics: String = debug
            .lines()
            .filter(|l| !l.contains(": copied by "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(diagnostics, String::from_utf8_lossy(&stderr), "{args:?}");
        if !path.is_empty() {
            assert!(
                debug.contains(&format!("cat: f: copied by {path}\n")),
                "{args:?}: {debug}"
            );
        }
    }
}
