//! The JavaScript implementations a browser run measures beside pqbench's
//! wasm (`wasm-bench/www/peers.js`), staged from the npm packages that
//! `tests/e2e/package.json` pins into `<dist>/bench/vendor/`: the server
//! serves them from its own origin under its CSP, so the browser fetches
//! nothing from anywhere else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::Project;

/// The packages and which of their files a module worker loads.
const PACKAGES: &[(&str, Keep)] = &[
    ("@noble/post-quantum", Keep::NobleModules),
    ("@noble/hashes", Keep::NobleModules),
    ("@noble/curves", Keep::NobleModules),
    ("@noble/ciphers", Keep::NobleModules),
    ("@oqs/liboqs-js", Keep::LiboqsModules),
];

/// The packages whose versions name a build (`noble-post-quantum@0.7.1`).
const NAMED: &[&str] = &["@noble/post-quantum", "@oqs/liboqs-js"];

#[derive(Clone, Copy)]
enum Keep {
    /// The ES modules at the package's top (not its TypeScript sources).
    NobleModules,
    /// liboqs-js's module wrappers and the Emscripten builds of the
    /// algorithms `peers.js` compares (`LIBOQS_BUILDS`).
    LiboqsModules,
}

/// The stems of liboqs-js's Emscripten builds `peers.js` loads: each is a
/// wasm module of its own (65 KB for ML-DSA-65, 96 KB for each SLH-DSA
/// set), so the others of the package are not staged.
const LIBOQS_BUILDS: &[&str] = &[
    "ml-kem-",
    "ml-dsa-",
    "slh-dsa-sha2-128f.",
    "slh-dsa-shake-128f.",
    "slh-dsa-sha2-128s.",
    "slh-dsa-shake-128s.",
];

impl Keep {
    fn keeps(self, relative: &str) -> bool {
        match self {
            Keep::NobleModules => {
                relative.ends_with(".js") && !relative.starts_with("src/") && !relative.starts_with("test")
            }
            Keep::LiboqsModules => {
                (relative.starts_with("src/") && relative.ends_with(".js"))
                    || relative.strip_prefix("dist/").is_some_and(|build| {
                        LIBOQS_BUILDS.iter().any(|stem| build.starts_with(stem)) && build.ends_with(".min.js")
                    })
            }
        }
    }
}

/// Copies the peers' files into `<dist>/bench/vendor/` and writes
/// `versions.json` (package to version) beside them.
pub fn stage(project: &Project) -> Result<()> {
    let modules = project.root.join("tests/e2e/node_modules");
    let vendor = project.dist().join("bench/vendor");
    if vendor.exists() {
        std::fs::remove_dir_all(&vendor)?;
    }
    let mut versions = BTreeMap::new();
    for &(package, keep) in PACKAGES {
        let from = modules.join(package);
        let manifest = std::fs::read_to_string(from.join("package.json")).with_context(|| {
            format!("{package} is not installed in {}: `cargo xtask setup` installs it", modules.display())
        })?;
        let manifest: serde_json::Value = serde_json::from_str(&manifest)?;
        if NAMED.contains(&package) {
            let version =
                manifest["version"].as_str().with_context(|| format!("{package} has no version"))?;
            versions.insert(package, version.to_owned());
        }
        for file in files(&from)? {
            let relative = file.strip_prefix(&from)?.to_string_lossy().replace('\\', "/");
            if !keep.keeps(&relative) {
                continue;
            }
            let target = vendor.join(package).join(&relative);
            std::fs::create_dir_all(target.parent().context("a file has a folder")?)?;
            if package.starts_with("@noble/") {
                // A module worker has no import map: noble's bare
                // `@noble/...` imports become paths to the staged copies.
                let depth = relative.matches('/').count() + 1;
                let up = vec![".."; depth].join("/");
                let text = std::fs::read_to_string(&file)?;
                let text =
                    text.replace("'@noble/", &format!("'{up}/")).replace("\"@noble/", &format!("\"{up}/"));
                std::fs::write(&target, text)?;
            } else {
                std::fs::copy(&file, &target)?;
            }
        }
    }
    std::fs::write(vendor.join("versions.json"), serde_json::to_string_pretty(&versions)?)?;
    Ok(())
}

/// Every file below `dir`, not descending into nested `node_modules`.
fn files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "node_modules") {
                    pending.push(path);
                }
            } else {
                found.push(path);
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_modules_a_worker_loads_are_staged() {
        assert!(Keep::NobleModules.keeps("ml-kem.js"));
        assert!(Keep::NobleModules.keeps("abstract/modular.js"));
        assert!(!Keep::NobleModules.keeps("src/ml-kem.ts"));
        assert!(!Keep::NobleModules.keeps("ml-kem.d.ts"));
        assert!(Keep::LiboqsModules.keeps("src/algorithms/kem/ml-kem/ml-kem-768.js"));
        assert!(Keep::LiboqsModules.keeps("dist/ml-dsa-65.min.js"));
        assert!(Keep::LiboqsModules.keeps("dist/slh-dsa-sha2-128f.min.js"));
        assert!(!Keep::LiboqsModules.keeps("dist/ml-dsa-65.deno.js"));
        assert!(!Keep::LiboqsModules.keeps("dist/falcon-512.min.js"));
        assert!(Keep::LiboqsModules.keeps("dist/slh-dsa-shake-128s.min.js"));
        assert!(!Keep::LiboqsModules.keeps("dist/slh-dsa-sha2-192s.min.js"));
    }
}
