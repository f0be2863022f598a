//! Every place a board is named that cannot read the catalogue: the
//! firmware's features, memory maps and platform layers, and the README.

use std::collections::BTreeSet;

use pqbench_boards::{BOARDS, Board, OTHER_FIRMWARE_FEATURES};

use super::{differences, read, root};

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
