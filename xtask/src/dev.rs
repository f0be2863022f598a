//! `cargo xtask dev`: the first page as soon as it can be served.
//!
//! What the first page and a first run need is built first: the server,
//! the dashboard, the browser benchmark and the emulated board's default
//! image. On two cores these builds spend long stretches on one core (every
//! crate of the cross builds is one codegen unit, then fat LTO), so they run
//! side by side: the server (host), the dashboard (its own cross target
//! directory) and wasm-bindgen-cli's install each beside the firmware image
//! and the browser benchmark, which share one. Then the server starts, and
//! every other firmware image is built behind it, one at a time, by a child
//! process (`xtask build-rest`) that keeps the progress file
//! (`pqbench_boards::image_builds`) beside the images; the server lists a
//! board whose image is still to come as "building", with how far the build
//! is, and takes each image as it lands.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use pqbench_boards::image_builds::{FILE, ImageBuilds, ImageState};
use pqbench_boards::{BOARDS, Board, DEFAULT_VARIANT, Variant};

use crate::toolchain::CrossToolchain;
use crate::{Project, cargo_host, setup, step};

/// The image the first page's board runs: the emulated Cortex-M4's default.
const FIRST_IMAGE: (&str, &str) = ("mps2-an386", DEFAULT_VARIANT);

pub fn dev(project: &Project, serve_args: &[&str]) -> Result<()> {
    let started = Instant::now();
    let cross = setup::ensure_packages(project, false)?;
    std::fs::create_dir_all(project.dist().join("firmware"))?;
    let log = |name: &str| project.target.join(format!("dev-{name}.log"));

    // Beside the firmware and the browser benchmark (one cross target
    // directory, so one after the other), each with its output in a log.
    let wasm_bindgen = match setup::wasm_bindgen_install(project)? {
        Some(mut install) => Some(Beside::spawn("wasm-bindgen-cli", &mut install, log("wasm-bindgen"))?),
        None => None,
    };
    let server = Beside::spawn(
        "the server",
        cargo_host(project).args(["build", "--package", "pqbench"]),
        log("server"),
    )?;
    let dashboard = Beside::spawn("the dashboard", &mut project.dashboard_compile(&cross), log("dashboard"))?;

    let (firmware, variant) = FIRST_IMAGE;
    let board = Board::by_firmware(firmware).context("the catalogue has the emulated Cortex-M4")?;
    let variant = Variant::named(variant).context("the default variant")?;
    project.build_image(&cross, board, variant)?;
    since(started, "the emulated board's image");
    let bench = project.compile_browser_bench(&cross)?;
    if let Some(install) = wasm_bindgen {
        install.wait()?;
    }
    project.finish_browser_bench(&bench)?;
    since(started, "the browser benchmark");
    dashboard.wait()?;
    project.finish_dashboard()?;
    since(started, "the dashboard");
    server.wait()?;
    since(started, "the server");

    let queue = rest_of_images();
    step(&format!(
        "building the other {} firmware images behind the server, one at a time (output in {})",
        queue.len(),
        log("images").display()
    ));
    let exe = std::env::current_exe().context("finding xtask's own executable")?;
    let rest = Beside::spawn("the other images", Command::new(exe).arg("build-rest"), log("images"))?;
    let served = project.serve(serve_args);
    // The server stopped (or never started): the images' build stops too.
    drop(rest);
    served
}

fn since(started: Instant, what: &str) {
    eprintln!("    {what} built, {} s after `dev` started", started.elapsed().as_secs());
}

/// A build run beside others, its output into a log; killed if dropped
/// before it ends (an error elsewhere stops the whole `dev`).
struct Beside {
    what: &'static str,
    child: Child,
    log: PathBuf,
}

impl Beside {
    fn spawn(what: &'static str, command: &mut Command, log: PathBuf) -> Result<Beside> {
        step(&format!("{what}, built alongside (its output in {})", log.display()));
        let out = File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let child = command
            .stdout(out.try_clone()?)
            .stderr(out)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {command:?}"))?;
        Ok(Beside { what, child, log })
    }

    fn wait(mut self) -> Result<()> {
        let status = self.child.wait().with_context(|| format!("waiting for {}", self.what))?;
        if !status.success() {
            let tail = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = tail.lines().rev().take(30).collect();
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
            bail!("{} did not build ({status}): its whole output is in {}", self.what, self.log.display());
        }
        Ok(())
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Every image but the first, the emulated boards' first (a run on them
/// needs nothing else), then the others in the catalogue's order.
pub fn rest_of_images() -> Vec<(&'static Board, &'static Variant)> {
    let mut images: Vec<(&Board, &Variant)> = BOARDS
        .iter()
        .flat_map(|board| board.variants().map(move |variant| (board, variant)))
        .filter(|(board, variant)| (board.firmware, variant.name) != FIRST_IMAGE)
        .collect();
    // Stable: the catalogue's order within each group.
    images.sort_by_key(|(board, _)| board.qemu().is_none());
    images
}

/// `xtask build-rest`: builds [`rest_of_images`] one at a time, keeping
/// [`FILE`] up to date, and removes it when the last has been built.
pub fn build_rest(project: &Project, cross: &CrossToolchain) -> Result<()> {
    let queue = rest_of_images();
    let files: Vec<String> = queue.iter().map(|(board, variant)| board.image_file(variant)).collect();
    let mut builds = ImageBuilds::queue(std::process::id(), files.iter().map(String::as_str));
    let progress = project.dist().join("firmware").join(FILE);
    write_progress(&progress, &builds)?;
    let mut failed = 0;
    for ((board, variant), file) in queue.iter().zip(&files) {
        builds.set(file, ImageState::Building);
        write_progress(&progress, &builds)?;
        let started = Instant::now();
        let state = match project.build_image(cross, board, variant) {
            Ok(()) if project.dist().join("firmware").join(file).is_file() => ImageState::Built,
            Ok(()) => ImageState::NotOffered,
            Err(error) => {
                eprintln!("{file} did not build: {error:#}");
                failed += 1;
                ImageState::Failed
            }
        };
        builds.set(file, state);
        write_progress(&progress, &builds)?;
        eprintln!(
            "==> {file}: {} in {} s ({} of {})",
            state.word(),
            started.elapsed().as_secs(),
            builds.done(),
            files.len()
        );
    }
    std::fs::remove_file(&progress).with_context(|| format!("removing {}", progress.display()))?;
    if failed > 0 {
        bail!("{failed} of {} images did not build", files.len());
    }
    Ok(())
}

/// Replaces the progress file whole, so that a reader never sees half of it.
fn write_progress(path: &Path, builds: &ImageBuilds) -> Result<()> {
    let part = path.with_extension("txt.part");
    std::fs::write(&part, builds.render())?;
    std::fs::rename(&part, path).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_is_every_other_image_once_emulated_boards_first() {
        let rest = rest_of_images();
        let every: usize = BOARDS.iter().map(|board| board.variants().count()).sum();
        assert_eq!(rest.len(), every - 1);
        assert!(!rest.iter().any(|(board, variant)| (board.firmware, variant.name) == FIRST_IMAGE));
        let emulated = rest.iter().take_while(|(board, _)| board.qemu().is_some()).count();
        assert!(emulated > 0);
        assert!(rest[emulated..].iter().all(|(board, _)| board.qemu().is_none()));
        let mut files: Vec<String> = rest.iter().map(|(board, variant)| board.image_file(variant)).collect();
        files.sort();
        files.dedup();
        assert_eq!(files.len(), rest.len(), "no image twice");
    }
}
