//! `grep`: print lines that match patterns.

use samebytes::grep::{run, GrepConfig, SystemGrep};
use samebytes_spec::grep::GrepEnv;
use samebytes_spec::Locale;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = GrepEnv {
        locale: if samebytes::sys::ctype_locale_is_utf8() {
            Locale::Utf8
        } else {
            Locale::C
        },
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("grep"),
    };
    let mut real_stdout;
    let mut closed_stdout;
    let stdout: &mut dyn std::io::Write = if samebytes::sys::stdout_was_closed() {
        closed_stdout = samebytes::sys::ClosedWriter;
        &mut closed_stdout
    } else {
        real_stdout = samebytes::sys::FdWriter::stdout();
        &mut real_stdout
    };
    let is_terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut stderr = std::io::stderr();
    let cfg = GrepConfig::from_env();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemGrep::new(&cfg),
        stdout,
        &mut stderr,
        &cfg,
        is_terminal,
    );
    std::process::exit(status);
}
