//! Tidy tests, as rust-analyzer keeps them: the places a board is named
//! that cannot read the board catalogue (`crates/boards`) are held to it
//! here, so a board added in one place only fails `cargo test` and says
//! where the rest is missing. The firmware's build script, `xtask build`
//! and the board side read the catalogue itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pqbench_boards::{BOARDS, Board, OTHER_FIRMWARE_FEATURES};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is in the workspace").to_path_buf()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

fn catalogue() -> BTreeSet<String> {
    BOARDS.iter().map(|b| b.firmware.to_string()).collect()
}

/// What differs between the catalogue and `found` (read from `place`),
/// as a sentence for the failure.
fn differences(place: &str, found: &BTreeSet<String>) -> Option<String> {
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

/// The firmware's board features: every feature that is not one of the
/// catalogue's other firmware features.
fn firmware_board_features() -> BTreeSet<String> {
    let manifest: toml::Table = read("firmware/Cargo.toml").parse().expect("firmware/Cargo.toml is TOML");
    let features = manifest.get("features").and_then(|f| f.as_table()).expect("the firmware has features");
    let others: BTreeSet<&str> = OTHER_FIRMWARE_FEATURES.iter().copied().collect();
    for other in &others {
        assert!(features.contains_key(*other), "firmware/Cargo.toml has no feature {other:?}");
    }
    features.keys().filter(|f| !others.contains(f.as_str())).cloned().collect()
}

/// The boards with a memory map, `firmware/memory/<board>.x`.
fn memory_maps() -> BTreeSet<String> {
    std::fs::read_dir(root().join("firmware/memory"))
        .expect("firmware/memory")
        .map(|entry| entry.expect("a memory map").file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".x").map(String::from))
        .collect()
}

/// The platform files `firmware/src/boards/mod.rs` picks by feature:
/// `#[cfg(feature = "<board>")]` over `#[path = "<file>"]` over `pub mod board;`.
fn platform_layers() -> Vec<(String, String)> {
    let text = read("firmware/src/boards/mod.rs");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .windows(3)
        .filter(|w| w[2] == "pub mod board;")
        .filter_map(|w| {
            let feature = w[0].strip_prefix("#[cfg(feature = \"")?.strip_suffix("\")]")?;
            let file = w[1].strip_prefix("#[path = \"")?.strip_suffix("\"]")?;
            Some((feature.to_string(), file.to_string()))
        })
        .collect()
}

/// A memory map's regions and their lengths in bytes (`4M - 512K` and the
/// like: sums and differences of sizes).
fn regions(map: &str) -> Vec<(String, u64)> {
    let size = |term: &str| -> u64 {
        let term = term.trim();
        let (digits, unit) = match term.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            Some((at, _)) => term.split_at(at),
            None => (term, ""),
        };
        let n: u64 = digits.parse().unwrap_or_else(|_| panic!("a size: {term:?}"));
        n * match unit.trim() {
            "" => 1,
            "K" => 1024,
            "M" => 1024 * 1024,
            other => panic!("a size unit: {other:?}"),
        }
    };
    map.lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(':')?;
            let length = rest.split("LENGTH =").nth(1)?;
            let mut total: i64 = 0;
            let mut sign = 1;
            for token in length.split_inclusive(['+', '-']) {
                let (term, next) = match token.strip_suffix('+') {
                    Some(term) => (term, 1),
                    None => match token.strip_suffix('-') {
                        Some(term) => (term, -1),
                        None => (token, 1),
                    },
                };
                total += sign * size(term) as i64;
                sign = next;
            }
            Some((name.trim().to_string(), u64::try_from(total).expect("a positive length")))
        })
        .collect()
}

#[test]
fn every_board_of_the_catalogue_has_a_firmware_feature_and_no_other_board_has() {
    if let Some(difference) = differences("firmware/Cargo.toml's features", &firmware_board_features()) {
        panic!("{difference}");
    }
}

#[test]
fn every_board_has_a_memory_map_that_fits_its_chip() {
    if let Some(difference) = differences("firmware/memory/*.x", &memory_maps()) {
        panic!("{difference}");
    }
    for board in BOARDS {
        let map = read(&format!("firmware/memory/{}.x", board.firmware));
        let regions = regions(&map);
        let flash: u64 = regions.iter().filter(|(name, _)| name == "FLASH").map(|(_, n)| n).sum();
        let ram: u64 = regions.iter().filter(|(name, _)| name != "FLASH").map(|(_, n)| n).sum();
        assert_eq!(
            flash, board.chip.flash_bytes,
            "{}: FLASH in its memory map and the catalogue",
            board.firmware
        );
        assert_eq!(
            ram, board.chip.ram_bytes,
            "{}: RAM (all regions but FLASH) and the catalogue",
            board.firmware
        );
    }
}

#[test]
fn every_board_has_its_platform_layer() {
    let layers = platform_layers();
    let features: BTreeSet<String> = layers.iter().map(|(feature, _)| feature.clone()).collect();
    if let Some(difference) = differences("firmware/src/boards/mod.rs's `pub mod board` choices", &features) {
        panic!("{difference}");
    }
    for (feature, file) in &layers {
        let path = root().join("firmware/src/boards").join(file);
        assert!(path.is_file(), "{feature}: no platform layer at {}", path.display());
    }
}

#[test]
fn the_readme_lists_every_board() {
    let readme = read("README.md");
    let section = readme.split("## Boards").nth(1).expect("README.md has a Boards section");
    let table: String = section.lines().take_while(|l| l.is_empty() || l.starts_with('|')).collect();
    let named = |board: &Board| match board.qemu() {
        Some(qemu) => qemu.id,
        None => board.firmware,
    };
    let missing: Vec<_> = BOARDS.iter().map(named).filter(|id| !table.contains(&format!("`{id}`"))).collect();
    assert!(missing.is_empty(), "README.md's board table lacks {missing:?}");
}

#[test]
fn memory_sizes_read_as_the_linker_reads_them() {
    let map = "  FLASH : ORIGIN = 0x0, LENGTH = 4M\n  RAM   : ORIGIN = 0x20080000, LENGTH = 4M - 512K\n";
    assert_eq!(regions(map), [("FLASH".to_string(), 4 << 20), ("RAM".to_string(), (4 << 20) - (512 << 10))]);
}

/// A row of ARCHITECTURE.md's layer table.
struct Layer {
    layer: u32,
    name: String,
    path: String,
    depends: BTreeSet<String>,
    build_depends: BTreeSet<String>,
}

fn architecture_layers() -> Vec<Layer> {
    let text = read("ARCHITECTURE.md");
    let section = text.split("## Layers").nth(1).expect("ARCHITECTURE.md has a Layers section");
    let names = |list: &str| -> BTreeSet<String> {
        list.split(',').map(|n| n.trim().trim_matches('`').to_string()).filter(|n| !n.is_empty()).collect()
    };
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let layer = cells.first()?.parse().ok()?;
            let (normal, build) = match cells.get(3)?.split_once("build:") {
                Some((normal, build)) => (normal.trim_end().trim_end_matches(';'), build),
                None => (*cells.get(3)?, ""),
            };
            Some(Layer {
                layer,
                name: cells.get(1)?.trim_matches('`').to_string(),
                path: cells.get(2)?.trim_matches('`').to_string(),
                depends: names(normal),
                build_depends: names(build),
            })
        })
        .collect()
}

/// The workspace crates a manifest's `table` names.
fn pqbench_dependencies(manifest: &toml::Table, table: &str) -> BTreeSet<String> {
    let Some(dependencies) = manifest.get(table).and_then(|t| t.as_table()) else { return BTreeSet::new() };
    dependencies.keys().filter(|name| name.starts_with("pqbench")).cloned().collect()
}

#[test]
fn every_crate_depends_only_on_lower_layers_as_architecture_md_says() {
    let layers = architecture_layers();
    let members: toml::Table = read("Cargo.toml").parse().expect("Cargo.toml is TOML");
    let members: BTreeSet<String> = members["workspace"]["members"]
        .as_array()
        .expect("workspace members")
        .iter()
        .filter_map(|m| m.as_str().map(String::from))
        .collect();
    let listed: BTreeSet<String> = layers.iter().map(|l| l.path.clone()).collect();
    assert_eq!(listed, members, "ARCHITECTURE.md's layer table and the workspace's members");
    let layer_of = |name: &str| layers.iter().find(|l| l.name == name).map(|l| l.layer);
    for crate_ in &layers {
        let manifest: toml::Table =
            read(&format!("{}/Cargo.toml", crate_.path)).parse().expect("a crate's Cargo.toml is TOML");
        let package = manifest["package"]["name"].as_str().expect("a package name");
        assert_eq!(package, crate_.name, "{}: the package's name", crate_.path);
        assert_eq!(
            pqbench_dependencies(&manifest, "dependencies"),
            crate_.depends,
            "{}: its dependencies and ARCHITECTURE.md's table",
            crate_.name
        );
        assert_eq!(
            pqbench_dependencies(&manifest, "build-dependencies"),
            crate_.build_depends,
            "{}: its build dependencies and ARCHITECTURE.md's table",
            crate_.name
        );
        for dependency in crate_.depends.iter().chain(&crate_.build_depends) {
            let below = layer_of(dependency).unwrap_or_else(|| panic!("{dependency} has no layer"));
            assert!(
                below < crate_.layer,
                "{} (layer {}) depends on {dependency} (layer {below}): no import runs up a layer",
                crate_.name,
                crate_.layer
            );
        }
    }
}

/// The crates of the layer table in ARCHITECTURE.md's code map, in the
/// code map's heading form, `### \`<path>\` (\`<package>\`)`.
fn crates_without_a_code_map_section(text: &str) -> Vec<String> {
    let map = text.split("## Code map").nth(1).unwrap_or_default();
    architecture_layers()
        .iter()
        .map(|layer| format!("### `{}` (`{}`)", layer.path, layer.name))
        .filter(|heading| !map.lines().any(|line| line.starts_with(heading.as_str())))
        .collect()
}

/// Every crate of the layer table has its section in the code map.
#[test]
fn every_crate_of_the_layer_table_has_its_section_in_the_code_map() {
    let missing = crates_without_a_code_map_section(&read("ARCHITECTURE.md"));
    assert!(missing.is_empty(), "ARCHITECTURE.md's code map has no section for: {missing:?}");
    // The check itself: the same text without the store's section fails.
    let text = read("ARCHITECTURE.md");
    let without_store = text.replace("### `crates/store` (`pqbench-store`)", "### the store");
    assert_eq!(crates_without_a_code_map_section(&without_store), ["### `crates/store` (`pqbench-store`)"]);
}

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
        "over {SOFT_LINES} lines of code: split by job, or list in tidy.rs's LONG_FILES with why it is one: {long:?}"
    );
    for (path, why) in LONG_FILES {
        assert!(!why.is_empty(), "{path}: LONG_FILES gives no reason");
        let lines = code_lines.get(*path).copied().unwrap_or(0);
        assert!(lines > SOFT_LINES, "{path} is {lines} lines of code now: take it off LONG_FILES");
    }
}

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
