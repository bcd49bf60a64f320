//! `grep`: print lines that match patterns.

use samebytes::grep::{run, GrepConfig, SystemGrep};
use samebytes_spec::grep::GrepEnv;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = GrepEnv {
        locale: samebytes::locale(),
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("grep"),
    };
    let mut stdout = samebytes::stdout_writer();
    let is_terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut stderr = std::io::stderr();
    let cfg = GrepConfig::from_env();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemGrep::new(),
        &mut *stdout,
        &mut stderr,
        &cfg,
        is_terminal,
    );
    std::process::exit(status);
}
