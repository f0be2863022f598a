//! Starting a run on a board: shared by `POST /api/runs` and `pqbench run`.

use pqbench_types::{RunRequest, RunStatus};
use pqbench_wire::RunCommand;

use crate::boards::{BoardError, Boards, EmulatedBoard, Emulator, Reservation};
use crate::collect::{Collector, Outcome, Progress};
use crate::store::{NewRun, Store, StoreError};

pub const DEFAULT_MIN_ITERATIONS: u32 = 10;
pub const DEFAULT_MIN_TIME_MS: u32 = 1000;
/// The firmware keeps at most this many samples per operation.
pub const MAX_ITERATIONS: u32 = 1024;
pub const MAX_TIME_MS: u32 = 60_000;
/// An emulated board never goes quiet for long: its slowest operation
/// takes about a second of host time per call. Silence means it locked up
/// (a stack overflow ends in a lockup), so the run fails sooner than a
/// real board's would.
const EMULATED_SILENCE: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The board command for a user's request; bounds keep one request from
/// holding a board for hours.
pub fn command(request: &RunRequest) -> Result<RunCommand, RunError> {
    let min_iterations = request.min_iterations.unwrap_or(DEFAULT_MIN_ITERATIONS);
    let min_time_ms = request.min_time_ms.unwrap_or(DEFAULT_MIN_TIME_MS);
    if !(1..=MAX_ITERATIONS).contains(&min_iterations) {
        return Err(RunError::Invalid(format!("min_iterations must be 1 to {MAX_ITERATIONS}")));
    }
    if min_time_ms > MAX_TIME_MS {
        return Err(RunError::Invalid(format!("min_time_ms must be at most {MAX_TIME_MS}")));
    }
    if request.algorithms.as_ref().is_some_and(Vec::is_empty) {
        return Err(RunError::Invalid("algorithms is empty: leave it out to run them all".into()));
    }
    let mut command = RunCommand::new(min_iterations, min_time_ms);
    for &algorithm in request.algorithms.iter().flatten() {
        if !pqbench_suite::supports(algorithm) {
            return Err(RunError::Invalid(format!("the suite does not measure {algorithm} yet")));
        }
        command = command.with_algorithm(algorithm);
    }
    Ok(command)
}

/// A run with its board taken and its row written, ready to execute.
pub struct PreparedRun {
    pub id: i64,
    command: RunCommand,
    board: &'static EmulatedBoard,
    image: std::path::PathBuf,
    store: Store,
    _reservation: Reservation,
}

pub async fn prepare(store: &Store, boards: &Boards, request: &RunRequest) -> Result<PreparedRun, RunError> {
    let command = command(request)?;
    let variant = request.variant.as_deref().unwrap_or(crate::boards::DEFAULT_VARIANT);
    let (reservation, board, image) = boards.reserve(&request.board, variant)?;
    let id = store
        .create_run(&NewRun::on_board(
            board.id,
            Some(serde_json::json!({
                "algorithms": request.algorithms,
                "min_iterations": command.min_iterations,
                "min_time_ms": command.min_time_ms,
                "variant": variant,
            })),
        ))
        .await?;
    Ok(PreparedRun { id, command, board, image, store: store.clone(), _reservation: reservation })
}

impl PreparedRun {
    /// Starts the board, collects the run and records how it ended. A board
    /// that cannot be started fails the run with the reason.
    pub async fn execute(self, progress: impl FnMut(Progress)) -> Result<Outcome, StoreError> {
        let emulator = match Emulator::start(self.board, &self.image).await {
            Ok(emulator) => emulator,
            Err(e) => return self.fail(e.to_string()).await,
        };
        let mut port = match emulator.open_console() {
            Ok(port) => port,
            Err(e) => {
                emulator.stop().await;
                return self.fail(e.to_string()).await;
            }
        };
        let mut collector = Collector::new(&self.store, self.id);
        collector.silence = EMULATED_SILENCE;
        let outcome = collector.collect(&mut port, self.command, progress).await;
        drop(port);
        emulator.stop().await;
        outcome
    }

    async fn fail(&self, error: String) -> Result<Outcome, StoreError> {
        self.store.finish_run(self.id, RunStatus::Failed, Some(&error)).await?;
        Ok(Outcome { status: RunStatus::Failed, error: Some(error), results: 0, rejected: 0 })
    }
}
