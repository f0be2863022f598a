//! The sources' shape: what the board side and the store may reach, that
//! results are only ever inserted, and how long a file may grow.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::{read, root};

#[test]
fn the_board_side_and_the_store_reach_no_http_and_no_agent() {
    for path in ["crates/collect", "crates/store"] {
        let manifest: toml::Table = read(&format!("{path}/Cargo.toml")).parse().expect("TOML");
        let all: BTreeSet<String> = ["dependencies", "build-dependencies"]
            .iter()
            .filter_map(|table| manifest.get(*table).and_then(|t| t.as_table()))
            .flat_map(|t| t.keys().cloned())
            .collect();
        for upper in ["pqbench", "pqbench-agent", "axum", "tower-http", "tokio-tungstenite", "reqwest"] {
            assert!(!all.contains(upper), "{path} depends on {upper}");
        }
    }
}

/// A stored result is never changed or deleted, only inserted: a matrix's
/// head (`pqbench_store::MatrixHead`) counts each run's results to know
/// that they are unchanged, and the server serves a matrix it keeps on
/// that. A statement that updates or deletes results breaks it.
#[test]
fn the_store_only_ever_inserts_results() {
    // The store's statements are a folder of their own (`sql/`): walked too.
    let mut dirs: Vec<PathBuf> = ["crates/store/src", "migrations/sqlite", "migrations/postgres"]
        .iter()
        .map(|d| root().join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("the folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            // Tests may shape a store as they like.
            if name.ends_with("tests.rs") || name == "test_support.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a text file");
            // Test modules inside a source file, too.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let flat = code.split_whitespace().collect::<Vec<_>>().join(" ").to_uppercase();
            for change in ["UPDATE RESULTS", "DELETE FROM RESULTS", "REPLACE INTO RESULTS"] {
                assert!(!flat.contains(change), "{}: `{change}` changes stored results", path.display());
            }
            // An insert that overwrites on conflict changes a result too.
            for insert in flat.split("INTO RESULTS").skip(1) {
                let statement = insert.split(['"', ';']).next().unwrap_or_default();
                assert!(
                    !statement.contains("ON CONFLICT"),
                    "{}: an insert of results overwrites",
                    path.display()
                );
            }
        }
    }
}

/// A source file's code (what comes before its `#[cfg(test)]` tests) past
/// this many lines likely holds more than one job: it is split by job, or
/// listed in [`LONG_FILES`] with why it is one.
const SOFT_LINES: usize = 500;
/// No file's code is past this, listed or not.
const HARD_LINES: usize = 800;
/// The files whose code is over [`SOFT_LINES`], each with why it is one
/// job. An entry for a file back under the limit fails the check, so the
/// list stays what it says.
// None today: every file is under the limit.
const LONG_FILES: &[(&str, &str)] = &[];

/// Tests inside a file do not count against it (moving them out would
/// only hide the length), and test files and test binaries are not held
/// to it at all.
#[test]
fn no_source_file_is_long_without_a_reason() {
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z", "--", "*.rs", "*.js", "*.mjs"])
        .current_dir(root())
        .output()
        .expect("git lists the tracked files");
    let is_tests = |path: &str| {
        path.ends_with("tests.rs") || path.split('/').any(|part| part == "tests" || part == "fuzz_targets")
    };
    let mut long = Vec::new();
    let mut too_long = Vec::new();
    let mut code_lines = BTreeMap::new();
    for path in String::from_utf8_lossy(&listed.stdout).split('\0').filter(|p| !p.is_empty() && !is_tests(p))
    {
        let Ok(text) = std::fs::read_to_string(root().join(path)) else { continue };
        let lines = text.lines().take_while(|line| line.trim() != "#[cfg(test)]").count();
        code_lines.insert(path.to_string(), lines);
        if lines > HARD_LINES {
            too_long.push(format!("{path}: {lines} lines"));
        } else if lines > SOFT_LINES && !LONG_FILES.iter().any(|(listed, _)| *listed == path) {
            long.push(format!("{path}: {lines} lines"));
        }
    }
    assert!(too_long.is_empty(), "over {HARD_LINES} lines of code, split by job: {too_long:?}");
    assert!(
        long.is_empty(),
        "over {SOFT_LINES} lines of code: split by job, or list in xtask/src/tidy/sources.rs's LONG_FILES with why it is one: {long:?}"
    );
    for (path, why) in LONG_FILES {
        assert!(!why.is_empty(), "{path}: LONG_FILES gives no reason");
        let lines = code_lines.get(*path).copied().unwrap_or(0);
        assert!(lines > SOFT_LINES, "{path} is {lines} lines of code now: take it off LONG_FILES");
    }
}
