//! grep's recursive cases in the binary campaign: a tree of files,
//! directories and symbolic links, written to disk under the case's
//! folder, and a `-r`/`-R` command line over it.  Some entries cannot be
//! opened (the fault layer refuses them with EACCES, as root cannot
//! otherwise meet them, or with ENOENT, EMFILE, ENFILE or EIO), some
//! cannot be described (every `stat` of them fails with EIO), and some
//! directories' listings fail with EIO part way (the layer fails their
//! `getdents64`).  Links stay inside the tree, and operands name
//! entries of it, so that every name resolves on disk as the spec's tree
//! says.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use samebytes_spec::tree::{child_key, Entry, Tree};

use super::case::Rng;
use crate::grep::tree::{NAMES, OPEN_ERRORS, TREE_FLAGS};

/// A recursive case: its tree and its arguments.
pub fn tree_case(rng: &mut Rng, body: &mut dyn FnMut(&mut Rng) -> Vec<u8>) -> (Tree, Vec<Vec<u8>>) {
    let mut tree = Tree::default();
    fill(rng, &mut tree, b"", 0, body);
    let args = args(rng, &tree);
    (tree, args)
}

/// Fill the directory `key`, `depth` below the root.
fn fill(
    rng: &mut Rng,
    tree: &mut Tree,
    key: &[u8],
    depth: usize,
    body: &mut dyn FnMut(&mut Rng) -> Vec<u8>,
) {
    let mut names: Vec<Vec<u8>> = Vec::new();
    for _ in 0..rng.below(5) + u64::from(depth == 0) {
        let name = rng.pick(NAMES).to_vec();
        if names.contains(&name) {
            continue;
        }
        let k = child_key(key, &name);
        names.push(name);
        let entry = match rng.below(10) {
            0..=4 => Entry::File(body(rng)),
            5 | 6 if depth < 2 => {
                tree.entries.insert(k.clone(), Entry::Dir(Vec::new()));
                fill(rng, tree, &k, depth + 1, body);
                if rng.chance(1, 10) {
                    tree.unreadable.insert(k);
                } else if rng.chance(1, 10) {
                    tree.open_errors.insert(k, rng.pick(&OPEN_ERRORS));
                } else if rng.chance(1, 10) {
                    tree.stat_errors.insert(k);
                } else if rng.chance(1, 8) {
                    // Its listing fails with EIO: at once, after some of
                    // its names, or after all of them.
                    let names = match tree.get(&k) {
                        Some(Entry::Dir(names)) => names.len(),
                        _ => 0,
                    };
                    tree.list_errors
                        .insert(k, rng.below(names as u64 + 1) as usize);
                }
                continue;
            }
            // Relative targets that stay inside the tree: `..` only below
            // its root.
            7 => {
                let targets: &[&[u8]] = &[b"a", b"nowhere", b"x.txt", b"../a"];
                Entry::Symlink(rng.pick(&targets[..3 + usize::from(depth > 0)]).to_vec())
            }
            8 => {
                let targets: &[&[u8]] = &[b".", b"sub", b"sub/", b"..", b"../sub"];
                Entry::Symlink(
                    rng.pick(&targets[..3 + 2 * usize::from(depth > 0)])
                        .to_vec(),
                )
            }
            // A link to itself: ELOOP for whoever follows it (`-R`).
            _ if rng.chance(1, 2) => Entry::Symlink(name_of(&k)),
            _ => Entry::File(Vec::new()),
        };
        if matches!(entry, Entry::File(_)) && rng.chance(1, 10) {
            tree.unreadable.insert(k.clone());
        } else if matches!(entry, Entry::File(_)) && rng.chance(1, 10) {
            tree.open_errors.insert(k.clone(), rng.pick(&OPEN_ERRORS));
        }
        if matches!(entry, Entry::File(_)) && rng.chance(1, 14) {
            tree.stat_errors.insert(k.clone());
        }
        tree.entries.insert(k, entry);
    }
    tree.entries.insert(key.to_vec(), Entry::Dir(names));
}

/// The last component of a key.
fn name_of(key: &[u8]) -> Vec<u8> {
    key.rsplit(|&b| b == b'/').next().unwrap_or(key).to_vec()
}

/// `-r` or `-R`, output options, globs, a pattern, and operands: the
/// root's entries, `.`, `-` and a missing name (none through a directory
/// that cannot be opened: on disk its entries are still reachable).
fn args(rng: &mut Rng, tree: &Tree) -> Vec<Vec<u8>> {
    let s = |x: &str| x.as_bytes().to_vec();
    let mut args = vec![s(rng.pick(&[
        "-r",
        "-R",
        "--recursive",
        "--directories=recurse",
    ]))];
    for _ in 0..=rng.below(2) {
        args.extend(rng.pick(TREE_FLAGS).iter().map(|f| s(f)));
    }
    for _ in 0..rng.below(3) {
        let glob = rng.pick(&[
            "*.c", "a*", "*a", "x.txt", "sub", "d*", "[ab]*", "?", "*.txt",
        ]);
        let opt = rng.pick(&["--include=", "--exclude=", "--exclude-dir="]);
        args.push(s(&format!("{opt}{glob}")));
    }
    args.push(s(
        rng.pick(&["lorem", "o", "^", "x", "dolor$", "[^o]", "\\(or\\)"])
    ));
    let top = match tree.get(b"") {
        Some(Entry::Dir(names)) => names.clone(),
        _ => Vec::new(),
    };
    for _ in 0..rng.below(4) {
        let operand = match rng.below(6) {
            0 => s(rng.pick(&[".", "./", "-", "nonexistent"])),
            _ if !top.is_empty() => {
                let name = top[rng.below(top.len() as u64) as usize].clone();
                let dir = matches!(tree.get(&name), Some(Entry::Dir(_)));
                match dir && rng.chance(1, 3) {
                    true => [name, b"/".to_vec()].concat(),
                    false => name,
                }
            }
            _ => s("."),
        };
        args.push(operand);
    }
    args
}

/// Write `tree` under `root` (made here).  Unreadable entries are written
/// as any other; the caller has the layer refuse them.
pub fn write(tree: &Tree, root: &Path) {
    // Keys sort parents first.
    for (key, entry) in &tree.entries {
        let path = root.join(OsStr::from_bytes(key));
        match entry {
            Entry::Dir(_) => std::fs::create_dir_all(&path).expect("mkdir"),
            Entry::File(data) => std::fs::write(&path, data).expect("write file"),
            Entry::Symlink(target) => {
                std::os::unix::fs::symlink(OsStr::from_bytes(target), &path).expect("symlink")
            }
            Entry::Special(_) => unreachable!("the generator makes none"),
        }
    }
}

/// The tree as it lies on disk: each directory's names in the order the
/// kernel lists them (what grep walks), the unreadable entries `tree`'s.
pub fn listed(tree: &Tree, root: &Path) -> Tree {
    let mut on_disk = Tree::load(root).expect("read the tree back");
    on_disk.unreadable = tree.unreadable.clone();
    on_disk.list_errors = tree.list_errors.clone();
    on_disk.open_errors = tree.open_errors.clone();
    on_disk.stat_errors = tree.stat_errors.clone();
    on_disk
}
