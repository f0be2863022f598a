//! Boards on other hosts: `pqbench agent` runs on a host with boards
//! attached and serves them to a central server over a WebSocket that the
//! agent opens (so it works from behind NAT, as CI runners do).
//!
//! - [`protocol`]: the messages, both directions.
//! - [`hub`]: the central server's side: which hosts are connected, their
//!   boards, starting and cancelling runs on them, and storing what they
//!   send. A host that drops ends its runs `interrupted`, with the reason.
//! - [`client`]: the agent's side: registers its boards, runs what it is
//!   asked with the same runner as the server's own boards, and streams
//!   each record back the moment its board sends it ([`Uplink`]).

pub mod client;
pub mod hub;
pub mod protocol;

use pqbench_types::{Build, Measurement, RunStatus};
use tokio::sync::mpsc;

use crate::store::StoreError;
use protocol::FromAgent;

/// One run's way to the central server, on an agent host: what the
/// collector would write into a store, sent instead as messages, in order.
#[derive(Clone)]
pub struct Uplink {
    pub run_id: i64,
    outbox: mpsc::Sender<FromAgent>,
}

impl Uplink {
    pub fn new(run_id: i64, outbox: mpsc::Sender<FromAgent>) -> Self {
        Uplink { run_id, outbox }
    }

    async fn send(&self, message: FromAgent) -> Result<(), StoreError> {
        self.outbox.send(message).await.map_err(|_| {
            StoreError::Unreachable("the connection to the central server closed during the run".into())
        })
    }

    pub(crate) async fn described(
        &self,
        build: Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: String,
    ) -> Result<(), StoreError> {
        self.send(FromAgent::Described {
            run: self.run_id,
            build: Box::new(build),
            clock_hz,
            ticks_per_second,
            tick_unit,
        })
        .await
    }

    pub(crate) async fn result(&self, seq: u32, measurement: Measurement) -> Result<(), StoreError> {
        self.send(FromAgent::Result { run: self.run_id, seq, measurement }).await
    }

    pub(crate) async fn rejected(&self, why: String) -> Result<(), StoreError> {
        self.send(FromAgent::Rejected { run: self.run_id, why }).await
    }

    pub(crate) async fn finished(
        &self,
        status: RunStatus,
        error: Option<String>,
        results: Option<u32>,
    ) -> Result<(), StoreError> {
        self.send(FromAgent::Finished { run: self.run_id, status, error, results }).await
    }

    /// Progress is for people watching: dropped rather than waited for
    /// when the connection is backed up.
    pub(crate) fn progress(&self, message: FromAgent) {
        let _ = self.outbox.try_send(message);
    }
}
