//! `--color=auto` (and `--color` alone) on a terminal, against GNU grep
//! 3.8: coloured when `TERM` is set and not `dumb`, plain otherwise, and
//! plain into a pipe.  The terminal is a pseudo-terminal from
//! util-linux's `script`.

mod common;

use std::process::Command;

/// Run `grep ARGS FILE` with stdout on a pseudo-terminal, `TERM` as
/// given (unset for `None`): what the terminal shows.
fn on_terminal(grep: &str, args: &str, file: &str, term: Option<&str>) -> Vec<u8> {
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("{grep} {args} {file}"), "/dev/null"]);
    match term {
        Some(t) => cmd.env("TERM", t),
        None => cmd.env_remove("TERM"),
    };
    cmd.env("LC_ALL", "C")
        .env_remove("GREP_COLORS")
        .env_remove("GREP_COLOR");
    let out = cmd.output().expect("run script");
    assert!(out.status.success() || out.status.code() == Some(1));
    out.stdout
}

#[test]
fn auto_colours_a_terminal_unless_term_is_dumb() {
    let dir = common::Scratch::new("color-tty");
    let file = dir.file("f", b"foo bar\nbaz\n");
    let file = file.to_str().unwrap();
    let ours = common::binary("grep");
    let ours = ours.to_str().unwrap();
    let builds = samebytes_oracle::gnu::columns_or_panic();
    let mut coloured = 0;
    for args in [
        "--color=auto foo",
        "--color foo",
        "--colour=tty -n foo",
        "--color=never foo",
    ] {
        for term in [Some("xterm"), Some("dumb"), None] {
            let got = on_terminal(ours, args, file, term);
            for build in &builds {
                let gnu = on_terminal(build.tool("grep").to_str().unwrap(), args, file, term);
                assert_eq!(
                    got,
                    gnu,
                    "grep {args} with TERM={term:?}, GNU {}",
                    build.label()
                );
            }
            coloured += usize::from(got.contains(&0x1b));
        }
    }
    // auto and the bare option with TERM=xterm: the check compared colour.
    assert_eq!(coloured, 3);
    // Into a pipe, auto is never.
    let piped = Command::new(ours)
        .args(["--color=auto", "foo", file])
        .env("TERM", "xterm")
        .output()
        .unwrap();
    assert_eq!(piped.stdout, b"foo bar\n");
}
