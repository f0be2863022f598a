//! Where a run's records go as the board sends them. The collector and the
//! runner only know this trait: the server's implementation writes into its
//! store, an agent's sends each record up its connection to the central
//! server (which stores it). Neither is a dependency of this crate.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use pqbench_types::{BenchResult, Build, Measurement, RunStatus};

/// A record could not be kept: the store failed, or the way to it closed.
/// The run cannot go on without somewhere to put its results.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct RecordError(Box<dyn std::error::Error + Send + Sync>);

impl RecordError {
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        RecordError(error.into())
    }

    /// The error the recorder failed with, to look at its kind.
    pub fn source_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self.0.as_ref()
    }
}

/// What a recorder's call returns: boxed, so a recorder is an object and
/// the collector is the same code whoever keeps the records.
pub type Recording<'a, T> = Pin<Box<dyn Future<Output = Result<T, RecordError>> + Send + 'a>>;

/// The record of one run, written as the board reports.
pub trait Recorder: Send + Sync {
    /// The run's id where its records are kept.
    fn run_id(&self) -> i64;

    /// What the board said of itself once it answered: its build, and the
    /// clock its counts are in.
    fn describe<'a>(
        &'a self,
        build: &'a Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: &'a str,
    ) -> Recording<'a, ()>;

    /// Result number `seq` (from 0), with the board's raw counts where it
    /// sent them.
    fn add_result<'a>(
        &'a self,
        seq: u32,
        result: &'a BenchResult,
        raw: Option<&'a Measurement>,
    ) -> Recording<'a, ()>;

    /// A record that was refused on the way in (bad checksum, cut off...).
    fn count_rejected<'a>(&'a self, why: &'a str) -> Recording<'a, ()>;

    /// A line for the run's notes: what happened on the way that its
    /// results do not say (a probe's transient errors it recovered from).
    fn note<'a>(&'a self, note: &'a str) -> Recording<'a, ()>;

    /// Ends the run. With `expected`, a `complete` run is vouched for: it
    /// must hold that many results, or it is written `incomplete`. Returns
    /// the status written.
    fn finish<'a>(
        &'a self,
        status: RunStatus,
        error: Option<&'a str>,
        expected: Option<u32>,
    ) -> Recording<'a, RunStatus>;
}

/// A recorder as the collector and the runner hold it.
pub type SharedRecorder = Arc<dyn Recorder>;
