//! The pattern list: `-e` and `-f` sources split into lines, repeats
//! dropped, and the messages that name where a pattern came from.

use super::options::PatternSource;
use super::syntax::CompileError;

/// A `-f` file that could not be read: its name and the error.
pub type PatternFileError<E> = (Vec<u8>, E);

/// The patterns, in GNU 3.8's order: each line of each `-e` and of each
/// `-f` file (a file's last newline ends its last line), with every repeat
/// of an identical pattern left out (GNU keeps the first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatternList {
    pub patterns: Vec<Vec<u8>>,
    /// Where each pattern came from: its `-f` file as named and its line
    /// there (from 1), or `None` for the command line.
    pub origins: Vec<Option<(Vec<u8>, usize)>>,
}

impl PatternList {
    fn push(&mut self, pattern: &[u8], origin: Option<(Vec<u8>, usize)>) {
        if !self.patterns.iter().any(|p| p == pattern) {
            self.patterns.push(pattern.to_vec());
            self.origins.push(origin);
        }
    }

    /// GNU's line for a compile error: glibc's error for a pattern read
    /// from a file is prefixed with `FILE:LINE: `; the others are bare.
    pub fn error_line(&self, program: &str, error: &CompileError) -> Vec<u8> {
        let origin = error.pattern.and_then(|i| self.origins.get(i)?.as_ref());
        let mut line = format!("{program}: ").into_bytes();
        if let Some((name, number)) = origin {
            line.extend_from_slice(name);
            line.extend_from_slice(format!(":{number}: ").as_bytes());
        }
        line.extend_from_slice(error.message.as_bytes());
        line.push(b'\n');
        line
    }
}

/// The pattern list from its sources.  `None` when there are no patterns
/// at all (only empty `-f` files): nothing matches.
pub fn assemble_patterns<E>(
    sources: &[PatternSource],
    mut read_file: impl FnMut(&[u8]) -> Result<Vec<u8>, E>,
) -> Result<Option<PatternList>, PatternFileError<E>> {
    let mut list = PatternList::default();
    let mut any = false;
    for s in sources {
        match s {
            PatternSource::Expr(e) => {
                any = true;
                for line in e.split(|&b| b == b'\n') {
                    list.push(line, None);
                }
            }
            PatternSource::File(name) => {
                let data = read_file(name).map_err(|e| (name.clone(), e))?;
                if data.is_empty() {
                    continue;
                }
                any = true;
                let body = data.strip_suffix(b"\n").unwrap_or(&data);
                for (i, line) in body.split(|&b| b == b'\n').enumerate() {
                    list.push(line, Some((name.clone(), i + 1)));
                }
            }
        }
    }
    Ok(any.then_some(list))
}

/// The message for a `-f` file that could not be read, given the text of
/// its error.
pub fn pattern_file_error(program: &str, name: &[u8], error: &str) -> Vec<u8> {
    [
        format!("{program}: ").as_bytes(),
        name,
        format!(": {error}\n").as_bytes(),
    ]
    .concat()
}
