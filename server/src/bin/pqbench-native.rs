//! `pqbench-native`: the suite on this host's CPU, printed on standard
//! output as one upload (`POST /api/uploads`'s JSON), with a progress bar on
//! standard error. `pqbench bench --native` runs it and stores what it
//! prints; it is a process of its own so that its counting allocator is
//! this binary's alone, and the server allocates through the system's.

use std::io::Write;

use anyhow::{Context, anyhow, ensure};
use clap::Parser;
use pqbench_collect::runner;
use pqbench_native_bench::CountingAllocator;
use pqbench_suite::Settings;
use pqbench_types::Algorithm;

/// Counts what the benchmark thread allocates (and nothing of the others).
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The suite on this host's CPU, printed as an upload (JSON).
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Comma-separated, e.g. ML-KEM-768,ML-KEM-512; all when left out.
    #[arg(long, value_delimiter = ',')]
    algorithms: Option<Vec<String>>,
    #[arg(long, default_value_t = runner::DEFAULT_MIN_ITERATIONS)]
    min_iterations: u32,
    #[arg(long, default_value_t = runner::DEFAULT_MIN_TIME_MS)]
    min_time_ms: u32,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let algorithms = match args.algorithms {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|name| {
                    let algorithm =
                        Algorithm::from_name(name).map_err(|_| anyhow!("unknown algorithm {name:?}"))?;
                    ensure!(pqbench_suite::supports(algorithm), "the suite does not measure {algorithm} yet");
                    Ok(algorithm)
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
        ),
    };
    let settings = Settings { min_iterations: args.min_iterations, min_time_ms: args.min_time_ms };
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message("starting native");
    let upload =
        pqbench_native_bench::run(settings, algorithms, true, &mut |algorithm, operation, index, total| {
            bar.set_length(u64::from(total));
            bar.set_position(u64::from(index - 1));
            bar.set_message(format!("{algorithm} {operation}"));
        })?;
    bar.finish_and_clear();
    let json = serde_json::to_string(&upload).context("encoding the upload")?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}").and_then(|()| out.flush()).context("writing the upload to standard output")
}
