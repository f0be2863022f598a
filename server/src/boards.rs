//! The boards this server can reach, and how a run reaches each.
//!
//! An emulated board is data: a QEMU machine, its CPU, which `-serial`
//! carries the board's console, and the firmware image built for it. A run
//! on it starts QEMU with that UART on a pseudo-terminal and talks to it
//! through `tokio-serial`, exactly as to a NUCLEO's virtual COM port.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pqbench_types::{Board, BoardKind};
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

const QEMU: &str = "qemu-system-arm";

/// Firmware build variants, by optimisation level; `cargo xtask build`
/// makes each where it fits the chip.
pub const VARIANTS: &[&str] = &["opt-s", "opt-z", "opt-3"];
pub const DEFAULT_VARIANT: &str = "opt-s";

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("no board {0:?} here; `pqbench boards` lists the boards this server can reach")]
    Unknown(String),
    #[error("no build variant {0:?}: the variants are opt-s, opt-z and opt-3")]
    UnknownVariant(String),
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
}

/// The boards, and which of them are running now.
pub struct Boards {
    firmware_dir: PathBuf,
    busy: Arc<Mutex<HashSet<String>>>,
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

impl Boards {
    pub fn new(firmware_dir: PathBuf) -> Self {
        Boards { firmware_dir, busy: Arc::default() }
    }

    /// The image of a build variant: `opt-s` is the board's own image,
    /// others carry the variant in their name (`mps2-an386-opt-z.elf`).
    fn image(&self, board: &EmulatedBoard, variant: &str) -> PathBuf {
        if variant == DEFAULT_VARIANT {
            return self.firmware_dir.join(board.image);
        }
        let stem = board.image.trim_end_matches(".elf");
        self.firmware_dir.join(format!("{stem}-{variant}.elf"))
    }

    fn variants(&self, board: &EmulatedBoard) -> Vec<String> {
        VARIANTS.iter().filter(|v| self.image(board, v).is_file()).map(|v| v.to_string()).collect()
    }

    /// Boards a run can be started on: emulated ones whose image is built,
    /// when QEMU is installed.
    pub fn list(&self) -> Vec<Board> {
        let busy = self.busy.lock().map(|b| b.clone()).unwrap_or_default();
        if find_on_path(QEMU).is_none() {
            return Vec::new();
        }
        EMULATED
            .iter()
            .filter(|b| self.image(b, DEFAULT_VARIANT).is_file())
            .map(|b| Board {
                id: b.id.into(),
                name: b.name.into(),
                kind: BoardKind::Emulated,
                available: !busy.contains(b.id),
                variants: self.variants(b),
            })
            .collect()
    }

    /// Why each known board is not listed, for `pqbench boards`.
    pub fn missing(&self) -> Vec<BoardError> {
        if find_on_path(QEMU).is_none() {
            return vec![BoardError::NoQemu];
        }
        EMULATED
            .iter()
            .map(|b| self.image(b, DEFAULT_VARIANT))
            .filter(|image| !image.is_file())
            .map(BoardError::MissingImage)
            .collect()
    }

    /// Takes the board for a run, or says why not.
    pub fn reserve(
        &self,
        id: &str,
        variant: &str,
    ) -> Result<(Reservation, &'static EmulatedBoard, PathBuf), BoardError> {
        let board = EMULATED.iter().find(|b| b.id == id).ok_or_else(|| BoardError::Unknown(id.into()))?;
        if !VARIANTS.contains(&variant) {
            return Err(BoardError::UnknownVariant(variant.into()));
        }
        let image = self.image(board, variant);
        if !image.is_file() {
            return Err(BoardError::MissingImage(image));
        }
        if find_on_path(QEMU).is_none() {
            return Err(BoardError::NoQemu);
        }
        let mut busy = self.busy.lock().map_err(|_| BoardError::Busy(id.into()))?;
        if !busy.insert(id.to_string()) {
            return Err(BoardError::Busy(id.into()));
        }
        Ok((Reservation { id: id.into(), busy: self.busy.clone() }, board, image))
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

impl Emulator {
    /// Starts the board under QEMU with a deterministic clock: `-icount
    /// shift=0` makes every run of one image count the same ticks.
    pub async fn start(board: &EmulatedBoard, image: &Path) -> Result<Emulator, BoardError> {
        let mut command = Command::new(QEMU);
        command.args(["-machine", board.machine]);
        if let Some(cpu) = board.cpu {
            command.args(["-cpu", cpu]);
        }
        command.args(["-nographic", "-monitor", "none", "-icount", "shift=0"]);
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
