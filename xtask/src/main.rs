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
mod needs;
mod peers;
mod postgres;
mod setup;
#[cfg(test)]
mod tidy;
mod tiers;
mod toolchain;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use toolchain::CrossToolchain;

use pqbench_boards::{Board, Variant};

use images::Image;

const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// Rust flags of both wasm builds (the benchmark and the dashboard share a
/// target directory, so they share flags, or each would rebuild the other's
/// dependencies). simd128 lets LLVM vectorise loops; every current browser
/// has it. Measured with `bench-browser`: ML-DSA-65 +4 to 18% and ML-KEM-768
/// +8% alone, about +2% on top of [`WASM_OPT`].
const WASM_RUSTFLAGS: (&str, &str) =
    ("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS", "-C target-feature=+simd128");

/// binaryen's optimiser on the browser benchmark, after wasm-bindgen.
/// ML-DSA's field multiplication widens to u128 (module-lattice's Barrett
/// reduction), which wasm32 has no instruction for: LLVM calls
/// compiler-builtins' `__multi3`, through memory, on every product, and LTO
/// cannot inline a libcall. Inlining it (a limit of 40 does not, 60 does)
/// made ML-DSA-65 sign 1.40x, keygen 1.34x and verify 1.31x faster in
/// Chromium; plain `-O3` alone gained nothing.
const WASM_OPT: &[&str] = &["-O3", "--always-inline-max-function-size=80"];

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
            project.build_browser_bench(&cross)
        }
        ["build-dashboard"] => {
            let cross = setup::ensure(&project, false)?;
            project.build_dashboard(&cross)
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
            project.build_browser_bench(&cross)?;
            project.build_dashboard(&cross)?;
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
        _ => {
            eprintln!(
                "usage: cargo xtask setup [--tests] | build | build-image BOARD [VARIANT...] | build-browser | build-dashboard | dev [serve options] | test [--quick] | needs | bench | bench-browser [--rounds N] [--min-time-ms 1000|200] | bench-load [--results N] [--seconds S] [--connections C] [--keep] [--postgres] | bench-boards | bench-m4-model [--kem-calls N] [--dsa-calls N] [--rounds N]"
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
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .context("xtask lives inside the workspace")?
            .to_path_buf();
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
        self.build_browser_bench(cross)?;
        self.build_dashboard(cross)?;
        self.build_timing_model()?;
        step("server");
        run(cargo_host(self).args(["build", "--package", "pqbench"]))
    }

    /// The dashboard alone into `<dist>`: its wasm, page, styles and
    /// start-up script (`cargo xtask build-dashboard`, while working on it).
    fn build_dashboard(&self, cross: &CrossToolchain) -> Result<()> {
        let dist = self.dist();
        step("dashboard (wasm)");
        let out = cross.build_with_env(self, "pqbench-web", WASM_TARGET, "wasm", &[], &[WASM_RUSTFLAGS])?;
        self.wasm_bindgen(&out.join("pqbench_web.wasm"), &dist.join("pkg"))?;
        // The page, its styles and its start-up script: separate files, as
        // the server's Content-Security-Policy runs nothing inline.
        for file in ["index.html", "style.css", "main.js"] {
            copy(&self.root.join("web").join(file), &dist.join(file))?;
        }
        Ok(())
    }

    /// The Cortex-M4 timing model's QEMU plugin into its place in `<dist>`
    /// (`pqbench_boards::TIMING_MODEL_PLUGIN`), optimised: it runs for every
    /// instruction an emulated board executes. Moved into place whole, as
    /// a server may start QEMU with it at any time.
    fn build_timing_model(&self) -> Result<()> {
        step("the Cortex-M4 timing model's QEMU plugin");
        run(cargo_host(self).args(["build", "--release", "--package", "pqbench-qemu-m4-plugin"]))?;
        let place = self.dist().join(pqbench_boards::TIMING_MODEL_PLUGIN);
        let file = place.file_name().context("the plugin's file name")?;
        let part = place.with_extension("so.part");
        copy(&self.target.join("release").join(file), &part)?;
        std::fs::rename(&part, &place)?;
        Ok(())
    }

    /// The browser benchmark: the suite in wasm, into `<dist>/bench`.
    fn build_browser_bench(&self, cross: &CrossToolchain) -> Result<()> {
        step("browser benchmark (wasm)");
        let dist = self.dist();
        let out =
            cross.build_with_env(self, "pqbench-wasm-bench", WASM_TARGET, "wasm", &[], &[WASM_RUSTFLAGS])?;
        self.wasm_bindgen(&out.join("pqbench_wasm_bench.wasm"), &dist.join("bench"))?;
        let wasm = dist.join("bench/pqbench_wasm_bench_bg.wasm");
        run(Command::new("node")
            .arg(setup::wasm_opt_path(self))
            .args(WASM_OPT)
            .arg(&wasm)
            .arg("-o")
            .arg(&wasm))?;
        copy(&self.root.join("wasm-bench/www/worker.js"), &dist.join("bench/worker.js"))?;
        copy(&self.root.join("wasm-bench/www/peers.js"), &dist.join("bench/peers.js"))?;
        peers::stage(self)
    }

    fn wasm_bindgen(&self, wasm: &Path, out: &Path) -> Result<()> {
        run(Command::new(setup::wasm_bindgen_path())
            .args(["--target", "web", "--no-typescript", "--remove-name-section", "--out-dir"])
            .arg(out)
            .arg(wasm))
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
