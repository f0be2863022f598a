//! Boards on a debug probe, through the probe-rs library (feature `probe-rs`).
//!
//! A run flashes the board's defmt-rtt image and holds the chip at reset
//! (here, with probe-rs); the rest is [`execute`], generic over the few
//! requests it makes of the core ([`DebugTarget`]): clear the RTT block and
//! the mailbox, run, find RTT at the image's `_SEGGER_RTT`, set the up
//! channel to block when full (so the board waits for the host rather than
//! drop a frame), write the run command into the image's
//! `PQBENCH_MAILBOX`, then stream the channel's bytes to the collector.
//! probe-rs is synchronous, so all of it runs on a blocking thread and
//! hands bytes over a channel.

mod rtt;
mod sequence;
mod target;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use probe_rs::probe::list::{Accessibility, Lister};
use probe_rs::probe::{DebugProbeError, DebugProbeInfo, DebugProbeSelector, Probe, ProbeCreationError};
use probe_rs::{Core, MemoryInterface, Permissions, Session};
use tokio::sync::mpsc;

pub use sequence::{
    ANSWER_WAIT, BoardBytes, MAX_ERRORS_IN_A_ROW, RTT_WAIT, Retrying, SessionStats, WAITING_FOR_SYMBOL,
    execute,
};
pub use target::{DebugTarget, StoppedAt, TargetError};

use crate::boards::ProbeConnection;
use crate::collector::Link;
use crate::image::{FirmwareImage, ImageError};

/// A probe attached to this host now.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachedProbe {
    /// What identifies the probe in a board id (`probe:<serial>`): its USB
    /// serial number, or `vid:pid` for a probe without one.
    pub serial: String,
    /// What the probe calls itself, such as `STLink V2-1`.
    pub identifier: String,
    /// Whether this user may open it (Linux needs a udev rule).
    pub accessible: bool,
}

/// The probes attached now; none when there are none, never an error.
pub fn attached() -> Vec<AttachedProbe> {
    Lister::new()
        .list_all_with_access()
        .into_iter()
        .map(|item| AttachedProbe {
            serial: serial_of(&item.info),
            identifier: item.info.identifier.clone(),
            accessible: item.accessibility == Accessibility::Accessible,
        })
        .collect()
}

fn serial_of(info: &DebugProbeInfo) -> String {
    match &info.serial_number {
        Some(serial) if !serial.is_empty() => serial.clone(),
        _ => format!("{:04x}:{:04x}", info.vendor_id, info.product_id),
    }
}

/// Why a probe run failed, in words for the person who started it.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("no probe {0} is attached (`pqbench boards` lists the probes it sees)")]
    NotAttached(String),
    #[error(
        "permission denied opening probe {0}: on Linux, install probe-rs's udev rules \
         (https://probe.rs/docs/getting-started/probe-setup/) and plug the probe in again"
    )]
    PermissionDenied(String),
    #[error("opening probe {probe}: {why}{}", hint_text(hint))]
    Open { probe: String, why: String, hint: Option<&'static str> },
    #[error("setting probe {probe} to {khz} kHz: {why}")]
    Speed { probe: String, khz: u32, why: String },
    #[error("attaching probe {probe} to the {chip}: {why}{}", hint_text(hint))]
    Attach { probe: String, chip: String, why: String, hint: Option<&'static str> },
    #[error("flashing {image} to the {chip}: {why} (is the board the one the image is built for?)")]
    Flash { image: String, chip: String, why: String },
    #[error("resetting the {chip}: {why}")]
    Reset { chip: String, why: String },
    #[error(
        "no RTT control block at {address:#010x} within {waited_ms} ms of reset: the firmware did not start \
         (wrong chip, or an image without defmt-rtt?){}",
        stopped_text(at)
    )]
    RttNotFound { address: u64, waited_ms: u128, at: Option<StoppedAt> },
    #[error(
        "the board did not take the run command within {waited_ms} ms: it never reached its command loop{}. \
         A board stuck in its clock set-up waits for a clock that never comes (a crystal not fitted, a \
         solder bridge open); see \"First run on your board\" in the README",
        stopped_text(at)
    )]
    Stuck { waited_ms: u128, at: Option<StoppedAt> },
    #[error("the probe failed {errors} requests in a row, the last with: {last}{}", stopped_text(at))]
    GaveUp { errors: u32, last: String, at: Option<StoppedAt> },
    #[error("setting up RTT: {0}")]
    Rtt(String),
    #[error("writing the run command to the board: {0}")]
    Mailbox(String),
    #[error("reading RTT from the board: {0}")]
    Read(String),
    #[error(transparent)]
    Image(#[from] ImageError),
}

fn stopped_text(at: &Option<StoppedAt>) -> String {
    match at {
        Some(at) => format!("; the core is halted {at}"),
        None => String::new(),
    }
}

fn hint_text(hint: &Option<&'static str>) -> String {
    hint.map(|hint| format!(" ({hint})")).unwrap_or_default()
}

/// Where the host writes the command, and how much it takes: the
/// firmware's contract (docs/record-format.md, "On defmt").
pub const MAILBOX_SYMBOL: &str = "PQBENCH_MAILBOX";
pub const MAILBOX_CAPACITY: usize = pqbench_wire::MAX_COMMAND_LINE;
const RTT_SYMBOL: &str = "_SEGGER_RTT";

/// Whether flashing writes the chip, or only checks the image against its
/// flash map (all a test double allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flash {
    Write,
    DryRun,
}

/// One run's sequence on a probe.
pub struct ProbePlan {
    pub probe: String,
    /// probe-rs's name of the chip, e.g. `STM32F446ZETx`.
    pub chip: String,
    pub image: Arc<FirmwareImage>,
    /// The run command line the mailbox receives.
    pub command: String,
    pub flash: Flash,
    pub connection: ProbeConnection,
}

/// Opens an attached probe by the serial in its board id.
pub fn open(serial: &str) -> Result<Probe, ProbeError> {
    let lister = Lister::new();
    let item = lister
        .list_all_with_access()
        .into_iter()
        .find(|item| serial_of(&item.info) == serial)
        .ok_or_else(|| ProbeError::NotAttached(serial.into()))?;
    if item.accessibility == Accessibility::PermissionDenied {
        return Err(ProbeError::PermissionDenied(serial.into()));
    }
    lister.open(DebugProbeSelector::from(&item.info)).map_err(|e| open_error(serial, e))
}

fn open_error(serial: &str, error: DebugProbeError) -> ProbeError {
    match error {
        DebugProbeError::Usb(io) | DebugProbeError::ProbeCouldNotBeCreated(ProbeCreationError::Usb(io))
            if io.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            ProbeError::PermissionDenied(serial.into())
        }
        other => ProbeError::Open { probe: serial.into(), why: error_chain(&other), hint: hint(&other) },
    }
}

/// What to do about the probe-rs errors first runs meet most, found by
/// their kind where probe-rs exposes it and by its words where not.
fn hint(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    use probe_rs::probe::stlink::StlinkError;
    let mut cause = Some(error);
    while let Some(error) = cause {
        let outdated =
            match error.downcast_ref::<DebugProbeError>() {
                Some(DebugProbeError::ProbeSpecific(boxed)) => {
                    matches!(boxed.downcast_ref::<StlinkError>(), Some(StlinkError::ProbeFirmwareOutdated(_)))
                }
                _ => false,
            } || matches!(error.downcast_ref::<StlinkError>(), Some(StlinkError::ProbeFirmwareOutdated(_)));
        if outdated {
            return Some(
                "update the ST-LINK's firmware with ST's STSW-LINK007 updater: probe-rs needs V2/V2-1 \
                 firmware J26 or later (J28 for some chips), V3 firmware J3 or later",
            );
        }
        cause = error.source();
    }
    let text = error_chain(error).to_ascii_lowercase();
    if text.contains("wait") || text.contains("timeout") || text.contains("no acknowledge") {
        return Some(
            "check the SWD wiring and the board's power; try a lower --probe-speed, or \
             --connect-under-reset for firmware that turns off the debug pins or sleeps",
        );
    }
    None
}

/// probe-rs's session on a chip, attached as `plan` says.
fn attach(probe: Probe, plan: &ProbePlan) -> Result<Session, ProbeError> {
    let mut probe = probe;
    if let Some(khz) = plan.connection.speed_khz {
        let set = probe.set_speed(khz).map_err(|e| ProbeError::Speed {
            probe: plan.probe.clone(),
            khz,
            why: error_chain(&e),
        })?;
        if set != khz {
            tracing::info!(probe = plan.probe, "asked for {khz} kHz, the probe runs at {set} kHz");
        }
    }
    let attached = if plan.connection.under_reset {
        probe.attach_under_reset(plan.chip.as_str(), Permissions::default())
    } else {
        probe.attach(plan.chip.as_str(), Permissions::default())
    };
    attached.map_err(|e| ProbeError::Attach {
        probe: plan.probe.clone(),
        chip: plan.chip.clone(),
        why: error_chain(&e),
        hint: hint(&e),
    })
}

/// Runs `plan` on `probe`: flashes, holds the core at reset, then
/// [`execute`]s through probe-rs.
pub fn run_on_probe(
    probe: Probe,
    plan: &ProbePlan,
    bytes: &BoardBytes,
    stop: &AtomicBool,
    stats: &SessionStats,
) -> Result<(), ProbeError> {
    // Refused before the probe is touched: an image that cannot run here.
    plan.image.symbol(RTT_SYMBOL, "RTT (a defmt-rtt image)")?;
    plan.image.symbol(MAILBOX_SYMBOL, "runs through a probe")?;
    let mut session = attach(probe, plan)?;
    flash(&mut session, plan)?;
    let mut core = session.core(0).map_err(|e| reset_error(plan, e))?;
    core.reset_and_halt(Duration::from_millis(500)).map_err(|e| reset_error(plan, e))?;
    tracing::info!(probe = plan.probe, chip = plan.chip, "flashed and held at reset");
    execute(ProbeRsCore(core), &plan.image, &plan.command, bytes, stop, stats)
}

/// probe-rs's core as a [`DebugTarget`]: memory through the access port,
/// with the core running or not.
pub struct ProbeRsCore<'s>(pub Core<'s>);

impl DebugTarget for ProbeRsCore<'_> {
    fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError> {
        self.0.read(address, bytes).map_err(target_error)
    }
    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError> {
        self.0.write(address, bytes).map_err(target_error)
    }
    fn run(&mut self) -> Result<(), TargetError> {
        self.0.run().map_err(target_error)
    }
    fn halt(&mut self) -> Result<(), TargetError> {
        self.0.halt(Duration::from_millis(500)).map(drop).map_err(target_error)
    }
    fn pc(&mut self) -> Result<u64, TargetError> {
        let pc = self.0.program_counter();
        let value: u64 = self.0.read_core_reg(pc).map_err(target_error)?;
        Ok(value)
    }
}

fn target_error(error: probe_rs::Error) -> TargetError {
    TargetError(error_chain(&error))
}

/// Writes `image` to the `chip` on `probe` and starts it from reset, for a
/// board that is then run over its serial port (a text-records image, no
/// RTT). Verified after writing; `Flash::DryRun` only checks the image
/// against the chip's flash map.
pub fn write_image(
    probe: Probe,
    probe_serial: &str,
    chip: &str,
    image: Arc<FirmwareImage>,
    mode: Flash,
    connection: ProbeConnection,
) -> Result<(), ProbeError> {
    let plan = ProbePlan {
        probe: probe_serial.into(),
        chip: chip.into(),
        image,
        command: String::new(),
        flash: mode,
        connection,
    };
    let mut session = attach(probe, &plan)?;
    flash(&mut session, &plan)?;
    let mut core = session.core(0).map_err(|e| reset_error(&plan, e))?;
    core.reset().map_err(|e| reset_error(&plan, e))?;
    tracing::info!(probe = probe_serial, chip, image = %plan.image.path.display(), "flashed and reset");
    Ok(())
}

fn flash(session: &mut Session, plan: &ProbePlan) -> Result<(), ProbeError> {
    use probe_rs::flashing::{DownloadOptions, ElfLoader, ElfOptions, download_file_with_options};
    let mut options = DownloadOptions::default();
    options.dry_run = plan.flash == Flash::DryRun;
    options.verify = plan.flash == Flash::Write;
    download_file_with_options(session, &plan.image.path, ElfLoader(ElfOptions::default()), options).map_err(
        |e| ProbeError::Flash {
            image: plan.image.path.display().to_string(),
            chip: plan.chip.clone(),
            why: error_chain(&e),
        },
    )
}

fn reset_error(plan: &ProbePlan, e: probe_rs::Error) -> ProbeError {
    ProbeError::Reset { chip: plan.chip.clone(), why: error_chain(&e) }
}

/// An error with its causes: probe-rs's top-level messages are often
/// generic ("An ARM specific error occurred.") and the cause is the news.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A probe run on its blocking thread.
pub struct ProbeSession {
    /// The board's bytes, then why the session ended if it ended before
    /// the run did.
    pub link: ProbeLink,
    /// Set, the session stops.
    pub stop: Arc<AtomicBool>,
    /// What the session counted, for the run's notes.
    pub stats: Arc<SessionStats>,
    pub thread: tokio::task::JoinHandle<()>,
}

/// Runs `plan` on a blocking thread.
pub fn spawn(
    open_probe: impl FnOnce() -> Result<Probe, ProbeError> + Send + 'static,
    plan: ProbePlan,
) -> ProbeSession {
    let name = plan.probe.clone();
    on_thread(name, move |bytes, stop, stats| {
        open_probe().and_then(|probe| run_on_probe(probe, &plan, bytes, stop, stats))
    })
}

/// Runs [`execute`] on `target`, a core held at reset, on a blocking
/// thread: as [`spawn`] does after flashing, for a target that is not a
/// probe-rs probe (a GDB server).
pub fn spawn_execute<T: DebugTarget + Send + 'static>(
    name: String,
    target: T,
    image: Arc<FirmwareImage>,
    command: String,
) -> ProbeSession {
    on_thread(name, move |bytes, stop, stats| execute(target, &image, &command, bytes, stop, stats))
}

fn on_thread(
    name: String,
    sequence: impl FnOnce(&BoardBytes, &AtomicBool, &SessionStats) -> Result<(), ProbeError> + Send + 'static,
) -> ProbeSession {
    let (sender, receiver) = mpsc::channel(64);
    let stop = Arc::new(AtomicBool::new(false));
    let stats = Arc::new(SessionStats::default());
    let (stopping, counting) = (stop.clone(), stats.clone());
    let thread = tokio::task::spawn_blocking(move || {
        // probe-rs can panic on a probe in a state it does not expect; the
        // run fails with that reason, and the server keeps serving.
        let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sequence(&sender, &stopping, &counting)
        }));
        let why = match ended {
            Ok(Ok(())) => return,
            Ok(Err(e)) => SessionError::Probe(e),
            Err(panic) => SessionError::Panicked(panic_message(&panic)),
        };
        tracing::warn!(probe = name, "probe run failed: {why}");
        let _ = sender.blocking_send(Err(why));
    });
    ProbeSession { link: ProbeLink(receiver), stop, stats, thread }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Why a probe session sent no more of the board's bytes.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error("probe-rs failed: {0}")]
    Panicked(String),
    #[error("the probe session ended")]
    Ended,
}

/// The board's RTT bytes, as the blocking probe thread sends them.
pub struct ProbeLink(mpsc::Receiver<Result<Vec<u8>, SessionError>>);

impl Link for ProbeLink {
    type Error = SessionError;

    async fn receive(&mut self) -> Result<Vec<u8>, SessionError> {
        match self.0.recv().await {
            Some(chunk) => chunk,
            None => Err(SessionError::Ended),
        }
    }
}

#[cfg(test)]
mod tests;
