//! Manual pages, generated as help2man generates GNU's: from the tool's
//! own `--help` text, checked against the option tables its parser uses
//! (`samebytes_spec::getopt::OptionNames`).  Every option the parser
//! takes appears on the page: those `--help` describes, in its words, and
//! the few it leaves out (GNU's own hidden ones) under "OTHER OPTIONS".
//! A unit test fails if `--help` names an option the parser does not take,
//! or the parser takes one the page does not show.

use samebytes_spec::getopt::OptionNames;

use crate::entry::Tool;

/// The manual page of `tool`, in roff (`man -l` reads it), naming the
/// command `program`: the name it is installed under (`sb-wc`, `wc`).
pub fn man_page(tool: Tool, program: &str) -> String {
    let help = help_text(tool, program);
    let mut page = String::new();
    let version = env!("CARGO_PKG_VERSION");
    page += &format!(
        ".TH {} 1 \"samebytes {version}\" \"samebytes {version}\" \"User Commands\"\n",
        roff(&program.to_uppercase())
    );
    page += &format!(".SH NAME\n{} \\- {}\n", roff(program), summary(tool));
    let mut lines = help.lines().peekable();
    page += ".SH SYNOPSIS\n";
    while let Some(line) = lines.next_if(|l| l.starts_with("Usage:") || l.starts_with("  or:")) {
        let usage = line
            .trim_start_matches("Usage:")
            .trim_start_matches("  or:")
            .trim();
        let rest = usage.strip_prefix(program).unwrap_or(usage);
        page += &format!(".B {}\n{}\n.br\n", roff(program), roff(rest.trim()));
    }
    page += ".SH DESCRIPTION\n";
    page += &description(lines);
    let hidden = hidden_options(tool, &help);
    if !hidden.is_empty() {
        page += ".SH \"OTHER OPTIONS\"\nAccepted as GNU accepts them, though \\fB\\-\\-help\\fR does not list them:\n";
        for (tag, text) in hidden {
            page += &format!(".TP\n{}\n{}\n", tag_roff(&tag), roff(text));
        }
    }
    let manual = if tool == Tool::Grep {
        "the GNU grep manual (\\fBinfo grep\\fR)".to_string()
    } else {
        format!(
            "the GNU coreutils manual (\\fBinfo coreutils \\(aq{} invocation\\(aq\\fR)",
            tool.name()
        )
    };
    page += &format!(
        ".SH \"SEE ALSO\"\nThis command follows {manual}; where it differs, \
\\fIdocs/differences.md\\fR in the samebytes sources says how and why.\n\
\\fBsamebytes\\fR(1) runs every samebytes tool: \\fBsamebytes {tool}\\fR.\n",
        tool = tool.name(),
    );
    page
}

/// The manual page of the multicall binary itself.
pub fn multicall_page() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let mut page = format!(
        ".TH SAMEBYTES 1 \"samebytes {version}\" \"samebytes {version}\" \"User Commands\"\n\
.SH NAME\nsamebytes \\- fast wc, cat, yes and grep, proven byte-identical to a reference\n\
.SH SYNOPSIS\n.B samebytes\n\\fITOOL\\fR [\\fIARGUMENT\\fR]...\n.br\n.B samebytes\n\\fIOPTION\\fR\n\
.SH DESCRIPTION\n"
    );
    page += &description(crate::multicall::help_text().lines().skip(2).peekable());
    page
}

fn help_text(tool: Tool, program: &str) -> String {
    match tool {
        Tool::Wc => samebytes_spec::wc::help_text(program),
        Tool::Cat => samebytes_spec::cat::help_text(program),
        Tool::Yes => samebytes_spec::yes::help_text(program),
        Tool::Grep => samebytes_spec::grep::help_text(program),
    }
}

/// The NAME line, as GNU's pages word it.
fn summary(tool: Tool) -> &'static str {
    match tool {
        Tool::Wc => "print newline, word, and byte counts for each file",
        Tool::Cat => "concatenate files and print on the standard output",
        Tool::Yes => "output a string repeatedly until killed",
        Tool::Grep => "print lines that match patterns",
    }
}

/// Options the parser takes that `--help` does not describe, and what
/// they do (GNU's `--help` leaves them out too).
fn hidden_text(tool: Tool, option: &str) -> Option<&'static str> {
    Some(match (tool, option) {
        (Tool::Grep, "-y") => "obsolete synonym for -i",
        (Tool::Grep, "-X") => {
            "select the matcher by name (grep, egrep, fgrep, perl); awk matchers are refused"
        }
        (Tool::Grep, "--silent") => "same as --quiet",
        (Tool::Grep, "--colour") => "same as --color",
        (Tool::Grep, "-u") => "obsolete, has no effect (GNU warns about it)",
        (Tool::Grep, "--unix-byte-offsets") => "obsolete, has no effect (GNU warns about it)",
        (Tool::Grep, "--initial-tab") => "same as -T",
        (Tool::Grep, "--no-messages") => "same as -s",
        (Tool::Grep, "--fixed-regexp") => "obsolete synonym for --fixed-strings",
        _ => return None,
    })
}

/// Every option of the tool's table, spelt as on a command line
/// (`-c`, `--bytes`).
pub fn table_options(tool: Tool) -> Vec<String> {
    let names: OptionNames = match tool {
        Tool::Wc => samebytes_spec::wc::option_names(),
        Tool::Cat => samebytes_spec::cat::option_names(),
        Tool::Yes => samebytes_spec::yes::option_names(),
        Tool::Grep => samebytes_spec::grep::option_names(),
    };
    let shorts = names
        .shorts
        .iter()
        .filter(|(letter, _)| !letter.is_ascii_digit())
        .map(|(letter, _)| format!("-{}", *letter as char));
    let longs = names.longs.iter().map(|(name, _)| format!("--{name}"));
    shorts.chain(longs).collect()
}

/// The options `--help` describes, as they appear in its option lines.
pub fn help_options(help: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in help.lines() {
        if let Some((tag, _)) = option_line(line) {
            for part in tag.split(", ") {
                let name: String = part
                    .chars()
                    .take_while(|c| *c != '=' && *c != '[' && *c != ' ')
                    .collect();
                found.push(name);
            }
        }
    }
    found
}

fn hidden_options(tool: Tool, help: &str) -> Vec<(String, &'static str)> {
    let described = help_options(help);
    table_options(tool)
        .into_iter()
        .filter(|o| !described.contains(o))
        .map(|o| {
            let text = hidden_text(tool, &o).unwrap_or("accepted for compatibility with GNU");
            (o, text)
        })
        .collect()
}

/// An option line of a help text: two to six spaces, then `-`; the tag
/// runs to the first run of two spaces, the description after it.
fn option_line(line: &str) -> Option<(&str, &str)> {
    let indent = line.len() - line.trim_start().len();
    let body = line.trim_start();
    if !(2..=6).contains(&indent) || !body.starts_with('-') {
        return None;
    }
    match body.find("  ") {
        Some(at) => Some((&body[..at], body[at..].trim())),
        None => Some((body, "")),
    }
}

/// The help text after its usage lines, as roff: option lines become
/// tagged paragraphs, their deeper-indented continuations join them,
/// headings ("Output control:") become subsections, other indented lines
/// (examples) are kept as they are.
fn description<'a>(mut lines: std::iter::Peekable<impl Iterator<Item = &'a str>>) -> String {
    let mut out = String::new();
    let mut in_option = false;
    while let Some(line) = lines.next() {
        if line.trim().is_empty() {
            out += ".PP\n";
            in_option = false;
        } else if let Some((tag, text)) = option_line(line) {
            let mut tag = tag.to_string();
            let mut text = text.to_string();
            // "--color[=WHEN]," on a line of its own continues on the next.
            while text.is_empty() && tag.ends_with(',') {
                match lines.next_if(|l| option_line(l).is_some()) {
                    Some(next) => {
                        let (t, d) = option_line(next).unwrap_or_default();
                        tag = format!("{tag} {t}");
                        text = d.to_string();
                    }
                    None => break,
                }
            }
            out += &format!(".TP\n{}\n{}\n", tag_roff(&tag), roff(&text));
            in_option = true;
        } else if in_option && line.starts_with("          ") {
            out += &format!("{}\n", roff(line.trim()));
        } else if line.starts_with(' ') {
            out += &format!(".nf\n{}\n.fi\n", roff(line));
            in_option = false;
        } else if line.ends_with(':') && !line.contains(". ") {
            out += &format!(".SS \"{}\"\n", roff(line.trim_end_matches(':')));
            in_option = false;
        } else {
            out += &format!("{}\n", roff(line));
            in_option = false;
        }
    }
    out
}

/// An option tag in roff: option names bold, argument names italic.
fn tag_roff(tag: &str) -> String {
    let parts: Vec<String> = tag
        .split(", ")
        .map(|part| {
            let name_len = part.find(['=', '[']).unwrap_or(part.len());
            let (name, arg) = part.split_at(name_len);
            let dashes = name.len() - name.trim_start_matches('-').len();
            let word = &name[dashes..];
            // "-NUM": the digits themselves are the option.
            let name = if word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase()) {
                format!("\\fB{}\\fI{}\\fR", roff(&name[..dashes]), word)
            } else {
                format!("\\fB{}\\fR", roff(name))
            };
            if arg.is_empty() {
                name
            } else {
                format!("{name}{}", roff(arg))
            }
        })
        .collect();
    parts.join(", ")
}

/// Text escaped for roff: backslashes, hyphens (so that options copy as
/// ASCII), and a leading dot or quote.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use samebytes_spec::getopt::HasArg;

    /// Do the tables give `-NUM` (digits as options)?
    fn takes_digit_options(tool: Tool) -> bool {
        tool == Tool::Grep
            && samebytes_spec::grep::option_names()
                .shorts
                .iter()
                .any(|(l, a)| l.is_ascii_digit() && *a == HasArg::No)
    }

    #[test]
    fn help_names_only_options_the_parser_takes() {
        for tool in Tool::ALL {
            let table = table_options(tool);
            for option in help_options(&help_text(tool, tool.name())) {
                let digits = option == "-NUM" && takes_digit_options(tool);
                assert!(
                    digits || table.contains(&option),
                    "{}: --help describes {option}, which the parser does not take",
                    tool.name()
                );
            }
        }
    }

    /// The option names a page shows in its tagged paragraphs.
    fn options_on_page(page: &str) -> Vec<String> {
        let lines: Vec<&str> = page.lines().collect();
        let mut shown = Vec::new();
        for pair in lines.windows(2).filter(|w| w[0] == ".TP") {
            for bold in pair[1].split("\\fB").skip(1) {
                let name = bold.split("\\f").next().unwrap_or_default();
                shown.push(name.replace("\\-", "-"));
            }
        }
        shown
    }

    #[test]
    fn every_option_the_parser_takes_is_on_the_page() {
        for tool in Tool::ALL {
            let shown = options_on_page(&man_page(tool, tool.name()));
            for option in table_options(tool) {
                assert!(
                    shown.contains(&option),
                    "{}: {option} is not on the page",
                    tool.name()
                );
            }
        }
    }

    #[test]
    fn the_page_names_the_installed_command() {
        let page = man_page(Tool::Wc, "sb-wc");
        assert!(page.starts_with(".TH SB\\-WC 1 "), "{page}");
        assert!(
            page.contains(".SH NAME\nsb\\-wc \\- print newline"),
            "{page}"
        );
        assert!(
            page.contains(".B sb\\-wc\n[OPTION]... [FILE]...\n"),
            "{page}"
        );
    }

    #[test]
    fn roff_escapes_what_roff_would_read_as_requests() {
        assert_eq!(roff(".x-y\\z"), "\\&.x\\-y\\ez");
        assert_eq!(roff("'q"), "\\&'q");
        assert_eq!(roff("plain"), "plain");
    }
}
