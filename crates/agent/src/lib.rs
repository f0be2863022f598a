//! `pqbench agent`: serves a host's boards to a central server. The agent
//! opens a WebSocket to the server (so it works from behind NAT, as CI
//! runners do), registers its boards, runs what it is asked with the same
//! runner as the server's own boards, and streams each record back the
//! moment its board sends it ([`Uplink`]). The messages are
//! [`pqbench_api::agents`]; the server's side of the connection is the
//! server's `hub`.

pub mod client;
mod tls;

pub use client::{AgentError, AgentOptions, connect_url, run};
pub use tls::client_config;

use pqbench_api::agents::FromAgent;
use pqbench_collect::record::{RecordError, Recorder, Recording};
use pqbench_types::{BenchResult, Build, Measurement, RunStatus};
use tokio::sync::mpsc;

/// One run's way to the central server, on an agent host: what the
/// collector would write into a store, sent instead as messages, in order.
#[derive(Clone)]
pub struct Uplink {
    pub run_id: i64,
    outbox: mpsc::Sender<FromAgent>,
}

/// The connection to the central server closed while a run was on it.
#[derive(Debug, thiserror::Error)]
#[error("the central server is unreachable: the connection closed during the run")]
pub struct ConnectionClosed;

impl Uplink {
    pub fn new(run_id: i64, outbox: mpsc::Sender<FromAgent>) -> Self {
        Uplink { run_id, outbox }
    }

    async fn send(&self, message: FromAgent) -> Result<(), RecordError> {
        self.outbox.send(message).await.map_err(|_| RecordError::new(ConnectionClosed))
    }

    pub(crate) async fn finished(
        &self,
        status: RunStatus,
        error: Option<String>,
        results: Option<u32>,
    ) -> Result<(), RecordError> {
        self.send(FromAgent::Finished { run: self.run_id, status, error, results }).await
    }

    /// Progress is for people watching: dropped rather than waited for
    /// when the connection is backed up.
    pub(crate) fn progress(&self, message: FromAgent) {
        let _ = self.outbox.try_send(message);
    }
}

impl Recorder for Uplink {
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
        Box::pin(self.send(FromAgent::Described {
            run: self.run_id,
            build: Box::new(build.clone()),
            clock_hz,
            ticks_per_second,
            tick_unit: tick_unit.to_string(),
        }))
    }

    fn add_result<'a>(
        &'a self,
        seq: u32,
        result: &'a BenchResult,
        raw: Option<&'a Measurement>,
    ) -> Recording<'a, ()> {
        Box::pin(async move {
            // The central server derives the figures from the counts itself.
            let Some(&measurement) = raw else {
                return Err(RecordError::new(format!(
                    "result {seq} ({} {}) has no counts to send",
                    result.algorithm, result.operation
                )));
            };
            self.send(FromAgent::Result { run: self.run_id, seq, measurement }).await
        })
    }

    fn count_rejected<'a>(&'a self, why: &'a str) -> Recording<'a, ()> {
        Box::pin(self.send(FromAgent::Rejected { run: self.run_id, why: why.to_string() }))
    }

    fn note<'a>(&'a self, note: &'a str) -> Recording<'a, ()> {
        Box::pin(self.send(FromAgent::Noted { run: self.run_id, note: note.to_string() }))
    }

    /// Over the connection the central server vouches for the run as a
    /// store would, and the status returned is the one sent.
    fn finish<'a>(
        &'a self,
        status: RunStatus,
        error: Option<&'a str>,
        expected: Option<u32>,
    ) -> Recording<'a, RunStatus> {
        Box::pin(async move {
            self.finished(status, error.map(String::from), expected).await?;
            Ok(status)
        })
    }
}
