//! The formats the tests and the docs read: the defmt messages the record
//! format lists, and the images tests name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pqbench_boards::{BOARDS, Board};

use super::{read, root};

/// The defmt messages the firmware logs, each a string literal of
/// `firmware/src/report/frames.rs` that starts a record or the banner.
fn firmware_defmt_messages() -> BTreeSet<String> {
    let text = read("firmware/src/report/frames.rs");
    text.lines()
        .filter_map(|line| {
            let start = line.find("\"@pqb1 ").or_else(|| line.find("\"pqbench firmware on "))?;
            let rest = &line[start + 1..];
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// docs/record-format.md lists the defmt messages "exactly": the host
/// rebuilds each record's text line from them, and a field in one but not
/// the other is a record the host refuses.
#[test]
fn the_record_formats_defmt_messages_are_the_firmwares() {
    let docs = read("docs/record-format.md");
    let listed: BTreeSet<String> = docs
        .split("The messages, exactly")
        .nth(1)
        .expect("docs/record-format.md lists the messages")
        .split("```text")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("in a text block")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(String::from)
        .collect();
    assert_eq!(listed, firmware_defmt_messages(), "docs/record-format.md and frames.rs differ");
}

/// Where the tests that read built images are: the server's integration
/// tests, the crates' `tests/` folders, the browser tests, and the unit
/// tests of the probe sequence and of the image size.
const IMAGE_READERS: &[&str] = &[
    "server/tests",
    "crates/m4-model/tests",
    "crates/collect/src/probe/tests.rs",
    "xtask/src/image_size.rs",
    "tests/e2e",
];

fn source_files(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    for entry in std::fs::read_dir(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display())) {
        let path = entry.expect("a directory entry").path();
        if path.file_name().is_some_and(|name| name == "node_modules") {
            continue;
        }
        source_files(&path, files);
    }
}

/// The test tier builds the offered images in `images::TESTED` and only
/// compile-checks the rest: every catalogue image a test names must be in
/// that list, or the test would meet no image in the full tier.
#[test]
fn every_offered_image_a_test_names_is_built_for_the_tests() {
    let offered: BTreeSet<String> =
        BOARDS.iter().flat_map(|b| b.variants().map(|v| b.image_file(v))).collect();
    let tested: BTreeSet<String> = crate::images::TESTED
        .iter()
        .map(|(board, variant)| {
            let board = Board::by_firmware(board).unwrap_or_else(|| panic!("TESTED: no board {board}"));
            assert!(board.offers(variant), "TESTED: {} offers no {variant}", board.firmware);
            board.image_file(pqbench_boards::Variant::named(variant).expect("a variant"))
        })
        .collect();
    let mut files = Vec::new();
    for place in IMAGE_READERS {
        source_files(&root().join(place), &mut files);
    }
    let mut named = BTreeSet::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for literal in text.split('"').skip(1).step_by(2) {
            let name = literal.rsplit('/').next().unwrap_or(literal);
            if offered.contains(name) {
                named.insert(name.to_string());
            }
        }
    }
    let missing: Vec<&String> = named.difference(&tested).collect();
    assert!(
        missing.is_empty(),
        "tests name the images {missing:?}, which xtask/src/images.rs's TESTED does not build for them"
    );
    assert!(named.contains("mps2-an386.elf") && named.contains("netduinoplus2.elf"), "{named:?}");
}
