//! grep's outputs and inputs, exhaustively: the `grep` grid's patterns
//! and locales, its line-handling flags two at a time at the most, and
//! each of the output modes `-l -L -q -a -h -H -b` (or none), on the input
//! as a regular file, as a pipe on stdin, and as two operands of the same
//! bytes (names on every line, per-file listings, `-q`'s early exit, and
//! two files searched on two threads and printed in order).
//!
//! The full product with the `grep` grid's 1024 flag sets would be 24
//! times its size; the line handling's interplay of several flags is that
//! grid's business, and the output modes and inputs meet each flag and
//! each pair of flags here.

use samebytes_spec::world::{Node, Stdin, World};

use super::grep::{check_every_schedule, files_holding, grid_case, ALPHABET, FLAGS, PATTERNS};
use super::{Alphabet, Checker, Tally};
use crate::grep::{FileStrategy, GrepCase};
use crate::mismatch::Mismatch;

/// The output modes, one at a time.
const MODES: [&[u8]; 8] = [b"", b"-l", b"-L", b"-q", b"-a", b"-h", b"-H", b"-b"];

/// Where the input is read from.
#[derive(Clone, Copy, Debug)]
enum Input {
    /// The operand `f`.
    File,
    /// No operand: a pipe on stdin.
    Stdin,
    /// The operands `f` and `g`, both holding the input.
    TwoFiles,
}

const INPUTS: [Input; 3] = [Input::File, Input::Stdin, Input::TwoFiles];

/// The flag sets of the `grep` grid with at most two flags.
fn flag_masks() -> &'static [usize] {
    static MASKS: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    MASKS.get_or_init(|| (0..1024usize).filter(|m| m.count_ones() <= 2).collect())
}

/// Option set `index`: flag set, pattern, locale, mode and input, from the
/// least significant part of the index up.
fn option_set(index: usize) -> (bool, Vec<Vec<u8>>, Input) {
    let masks = flag_masks();
    let mut rest = index;
    let mask = masks[rest % masks.len()];
    rest /= masks.len();
    let pattern = PATTERNS[rest % PATTERNS.len()];
    rest /= PATTERNS.len();
    let utf8 = rest % 2 == 1;
    rest /= 2;
    let mode = MODES[rest % MODES.len()];
    rest /= MODES.len();
    let input = INPUTS[rest % INPUTS.len()];
    let mut args: Vec<Vec<u8>> = FLAGS
        .iter()
        .enumerate()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, f)| f.to_vec())
        .collect();
    if !mode.is_empty() {
        args.push(mode.to_vec());
    }
    args.extend([b"-e".to_vec(), pattern.to_vec()]);
    match input {
        Input::File => args.push(b"f".to_vec()),
        Input::Stdin => {}
        Input::TwoFiles => args.extend([b"f".to_vec(), b"g".to_vec()]),
    }
    (utf8, args, input)
}

pub struct GrepOutputsChecker;

impl GrepOutputsChecker {
    fn case(input: &[u8], index: usize) -> GrepCase {
        let (utf8, args, from) = option_set(index);
        let world = match from {
            Input::File => files_holding(&[b"f"], input),
            Input::Stdin => World {
                stdin: Stdin {
                    node: Node::Stream(input.to_vec()),
                    offset: 0,
                },
                ..World::default()
            },
            Input::TwoFiles => files_holding(&[b"f", b"g"], input),
        };
        grid_case(args, utf8, world, 1)
    }
}

impl Checker for GrepOutputsChecker {
    fn tool(&self) -> &'static str {
        "grep-outputs"
    }

    fn alphabet(&self) -> Alphabet {
        ALPHABET
    }

    fn option_count(&self) -> usize {
        flag_masks().len() * PATTERNS.len() * 2 * MODES.len() * INPUTS.len()
    }

    fn option_sets(&self) -> String {
        format!(
            "the grep grid's {} flag sets of at most two flags × its patterns and locales × none, \
             -l -L -q -a -h -H -b × a file, stdin, two files",
            flag_masks().len()
        )
    }

    fn option_major(&self) -> bool {
        true
    }

    /// The `grep` grid's shifted runs cover the searcher's lanes.
    fn has_shifted_mode(&self) -> bool {
        false
    }

    fn spec_outcome(&self, input: &[u8], index: usize) -> samebytes_spec::Outcome {
        Self::case(input, index).spec_outcome()
    }

    /// Every capacity and read schedule, streamed and mapped; a pipe on
    /// stdin is streamed whatever the strategy, so once.
    fn check_option_set(
        &self,
        input: &[u8],
        index: usize,
        n: usize,
        tally: &Tally,
    ) -> Result<(), Box<Mismatch>> {
        let strategies: &[FileStrategy] = match option_set(index).2 {
            Input::Stdin => &[FileStrategy::Stream],
            Input::File | Input::TwoFiles => &[FileStrategy::Stream, FileStrategy::Mapped],
        };
        check_every_schedule(Self::case(input, index), input.len(), n, strategies, tally)
    }
}
