//! `cargo xtask test`: the two test tiers.
//!
//! - The quick tier (`--quick`), for every change while working: formatting,
//!   clippy with warnings denied on the host crates, and every host test that
//!   needs no firmware image, no PostgreSQL, no browser and no network. It
//!   installs nothing and builds no image; a test that needs what it lacks is
//!   skipped by name (`pqbench-test-needs`), and the skips are listed at the
//!   end.
//! - The full tier (no flag), what CI runs: setup, the supply-chain check
//!   (`supply_chain.rs`), the wasm builds, the
//!   images the tests use (the others compile-checked, see `images.rs`),
//!   every Rust test with PostgreSQL (which builds the server the
//!   browser tests run), the suite in its other builds, fuzzing and the
//!   browser tests. Nothing is skipped there: a test whose environment is
//!   missing fails, naming it.
//!
//! Each tier prints the wall time of its phases at its end, and appends them
//! to the file `PQBENCH_PHASES` names, if set (`.ci/run` prints both tiers'
//! as one table).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use pqbench_test_needs::{DIST_VAR, POSTGRES_VAR, SKIPPED_VAR, TIER_VAR};

use crate::fuzz::{FUZZ_SECONDS, fuzz};
use crate::log::Log;
use crate::supply_chain::{self, Advisories};
use crate::{Project, cargo_host, postgres, run, setup, step, wasm};

/// The variable naming the file each phase's time is appended to.
const PHASES_VAR: &str = "PQBENCH_PHASES";

/// The phases of one tier, timed as they run.
struct Phases {
    tier: &'static str,
    done: Vec<(&'static str, Duration)>,
    /// What a phase could not do though it passed, printed under the table.
    notes: Vec<String>,
}

impl Phases {
    fn new(tier: &'static str) -> Phases {
        Phases { tier, done: Vec::new(), notes: Vec::new() }
    }

    /// Something the table must not let pass unread.
    fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    /// Runs `phase`, keeping its time whether it passed or not.
    fn time<T>(&mut self, name: &'static str, phase: impl FnOnce() -> Result<T>) -> Result<T> {
        let started = Instant::now();
        let result = phase();
        self.done.push((name, started.elapsed()));
        result.with_context(|| format!("{} tier, {name}", self.tier))
    }

    /// The table, printed and appended to `PQBENCH_PHASES`'s file.
    fn report(&self) {
        let total: Duration = self.done.iter().map(|(_, took)| *took).sum();
        let mut table = format!("\n==> {} tier: wall time by phase\n", self.tier);
        for (name, took) in self.done.iter().chain([&("total", total)]) {
            table.push_str(&format!("  {name:<40} {:>7.1} s\n", took.as_secs_f64()));
        }
        for note in &self.notes {
            table.push_str(&format!("  NOTE: {note}\n"));
        }
        eprint!("{table}");
        if let Some(file) = std::env::var_os(PHASES_VAR) {
            let lines: String = self
                .done
                .iter()
                .map(|(name, took)| format!("{}\t{name}\t{:.1}\n", self.tier, took.as_secs_f64()))
                .chain(self.notes.iter().map(|note| format!("{}\tNOTE\t{note}\n", self.tier)))
                .collect();
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&file)
                .and_then(|mut f| f.write_all(lines.as_bytes()));
            if let Err(error) = appended {
                eprintln!("could not append the phases to {}: {error}", Path::new(&file).display());
            }
        }
    }
}

/// Runs `tier`'s phases, then reports their times, passed or not.
fn timed(tier: &'static str, phases: impl FnOnce(&mut Phases) -> Result<()>) -> Result<()> {
    let mut timing = Phases::new(tier);
    let result = phases(&mut timing);
    timing.report();
    result
}

pub fn quick(project: &Project) -> Result<()> {
    let skipped = project.target.join("quick-tier-skipped.txt");
    // An empty dist folder: the quick tier never runs an image, whatever a
    // developer's own `target/dist` holds, so it skips the same tests on
    // every machine.
    let no_dist = project.target.join("quick-tier-dist");
    // An earlier run's skips are not this one's.
    let _ = std::fs::remove_file(&skipped);
    let result = timed("quick", |phases| {
        phases.time("format (cargo fmt --check)", || {
            step("format");
            run(cargo_host(project).args(["fmt", "--all", "--check"]))?;
            run(cargo_host(project).args(["fmt", "--check", "--manifest-path", "fuzz/Cargo.toml"]))
        })?;
        phases.time("clippy (warnings denied)", || {
            step("clippy, warnings denied (the host crates)");
            // The host crates only. The two wasm crates compile for the host
            // too, but linting them here (leptos and its dependencies) took
            // 136 s of a clean run, which the cold budget cannot spare; the
            // full tier builds them first, so a mistake in them still stops
            // CI minutes into that tier.
            run(cargo_host(project).args(["clippy", "--all-targets", "--", "-D", "warnings"]))
        })?;
        let _ = std::fs::remove_dir_all(&no_dist);
        std::fs::create_dir_all(&no_dist)?;
        let quick_env = |command: &mut Command| {
            command
                .env(TIER_VAR, "quick")
                .env(SKIPPED_VAR, &skipped)
                .env(DIST_VAR, &no_dist)
                .env_remove(POSTGRES_VAR);
            // The known answers' Python packages, if a full run installed them:
            // using them needs no network.
            let python = setup::kat_python_path(project);
            if python.is_file() {
                command.env("PQBENCH_KAT_PYTHON", python);
            }
        };
        phases.time("Rust tests", || {
            rust_tests(
                project,
                "Rust tests (the quick tier: no image, PostgreSQL, browser or network)",
                &quick_env,
            )
        })?;
        phases.time("suite builds", || suite_builds(project, &quick_env))
    });
    list_skipped(&skipped)?;
    result
}

pub fn full(project: &Project) -> Result<()> {
    timed("full", |phases| {
        let cross = phases.time("setup", || setup::ensure(project, true))?;
        if let Advisories::NotChecked(why) =
            phases.time("supply chain (cargo deny)", || supply_chain::check(project))?
        {
            phases.note(why);
        }
        // The wasm builds first: a mistake in the dashboard or the browser
        // benchmark stops the tier in minutes, not after the images. After
        // each other, not beside the image lanes: the lanes keep both cores
        // busy, and the wasm built beside them made the two phases 100 s
        // longer together (BENCHMARKS.md, "The test tiers").
        phases.time("wasm and timing model builds", || {
            wasm::build_both_unless_unchanged(project, cross, &mut Log::Live)?;
            project.build_timing_model()
        })?;
        phases.time("images", || project.images_for_tests(&cross))?;
        // No `cargo build --package pqbench` here: the browser tests run the
        // server the Rust tests built (`target/debug/pqbench`). Built alone,
        // its dependencies resolve other features than the workspace's test
        // build does (dev-dependencies' features are unified into that one),
        // so cargo compiled tokio, probe-rs, sqlx and the rest a second time:
        // 70 s of a clean run (BENCHMARKS.md, "The test tiers").

        // Stopped and deleted when dropped, at the end of this closure.
        let postgres = phases.time("PostgreSQL started", || postgres::TestPostgres::start(project))?;
        let full_env = |command: &mut Command| {
            command
                .env(TIER_VAR, "full")
                .env(DIST_VAR, project.dist())
                .env(POSTGRES_VAR, postgres.url())
                .env("PQBENCH_KAT_PYTHON", setup::kat_python_path(project))
                .env_remove(SKIPPED_VAR);
        };
        phases.time("Rust tests", || rust_tests(project, "Rust tests", &full_env))?;
        phases.time("suite builds", || suite_builds(project, &full_env))?;
        phases.time("fuzzing", || fuzz(project, FUZZ_SECONDS))?;
        phases.time("browser tests", || {
            step("browser tests (headless Chromium)");
            run(Command::new("node")
                .args(["--test", "--test-concurrency=1"])
                .arg(project.root.join("tests/e2e"))
                .env("PQBENCH_DIST", project.dist())
                .env("PQBENCH_BIN", project.server_binary())
                .env(POSTGRES_VAR, postgres.url())
                .current_dir(project.root.join("tests/e2e")))
        })
    })
}

/// Every host test of the workspace, in the tier `tier_env` sets up.
fn rust_tests(project: &Project, what: &str, tier_env: &dyn Fn(&mut Command)) -> Result<()> {
    step(what);
    let mut command = cargo_host(project);
    // Every failure at once, not the first binary's alone.
    command.args(["test", "--no-fail-fast"]);
    tier_env(&mut command);
    run(&mut command)
}

/// The suite in its other ML-KEM/ML-DSA builds (the default build's tests
/// ran with the workspace), and the server without probe support. The
/// suite's known answers are recomputed by the independent implementation
/// in each build (kat::tests): each implementation is checked against the
/// same table.
fn suite_builds(project: &Project, tier_env: &dyn Fn(&mut Command)) -> Result<()> {
    let builds: [(&str, &[&str]); 3] = [
        (
            "the suite with RustCrypto's ML-KEM/ML-DSA (the small boards' build)",
            &["--no-default-features", "--features", "rustcrypto"],
        ),
        (
            "the suite with PQClean's C ML-KEM/ML-DSA (the `opt-s-pqclean` build)",
            &["--no-default-features", "--features", "pqclean"],
        ),
        (
            "the suite with all three, their ML-KEM/ML-DSA outputs compared byte for byte",
            &["--features", "libcrux,rustcrypto,pqclean"],
        ),
    ];
    for (what, features) in builds {
        step(what);
        let mut command = cargo_host(project);
        command.args(["test", "--package", "pqbench-suite"]).args(features);
        tier_env(&mut command);
        run(&mut command)?;
    }
    step("the server without probe support still builds (--no-default-features)");
    run(cargo_host(project).args(["check", "--package", "pqbench", "--no-default-features", "--all-targets"]))
}

/// The quick tier's skips, by what they need, each test by name.
fn list_skipped(file: &Path) -> Result<()> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error).context(format!("reading {}", file.display())),
    };
    let mut by_need: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let (test, need) = line.split_once('\t').unwrap_or((line, "(no reason recorded)"));
        let tests = by_need.entry(generalise(need)).or_default();
        if !tests.iter().any(|t| t == test) {
            tests.push(test.to_string());
        }
    }
    let count: usize = by_need.values().map(Vec::len).sum();
    eprintln!(
        "\n==> the quick tier skipped {count} tests (`cargo xtask test`, the full tier, runs every one of them):"
    );
    for (need, tests) in &mut by_need {
        tests.sort();
        eprintln!("  needs {need}: {}", tests.len());
        for test in tests {
            eprintln!("    {test}");
        }
    }
    Ok(())
}

/// A need without the folder it was looked for in, so every image groups
/// by name alone: "the firmware image x.elf (/tmp/...)" is "the firmware
/// image x.elf".
fn generalise(need: &str) -> String {
    match need.split_once(" (/") {
        Some((what, _)) => what.to_string(),
        None => need.to_string(),
    }
}
