//! What a cross build (a firmware image, the wasm builds) is made from, as
//! one key, so the full test tier makes it again only when something it is
//! made from changed.
//!
//! A fat-LTO build takes a minute or more to link, and cargo cannot reuse
//! one across a fresh clone (it fingerprints path crates by mtime) or a new
//! commit (the build info's revision reruns the build script). The key is
//! the SHA-256 of everything the build reads that can change what it makes:
//! - every file of each workspace package the built packages depend on, by
//!   path and content, the C of PQClean's crate too, and the name, version
//!   and source of every registry crate they depend on (immutable at a
//!   version): `cargo metadata`'s resolve with every feature on, so a
//!   feature that pulls in another crate is covered, and a dependency of the
//!   server changing in `Cargo.lock` rebuilds no image;
//! - the workspace manifest (profiles), `.cargo/config.toml` (link flags)
//!   and any further file the build reads (the npm lock for the wasm's
//!   wasm-opt and JavaScript peers);
//! - the tools: `rustc -vV` of the cross toolchain, whose std source is its
//!   own, `arm-none-eabi-gcc --version` for the C, `wasm-bindgen --version`;
//! - the build itself: package, target, profile, features and environment.
//!
//! Not in it: the git revision, which the build info writes into what it
//! builds (an image's `hello`, a browser run's build). A reused build says
//! the revision it was built at, whose inputs were these same files.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::Project;
use crate::toolchain::{CrossBuild, CrossToolchain};

/// What a build is made with, beside its packages: workspace files, and
/// tools by what they say of their version.
pub struct Made {
    pub packages: &'static [&'static str],
    pub files: &'static [&'static str],
    /// Programs beside the cross compiler, each with its version flag.
    pub tools: &'static [(&'static str, &'static str)],
}

/// The firmware images: its package, and the C compiler of PQClean's code.
pub const FIRMWARE: Made = Made {
    packages: &["pqbench-firmware"],
    files: &["Cargo.toml", ".cargo/config.toml"],
    tools: &[("arm-none-eabi-gcc", "--version")],
};

/// The inputs the builds of `packages` share, hashed once per run.
pub struct Inputs {
    shared: [u8; 32],
}

impl Inputs {
    /// The inputs of what `made` says, with the cross compiler's version.
    pub fn gather(project: &Project, cross: CrossToolchain, made: &Made) -> Result<Inputs> {
        let mut hash = Sha256::new();
        let (dirs, registry) = packages_built_from(project, made.packages)?;
        for id in registry {
            hash.update((id.len() as u64).to_le_bytes());
            hash.update(id.as_bytes());
        }
        for dir in dirs {
            let mut files = Vec::new();
            walk(&dir, &mut files)?;
            files.sort();
            for file in files {
                let relative = file.strip_prefix(&project.root).unwrap_or(&file);
                hash_file(&mut hash, relative, &file)?;
            }
        }
        for file in made.files {
            hash_file(&mut hash, Path::new(file), &project.root.join(file))?;
        }
        let rustc = match cross {
            CrossToolchain::Rustup => "rustc",
            CrossToolchain::DebianBuildStd => crate::toolchain::DEBIAN_RUSTC,
        };
        for (program, version) in [(rustc, "-vV")].iter().chain(made.tools) {
            hash.update(program.as_bytes());
            // A tool that is not there hashes as absent: the build then
            // fails and says so, and nothing is recorded for it.
            let said = Command::new(program).arg(version).output().map(|o| o.stdout).unwrap_or_default();
            hash.update(&said);
        }
        Ok(Inputs { shared: hash.finalize().into() })
    }

    /// The key of one build: the shared inputs and the build's own.
    pub fn key(&self, build: &CrossBuild) -> String {
        let mut hash = Sha256::new();
        hash.update(self.shared);
        let own = format!(
            "{}\n{}\n{}\n{:?}\n{:?}\n",
            build.package, build.target, build.profile, build.extra, build.env
        );
        hash.update(own.as_bytes());
        hash.finalize().iter().fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
    }
}

/// One file, by its path relative to the workspace and its content, each
/// length-prefixed so no two sets of files hash alike.
fn hash_file(hash: &mut Sha256, relative: &Path, path: &Path) -> Result<()> {
    let content = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let name = relative.to_string_lossy();
    hash.update((name.len() as u64).to_le_bytes());
    hash.update(name.as_bytes());
    hash.update((content.len() as u64).to_le_bytes());
    hash.update(&content);
    Ok(())
}

/// Every file under `dir`, but build output and hidden folders.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if name == "target" || name.to_string_lossy().starts_with('.') {
                continue;
            }
            walk(&path, files)?;
        } else if kind.is_file() {
            files.push(path);
        }
    }
    Ok(())
}

/// What `packages` are built from, build dependencies included, with every
/// feature on: the folders of the workspace packages (themselves and every
/// path dependency they reach) and the package ids (name, version, source)
/// of the registry crates.
fn packages_built_from(project: &Project, packages: &[&str]) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--all-features"])
        .current_dir(&project.root)
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata's JSON")?;
    let listed = metadata["packages"].as_array().context("cargo metadata lists no packages")?;
    // Path packages have no `source`.
    let local: BTreeMap<&str, PathBuf> = listed
        .iter()
        .filter(|p| p["source"].is_null())
        .filter_map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str()?);
            Some((p["id"].as_str()?, manifest.parent()?.to_path_buf()))
        })
        .collect();
    let roots = packages
        .iter()
        .map(|name| {
            listed
                .iter()
                .find(|p| p["name"] == *name && p["source"].is_null())
                .and_then(|p| p["id"].as_str())
                .with_context(|| format!("no package {name} in the workspace"))
        })
        .collect::<Result<Vec<&str>>>()?;
    let nodes: BTreeMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
        .as_array()
        .context("cargo metadata has no resolve")?
        .iter()
        .filter_map(|node| {
            let deps = node["deps"].as_array()?.iter().filter_map(|d| d["pkg"].as_str()).collect();
            Some((node["id"].as_str()?, deps))
        })
        .collect();
    let mut reached: BTreeSet<&str> = roots.iter().copied().collect();
    let mut next = roots;
    while let Some(id) = next.pop() {
        for dep in nodes.get(id).into_iter().flatten() {
            if reached.insert(dep) {
                next.push(dep);
            }
        }
    }
    let (path, registry): (Vec<&str>, Vec<&str>) = reached.into_iter().partition(|id| local.contains_key(id));
    Ok((
        path.into_iter().filter_map(|id| local.get(id).cloned()).collect(),
        registry.into_iter().map(String::from).collect(),
    ))
}

/// What was last done with a build's inputs, kept per image file (and
/// `wasm` for the wasm builds) in `<target>/image-keys/`, outside `dist`,
/// which servers read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Built and placed in `dist`.
    Built,
    /// An optional variant that did not fit: rightly absent from `dist`.
    NotOffered,
    /// Compiled (`cargo check`) but not linked: no image in `dist`.
    Checked,
}

impl Done {
    fn word(self) -> &'static str {
        match self {
            Done::Built => "built",
            Done::NotOffered => "not-offered",
            Done::Checked => "checked",
        }
    }
}

pub struct Keys {
    dir: PathBuf,
}

impl Keys {
    pub fn new(project: &Project) -> Keys {
        Keys { dir: project.target.join("image-keys") }
    }

    /// What was done with `key`'s inputs for the image `file`, if those
    /// were its last inputs.
    pub fn done(&self, file: &str, key: &str) -> Option<Done> {
        let text = std::fs::read_to_string(self.dir.join(file)).ok()?;
        let (word, recorded) = text.trim().split_once(' ')?;
        if recorded != key {
            return None;
        }
        [Done::Built, Done::NotOffered, Done::Checked].into_iter().find(|done| done.word() == word)
    }

    pub fn record(&self, file: &str, key: &str, done: Done) -> Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(file);
        std::fs::write(&path, format!("{} {key}\n", done.word()))
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Forgets `file`'s inputs, before it is built or checked again, so a
    /// build that fails halfway leaves no key claiming its image.
    pub fn forget(&self, file: &str) {
        let _ = std::fs::remove_file(self.dir.join(file));
    }
}
