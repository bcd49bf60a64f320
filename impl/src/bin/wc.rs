//! `wc`: print newline, word, character and byte counts.

use samebytes::wc::{run, SystemInputs, WcConfig};
use samebytes_spec::wc::WcEnv;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = WcEnv {
        locale: samebytes::locale(),
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("wc"),
    };
    let mut stdout = samebytes::stdout_writer();
    let mut stderr = std::io::stderr();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemInputs,
        &mut *stdout,
        &mut stderr,
        &WcConfig::default(),
    );
    std::process::exit(status);
}
