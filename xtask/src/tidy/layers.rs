//! The crates against ARCHITECTURE.md: their layers and dependencies, their
//! sections in the code map, and the workspace settings each inherits.

use std::collections::BTreeSet;

use super::read;

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

#[test]
fn every_crate_inherits_the_workspaces_lints_rust_version_and_publish() {
    let workspace: toml::Table = read("Cargo.toml").parse().expect("Cargo.toml is TOML");
    let members = workspace["workspace"]["members"].as_array().expect("workspace members");
    let inherits = |table: Option<&toml::Value>, key: &str| {
        table.and_then(|t| t.get(key)).and_then(|v| v.get("workspace")).and_then(toml::Value::as_bool)
            == Some(true)
    };
    let mut strays = Vec::new();
    for member in members.iter().filter_map(toml::Value::as_str) {
        let manifest: toml::Table =
            read(&format!("{member}/Cargo.toml")).parse().expect("a crate's Cargo.toml is TOML");
        if !inherits(manifest.get("package"), "rust-version") {
            strays.push(format!("{member}: rust-version.workspace = true"));
        }
        if !inherits(manifest.get("package"), "publish") {
            strays.push(format!("{member}: publish.workspace = true"));
        }
        if manifest.get("lints").and_then(|l| l.get("workspace")).and_then(toml::Value::as_bool) != Some(true)
        {
            strays.push(format!("{member}: [lints] workspace = true"));
        }
    }
    assert!(strays.is_empty(), "crates that do not inherit the workspace's settings:\n{}", strays.join("\n"));
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
