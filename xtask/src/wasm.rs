//! The two wasm builds: the browser benchmark (the suite, `wasm-bench`) and
//! the dashboard (`web`), into `<dist>`, in the cross target directory
//! (lane 0's, `lanes.rs`: they never build while the lanes do). Their words
//! go to a [`Log`], live or kept.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::build_keys::{Done, Inputs, Keys, Made};
use crate::log::Log;
use crate::toolchain::{CrossBuild, CrossToolchain};
use crate::{Project, copy, peers, setup};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

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

/// The wasm builds: their workspace packages, the npm lock that pins
/// wasm-opt (binaryen) and the JavaScript peers staged beside the
/// benchmark, and wasm-bindgen (its version is Cargo.lock's, and so among
/// the registry crates, but the CLI is checked too).
const WASM: Made = Made {
    packages: &["pqbench-wasm-bench", "pqbench-web"],
    files: &["Cargo.toml", ".cargo/config.toml", "tests/e2e/package-lock.json"],
    tools: &[("wasm-bindgen", "--version"), ("node", "--version")],
};

/// What the wasm builds leave in `<dist>`, by the file each one's last step
/// writes.
const WASM_OUTPUTS: &[&str] =
    &["bench/pqbench_wasm_bench_bg.wasm", "bench/peers.js", "pkg/pqbench_web_bg.wasm", "main.js"];

fn build(project: &Project, cross: CrossToolchain, package: &str, log: &mut Log) -> Result<PathBuf> {
    let build =
        CrossBuild { package, target: WASM_TARGET, profile: "wasm", extra: &[], env: &[WASM_RUSTFLAGS] };
    cross.build_into(project, &project.cross_target(), &build, log)
}

/// The browser benchmark: the suite in wasm, into `<dist>/bench`.
pub fn build_browser_bench(project: &Project, cross: CrossToolchain, log: &mut Log) -> Result<()> {
    log.say("==> browser benchmark (wasm)");
    let dist = project.dist();
    let out = build(project, cross, "pqbench-wasm-bench", log)?;
    wasm_bindgen(&out.join("pqbench_wasm_bench.wasm"), &dist.join("bench"), log)?;
    let wasm = dist.join("bench/pqbench_wasm_bench_bg.wasm");
    log.run(
        Command::new("node")
            .arg(setup::wasm_opt_path(project))
            .args(WASM_OPT)
            .arg(&wasm)
            .arg("-o")
            .arg(&wasm),
    )?;
    copy(&project.root.join("wasm-bench/www/worker.js"), &dist.join("bench/worker.js"))?;
    copy(&project.root.join("wasm-bench/www/peers.js"), &dist.join("bench/peers.js"))?;
    peers::stage(project)
}

/// The dashboard into `<dist>`: its wasm, page, styles and start-up script.
pub fn build_dashboard(project: &Project, cross: CrossToolchain, log: &mut Log) -> Result<()> {
    log.say("==> dashboard (wasm)");
    let dist = project.dist();
    let out = build(project, cross, "pqbench-web", log)?;
    wasm_bindgen(&out.join("pqbench_web.wasm"), &dist.join("pkg"), log)?;
    // The page, its styles and its start-up script: separate files, as
    // the server's Content-Security-Policy runs nothing inline.
    for file in ["index.html", "style.css", "main.js"] {
        copy(&project.root.join("web").join(file), &dist.join(file))?;
    }
    Ok(())
}

fn wasm_bindgen(wasm: &Path, out: &Path, log: &mut Log) -> Result<()> {
    log.run(
        Command::new(setup::wasm_bindgen_path())
            .args(["--target", "web", "--no-typescript", "--remove-name-section", "--out-dir"])
            .arg(out)
            .arg(wasm),
    )
}

/// The browser benchmark and the dashboard, unless what they are made from
/// is what they were last built from here (keyed as the images are,
/// `build_keys.rs`): a fresh clone would otherwise relink both, minutes of
/// fat LTO, for a change to the server.
pub fn build_both_unless_unchanged(project: &Project, cross: CrossToolchain, log: &mut Log) -> Result<()> {
    let inputs = Inputs::gather(project, cross, &WASM)?;
    let settings = format!("{WASM_RUSTFLAGS:?} {WASM_OPT:?}");
    let key = inputs.key(&CrossBuild {
        package: &WASM.packages.join(","),
        target: WASM_TARGET,
        profile: "wasm",
        extra: &[&settings],
        env: &[],
    });
    let keys = Keys::new(project);
    let dist = project.dist();
    if keys.done("wasm", &key) == Some(Done::Built) && WASM_OUTPUTS.iter().all(|f| dist.join(f).is_file()) {
        log.say("==> the browser benchmark and the dashboard: unchanged since they were last built here");
        return Ok(());
    }
    keys.forget("wasm");
    build_browser_bench(project, cross, log)?;
    build_dashboard(project, cross, log)?;
    keys.record("wasm", &key, Done::Built)
}
