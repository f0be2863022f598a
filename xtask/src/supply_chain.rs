//! The full tier's supply-chain check: cargo-deny over the whole workspace
//! graph (the host crates, the firmware and the wasm crates, for each
//! target deny.toml names), with deny.toml's reason for every advisory it
//! accepts and every licence it allows.
//!
//! Bans, licences and sources are read from Cargo.lock and cargo's registry
//! cache, so they run offline once the cache holds every crate the lock
//! file names, for every target: `cargo fetch` sees to that first (a fresh
//! machine's cache holds only what its builds so far needed, and cargo-deny
//! stopped there, unable to read the wasm crates' `web-sys`). Advisories need RustSec's database, a
//! git repository on GitHub: it is fetched when the network allows and an
//! earlier copy is used when it does not. With neither, the advisories are
//! not checked and the tier says so in its table's notes: that is not a
//! pass, and is never printed as one.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::Result;

use crate::{Project, run, setup, step};

/// The cargo-deny `cargo xtask setup --tests` installs (`--locked`).
pub const CARGO_DENY_VERSION: &str = "0.20.2";

/// Whether the advisories could be checked.
pub enum Advisories {
    Checked,
    /// No database could be fetched and none was kept: why.
    NotChecked(String),
}

pub fn check(project: &Project) -> Result<Advisories> {
    step("supply chain: every crate Cargo.lock names, for every target, in cargo's cache (cargo fetch)");
    run(crate::cargo_host(project).args(["fetch", "--locked"]))?;
    step("supply chain: cargo deny check bans licenses sources (deny.toml)");
    run(cargo_deny(project).args(["--offline", "check", "bans", "licenses", "sources"]))?;

    step("supply chain: fetching RustSec's advisory database");
    let fetched = cargo_deny(project)
        .args(["fetch", "db"])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !fetched && !kept_database_exists() {
        return Ok(Advisories::NotChecked(
            "supply chain: advisories NOT checked: RustSec's database (github.com/rustsec/advisory-db) \
             could not be fetched and no earlier copy is kept; bans, licences and sources passed"
                .into(),
        ));
    }
    if !fetched {
        step("supply chain: the database could not be fetched; checking against the copy kept");
    }
    step("supply chain: cargo deny check advisories");
    run(cargo_deny(project).args(["--offline", "check", "advisories"]))?;
    Ok(Advisories::Checked)
}

fn cargo_deny(project: &Project) -> Command {
    let mut command = Command::new(setup::cargo_bin("cargo-deny"));
    command.arg("--color").arg("never").current_dir(&project.root);
    command
}

/// Where cargo-deny keeps its databases: `$CARGO_HOME/advisory-dbs`.
fn databases_dir() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .map(|home| home.join("advisory-dbs"))
}

/// A database an earlier fetch left: a folder `advisory-db-<hash>` holding
/// its `crates` advisories (a failed first fetch leaves only a lock file).
fn kept_database_exists() -> bool {
    let Some(Ok(entries)) = databases_dir().map(std::fs::read_dir) else {
        return false;
    };
    entries.filter_map(Result::ok).any(|entry| {
        entry.file_name().to_string_lossy().starts_with("advisory-db-")
            && entry.path().join("crates").is_dir()
    })
}
