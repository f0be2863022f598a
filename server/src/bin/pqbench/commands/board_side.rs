//! Boards from the command line: a run with a progress bar, the suite on
//! this host's CPU, serial ports asked and flashed.

use std::process::Stdio;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use pqbench::record::StoreRecorder;
use pqbench_api::{NewRun, Upload};
use pqbench_collect::boards::Boards;
use pqbench_collect::collector::Progress;
use pqbench_collect::runner;
use pqbench_store::Location;
use pqbench_suite::Settings;
use pqbench_types::{Algorithm, RunStatus};

use super::store::open_store;
use crate::cli::Paths;

/// Asks every serial port once, to the end.
pub async fn ask_ports(boards: &Boards) {
    if let Some(watch) = boards.serial_watch() {
        for asked in watch.scan().await {
            let _ = asked.await;
        }
    }
}

pub async fn flash_board(boards: &Boards, board: &str, variant: &str) -> anyhow::Result<()> {
    eprintln!("flashing {board} with its {variant} image...");
    let flashed = pqbench_collect::flash::flash(boards, board, variant).await?;
    eprintln!(
        "{board} runs {} (build {})",
        flashed.image.display(),
        flashed.build_id.as_deref().unwrap_or("without a build id")
    );
    Ok(())
}

/// Starts watching the serial ports of `boards` for as long as the process runs.
pub fn watch_ports(boards: &Boards) {
    if let Some(watch) = boards.serial_watch() {
        watch.spawn(tokio_util::sync::CancellationToken::new());
    }
}

/// Runs `request` to its end, stored in `paths.db`; its id, printed on
/// stdout when `print_id`. A run that does not complete is an error.
pub async fn run(paths: &Paths, boards: Boards, request: NewRun, print_id: bool) -> anyhow::Result<i64> {
    let store = open_store(&paths.db).await?;
    let open = |run| async { StoreRecorder::open(&store, run, None).await };
    let prepared = runner::prepare(&boards, &request, open).await?;
    let id = prepared.id;
    let bar = progress_bar(&request.board);
    let outcome = prepared
        .execute(|progress| match progress {
            Progress::Operation { algorithm, operation, index, total } => {
                bar.set_length(u64::from(total));
                bar.set_position(u64::from(index - 1));
                bar.set_message(format!("{algorithm} {operation}"));
            }
            Progress::Result(_) => bar.inc(1),
            Progress::Rejected(why) => bar.println(format!("refused a record: {why}")),
            Progress::Text(_) => {}
        })
        .await?;
    bar.finish_and_clear();
    match outcome.status {
        RunStatus::Complete => {
            eprintln!("run {id} complete: {} results", outcome.results);
            if print_id {
                println!("{id}");
            }
            Ok(id)
        }
        status => {
            if print_id {
                println!("{id}");
            }
            bail!(
                "run {id} {}: {}",
                status.as_str(),
                outcome.error.unwrap_or_else(|| "no reason given".into())
            )
        }
    }
}

/// The name of the binary that runs the suite on this CPU, beside this one.
const NATIVE_BINARY: &str = "pqbench-native";

/// The suite on this CPU, run by `pqbench-native` (beside this binary) in a
/// process of its own, its upload stored as a finished run.
pub async fn bench_native(
    db: &Location,
    algorithms: Option<Vec<Algorithm>>,
    settings: Settings,
) -> anyhow::Result<()> {
    if env!("PQBENCH_OPT_LEVEL") == "0" {
        eprintln!(
            "note: this pqbench is built without optimisation, and its figures will show it; \
             `cargo build --release -p pqbench` makes one worth comparing"
        );
    }
    let store = open_store(db).await?;
    let binary = std::env::current_exe()
        .context("finding this binary, to find pqbench-native beside it")?
        .with_file_name(NATIVE_BINARY);
    let mut command = tokio::process::Command::new(&binary);
    command
        .args(["--min-iterations", &settings.min_iterations.to_string()])
        .args(["--min-time-ms", &settings.min_time_ms.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        // Its progress bar, and anything it has to say.
        .stderr(Stdio::inherit());
    if let Some(algorithms) = &algorithms {
        let names: Vec<&str> = algorithms.iter().map(|a| a.as_str()).collect();
        command.arg("--algorithms").arg(names.join(","));
    }
    let output = command
        .output()
        .await
        .with_context(|| format!("starting {} (built with pqbench, beside it)", binary.display()))?;
    if !output.status.success() {
        bail!("{NATIVE_BINARY} failed ({}); nothing was stored", output.status);
    }
    let upload: Upload = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("{NATIVE_BINARY} printed no upload; nothing was stored"))?;
    let (run, clock) = pqbench_store::upload::validate(&upload)?;
    let digest = pqbench_store::upload::digest(&upload);
    let id =
        store.insert_finished_run(&run, &clock, &upload.measurements, &upload.notes, Some(&digest)).await?;
    eprintln!("run {id} complete: {} results on {}", upload.measurements.len(), upload.board);
    println!("{id}");
    Ok(())
}

pub fn progress_bar(what: &str) -> ProgressBar {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("starting {what}"));
    bar
}
