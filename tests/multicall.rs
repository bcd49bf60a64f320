//! The multicall binary `samebytes` and `install.sh`: each tool run as
//! `samebytes TOOL ...` and through an installed link or copy under a
//! prefixed name, compared with the spec (the binary campaign runs half of
//! its cases through `samebytes` under the tool's own name, under faults);
//! the installation leaves the system's names alone unless asked, and its
//! manual pages render without a warning.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{binary, describe, run_in_world, Scratch};
use proptest::prelude::*;
use samebytes_spec::world::{Node, Stdin, World};
use samebytes_spec::{Locale, Outcome};

#[derive(Clone, Copy, Debug)]
enum Tool {
    Wc,
    Cat,
    Grep,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Wc => "wc",
            Tool::Cat => "cat",
            Tool::Grep => "grep",
        }
    }

    /// Arguments that change what the tool prints, operands included.
    fn option_pool(self) -> &'static [&'static str] {
        match self {
            Tool::Wc => &[
                "-l",
                "-w",
                "-c",
                "-m",
                "-L",
                "--total=always",
                "f",
                "-",
                "missing",
                "d",
            ],
            Tool::Cat => &[
                "-n", "-b", "-s", "-A", "-v", "-E", "-T", "f", "-", "missing", "d",
            ],
            Tool::Grep => &[
                "-e", "a", "-v", "-c", "-n", "-o", "-i", "f", "-", "missing", "d", "-x",
            ],
        }
    }

    fn spec(self, program: &str, args: &[Vec<u8>], world: &World) -> Outcome {
        match self {
            Tool::Wc => {
                let mut env = samebytes_spec::wc::WcEnv::new(Locale::C, false);
                env.program = program.into();
                samebytes_spec::wc::wc(args, &env, world, None)
            }
            Tool::Cat => {
                let mut env = samebytes_spec::cat::CatEnv::new(Locale::C, false);
                env.program = program.into();
                let stdout = samebytes_spec::cat::CatStdout::Stream;
                samebytes_spec::cat::cat(args, &env, world, &stdout, None)
            }
            Tool::Grep => {
                let mut env = samebytes_spec::grep::GrepEnv::new(Locale::C);
                env.program = program.into();
                let stdout = samebytes_spec::grep::GrepStdout::Stream;
                samebytes_spec::grep::grep(args, &env, world, &stdout, None)
            }
        }
    }
}

fn outcome(out: Output) -> Outcome {
    let status = out
        .status
        .code()
        .unwrap_or_else(|| panic!("killed: {}", describe(out.status)));
    Outcome::unplaced(out.stdout, out.stderr, status)
}

fn assert_same(actual: &Outcome, expected: &Outcome, what: &str) {
    assert_eq!(
        (
            String::from_utf8_lossy(&actual.stdout),
            String::from_utf8_lossy(&actual.stderr),
            actual.status
        ),
        (
            String::from_utf8_lossy(&expected.stdout),
            String::from_utf8_lossy(&expected.stderr),
            expected.status
        ),
        "{what}"
    );
}

fn world(file: Vec<u8>, stdin: Vec<u8>) -> World {
    let mut w = World::default();
    w.files.insert(b"f".to_vec(), Node::Regular(file));
    w.files.insert(b"d".to_vec(), Node::Directory);
    w.stdin = Stdin {
        node: Node::Stream(stdin),
        offset: 0,
    };
    w
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            Just(b'a'),
            Just(b'b'),
            Just(b' '),
            Just(b'\n'),
            Just(b'\t'),
            Just(0x80u8)
        ],
        0..64,
    )
}

fn tool() -> impl Strategy<Value = Tool> {
    prop_oneof![Just(Tool::Wc), Just(Tool::Cat), Just(Tool::Grep)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `samebytes TOOL ARGS` is TOOL, naming itself TOOL; a link
    /// `sb-TOOL` to `samebytes` is TOOL, naming itself as started.
    #[test]
    fn samebytes_runs_each_tool_as_the_spec_does(
        tool in tool(),
        picks in proptest::collection::vec(0usize..12, 0..5),
        file in text(),
        stdin in text(),
    ) {
        let pool = tool.option_pool();
        let args: Vec<Vec<u8>> = picks.iter().map(|&i| pool[i % pool.len()].as_bytes().to_vec()).collect();
        let world = world(file, stdin);

        let dir = Scratch::new("multicall");
        let mut cmd = Command::new(binary("samebytes"));
        cmd.stdout(Stdio::piped());
        cmd.arg(tool.name()).args(args.iter().map(|a| String::from_utf8_lossy(a).into_owned()));
        let got = outcome(run_in_world(cmd, "samebytes", &world, false, false, &dir));
        assert_same(&got, &tool.spec(tool.name(), &args, &world), &format!("samebytes {} {args:?}", tool.name()));

        let link_dir = Scratch::new("multicall-link");
        let link = link_dir.path.join(format!("sb-{}", tool.name()));
        std::os::unix::fs::symlink(binary("samebytes"), &link).expect("symlink");
        let dir = Scratch::new("multicall");
        let mut cmd = Command::new(&link);
        cmd.stdout(Stdio::piped());
        cmd.args(args.iter().map(|a| String::from_utf8_lossy(a).into_owned()));
        let argv0 = link.to_string_lossy().into_owned();
        let got = outcome(run_in_world(cmd, &argv0, &world, false, false, &dir));
        assert_same(&got, &tool.spec(&argv0, &args, &world), &format!("{argv0} {args:?}"));
    }
}

fn samebytes(args: &[&str]) -> Output {
    Command::new(binary("samebytes"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run samebytes")
}

#[test]
fn yes_runs_through_samebytes_until_its_reader_leaves() {
    let head = yes_head(Command::new(binary("samebytes")).args(["yes", "ab"]));
    assert_eq!(head, b"ab\nab\nab\n");
}

#[test]
fn samebytes_without_a_tool_says_how_to_use_it() {
    let none = samebytes(&[]);
    assert_eq!(none.status.code(), Some(1));
    assert!(none.stdout.is_empty());
    assert!(String::from_utf8_lossy(&none.stderr).contains("missing tool name"));

    let unknown = samebytes(&["ls", "-l"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr)
        .starts_with("samebytes: 'ls' is not a samebytes tool"));

    let help = samebytes(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    // What the dispatcher takes, each named in the help it prints.
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.starts_with("Usage: samebytes TOOL [ARGUMENT]...\n"),
        "{text}"
    );
    for taken in [
        "wc",
        "cat",
        "yes",
        "grep",
        "--list",
        "--man[=TOOL]",
        "--help",
        "--version",
    ] {
        assert!(text.contains(taken), "--help leaves out {taken}: {text}");
    }

    let list = samebytes(&["--list"]);
    assert_eq!(
        String::from_utf8_lossy(&list.stdout),
        "wc\ncat\nyes\ngrep\n"
    );

    let version = samebytes(&["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("samebytes {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn samebytes_reports_its_own_write_error() {
    let out = Command::new(binary("samebytes"))
        .arg("--list")
        .stdout(common::dev_full())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "samebytes: write error: No space left on device\n"
    );
}

// ---------------------------------------------------------------------------
// install.sh

fn install(prefix: &Path, extra: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let from = binary("samebytes");
    let from = from.parent().expect("binary folder");
    let out = Command::new("bash")
        .arg(root.join("install.sh"))
        .arg("--prefix")
        .arg(prefix)
        .arg("--from")
        .arg(from)
        .args(extra)
        .output()
        .expect("run install.sh");
    assert!(
        out.status.success(),
        "install.sh {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Each installed tool, run under its installed name, is what the spec
/// says it is under that name.
fn assert_installed_tools_work(bin: &Path, program_prefix: &str) {
    let world = world(b"one two\nthree\n".to_vec(), b"a\nb a\n".to_vec());
    for (tool, args) in [
        (Tool::Wc, vec!["-lw", "f", "-"]),
        (Tool::Cat, vec!["-n", "-", "f", "missing"]),
        (Tool::Grep, vec!["-c", "a", "-", "f"]),
    ] {
        let path = bin.join(format!("{program_prefix}{}", tool.name()));
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let dir = Scratch::new("installed");
        let mut cmd = Command::new(&path);
        cmd.stdout(Stdio::piped());
        cmd.args(args.iter().map(|a| String::from_utf8_lossy(a).into_owned()));
        let argv0 = path.to_string_lossy().into_owned();
        let got = outcome(run_in_world(cmd, &argv0, &world, false, false, &dir));
        assert_same(&got, &tool.spec(&argv0, &args, &world), &argv0);
    }
    let yes = bin.join(format!("{program_prefix}yes"));
    assert_eq!(
        yes_head(Command::new(&yes).arg("ab")),
        b"ab\nab\nab\n",
        "{}",
        yes.display()
    );
}

/// The first nine bytes `yes` writes, after which its reader leaves: it
/// must then die of SIGPIPE, silently, as GNU yes does.
fn yes_head(cmd: &mut Command) -> Vec<u8> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut head = vec![0u8; 9];
    std::io::Read::read_exact(child.stdout.as_mut().expect("stdout"), &mut head).expect("read");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(describe(out.status), "signal 13");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    head
}

/// Every page renders through groff with every warning on and none given.
fn assert_pages_render(mandir: &Path) {
    for page in names_in(mandir) {
        let out = Command::new("groff")
            .args(["-man", "-ww", "-z"])
            .arg(mandir.join(&page))
            .output()
            .expect("groff (groff-base; bash .ci/setup installs it)");
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{page}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn install_leaves_the_system_names_alone_by_default() {
    let prefix = Scratch::new("install-prefix");
    install(&prefix.path, &[]);
    let bin = prefix.path.join("bin");
    let man = prefix.path.join("share/man/man1");
    assert_eq!(
        names_in(&bin),
        ["samebytes", "sb-cat", "sb-grep", "sb-wc", "sb-yes"]
    );
    assert_eq!(
        names_in(&man),
        [
            "samebytes.1",
            "sb-cat.1",
            "sb-grep.1",
            "sb-wc.1",
            "sb-yes.1"
        ]
    );
    // Copies of the tool binaries, not links.
    assert!(!std::fs::symlink_metadata(bin.join("sb-wc"))
        .expect("stat")
        .file_type()
        .is_symlink());
    assert_installed_tools_work(&bin, "sb-");
    assert_pages_render(&man);
    let page = std::fs::read_to_string(man.join("sb-grep.1")).expect("page");
    assert!(page.starts_with(".TH SB\\-GREP 1 "), "{page}");

    install(&prefix.path, &["--uninstall"]);
    assert!(names_in(&bin).is_empty(), "{:?}", names_in(&bin));
    assert!(names_in(&man).is_empty(), "{:?}", names_in(&man));
}

#[test]
fn install_takes_the_tools_own_names_only_when_asked() {
    let prefix = Scratch::new("install-own");
    install(&prefix.path, &["--own-names", "--links"]);
    let bin = prefix.path.join("bin");
    assert_eq!(names_in(&bin), ["cat", "grep", "samebytes", "wc", "yes"]);
    let link = std::fs::read_link(bin.join("grep")).expect("a link");
    assert_eq!(link, Path::new("samebytes"));
    assert_installed_tools_work(&bin, "");
    assert_pages_render(&prefix.path.join("share/man/man1"));

    let other = Scratch::new("install-prefixed");
    install(&other.path, &["--program-prefix", "g"]);
    assert_installed_tools_work(&other.path.join("bin"), "g");
}
