//! `wc`: print newline, word, character and byte counts.

use samebytes::wc::{run, SystemInputs, WcConfig};
use samebytes_spec::wc::WcEnv;
use samebytes_spec::Locale;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = WcEnv {
        locale: if samebytes::sys::ctype_locale_is_utf8() {
            Locale::Utf8
        } else {
            Locale::C
        },
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("wc"),
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
    let mut stderr = std::io::stderr();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemInputs,
        stdout,
        &mut stderr,
        &WcConfig::default(),
    );
    std::process::exit(status);
}
