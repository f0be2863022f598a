//! Where a run's records go as the board sends them: into the store, or,
//! for a board on an agent host, up to the central server that started the
//! run (which stores them). The collector and the runner are the same
//! either way.

use pqbench_types::{BenchResult, Build, Measurement, RunStatus};

use crate::agent::Uplink;
use crate::store::{Store, StoreError};

#[derive(Clone)]
pub enum Recorder {
    /// Into this process's store: the server's own boards, `pqbench run`.
    Store { store: Store, run_id: i64 },
    /// To the central server, over the agent's connection.
    Central(Uplink),
}

impl Recorder {
    pub fn run_id(&self) -> i64 {
        match self {
            Recorder::Store { run_id, .. } => *run_id,
            Recorder::Central(uplink) => uplink.run_id,
        }
    }

    /// What the board said of itself once it answered.
    pub async fn describe(
        &self,
        build: &Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: &str,
    ) -> Result<(), StoreError> {
        match self {
            Recorder::Store { store, run_id } => {
                store.describe_run(*run_id, build, clock_hz, ticks_per_second, tick_unit).await
            }
            Recorder::Central(uplink) => {
                uplink.described(build.clone(), clock_hz, ticks_per_second, tick_unit.to_string()).await
            }
        }
    }

    pub async fn add_result(
        &self,
        seq: u32,
        result: &BenchResult,
        raw: Option<&Measurement>,
    ) -> Result<(), StoreError> {
        match self {
            Recorder::Store { store, run_id } => store.add_result(*run_id, seq, result, raw).await,
            // The server derives the figures from the counts itself.
            Recorder::Central(uplink) => match raw {
                Some(measurement) => uplink.result(seq, *measurement).await,
                None => Err(StoreError::Corrupt(format!(
                    "result {seq} ({} {}) has no counts to send",
                    result.algorithm, result.operation
                ))),
            },
        }
    }

    pub async fn count_rejected(&self, why: &str) -> Result<(), StoreError> {
        match self {
            Recorder::Store { store, run_id } => store.count_rejected(*run_id).await,
            Recorder::Central(uplink) => uplink.rejected(why.to_string()).await,
        }
    }

    /// Ends the run; see [`Store::finish_run_expecting`]. Over an agent's
    /// connection the central server vouches for the run the same way,
    /// and the status returned is the one sent.
    pub async fn finish(
        &self,
        status: RunStatus,
        error: Option<&str>,
        expected: Option<u32>,
    ) -> Result<RunStatus, StoreError> {
        match self {
            Recorder::Store { store, run_id } => {
                store.finish_run_expecting(*run_id, status, error, expected).await
            }
            Recorder::Central(uplink) => {
                uplink.finished(status, error.map(String::from), expected).await?;
                Ok(status)
            }
        }
    }
}
