//! What a test needs from outside the Rust toolchain, and what happens when
//! it is not there.
//!
//! `cargo xtask test` has two tiers. The quick one (`--quick`) runs every
//! host test that needs no firmware image, no PostgreSQL, no browser and no
//! network; it sets [`TIER_VAR`] to `quick`, and a test that needs one of
//! those is skipped, by its name and with what it needs, into the file
//! [`SKIPPED_VAR`] names, which the quick tier prints at its end. Anywhere
//! else (the full tier, a plain `cargo test`) the same test fails, naming
//! what is missing and how to get it: a test command that forgot a
//! PostgreSQL server must not pass with half its tests left out.
//!
//! A test asks with [`require!`] (skip the whole test) or [`or_skip`] (skip
//! one half, such as a test's PostgreSQL half beside its SQLite one):
//!
//! ```no_run
//! # fn a_test() {
//! let image = pqbench_test_needs::require!(pqbench_test_needs::firmware_image("mps2-an386.elf"));
//! # }
//! ```

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `quick` in the quick tier; anything else, or unset, is the full tier.
pub const TIER_VAR: &str = "PQBENCH_TEST_TIER";
/// The file each skip is appended to, a line each: the test's name, a tab,
/// what it needs.
pub const SKIPPED_VAR: &str = "PQBENCH_SKIPPED";
/// Where the built images, dashboard and plugin are (`<target>/dist`).
pub const DIST_VAR: &str = "PQBENCH_DIST";
/// A PostgreSQL URL whose user may create databases.
pub const POSTGRES_VAR: &str = "PQBENCH_TEST_POSTGRES";

/// Something a test needs that is not here, and how to get it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// What is needed, as a person would ask for it: "the firmware image
    /// firmware/mps2-an386.elf".
    pub need: String,
    /// How to get it.
    pub how: String,
}

impl Missing {
    pub fn new(need: impl Into<String>, how: impl Into<String>) -> Missing {
        Missing { need: need.into(), how: how.into() }
    }
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "needs {}, which is missing: {}", self.need, self.how)
    }
}

impl std::error::Error for Missing {}

/// Whether this is the quick tier, where what is missing skips.
pub fn quick_tier() -> bool {
    std::env::var(TIER_VAR).is_ok_and(|tier| tier == "quick")
}

/// `found`'s value; or, if it is missing, None in the quick tier (the skip
/// written down under the running test's name) and a panic naming it in
/// the full one.
#[track_caller]
pub fn or_skip<T>(found: Result<T, Missing>) -> Option<T> {
    match found {
        Ok(value) => Some(value),
        Err(missing) if quick_tier() => {
            record_skip(&test_name(), &missing);
            None
        }
        Err(missing) => panic!("{} {missing}", test_name()),
    }
}

/// The value of a `Result<T, Missing>`, or the test returns at once,
/// skipped (quick tier) or failed (full tier) as [`or_skip`] says.
#[macro_export]
macro_rules! require {
    ($found:expr) => {
        match $crate::or_skip($found) {
            Some(value) => value,
            None => return,
        }
    };
}

/// The running test's name: libtest runs each test on a thread named after
/// it (`module::test`).
fn test_name() -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => String::from("(a test on an unnamed thread)"),
    }
}

/// One line in the skip file, in one write, as tests of one binary run on
/// several threads and the binaries of a crate one after another.
fn record_skip(test: &str, missing: &Missing) {
    let line = format!("{test}\t{}\n", missing.need.replace(['\t', '\n'], " "));
    let Some(file) = std::env::var_os(SKIPPED_VAR) else {
        eprintln!("skipped {test}: {missing}");
        return;
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(error) = written {
        // A skip nobody hears of is a silent one: fail instead.
        panic!("{test}: could not record its skip in {}: {error}", Path::new(&file).display());
    }
}

/// The built artefacts' folder: [`DIST_VAR`], or the workspace's
/// `target/dist` (`cargo xtask build` puts them there).
pub fn dist() -> PathBuf {
    std::env::var_os(DIST_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/dist"))
}

/// A file in [`dist`] that a build makes, by its path there.
pub fn built(relative: &str, what: &str, how: &str) -> Result<PathBuf, Missing> {
    let path = dist().join(relative);
    if path.is_file() { Ok(path) } else { Err(Missing::new(format!("{what} ({})", path.display()), how)) }
}

/// An offered firmware image, `firmware/<file>` in [`dist`].
pub fn firmware_image(file: &str) -> Result<PathBuf, Missing> {
    built(
        &format!("firmware/{file}"),
        &format!("the firmware image {file}"),
        "`cargo xtask test` builds the images its tests use; `cargo xtask build-image BOARD [VARIANT]` one board's",
    )
}

/// An image only tests use, `test/<file>` in [`dist`].
pub fn test_image(file: &str) -> Result<PathBuf, Missing> {
    built(
        &format!("test/{file}"),
        &format!("the test image {file}"),
        "`cargo xtask test` builds it (`cargo xtask build-test-images` alone)",
    )
}

/// The built dashboard, `index.html` and `pkg/` in [`dist`].
pub fn dashboard() -> Result<PathBuf, Missing> {
    built("pkg/pqbench_web_bg.wasm", "the built dashboard", "`cargo xtask build-dashboard` builds it")
        .map(|_| dist())
}

/// The PostgreSQL server's URL, from [`POSTGRES_VAR`].
pub fn postgres() -> Result<String, Missing> {
    match std::env::var(POSTGRES_VAR) {
        Ok(url) if !url.is_empty() => Ok(url),
        _ => Err(Missing::new(
            format!("a PostgreSQL server ({POSTGRES_VAR} unset)"),
            format!(
                "`cargo xtask test` starts a throwaway one and sets {POSTGRES_VAR}; by hand, set it to \
                 a URL whose user may create databases"
            ),
        )),
    }
}

/// Where `cargo xtask setup --tests` unpacks QEMU 10 (from Debian's
/// bookworm-backports), beside Debian 12's QEMU 7.2: the folder's
/// `usr/bin/qemu-system-arm`.
pub const QEMU_10_VAR: &str = "PQBENCH_QEMU_10";

/// QEMU 10's `qemu-system-arm`: [`QEMU_10_VAR`], or where setup unpacks it
/// (`<target>/qemu-10`, beside [`dist`]).
pub fn qemu_10() -> Result<PathBuf, Missing> {
    let path = std::env::var_os(QEMU_10_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| dist().parent().unwrap_or(Path::new(".")).join("qemu-10/usr/bin/qemu-system-arm"));
    if path.is_file() {
        Ok(path)
    } else {
        Err(Missing::new(
            format!("QEMU 10 ({})", path.display()),
            "`cargo xtask setup --tests` unpacks qemu-system-arm from bookworm-backports there",
        ))
    }
}

/// A program on PATH, by the first of `names` found there.
pub fn program(names: &[&str], how: &str) -> Result<PathBuf, Missing> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| Missing::new(format!("the program {}", names.join(" or ")), how))
}

#[cfg(test)]
mod tests;
