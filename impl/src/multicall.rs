//! The multicall binary `samebytes`: one executable for every tool, as
//! busybox and uutils ship.  Started under a tool's name (a link named
//! `wc`, or `sb-wc` under an installation prefix), it is that tool;
//! otherwise its first argument names the tool (`samebytes wc -l`).

use std::io::Write;

use crate::entry::{Exit, Tool};

/// The whole of `samebytes`'s `main`.
pub fn main() -> ! {
    crate::sys::start_process();
    let program = crate::program_name("samebytes");
    let args = crate::sys::args_borrowed();
    // Started under a tool's name, or `samebytes TOOL ARGS...`.
    let named = match Tool::from_program_name(program.as_bytes()) {
        Some(tool) => Some((tool, program, &args[..])),
        None => args.split_first().and_then(|(first, rest)| {
            Tool::from_name(first).map(|t| (t, t.name().to_string(), rest))
        }),
    };
    let (exit, program) = match named {
        Some((tool, program, rest)) => (tool.run(program.clone(), rest), program),
        // `samebytes OPTION`: usage errors end with status 1, as a GNU
        // tool's do.
        None => {
            let status = samebytes_option(&args);
            let exit = Exit {
                status,
                failure: 1,
                at_once: false,
            };
            (exit, "samebytes".to_string())
        }
    };
    crate::entry::exit_closing_stdout(&program, exit)
}

/// The `--help` text of `samebytes` itself.
pub fn help_text() -> String {
    let tools: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
    format!(
        "Usage: samebytes TOOL [ARGUMENT]...\n  or:  samebytes OPTION\n\
Run TOOL, one of: {}.\n\
Started through a link whose name is a tool's, or ends with one (sb-wc),\n\
samebytes is that tool.\n\
\n\
  --list         print the tools' names, one per line\n\
  --man[=TOOL]   print TOOL's manual page (roff), or samebytes's own\n\
  --help         display this help and exit\n\
  --version      output version information and exit\n\
\n\
Each tool is a drop-in for its GNU namesake; see docs/differences.md.\n",
        tools.join(", ")
    )
}

/// `samebytes OPTION`: its exit status.
fn samebytes_option(args: &[&'static [u8]]) -> i32 {
    let mut stdout = std::io::stdout().lock();
    let printed = |out: &mut dyn Write, text: &str| -> i32 {
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => 0,
            Err(e) => {
                let text = crate::sys::error_text(&e);
                let message = format!("samebytes: write error: {text}\n");
                crate::io::diagnose(&mut crate::io::Stderr::new(), message.as_bytes());
                1
            }
        }
    };
    let Some(first) = args.first() else {
        crate::io::diagnose(
            &mut crate::io::Stderr::new(),
            b"samebytes: missing tool name\nTry 'samebytes --help' for more information.\n",
        );
        return 1;
    };
    match *first {
        b"--help" => printed(&mut stdout, &help_text()),
        b"--version" => printed(
            &mut stdout,
            &format!("samebytes {}\n", env!("CARGO_PKG_VERSION")),
        ),
        b"--list" => {
            let names: String = Tool::ALL
                .iter()
                .map(|t| format!("{}\n", t.name()))
                .collect();
            printed(&mut stdout, &names)
        }
        b"--man" => printed(&mut stdout, &crate::manpage::multicall_page()),
        option if option.starts_with(b"--man=") => {
            // The page names the tool as it will be installed:
            // `--man=wc` for `wc`, `--man=sb-wc` for `sb-wc`.
            let name = String::from_utf8_lossy(&option[6..]).into_owned();
            match Tool::from_program_name(name.as_bytes()) {
                Some(tool) => printed(&mut stdout, &crate::manpage::man_page(tool, &name)),
                None => not_a_tool(name.as_bytes()),
            }
        }
        other => not_a_tool(other),
    }
}

fn not_a_tool(name: &[u8]) -> i32 {
    let message = format!(
        "samebytes: '{}' is not a samebytes tool (wc, cat, yes, grep)\n\
Try 'samebytes --help' for more information.\n",
        String::from_utf8_lossy(name)
    );
    crate::io::diagnose(&mut crate::io::Stderr::new(), message.as_bytes());
    1
}
