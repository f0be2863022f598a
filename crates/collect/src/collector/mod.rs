//! From a board's serial byte stream to stored results.
//!
//! The collector sends the run command, then reads records until the board
//! ends the run, reports an error, restarts, closes the port or falls
//! silent. Every intact result is stored the moment it arrives, so a run cut
//! short keeps what it measured (and its error says how many); every
//! refused record is counted on the run.

mod computing;
mod handshake;
mod link;
mod outcome;
mod pace;
mod restart;

pub use computing::{COMPUTING_SHARE, CpuClock, LONGEST_COMPUTING_SILENCE, ProcessCpu};
pub use link::{Link, PortError, SerialLink};
pub use outcome::{Outcome, RESTARTED};
pub use pace::{MAX_WAIT, SLOWEST_CALLS};
pub use restart::BOOT_BANNER;

use std::time::Duration;

use pqbench_types::{Algorithm, BenchResult, Clock, Operation, TickUnit};
use pqbench_wire::{Command, Event, Hello, Record, RunCommand};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::frames::FrameDecoder;
use crate::image::FirmwareImage;
use crate::record::{RecordError, SharedRecorder};
use crate::timing_model::TimingModel;
use computing::Stretch;
use handshake::{handshake, send};
use outcome::Ending;
use pace::Watch;
use restart::BannerScan;

/// What a run is doing, for progress bars and live views.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    Operation { algorithm: Algorithm, operation: Operation, index: u32, total: u32 },
    Result(Box<BenchResult>),
    Rejected(String),
    Text(String),
}

pub struct Collector {
    recorder: SharedRecorder,
    run_id: i64,
    /// Longest wait for the next readable record before the board counts
    /// as silent. Bytes that make no record (noise, a babbling line) do not
    /// count: a board lost in noise would otherwise hold the run forever.
    ///
    /// Every record resets it, and a board measuring a long operation sends
    /// a `measuring` record about every second of its time between calls,
    /// so the limit holds however long an operation is measured. Only a
    /// single call (or batch) is never interrupted: after a `measuring`
    /// record the wait is longer where the board's slowest call so far
    /// needs it, see [`Collector::wait_after`].
    pub silence: Duration,
    /// The image the board runs, when the host knows it: its build id must
    /// be the one the board says, and its hash is recorded on the run.
    pub image: Option<ImageIdentity>,
    /// The board is an emulator: it has no cycle counter, so a `hello`
    /// that says cycles is refused rather than shown as cycles.
    pub emulated: bool,
    /// Leave recording the outcome to the caller, which ends the run only
    /// once the board is torn down and free again: a client that sees the
    /// run ended may start the next at once.
    pub leave_outcome_to_caller: bool,
    /// An emulated board's timing model: each result gets its estimate.
    pub timing_model: Option<std::sync::Mutex<TimingModel>>,
    /// An emulated board's QEMU, whose CPU time tells a silent board that
    /// computes (one long call) from one whose core halted: past the
    /// silence limit it is waited for while it computes (see
    /// [`computing`](self::computing)'s [`LONGEST_COMPUTING_SILENCE`]).
    pub emulator_cpu: Option<Box<dyn CpuClock>>,
}

/// What ties a run to one firmware file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageIdentity {
    pub build_id: Option<String>,
    pub sha256: String,
}

impl From<&FirmwareImage> for ImageIdentity {
    fn from(image: &FirmwareImage) -> Self {
        ImageIdentity { build_id: image.build_id.clone(), sha256: image.sha256.clone() }
    }
}

impl Collector {
    /// Collects a run wherever `recorder` keeps it.
    pub fn to(recorder: SharedRecorder) -> Self {
        Collector {
            run_id: recorder.run_id(),
            recorder,
            silence: Duration::from_secs(120),
            image: None,
            emulated: false,
            leave_outcome_to_caller: false,
            timing_model: None,
            emulator_cpu: None,
        }
    }

    /// Over a serial port: says `hello` until the board answers, sends
    /// `command`, collects the run, then records its outcome on the run.
    pub async fn collect<P: AsyncRead + AsyncWrite + Unpin>(
        &self,
        port: &mut P,
        command: RunCommand,
        decoder: &mut dyn FrameDecoder,
        mut progress: impl FnMut(Progress),
    ) -> Result<Outcome, RecordError> {
        let mut state = State::default();
        let ending = match handshake(port, decoder).await {
            Err(why) => Ending::Lost(why.to_string()),
            Ok(()) => match send(port, &Command::Run(command).to_string()).await {
                Err(e) => Ending::Lost(format!("could not send the run command: {e}")),
                Ok(()) => {
                    // It answered `hello`, so it has booted: its banner from
                    // now on is a restart's.
                    state.answered = true;
                    self.receive(&mut SerialLink(port), decoder, &mut state, &mut progress).await?
                }
            },
        };
        self.finish(&state, ending).await
    }

    /// Over a link whose run was started another way (a probe writes the
    /// command into the board's memory): collects the run and records its
    /// outcome.
    pub async fn collect_link(
        &self,
        link: &mut impl Link,
        decoder: &mut dyn FrameDecoder,
        mut progress: impl FnMut(Progress),
    ) -> Result<Outcome, RecordError> {
        let mut state = State::default();
        let ending = self.receive(link, decoder, &mut state, &mut progress).await?;
        self.finish(&state, ending).await
    }

    async fn finish(&self, state: &State, ending: Ending) -> Result<Outcome, RecordError> {
        let outcome = state.outcome(ending);
        if !self.leave_outcome_to_caller {
            // The store writes `complete` only if every result the
            // collector counted is there, in the same transaction.
            let expected = Some(outcome.results);
            self.recorder.finish(outcome.status, outcome.error.as_deref(), expected).await?;
        }
        Ok(outcome)
    }

    async fn receive(
        &self,
        link: &mut impl Link,
        decoder: &mut dyn FrameDecoder,
        state: &mut State,
        progress: &mut impl FnMut(Progress),
    ) -> Result<Ending, RecordError> {
        let mut banner = BannerScan::default();
        // Reset by each record read, not by each byte: see `silence`.
        let mut deadline = tokio::time::Instant::now() + self.silence;
        let mut last_record = tokio::time::Instant::now();
        let cpu = self.emulator_cpu.as_deref();
        let mut stretch = Stretch::begin(cpu);
        let mut noise = false;
        loop {
            let bytes = match tokio::time::timeout_at(deadline, link.receive()).await {
                Err(_) => {
                    let now = tokio::time::Instant::now();
                    let silent_for = now.duration_since(last_record);
                    if stretch.computed(cpu, now) && silent_for + self.silence <= LONGEST_COMPUTING_SILENCE {
                        deadline = now + self.silence;
                        stretch = Stretch::begin(cpu);
                        continue;
                    }
                    // The wait allowed, or all of it where a computing
                    // emulator was waited for longer.
                    let silent = state.wait.unwrap_or(self.silence).max(silent_for).as_secs();
                    return Ok(Ending::Lost(if noise {
                        format!("the board sent nothing readable for {silent} s, only noise")
                    } else {
                        format!("the board sent nothing for {silent} s")
                    }));
                }
                Ok(Err(why)) => return Ok(Ending::Lost(why.to_string())),
                Ok(Ok(bytes)) => bytes,
            };
            // Only a banner after the board answered: one before is its boot.
            let restarted = banner.scan(&bytes) && state.answered;
            noise = true;
            for event in decoder.push(&bytes) {
                let record = matches!(event, Event::Record(_));
                if let Some(ending) = self.handle(event, state, progress).await? {
                    return Ok(ending);
                }
                if record {
                    // After the record is handled: a `measuring` one may
                    // have set a longer wait for the next.
                    last_record = tokio::time::Instant::now();
                    deadline = last_record + state.wait.unwrap_or(self.silence);
                    stretch = Stretch::begin(cpu);
                    noise = false;
                }
            }
            // The banner in the raw bytes, even where the decoder could not
            // show it as text: a reset in the middle of a record glues the
            // banner to the cut record, and both are refused as one line.
            // What arrived before it is handled above and kept.
            if restarted {
                return Ok(Ending::Restarted);
            }
        }
    }

    async fn handle(
        &self,
        event: Event,
        state: &mut State,
        progress: &mut impl FnMut(Progress),
    ) -> Result<Option<Ending>, RecordError> {
        let record = match event {
            // The banner as defmt sends it: a frame, rendered as text.
            Event::Text(text) if state.answered && text.starts_with(BOOT_BANNER) => {
                return Ok(Some(Ending::Restarted));
            }
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
        if matches!(
            record,
            Record::Begin { .. } | Record::Progress { .. } | Record::Measuring(_) | Record::Result(_)
        ) {
            state.begun = true;
        }
        // Only a `measuring` record sets a wait longer than `silence`, and
        // only until the next record.
        state.wait = None;
        match record {
            // A board answers `hello` once per `hello` the host said, and
            // again as a run's first record; after the run's own records
            // began, another is a board that restarted and was asked again.
            Record::Hello(_) if state.begun => return Ok(Some(Ending::Restarted)),
            Record::Hello(hello) => match hello.clock() {
                Ok(clock) => {
                    if let Some(refusal) = self.check_image(&hello) {
                        return Ok(Some(Ending::Refused(refusal)));
                    }
                    if self.emulated && clock.unit == TickUnit::Cycles {
                        return Ok(Some(Ending::Refused(
                            "the emulated board's hello claims a cycle counter, which an emulator has not: \
                             its counts are instructions or ticks, never cycles"
                                .into(),
                        )));
                    }
                    let mut build = hello.build();
                    build.elf_sha256 = self.image.as_ref().map(|image| image.sha256.clone());
                    let unit = clock.unit.to_string();
                    self.recorder.describe(&build, hello.clock_hz(), clock.ticks_per_second, &unit).await?;
                    state.clock = Some(clock);
                    state.answered = true;
                }
                Err(e) => {
                    return Ok(Some(Ending::Refused(format!("the board's hello is unusable: {e}"))));
                }
            },
            Record::Begin { operations } => state.expected = Some(operations),
            Record::Progress { algorithm, operation, index, total } => {
                state.measuring = Some(Watch { algorithm, operation, last: None });
                progress(Progress::Operation { algorithm, operation, index, total });
            }
            Record::Measuring(status) => {
                let Some(clock) = state.clock else {
                    self.reject(state, "a measuring record before the board's hello".into(), progress)
                        .await?;
                    return Ok(None);
                };
                let Some(watch) = state.measuring.as_mut().filter(|w| w.is(&status)) else {
                    let why = format!(
                        "a measuring record for {} {}, which the board did not announce",
                        status.algorithm, status.operation
                    );
                    self.reject(state, why, progress).await?;
                    return Ok(None);
                };
                let now = tokio::time::Instant::now();
                if let Some(pace) = watch.pace(&status, now) {
                    state.pace = Some(pace);
                }
                watch.last = Some((now, status.elapsed_ticks));
                state.wait = state.pace.map(|pace| self.wait_after(&status, &clock, pace));
            }
            Record::Result(measurement) => {
                state.measuring = None;
                let Some(clock) = state.clock else {
                    self.reject(state, "a result before the board's hello".into(), progress).await?;
                    return Ok(None);
                };
                let mut result = BenchResult::from_measurement(&measurement, &clock);
                if let Some(model) = &self.timing_model {
                    crate::timing_model::add_estimate(model, &mut result, &measurement);
                }
                state.stored += 1;
                self.recorder.add_result(state.stored, &result, Some(&measurement)).await?;
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

    /// Why the board's records must be refused, if the board runs another
    /// build than the image the host holds: figures would be stored against
    /// the wrong build, and a defmt stream decoded with the wrong table.
    fn check_image(&self, hello: &Hello) -> Option<String> {
        let expected = self.image.as_ref()?.build_id.as_deref()?;
        match hello.get("build_id") {
            Some(said) if said == expected => None,
            Some(said) => Some(format!(
                "the board runs build {said}, but the host holds the ELF of build {expected}: \
                 its records are refused (flash the image again, or decode with the image it runs)"
            )),
            None => Some(format!(
                "the board does not say its build id, so it cannot be shown to run the ELF of build \
                 {expected}: its records are refused"
            )),
        }
    }

    async fn reject(
        &self,
        state: &mut State,
        why: String,
        progress: &mut impl FnMut(Progress),
    ) -> Result<(), RecordError> {
        state.rejected += 1;
        self.recorder.count_rejected(&why).await?;
        tracing::warn!(run = self.run_id, "refused a record: {why}");
        progress(Progress::Rejected(why));
        Ok(())
    }
}

#[derive(Default)]
struct State {
    clock: Option<Clock>,
    expected: Option<u32>,
    stored: u32,
    rejected: u32,
    /// The board has answered since it booted: its boot banner now means
    /// it restarted.
    answered: bool,
    /// The run's own records (`begin`, `op`, `measuring`, `result`) have
    /// started: a `hello` now means the board restarted.
    begun: bool,
    /// The operation the board announced and has not yet reported.
    measuring: Option<Watch>,
    /// The board's ticks per second of this host's time, as last seen
    /// between two `measuring` records; kept across operations.
    pace: Option<f64>,
    /// The wait for the next record, where a `measuring` record set one
    /// longer than the collector's `silence`.
    wait: Option<Duration>,
}

#[cfg(test)]
mod tests;
