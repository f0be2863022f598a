//! `cargo xtask bench-m4-model`: the Cortex-M4 timing model checked against
//! published cycle counts, and what it costs.
//!
//! 1. Accuracy. PQClean's `clean` ML-KEM and ML-DSA run on the emulated
//!    board (`opt-s-pqclean`, compiled with pqm4's flags) under the model.
//!    pqm4 links its own assembly Keccak, so only the code outside hashing
//!    is the same on both sides. pqm4's share is the mean of per-call
//!    shares (mupq's profiling build), so ours is taken the same way (the
//!    plugin counts each sample's hashing cycles); and the harness's own
//!    work in the timed window (allocator, copies, randomness, the timed
//!    loop), which pqm4 never runs, is taken out of ours. The table also
//!    gives the aggregate share and the figure with the harness left in,
//!    to show what each step changes.
//! 2. Cost. The whole suite on the emulated board, with and without the
//!    plugin, wall time.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use pqbench_boards::{Board, Variant};
use serde_json::Value;

use crate::{Project, cargo_host, run, setup, step};

/// pqm4's `benchmarks.md` (mupq/pqm4, the 2025 tables; rows `<scheme>
/// (<n> executions) | clean` of "Speed Evaluation" and `<scheme> | clean`
/// of "Hashing Evaluation"), copied: (scheme, operation, mean cycles,
/// hashing %), over 10 executions (ML-KEM) or 1,000 (ML-DSA). The file
/// names no board: pqm4's scripts default to the STM32F4 Discovery (an
/// STM32F407) at 24 MHz with no wait state. The hashing % is mupq's: the
/// mean over executions of each one's hashing share, from a profiling
/// build.
const PQM4_CLEAN: &[(&str, &str, f64, f64)] = &[
    ("ML-KEM-512", "keygen", 595_793.0, 49.8),
    ("ML-KEM-512", "encaps", 700_605.0, 41.1),
    ("ML-KEM-512", "decaps", 888_653.0, 32.5),
    ("ML-KEM-768", "keygen", 988_722.0, 48.5),
    ("ML-KEM-768", "encaps", 1_138_225.0, 43.2),
    ("ML-KEM-768", "decaps", 1_387_984.0, 35.4),
    ("ML-KEM-1024", "keygen", 1_536_343.0, 50.0),
    ("ML-KEM-1024", "encaps", 1_708_071.0, 45.7),
    ("ML-KEM-1024", "decaps", 2_020_327.0, 38.6),
    ("ML-DSA-44", "keygen", 1_874_405.0, 61.0),
    ("ML-DSA-44", "sign", 7_925_955.0, 31.0),
    ("ML-DSA-44", "verify", 2_063_096.0, 52.9),
    ("ML-DSA-65", "keygen", 3_205_533.0, 64.7),
    ("ML-DSA-65", "sign", 12_359_056.0, 31.2),
    ("ML-DSA-65", "verify", 3_377_305.0, 56.8),
    ("ML-DSA-87", "keygen", 5_341_863.0, 67.0),
    ("ML-DSA-87", "sign", 15_579_513.0, 35.9),
    ("ML-DSA-87", "verify", 5_610_203.0, 61.1),
];

const VARIANT: &str = "opt-s-pqclean";

pub fn m4_model(project: &Project, args: &[&str]) -> Result<()> {
    let mut kem_calls = "100";
    // The most one run holds: a board keeps 1,024 samples, and a run's
    // `min_iterations` is at most that.
    let mut dsa_calls = "1024";
    let mut rounds = 3u32;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match *arg {
            "--kem-calls" => kem_calls = args.next().context("--kem-calls N")?,
            "--dsa-calls" => dsa_calls = args.next().context("--dsa-calls N")?,
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).context("--rounds N")?,
            other => {
                bail!("bench-m4-model: unknown argument {other} (--kem-calls N, --dsa-calls N, --rounds N)")
            }
        }
    }
    let cross = setup::ensure(project, false)?;
    let board = Board::by_firmware("mps2-an386").context("the emulated Cortex-M4")?;
    let variant = Variant::named(VARIANT).context("the PQClean variant")?;
    project.build_image(&cross, board, variant)?;
    project.build_timing_model()?;
    step("server");
    run(cargo_host(project).args(["build", "--package", "pqbench"]))?;

    let dir = std::env::temp_dir().join(format!("pqbench-bench-m4-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("model.db");
    step(&format!("PQClean's ML-KEM ({kem_calls} calls) and ML-DSA ({dsa_calls} calls) under the model"));
    let mut estimates = Vec::new();
    for (algorithms, calls) in
        [("ML-KEM-512,ML-KEM-768,ML-KEM-1024", kem_calls), ("ML-DSA-44,ML-DSA-65,ML-DSA-87", dsa_calls)]
    {
        let id = pqbench(
            project,
            &project.dist(),
            &db,
            &["run", "--board", "qemu-mps2-an386", "--variant", VARIANT, "--algorithms", algorithms]
                .into_iter()
                .chain(["--min-iterations", calls, "--min-time-ms", "0"])
                .collect::<Vec<_>>(),
        )?;
        let export: Value = serde_json::from_str(&pqbench(
            project,
            &project.dist(),
            &db,
            &["export", "--run", id.trim(), "--format", "json"],
        )?)?;
        estimates.extend(export["results"].as_array().context("a run's results")?.iter().cloned());
    }
    print_accuracy(&estimates)?;
    if rounds > 0 {
        whole_suite_cost(project, &cross, board, &dir, &db, rounds)?;
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The whole suite on the emulated board with the plugin and without it
/// (a dist folder without `qemu/`), alternated, wall time.
fn whole_suite_cost(
    project: &Project,
    cross: &crate::toolchain::CrossToolchain,
    board: &Board,
    dir: &Path,
    db: &Path,
    rounds: u32,
) -> Result<()> {
    step(&format!(
        "the whole suite on the emulated board (opt-s), with the plugin and without, {rounds} times each"
    ));
    let bare = dir.join("dist-without-plugin");
    std::fs::create_dir_all(&bare)?;
    std::os::unix::fs::symlink(project.dist().join("firmware"), bare.join("firmware"))?;
    let default = Variant::named(pqbench_boards::DEFAULT_VARIANT).context("the default variant")?;
    project.build_image(cross, board, default)?;
    println!("\n| round | with the plugin | without |\n| --- | ---: | ---: |");
    for round in 1..=rounds {
        let mut seconds = [0.0; 2];
        for (slot, dist) in [project.dist(), bare.clone()].iter().enumerate() {
            let started = Instant::now();
            pqbench(project, dist, db, &["run", "--board", "qemu-mps2-an386"])?;
            seconds[slot] = started.elapsed().as_secs_f64();
        }
        println!("| {round} | {:.1} s | {:.1} s |", seconds[0], seconds[1]);
    }
    Ok(())
}

/// `pqbench ARGS --db DB --dist DIST`, its standard output.
fn pqbench(project: &Project, dist: &Path, db: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new(project.server_binary())
        .args(args)
        .arg("--db")
        .arg(db)
        .arg("--dist")
        .arg(dist)
        .output()
        .context("running pqbench")?;
    if !output.status.success() {
        bail!("pqbench {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The table BENCHMARKS.md shows: each operation's estimate and pqm4's,
/// and how far apart they are outside hashing, like for like and as first
/// compared (aggregate share, harness left in).
fn print_accuracy(results: &[Value]) -> Result<()> {
    println!(
        "\n| operation | calls | estimated (M4 model) | ± s.e. | hashing, of the whole | hashing, per call | harness | outside hashing, like for like | pqm4 clean | pqm4 hashing (per call) | pqm4 outside hashing | like for like | as first compared |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut worst: f64 = 0.0;
    for &(algorithm, operation, pqm4, pqm4_hashing) in PQM4_CLEAN {
        let result = results
            .iter()
            .find(|r| r["algorithm"] == algorithm && r["operation"] == operation)
            .with_context(|| format!("no {algorithm} {operation} in the run"))?;
        let model = &result["model"];
        let figures = (
            model["cycles_per_op"].as_f64(),
            model["hashing_share"].as_f64(),
            model["hashing_share_per_call"].as_f64(),
            model["stdev_cycles"].as_f64(),
            model["samples"].as_f64(),
        );
        let (Some(cycles), Some(whole), Some(per_call), Some(stdev), Some(samples)) = figures else {
            bail!("{algorithm} {operation} has no estimate with per-call hashing: {result}");
        };
        let harness: f64 = model["harness"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["cycles_per_op"].as_f64())
            .sum();
        let theirs = pqm4 * (1.0 - pqm4_hashing / 100.0);
        let like_for_like = cycles * (1.0 - per_call) - harness;
        let first = cycles * (1.0 - whole);
        let ratio = like_for_like / theirs;
        worst = worst.max((ratio - 1.0).abs());
        println!(
            "| {algorithm} {operation} | {samples:.0} | {} | {:.2}% | {:.1}% | {:.1}% | {} | {} | {} | {pqm4_hashing:.1}% | {} | {:+.1}% | {:+.1}% |",
            grouped(cycles),
            stdev / samples.sqrt() / cycles * 100.0,
            whole * 100.0,
            per_call * 100.0,
            grouped(harness),
            grouped(like_for_like),
            grouped(pqm4),
            grouped(theirs),
            (ratio - 1.0) * 100.0,
            (first / theirs - 1.0) * 100.0,
        );
    }
    println!("\nfarthest apart outside hashing, like for like: {:.1}% (goal: within 10%)", worst * 100.0);
    Ok(())
}

/// A whole number with thousands grouped, as pqm4 prints them.
fn grouped(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}
