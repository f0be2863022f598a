//! Which QEMU runs the emulated boards, and which build of the timing
//! model's plugin it loads: QEMU 9.0 and later refuse the plugin API 1 build
//! that Debian 12's QEMU 7.2 needs, and load the API 2 build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

/// A path to the `qemu-system-arm` to run, where it is not the one on PATH
/// (a QEMU unpacked into a folder of its own, say).
pub const QEMU_VAR: &str = "PQBENCH_QEMU";

/// The program's name on PATH.
pub const PROGRAM: &str = "qemu-system-arm";

/// The QEMU to run: [`QEMU_VAR`]'s file, or [`PROGRAM`] on PATH; `None`
/// where there is none.
pub fn program() -> Option<PathBuf> {
    chosen(std::env::var_os(QEMU_VAR).map(PathBuf::from), std::env::var_os("PATH"))
}

fn chosen(named: Option<PathBuf>, path: Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(named) = named.filter(|n| !n.as_os_str().is_empty()) {
        return named.is_file().then_some(named);
    }
    std::env::split_paths(&path?).map(|dir| dir.join(PROGRAM)).find(|p| p.is_file())
}

/// A QEMU's version: (major, minor).
pub type Version = (u32, u32);

/// `program`'s version, from its `--version`; asked once per program and
/// remembered.
pub fn version(program: &Path) -> Option<Version> {
    static KNOWN: Mutex<Vec<(PathBuf, Option<Version>)>> = Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, version)) = known.iter().find(|(p, _)| p == program) {
        return *version;
    }
    let version = Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| parse_version(&String::from_utf8_lossy(&o.stdout)));
    known.push((program.to_path_buf(), version));
    version
}

/// `QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2)` → (10, 0).
fn parse_version(text: &str) -> Option<Version> {
    let rest = &text[text.find("version ")? + "version ".len()..];
    let mut numbers = rest.split(|c: char| !c.is_ascii_digit()).filter(|n| !n.is_empty());
    Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
}

/// The plugin build, by its place in a dist folder, that a QEMU of
/// `version` loads; an unknown version is taken to be an old one.
pub fn plugin_for(version: Option<Version>) -> &'static str {
    match version {
        Some((major, _)) if major >= 9 => pqbench_boards::TIMING_MODEL_PLUGIN_API_2,
        _ => pqbench_boards::TIMING_MODEL_PLUGIN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_as_qemu_prints_them() {
        assert_eq!(
            parse_version("QEMU emulator version 7.2.15 (Debian 1:7.2+dfsg-7+deb12u13)\n"),
            Some((7, 2))
        );
        assert_eq!(parse_version("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2)\n"), Some((10, 0)));
        assert_eq!(parse_version("QEMU emulator version 9.0.0\nCopyright"), Some((9, 0)));
        assert_eq!(parse_version("not qemu"), None);
    }

    #[test]
    fn qemu_9_and_later_load_the_api_2_build() {
        assert_eq!(plugin_for(Some((7, 2))), pqbench_boards::TIMING_MODEL_PLUGIN);
        assert_eq!(plugin_for(Some((8, 2))), pqbench_boards::TIMING_MODEL_PLUGIN);
        assert_eq!(plugin_for(Some((9, 0))), pqbench_boards::TIMING_MODEL_PLUGIN_API_2);
        assert_eq!(plugin_for(Some((10, 0))), pqbench_boards::TIMING_MODEL_PLUGIN_API_2);
        assert_eq!(plugin_for(None), pqbench_boards::TIMING_MODEL_PLUGIN);
    }

    #[test]
    fn a_named_qemu_is_that_file_or_none_and_else_path_s() {
        let dir = std::env::temp_dir().join(format!("pqbench-qemu-choice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let on_path = dir.join(PROGRAM);
        std::fs::write(&on_path, "").unwrap();
        let path = Some(dir.clone().into_os_string());
        assert_eq!(chosen(None, path.clone()), Some(on_path.clone()));
        assert_eq!(chosen(Some(PathBuf::new()), path.clone()), Some(on_path.clone()));
        // A named QEMU that is not there is not replaced by PATH's.
        assert_eq!(chosen(Some(dir.join("missing")), path.clone()), None);
        let other = dir.join("qemu-10");
        std::fs::write(&other, "").unwrap();
        assert_eq!(chosen(Some(other.clone()), path), Some(other));
        assert_eq!(chosen(None, None), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
