//! Installs what is missing, and only that: every step checks first.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::toolchain::{self, CrossToolchain};
use crate::{Project, postgres, run, step, supply_chain};

pub fn ensure(project: &Project, for_tests: bool) -> Result<CrossToolchain> {
    let mut packages: Vec<&str> = Vec::new();
    if !on_path("qemu-system-arm") {
        packages.push("qemu-system-arm");
    }
    let cross = toolchain::detect();
    if cross.is_none() {
        packages.extend(["rustc-web", "cargo-web", "rust-web-src", "rust-web-llvm", "lld-22"]);
    }
    // PQClean's C for the boards (the `opt-s-pqclean` images), with
    // newlib's headers (string.h): Debian's compiler only recommends them.
    if !on_path("arm-none-eabi-gcc") || !Path::new("/usr/lib/arm-none-eabi/include/string.h").exists() {
        packages.extend(["gcc-arm-none-eabi", "libnewlib-arm-none-eabi"]);
    }
    // Every build runs binaryen's wasm-opt (an npm package, run by node).
    if !on_path("node") || !on_path("npm") {
        packages.extend(["nodejs", "npm"]);
    }
    if for_tests && !Path::new("/usr/bin/chromium").exists() {
        packages.push("chromium");
    }
    // The timing model's decoder is checked against LLVM's disassembler.
    if for_tests && !on_path("llvm-objdump-22") && !on_path("llvm-objdump") {
        packages.push("llvm-22");
    }
    // The store's tests run against a real server (see postgres.rs).
    if for_tests && postgres::server_bin_dir().is_none() {
        packages.push("postgresql");
    }
    if !packages.is_empty() {
        apt_install(&packages)?;
    }
    let cross =
        toolchain::detect().context("no cross toolchain for the boards and wasm after installing one")?;

    let wanted = locked_version(&project.root, "wasm-bindgen")?;
    if installed_version("wasm-bindgen").as_deref() != Some(wanted.as_str()) {
        step(&format!("installing wasm-bindgen-cli {wanted} (the version Cargo.lock pins)"));
        // Not --locked: the CLI's own lockfile may pin crates newer than a
        // registry mirror carries; the CLI's version is what must match.
        run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args([
            "install",
            "wasm-bindgen-cli",
            "--version",
            &wanted,
        ]))?;
    }

    if for_tests && installed_version("cargo-deny").as_deref() != Some(supply_chain::CARGO_DENY_VERSION) {
        let version = supply_chain::CARGO_DENY_VERSION;
        step(&format!("installing cargo-deny {version} (the full tier's supply-chain check)"));
        run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args([
            "install",
            "cargo-deny",
            "--locked",
            "--version",
            version,
        ]))?;
    }

    // One npm manifest: wasm-opt for the build; playwright-core and the
    // browser benchmark's JavaScript peers for the tests and bench-browser.
    let npm = npm_dir(project);
    if !npm_packages_installed(&npm)? {
        step("installing the npm packages: wasm-opt, browser tests and benchmark (npm ci)");
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&npm))?;
    }
    if for_tests {
        kat_python(project)?;
        crate::qemu_10::ensure(project)?;
    }
    Ok(cross)
}

/// The pinned Python packages the ML-KEM, ML-DSA and SLH-DSA known answers
/// are derived from (crates/suite/kat/requirements.txt).
fn kat_requirements(project: &Project) -> PathBuf {
    project.root.join("crates/suite/kat/requirements.txt")
}

/// The interpreter of the virtual environment that holds them, which the
/// suite's test `kat::tests::are_those_of_the_independent_implementation`
/// runs `derive.py` with (PQBENCH_KAT_PYTHON).
pub fn kat_python_path(project: &Project) -> PathBuf {
    project.target.join("kat-venv/bin/python")
}

/// Makes the virtual environment and installs the pinned packages from
/// PyPI, unless it already holds them. A virtual environment of its own,
/// beside the build: nothing of the machine's Python changes. Without
/// PyPI this fails, and so does the test: a known-answer table that nothing
/// independent recomputed is not checked.
fn kat_python(project: &Project) -> Result<()> {
    let venv = project.target.join("kat-venv");
    let wanted = std::fs::read_to_string(kat_requirements(project))?;
    // What the last successful install installed, kept inside the venv.
    let installed = venv.join("pqbench-requirements.txt");
    if kat_python_path(project).is_file() && std::fs::read_to_string(&installed).ok() == Some(wanted.clone())
    {
        return Ok(());
    }
    if !python_has_venv() {
        apt_install(&["python3", "python3-venv"])?;
    }
    step(
        "installing kyber-py, dilithium-py, slh-dsa, py-fn-dsa and pyhsslms from PyPI (the independent known answers)",
    );
    let _ = std::fs::remove_dir_all(&venv);
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    run(Command::new(kat_python_path(project))
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(kat_requirements(project)))
    .context("pip could not install the known answers' Python packages: is PyPI reachable?")?;
    std::fs::write(installed, wanted)?;
    Ok(())
}

/// Whether `python3 -m venv` works here (Debian splits it into python3-venv).
fn python_has_venv() -> bool {
    Command::new("python3").args(["-c", "import venv, ensurepip"]).output().is_ok_and(|o| o.status.success())
}

/// Where the project's npm packages are declared and installed.
pub fn npm_dir(project: &Project) -> PathBuf {
    project.root.join("tests/e2e")
}

/// binaryen's wasm-opt (a node script; Debian's binaryen 108 breaks
/// wasm-bindgen's output).
pub fn wasm_opt_path(project: &Project) -> PathBuf {
    npm_dir(project).join("node_modules/binaryen/bin/wasm-opt")
}

/// Whether every devDependency is installed at its pinned version.
fn npm_packages_installed(dir: &Path) -> Result<bool> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json"))?)?;
    let wanted = manifest["devDependencies"].as_object().context("package.json has no devDependencies")?;
    Ok(wanted.iter().all(|(name, version)| {
        std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .is_some_and(|installed| installed["version"].as_str() == version.as_str())
    }))
}

pub(crate) fn apt_install(packages: &[&str]) -> Result<()> {
    step(&format!("installing {}", packages.join(" ")));
    if !running_as_root() && !on_path("sudo") {
        bail!("install these Debian packages as root: {}", packages.join(" "));
    }
    apt_get(&["update", "-qq"])?;
    let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend_from_slice(packages);
    apt_get(&args)
}

/// `apt-get ARGS` as root (through sudo unless this is root).
pub(crate) fn apt_get(args: &[&str]) -> Result<()> {
    let root = running_as_root();
    let mut command = if root { Command::new("apt-get") } else { Command::new("sudo") };
    if !root {
        command.arg("apt-get");
    }
    run(command.env("DEBIAN_FRONTEND", "noninteractive").args(args))
}

pub(crate) fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

pub(crate) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// A program `cargo install` put in cargo's bin directory, looked up there
/// first, whether or not that directory is on PATH.
pub fn cargo_bin(program: &str) -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    home.map(|h| h.join("bin").join(program))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(program))
}

pub fn wasm_bindgen_path() -> PathBuf {
    cargo_bin("wasm-bindgen")
}

/// The version `program --version` prints as its second word
/// (`wasm-bindgen 0.2.100`, `cargo-deny 0.20.2`).
fn installed_version(program: &str) -> Option<String> {
    let output = Command::new(cargo_bin(program)).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace().nth(1).map(str::to_string)
}

fn locked_version(root: &Path, name: &str) -> Result<String> {
    let lock: toml::Table = std::fs::read_to_string(root.join("Cargo.lock"))?.parse()?;
    lock.get("package")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_table())
        .find(|p| p.get("name").and_then(|n| n.as_str()) == Some(name))
        .and_then(|p| p.get("version")?.as_str().map(str::to_string))
        .with_context(|| format!("{name} is not in Cargo.lock"))
}
