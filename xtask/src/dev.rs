//! `cargo xtask dev`: the first page as soon as it can be served.
//!
//! What the first page and a first run on the emulated board need is built
//! first, one build after another: the emulated board's default image, the
//! dashboard and the server. (Built side by side they took longer: four
//! cargo builds at once on two cores were slower in all than the same
//! builds in turn; BENCHMARKS.md, "The first page on a fresh clone".) Then
//! the server starts, and the browser benchmark and every other firmware
//! image are built behind it, one at a time, by a child process (`xtask
//! build-rest`) that keeps the progress file (`pqbench_boards::image_builds`)
//! beside the images; the server lists a board whose image is still to come
//! as "building", with how far the build is, and takes each image as it
//! lands.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use pqbench_boards::image_builds::{FILE, ImageBuilds, ImageState};
use pqbench_boards::{BOARDS, Board, DEFAULT_VARIANT, Variant};

use crate::log::Log;
use crate::toolchain::CrossToolchain;
use crate::{Project, cargo_host, run, setup, step, wasm};

/// The image the first page's board runs: the emulated Cortex-M4's default.
const FIRST_IMAGE: (&str, &str) = ("mps2-an386", DEFAULT_VARIANT);

pub fn dev(project: &Project, serve_args: &[&str]) -> Result<()> {
    let started = Instant::now();
    let cross = setup::ensure(project, false)?;
    since(started, "what was missing installed");
    std::fs::create_dir_all(project.dist().join("firmware"))?;
    let (firmware, variant) = FIRST_IMAGE;
    let board = Board::by_firmware(firmware).context("the catalogue has the emulated Cortex-M4")?;
    let variant = Variant::named(variant).context("the default variant")?;
    project.build_image(&cross, board, variant)?;
    project.build_timing_model()?;
    since(started, "the emulated board's image and timing model built");
    wasm::build_dashboard(project, cross, &mut Log::Live)?;
    since(started, "the dashboard built");
    step("server");
    run(cargo_host(project).args(["build", "--package", "pqbench"]))?;
    since(started, "the server built");

    let log = project.target.join("dev-images.log");
    step(&format!(
        "building the browser benchmark, then the other {} firmware images, behind the server (output in {})",
        rest_of_images().len(),
        log.display()
    ));
    let exe = std::env::current_exe().context("finding xtask's own executable")?;
    let rest = Behind::spawn(Command::new(exe).arg("build-rest"), &log)?;
    let served = project.serve(serve_args);
    // The server stopped (or never started): the build behind it stops too.
    drop(rest);
    served
}

fn since(started: Instant, what: &str) {
    eprintln!("    {what}, {} s after `dev` started", started.elapsed().as_secs());
}

/// The build behind the server, its output into a log; killed when
/// dropped, as the server has stopped. (A cargo build it had started
/// finishes its one image and ends; Ctrl-C, sent to the whole process
/// group, stops it at once.)
struct Behind(Child);

impl Behind {
    fn spawn(command: &mut Command, log: &Path) -> Result<Behind> {
        let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let child = command
            .stdout(out.try_clone()?)
            .stderr(out)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {command:?}"))?;
        Ok(Behind(child))
    }
}

impl Drop for Behind {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
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
    // First what the page's own "Run in this browser" needs.
    let bench = wasm::build_browser_bench(project, *cross, &mut Log::Live);
    if let Err(error) = &bench {
        eprintln!("the browser benchmark did not build: {error:#}");
    }
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
    bench
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
