//! The boards this server can reach, and how a run reaches each.
//!
//! An emulated board is data: a QEMU machine, its CPU, which `-serial`
//! carries the board's console, and the firmware image built for it. A run
//! on it starts QEMU with that UART on a pseudo-terminal and talks to it
//! through `tokio-serial`, exactly as to a NUCLEO's virtual COM port.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pqbench_api::{Board, BoardKind};

use crate::building;
pub use crate::emulator::{Emulator, EmulatorOptions};
use crate::ports::{PortOptions, SERIAL_PREFIX};
#[cfg(feature = "probe-rs")]
pub use crate::probe::AttachedProbe;
use crate::timing_model::TimingModelPlugin;
use crate::watch::SerialWatch;

/// A probe attached now (none without probe support).
#[cfg(not(feature = "probe-rs"))]
pub struct AttachedProbe {
    pub serial: String,
}

use pqbench_boards::{BOARDS, Transport};
/// The boards, their machines, chips and images are the catalogue's
/// (`pqbench-boards`); this module is how a host reaches them.
pub use pqbench_boards::{
    Board as CatalogueBoard, DEFAULT_VARIANT, PROBE_VARIANT, QemuMachine, VARIANTS, Variant,
};

/// The boards the host runs under QEMU itself.
pub fn emulated() -> impl Iterator<Item = (&'static CatalogueBoard, &'static QemuMachine)> {
    BOARDS.iter().filter_map(|board| Some((board, board.qemu()?)))
}

pub use crate::probe_wiring::{EVERY_PROBE, ProbeConnection, ProbeWiring};

/// The boards a debug probe can be wired to.
pub(crate) fn probe_boards() -> impl Iterator<Item = &'static CatalogueBoard> {
    BOARDS.iter().filter(|board| board.probe_rs_chip().is_some())
}

/// The file of a board's default image, under the firmware directory.
pub fn default_image(board: &CatalogueBoard) -> String {
    // The catalogue's own test holds every board to having its default.
    let default = Variant::named(DEFAULT_VARIANT).map(|v| board.image_file(v));
    default.unwrap_or_else(|| format!("{}.elf", board.firmware))
}

fn variant_names() -> String {
    VARIANTS.iter().map(|v| v.name).collect::<Vec<_>>().join(", ")
}

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
    #[error("no build variant {0:?}: the variants are {variants}", variants = variant_names())]
    UnknownVariant(String),
    #[error("board {board} offers only the {offered} build, not {variant:?}")]
    VariantNotOffered { board: String, variant: String, offered: String },
    #[error("board {0:?} is busy with another run")]
    Busy(String),
    #[error("the firmware image {0} is missing: build it with `cargo xtask build`")]
    MissingImage(PathBuf),
    /// Missing, but this host's build is making it (`cargo xtask dev`).
    #[error("{0}")]
    ImageBuilding(String),
    #[error(
        "qemu-system-arm is not installed (or {} names no file): `cargo xtask setup` installs it",
        crate::qemu::QEMU_VAR
    )]
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
    #[error(
        "--probe-speed {0:?}: expected KHZ or SERIAL=KHZ, with KHZ a whole number of kHz from 1 to 100000"
    )]
    BadProbeSpeed(String),
    /// A serial board that cannot run now: no firmware answered, the port
    /// is busy, or it is still being asked.
    #[error("{board}: {why}")]
    NotReady { board: String, why: String },
}

fn probe_board_names() -> String {
    probe_boards().map(|b| b.firmware).collect::<Vec<_>>().join(", ")
}

/// What a reserved run drives.
pub enum Target {
    Emulated {
        board: &'static CatalogueBoard,
        machine: &'static QemuMachine,
        image: PathBuf,
        framing: Framing,
        options: EmulatorOptions,
    },
    /// A board on a serial port, running the firmware it has.
    Serial {
        port: PathBuf,
        /// As its firmware said.
        board: Option<&'static CatalogueBoard>,
        /// Cancelled when the port goes away.
        unplugged: tokio_util::sync::CancellationToken,
    },
    Probe {
        serial: String,
        board: &'static CatalogueBoard,
        /// probe-rs's name for the chip.
        chip: &'static str,
        image: PathBuf,
        connection: ProbeConnection,
    },
}

/// The boards, and which of them are running now.
pub struct Boards {
    firmware_dir: PathBuf,
    #[cfg_attr(not(feature = "probe-rs"), allow(dead_code))]
    wiring: ProbeWiring,
    busy: Arc<Mutex<HashSet<String>>>,
    /// Where each emulator's QEMU monitor listens, if anywhere.
    monitors: Option<PathBuf>,
    /// The serial ports watched for boards, if any are.
    watch: Option<Arc<SerialWatch>>,
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
        if !cfg!(feature = "probe-rs") && !wiring.is_empty() {
            tracing::warn!("probes are wired with --probe, but this pqbench is built without probe support");
        }
        Boards { firmware_dir, wiring, busy: Arc::default(), monitors: None, watch: None }
    }

    /// Watches serial ports for boards (see [`crate::ports`]); the scanning
    /// starts with [`SerialWatch::spawn`] on [`Boards::serial_watch`].
    pub fn with_serial_ports(mut self, options: PortOptions) -> Self {
        self.watch = Some(SerialWatch::new(options, self.firmware_dir.clone(), self.busy.clone()));
        self
    }

    pub fn serial_watch(&self) -> Option<&Arc<SerialWatch>> {
        self.watch.as_ref()
    }

    pub fn firmware_dir(&self) -> &Path {
        &self.firmware_dir
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

    /// The image of a build variant of `board`, if it is made for it.
    fn image(&self, board: &CatalogueBoard, variant: &str) -> Option<PathBuf> {
        let variant = Variant::named(variant).filter(|v| board.offers(v.name))?;
        Some(self.firmware_dir.join(board.image_file(variant)))
    }

    fn has_image(&self, board: &CatalogueBoard, variant: &str) -> bool {
        self.image(board, variant).is_some_and(|image| image.is_file())
    }

    /// `image` of `board`'s `variant`, or why a run cannot have it: being
    /// built, or missing.
    pub(crate) fn built(
        &self,
        board: &CatalogueBoard,
        variant: &str,
        image: PathBuf,
    ) -> Result<PathBuf, BoardError> {
        if image.is_file() {
            return Ok(image);
        }
        let builds = building::in_progress(&self.firmware_dir);
        let pending =
            builds.zip(Variant::named(variant)).and_then(|(builds, v)| building::pending(&builds, board, v));
        Err(pending.map_or(BoardError::MissingImage(image), BoardError::ImageBuilding))
    }

    /// The variants of an emulated board whose images are built.
    fn variants(&self, board: &CatalogueBoard) -> Vec<String> {
        board.variants.iter().filter(|v| self.has_image(board, v)).map(|v| v.to_string()).collect()
    }

    /// Boards a run can be started on: emulated ones whose image is built,
    /// when QEMU is installed, and the probes attached now. Probing USB
    /// blocks: call it off the async runtime.
    ///
    /// An emulated board whose default image is still being built is
    /// listed, not available, with how far the build is; every board whose
    /// images are being built says which (`building`).
    pub fn list(&self) -> Vec<Board> {
        let busy = self.busy.lock().map(|b| b.clone()).unwrap_or_default();
        let builds = building::in_progress(&self.firmware_dir);
        let building = |board: &CatalogueBoard| builds.as_ref().and_then(|b| building::progress(b, board));
        let mut boards = Vec::new();
        if crate::qemu::program().is_some() {
            for (board, qemu) in emulated() {
                let building = building(board);
                let built = self.has_image(board, DEFAULT_VARIANT);
                let coming = building.as_ref().is_some_and(|b| b.images.contains(&default_image(board)));
                if !built && !coming {
                    continue;
                }
                boards.push(Board {
                    id: qemu.id.into(),
                    name: board.name.into(),
                    kind: BoardKind::Emulated,
                    available: built && !busy.contains(qemu.id),
                    variants: self.variants(board),
                    chip: None,
                    note: (!built).then(|| building.as_ref().map(building::note)).flatten(),
                    host: None,
                    connected: true,
                    port: None,
                    probe: None,
                    can_flash: false,
                    building,
                });
            }
        }
        let probes = self.attached_probes();
        let mut others = Vec::new();
        if let Some(watch) = &self.watch {
            others.extend(watch.boards(&busy, &probes, &self.firmware_dir));
        }
        others.extend(self.probes(&busy, &probes));
        // A serial or probe board's images are its catalogue board's.
        for board in &mut others {
            board.building = self.catalogue_board_of(&board.id).and_then(building);
        }
        boards.extend(others);
        boards
    }

    /// The catalogue's board behind a serial or probe board's id, as its
    /// firmware said or its probe is wired.
    fn catalogue_board_of(&self, id: &str) -> Option<&'static CatalogueBoard> {
        match id.strip_prefix(PROBE_PREFIX) {
            Some(serial) => self.wired(serial),
            None => self.watch.as_ref()?.port(id)?.board,
        }
    }

    /// How to connect to the probe with this serial.
    pub fn probe_connection(&self, serial: &str) -> ProbeConnection {
        self.wiring.connection(serial)
    }

    /// The serial numbers of the probes attached now.
    fn attached_probes(&self) -> Vec<AttachedProbe> {
        #[cfg(feature = "probe-rs")]
        return crate::probe::attached();
        #[cfg(not(feature = "probe-rs"))]
        Vec::new()
    }

    /// The board a probe is wired to: as `--probe SERIAL=BOARD` says, or as
    /// the firmware on the serial port of the same ST-LINK says.
    #[cfg_attr(not(feature = "probe-rs"), allow(dead_code))]
    fn wired(&self, probe_serial: &str) -> Option<&'static CatalogueBoard> {
        self.wiring.board(probe_serial).or_else(|| {
            let watch = self.watch.as_ref()?;
            let serials = [probe_serial.to_string()];
            watch
                .ports()
                .into_iter()
                .find(|(_, w)| crate::ports::paired_probe(&w.port, &serials).is_some())
                .and_then(|(_, w)| w.board.filter(|b| b.probe_rs_chip().is_some()))
        })
    }

    #[cfg(feature = "probe-rs")]
    fn probes(&self, busy: &HashSet<String>, attached: &[AttachedProbe]) -> Vec<Board> {
        attached
            .iter()
            .map(|probe| {
                let id = format!("{PROBE_PREFIX}{}", probe.serial);
                let wired = self.wired(&probe.serial);
                let image = wired.and_then(|b| self.image(b, PROBE_VARIANT));
                let note = if !probe.accessible {
                    Some(crate::probe::ProbeError::PermissionDenied(probe.serial.clone()).to_string())
                } else {
                    match (wired, &image) {
                        (None, _) => {
                            Some(BoardError::ProbeNotWired { serial: probe.serial.clone() }.to_string())
                        }
                        (Some(board), Some(image)) if !image.is_file() => {
                            self.built(board, PROBE_VARIANT, image.clone()).err().map(|e| e.to_string())
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
                    chip: wired.and_then(|b| b.probe_rs_chip()).map(String::from),
                    note,
                    id,
                    host: None,
                    connected: true,
                    port: None,
                    probe: None,
                    can_flash: false,
                    building: None,
                }
            })
            .collect()
    }

    #[cfg(not(feature = "probe-rs"))]
    fn probes(&self, _busy: &HashSet<String>, _attached: &[AttachedProbe]) -> Vec<Board> {
        Vec::new()
    }

    /// Why each known board is not listed, for `pqbench boards`.
    pub fn missing(&self) -> Vec<BoardError> {
        let mut missing = Vec::new();
        if crate::qemu::program().is_none() {
            missing.push(BoardError::NoQemu);
        } else {
            missing.extend(
                // One being built is listed, as building.
                emulated()
                    .filter_map(|(b, _)| {
                        self.built(b, DEFAULT_VARIANT, self.image(b, DEFAULT_VARIANT)?).err()
                    })
                    .filter(|error| matches!(error, BoardError::MissingImage(_))),
            );
        }
        if !cfg!(feature = "probe-rs") {
            missing.push(BoardError::NoProbeSupport("boards on a debug probe".into()));
        }
        missing
    }

    /// Holds board `id` (for a flash): no run starts on it meanwhile.
    pub fn hold(&self, id: &str) -> Result<Reservation, BoardError> {
        let mut busy = self.busy.lock().map_err(|_| BoardError::Busy(id.into()))?;
        if !busy.insert(id.to_string()) {
            return Err(BoardError::Busy(id.into()));
        }
        Ok(Reservation { id: id.into(), busy: self.busy.clone() })
    }

    /// Takes the board for a run, or says why not.
    pub fn reserve(&self, id: &str, variant: &str) -> Result<(Reservation, Target), BoardError> {
        let Some(named) = Variant::named(variant) else {
            return Err(BoardError::UnknownVariant(variant.into()));
        };
        let target = match id.strip_prefix(PROBE_PREFIX) {
            Some(serial) => self.probe_target(serial, variant)?,
            None if id.starts_with(SERIAL_PREFIX) => self.serial_target(id, variant)?,
            None => {
                let (board, machine) =
                    CatalogueBoard::emulated(id).ok_or_else(|| BoardError::Unknown(id.into()))?;
                let image = self.image(board, variant).ok_or_else(|| BoardError::VariantNotOffered {
                    board: id.into(),
                    variant: variant.into(),
                    offered: board.variants.join(", "),
                })?;
                // Made for this board, but not built (yet, or it did not fit).
                let image = self.built(board, variant, image)?;
                if crate::qemu::program().is_none() {
                    return Err(BoardError::NoQemu);
                }
                let framing = if named.transport == Transport::Text { Framing::Text } else { Framing::Defmt };
                let monitor = self.monitors.as_ref().map(|dir| dir.join(format!("{}.monitor", machine.id)));
                // The M4's costs say nothing of another core's cycles.
                let timing_model = machine
                    .m4_timing_model
                    .then(|| TimingModelPlugin::beside(&self.firmware_dir, &image))
                    .flatten();
                let options = EmulatorOptions { monitor, timing_model };
                Target::Emulated { board, machine, image, framing, options }
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
        let board = self.wired(serial).ok_or_else(|| BoardError::ProbeNotWired { serial: serial.into() })?;
        if variant != DEFAULT_VARIANT {
            return Err(BoardError::VariantNotOffered {
                board: format!("{PROBE_PREFIX}{serial}"),
                variant: variant.into(),
                offered: DEFAULT_VARIANT.into(),
            });
        }
        let image = self
            .image(board, PROBE_VARIANT)
            .ok_or_else(|| BoardError::ProbeNotWired { serial: serial.into() })?;
        let image = self.built(board, PROBE_VARIANT, image)?;
        let chip =
            board.probe_rs_chip().ok_or_else(|| BoardError::ProbeNotWired { serial: serial.into() })?;
        let connection = self.wiring.connection(serial);
        Ok(Target::Probe { serial: serial.into(), board, chip, image, connection })
    }

    #[cfg(not(feature = "probe-rs"))]
    fn probe_target(&self, serial: &str, _variant: &str) -> Result<Target, BoardError> {
        Err(BoardError::NoProbeSupport(format!("{PROBE_PREFIX}{serial}")))
    }
}

impl Boards {
    /// A board on a serial port: it runs whatever firmware it has (the
    /// default build's settings), if pqbench firmware answered there.
    fn serial_target(&self, id: &str, variant: &str) -> Result<Target, BoardError> {
        let watched =
            self.watch.as_ref().and_then(|w| w.port(id)).ok_or_else(|| BoardError::Unknown(id.into()))?;
        if let Some(why) = watched.refusal() {
            return Err(BoardError::NotReady { board: id.into(), why });
        }
        if variant != DEFAULT_VARIANT {
            return Err(BoardError::VariantNotOffered {
                board: id.into(),
                variant: variant.into(),
                offered: format!("{DEFAULT_VARIANT} (the firmware it has; flash another build first)"),
            });
        }
        Ok(Target::Serial {
            port: watched.port.path.clone(),
            board: watched.board,
            unplugged: watched.unplugged(),
        })
    }
}
