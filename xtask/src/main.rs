//! `cargo xtask <command>`: the project's build automation.
//!
//! - `setup [--tests]`: installs what is missing (QEMU, a cross toolchain,
//!   wasm-bindgen at the locked version; with `--tests`, Chromium,
//!   PostgreSQL and the browser-test packages). Each step checks first, so a
//!   second run is quick.
//! - `build`: firmware images, the browser benchmark, the dashboard and the
//!   server, into `<target>/dist`.
//! - `build-dashboard`: the dashboard alone into `<target>/dist`, while
//!   working on it.
//! - `dev`: setup, build, then `pqbench serve` with an SQLite file.
//! - `test`: setup --tests, build, then every test (Rust and browser), with
//!   a throwaway PostgreSQL server for the store's tests.
//! - `bench`: the whole suite on the emulated board and on this host (an
//!   optimised build), printed as the table in BENCHMARKS.md.
//! - `bench-browser [--rounds N] [--min-time-ms MS]`: ML-KEM-768 and
//!   ML-DSA-65 in one headless Chromium page (the browser benchmark's wasm,
//!   `@noble/post-quantum`, `@oqs/liboqs-js`) and natively, as the
//!   comparison table in BENCHMARKS.md.
//! - `bench-load [--results N] [--seconds S] [--connections C] [--postgres]`: the
//!   explorer's API under concurrent load (wrk) with a million stored
//!   results, as the load table in BENCHMARKS.md; on SQLite, or on PostgreSQL.
//! - `needs`: measures each operation's RAM on the emulated board and
//!   rewrites the suite's table of needs (`crates/suite/src/needs.rs`).
//!
//! Cross builds: where rustup's sysroot has the target's std, rustup's cargo
//! builds it; otherwise Debian's rustc-web with its std source and
//! `-Zbuild-std`. Host and cross builds use separate target directories so
//! neither invalidates the other's fingerprints.

mod bench;
mod image_size;
mod load;
mod needs;
mod postgres;
mod setup;
mod toolchain;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use toolchain::CrossToolchain;

/// A firmware image to build: the board (its cargo feature), its target,
/// the chip's memory, which the image must fit, and its ML-KEM/ML-DSA
/// implementation (the feature `pqc-<pqc>`).
pub struct Firmware {
    pub board: &'static str,
    pub pqc: &'static str,
    pub target: &'static str,
    pub flash_bytes: u64,
    pub ram_bytes: u64,
}

/// Every board; the server looks for `dist/firmware/<board>.elf` (text
/// records; see also `DEFMT_IMAGES`). libcrux where the flash holds it:
/// the NUCLEO-F446ZE's 512 KiB does not (the image needs about 650 KiB), so
/// it and the netduinoplus2, which stands in for it on QEMU, use RustCrypto's.
const FIRMWARE: &[Firmware] = &[
    Firmware {
        board: "mps2-an386",
        pqc: "libcrux",
        target: "thumbv7em-none-eabihf",
        flash_bytes: 4 << 20,
        ram_bytes: 4 << 20,
    },
    Firmware {
        board: "netduinoplus2",
        pqc: "rustcrypto",
        target: "thumbv7em-none-eabihf",
        flash_bytes: 1 << 20,
        ram_bytes: 128 << 10,
    },
    Firmware {
        board: "nucleo-f446ze",
        pqc: "rustcrypto",
        target: "thumbv7em-none-eabihf",
        flash_bytes: 512 << 10,
        ram_bytes: 128 << 10,
    },
    Firmware {
        board: "nucleo-f439zi",
        pqc: "libcrux",
        target: "thumbv7em-none-eabihf",
        flash_bytes: 2 << 20,
        ram_bytes: 192 << 10,
    },
    Firmware {
        board: "b-u585i-iot02a",
        pqc: "libcrux",
        target: "thumbv8m.main-none-eabihf",
        flash_bytes: 2 << 20,
        ram_bytes: 768 << 10,
    },
];
impl Firmware {
    /// The firmware's cargo features for this board with `more`.
    fn features(&self, more: &[&str]) -> String {
        let mut features = vec![self.board.to_string(), format!("pqc-{}", self.pqc)];
        features.extend(more.iter().map(|f| f.to_string()));
        features.join(",")
    }
}

fn find_firmware(board: &str) -> Result<&'static Firmware> {
    FIRMWARE.iter().find(|f| f.board == board).with_context(|| format!("no board {board}"))
}

/// Firmware build variants: the cargo profile and the image name's suffix.
/// The default (opt-level s) must fit every chip; the others are offered
/// where they fit.
struct Variant {
    profile: &'static str,
    suffix: &'static str,
    optional: bool,
}

const VARIANTS: &[Variant] = &[
    Variant { profile: "firmware", suffix: "", optional: false },
    Variant { profile: "firmware-z", suffix: "-opt-z", optional: true },
    Variant { profile: "firmware-3", suffix: "-opt-3", optional: true },
];

/// Images whose records go out as defmt frames, as (board, transport): the
/// firmware's features `<board>,<transport>`, built at the default profile
/// only, as `<board>-<transport>.elf`. defmt-serial carries the frames on
/// the emulator's UART, to test the defmt path without hardware; defmt-rtt
/// is for boards reached through their debug probe.
const DEFMT_IMAGES: &[(&str, &str)] = &[
    ("mps2-an386", "defmt-serial"),
    ("nucleo-f446ze", "defmt-rtt"),
    ("nucleo-f439zi", "defmt-rtt"),
    ("b-u585i-iot02a", "defmt-rtt"),
];

/// Images with the other ML-KEM/ML-DSA implementation than their board's,
/// as (board, pqc): `<board>-opt-s-<pqc>.elf` at the default profile, so the
/// two can be compared on one board (and `cargo xtask needs` measures both).
const PQC_IMAGES: &[(&str, &str)] = &[("mps2-an386", "rustcrypto")];

/// Every record is a defmt info message, and defmt compiles out messages
/// below the level this names.
const DEFMT_LOG: (&str, &str) = ("DEFMT_LOG", "info");

/// An image built for tests alone, into `<dist>/test/`, all for the
/// mps2-an386.
struct TestImage {
    file: &'static str,
    /// Features beside the board's own.
    features: &'static str,
    /// Sends defmt frames, so it needs `DEFMT_LOG`.
    defmt: bool,
    what: &'static str,
}

const TEST_IMAGES: &[TestImage] = &[
    TestImage {
        file: "mps2-an386-self-test-fault.elf",
        features: "inject-self-test-fault",
        defmt: false,
        what: "mps2-an386 with a failing self-test",
    },
    TestImage {
        file: "mps2-an386-defmt-text-mirror.elf",
        features: "text-mirror",
        defmt: true,
        what: "mps2-an386 sending each record as a defmt frame and as a text line",
    },
    TestImage {
        file: "mps2-an386-defmt-rtt.elf",
        features: "defmt-rtt",
        defmt: true,
        what: "mps2-an386 on defmt-rtt, its RTT and mailbox reached through QEMU's gdbstub",
    },
];

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
        ["build-dashboard"] => {
            let cross = setup::ensure(&project, false)?;
            project.build_dashboard(&cross)
        }
        ["dev", rest @ ..] => {
            let cross = setup::ensure(&project, false)?;
            project.build(&cross)?;
            project.serve(rest)
        }
        ["bench"] => {
            let cross = setup::ensure(&project, false)?;
            project.build(&cross)?;
            bench::run_all(&project)
        }
        ["bench-browser", rest @ ..] => {
            let cross = setup::ensure(&project, true)?;
            project.build_browser_bench(&cross)?;
            bench::browser(&project, rest)
        }
        ["bench-load", rest @ ..] => load::load(&project, rest),
        ["needs"] => {
            let cross = setup::ensure(&project, false)?;
            project.build(&cross)?;
            needs::write(&project)
        }
        ["test"] => {
            let cross = setup::ensure(&project, true)?;
            project.build(&cross)?;
            project.build_test_images(&cross)?;
            project.test()
        }
        _ => {
            eprintln!(
                "usage: cargo xtask setup [--tests] | build | build-dashboard | dev [serve options] | test | needs | bench | bench-browser [--rounds N] [--min-time-ms MS] | bench-load [--results N] [--seconds S] [--connections C] [--keep] [--postgres]"
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

    fn build(&self, cross: &CrossToolchain) -> Result<()> {
        let dist = self.dist();
        std::fs::create_dir_all(dist.join("firmware"))?;

        for firmware in FIRMWARE {
            for variant in VARIANTS {
                step(&format!("firmware for {} ({})", firmware.board, variant.profile));
                let features = firmware.features(&[]);
                let features = ["--features", &features];
                let image = dist.join("firmware").join(format!("{}{}.elf", firmware.board, variant.suffix));
                let built =
                    cross.build(self, "pqbench-firmware", firmware.target, variant.profile, &features);
                let out = match built {
                    Ok(out) => out,
                    // The default variant of the same code linked, so what
                    // fails here is the memory map: the image outgrew it.
                    Err(_) if variant.optional => {
                        eprintln!(
                            "not offered: {} does not link at {} (see the linker above)",
                            firmware.board, variant.profile
                        );
                        let _ = std::fs::remove_file(&image);
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let size = image_size::measure(&out.join("pqbench-firmware"))?;
                eprintln!("{}", size.report(firmware));
                match size.check(firmware) {
                    Ok(()) => copy(&out.join("pqbench-firmware"), &image)?,
                    Err(too_big) if variant.optional => {
                        eprintln!("not offered: {too_big}");
                        let _ = std::fs::remove_file(&image);
                    }
                    Err(too_big) => return Err(too_big),
                }
            }
        }

        for &(board, transport) in DEFMT_IMAGES {
            let firmware = find_firmware(board)?;
            step(&format!("firmware for {board} with {transport} (firmware)"));
            let features = firmware.features(&[transport]);
            self.build_extra_image(
                cross,
                firmware,
                &features,
                &[DEFMT_LOG],
                &format!("{board}-{transport}.elf"),
            )?;
        }

        for &(board, pqc) in PQC_IMAGES {
            let firmware = find_firmware(board)?;
            step(&format!("firmware for {board} with {pqc} (firmware)"));
            let features = format!("{board},pqc-{pqc}");
            self.build_extra_image(cross, firmware, &features, &[], &format!("{board}-opt-s-{pqc}.elf"))?;
        }

        self.build_browser_bench(cross)?;

        self.build_dashboard(cross)?;

        step("server");
        run(cargo_host(self).args(["build", "--package", "pqbench"]))?;
        Ok(())
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

    /// A firmware image beside a board's own, at the default profile, into
    /// `<dist>/firmware/<file>`; it must fit the board's chip.
    fn build_extra_image(
        &self,
        cross: &CrossToolchain,
        firmware: &Firmware,
        features: &str,
        env: &[(&str, &str)],
        file: &str,
    ) -> Result<()> {
        let out = cross.build_with_env(
            self,
            "pqbench-firmware",
            firmware.target,
            "firmware",
            &["--features", features],
            env,
        )?;
        let size = image_size::measure(&out.join("pqbench-firmware"))?;
        eprintln!("{}", size.report(firmware));
        size.check(firmware)?;
        copy(&out.join("pqbench-firmware"), &self.dist().join("firmware").join(file))
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
        copy(&self.root.join("wasm-bench/www/worker.js"), &dist.join("bench/worker.js"))
    }

    fn wasm_bindgen(&self, wasm: &Path, out: &Path) -> Result<()> {
        run(Command::new(setup::wasm_bindgen_path())
            .args(["--target", "web", "--no-typescript", "--remove-name-section", "--out-dir"])
            .arg(out)
            .arg(wasm))
    }

    fn serve(&self, extra: &[&str]) -> Result<()> {
        step("serving the dashboard at http://127.0.0.1:8080 (Ctrl-C stops it)");
        let mut command = Command::new(self.server_binary());
        command.arg("serve").env("PQBENCH_DIST", self.dist()).current_dir(&self.root);
        if !extra.iter().any(|a| a.starts_with("--db")) {
            command.args(["--db", "pqbench.db"]);
        }
        run(command.args(extra))
    }

    /// Images made for tests alone, which the server never offers.
    fn build_test_images(&self, cross: &CrossToolchain) -> Result<()> {
        for image in TEST_IMAGES {
            step(&format!("test image: {}", image.what));
            let features = find_firmware("mps2-an386")?.features(&[image.features]);
            let features = ["--features", &features];
            let env: &[(&str, &str)] = if image.defmt { &[DEFMT_LOG] } else { &[] };
            let out = cross.build_with_env(
                self,
                "pqbench-firmware",
                "thumbv7em-none-eabihf",
                "firmware",
                &features,
                env,
            )?;
            copy(&out.join("pqbench-firmware"), &self.dist().join("test").join(image.file))?;
        }
        Ok(())
    }

    fn test(&self) -> Result<()> {
        // Stopped and deleted when this returns, as it is dropped.
        let postgres = postgres::TestPostgres::start(self)?;
        step("Rust tests");
        run(cargo_host(self)
            .arg("test")
            .env("PQBENCH_DIST", self.dist())
            .env("PQBENCH_TEST_POSTGRES", postgres.url()))?;
        step("the suite with RustCrypto's ML-KEM/ML-DSA (the small boards' build)");
        run(cargo_host(self).args([
            "test",
            "--package",
            "pqbench-suite",
            "--no-default-features",
            "--features",
            "rustcrypto",
        ]))?;
        step("the server without probe support still builds (--no-default-features)");
        run(cargo_host(self).args([
            "check",
            "--package",
            "pqbench",
            "--no-default-features",
            "--all-targets",
        ]))?;
        fuzz(self, FUZZ_SECONDS)?;
        step("browser tests (headless Chromium)");
        run(Command::new("node")
            .args(["--test", "--test-concurrency=1"])
            .arg(self.root.join("tests/e2e"))
            .env("PQBENCH_DIST", self.dist())
            .env("PQBENCH_BIN", self.server_binary())
            .env("PQBENCH_TEST_POSTGRES", postgres.url())
            .current_dir(self.root.join("tests/e2e")))
    }
}

/// The fuzz targets in `fuzz/` (see its README), each with its seeds
/// (relative to the repository), a dictionary of tokens if it has one, and
/// the longest input it is given: longer inputs only slow it down.
const FUZZ_TARGETS: &[FuzzTarget] = &[
    // The log parsers, from the real logs the tests read.
    FuzzTarget { name: "parse_logs", seeds: "tests/samples", dict: None, max_len: 65_536 },
    FuzzTarget { name: "decode_records", seeds: "fuzz/seeds/decode_records", dict: None, max_len: 16_384 },
    FuzzTarget {
        name: "upload_json",
        seeds: "fuzz/seeds/upload_json",
        dict: Some("fuzz/seeds/upload_json.dict"),
        max_len: 16_384,
    },
];

/// Seconds each target runs in `cargo xtask test`: under two minutes for
/// all of them, and long enough for each to pass its seeds' structure.
const FUZZ_SECONDS: u32 = 35;

struct FuzzTarget {
    name: &'static str,
    seeds: &'static str,
    dict: Option<&'static str>,
    max_len: u32,
}

/// Builds `fuzz/` (its targets under libFuzzer) with the flags cargo-fuzz
/// would use, so a fresh machine needs no cargo-fuzz, into its own target
/// directory (sanitizer flags would otherwise invalidate the host build's
/// cache), then runs each target for `seconds` from its seeds and its own
/// corpus (`target/fuzz/corpus/<target>`, kept between runs so coverage
/// builds up). A crash (a panic, a failed assertion, AddressSanitizer's
/// finding, a hang) fails, leaving its input in `target/fuzz/artifacts/`.
fn fuzz(project: &Project, seconds: u32) -> Result<()> {
    let fuzz = project.root.join("fuzz");
    let target_dir = project.target.join("fuzz");
    let host =
        String::from_utf8(Command::new("rustc").arg("-vV").output().context("running rustc -vV")?.stdout)?
            .lines()
            .find_map(|line| line.strip_prefix("host: ").map(str::to_string))
            .context("rustc -vV names no host")?;
    // `--target` keeps these flags off build scripts and proc macros.
    // AddressSanitizer is a nightly flag; RUSTC_BOOTSTRAP lets the stable
    // compiler take it, as cargo-fuzz does on a nightly one.
    let rustflags = [
        "-Cpasses=sancov-module",
        "-Cllvm-args=-sanitizer-coverage-level=4",
        "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
        "-Cllvm-args=-sanitizer-coverage-pc-table",
        "-Cllvm-args=-sanitizer-coverage-trace-compares",
        "--cfg fuzzing",
        "-Zsanitizer=address",
        "-Cdebug-assertions",
        "-Coverflow-checks",
    ]
    .join(" ");
    step("fuzz targets: build");
    run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--bins", "--target", &host, "--target-dir"])
        .arg(&target_dir)
        .env("RUSTFLAGS", rustflags)
        .env("RUSTC_BOOTSTRAP", "1")
        .current_dir(&fuzz))?;
    let artifacts = target_dir.join("artifacts");
    std::fs::create_dir_all(&artifacts)?;
    for target in FUZZ_TARGETS {
        step(&format!("fuzz {} ({seconds} s)", target.name));
        let corpus = target_dir.join("corpus").join(target.name);
        std::fs::create_dir_all(&corpus)?;
        let mut command = Command::new(target_dir.join(&host).join("release").join(target.name));
        command
            .arg(&corpus)
            .arg(project.root.join(target.seeds))
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-max_len={}", target.max_len))
            // A single input running this long is a hang, and fails.
            .args(["-timeout=30", "-rss_limit_mb=2048", "-print_final_stats=1"])
            .arg(format!("-artifact_prefix={}/{}-", artifacts.display(), target.name));
        if let Some(dict) = target.dict {
            command.arg(format!("-dict={}", project.root.join(dict).display()));
        }
        // libFuzzer exits non-zero on a crash, a leak, a timeout or the RSS limit.
        run(&mut command)?;
    }
    Ok(())
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
