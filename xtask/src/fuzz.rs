//! Fuzzing in the full test tier: the targets in `fuzz/` (see its README),
//! built with libFuzzer's instrumentation and each run for a fixed time.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, anyhow, bail};

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

/// Seconds each target runs in `cargo xtask test`, on a core of its own:
/// long enough for each to pass its seeds' structure, and two rounds of it
/// for the three targets on a 2-core machine.
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
    // One target a core at a time: each still gets `seconds` of a whole
    // core, and the three take two rounds of the wall clock, not three.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    step(&format!("fuzz {} targets, {seconds} s each, {cores} at a time", FUZZ_TARGETS.len()));
    let next = AtomicUsize::new(0);
    let failures: Vec<anyhow::Error> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..cores.min(FUZZ_TARGETS.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut failed = Vec::new();
                    while let Some(target) = FUZZ_TARGETS.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if let Err(error) = fuzz_one(project, target, &target_dir, &host, &artifacts, seconds)
                        {
                            failed.push(error);
                        }
                    }
                    failed
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_else(|_| vec![anyhow!("a fuzz worker panicked")]))
            .collect()
    });
    match failures.len() {
        0 => Ok(()),
        _ => {
            for failure in &failures {
                eprintln!("{failure:#}");
            }
            bail!("{} of {} fuzz targets failed", failures.len(), FUZZ_TARGETS.len())
        }
    }
}

/// Runs one target for `seconds`, its output into `<target_dir>/<name>.log`
/// (two at once would interleave on the terminal); says how many inputs it
/// ran, or fails with the log's end.
fn fuzz_one(
    project: &Project,
    target: &FuzzTarget,
    target_dir: &Path,
    host: &str,
    artifacts: &Path,
    seconds: u32,
) -> Result<()> {
    let corpus = target_dir.join("corpus").join(target.name);
    std::fs::create_dir_all(&corpus)?;
    let log_path = target_dir.join(format!("{}.log", target.name));
    let log = std::fs::File::create(&log_path).with_context(|| format!("creating {}", log_path.display()))?;
    let mut command = Command::new(target_dir.join(host).join("release").join(target.name));
    command
        .arg(&corpus)
        .arg(project.root.join(target.seeds))
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={}", target.max_len))
        // A single input running this long is a hang, and fails.
        .args(["-timeout=30", "-rss_limit_mb=2048", "-print_final_stats=1"])
        .arg(format!("-artifact_prefix={}/{}-", artifacts.display(), target.name))
        .stdout(log.try_clone()?)
        .stderr(log);
    if let Some(dict) = target.dict {
        command.arg(format!("-dict={}", project.root.join(dict).display()));
    }
    // libFuzzer exits non-zero on a crash, a leak, a timeout or the RSS limit.
    let status = command.status().with_context(|| format!("starting the fuzz target {}", target.name))?;
    let text = std::fs::read_to_string(&log_path).unwrap_or_default();
    if !status.success() {
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "fuzz target {} failed ({status}); its input is in {}, the end of {}:\n{}",
            target.name,
            artifacts.display(),
            log_path.display(),
            tail.join("\n")
        );
    }
    let executed = text
        .lines()
        .find_map(|line| line.strip_prefix("stat::number_of_executed_units:"))
        .map_or("an unknown number of", str::trim);
    eprintln!("fuzz {}: {executed} inputs in {seconds} s, no failure ({})", target.name, log_path.display());
    Ok(())
}
