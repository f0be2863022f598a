//! Called from a build script, [`emit`] sets these compile-time variables
//! (read with `env!`) and the `rerun-if` lines that keep them current:
//!
//! | variable | value |
//! | --- | --- |
//! | `PQBENCH_REVISION` | `git rev-parse --short=12 HEAD`, `-dirty` with uncommitted changes; `PQBENCH_REVISION` from the environment wins; `unknown` outside git |
//! | `PQBENCH_RUSTC` | `rustc --version` of the compiler building the crate |
//! | `PQBENCH_TARGET` | the target triple |
//! | `PQBENCH_PROFILE` | the cargo profile (`firmware`, `wasm`, `release`, ...) |
//! | `PQBENCH_OPT_LEVEL`, `PQBENCH_LTO` | as that profile sets them |
//! | `PQBENCH_FEATURES` | the crate's enabled features, comma-separated |
//! | `PQBENCH_CRATES` | `name@version,...` of the crates that do the cryptography, ML-KEM/ML-DSA's as the suite was built (`DEP_PQBENCH_SUITE_PQC`) |

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The ML-KEM and ML-DSA crates of each implementation `pqbench-suite` can
/// be built with, by the name its build script says (`DEP_PQBENCH_SUITE_PQC`).
pub const PQC_CRATES: &[(&str, &[&str])] =
    &[("libcrux", &["libcrux-ml-kem", "libcrux-ml-dsa"]), ("rustcrypto", &["ml-kem", "ml-dsa"])];

/// PQClean's C, which is in no crate's version: named for the code, at the
/// version of the crates.io package each part was vendored from
/// (`crates/pqclean/c/README.md`; a test keeps the two in step).
pub const PQCLEAN_CODE: &[(&str, &str)] = &[("pqclean-ml-kem", "0.1.1"), ("pqclean-ml-dsa", "0.1.2")];

/// The other crates whose versions decide the figures, as `pqbench-suite`
/// uses them.
pub const CRYPTO_CRATES: &[&str] = &[
    "rsa",
    "p256",
    "x25519-dalek",
    "ed25519-dalek",
    "aes-gcm",
    "chacha20poly1305",
    "sha2",
    "sha3",
    "shake",
    "rand_chacha",
    // The hybrids' (its ML-KEM is RustCrypto's `ml-kem` at the lock's
    // version; named as a crate only where the plain rows use it too, so
    // that `ml-kem` in a build still says whose ML-KEM rows it ran).
    "x-wing",
    "slh-dsa",
    "fn-dsa",
    "hqc-kem",
    "hbs-lms",
];

pub fn emit() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = workspace_root(&manifest);
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let profile = profile_name(&out);
    let lto =
        profile_setting(&workspace.join("Cargo.toml"), &profile, "lto").unwrap_or_else(|| "false".into());
    let lock = fs::read_to_string(workspace.join("Cargo.lock")).unwrap_or_default();
    let pqc = env::var("DEP_PQBENCH_SUITE_PQC").unwrap_or_default();
    let pqc_crates = PQC_CRATES.iter().find(|(name, _)| *name == pqc).map_or(&[][..], |(_, crates)| crates);
    let vendored = if pqc == "pqclean" { PQCLEAN_CODE } else { &[] };
    let crates: Vec<String> = vendored
        .iter()
        .map(|(name, version)| format!("{name}@{version}"))
        .chain(
            pqc_crates
                .iter()
                .chain(CRYPTO_CRATES.iter().filter(|name| !pqc_crates.contains(name)))
                .filter_map(|name| suite_dependency_version(&lock, name).map(|v| format!("{name}@{v}"))),
        )
        .collect();
    let mut features: Vec<String> = env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_").map(|f| f.to_lowercase().replace('_', "-")))
        .collect();
    features.sort();

    let set = |name: &str, value: &str| println!("cargo:rustc-env={name}={value}");
    set("PQBENCH_REVISION", &revision(&workspace));
    set("PQBENCH_RUSTC", &rustc_version());
    set("PQBENCH_TARGET", &env::var("TARGET").unwrap_or_default());
    set("PQBENCH_PROFILE", &profile);
    set("PQBENCH_OPT_LEVEL", &env::var("OPT_LEVEL").unwrap_or_default());
    set("PQBENCH_LTO", &lto);
    set("PQBENCH_FEATURES", &features.join(","));
    set("PQBENCH_CRATES", &crates.join(","));

    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.lock").display());
    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.toml").display());
    for git in [".git/HEAD", ".git/index"] {
        let path = workspace.join(git);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    println!("cargo:rerun-if-env-changed=PQBENCH_REVISION");
    println!("cargo:rerun-if-env-changed=DEP_PQBENCH_SUITE_PQC");
}

fn workspace_root(manifest: &Path) -> PathBuf {
    manifest.ancestors().find(|dir| dir.join("Cargo.lock").is_file()).unwrap_or(manifest).to_path_buf()
}

/// Cargo does not name the profile to build scripts, but it is the folder
/// above `build/` in OUT_DIR (`target/<triple>/<profile>/build/...`),
/// except that the `dev` profile's folder is `debug`.
fn profile_name(out: &Path) -> String {
    let folder = out
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(|build| build.parent())
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    match folder.as_deref() {
        Some("debug") => "dev".into(),
        Some(name) => name.into(),
        None => "unknown".into(),
    }
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

/// The version of `name` that `pqbench-suite` is built with: the lock may
/// hold other versions of it for other crates.
fn suite_dependency_version(lock: &str, name: &str) -> Option<String> {
    let doc: toml::Table = lock.parse().ok()?;
    let packages: Vec<&toml::Table> =
        doc.get("package")?.as_array()?.iter().filter_map(|p| p.as_table()).collect();
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
            let dirty =
                git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
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
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The versions the build names PQClean's code by are those its
    /// sources were vendored from.
    #[test]
    fn pqclean_code_is_named_for_the_packages_it_came_from() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../pqclean/c/README.md")).unwrap();
        let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
        for (name, version) in PQCLEAN_CODE {
            let package = name.replace("pqclean-ml-", "pqcrypto-ml");
            assert!(
                readme.contains(&format!("`{package}` {version}")),
                "{package} {version} not in the README"
            );
        }
    }

    const LOCK: &str = r#"
[[package]]
name = "rand_chacha"
version = "0.3.1"

[[package]]
name = "rand_chacha"
version = "0.10.0"

[[package]]
name = "ml-kem"
version = "0.3.4"

[[package]]
name = "pqbench-suite"
version = "0.1.0"
dependencies = ["ml-kem", "rand_chacha 0.10.0", "rand_core 0.10.1"]
"#;

    #[test]
    fn versions_are_the_suites_not_the_first_in_the_lock() {
        assert_eq!(suite_dependency_version(LOCK, "rand_chacha").as_deref(), Some("0.10.0"));
        assert_eq!(suite_dependency_version(LOCK, "ml-kem").as_deref(), Some("0.3.4"));
        assert_eq!(suite_dependency_version(LOCK, "sha2"), None);
    }

    #[test]
    fn profiles_inherit_their_settings() {
        let dir = std::env::temp_dir().join(format!("pqbench-build-info-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("Cargo.toml");
        fs::write(&manifest, "[profile.release]\nlto = \"fat\"\n[profile.firmware]\ninherits = \"release\"\nopt-level = \"s\"\n").unwrap();
        assert_eq!(profile_setting(&manifest, "firmware", "lto").as_deref(), Some("fat"));
        assert_eq!(profile_setting(&manifest, "firmware", "opt-level").as_deref(), Some("s"));
        assert_eq!(profile_setting(&manifest, "dev", "lto"), None);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_profile_is_read_from_out_dir() {
        let out = Path::new("/t/cross/thumbv7em-none-eabihf/firmware/build/pqbench-firmware-0123/out");
        assert_eq!(profile_name(out), "firmware");
        assert_eq!(profile_name(Path::new("/t/debug/build/pqbench-0123/out")), "dev");
    }
}
