//! Fuzzing in the full test tier: the targets in `fuzz/` (see its README),
//! built with libFuzzer's instrumentation and each run for a fixed time.

use std::process::Command;

use anyhow::{Context, Result};

use crate::{Project, run, step};

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
pub const FUZZ_SECONDS: u32 = 35;

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
pub fn fuzz(project: &Project, seconds: u32) -> Result<()> {
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
