//! Boards on a debug probe, through the probe-rs library (feature `probe-rs`).
//!
//! A run flashes the board's defmt-rtt image, resets the chip, attaches RTT
//! at the image's `_SEGGER_RTT`, sets the up channel to block when full (so
//! the board waits for the host rather than drop a frame), writes the run
//! command into the image's `PQBENCH_MAILBOX`, then streams the channel's
//! bytes to the collector. probe-rs is synchronous, so all of it runs on a
//! blocking thread and hands bytes over a channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use probe_rs::probe::list::{Accessibility, Lister};
use probe_rs::probe::{DebugProbeError, DebugProbeInfo, DebugProbeSelector, Probe, ProbeCreationError};
use probe_rs::rtt::{ChannelMode, Rtt};
use probe_rs::{MemoryInterface, Permissions, Session};
use tokio::sync::mpsc;

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
    #[error("opening probe {probe}: {why}")]
    Open { probe: String, why: String },
    #[error(
        "attaching probe {probe} to the {chip}: {why} (is the probe wired to that chip, and the board powered?)"
    )]
    Attach { probe: String, chip: String, why: String },
    #[error("flashing {image} to the {chip}: {why} (is the board the one the image is built for?)")]
    Flash { image: String, chip: String, why: String },
    #[error("resetting the {chip}: {why}")]
    Reset { chip: String, why: String },
    #[error(
        "no RTT control block at {address:#010x} within {waited_ms} ms of reset: the firmware did not start \
         (wrong chip, or an image without defmt-rtt?)"
    )]
    RttNotFound { address: u64, waited_ms: u128 },
    #[error("setting up RTT: {0}")]
    Rtt(String),
    #[error("writing the run command to the board: {0}")]
    Mailbox(String),
    #[error("reading RTT from the board: {0}")]
    Read(String),
    #[error(transparent)]
    Image(#[from] ImageError),
}

/// Where the host writes the command, and how much it takes: the
/// firmware's contract (docs/record-format.md, "On defmt").
pub const MAILBOX_SYMBOL: &str = "PQBENCH_MAILBOX";
pub const MAILBOX_CAPACITY: usize = 252;
const RTT_SYMBOL: &str = "_SEGGER_RTT";

/// How long the firmware may take from reset to an initialised RTT block.
const RTT_WAIT: Duration = Duration::from_secs(2);
/// How often an idle up channel is polled.
const POLL: Duration = Duration::from_millis(5);

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
    lister.open(DebugProbeSelector::from(&item.info)).map_err(|e| match e {
        DebugProbeError::Usb(io) | DebugProbeError::ProbeCouldNotBeCreated(ProbeCreationError::Usb(io))
            if io.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            ProbeError::PermissionDenied(serial.into())
        }
        other => ProbeError::Open { probe: serial.into(), why: error_chain(&other) },
    })
}

/// Runs `plan` on `probe` and sends what the board's up channel carries to
/// `bytes` until `stop` is set or the receiver goes away.
pub fn execute(
    probe: Probe,
    plan: &ProbePlan,
    bytes: &mpsc::Sender<Result<Vec<u8>, String>>,
    stop: &AtomicBool,
) -> Result<(), ProbeError> {
    let rtt_address = plan.image.symbol(RTT_SYMBOL, "RTT (a defmt-rtt image)")?;
    let mailbox = plan.image.symbol(MAILBOX_SYMBOL, "runs through a probe")?;
    let command = plan.command.as_bytes();
    if command.len() > MAILBOX_CAPACITY {
        return Err(ProbeError::Mailbox(format!("the command is over {MAILBOX_CAPACITY} bytes")));
    }

    let mut session = probe.attach(plan.chip.as_str(), Permissions::default()).map_err(|e| {
        ProbeError::Attach { probe: plan.probe.clone(), chip: plan.chip.clone(), why: error_chain(&e) }
    })?;
    flash(&mut session, plan)?;

    let mut core = session.core(0).map_err(|e| reset_error(plan, e))?;
    core.reset_and_halt(Duration::from_millis(500)).map_err(|e| reset_error(plan, e))?;
    // RAM outlives a reset: a control block and a command left by the last
    // run would be found before this boot sets them up, and the boot would
    // then wipe the mode and the command the host wrote. Clear both first.
    core.write_32(rtt_address, &[0; 4]).map_err(|e| reset_error(plan, e))?;
    core.write_word_32(mailbox, 0).map_err(|e| reset_error(plan, e))?;
    core.run().map_err(|e| reset_error(plan, e))?;

    let started = Instant::now();
    let mut rtt = loop {
        match Rtt::attach_at(&mut core, rtt_address) {
            Ok(rtt) => break rtt,
            Err(probe_rs::rtt::Error::ControlBlockNotFound) if started.elapsed() < RTT_WAIT => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(probe_rs::rtt::Error::ControlBlockNotFound) => {
                return Err(ProbeError::RttNotFound {
                    address: rtt_address,
                    waited_ms: started.elapsed().as_millis(),
                });
            }
            Err(e) => return Err(ProbeError::Rtt(error_chain(&e))),
        }
    };
    let channel =
        rtt.up_channel(0).ok_or_else(|| ProbeError::Rtt("the firmware has no RTT up channel".into()))?;
    channel.set_mode(&mut core, ChannelMode::BlockIfFull).map_err(|e| ProbeError::Rtt(e.to_string()))?;

    // The bytes first, the length last: a non-zero length is the board's
    // sign that a whole command is there. Whole words, as every probe
    // writes them fastest.
    let words: Vec<u32> = command
        .chunks(4)
        .map(|chunk| {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            u32::from_le_bytes(word)
        })
        .collect();
    core.write_32(mailbox + 4, &words).map_err(|e| ProbeError::Mailbox(e.to_string()))?;
    core.write_word_32(mailbox, command.len() as u32).map_err(|e| ProbeError::Mailbox(e.to_string()))?;
    tracing::info!(probe = plan.probe, chip = plan.chip, "run command written: {}", plan.command);

    let mut buf = vec![0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        let read = channel.read(&mut core, &mut buf).map_err(|e| ProbeError::Read(e.to_string()))?;
        if read == 0 {
            std::thread::sleep(POLL);
            continue;
        }
        if bytes.blocking_send(Ok(buf[..read].to_vec())).is_err() {
            break;
        }
    }
    Ok(())
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
) -> Result<(), ProbeError> {
    let plan = ProbePlan {
        probe: probe_serial.into(),
        chip: chip.into(),
        image,
        command: String::new(),
        flash: mode,
    };
    let mut session = probe.attach(chip, Permissions::default()).map_err(|e| ProbeError::Attach {
        probe: probe_serial.into(),
        chip: chip.into(),
        why: error_chain(&e),
    })?;
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

/// Runs `plan` on a blocking thread; the returned link carries the board's
/// bytes, then why the session ended if it ended before the run did.
/// Setting the returned flag stops the session.
pub fn spawn(
    open_probe: impl FnOnce() -> Result<Probe, ProbeError> + Send + 'static,
    plan: ProbePlan,
) -> (ProbeLink, Arc<AtomicBool>, tokio::task::JoinHandle<()>) {
    let (sender, receiver) = mpsc::channel(64);
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let handle = tokio::task::spawn_blocking(move || {
        // probe-rs can panic on a probe in a state it does not expect; the
        // run fails with that reason, and the server keeps serving.
        let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            open_probe().and_then(|probe| execute(probe, &plan, &sender, &stopping))
        }));
        let why = match ended {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.to_string(),
            Err(panic) => format!("probe-rs failed: {}", panic_message(&panic)),
        };
        tracing::warn!(probe = plan.probe, "probe run failed: {why}");
        let _ = sender.blocking_send(Err(why));
    });
    (ProbeLink(receiver), stop, handle)
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// The board's RTT bytes, as the blocking probe thread sends them.
pub struct ProbeLink(mpsc::Receiver<Result<Vec<u8>, String>>);

impl Link for ProbeLink {
    async fn receive(&mut self) -> Result<Vec<u8>, String> {
        match self.0.recv().await {
            Some(chunk) => chunk,
            None => Err("the probe session ended".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The sequence against probe-rs's own test double, as far as it goes:
    //! a probe with a mocked Cortex-M core whose memory serves an ELF's
    //! loadable bytes. It attaches to a chip and checks an image against
    //! that chip's flash map (a dry run: the mock cannot run a flash
    //! algorithm). It cannot reset (its DHCSR never reports a reset), so the
    //! sequence stops there, with the reason; RTT and the mailbox need a
    //! board.
    use std::path::PathBuf;

    use probe_rs::probe::fake_probe::FakeProbe;

    use super::*;

    fn image(name: &str) -> Arc<FirmwareImage> {
        let dist = std::env::var_os("PQBENCH_DIST")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/dist")));
        let path = dist.join("firmware").join(name);
        assert!(path.is_file(), "no image at {}: run the tests with `cargo xtask test`", path.display());
        Arc::new(FirmwareImage::load(&path).unwrap())
    }

    fn plan(image: Arc<FirmwareImage>, chip: &str) -> ProbePlan {
        ProbePlan {
            probe: "fake".into(),
            chip: chip.into(),
            image,
            command: "run min_iterations=1 min_time_ms=0".into(),
            flash: Flash::DryRun,
        }
    }

    fn fake_probe(image: &FirmwareImage) -> Probe {
        FakeProbe::with_mocked_core_and_binary(&image.path).into_probe()
    }

    fn execute_on_fake(plan: &ProbePlan) -> Result<(), ProbeError> {
        let (sender, _receiver) = mpsc::channel(4);
        execute(fake_probe(&plan.image), plan, &sender, &AtomicBool::new(false))
    }

    #[test]
    fn the_image_is_checked_against_the_chip_and_the_sequence_goes_on_to_reset() {
        let plan = plan(image("nucleo-f446ze-defmt-rtt.elf"), "STM32F446ZETx");
        match execute_on_fake(&plan) {
            Err(ProbeError::Reset { chip, why }) => {
                assert_eq!(chip, "STM32F446ZETx");
                assert!(why.contains("timeout"), "the double never completes a reset: {why}");
            }
            other => panic!("attach and flash pass, reset is where the double stops; got {other:?}"),
        }
    }

    #[test]
    fn an_image_for_another_chip_is_refused_before_anything_is_written() {
        // An nRF51's flash starts at 0, where the STM32 image is not.
        let plan = plan(image("nucleo-f446ze-defmt-rtt.elf"), "nRF51822_xxAC");
        match execute_on_fake(&plan) {
            Err(e @ ProbeError::Flash { .. }) => {
                let message = e.to_string();
                assert!(message.contains("nRF51822_xxAC") && message.contains("nucleo-f446ze-defmt-rtt.elf"));
            }
            other => panic!("expected a flash failure, got {other:?}"),
        }
    }

    #[test]
    fn an_image_without_rtt_is_refused_before_the_probe_is_touched() {
        let plan = plan(image("mps2-an386.elf"), "STM32F446ZETx");
        match execute_on_fake(&plan) {
            Err(ProbeError::Image(ImageError::MissingSymbol { symbol, .. })) => {
                assert_eq!(symbol, RTT_SYMBOL)
            }
            other => panic!("an image without RTT is refused first, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_failed_session_ends_the_link_with_its_reason_and_the_runtime_lives_on() {
        let image = image("nucleo-f446ze-defmt-rtt.elf");
        let probe_image = image.clone();
        let (mut link, _stop, session) =
            spawn(move || Ok(fake_probe(&probe_image)), plan(image, "STM32F446ZETx"));
        let why = link.receive().await.expect_err("no bytes come from a board that never resets");
        assert!(why.starts_with("resetting the STM32F446ZETx"), "{why}");
        session.await.unwrap();
        assert_eq!(link.receive().await, Err("the probe session ended".into()));
    }

    #[tokio::test]
    async fn a_panic_in_probe_rs_fails_the_run_and_not_the_server() {
        // The double panics on debug-port traffic it was not told to expect,
        // as an nRF52's attach sequence makes.
        let image = image("nucleo-f446ze-defmt-rtt.elf");
        let probe_image = image.clone();
        let (mut link, _stop, session) =
            spawn(move || Ok(fake_probe(&probe_image)), plan(image, "nRF52840_xxAA"));
        let why = link.receive().await.expect_err("the session fails");
        assert!(why.starts_with("probe-rs failed: "), "{why}");
        session.await.unwrap();
    }

    #[test]
    fn a_serial_board_s_image_is_written_checked_against_the_chip_then_reset() {
        // The text-records image a board on its serial port runs: no RTT
        // and no halt needed, so the whole sequence runs on the double:
        // attach, the image checked against the chip's flash map (a dry
        // run: the mock runs no flash algorithm), and a reset that lets the
        // core run (the double does not wait on DHCSR for it, as it does
        // for a reset-and-halt).
        let image = image("nucleo-f446ze.elf");
        let written = write_image(fake_probe(&image), "fake", "STM32F446ZETx", image.clone(), Flash::DryRun);
        assert!(written.is_ok(), "{written:?}");
        match write_image(fake_probe(&image), "fake", "nRF51822_xxAC", image.clone(), Flash::DryRun) {
            Err(e @ ProbeError::Flash { .. }) => assert!(e.to_string().contains("nucleo-f446ze.elf")),
            other => panic!("an image for another chip is refused, got {other:?}"),
        }
    }

    #[test]
    fn no_probe_attached_is_a_clear_error() {
        match open("0000-no-such-probe") {
            Err(e @ ProbeError::NotAttached(_)) => assert!(e.to_string().contains("0000-no-such-probe")),
            other => panic!("expected NotAttached, got {:?}", other.map(|_| "a probe")),
        }
    }
}
