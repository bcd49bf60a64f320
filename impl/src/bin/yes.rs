//! `yes`: output a line repeatedly until killed.

use samebytes::yes::{run, SystemOutput, YesConfig};
use samebytes_spec::yes::YesEnv;

fn main() {
    samebytes::sys::restore_inherited_sigpipe();
    let env = YesEnv {
        posixly_correct: samebytes::posixly_correct(),
        program: samebytes::program_name("yes"),
    };
    let mut config = YesConfig::default();
    // Test hooks that change how the bytes travel, never which bytes:
    // the size a stdout pipe is grown to (0 leaves it alone, since pipes
    // are never shrunk), and a report
    // of the path on stderr.
    if let Some(size) = std::env::var_os("SAMEBYTES_YES_PIPE_SIZE") {
        config.pipe_size = size.to_str().and_then(|s| s.parse().ok()).unwrap_or(0);
    }
    let debug = std::env::var_os("SAMEBYTES_YES_DEBUG").is_some();
    let status = run(
        &samebytes::sys::args_borrowed(),
        &env,
        &mut SystemOutput::stdout(),
        &mut std::io::stderr(),
        &config,
        debug,
    );
    std::process::exit(status);
}
