//! `cat`: concatenate files to standard output.

use samebytes::cat::{run, CatConfig, SystemCat};
use samebytes_spec::cat::CatEnv;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = CatEnv {
        locale: samebytes::locale(),
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("cat"),
    };
    let mut stdout = samebytes::stdout_writer();
    let mut stderr = std::io::stderr();
    let status = run(
        &samebytes::args_bytes(),
        &env,
        &mut SystemCat::new(),
        &mut *stdout,
        &mut stderr,
        &CatConfig::default(),
    );
    std::process::exit(status);
}
