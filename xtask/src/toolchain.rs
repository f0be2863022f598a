//! Which compiler builds for the boards and the browser.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::Project;
use crate::log::Log;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossToolchain {
    /// rustup's toolchain, whose sysroot has a prebuilt std for every target.
    Rustup,
    /// Debian's rustc-web and cargo-web with the std source: std is built
    /// from source (`-Zbuild-std`), which is why RUSTC_BOOTSTRAP is set.
    DebianBuildStd,
}

pub const TARGETS: &[&str] =
    &["thumbv7em-none-eabihf", "thumbv8m.main-none-eabihf", "wasm32-unknown-unknown"];

/// The cross toolchain this machine has, without installing anything.
pub fn detect() -> Option<CrossToolchain> {
    if rustup_has_targets() {
        Some(CrossToolchain::Rustup)
    } else if debian_toolchain_present() {
        Some(CrossToolchain::DebianBuildStd)
    } else {
        None
    }
}

fn rustup_has_targets() -> bool {
    let Ok(output) = Command::new("rustc").args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    TARGETS.iter().all(|t| sysroot.join("lib/rustlib").join(t).join("lib").is_dir())
}

pub const DEBIAN_CARGO: &str = "/usr/bin/cargo";
pub const DEBIAN_RUSTC: &str = "/usr/bin/rustc";
pub const DEBIAN_STD_SOURCE: &str = "/usr/lib/rustlib/src/rust/library";
pub const DEBIAN_LINKER: &str = "/usr/bin/rust-lld";

pub fn debian_toolchain_present() -> bool {
    [DEBIAN_CARGO, DEBIAN_RUSTC, DEBIAN_STD_SOURCE].iter().all(|p| Path::new(p).exists())
        // rust-lld is a link to lld-22: present but dangling without it.
        && Path::new(DEBIAN_LINKER).canonicalize().is_ok()
}

impl CrossToolchain {
    /// Makes `build` in `target_dir`, its words to `log`; returns the
    /// directory holding its outputs.
    pub fn build_into(
        self,
        project: &Project,
        target_dir: &Path,
        build: &CrossBuild,
        log: &mut Log,
    ) -> Result<PathBuf> {
        log.run(&mut self.command(project, target_dir, build))?;
        Ok(build.outputs(target_dir))
    }

    /// The cargo command that makes `build` in `target_dir`.
    pub fn command(self, project: &Project, target_dir: &Path, build: &CrossBuild) -> Command {
        self.command_for("build", project, target_dir, build)
    }

    /// The cargo command that does `verb` (`build`, `check`) to `build`.
    pub fn command_for(
        self,
        verb: &str,
        project: &Project,
        target_dir: &Path,
        build: &CrossBuild,
    ) -> Command {
        let mut command = match self {
            CrossToolchain::Rustup => Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())),
            CrossToolchain::DebianBuildStd => {
                let mut command = Command::new(DEBIAN_CARGO);
                // Nothing of the rustup toolchain that started xtask may leak
                // into Debian's cargo, or it would mix compilers.
                for var in
                    ["CARGO", "RUSTC", "RUSTDOC", "RUSTUP_TOOLCHAIN", "RUSTC_WRAPPER", "CARGO_HOME_OVERRIDE"]
                {
                    command.env_remove(var);
                }
                let path = std::env::var("PATH").unwrap_or_default();
                command
                    .env("PATH", format!("/usr/bin:{path}"))
                    .env("RUSTC", DEBIAN_RUSTC)
                    .env("RUSTC_BOOTSTRAP", "1");
                command
            }
        };
        command
            .current_dir(&project.root)
            .args([verb, "--package", build.package, "--target", build.target, "--profile", build.profile])
            .arg("--target-dir")
            .arg(target_dir)
            .args(build.extra)
            .envs(build.env.iter().copied());
        if self == CrossToolchain::DebianBuildStd {
            let std = if build.target.starts_with("wasm32") { "std,panic_abort" } else { "core,alloc" };
            command.arg(format!("-Zbuild-std={std}"));
        }
        command
    }
}

/// One cross build: `package` for `target` at `profile`, with `extra`
/// arguments (features) and variables the build reads from its
/// environment (`DEFMT_LOG`).
pub struct CrossBuild<'a> {
    pub package: &'a str,
    pub target: &'a str,
    pub profile: &'a str,
    pub extra: &'a [&'a str],
    pub env: &'a [(&'a str, &'a str)],
}

impl CrossBuild<'_> {
    /// Where cargo leaves this build's outputs in `target_dir`.
    pub fn outputs(&self, target_dir: &Path) -> PathBuf {
        target_dir.join(self.target).join(self.profile)
    }
}
