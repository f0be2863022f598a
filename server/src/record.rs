//! A board's run recorded into this server's store: the board side's
//! [`Recorder`] over [`Store`]. It lives here, where both are known, so
//! that neither the board side nor the store depends on the other.

use std::sync::Arc;

use pqbench_collect::record::{RecordError, Recorder, Recording, SharedRecorder};
use pqbench_collect::runner::RunDescription;
use pqbench_store::{NewRun, Store};
use pqbench_types::{BenchResult, Build, Measurement, RunStatus};

/// Records into run `run_id` of `store`.
#[derive(Clone)]
pub struct StoreRecorder {
    store: Store,
    run_id: i64,
}

impl StoreRecorder {
    /// Records into a run already written.
    pub fn for_run(store: &Store, run_id: i64) -> SharedRecorder {
        Arc::new(StoreRecorder { store: store.clone(), run_id })
    }

    /// Writes the run's row (`running`, made on `host` if an agent's) and
    /// records into it: the `open` of [`pqbench_collect::runner::prepare`].
    pub async fn open(
        store: &Store,
        description: RunDescription,
        host: Option<String>,
    ) -> Result<SharedRecorder, RecordError> {
        let run_id = store.create_run(&new_run(description, host)).await.map_err(RecordError::new)?;
        Ok(StoreRecorder::for_run(store, run_id))
    }
}

/// The store's row for a described run.
pub fn new_run(description: RunDescription, host: Option<String>) -> NewRun {
    let RunDescription { board, source, settings } = description;
    NewRun { source, host, ..NewRun::on_board(&board, Some(settings)) }
}

impl Recorder for StoreRecorder {
    fn run_id(&self) -> i64 {
        self.run_id
    }

    fn describe<'a>(
        &'a self,
        build: &'a Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: &'a str,
    ) -> Recording<'a, ()> {
        Box::pin(async move {
            let described =
                self.store.describe_run(self.run_id, build, clock_hz, ticks_per_second, tick_unit);
            described.await.map_err(RecordError::new)
        })
    }

    fn add_result<'a>(
        &'a self,
        seq: u32,
        result: &'a BenchResult,
        raw: Option<&'a Measurement>,
    ) -> Recording<'a, ()> {
        Box::pin(async move {
            self.store.add_result(self.run_id, seq, result, raw).await.map_err(RecordError::new)
        })
    }

    fn count_rejected<'a>(&'a self, _why: &'a str) -> Recording<'a, ()> {
        Box::pin(async move { self.store.count_rejected(self.run_id).await.map_err(RecordError::new) })
    }

    fn note<'a>(&'a self, note: &'a str) -> Recording<'a, ()> {
        Box::pin(async move { self.store.note_run(self.run_id, note).await.map_err(RecordError::new) })
    }

    fn finish<'a>(
        &'a self,
        status: RunStatus,
        error: Option<&'a str>,
        expected: Option<u32>,
    ) -> Recording<'a, RunStatus> {
        Box::pin(async move {
            let finished = self.store.finish_run_expecting(self.run_id, status, error, expected);
            finished.await.map_err(RecordError::new)
        })
    }
}
