//! samebytes-oracle: the differential machinery.
//!
//! - [`schedule`]: read and write schedules (`Arbitrary` and proptest
//!   strategies) and the [`schedule::ChunkedReader`] and
//!   [`schedule::ShortWriter`] that apply them.
//! - One driver per tool ([`wc::check_wc`], [`cat::check_cat`],
//!   [`yes::check_yes`], [`grep::check_grep`]) that runs the spec and the implementation on the
//!   same case and compares stdout, stderr and status.
//! - [`order`]: where diagnostics fall among the stdout bytes.
//! - [`mismatch::Mismatch`]: a readable report with a one-line reproducer.
//! - [`campaign`]: the time-boxed randomized campaign behind the CLI.
//! - [`dict`]: the fuzz targets' libFuzzer dictionaries.
//! - [`gnu`]: the GNU builds the conformance tests compare with.

pub mod binary;
pub mod campaign;
pub mod cat;
pub mod codec;
pub mod dict;
pub mod exhaustive;
pub mod gnu;
pub mod grep;
pub mod live;
pub mod mismatch;
pub mod order;
pub mod schedule;
#[allow(unsafe_code)]
pub mod sys;
pub mod wc;
pub mod yes;

/// The fault layer's plan and counters format, shared by source with
/// `samebytes-faultlayer` (whose interposed symbols must never be linked
/// into this process).
#[path = "../../faultlayer/src/plan.rs"]
pub mod faultplan;

/// Decode a reproducer (`wc:<hex>`, `cat:<hex>`, `yes:<hex>`, `grep:<hex>`, `grep-tree:<hex>`, optionally with the
/// command in front)
/// and check it again.
pub fn replay(reproducer: &str) -> Result<Result<(), Box<mismatch::Mismatch>>, String> {
    let spec = reproducer.rsplit(' ').next().unwrap_or(reproducer);
    let (tool, hex) = spec
        .split_once(':')
        .ok_or_else(|| format!("not a reproducer: {spec}"))?;
    match tool {
        "wc" => {
            let case = wc::WcCase::decode(hex).map_err(|_| "malformed wc case".to_string())?;
            Ok(wc::check_wc(&case))
        }
        "cat" => {
            let case = cat::CatCase::decode(hex).map_err(|_| "malformed cat case".to_string())?;
            Ok(cat::check_cat(&case))
        }
        "yes" => {
            let case = yes::YesCase::decode(hex).map_err(|_| "malformed yes case".to_string())?;
            Ok(yes::check_yes(&case))
        }
        "grep" => {
            let case =
                grep::GrepCase::decode(hex).map_err(|_| "malformed grep case".to_string())?;
            Ok(grep::check_grep(&case))
        }
        "grep-tree" => {
            let case = grep::tree::TreeCase::decode(hex)
                .map_err(|_| "malformed grep-tree case".to_string())?;
            Ok(grep::tree::check_grep_tree(&case))
        }
        other => Err(format!("unknown tool in reproducer: {other}")),
    }
}
