//! From a board's serial byte stream to stored results.
//!
//! The collector sends the run command, then reads records until the board
//! ends the run, reports an error, restarts, closes the port or falls
//! silent. Every intact result is stored the moment it arrives, so a run cut
//! short keeps what it measured (and its error says how many); every
//! refused record is counted on the run.

use std::time::Duration;

use pqbench_types::{Algorithm, BenchResult, Clock, Measuring, Operation, RunStatus, TickUnit};
use pqbench_wire::{Command, Event, Hello, Record, RunCommand};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::frames::FrameDecoder;
use crate::image::FirmwareImage;
use crate::record::{RecordError, SharedRecorder};
use crate::timing_model::TimingModel;

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

/// Where a board's bytes come from once its run has started.
#[allow(async_fn_in_trait)]
pub trait Link {
    /// The next bytes, or why no more will come.
    async fn receive(&mut self) -> Result<Vec<u8>, String>;
}

/// A serial port (or a pseudo-terminal) as a link.
pub struct SerialLink<'p, P>(pub &'p mut P);

impl<P: AsyncRead + Unpin> Link for SerialLink<'_, P> {
    async fn receive(&mut self) -> Result<Vec<u8>, String> {
        let mut buf = [0u8; 1024];
        match self.0.read(&mut buf).await {
            Ok(0) => Err(PORT_CLOSED.into()),
            Ok(n) => Ok(buf[..n].to_vec()),
            Err(e) => Err(read_error(&e)),
        }
    }
}

/// A port whose far end went away: a USB board unplugged, or the emulator
/// behind a pseudo-terminal stopped.
const PORT_CLOSED: &str = "the serial port closed: the board is gone (unplugged, or its emulator stopped)";

/// Why a read failed, for a person. A pseudo-terminal whose emulator died,
/// or a USB port whose board was unplugged, fails reads with EIO, whose
/// own text ("Input/output error") says nothing of what happened.
fn read_error(e: &std::io::Error) -> String {
    if e.raw_os_error() == Some(libc::EIO) {
        format!("{PORT_CLOSED} ({e})")
    } else {
        format!("reading the serial port: {e}")
    }
}

/// The start of the line the bundled firmware writes when it boots
/// (`firmware/src/report/text.rs`, and `frames.rs` for defmt). Once the
/// board has answered `hello`, seeing it again means the board restarted.
pub const BOOT_BANNER: &str = "pqbench firmware on ";

/// The error of a run whose board restarted before it ended.
pub const RESTARTED: &str = "the board restarted mid-run";

/// How many times the time of a beat and the slowest call so far the host
/// waits after a `measuring` record: a call may take longer than the
/// slowest before it (a key generation's search, an interrupt), and the
/// board's pace may drop (an emulator on a busy host).
pub const SLOWEST_CALLS: f64 = 3.0;

/// The longest wait a `measuring` record can set: a board whose call is
/// said to take longer is taken for dead anyway, so a wrong figure in a
/// record cannot hold a board for ever.
pub const MAX_WAIT: Duration = Duration::from_secs(3600);

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
            Err(why) => Ending::Lost(why),
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
        let mut noise = false;
        loop {
            let bytes = match tokio::time::timeout_at(deadline, link.receive()).await {
                Err(_) => {
                    let silent = state.wait.unwrap_or(self.silence).as_secs();
                    return Ok(Ending::Lost(if noise {
                        format!("the board sent nothing readable for {silent} s, only noise")
                    } else {
                        format!("the board sent nothing for {silent} s")
                    }));
                }
                Ok(Err(why)) => return Ok(Ending::Lost(why)),
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
                    deadline = tokio::time::Instant::now() + state.wait.unwrap_or(self.silence);
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

    /// How long to wait for the next record after `status`, the board
    /// keeping `pace` ticks per second of this host's time.
    ///
    /// The board speaks again between calls once another `beat_ms` of its
    /// time has been timed, so at most a beat and one call (or batch) from
    /// now. A call's length is known only by the slowest so far, and board
    /// time is not this host's (an emulated board runs at its host's pace,
    /// a real one at its clock's), so the wait is [`SLOWEST_CALLS`] times
    /// a beat and the slowest call at the pace the board is seen to keep,
    /// and never less than [`silence`](Self::silence) nor more than
    /// [`MAX_WAIT`]. Once the record after it has come, the wait is
    /// `silence` again.
    ///
    /// This rather than raising the limit by what the board says it will
    /// measure: an operation runs for at least `min_time_ms` and at least
    /// `min_iterations` calls, whichever is longer, so the board cannot say
    /// in advance how long it will be silent, and one slow call can outlast
    /// any fixed limit. Beats keep the limit about silence, however long
    /// the operation.
    pub fn wait_after(&self, status: &Measuring, clock: &Clock, pace: f64) -> Duration {
        let beat = f64::from(status.beat_ms) / 1000.0 * clock.ticks_per_second as f64;
        let board_seconds = (beat + status.slowest_ticks as f64) / pace;
        let wait = Duration::try_from_secs_f64(SLOWEST_CALLS * board_seconds).unwrap_or(MAX_WAIT);
        wait.clamp(self.silence, MAX_WAIT.max(self.silence))
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
async fn handshake<P: AsyncRead + AsyncWrite + Unpin>(
    port: &mut P,
    decoder: &mut dyn FrameDecoder,
) -> Result<(), String> {
    let mut buf = [0u8; 1024];
    let mut refused = 0;
    for _ in 0..HANDSHAKE_ATTEMPTS {
        send(port, &Command::Hello.to_string()).await.map_err(|e| format!("writing to the board: {e}"))?;
        let deadline = tokio::time::Instant::now() + HANDSHAKE_WAIT;
        while let Ok(read) = tokio::time::timeout_at(deadline, port.read(&mut buf)).await {
            match read {
                Ok(0) => return Err(PORT_CLOSED.into()),
                Ok(n) => {
                    for event in decoder.push(&buf[..n]) {
                        match event {
                            Event::Record(Record::Hello(_)) => return Ok(()),
                            Event::Rejected(_) => refused += 1,
                            _ => {}
                        }
                    }
                }
                Err(e) => return Err(read_error(&e)),
            }
        }
    }
    let waited = (HANDSHAKE_WAIT * HANDSHAKE_ATTEMPTS).as_secs();
    if refused > 0 {
        return Err(format!(
            "the board answers, but none of its records could be read in {waited} s ({refused} refused): \
             is the image the host decodes with the one the board runs?"
        ));
    }
    Err(format!("the board did not answer hello within {waited} s"))
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

/// The operation being measured, and when its last `measuring` record came.
struct Watch {
    algorithm: Algorithm,
    operation: Operation,
    /// When the last `measuring` record arrived, and its `elapsed`.
    last: Option<(tokio::time::Instant, u64)>,
}

impl Watch {
    fn is(&self, status: &Measuring) -> bool {
        (self.algorithm, self.operation) == (status.algorithm, status.operation)
    }

    /// Board ticks per second of this host's time since the last record of
    /// this operation. It counts the timed ticks only, over a host time
    /// that also holds the board's untimed work and the records' transfer:
    /// a pace a little slow, so a wait a little long, never short.
    fn pace(&self, status: &Measuring, now: tokio::time::Instant) -> Option<f64> {
        let (then, elapsed) = self.last?;
        let ticks = status.elapsed_ticks.checked_sub(elapsed).filter(|&t| t > 0)?;
        let seconds = now.duration_since(then).as_secs_f64();
        (seconds > 0.0).then(|| ticks as f64 / seconds)
    }
}

/// Finds [`BOOT_BANNER`] in a byte stream, across the chunks it comes in.
#[derive(Default)]
struct BannerScan {
    /// The end of the previous chunk, which may hold the banner's start.
    tail: Vec<u8>,
}

impl BannerScan {
    /// Whether the banner ends in these bytes.
    fn scan(&mut self, bytes: &[u8]) -> bool {
        let banner = BOOT_BANNER.as_bytes();
        self.tail.extend_from_slice(bytes);
        let found = self.tail.windows(banner.len()).any(|w| w == banner);
        let keep = self.tail.len().min(banner.len() - 1);
        self.tail.drain(..self.tail.len() - keep);
        found
    }
}

enum Ending {
    Ended {
        reported: u32,
    },
    BoardError(String),
    /// The host will not take the board's records: the reason.
    Refused(String),
    Lost(String),
    /// The board booted again (a reset, a watchdog, a brown-out): the run
    /// it was making is gone, and nothing more of it will come.
    Restarted,
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
            Ending::BoardError(message) => {
                (RunStatus::Failed, Some(format!("the board said: {message}{}", self.kept())))
            }
            // Failed, not incomplete: `incomplete` is a run the board
            // finished whose records were damaged on the way; here the board
            // never finished, as when it fails or goes away. What it stored
            // before is kept, and the error says how much.
            Ending::Restarted => (RunStatus::Failed, Some(format!("{RESTARTED}{}", self.kept()))),
            Ending::Lost(why) => (RunStatus::Failed, Some(format!("{why}{}", self.kept()))),
            Ending::Refused(why) => (RunStatus::Failed, Some(why)),
        };
        Outcome { status, error, results: self.stored, rejected: self.rejected }
    }

    /// What a run cut short keeps, to follow its reason: nothing when it
    /// stored and refused nothing.
    fn kept(&self) -> String {
        let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match (self.stored, self.rejected) {
            (0, 0) => String::new(),
            (stored, 0) => format!("; {} kept", plural(stored, "result", "results")),
            (stored, rejected) => format!(
                "; {} kept, {} refused",
                plural(stored, "result", "results"),
                plural(rejected, "record", "records")
            ),
        }
    }
}

#[cfg(test)]
#[path = "collector_tests.rs"]
mod tests;
