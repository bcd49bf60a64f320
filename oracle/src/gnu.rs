//! The GNU builds that conformance runs compare with.
//!
//! The spec follows current GNU.  Three builds can stand beside it:
//! - `system`: the machine's own, in /usr/bin (Debian 12: coreutils 9.1,
//!   grep 3.8);
//! - `trixie`: Debian 13's coreutils 9.7 and grep 3.11, with their own C
//!   library and PCRE2, unpacked by `.ci/gnu-current trixie` into
//!   `.gnu/trixie/bin` (a stable suite: the gate's current column);
//! - `sid`: the newest GNU, coreutils 9.10 and grep 3.12, the same way
//!   (it moves, so CI runs it as a column that warns).
//!
//! `SAMEBYTES_GNU` names the columns a conformance test runs, separated by
//! commas; without it, `system,trixie`.  A column that is named but not
//! installed is an error that names the command installing it: a test
//! never quietly runs fewer columns than asked.  `SAMEBYTES_GNU_DIR`
//! moves the `.gnu` folder.
//!
//! Where two GNU versions answer differently, a test's exclusion rule asks
//! the build's version ([`Gnu::coreutils`], [`Gnu::grep`]), so a rule that
//! exists only because an old version lacked a fix leaves the newer
//! columns alone.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A GNU release number, `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// One GNU build: where its `wc`, `cat`, `yes` and `grep` are, and which
/// releases they are.
#[derive(Clone, Debug)]
pub struct Gnu {
    /// `system`, `trixie` or `sid`.
    pub column: String,
    bin: PathBuf,
    pub coreutils: Version,
    pub grep: Version,
    /// The Debian version of the PCRE2 library its grep `-P` runs on.
    pub pcre2: String,
}

impl Gnu {
    /// The machine's own GNU, in /usr/bin.
    pub fn system() -> Result<Gnu, String> {
        let out = Command::new("dpkg-query")
            .args(["-W", "-f", "${Version}", "libpcre2-8-0"])
            .output()
            .map_err(|e| format!("dpkg-query: {e}"))?;
        let pcre2 = String::from_utf8_lossy(&out.stdout).into_owned();
        Gnu::at("system", Path::new("/usr/bin"), pcre2)
    }

    /// A Debian suite's GNU, unpacked by `.ci/gnu-current SUITE`.
    pub fn suite(name: &str) -> Result<Gnu, String> {
        let bin = gnu_dir().join(name).join("bin");
        if !bin.join("grep").exists() {
            return Err(format!(
                "GNU from Debian {name} is not installed in {}: run `bash .ci/gnu-current {name}` \
                 (`.ci/setup` does this for trixie and sid)",
                bin.display()
            ));
        }
        let versions = std::fs::read_to_string(bin.with_file_name("VERSIONS"))
            .map_err(|e| format!("{}: {e}", bin.with_file_name("VERSIONS").display()))?;
        let pcre2 = versions
            .lines()
            .find_map(|l| l.strip_prefix("libpcre2-8-0="))
            .unwrap_or_default()
            .to_string();
        Gnu::at(name, &bin, pcre2)
    }

    fn at(column: &str, bin: &Path, pcre2: String) -> Result<Gnu, String> {
        Ok(Gnu {
            column: column.to_string(),
            bin: bin.to_path_buf(),
            coreutils: version_of(&bin.join("wc"))?,
            grep: version_of(&bin.join("grep"))?,
            pcre2,
        })
    }

    /// Does its grep `-P` run on the PCRE2 release ours links (the
    /// system's)?  `pcre2-release` (docs/differences.md): PCRE2 10.43
    /// changed what patterns compile (variable-length lookbehinds) and
    /// lets grep 3.11 and later match Unicode classes (`PCRE2_UCP`, which
    /// grep asks for only where `PCRE2_EXTRA_ASCII_BSD` keeps `\d`
    /// ASCII); grep 3.12 built on the system's 10.42 does neither, as ours.
    pub fn pcre2_is_ours(&self) -> bool {
        static SYSTEM: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let system = SYSTEM.get_or_init(|| Gnu::system().map(|g| g.pcre2).unwrap_or_default());
        self.pcre2 == *system
    }

    /// The program of one tool, `wc`, `cat`, `yes` or `grep`.
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// The build's column and versions, for reports.
    pub fn label(&self) -> String {
        format!(
            "{} (coreutils {}, grep {})",
            self.column, self.coreutils, self.grep
        )
    }
}

/// The columns `SAMEBYTES_GNU` names (by default `system,trixie`).
pub fn columns() -> Result<Vec<Gnu>, String> {
    let named = std::env::var("SAMEBYTES_GNU").unwrap_or_else(|_| "system,trixie".into());
    named
        .split(',')
        .filter(|c| !c.is_empty())
        .map(|c| match c {
            "system" => Gnu::system(),
            suite => Gnu::suite(suite),
        })
        .collect()
}

/// [`columns`], or a panic that says what to install: for tests.
pub fn columns_or_panic() -> Vec<Gnu> {
    let cols = columns().unwrap_or_else(|e| panic!("{e}"));
    assert!(!cols.is_empty(), "SAMEBYTES_GNU names no GNU build");
    cols
}

/// Where `.ci/gnu-current` unpacks: `SAMEBYTES_GNU_DIR`, or `.gnu` at the
/// workspace's root.
fn gnu_dir() -> PathBuf {
    match std::env::var_os("SAMEBYTES_GNU_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace root")
            .join(".gnu"),
    }
}

/// The release a GNU tool's `--version` names on its first line
/// (`grep (GNU grep) 3.11`).
fn version_of(program: &Path) -> Result<Version, String> {
    let out = Command::new(program)
        .arg("--version")
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    let number = first.rsplit(' ').next().unwrap_or_default();
    let mut parts = number.split('.').map(|p| p.parse::<u32>());
    match (parts.next(), parts.next()) {
        (Some(Ok(major)), Some(Ok(minor))) => Ok(Version(major, minor)),
        _ => Err(format!("{}: no version in {first:?}", program.display())),
    }
}

/// `quotearg-restart-state` (docs/differences.md): does `gnu` quote this
/// name in a diagnostic otherwise than current GNU?  The gnulib of
/// coreutils 9.1 and grep 3.8 began the quoted form of a name with an
/// apostrophe and a final escaped byte inside a `$'...'` segment; 9.7 and
/// 3.11 do not.  Read off the bytes, a little wide: an apostrophe, and a
/// last byte that is not printable ASCII.
pub fn quotes_name_otherwise(gnu: &Gnu, name: &[u8]) -> bool {
    gnu.coreutils < Version(9, 7)
        && name.contains(&b'\'')
        && name.last().is_some_and(|b| !(0x20..0x7f).contains(b))
}
