//! Picks the board's memory map and writes down what this build is, so the
//! firmware can say it in its `hello` record.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BOARDS: &[&str] = &["mps2-an386"];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest.parent().unwrap().to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());

    let enabled: Vec<&str> = BOARDS
        .iter()
        .copied()
        .filter(|b| env::var_os(format!("CARGO_FEATURE_{}", b.to_uppercase().replace('-', "_"))).is_some())
        .collect();
    let board = match enabled.as_slice() {
        [one] => *one,
        _ => panic!("enable exactly one board feature of {BOARDS:?}, got {enabled:?}"),
    };
    let memory = manifest.join("memory").join(format!("{board}.x"));
    fs::copy(&memory, out.join("memory.x")).expect("board memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={}", memory.display());

    let profile = profile_name(&out);
    let lto = profile_setting(&workspace.join("Cargo.toml"), &profile, "lto").unwrap_or_else(|| "false".into());
    let mut features: Vec<String> = env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_").map(|f| f.to_lowercase().replace('_', "-")))
        .collect();
    features.sort();
    let lock = fs::read_to_string(workspace.join("Cargo.lock")).unwrap_or_default();
    let crates: Vec<String> = ["ml-kem", "rand_chacha"]
        .iter()
        .filter_map(|name| locked_version(&lock, name).map(|v| format!("{name}@{v}")))
        .collect();

    let mut info = String::new();
    let mut constant = |name: &str, value: &str| {
        writeln!(info, "pub const {name}: &str = {value:?};").unwrap();
    };
    constant("REVISION", &revision(&workspace));
    constant("RUSTC", &rustc_version());
    constant("TARGET", &env::var("TARGET").unwrap());
    constant("PROFILE", &profile);
    constant("OPT_LEVEL", &env::var("OPT_LEVEL").unwrap());
    constant("LTO", &lto);
    constant("FEATURES", &features.join(","));
    constant("CRATES", &crates.join(","));
    fs::write(out.join("build_info.rs"), info).unwrap();

    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.lock").display());
    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.toml").display());
    for git in [".git/HEAD", ".git/index"] {
        let path = workspace.join(git);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    println!("cargo:rerun-if-env-changed=PQBENCH_REVISION");
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
    let text = fs::read_to_string(manifest).ok()?;
    let doc: toml::Table = text.parse().ok()?;
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

fn locked_version(lock: &str, name: &str) -> Option<String> {
    let doc: toml::Table = lock.parse().ok()?;
    doc.get("package")?
        .as_array()?
        .iter()
        .filter_map(|p| p.as_table())
        .find(|p| p.get("name").and_then(|n| n.as_str()) == Some(name))
        .and_then(|p| p.get("version")?.as_str().map(str::to_string))
}

fn revision(workspace: &Path) -> String {
    if let Ok(rev) = env::var("PQBENCH_REVISION") {
        return rev;
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(workspace)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        }
        None => "unknown".into(),
    }
}

fn rustc_version() -> String {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}
