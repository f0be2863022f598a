//! From a board's serial byte stream to stored results.
//!
//! The collector sends the run command, then reads records until the board
//! ends the run, reports an error, closes the port or falls silent. Every
//! intact result is stored the moment it arrives, so a run cut short keeps
//! what it measured; every refused record is counted on the run.

use std::time::Duration;

use pqbench_types::{Algorithm, BenchResult, Clock, Operation, RunStatus};
use pqbench_wire::{Command, Decoder, Event, Record, RunCommand};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::store::{Store, StoreError};

/// What a run is doing, for progress bars and live views.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    Operation { algorithm: Algorithm, operation: Operation, index: u32, total: u32 },
    Result(Box<BenchResult>),
    Rejected(String),
    Text(String),
}

/// How a collection ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: RunStatus,
    pub error: Option<String>,
    pub results: u32,
    pub rejected: u32,
}

pub struct Collector<'a> {
    store: &'a Store,
    run_id: i64,
    /// Longest wait for the next byte before the board counts as silent.
    pub silence: Duration,
}

impl<'a> Collector<'a> {
    pub fn new(store: &'a Store, run_id: i64) -> Self {
        Collector { store, run_id, silence: Duration::from_secs(120) }
    }

    /// Sends `command` and collects the run, then records its outcome on the run.
    pub async fn collect<P: AsyncRead + AsyncWrite + Unpin>(
        &self,
        port: &mut P,
        command: RunCommand,
        mut progress: impl FnMut(Progress),
    ) -> Result<Outcome, StoreError> {
        let mut state = State::default();
        let ended = self.exchange(port, command, &mut state, &mut progress).await?;
        let outcome = state.outcome(ended);
        self.store.finish_run(self.run_id, outcome.status, outcome.error.as_deref()).await?;
        Ok(outcome)
    }

    async fn exchange<P: AsyncRead + AsyncWrite + Unpin>(
        &self,
        port: &mut P,
        command: RunCommand,
        state: &mut State,
        progress: &mut impl FnMut(Progress),
    ) -> Result<Ending, StoreError> {
        if let Err(why) = handshake(port).await {
            return Ok(Ending::Lost(why));
        }
        let line = Command::Run(command).to_string();
        if let Err(e) = send(port, &line).await {
            return Ok(Ending::Lost(format!("could not send the run command: {e}")));
        }

        let mut decoder = Decoder::new();
        let mut buf = [0u8; 1024];
        loop {
            let read = match tokio::time::timeout(self.silence, port.read(&mut buf)).await {
                Err(_) => {
                    return Ok(Ending::Lost(format!(
                        "the board sent nothing for {} s",
                        self.silence.as_secs()
                    )));
                }
                Ok(Ok(0)) => return Ok(Ending::Lost("the serial port closed".into())),
                Ok(Ok(n)) => n,
                Ok(Err(e)) => return Ok(Ending::Lost(format!("reading the serial port: {e}"))),
            };
            for event in decoder.push(&buf[..read]) {
                if let Some(ending) = self.handle(event, state, progress).await? {
                    return Ok(ending);
                }
            }
        }
    }

    async fn handle(
        &self,
        event: Event,
        state: &mut State,
        progress: &mut impl FnMut(Progress),
    ) -> Result<Option<Ending>, StoreError> {
        let record = match event {
            Event::Text(text) => {
                progress(Progress::Text(text));
                return Ok(None);
            }
            Event::Rejected(error) => {
                self.reject(state, error.to_string(), progress).await?;
                return Ok(None);
            }
            Event::Record(record) => record,
        };
        match record {
            Record::Hello(hello) => match hello.clock() {
                Ok(clock) => {
                    let unit = clock.unit.to_string();
                    self.store
                        .describe_run(
                            self.run_id,
                            &hello.build(),
                            hello.clock_hz(),
                            clock.ticks_per_second,
                            &unit,
                        )
                        .await?;
                    state.clock = Some(clock);
                }
                Err(e) => {
                    return Ok(Some(Ending::BoardError(format!("the board's hello is unusable: {e}"))));
                }
            },
            Record::Begin { operations } => state.expected = Some(operations),
            Record::Progress { algorithm, operation, index, total } => {
                progress(Progress::Operation { algorithm, operation, index, total });
            }
            Record::Result(measurement) => {
                let Some(clock) = state.clock else {
                    self.reject(state, "a result before the board's hello".into(), progress).await?;
                    return Ok(None);
                };
                let result = BenchResult::from_measurement(&measurement, &clock);
                state.stored += 1;
                self.store.add_result(self.run_id, state.stored, &result, Some(&measurement)).await?;
                progress(Progress::Result(Box::new(result)));
            }
            Record::End { results } => return Ok(Some(Ending::Ended { reported: results })),
            Record::Error { message } => return Ok(Some(Ending::BoardError(message))),
            Record::Calibration { .. } => {
                self.reject(state, "a calibration record in the middle of a run".into(), progress).await?;
            }
        }
        Ok(None)
    }

    async fn reject(
        &self,
        state: &mut State,
        why: String,
        progress: &mut impl FnMut(Progress),
    ) -> Result<(), StoreError> {
        state.rejected += 1;
        self.store.count_rejected(self.run_id).await?;
        tracing::warn!(run = self.run_id, "refused a record: {why}");
        progress(Progress::Rejected(why));
        Ok(())
    }
}

async fn send<P: AsyncWrite + Unpin>(port: &mut P, line: &str) -> std::io::Result<()> {
    port.write_all(line.as_bytes()).await?;
    port.flush().await
}

/// How often, and for how long, the host says `hello` before giving up.
const HANDSHAKE_ATTEMPTS: u32 = 20;
const HANDSHAKE_WAIT: Duration = Duration::from_millis(500);

/// Says `hello` until the board answers with its `hello` record. A board
/// may still be booting when the port opens (a chip's UART drops what
/// arrives before it is enabled), so a run command sent at once can be
/// lost without a trace; an answered `hello` shows the board is listening.
async fn handshake<P: AsyncRead + AsyncWrite + Unpin>(port: &mut P) -> Result<(), String> {
    let mut decoder = Decoder::new();
    let mut buf = [0u8; 1024];
    for _ in 0..HANDSHAKE_ATTEMPTS {
        send(port, &Command::Hello.to_string()).await.map_err(|e| format!("writing to the board: {e}"))?;
        let deadline = tokio::time::Instant::now() + HANDSHAKE_WAIT;
        while let Ok(read) = tokio::time::timeout_at(deadline, port.read(&mut buf)).await {
            match read {
                Ok(0) => return Err("the serial port closed".into()),
                Ok(n) => {
                    let answered = decoder
                        .push(&buf[..n])
                        .into_iter()
                        .any(|event| matches!(event, Event::Record(Record::Hello(_))));
                    if answered {
                        return Ok(());
                    }
                }
                Err(e) => return Err(format!("reading the serial port: {e}")),
            }
        }
    }
    let waited = HANDSHAKE_WAIT * HANDSHAKE_ATTEMPTS;
    Err(format!("the board did not answer hello within {} s", waited.as_secs()))
}

#[derive(Default)]
struct State {
    clock: Option<Clock>,
    expected: Option<u32>,
    stored: u32,
    rejected: u32,
}

enum Ending {
    Ended { reported: u32 },
    BoardError(String),
    Lost(String),
}

impl State {
    fn outcome(&self, ending: Ending) -> Outcome {
        let (status, error) = match ending {
            Ending::Ended { reported }
                if reported == self.stored
                    && self.rejected == 0
                    && self.expected.is_none_or(|planned| planned == reported) =>
            {
                (RunStatus::Complete, None)
            }
            Ending::Ended { reported } => (
                RunStatus::Incomplete,
                Some(format!(
                    "the board reported {reported} results, {} arrived intact ({} records refused)",
                    self.stored, self.rejected
                )),
            ),
            Ending::BoardError(message) => (RunStatus::Failed, Some(format!("the board said: {message}"))),
            Ending::Lost(why) => (RunStatus::Failed, Some(why)),
        };
        Outcome { status, error, results: self.stored, rejected: self.rejected }
    }
}
