//! Writes down what this build is (profile, optimisation, LTO, compiler,
//! the crates that do the cryptography) for the upload's `build` record.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates whose versions decide the figures.
const CRATES: &[&str] = &["ml-kem", "rand_chacha"];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest.parent().expect("the crate is in the workspace").to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let profile = profile_name(&out);
    let lto = profile_setting(&workspace.join("Cargo.toml"), &profile, "lto").unwrap_or_else(|| "false".into());
    let lock = fs::read_to_string(workspace.join("Cargo.lock")).unwrap_or_default();
    let crates: Vec<String> =
        CRATES.iter().filter_map(|name| locked_version(&lock, name).map(|v| format!("{name}@{v}"))).collect();
    let rustc = env::var("PQBENCH_RUSTC").ok().or_else(rustc_version).unwrap_or_default();

    println!("cargo:rustc-env=PQBENCH_PROFILE={profile}");
    println!("cargo:rustc-env=PQBENCH_OPT_LEVEL={}", env::var("OPT_LEVEL").unwrap_or_default());
    println!("cargo:rustc-env=PQBENCH_LTO={lto}");
    println!("cargo:rustc-env=PQBENCH_CRATES={}", crates.join(","));
    println!("cargo:rustc-env=PQBENCH_RUSTC={rustc}");
    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.lock").display());
    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.toml").display());
    println!("cargo:rerun-if-env-changed=PQBENCH_RUSTC");
}

/// Cargo does not name the profile to build scripts, but it is the folder
/// above `build/` in OUT_DIR (`target/<triple>/<profile>/build/...`).
fn profile_name(out: &Path) -> String {
    out.ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(|build| build.parent())
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "unknown".into())
}

/// A profile's setting from the workspace manifest, following `inherits`.
fn profile_setting(manifest: &Path, profile: &str, key: &str) -> Option<String> {
    let doc: toml::Table = fs::read_to_string(manifest).ok()?.parse().ok()?;
    let profiles = doc.get("profile")?.as_table()?;
    let mut name = profile.to_string();
    for _ in 0..8 {
        let table = profiles.get(&name)?.as_table()?;
        if let Some(value) = table.get(key) {
            return Some(match value {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        }
        name = table.get("inherits")?.as_str()?.to_string();
    }
    None
}

/// The version of `name` that the suite, which does the cryptography, is
/// built with: the lock may hold other versions for other crates.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let doc: toml::Table = lock.parse().ok()?;
    let packages: Vec<&toml::Table> = doc.get("package")?.as_array()?.iter().filter_map(|p| p.as_table()).collect();
    let named = |p: &&toml::Table, wanted: &str| p.get("name").and_then(|n| n.as_str()) == Some(wanted);
    let suite = packages.iter().find(|p| named(p, "pqbench-suite"))?;
    // An entry is "name" when the lock holds one version, else "name version".
    let entry = suite
        .get("dependencies")?
        .as_array()?
        .iter()
        .filter_map(|d| d.as_str())
        .find(|d| d.split(' ').next() == Some(name))?;
    match entry.split(' ').nth(1) {
        Some(version) => Some(version.to_string()),
        None => packages.iter().find(|p| named(p, name))?.get("version")?.as_str().map(str::to_string),
    }
}

fn rustc_version() -> Option<String> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}
