//! The boards this server can reach, and how a run reaches each.
//!
//! An emulated board is data: a QEMU machine, its CPU, which `-serial`
//! carries the board's console, and the firmware image built for it. A run
//! on it starts QEMU with that UART on a pseudo-terminal and talks to it
//! through `tokio-serial`, exactly as to a NUCLEO's virtual COM port.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pqbench_api::{Board, BoardKind};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub struct EmulatedBoard {
    pub id: &'static str,
    pub name: &'static str,
    pub machine: &'static str,
    /// `-cpu`, for machines that take one.
    pub cpu: Option<&'static str>,
    /// `-serial` options in UART order; the one given as `pty` is the console.
    pub serials: &'static [&'static str],
    /// File name of the firmware image under the firmware directory.
    pub image: &'static str,
}

pub const EMULATED: &[EmulatedBoard] = &[
    EmulatedBoard {
        id: "qemu-mps2-an386",
        name: "Cortex-M4 on QEMU mps2-an386 (emulated; times are instruction counts)",
        machine: "mps2-an386",
        cpu: Some("cortex-m4"),
        serials: &["pty"],
        image: "mps2-an386.elf",
    },
    EmulatedBoard {
        id: "qemu-netduinoplus2",
        name: "STM32F405 on QEMU netduinoplus2 (emulated, 128 KiB RAM; USART3 as on a NUCLEO)",
        machine: "netduinoplus2",
        cpu: None,
        // USART3 is the console, as on NUCLEO-144 boards.
        serials: &["null", "null", "pty"],
        image: "netduinoplus2.elf",
    },
];

/// A board reached through a debug probe: which chip probe-rs is asked to
/// attach to, and the defmt-rtt image it is flashed with.
#[derive(Debug)]
pub struct ProbeBoard {
    /// The firmware's board name, as `--probe SERIAL=BOARD` gives it.
    pub board: &'static str,
    pub name: &'static str,
    /// probe-rs's name for the chip.
    pub chip: &'static str,
    pub image: &'static str,
}

pub const PROBE_BOARDS: &[ProbeBoard] = &[
    ProbeBoard {
        board: "nucleo-f446ze",
        name: "NUCLEO-F446ZE (STM32F446ZE, Cortex-M4F, 180 MHz, 128 KiB RAM)",
        chip: "STM32F446ZETx",
        image: "nucleo-f446ze-defmt-rtt.elf",
    },
    ProbeBoard {
        board: "nucleo-f439zi",
        name: "NUCLEO-F439ZI (STM32F439ZI, Cortex-M4F, 180 MHz, 192 KiB RAM)",
        chip: "STM32F439ZITx",
        image: "nucleo-f439zi-defmt-rtt.elf",
    },
    ProbeBoard {
        board: "b-u585i-iot02a",
        name: "B-U585I-IOT02A (STM32U585AI, Cortex-M33, 160 MHz, 768 KiB RAM)",
        chip: "STM32U585AIIx",
        image: "b-u585i-iot02a-defmt-rtt.elf",
    },
];

const QEMU: &str = "qemu-system-arm";

/// Firmware build variants: by optimisation level; `opt-s-defmt`, the
/// default build sending defmt frames instead of text (on an emulated
/// board, over its UART); and `opt-s-rustcrypto`, the default build with
/// RustCrypto's ML-KEM/ML-DSA instead of libcrux's. `cargo xtask build`
/// makes each where it fits.
pub const VARIANTS: &[&str] = &["opt-s", "opt-z", "opt-3", "opt-s-defmt", "opt-s-rustcrypto"];
pub const DEFAULT_VARIANT: &str = "opt-s";
const DEFMT_VARIANT: &str = "opt-s-defmt";

/// How a board frames its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Text,
    Defmt,
}

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("no board {0:?} here; `pqbench boards` lists the boards this server can reach")]
    Unknown(String),
    #[error("no build variant {0:?}: the variants are {variants}", variants = VARIANTS.join(", "))]
    UnknownVariant(String),
    #[error("board {board} offers only the {offered} build, not {variant:?}")]
    VariantNotOffered { board: String, variant: String, offered: &'static str },
    #[error("board {0:?} is busy with another run")]
    Busy(String),
    #[error("the firmware image {0} is missing: build it with `cargo xtask build`")]
    MissingImage(PathBuf),
    #[error("{QEMU} is not installed: `cargo xtask setup` installs it")]
    NoQemu,
    #[error("starting QEMU: {0}")]
    Qemu(String),
    #[error("opening serial port {path}: {source}")]
    Serial { path: String, source: tokio_serial::Error },
    #[error("this pqbench is built without probe support (cargo feature `probe-rs`), so it cannot reach {0}")]
    NoProbeSupport(String),
    #[error("no probe {0} is attached: `pqbench boards` lists the probes this host sees")]
    ProbeNotAttached(String),
    #[error(
        "probe {serial} is attached, but which board it is wired to is not known: start pqbench with \
         --probe {serial}=BOARD (BOARD one of {boards})", boards = probe_board_names()
    )]
    ProbeNotWired { serial: String },
    #[error("--probe {0:?}: expected SERIAL=BOARD with BOARD one of {boards}", boards = probe_board_names())]
    BadWiring(String),
}

fn probe_board_names() -> String {
    PROBE_BOARDS.iter().map(|b| b.board).collect::<Vec<_>>().join(", ")
}

/// Which board each probe is wired to, as the person running pqbench says:
/// a probe's USB identity does not tell what it is connected to.
#[derive(Debug, Clone, Default)]
pub struct ProbeWiring(HashMap<String, &'static ProbeBoard>);

impl ProbeWiring {
    /// Reads `SERIAL=BOARD` pairs.
    pub fn parse<'s>(pairs: impl IntoIterator<Item = &'s str>) -> Result<ProbeWiring, BoardError> {
        let mut wiring = HashMap::new();
        for pair in pairs {
            let bad = || BoardError::BadWiring(pair.into());
            let (serial, board) = pair.split_once('=').ok_or_else(bad)?;
            let board = PROBE_BOARDS.iter().find(|b| b.board == board.trim()).ok_or_else(bad)?;
            if serial.trim().is_empty() {
                return Err(bad());
            }
            wiring.insert(serial.trim().to_string(), board);
        }
        Ok(ProbeWiring(wiring))
    }

    #[cfg(feature = "probe-rs")]
    fn board(&self, serial: &str) -> Option<&'static ProbeBoard> {
        self.0.get(serial).copied()
    }
}

/// What a reserved run drives.
pub enum Target {
    Emulated { board: &'static EmulatedBoard, image: PathBuf, framing: Framing, options: EmulatorOptions },
    Probe { serial: String, board: &'static ProbeBoard, image: PathBuf },
}

/// The boards, and which of them are running now.
pub struct Boards {
    firmware_dir: PathBuf,
    #[cfg_attr(not(feature = "probe-rs"), allow(dead_code))]
    wiring: ProbeWiring,
    busy: Arc<Mutex<HashSet<String>>>,
    /// Where each emulator's QEMU monitor listens, if anywhere.
    monitors: Option<PathBuf>,
}

/// Holds a board for one run; dropping it frees the board.
pub struct Reservation {
    id: String,
    busy: Arc<Mutex<HashSet<String>>>,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Ok(mut busy) = self.busy.lock() {
            busy.remove(&self.id);
        }
    }
}

pub const PROBE_PREFIX: &str = "probe:";

impl Boards {
    pub fn new(firmware_dir: PathBuf, wiring: ProbeWiring) -> Self {
        if !cfg!(feature = "probe-rs") && !wiring.0.is_empty() {
            tracing::warn!("probes are wired with --probe, but this pqbench is built without probe support");
        }
        Boards { firmware_dir, wiring, busy: Arc::default(), monitors: None }
    }

    /// Gives each emulator a QEMU monitor on a Unix socket,
    /// `<dir>/<board id>.monitor` (a board runs one run at a time, so the
    /// name is never shared), through which a test resets the board
    /// mid-run (`system_reset`) as a watchdog or a reset button would.
    /// Without it, as in production, QEMU has no monitor at all.
    pub fn with_qemu_monitors(mut self, dir: PathBuf) -> Self {
        self.monitors = Some(dir);
        self
    }

    /// The image of a build variant: `opt-s` is the board's own image,
    /// others carry the variant in their name (`mps2-an386-opt-z.elf`,
    /// `mps2-an386-defmt-serial.elf`).
    fn image(&self, board: &EmulatedBoard, variant: &str) -> PathBuf {
        let stem = board.image.trim_end_matches(".elf");
        match variant {
            DEFAULT_VARIANT => self.firmware_dir.join(board.image),
            DEFMT_VARIANT => self.firmware_dir.join(format!("{stem}-defmt-serial.elf")),
            _ => self.firmware_dir.join(format!("{stem}-{variant}.elf")),
        }
    }

    fn variants(&self, board: &EmulatedBoard) -> Vec<String> {
        VARIANTS.iter().filter(|v| self.image(board, v).is_file()).map(|v| v.to_string()).collect()
    }

    /// Boards a run can be started on: emulated ones whose image is built,
    /// when QEMU is installed, and the probes attached now. Probing USB
    /// blocks: call it off the async runtime.
    pub fn list(&self) -> Vec<Board> {
        let busy = self.busy.lock().map(|b| b.clone()).unwrap_or_default();
        let mut boards = Vec::new();
        if find_on_path(QEMU).is_some() {
            boards.extend(EMULATED.iter().filter(|b| self.image(b, DEFAULT_VARIANT).is_file()).map(|b| {
                Board {
                    id: b.id.into(),
                    name: b.name.into(),
                    kind: BoardKind::Emulated,
                    available: !busy.contains(b.id),
                    variants: self.variants(b),
                    chip: None,
                    note: None,
                    host: None,
                    connected: true,
                }
            }));
        }
        boards.extend(self.probes(&busy));
        boards
    }

    #[cfg(feature = "probe-rs")]
    fn probes(&self, busy: &HashSet<String>) -> Vec<Board> {
        crate::probe::attached()
            .into_iter()
            .map(|probe| {
                let id = format!("{PROBE_PREFIX}{}", probe.serial);
                let wired = self.wiring.board(&probe.serial);
                let image = wired.map(|b| self.firmware_dir.join(b.image));
                let note = if !probe.accessible {
                    Some(crate::probe::ProbeError::PermissionDenied(probe.serial.clone()).to_string())
                } else {
                    match (wired, &image) {
                        (None, _) => {
                            Some(BoardError::ProbeNotWired { serial: probe.serial.clone() }.to_string())
                        }
                        (Some(_), Some(image)) if !image.is_file() => {
                            Some(BoardError::MissingImage(image.clone()).to_string())
                        }
                        _ => None,
                    }
                };
                Board {
                    name: match wired {
                        Some(board) => {
                            format!("{} on probe {} ({})", board.name, probe.serial, probe.identifier)
                        }
                        None => format!("probe {} ({}), board not set", probe.serial, probe.identifier),
                    },
                    kind: BoardKind::Probe,
                    available: note.is_none() && !busy.contains(&id),
                    variants: if wired.is_some() { vec![DEFAULT_VARIANT.into()] } else { Vec::new() },
                    chip: wired.map(|b| b.chip.to_string()),
                    note,
                    id,
                    host: None,
                    connected: true,
                }
            })
            .collect()
    }

    #[cfg(not(feature = "probe-rs"))]
    fn probes(&self, _busy: &HashSet<String>) -> Vec<Board> {
        Vec::new()
    }

    /// Why each known board is not listed, for `pqbench boards`.
    pub fn missing(&self) -> Vec<BoardError> {
        let mut missing = Vec::new();
        if find_on_path(QEMU).is_none() {
            missing.push(BoardError::NoQemu);
        } else {
            missing.extend(
                EMULATED
                    .iter()
                    .map(|b| self.image(b, DEFAULT_VARIANT))
                    .filter(|image| !image.is_file())
                    .map(BoardError::MissingImage),
            );
        }
        if !cfg!(feature = "probe-rs") {
            missing.push(BoardError::NoProbeSupport("boards on a debug probe".into()));
        }
        missing
    }

    /// Takes the board for a run, or says why not.
    pub fn reserve(&self, id: &str, variant: &str) -> Result<(Reservation, Target), BoardError> {
        if !VARIANTS.contains(&variant) {
            return Err(BoardError::UnknownVariant(variant.into()));
        }
        let target = match id.strip_prefix(PROBE_PREFIX) {
            Some(serial) => self.probe_target(serial, variant)?,
            None => {
                let board =
                    EMULATED.iter().find(|b| b.id == id).ok_or_else(|| BoardError::Unknown(id.into()))?;
                let image = self.image(board, variant);
                if !image.is_file() {
                    return Err(BoardError::MissingImage(image));
                }
                if find_on_path(QEMU).is_none() {
                    return Err(BoardError::NoQemu);
                }
                let framing = if variant == DEFMT_VARIANT { Framing::Defmt } else { Framing::Text };
                let monitor = self.monitors.as_ref().map(|dir| dir.join(format!("{}.monitor", board.id)));
                Target::Emulated { board, image, framing, options: EmulatorOptions { monitor } }
            }
        };
        let mut busy = self.busy.lock().map_err(|_| BoardError::Busy(id.into()))?;
        if !busy.insert(id.to_string()) {
            return Err(BoardError::Busy(id.into()));
        }
        Ok((Reservation { id: id.into(), busy: self.busy.clone() }, target))
    }

    #[cfg(feature = "probe-rs")]
    fn probe_target(&self, serial: &str, variant: &str) -> Result<Target, BoardError> {
        let attached = crate::probe::attached();
        if !attached.iter().any(|p| p.serial == serial) {
            return Err(BoardError::ProbeNotAttached(serial.into()));
        }
        let board =
            self.wiring.board(serial).ok_or_else(|| BoardError::ProbeNotWired { serial: serial.into() })?;
        if variant != DEFAULT_VARIANT {
            return Err(BoardError::VariantNotOffered {
                board: format!("{PROBE_PREFIX}{serial}"),
                variant: variant.into(),
                offered: DEFAULT_VARIANT,
            });
        }
        let image = self.firmware_dir.join(board.image);
        if !image.is_file() {
            return Err(BoardError::MissingImage(image));
        }
        Ok(Target::Probe { serial: serial.into(), board, image })
    }

    #[cfg(not(feature = "probe-rs"))]
    fn probe_target(&self, serial: &str, _variant: &str) -> Result<Target, BoardError> {
        Err(BoardError::NoProbeSupport(format!("{PROBE_PREFIX}{serial}")))
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// A running QEMU and the pseudo-terminal of its console UART.
pub struct Emulator {
    child: Child,
    pub console: String,
}

/// How an emulator is started beyond its board's own arguments. The
/// default is what production uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmulatorOptions {
    /// A QEMU human monitor listening on this Unix socket; `None`: no
    /// monitor. See [`Boards::with_qemu_monitors`].
    pub monitor: Option<PathBuf>,
}

impl Emulator {
    /// Starts the board under QEMU with a deterministic clock: `-icount
    /// shift=0` makes every run of one image count the same ticks.
    pub async fn start(board: &EmulatedBoard, image: &Path) -> Result<Emulator, BoardError> {
        Emulator::start_with(board, image, &EmulatorOptions::default()).await
    }

    /// [`Emulator::start`], with `options`.
    pub async fn start_with(
        board: &EmulatedBoard,
        image: &Path,
        options: &EmulatorOptions,
    ) -> Result<Emulator, BoardError> {
        let mut command = Command::new(QEMU);
        command.args(["-machine", board.machine]);
        if let Some(cpu) = board.cpu {
            command.args(["-cpu", cpu]);
        }
        command.args(["-nographic", "-icount", "shift=0", "-monitor"]);
        match &options.monitor {
            // QEMU removes a stale socket of that name before listening.
            Some(socket) => command.arg(format!("unix:{},server=on,wait=off", socket.display())),
            None => command.arg("none"),
        };
        for serial in board.serials {
            command.args(["-serial", serial]);
        }
        command
            .arg("-kernel")
            .arg(image)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| BoardError::Qemu(e.to_string()))?;
        let stdout = child.stdout.take().ok_or_else(|| BoardError::Qemu("no stdout".into()))?;
        let stderr = child.stderr.take().ok_or_else(|| BoardError::Qemu("no stderr".into()))?;
        let mut lines = BufReader::new(stdout).lines();

        // QEMU names the pty of each `-serial pty`; only the console UART is
        // given as a pty, so the first named is the console.
        let console = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(path) = line.split_whitespace().find(|w| w.starts_with("/dev/pts/")) {
                    return Some(path.to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten();
        let Some(console) = console else {
            let _ = child.start_kill();
            let mut message = String::new();
            let mut errors = BufReader::new(stderr).lines();
            while let Ok(Ok(Some(line))) =
                tokio::time::timeout(Duration::from_secs(1), errors.next_line()).await
            {
                message.push_str(&line);
                message.push(' ');
            }
            return Err(BoardError::Qemu(format!("QEMU gave no serial pty: {}", message.trim())));
        };
        // Keep draining QEMU's output so it never blocks on a full pipe.
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!("qemu: {line}");
            }
        });
        tokio::spawn(async move {
            let mut errors = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = errors.next_line().await {
                tracing::warn!("qemu: {line}");
            }
        });
        Ok(Emulator { child, console })
    }

    pub fn open_console(&self) -> Result<tokio_serial::SerialStream, BoardError> {
        use tokio_serial::SerialPortBuilderExt;
        tokio_serial::new(&self.console, 115_200)
            .open_native_async()
            .map_err(|source| BoardError::Serial { path: self.console.clone(), source })
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// Makes the kernel kill QEMU when the server dies. `kill_on_drop` covers
/// every end of the server that runs its drops, but not SIGKILL, the OOM
/// killer or an abort: an orphaned QEMU would keep its CPU busy with a run
/// nobody reads, and a restarted server would start a second one.
///
/// The death signal follows the *thread* that spawned QEMU, not the
/// process: emulators are started from the async runtime's worker threads
/// (or the command line's main thread), which live as long as the server.
/// Never start one from `spawn_blocking`, whose threads end when idle.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the hook runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: prctl and getppid are, and the
    // hook allocates nothing (an OS error code needs no allocation).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The server died between fork and prctl: no signal will come,
            // so QEMU is not started (ESRCH: the parent is no more).
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}
