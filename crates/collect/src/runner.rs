//! A run on a board from start to end, the same whoever asked for it
//! (`POST /api/runs`, `pqbench run`, an agent for its central server).

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};

use pqbench_api::NewRun;
use pqbench_types::{RunStatus, Source};
use pqbench_wire::{Decoder, RunCommand};
use tokio_util::sync::CancellationToken;

use crate::boards::{
    BoardError, Boards, Emulator, EmulatorOptions, Framing, QemuMachine, Reservation, Target,
};
use crate::collector::{Collector, CpuClock, Outcome, Progress};
use crate::frames::{DefmtDecoder, FrameDecoder};
use crate::image::FirmwareImage;
use crate::record::{RecordError, SharedRecorder};
use crate::timing_model::{TimingModel, TimingModelPlugin};

pub const DEFAULT_MIN_ITERATIONS: u32 = 10;
pub const DEFAULT_MIN_TIME_MS: u32 = 1000;
/// The firmware keeps at most this many samples per operation.
pub const MAX_ITERATIONS: u32 = 1024;
pub const MAX_TIME_MS: u32 = 60_000;
/// An emulated board never goes quiet for long: while it measures it sends
/// a `measuring` record about every second of its time, however long the
/// operation, and the host waits as long as its slowest call needs. Longer
/// silence with QEMU idle means its core halted (a fault handler asleep in
/// `wfi`; a lockup ends QEMU itself), so the run fails sooner than a real
/// board's would; with QEMU computing (a call longer than this before any
/// pace is known), it is waited for (`Collector::emulator_cpu`).
pub const EMULATED_SILENCE: std::time::Duration = std::time::Duration::from_secs(30);
/// The error of a run stopped with [`PreparedRun::canceller`].
pub const CANCELLED: &str = "cancelled from the dashboard";
/// The start of the error of a run whose board's port went away.
pub const UNPLUGGED: &str = "unplugged";

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// The board command for a user's request; bounds keep one request from
/// holding a board for hours.
pub fn command(request: &NewRun) -> Result<RunCommand, RunError> {
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
        // Every name has a bit (decision 0035); this stays in case a
        // command ever refuses one.
        command = command
            .with_algorithm(algorithm)
            .map_err(|why| RunError::Invalid(format!("{algorithm}: {}", why.as_str())))?;
    }
    Ok(command)
}

/// A run with its board taken and its row written, ready to execute.
pub struct PreparedRun {
    pub id: i64,
    command: RunCommand,
    target: Target,
    recorder: SharedRecorder,
    cancel: CancellationToken,
    _reservation: Reservation,
}

/// What whoever keeps a run's records needs to open it: the board, the
/// run's settings, and its source by the kind of board.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDescription {
    pub board: String,
    pub source: Source,
    pub settings: serde_json::Value,
}

/// The description of `request`'s run (already checked by [`command`]).
pub fn describe(request: &NewRun, command: &RunCommand, on_probe: bool) -> RunDescription {
    let variant = request.variant.as_deref().unwrap_or(crate::boards::DEFAULT_VARIANT);
    RunDescription {
        board: request.board.clone(),
        source: if on_probe { Source::ProbeRs } else { Source::Serial },
        settings: serde_json::json!({
            "algorithms": request.algorithms,
            "min_iterations": command.min_iterations,
            "min_time_ms": command.min_time_ms,
            "variant": variant,
        }),
    }
}

/// The one way a run starts, whoever asked (`pqbench serve`'s API,
/// `pqbench run`, an agent for its central server): checks the request,
/// takes the board, then has `open` open the run's record (a row in a
/// store, or the run the central server already wrote) and returns the
/// run, ready to execute. A request that cannot run takes nothing.
pub async fn prepare<F, Opened>(boards: &Boards, request: &NewRun, open: F) -> Result<PreparedRun, RunError>
where
    F: FnOnce(RunDescription) -> Opened,
    Opened: Future<Output = Result<SharedRecorder, RecordError>>,
{
    let command = command(request)?;
    let variant = request.variant.as_deref().unwrap_or(crate::boards::DEFAULT_VARIANT);
    let (reservation, target) = boards.reserve(&request.board, variant)?;
    let description = describe(request, &command, matches!(target, Target::Probe { .. }));
    let recorder = open(description).await?;
    Ok(PreparedRun::new(recorder, command, reservation, target))
}

impl PreparedRun {
    fn new(recorder: SharedRecorder, command: RunCommand, reservation: Reservation, target: Target) -> Self {
        PreparedRun {
            id: recorder.run_id(),
            command,
            target,
            recorder,
            cancel: CancellationToken::new(),
            _reservation: reservation,
        }
    }

    /// Stops the run when cancelled: the board is torn down the way a
    /// finished run's is (QEMU killed and reaped, a probe session closed),
    /// and the run ends `interrupted`, keeping the results stored so far.
    pub fn canceller(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Starts the board, collects the run and records how it ended. A board
    /// that cannot be started fails the run with the reason.
    pub async fn execute(self, progress: impl FnMut(Progress)) -> Result<Outcome, RecordError> {
        let ended = self.run_on_target(progress).await;
        // Free the board before the run shows as ended: whoever sees it end
        // may start the next run on the same board straight away.
        let PreparedRun { recorder, _reservation, .. } = self;
        drop(_reservation);
        let outcome = ended?;
        // `complete` is written only with every counted result stored.
        recorder.finish(outcome.status, outcome.error.as_deref(), Some(outcome.results)).await?;
        Ok(outcome)
    }

    /// Runs the board to the end, leaving the outcome to `execute` to record.
    async fn run_on_target(&self, progress: impl FnMut(Progress)) -> Result<Outcome, RecordError> {
        if self.cancel.is_cancelled() {
            return Ok(cancelled(0, 0));
        }
        let image_path = match &self.target {
            Target::Emulated { image, .. } | Target::Probe { image, .. } => image.clone(),
            // Whatever the board has: the host has no image of it to read.
            Target::Serial { port, unplugged, .. } => return self.on_serial(port, unplugged, progress).await,
        };
        let image = match tokio::task::spawn_blocking(move || FirmwareImage::load(&image_path)).await {
            Ok(Ok(image)) => image,
            Ok(Err(e)) => return self.fail(e.to_string()),
            Err(e) => return self.fail(format!("reading the firmware image: {e}")),
        };
        match &self.target {
            Target::Emulated { machine, framing, options, .. } => {
                self.on_emulator(machine, *framing, options, image, progress).await
            }
            #[cfg(feature = "probe-rs")]
            Target::Probe { serial, chip, connection, .. } => {
                self.on_probe(serial, chip, *connection, image, progress).await
            }
            #[cfg(not(feature = "probe-rs"))]
            Target::Probe { serial, .. } => {
                self.fail(crate::boards::BoardError::NoProbeSupport(serial.clone()).to_string())
            }
            Target::Serial { .. } => unreachable!("a serial board has returned above"),
        }
    }

    /// A board on a serial port, with the firmware it has: its `hello`
    /// names the build the run records. A port that goes away mid-run (a
    /// board unplugged) ends it `failed`, keeping what it stored.
    async fn on_serial(
        &self,
        port: &std::path::Path,
        unplugged: &CancellationToken,
        progress: impl FnMut(Progress),
    ) -> Result<Outcome, RecordError> {
        let path = port.display().to_string();
        let mut stream = match crate::ports::open(&path) {
            Ok(stream) => stream,
            Err(e) => return self.fail(format!("opening {path}: {e}")),
        };
        let mut collector = Collector::to(self.recorder.clone());
        collector.leave_outcome_to_caller = true;
        let mut decoder = Decoder::new();
        let counted = Counted::default();
        let collecting = collector.collect(&mut stream, self.command, &mut decoder, counted.wrap(progress));
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Ok(counted.cancelled()),
            () = unplugged.cancelled() => Ok(counted.unplugged(&path)),
            outcome = collecting => outcome,
        }
    }

    async fn on_emulator(
        &self,
        machine: &'static QemuMachine,
        framing: Framing,
        options: &EmulatorOptions,
        image: FirmwareImage,
        progress: impl FnMut(Progress),
    ) -> Result<Outcome, RecordError> {
        let mut decoder: Box<dyn FrameDecoder> = match framing {
            Framing::Text => Box::new(Decoder::new()),
            Framing::Defmt => match DefmtDecoder::new(&image) {
                Ok(decoder) => Box::new(decoder),
                Err(e) => return self.fail(e.to_string()),
            },
        };
        // The model's counts and ranges are this run's alone: removed
        // however it ends, a failed start included.
        let _model_files = options.timing_model.as_ref().map(TimingModelPlugin::files);
        let emulator = match Emulator::start_with(machine, &image.path, options).await {
            Ok(emulator) => emulator,
            Err(e) => return self.fail(e.to_string()),
        };
        let mut port = match emulator.open_console() {
            Ok(port) => port,
            Err(e) => {
                emulator.stop().await;
                return self.fail(e.to_string());
            }
        };
        let mut collector = Collector::to(self.recorder.clone());
        collector.leave_outcome_to_caller = true;
        collector.silence = EMULATED_SILENCE;
        collector.emulated = true;
        collector.emulator_cpu = emulator.cpu_clock().map(|clock| Box::new(clock) as Box<dyn CpuClock>);
        collector.image = Some((&image).into());
        collector.timing_model = options
            .timing_model
            .as_ref()
            .map(|m| std::sync::Mutex::new(TimingModel::new(m.counts.clone(), m.parameters, &image.bytes)));
        let counted = Counted::default();
        // Cancelling drops the collection mid-way, and only it: the emulator
        // is still owned here and is stopped below either way, rather than
        // left to a drop that kills QEMU without reaping it.
        let collecting = collector.collect(&mut port, self.command, decoder.as_mut(), counted.wrap(progress));
        let outcome = tokio::select! {
            biased;
            () = self.cancel.cancelled() => Ok(counted.cancelled()),
            outcome = collecting => outcome,
        };
        drop(port);
        emulator.stop().await;
        outcome
    }

    #[cfg(feature = "probe-rs")]
    async fn on_probe(
        &self,
        serial: &str,
        chip: &'static str,
        connection: crate::boards::ProbeConnection,
        image: FirmwareImage,
        progress: impl FnMut(Progress),
    ) -> Result<Outcome, RecordError> {
        use crate::probe::{self, Flash, ProbePlan};
        let mut decoder = match DefmtDecoder::new(&image) {
            Ok(decoder) => decoder,
            Err(e) => return self.fail(e.to_string()),
        };
        let mut collector = Collector::to(self.recorder.clone());
        collector.leave_outcome_to_caller = true;
        collector.image = Some((&image).into());
        let plan = ProbePlan {
            probe: serial.to_string(),
            chip: chip.to_string(),
            image: std::sync::Arc::new(image),
            command: pqbench_wire::Command::Run(self.command).to_string().trim_end().to_string(),
            flash: Flash::Write,
            connection,
        };
        let opened = serial.to_string();
        let mut session = probe::spawn(move || probe::open(&opened), plan);
        let counted = Counted::default();
        let collecting = collector.collect_link(&mut session.link, &mut decoder, counted.wrap(progress));
        let outcome = tokio::select! {
            biased;
            () = self.cancel.cancelled() => Ok(counted.cancelled()),
            outcome = collecting => outcome,
        };
        session.stop.store(true, Ordering::Relaxed);
        drop(session.link);
        let _ = session.thread.await;
        probe_notes(&*self.recorder, &session.stats).await?;
        outcome
    }

    /// A run that ended before the board could report.
    fn fail(&self, error: String) -> Result<Outcome, RecordError> {
        Ok(Outcome { status: RunStatus::Failed, error: Some(error), results: 0, rejected: 0 })
    }
}

fn cancelled(results: u32, rejected: u32) -> Outcome {
    Outcome { status: RunStatus::Interrupted, error: Some(CANCELLED.into()), results, rejected }
}

/// What a probe session recovered from goes into the run's notes: a run
/// whose probe failed now and then is still whole, but a person comparing
/// it may want to know (a loose cable shows here first).
#[cfg(feature = "probe-rs")]
pub async fn probe_notes(
    recorder: &dyn crate::record::Recorder,
    stats: &crate::probe::SessionStats,
) -> Result<(), RecordError> {
    let recovered = stats.recovered_errors.load(Ordering::Relaxed);
    if recovered == 0 {
        return Ok(());
    }
    let requests = if recovered == 1 { "request" } else { "requests" };
    recorder
        .note(&format!(
            "the probe failed {recovered} {requests} on the way and each succeeded when tried again \
             (at most {} in a row are tried)",
            crate::probe::MAX_ERRORS_IN_A_ROW
        ))
        .await
}

/// What a collection stored and refused so far: a cancelled collection
/// cannot say it, as it is dropped.
#[derive(Default)]
struct Counted {
    results: AtomicU32,
    rejected: AtomicU32,
}

impl Counted {
    fn wrap<'a>(&'a self, mut progress: impl FnMut(Progress) + 'a) -> impl FnMut(Progress) + 'a {
        move |event| {
            match &event {
                // Atomics, not cells: the run's future must stay Send.
                Progress::Result(_) => {
                    self.results.fetch_add(1, Ordering::Relaxed);
                }
                Progress::Rejected(_) => {
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                }
                Progress::Operation { .. } | Progress::Text(_) => {}
            }
            progress(event)
        }
    }

    fn cancelled(&self) -> Outcome {
        cancelled(self.results.load(Ordering::Relaxed), self.rejected.load(Ordering::Relaxed))
    }

    /// The run of a board whose port went away.
    fn unplugged(&self, port: &str) -> Outcome {
        let results = self.results.load(Ordering::Relaxed);
        let kept = if results == 1 { "1 result kept".to_string() } else { format!("{results} results kept") };
        Outcome {
            status: RunStatus::Failed,
            error: Some(format!("{UNPLUGGED}: {port} went away mid-run; {kept}")),
            results,
            rejected: self.rejected.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use pqbench_api::uploads::MAX_MEASUREMENTS;
    use pqbench_types::Algorithm;

    use super::*;

    fn request(algorithms: Vec<Algorithm>) -> NewRun {
        NewRun {
            board: "qemu-mps2-an386".into(),
            algorithms: Some(algorithms),
            min_iterations: None,
            min_time_ms: None,
            variant: None,
        }
    }

    #[test]
    fn every_suite_algorithm_has_a_run_command_bit_and_its_run_fits_an_upload() {
        // Every suite algorithm can be named in a run command, and an
        // upload (one run of the suite in a browser or on a host) is
        // bounded by the suite's pairs, not by every name × every
        // operation: both hold here, where the suite and the bounds meet.
        let suite: Vec<Algorithm> = pqbench_suite::CATALOGUE.iter().map(|&(a, _)| a).collect();
        let Ok(command) = command(&request(suite.clone())) else { panic!("the suite's algorithms run") };
        assert!(suite.iter().all(|&a| command.includes(a)));
        assert!(pqbench_suite::CATALOGUE.len() * 10 <= MAX_MEASUREMENTS, "room for the suite to grow");
    }

    #[test]
    fn a_name_the_suite_does_not_run_is_refused_with_why() {
        let Err(RunError::Invalid(why)) = command(&request(vec![Algorithm::Kyber768])) else { panic!() };
        assert_eq!(why, "the suite does not measure Kyber-768 yet");
    }
}
