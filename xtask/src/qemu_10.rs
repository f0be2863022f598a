//! QEMU 10 beside Debian 12's QEMU 7.2, for the tests that load the timing
//! model's plugin API 2 build (`crates/qemu-m4-plugin`): QEMU 9.0 and later
//! refuse API 1, and only they let a plugin read registers.
//!
//! Debian 12's bookworm-backports suite has `qemu-system-arm` 10.0.2, built
//! against bookworm's libraries. Installing it would replace 7.2, which the
//! rest of the project runs; so its package is downloaded and unpacked into
//! `<target>/qemu-10` (its binary `usr/bin/qemu-system-arm`), where
//! `pqbench_test_needs::qemu_10` finds it. The suite is added to apt's
//! sources on the mirror bookworm already comes from.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::setup::{apt_get, running_as_root};
use crate::{Project, run, step};

const SOURCES: &str = "/etc/apt/sources.list.d/pqbench-bookworm-backports.sources";

/// The unpacked folder.
pub fn folder(project: &Project) -> PathBuf {
    project.target.join("qemu-10")
}

/// QEMU 10's binary in it.
pub fn binary(project: &Project) -> PathBuf {
    folder(project).join("usr/bin/qemu-system-arm")
}

/// Unpacks QEMU 10 unless it is there and runs.
pub fn ensure(project: &Project) -> Result<()> {
    if runs_as_10(&binary(project)) {
        return Ok(());
    }
    step("unpacking QEMU 10 (bookworm-backports) beside QEMU 7.2 for the timing model's API 2 tests");
    if !backports_known()? {
        add_backports()?;
    }
    apt_get(&["update", "-qq"])?;
    let download = project.target.join("qemu-10.download");
    let _ = std::fs::remove_dir_all(&download);
    std::fs::create_dir_all(&download)?;
    // apt's sandbox user writes the download there (else apt warns it fell
    // back to root).
    std::fs::set_permissions(&download, std::os::unix::fs::PermissionsExt::from_mode(0o777))?;
    run(Command::new("apt-get")
        .args(["download", "qemu-system-arm/bookworm-backports"])
        .current_dir(&download))?;
    let package = std::fs::read_dir(&download)?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .find(|path| path.extension().is_some_and(|e| e == "deb"))
        .context("apt-get download left no .deb")?;
    let part = project.target.join("qemu-10.part");
    let _ = std::fs::remove_dir_all(&part);
    run(Command::new("dpkg").arg("-x").arg(&package).arg(&part))?;
    let _ = std::fs::remove_dir_all(folder(project));
    std::fs::rename(&part, folder(project))?;
    std::fs::remove_dir_all(&download)?;
    if !runs_as_10(&binary(project)) {
        bail!("{} does not run as QEMU 10", binary(project).display());
    }
    Ok(())
}

fn runs_as_10(binary: &Path) -> bool {
    Command::new(binary)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("version 10."))
}

/// Whether any apt source already names bookworm-backports.
fn backports_known() -> Result<bool> {
    let mut files = vec![PathBuf::from("/etc/apt/sources.list")];
    if let Ok(entries) = std::fs::read_dir("/etc/apt/sources.list.d") {
        files.extend(entries.filter_map(|e| Some(e.ok()?.path())));
    }
    Ok(files
        .iter()
        .filter(|f| {
            f.extension().is_some_and(|e| e == "list" || e == "sources") || f.ends_with("sources.list")
        })
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .any(|text| {
            text.lines().any(|l| !l.trim_start().starts_with('#') && l.contains("bookworm-backports"))
        }))
}

/// bookworm-backports on the mirror bookworm's own source names.
fn add_backports() -> Result<()> {
    let mirror = bookworm_mirror().unwrap_or_else(|| "http://deb.debian.org/debian".into());
    let text = format!(
        "# Added by pqbench's `cargo xtask setup --tests`: QEMU 10 is unpacked from here,\n\
         # never installed over bookworm's QEMU.\n\
         Types: deb\nURIs: {mirror}\nSuites: bookworm-backports\nComponents: main\n\
         Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    );
    if running_as_root() {
        std::fs::write(SOURCES, text).with_context(|| format!("writing {SOURCES}"))?;
        return Ok(());
    }
    let mut tee = Command::new("sudo")
        .args(["tee", SOURCES])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()?;
    std::io::Write::write_all(tee.stdin.as_mut().context("sudo tee's input")?, text.as_bytes())?;
    if !tee.wait()?.success() {
        bail!("could not write {SOURCES} (as root)");
    }
    Ok(())
}

/// The URI of the deb822 or one-line source that carries bookworm.
fn bookworm_mirror() -> Option<String> {
    let deb822 = std::fs::read_to_string("/etc/apt/sources.list.d/debian.sources").ok();
    if let Some(text) = deb822 {
        for stanza in text.split("\n\n") {
            let field =
                |name: &str| stanza.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()));
            if field("Suites:").is_some_and(|s| s.split_whitespace().any(|s| s == "bookworm")) {
                return field("URIs:").and_then(|u| u.split_whitespace().next().map(String::from));
            }
        }
    }
    let list = std::fs::read_to_string("/etc/apt/sources.list").ok()?;
    list.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.first() == Some(&"deb") && words.contains(&"bookworm"))
        .and_then(|words| words.iter().find(|w| w.starts_with("http")).map(|w| w.to_string()))
}
