//! The serial ports this host watches: scanned every second (serial
//! enumeration has no hot-plug events), each new port asked `hello` once
//! on a task of its own, so listing boards never waits on a port. A port
//! that goes away ends the run on it ("unplugged").

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pqbench_boards::{Board as CatalogueBoard, Transport, VARIANTS};
use pqbench_wire::Hello;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::image::FirmwareImage;
use crate::ports::{self, Answer, FoundPort, PortOptions};

/// How often the ports are scanned: a board plugged in or out shows within
/// this and the time its `hello` takes.
pub const SCAN_EVERY: Duration = Duration::from_secs(1);
/// A port where no firmware answered is asked again this often: a board
/// flashed by another tool meanwhile shows up without a replug.
const ASK_AGAIN: Duration = Duration::from_secs(15);
/// Ports asked at once: each holds a file and a task for up to
/// [`ports::IDENTIFY_WAIT`].
const ASKING_AT_ONCE: usize = 4;

/// A watched port and what is known of it.
#[derive(Debug, Clone)]
pub struct WatchedPort {
    pub port: FoundPort,
    /// None while it is being asked.
    pub answer: Option<Answer>,
    /// The catalogue's board, as its firmware said (or the user named it).
    pub board: Option<&'static CatalogueBoard>,
    /// Why its firmware is not this host's image of its board, if it is not.
    pub differs: Option<String>,
    asked_at: Option<Instant>,
    /// Cancelled when the port goes away.
    unplugged: CancellationToken,
}

impl WatchedPort {
    pub fn hello(&self) -> Option<&Hello> {
        match &self.answer {
            Some(Answer::Firmware(hello)) => Some(hello),
            _ => None,
        }
    }

    /// Why a run cannot start on it now, if it cannot.
    pub fn refusal(&self) -> Option<String> {
        let path = self.port.path.display();
        match &self.answer {
            None => Some(format!("asking {path} who it is")),
            Some(Answer::Firmware(_)) => None,
            Some(Answer::NoFirmware) => Some(format!("no pqbench firmware answered on {path}")),
            Some(Answer::Busy(Some(holder))) => {
                Some(format!("busy: held by another program ({holder}) on {path}"))
            }
            Some(Answer::Busy(None)) => Some(format!("busy: held by another program on {path}")),
            Some(Answer::Failed(why)) => Some(why.clone()),
        }
    }

    /// What to tell a person of the clock its firmware says it runs at,
    /// when that is not its board's usual one (the catalogue's sentence,
    /// e.g. no 8 MHz clock from the ST-LINK): figures measured there are
    /// not the board's usual ones.
    pub fn clock_note(&self) -> Option<String> {
        let source = self.hello()?.get("clock_source")?;
        self.board?.clock_note(source).map(|note| format!("clock: {note}"))
    }

    pub fn unplugged(&self) -> CancellationToken {
        self.unplugged.clone()
    }
}

/// The watch itself: shared by the board list and the scanning task.
pub struct SerialWatch {
    options: PortOptions,
    firmware_dir: PathBuf,
    ports: Mutex<BTreeMap<String, WatchedPort>>,
    asking: Arc<Semaphore>,
    /// Board ids reserved for a run: not asked while the run has them.
    busy: Arc<Mutex<HashSet<String>>>,
    /// Build ids of this host's images, by file, read once.
    build_ids: Mutex<HashMap<PathBuf, Option<String>>>,
}

impl SerialWatch {
    pub fn new(options: PortOptions, firmware_dir: PathBuf, busy: Arc<Mutex<HashSet<String>>>) -> Arc<Self> {
        Arc::new(SerialWatch {
            options,
            firmware_dir,
            ports: Mutex::default(),
            asking: Arc::new(Semaphore::new(ASKING_AT_ONCE)),
            busy,
            build_ids: Mutex::default(),
        })
    }

    /// Scans every [`SCAN_EVERY`] until `stop`. Needs a tokio runtime.
    pub fn spawn(self: &Arc<Self>, stop: CancellationToken) {
        let watch = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SCAN_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = every.tick() => drop(watch.scan().await),
                }
            }
        });
    }

    /// One scan: ports gone end their runs and leave the list, new ones
    /// (and ones that did not answer a while ago) are asked on their own
    /// tasks. Returns the tasks started, for a caller that waits (`pqbench
    /// boards`).
    pub async fn scan(self: &Arc<Self>) -> Vec<tokio::task::JoinHandle<()>> {
        let options = self.options.clone();
        let found = tokio::task::spawn_blocking(move || ports::scan(&options)).await.unwrap_or_default();
        let found: BTreeMap<String, FoundPort> = found.into_iter().map(|p| (p.board_id(), p)).collect();
        let busy = self.busy.lock().map(|b| b.clone()).unwrap_or_default();
        let mut ask = Vec::new();
        {
            let mut ports = self.ports.lock().unwrap_or_else(PoisonError::into_inner);
            ports.retain(|id, watched| {
                let stays = found.get(id).is_some_and(|port| port.device == watched.port.device);
                if !stays {
                    tracing::info!(board = id, port = %watched.port.path.display(), "unplugged");
                    watched.unplugged.cancel();
                }
                stays
            });
            for (id, port) in found {
                let watched = ports.entry(id.clone()).or_insert_with(|| {
                    tracing::info!(board = id, port = %port.path.display(), "plugged in");
                    WatchedPort {
                        board: port.named_board.and_then(CatalogueBoard::by_firmware),
                        port: port.clone(),
                        answer: None,
                        differs: None,
                        asked_at: None,
                        unplugged: CancellationToken::new(),
                    }
                });
                let stale = match (&watched.answer, watched.asked_at) {
                    (_, None) => true,
                    (Some(Answer::Firmware(_)), _) | (None, _) => false,
                    (Some(_), Some(at)) => at.elapsed() > ASK_AGAIN,
                };
                if stale && !busy.contains(&id) {
                    watched.asked_at = Some(Instant::now());
                    ask.push((id, port));
                }
            }
        }
        ask.into_iter().map(|(id, port)| self.ask(id, port)).collect()
    }

    fn ask(self: &Arc<Self>, id: String, port: FoundPort) -> tokio::task::JoinHandle<()> {
        let watch = self.clone();
        tokio::spawn(async move {
            let Ok(_permit) = watch.asking.clone().acquire_owned().await else { return };
            let answer = ports::identify(&port.path, ports::IDENTIFY_WAIT).await;
            watch.answered(&id, &port, answer).await;
        })
    }

    /// Records what a port answered (as after a flash, which asks itself).
    pub async fn answered(&self, id: &str, port: &FoundPort, answer: Answer) {
        let named = port.named_board.and_then(CatalogueBoard::by_firmware);
        let board = match &answer {
            Answer::Firmware(hello) => hello.board().and_then(CatalogueBoard::by_id).or(named),
            _ => named,
        };
        let differs = match (&answer, board) {
            (Answer::Firmware(hello), Some(board)) => self.differs(board, hello).await,
            _ => None,
        };
        let mut ports = self.ports.lock().unwrap_or_else(PoisonError::into_inner);
        // Unplugged meanwhile, or replugged as another device: drop it.
        if let Some(watched) = ports.get_mut(id).filter(|w| w.port.device == port.device) {
            match &answer {
                Answer::Firmware(hello) => tracing::info!(
                    board = id,
                    "pqbench firmware answered: {} build {}",
                    hello.board().unwrap_or("(no board)"),
                    hello.get("build_id").unwrap_or("(none)")
                ),
                other => tracing::info!(board = id, "no pqbench firmware: {other:?}"),
            }
            watched.answer = Some(answer);
            watched.board = board;
            watched.differs = differs;
        }
    }

    /// Whether the board runs one of this host's images of it; if not, why.
    async fn differs(&self, board: &'static CatalogueBoard, hello: &Hello) -> Option<String> {
        let said = hello.get("build_id")?.to_string();
        let images: Vec<PathBuf> = VARIANTS
            .iter()
            .filter(|v| v.transport == Transport::Text && board.offers(v.name))
            .map(|v| self.firmware_dir.join(board.image_file(v)))
            .collect();
        let mut ours = Vec::new();
        for image in images {
            if let Some(id) = self.build_id(&image).await {
                ours.push(id);
            }
        }
        if ours.is_empty() || ours.contains(&said) {
            return None;
        }
        Some(format!(
            "its firmware differs from this build (the board runs build {said}; this host's {} image is {})",
            board.firmware, ours[0]
        ))
    }

    async fn build_id(&self, image: &Path) -> Option<String> {
        if let Some(known) = self.build_ids.lock().ok()?.get(image) {
            return known.clone();
        }
        let path = image.to_path_buf();
        let id = tokio::task::spawn_blocking(move || FirmwareImage::build_id_of(&path).ok().flatten())
            .await
            .ok()
            .flatten();
        self.build_ids.lock().ok()?.insert(image.to_path_buf(), id.clone());
        id
    }

    /// Forgets what an image's build id was (it was built again).
    pub fn image_rebuilt(&self, image: &Path) {
        if let Ok(mut ids) = self.build_ids.lock() {
            ids.remove(image);
        }
    }

    /// The watched ports now, by board id.
    pub fn ports(&self) -> Vec<(String, WatchedPort)> {
        let ports = self.ports.lock().unwrap_or_else(PoisonError::into_inner);
        ports.iter().map(|(id, watched)| (id.clone(), watched.clone())).collect()
    }

    pub fn port(&self, id: &str) -> Option<WatchedPort> {
        self.ports.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned()
    }
}

impl SerialWatch {
    /// The watched ports as boards: what answered on each, whether a run
    /// can start, and the probe on the same ST-LINK.
    pub fn boards(
        &self,
        busy: &HashSet<String>,
        probes: &[crate::boards::AttachedProbe],
        firmware_dir: &Path,
    ) -> Vec<pqbench_api::Board> {
        let serials: Vec<String> = probes.iter().map(|p| p.serial.clone()).collect();
        self.ports()
            .into_iter()
            .map(|(id, watched)| {
                let path = watched.port.path.display().to_string();
                let probe = ports::paired_probe(&watched.port, &serials).map(String::from);
                let chip = watched.board.and_then(|b| b.probe_rs_chip());
                let image = watched.board.and_then(|b| {
                    let default = pqbench_boards::Variant::named(pqbench_boards::DEFAULT_VARIANT)?;
                    Some(firmware_dir.join(b.image_file(default)))
                });
                let can_flash = cfg!(feature = "probe-rs")
                    && probe.is_some()
                    && chip.is_some()
                    && image.is_some_and(|i| i.is_file())
                    && !busy.contains(&id);
                let refusal = watched.refusal();
                // Why it cannot run, or that its firmware is not this
                // host's; and, either way, a clock it fell back to.
                let notes: Vec<String> = [refusal.clone().or(watched.differs.clone()), watched.clock_note()]
                    .into_iter()
                    .flatten()
                    .collect();
                let name = match (watched.board, watched.hello()) {
                    (Some(board), Some(_)) => format!("{} on {path}", board.name),
                    (None, Some(hello)) => {
                        format!("{} on {path}", hello.board().unwrap_or("a pqbench board"))
                    }
                    (_, None) => format!("serial port {path}"),
                };
                pqbench_api::Board {
                    name,
                    kind: pqbench_api::BoardKind::Serial,
                    available: refusal.is_none() && !busy.contains(&id),
                    variants: if refusal.is_none() {
                        vec![pqbench_boards::DEFAULT_VARIANT.into()]
                    } else {
                        Vec::new()
                    },
                    chip: chip.map(String::from),
                    note: (!notes.is_empty()).then(|| notes.join("; ")),
                    host: None,
                    connected: true,
                    port: Some(path),
                    probe,
                    can_flash,
                    id,
                    // Boards::list says it, from the catalogue's board.
                    building: None,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port where a board's firmware answered `hello` with these fields.
    fn answered(fields: &[(&str, &str)]) -> WatchedPort {
        let hello = Hello { fields: fields.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect() };
        WatchedPort {
            port: FoundPort {
                path: "/dev/ttyACM0".into(),
                device: "/dev/ttyACM0".into(),
                usb: None,
                named: false,
                named_board: None,
            },
            board: hello.board().and_then(CatalogueBoard::by_id),
            answer: Some(Answer::Firmware(hello)),
            differs: None,
            asked_at: None,
            unplugged: CancellationToken::new(),
        }
    }

    #[test]
    fn a_board_on_a_fallback_clock_says_why_and_one_on_its_own_says_nothing() {
        let f446 = |source| answered(&[("board", "nucleo-f446ze"), ("clock_source", source)]);
        let note = f446("hsi-pll").clock_note().expect("a NUCLEO without the ST-LINK's clock");
        assert!(note.starts_with("clock: no 8 MHz clock from the ST-LINK (HSE did not start)"), "{note}");
        assert_eq!(f446("hse-bypass").clock_note(), None);
        // The U5's PLL runs from the internal oscillator as a matter of course.
        let u585 = answered(&[("board", "b-u585i-iot02a"), ("clock_source", "hsi-pll")]);
        assert_eq!(u585.clock_note(), None);
        // Firmware from before the field says nothing of its clock.
        assert_eq!(answered(&[("board", "nucleo-f446ze")]).clock_note(), None);
    }
}
