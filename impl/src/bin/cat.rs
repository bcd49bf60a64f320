//! `cat`: concatenate files to standard output.

use samebytes::cat::{run, CatConfig, SystemCat};
use samebytes_spec::cat::CatEnv;
use samebytes_spec::Locale;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = CatEnv {
        locale: if samebytes::sys::ctype_locale_is_utf8() {
            Locale::Utf8
        } else {
            Locale::C
        },
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("cat"),
    };
    let mut stdout = samebytes::sys::FdWriter::stdout();
    let mut stderr = std::io::stderr();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemCat::new(),
        &mut stdout,
        &mut stderr,
        &CatConfig::default(),
    );
    std::process::exit(status);
}
