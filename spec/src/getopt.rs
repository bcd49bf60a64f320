//! Command-line parsing with GNU `getopt_long` semantics, shared by the spec
//! and the implementation so that both agree on what a command line means.
//!
//! Rules implemented (glibc `getopt_long`, as used by coreutils and grep):
//! - Short options may be bundled (`-lw`); a short option that takes an
//!   argument consumes the rest of the word or, failing that, the next word.
//! - Long options may be abbreviated to any unambiguous prefix; an exact
//!   name always wins.  `--name=value` or `--name value` for required
//!   arguments; optional arguments only as `--name=value`.
//! - Operands and options may be mixed (argument permutation) unless
//!   `POSIXLY_CORRECT` is set, in which case the first operand ends options.
//! - `--` ends options; a lone `-` is an operand.
//! - Diagnostics use glibc's exact wording.

/// Whether an option takes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
    Optional,
}

/// A long option: its full name, whether it takes an argument, and the
/// identifier the caller matches on.
#[derive(Clone, Copy, Debug)]
pub struct LongOpt<Id> {
    pub name: &'static str,
    pub has_arg: HasArg,
    pub id: Id,
}

/// A short option letter.
#[derive(Clone, Copy, Debug)]
pub struct ShortOpt<Id> {
    pub letter: u8,
    pub has_arg: HasArg,
    pub id: Id,
}

/// Every option a tool's parser accepts, by name: what its manual page
/// is generated against (`samebytes::manpage`), so that the page lists
/// exactly the options the parser takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionNames {
    pub shorts: Vec<(u8, HasArg)>,
    pub longs: Vec<(&'static str, HasArg)>,
}

impl OptionNames {
    pub fn of<Id>(shorts: &[ShortOpt<Id>], longs: &[LongOpt<Id>]) -> OptionNames {
        OptionNames {
            shorts: shorts.iter().map(|s| (s.letter, s.has_arg)).collect(),
            longs: longs.iter().map(|l| (l.name, l.has_arg)).collect(),
        }
    }
}

/// One item of a parsed command line, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item<Id> {
    Opt { id: Id, arg: Option<Vec<u8>> },
    Operand(Vec<u8>),
}

/// The options a program accepts.
pub struct OptionTable<'a, Id> {
    pub shorts: &'a [ShortOpt<Id>],
    pub longs: &'a [LongOpt<Id>],
}

/// `prog: <before><word><after>`, with the word's bytes as they are: glibc
/// prints the argument raw, whatever its encoding.
fn quoted(prog: &str, before: &str, word: &[u8], after: &str) -> Vec<u8> {
    [
        format!("{prog}: {before}").as_bytes(),
        word,
        after.as_bytes(),
    ]
    .concat()
}

/// Parse `args` (without the program name).  On a usage error the items
/// parsed before it are returned with glibc's message (without the
/// program-specific "Try ... --help" line, which callers add).
pub fn parse<Id: Copy>(
    prog: &str,
    args: &[Vec<u8>],
    table: &OptionTable<'_, Id>,
    posixly_correct: bool,
) -> (Vec<Item<Id>>, Option<Vec<u8>>) {
    let (items, error) = parse_indexed(prog, args, table, posixly_correct);
    (items.into_iter().map(|(_, item)| item).collect(), error)
}

/// Items tagged with their word's index, and the usage error if any.
pub type IndexedParse<Id> = (Vec<(usize, Item<Id>)>, Option<Vec<u8>>);

/// [`parse`], with each item tagged by the index of the word it came from
/// (grep's `-NUM` digits accumulate only within one word).
pub fn parse_indexed<Id: Copy>(
    prog: &str,
    args: &[Vec<u8>],
    table: &OptionTable<'_, Id>,
    posixly_correct: bool,
) -> IndexedParse<Id> {
    let mut items = Vec::new();
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let arg = &args[i];
        let word = i;
        i += 1;
        if options_done || arg.len() < 2 || arg[0] != b'-' {
            items.push((i - 1, Item::Operand(arg.clone())));
            if posixly_correct {
                options_done = true;
            }
            continue;
        }
        if arg.as_slice() == b"--" {
            options_done = true;
            continue;
        }
        if let Some(body) = arg.strip_prefix(b"--") {
            let (name, inline) = match body.iter().position(|&b| b == b'=') {
                Some(eq) => (&body[..eq], Some(body[eq + 1..].to_vec())),
                None => (body, None),
            };
            let opt = match find_long(table.longs, name) {
                Ok(opt) => opt,
                Err(LongLookup::Unknown) => {
                    let msg = quoted(prog, "unrecognized option '", arg, "'\n");
                    return (items, Some(msg));
                }
                Err(LongLookup::Ambiguous(names)) => {
                    // glibc quotes the whole word, `=value` included.
                    let mut msg =
                        quoted(prog, "option '--", body, "' is ambiguous; possibilities:");
                    for n in names {
                        msg.extend_from_slice(format!(" '--{n}'").as_bytes());
                    }
                    msg.push(b'\n');
                    return (items, Some(msg));
                }
            };
            let value = match (opt.has_arg, inline) {
                (HasArg::No, Some(_)) => {
                    let msg = format!(
                        "{prog}: option '--{}' doesn't allow an argument\n",
                        opt.name
                    )
                    .into_bytes();
                    return (items, Some(msg));
                }
                (HasArg::No, None) => None,
                (HasArg::Optional, v) => v,
                (HasArg::Required, Some(v)) => Some(v),
                (HasArg::Required, None) => {
                    if i < args.len() {
                        i += 1;
                        Some(args[i - 1].clone())
                    } else {
                        let msg = format!("{prog}: option '--{}' requires an argument\n", opt.name)
                            .into_bytes();
                        return (items, Some(msg));
                    }
                }
            };
            items.push((
                word,
                Item::Opt {
                    id: opt.id,
                    arg: value,
                },
            ));
            continue;
        }
        // A bundle of short options.
        let mut j = 1;
        while j < arg.len() {
            let letter = arg[j];
            j += 1;
            let Some(opt) = table.shorts.iter().find(|s| s.letter == letter) else {
                let msg = quoted(prog, "invalid option -- '", &[letter], "'\n");
                return (items, Some(msg));
            };
            let value = match opt.has_arg {
                HasArg::No => None,
                HasArg::Optional => {
                    let rest = (j < arg.len()).then(|| arg[j..].to_vec());
                    j = arg.len();
                    rest
                }
                HasArg::Required => {
                    if j < arg.len() {
                        let rest = arg[j..].to_vec();
                        j = arg.len();
                        Some(rest)
                    } else if i < args.len() {
                        i += 1;
                        Some(args[i - 1].clone())
                    } else {
                        let msg =
                            quoted(prog, "option requires an argument -- '", &[letter], "'\n");
                        return (items, Some(msg));
                    }
                }
            };
            items.push((
                word,
                Item::Opt {
                    id: opt.id,
                    arg: value,
                },
            ));
        }
    }
    (items, None)
}

enum LongLookup {
    Unknown,
    Ambiguous(Vec<&'static str>),
}

fn find_long<'t, Id>(longs: &'t [LongOpt<Id>], name: &[u8]) -> Result<&'t LongOpt<Id>, LongLookup> {
    if let Some(exact) = longs.iter().find(|l| l.name.as_bytes() == name) {
        return Ok(exact);
    }
    let matches: Vec<&LongOpt<Id>> = longs
        .iter()
        .filter(|l| l.name.as_bytes().starts_with(name))
        .collect();
    match matches.as_slice() {
        [] => Err(LongLookup::Unknown),
        [one] => Ok(one),
        many => Err(LongLookup::Ambiguous(many.iter().map(|l| l.name).collect())),
    }
}

/// How an option argument matched a list of valid words (gnulib `argmatch`):
/// an exact match, or a unique abbreviation.
pub fn argmatch<T: Copy>(arg: &[u8], choices: &[(&'static str, T)]) -> Result<T, ArgmatchError> {
    if let Some((_, v)) = choices.iter().find(|(n, _)| n.as_bytes() == arg) {
        return Ok(*v);
    }
    let matches: Vec<&(&str, T)> = choices
        .iter()
        .filter(|(n, _)| n.as_bytes().starts_with(arg))
        .collect();
    match matches.len() {
        0 => Err(ArgmatchError::Invalid),
        1 => Ok(matches[0].1),
        _ => Err(ArgmatchError::Ambiguous),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgmatchError {
    Invalid,
    Ambiguous,
}
