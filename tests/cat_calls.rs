//! cat's calls under strace's fault injection: an interrupted call never
//! changes what cat does.  Here the one-byte probe that tells which end of
//! a failed copy_file_range failed is interrupted; it must be asked again,
//! and cat must end exactly as it ends when the probe is not interrupted.

mod common;

use std::process::Command;

use common::{binary, Scratch};

/// What a run left: stdout, stderr, status and the output file.
type Ended = (Vec<u8>, String, Option<i32>, Vec<u8>);

/// Run `cat in > out` under strace with `inject`; returns how it ended and
/// the pread64 lines of the trace (the dynamic loader's first).
fn traced_cat(scratch: &Scratch, inject: &[String]) -> (Ended, Vec<String>) {
    let trace = scratch.path.join("trace");
    let out_path = scratch.path.join("out");
    let out = Command::new("strace")
        .arg("-o")
        .arg(&trace)
        .args(["-e", "trace=copy_file_range,pread64"])
        .args(inject)
        .arg(binary("cat"))
        .arg("in")
        .current_dir(&scratch.path)
        .stdout(std::fs::File::create(&out_path).expect("out"))
        .output()
        .expect("strace is installed (.ci/setup)");
    let trace = std::fs::read_to_string(&trace).expect("trace");
    let preads = trace
        .lines()
        .filter(|l| l.starts_with("pread64("))
        .map(str::to_string)
        .collect();
    let ended = (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).replace(&binary("cat").display().to_string(), "cat"),
        out.status.code(),
        std::fs::read(&out_path).expect("read out"),
    );
    (ended, preads)
}

#[test]
fn an_interrupted_probe_after_a_failed_copy_changes_nothing() {
    let scratch = Scratch::new("cat-calls");
    let data: Vec<u8> = (0..200_000u32)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    scratch.file("in", &data);
    // The second copy_file_range fails with EIO; cat then probes the input.
    let fail_copy = [
        "-e".to_string(),
        "inject=copy_file_range:error=EIO:when=2".to_string(),
    ];
    let (plain, preads) = traced_cat(&scratch, &fail_copy);
    assert_eq!(plain.2, Some(1), "the failed copy is reported: {plain:?}");
    let probe = preads
        .iter()
        .position(|l| l.contains(", 1, "))
        .unwrap_or_else(|| panic!("no one-byte probe: {preads:?}"));
    let mut inject = fail_copy.to_vec();
    inject.extend([
        "-e".to_string(),
        format!("inject=pread64:error=EINTR:when={}", probe + 1),
    ]);
    let (interrupted, preads) = traced_cat(&scratch, &inject);
    assert!(
        preads.get(probe).is_some_and(|l| l.contains("EINTR")),
        "the probe was interrupted: {preads:?}"
    );
    assert!(
        preads.get(probe + 1).is_some_and(|l| l.contains(", 1, ")),
        "the probe was asked again: {preads:?}"
    );
    assert_eq!(
        interrupted, plain,
        "an interrupted probe changed the outcome"
    );
}
