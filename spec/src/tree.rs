//! A directory tree as `readdir`, `lstat`, `stat` and `open` see it: the
//! model grep's recursive search walks.  Paths are relative to the working
//! directory, which is the tree's root.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::Errno;

/// One directory entry, as `lstat` sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// A directory and the names in it, in `readdir` order.
    Dir(Vec<Vec<u8>>),
    /// A symbolic link and its target, as `readlink` gives it.
    Symlink(Vec<u8>),
    /// A FIFO, socket or device, and what a reader of it gets.
    Special(Vec<u8>),
}

/// A tree of entries.  The root directory's key is the empty path; every
/// other key is its parent's key, `/`, and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub entries: BTreeMap<Vec<u8>, Entry>,
    /// Keys that `open` (for a directory, `opendir` too) refuses with
    /// EACCES: no permission at all, so a lookup through such a directory
    /// fails with EACCES too.  `stat` still works on them.
    pub unreadable: BTreeSet<Vec<u8>>,
    /// Directories whose listing fails with EIO (a bad block, a file
    /// system gone) once this many of their names have been read: 0 when
    /// the first `getdents64` fails.  The names read are walked, and the
    /// error is reported after them, as gnulib's fts does.
    pub list_errors: BTreeMap<Vec<u8>, usize>,
    /// Keys whose opening fails with this error though `stat` sees them
    /// and lookups through them work: an entry removed between its
    /// listing and its opening (ENOENT), descriptors run out (EMFILE,
    /// ENFILE), a failing file system (EIO).
    pub open_errors: BTreeMap<Vec<u8>, Errno>,
    /// Keys that no `stat` describes (EIO), though they open and read: a
    /// file system whose attributes fail.  Links to them are described by
    /// `lstat` as any link.
    pub stat_errors: BTreeSet<Vec<u8>>,
}

impl Default for Tree {
    fn default() -> Self {
        Tree {
            entries: BTreeMap::from([(Vec::new(), Entry::Dir(Vec::new()))]),
            unreadable: BTreeSet::new(),
            list_errors: BTreeMap::new(),
            open_errors: BTreeMap::new(),
            stat_errors: BTreeSet::new(),
        }
    }
}

/// The key of `name` inside the directory with key `dir`.
pub fn child_key(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        name.to_vec()
    } else {
        [dir, b"/", name].concat()
    }
}

/// How many symbolic links one lookup may follow (Linux's limit).
const MAX_LINKS: usize = 40;

impl Tree {
    /// The key a path leads to, following symbolic links on the way, and
    /// the last one too if `follow_last` (or the path ends in `/`).  Fails
    /// as the kernel's lookup does: ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG.
    /// A target starting with `/` counts from the tree's root.
    pub fn resolve(&self, path: &[u8], follow_last: bool) -> Result<Vec<u8>, Errno> {
        if path.is_empty() {
            return Err(Errno::NoEntry);
        }
        if crate::world::name_too_long(path) {
            return Err(Errno::NameTooLong);
        }
        let mut must_be_dir = path.ends_with(b"/");
        // Components still to look up, the next one last.
        let mut todo: Vec<Vec<u8>> = components(path).rev().collect();
        let mut at: Vec<Vec<u8>> = Vec::new();
        let mut links = 0;
        while let Some(c) = todo.pop() {
            match c.as_slice() {
                b"." => continue,
                b".." => {
                    at.pop();
                    continue;
                }
                _ => {}
            }
            let last = todo.is_empty();
            let dir = at.concat_with_slash();
            // An unreadable directory (mode 0) cannot be searched either.
            if self.unreadable.contains(&dir) {
                return Err(Errno::Access);
            }
            let key = child_key(&dir, &c);
            match self.entries.get(&key) {
                None => return Err(Errno::NoEntry),
                Some(Entry::Symlink(target)) if !last || follow_last || must_be_dir => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(Errno::Loop);
                    }
                    if target.starts_with(b"/") {
                        at.clear();
                    }
                    // A target ending in `/` names a directory, as a path
                    // ending in one does (`a -> sub/` with `sub` a file:
                    // ENOTDIR).
                    must_be_dir |= last && target.ends_with(b"/");
                    todo.extend(components(target).rev());
                }
                Some(Entry::Dir(_)) => at.push(c),
                Some(_) if last && !must_be_dir => at.push(c),
                Some(_) => return Err(Errno::NotDirectory),
            }
        }
        Ok(at.concat_with_slash())
    }

    pub fn get(&self, key: &[u8]) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// The error opening the entry with this key fails with, if it does.
    pub fn open_error(&self, key: &[u8]) -> Option<Errno> {
        match self.unreadable.contains(key) {
            true => Some(Errno::Access),
            false => self.open_errors.get(key).copied(),
        }
    }

    /// The error opening the entry and then describing it (`fstat`) meets
    /// first, if one does: what opening an input takes.
    pub fn open_and_stat_error(&self, key: &[u8]) -> Option<Errno> {
        self.open_error(key)
            .or_else(|| self.stat_errors.contains(key).then_some(Errno::Io))
    }

    /// Read a tree from disk with `std::fs`: every directory's names in
    /// `readdir` order, without following symbolic links.  What cannot be
    /// read (EACCES) is marked unreadable.
    pub fn load(root: &Path) -> std::io::Result<Tree> {
        let mut tree = Tree {
            entries: BTreeMap::new(),
            unreadable: BTreeSet::new(),
            list_errors: BTreeMap::new(),
            open_errors: BTreeMap::new(),
            stat_errors: BTreeSet::new(),
        };
        tree.load_dir(root, Vec::new())?;
        Ok(tree)
    }

    fn load_dir(&mut self, dir: &Path, key: Vec<u8>) -> std::io::Result<()> {
        let denied = |e: &std::io::Error| e.kind() == std::io::ErrorKind::PermissionDenied;
        let listing = match std::fs::read_dir(dir) {
            Ok(l) => l,
            Err(e) if denied(&e) => {
                self.unreadable.insert(key.clone());
                self.entries.insert(key, Entry::Dir(Vec::new()));
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let mut names = Vec::new();
        for item in listing {
            let item = item?;
            let name = item.file_name().as_bytes().to_vec();
            let path = item.path();
            let kind = std::fs::symlink_metadata(&path)?.file_type();
            let k = child_key(&key, &name);
            names.push(name);
            if kind.is_dir() {
                self.load_dir(&path, k)?;
                continue;
            }
            let entry = if kind.is_symlink() {
                Entry::Symlink(std::fs::read_link(&path)?.as_os_str().as_bytes().to_vec())
            } else if kind.is_file() {
                match std::fs::read(&path) {
                    Ok(data) => Entry::File(data),
                    Err(e) if denied(&e) => {
                        self.unreadable.insert(k.clone());
                        Entry::File(Vec::new())
                    }
                    Err(e) => return Err(e),
                }
            } else {
                Entry::Special(Vec::new())
            };
            self.entries.insert(k, entry);
        }
        self.entries.insert(key, Entry::Dir(names));
        Ok(())
    }
}

/// A path's non-empty components.
fn components(path: &[u8]) -> impl DoubleEndedIterator<Item = Vec<u8>> + '_ {
    path.split(|&b| b == b'/')
        .filter(|c| !c.is_empty())
        .map(<[u8]>::to_vec)
}

trait JoinKey {
    fn concat_with_slash(&self) -> Vec<u8>;
}

impl JoinKey for Vec<Vec<u8>> {
    fn concat_with_slash(&self) -> Vec<u8> {
        self.join(&b'/')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&str, Entry)]) -> Tree {
        let mut t = Tree::default();
        for (k, e) in entries {
            t.entries.insert(k.as_bytes().to_vec(), e.clone());
        }
        t
    }

    #[test]
    fn resolve_follows_links_as_the_kernel_does() {
        let d = |names: &[&str]| Entry::Dir(names.iter().map(|n| n.as_bytes().to_vec()).collect());
        let l = |t: &str| Entry::Symlink(t.as_bytes().to_vec());
        let t = tree(&[
            ("", d(&["a", "d"])),
            ("a", Entry::File(b"x".to_vec())),
            ("d", d(&["up", "la", "self", "dang", "fs"])),
            ("d/up", l("..")),
            ("d/la", l("../a")),
            ("d/self", l("self")),
            ("d/dang", l("nowhere")),
            ("d/fs", l("../a/")),
        ]);
        let r = |p: &str, f: bool| {
            t.resolve(p.as_bytes(), f)
                .map(|k| String::from_utf8(k).unwrap())
        };
        assert_eq!(r("d/up/d/la", true), Ok("a".into()));
        assert_eq!(r("d/la", false), Ok("d/la".into()));
        assert_eq!(r("d/up/", false), Ok("".into()));
        assert_eq!(r("./d/../a", true), Ok("a".into()));
        assert_eq!(r("d/self", true), Err(Errno::Loop));
        assert_eq!(r("d/dang", true), Err(Errno::NoEntry));
        assert_eq!(r("d/dang", false), Ok("d/dang".into()));
        assert_eq!(r("a/b", true), Err(Errno::NotDirectory));
        assert_eq!(r("a/", true), Err(Errno::NotDirectory));
        // A link's target ending in `/` must be a directory, as a path's.
        assert_eq!(r("d/fs", true), Err(Errno::NotDirectory));
        assert_eq!(r("d/fs", false), Ok("d/fs".into()));
        assert_eq!(r("d/fs/", false), Err(Errno::NotDirectory));
    }
}
