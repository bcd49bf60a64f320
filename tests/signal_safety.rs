//! The SIGBUS handler of the shipped binaries calls only async-signal-safe
//! code.  It may interrupt anything (malloc holding its lock, a `OnceLock`
//! being initialised, a panic being formatted), so everything it runs, to
//! the last instruction, must be atomics, the system calls `mmap`, `signal`
//! and `raise`, `__errno_location`, and the previous handler (an indirect
//! call).  Read from the release binary's machine code: every call the
//! handler makes, followed through every function it reaches.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

/// The C library functions the handler may reach.
const SAFE: [&str; 5] = ["__errno_location", "mmap", "mmap64", "signal", "raise"];

/// Each function of a disassembly, by symbol, with its instructions.
fn functions(disassembly: &str) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let mut current = None;
    for line in disassembly.lines() {
        if let Some(name) = line
            .split_once(" <")
            .filter(|(addr, rest)| {
                !addr.is_empty()
                    && addr.bytes().all(|b| b.is_ascii_hexdigit())
                    && rest.ends_with(">:")
            })
            .map(|(_, rest)| rest.trim_end_matches(">:").to_string())
        {
            current = Some(name.clone());
            out.entry(name).or_default();
        } else if let Some(name) = &current {
            out.get_mut(name).unwrap().push(line.to_string());
        }
    }
    out
}

/// What one instruction calls: `Some(Ok(function))` for code in the
/// binary, `Some(Err(name))` for a C library function (by PLT or GOT),
/// `None` for an indirect call or no call.
fn callee(instruction: &str, within: &str) -> Option<Result<String, String>> {
    let text = instruction.split('\t').nth(1)?.trim();
    let is_call = text.starts_with("call");
    let is_jump = text.starts_with("jmp");
    if !is_call && !is_jump {
        return None;
    }
    // The symbol a direct target or a GOT slot's comment names.
    let symbol = text
        .rsplit_once(" <")
        .map(|(_, s)| s.trim_end_matches('>'))?;
    let (name, _offset) = symbol.split_once('+').unwrap_or((symbol, ""));
    if let Some((libc, _)) = name.split_once('@') {
        return Some(Err(libc.to_string()));
    }
    // A jump inside the same function is control flow, not a call.
    (is_call || name != within).then(|| Ok(name.to_string()))
}

#[test]
fn the_sigbus_handler_reaches_only_async_signal_safe_calls() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "samebytes",
            "--bin",
            "wc",
        ])
        .status()
        .expect("run cargo build");
    assert!(built.success(), "building the release wc failed");
    let exe = std::env::current_exe().expect("test executable");
    let target = exe.ancestors().nth(3).expect("target folder");
    let binary = target.join("release").join("wc");
    let objdump = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(&binary)
        .output()
        .expect("objdump (binutils) disassembles the binary");
    assert!(objdump.status.success(), "objdump failed");
    let functions = functions(&String::from_utf8_lossy(&objdump.stdout));
    let handler = functions
        .keys()
        .find(|name| name.contains("on_sigbus"))
        .expect("the handler is in the binary")
        .clone();
    let (mut seen, mut queue) = (BTreeSet::new(), vec![handler.clone()]);
    let mut external = BTreeSet::new();
    while let Some(function) = queue.pop() {
        if !seen.insert(function.clone()) {
            continue;
        }
        let body = functions
            .get(&function)
            .unwrap_or_else(|| panic!("{function} is not in the disassembly"));
        for instruction in body {
            match callee(instruction, &function) {
                Some(Ok(f)) => queue.push(f),
                Some(Err(libc)) => {
                    external.insert(libc);
                }
                None => {}
            }
        }
    }
    let unsafe_calls: Vec<_> = external
        .iter()
        .filter(|name| !SAFE.contains(&name.as_str()))
        .collect();
    assert!(
        unsafe_calls.is_empty(),
        "the handler reaches {unsafe_calls:?} (through {seen:?})"
    );
    // Not vacuous: the handler's own system calls were found.
    assert!(
        external.contains("mmap") && external.contains("raise"),
        "{external:?}"
    );
    // Nothing of Rust's runtime either: no panic, no allocation, no lock.
    let runtime: Vec<_> = seen
        .iter()
        .filter(|f| {
            ["panic", "alloc", "once", "Once", "Mutex", "fmt"]
                .iter()
                .any(|w| f.contains(w))
        })
        .collect();
    assert!(runtime.is_empty(), "the handler reaches {runtime:?}");
}
