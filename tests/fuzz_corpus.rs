//! Replay the committed fuzz corpora through the same drivers the fuzz
//! targets call, so a stable toolchain checks them on every `cargo test`.

use std::path::Path;

/// Replay every committed input of `target`; each must decode to a case
/// (one that no longer does checks nothing, and fails here).
fn replay(target: &str, body: fn(&[u8]) -> bool) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    entries.sort();
    let mut undecodable = Vec::new();
    for path in &entries {
        let data = std::fs::read(path).expect("read corpus file");
        let outcome = std::panic::catch_unwind(|| body(&data));
        match outcome {
            Ok(true) => {}
            Ok(false) => undecodable.push(path.display().to_string()),
            Err(_) => panic!("corpus input {} fails", path.display()),
        }
    }
    assert!(
        undecodable.is_empty(),
        "{} of {} {target} corpus inputs no longer decode to a case: {undecodable:?}",
        undecodable.len(),
        entries.len()
    );
    entries.len()
}

#[test]
fn wc_corpus_replays_clean() {
    let n = replay("wc", samebytes_oracle::wc::fuzz_wc);
    assert!(n >= 20, "the wc corpus has only {n} inputs");
}

#[test]
fn cat_corpus_replays_clean() {
    let n = replay("cat", samebytes_oracle::cat::fuzz_cat);
    assert!(n >= 20, "the cat corpus has only {n} inputs");
}

#[test]
fn yes_corpus_replays_clean() {
    let n = replay("yes", samebytes_oracle::yes::fuzz_yes);
    assert!(n >= 20, "the yes corpus has only {n} inputs");
}

#[test]
fn grep_corpus_replays_clean() {
    let n = replay("grep", samebytes_oracle::grep::fuzz_grep);
    assert!(n >= 20, "the grep corpus has only {n} inputs");
}

#[test]
fn grep_tree_corpus_replays_clean() {
    let n = replay("grep_tree", samebytes_oracle::grep::tree::fuzz_grep_tree);
    assert!(n >= 20, "the grep_tree corpus has only {n} inputs");
}

/// The committed dictionaries (`fuzz/dict/`, which the fuzz smoke and the
/// ClusterFuzzLite build use) are what the option tables give now: one per
/// fuzz target.
#[test]
fn every_fuzz_target_has_its_generated_dictionary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut targets: Vec<String> = std::fs::read_dir(root.join("fuzz_targets"))
        .expect("fuzz targets")
        .map(|e| e.expect("entry").path())
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .collect();
    targets.sort();
    assert!(targets.len() >= 5, "{targets:?}");
    for target in targets {
        let generated = samebytes_oracle::dict::dictionary(&target)
            .unwrap_or_else(|| panic!("no dictionary for the fuzz target {target}"));
        let path = root.join("dict").join(format!("{target}.dict"));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is stale: cargo run -p samebytes-oracle -- dict {target} > fuzz/dict/{target}.dict",
            path.display()
        );
    }
}
