//! Tidy tests, as rust-analyzer keeps them: what cannot read the tables it
//! must agree with is held to them here, so a change in one place only
//! fails `cargo test` and says where the rest is missing. One file per job:
//! the board catalogue (`boards.rs`), the crates' layers and settings
//! (`layers.rs`), the sources' shape (`sources.rs`), and the formats and
//! images the tests read (`formats.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pqbench_boards::BOARDS;

mod boards;
mod formats;
mod layers;
mod sources;

pub(super) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is in the workspace").to_path_buf()
}

pub(super) fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

pub(super) fn catalogue() -> BTreeSet<String> {
    BOARDS.iter().map(|b| b.firmware.to_string()).collect()
}

/// What differs between the catalogue and `found` (read from `place`),
/// as a sentence for the failure.
pub(super) fn differences(place: &str, found: &BTreeSet<String>) -> Option<String> {
    let expected = catalogue();
    let missing: Vec<_> = expected.difference(found).collect();
    let unknown: Vec<_> = found.difference(&expected).collect();
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(format!("the catalogue's {missing:?} missing there"));
    }
    if !unknown.is_empty() {
        why.push(format!("{unknown:?} not in the catalogue"));
    }
    (!why.is_empty()).then(|| {
        format!("{place} disagrees with the board catalogue (crates/boards/src/lib.rs): {}", why.join("; "))
    })
}
