//! `cargo xtask <command>`: the project's build automation.
//!
//! - `setup [--tests]`: installs what is missing (QEMU, a cross toolchain,
//!   wasm-bindgen at the locked version; with `--tests`, Chromium,
//!   PostgreSQL and the browser-test packages). Each step checks first, so a
//!   second run is quick.
//! - `build`: firmware images, the browser benchmark, the dashboard and the
//!   server, into `<target>/dist`.
//! - `build-image BOARD [VARIANT...]`: one board's images (all its variants
//!   when none is named), `build-browser`: the browser benchmark (the
//!   suite's wasm, its workers and the JavaScript peers it measures beside
//!   it), and `build-dashboard`: the dashboard alone, into `<target>/dist`,
//!   while working on them.
//! - `dev`: setup, then `pqbench serve` with an SQLite file as soon as the
//!   emulated board's default image, the dashboard and the server are
//!   built; the browser benchmark and the other images are built behind it
//!   (`build-rest`, see `dev.rs`).
//! - `test [--quick]`: the two test tiers (`tiers.rs`). `--quick`: format,
//!   clippy and every host test that needs no image, PostgreSQL, browser or
//!   network, in minutes. Without it, the full tier CI runs: setup --tests,
//!   the images tests use, the builds, then every test (Rust and browser),
//!   with a throwaway PostgreSQL server.
//! - `supply-chain`: the full tier's cargo-deny check alone (deny.toml,
//!   `supply_chain.rs`).
//! - `bench`: the whole suite on the emulated board and on this host (an
//!   optimised build), printed as the table in BENCHMARKS.md.
//! - `bench-browser [--rounds N] [--min-time-ms 1000|200]`: ML-KEM-768 and
//!   ML-DSA-65 by the dashboard's own "Run in this browser" in headless
//!   Chromium (our wasm, WebCrypto, `@noble/post-quantum`, `@oqs/liboqs-js`)
//!   and natively, as the comparison table in BENCHMARKS.md.
//! - `bench-load [--results N] [--seconds S] [--connections C] [--postgres]`: the
//!   explorer's API under concurrent load (wrk) with a million stored
//!   results, as the load table in BENCHMARKS.md; on SQLite, or on PostgreSQL.
//! - `bench-boards`: `GET /api/boards` under load (wrk) while the server
//!   asks 32 silent serial ports who they are, as in BENCHMARKS.md.
//! - `needs`: measures each operation's RAM on the emulated board and
//!   rewrites the suite's table of needs (`crates/suite/src/needs.rs`);
//!   `needs --built` with the images a test run built, without building.
//!
//! Firmware images are built one per core at once (`images.rs`), each
//! build's output printed whole when it ends.
//!
//! Cross builds: where rustup's sysroot has the target's std, rustup's cargo
//! builds it; otherwise Debian's rustc-web with its std source and
//! `-Zbuild-std`. Host and cross builds use separate target directories so
//! neither invalidates the other's fingerprints.

mod bench;
mod bench_boards;
mod bench_model;
mod build_keys;
mod dev;
mod fuzz;
mod image_size;
mod images;
mod lanes;
mod load;
mod log;
mod needs;
mod peers;
mod postgres;
mod qemu_10;
mod setup;
mod supply_chain;
#[cfg(test)]
mod tidy;
mod tiers;
mod toolchain;
mod wasm;
mod wrk;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use toolchain::CrossToolchain;

use pqbench_boards::{Board, Variant};

use images::Image;
use log::Log;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let project = Project::locate()?;
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["setup"] => setup::ensure(&project, false).map(drop),
        ["setup", "--tests"] => setup::ensure(&project, true).map(drop),
        ["build"] => {
            let cross = setup::ensure(&project, false)?;
            project.build(&cross)
        }
        ["build-image", board, variants @ ..] => {
            let cross = setup::ensure(&project, false)?;
            let board =
                Board::by_firmware(board).with_context(|| format!("no board {board} in the catalogue"))?;
            let variants: Vec<&str> =
                if variants.is_empty() { board.variants.to_vec() } else { variants.to_vec() };
            for name in variants {
                let variant = Variant::named(name).filter(|v| board.offers(v.name));
                let variant = variant.with_context(|| format!("{} has no variant {name}", board.firmware))?;
                project.build_image(&cross, board, variant)?;
            }
            Ok(())
        }
        // The images only tests use (`dist/test/`), for a focused test run.
        ["build-test-images"] => {
            let cross = setup::ensure(&project, false)?;
            project.build_images(&cross, Image::for_tests())
        }
        ["build-browser"] => {
            let cross = setup::ensure(&project, false)?;
            wasm::build_browser_bench(&project, cross, &mut Log::Live)
        }
        ["build-dashboard"] => {
            let cross = setup::ensure(&project, false)?;
            wasm::build_dashboard(&project, cross, &mut Log::Live)
        }
        ["dev", rest @ ..] => dev::dev(&project, rest),
        // dev's child, building what the first page does not wait for.
        ["build-rest"] => {
            let cross = toolchain::detect().context("no cross toolchain: run `cargo xtask setup`")?;
            dev::build_rest(&project, &cross)
        }
        ["bench"] => {
            let cross = setup::ensure(&project, false)?;
            project.build(&cross)?;
            bench::run_all(&project)
        }
        ["bench-browser", rest @ ..] => {
            let cross = setup::ensure(&project, true)?;
            // The dashboard's own button runs it.
            wasm::build_browser_bench(&project, cross, &mut Log::Live)?;
            wasm::build_dashboard(&project, cross, &mut Log::Live)?;
            bench::browser(&project, rest)
        }
        ["bench-load", rest @ ..] => load::load(&project, rest),
        ["bench-boards"] => bench_boards::boards(&project),
        ["bench-m4-model", rest @ ..] => bench_model::m4_model(&project, rest),
        ["needs"] => {
            let cross = setup::ensure(&project, false)?;
            project.build(&cross)?;
            needs::write(&project)
        }
        // With the images and server already built (by a test run): the
        // measurement alone.
        ["needs", "--built"] => needs::write(&project),
        ["test"] => tiers::full(&project),
        ["test", "--quick"] => tiers::quick(&project),
        ["supply-chain"] => match supply_chain::check(&project)? {
            supply_chain::Advisories::Checked => Ok(()),
            supply_chain::Advisories::NotChecked(why) => {
                eprintln!("NOTE: {why}");
                Ok(())
            }
        },
        _ => {
            eprintln!(
                "usage: cargo xtask setup [--tests] | build | build-image BOARD [VARIANT...] | build-browser | build-dashboard | dev [serve options] | test [--quick] | supply-chain | needs | bench | bench-browser [--rounds N] [--min-time-ms 1000|200] | bench-load [--results N] [--seconds S] [--connections C] [--keep] [--postgres] | bench-boards | bench-m4-model [--kem-calls N] [--dsa-calls N] [--rounds N]"
            );
            std::process::exit(2);
        }
    }
}

pub struct Project {
    pub root: PathBuf,
    /// Where host builds go (cargo's own choice, or CARGO_TARGET_DIR).
    pub target: PathBuf,
}

impl Project {
    fn locate() -> Result<Project> {
        // `cargo run` sets CARGO_MANIFEST_DIR for the run too: this
        // checkout's. The compile-time one is the checkout this binary was
        // built from, which cargo reuses for an identical clone sharing its
        // target folder (a `cargo xtask needs` here once measured and wrote
        // into the CI clone that had built it); it stays only as a fallback.
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
        let root = manifest_dir.parent().context("xtask lives inside the workspace")?.to_path_buf();
        let target = match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => root.join(dir),
            None => root.join("target"),
        };
        Ok(Project { root, target })
    }

    pub fn cross_target(&self) -> PathBuf {
        self.target.join("cross")
    }

    pub fn dist(&self) -> PathBuf {
        self.target.join("dist")
    }

    pub fn server_binary(&self) -> PathBuf {
        self.target.join("debug").join("pqbench")
    }

    /// Every offered firmware image, the browser benchmark, the dashboard,
    /// the timing model and the server.
    fn build(&self, cross: &CrossToolchain) -> Result<()> {
        self.build_images(cross, Image::offered())?;
        self.build_all_but_images(cross)
    }

    /// The browser benchmark, the dashboard, the timing model and the server.
    fn build_all_but_images(&self, cross: &CrossToolchain) -> Result<()> {
        wasm::build_browser_bench(self, *cross, &mut Log::Live)?;
        wasm::build_dashboard(self, *cross, &mut Log::Live)?;
        self.build_timing_model()?;
        step("server");
        run(cargo_host(self).args(["build", "--package", "pqbench"]))
    }

    /// The Cortex-M4 timing model's QEMU plugin into its place in `<dist>`
    /// (`pqbench_boards::TIMING_MODEL_PLUGIN`), optimised: it runs for every
    /// instruction an emulated board executes. Moved into place whole, as
    /// a server may start QEMU with it at any time.
    fn build_timing_model(&self) -> Result<()> {
        step("the Cortex-M4 timing model's QEMU plugin");
        run(cargo_host(self).args(["build", "--release", "--package", "pqbench-qemu-m4-plugin"]))?;
        self.place_plugin(&self.target, pqbench_boards::TIMING_MODEL_PLUGIN)?;
        // The API 2 build (QEMU 9 and later) in a target folder of its own,
        // so neither build undoes the other's (the plugin's tests build it
        // there too).
        let api_2 = self.target.join("plugin-api-2");
        run(cargo_host(self)
            .args(["build", "--release", "--package", "pqbench-qemu-m4-plugin", "--features", "api-v2"])
            .arg("--target-dir")
            .arg(&api_2))?;
        self.place_plugin(&api_2, pqbench_boards::TIMING_MODEL_PLUGIN_API_2)
    }

    /// The plugin cargo built in `target` into `<dist>/<place>`, whole.
    fn place_plugin(&self, target: &Path, place: &str) -> Result<()> {
        let place = self.dist().join(place);
        let file = place.file_name().context("the plugin's file name")?;
        let part = place.with_extension("so.part");
        std::fs::create_dir_all(place.parent().context("the plugin's folder")?)?;
        copy(&target.join("release").join(file), &part)?;
        std::fs::rename(&part, &place)?;
        Ok(())
    }

    fn serve(&self, extra: &[&str]) -> Result<()> {
        // The server says the address it listens on as it starts.
        step("serving the dashboard (Ctrl-C stops it)");
        let mut command = Command::new(self.server_binary());
        command.arg("serve").env("PQBENCH_DIST", self.dist()).current_dir(&self.root);
        if !extra.iter().any(|a| a.starts_with("--db")) {
            command.args(["--db", "pqbench.db"]);
        }
        run(command.args(extra))
    }

    /// `images` into `<dist>`, several at once (see `images.rs`).
    fn build_images<'a>(
        &self,
        cross: &CrossToolchain,
        images: impl Iterator<Item = Image<'a>>,
    ) -> Result<()> {
        for folder in ["firmware", "test"] {
            std::fs::create_dir_all(self.dist().join(folder))?;
        }
        lanes::build_in_lanes(self, *cross, &images.collect::<Vec<_>>())
    }
}

/// rustup's cargo for the host, whatever cargo called us.
fn cargo_host(project: &Project) -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(&project.root);
    command
}

fn step(what: &str) {
    eprintln!("\n==> {what}");
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

pub fn run(command: &mut Command) -> Result<()> {
    let status = command.status().with_context(|| format!("starting {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}
