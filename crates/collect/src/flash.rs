//! Writing this host's image to a board on a serial port, through the debug
//! probe on the same ST-LINK, and confirming over the port that the board
//! now runs it: `pqbench flash`, the API's flash and the dashboard's button.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pqbench_boards::{Transport, Variant};

use crate::boards::{BoardError, Boards};
use crate::image::FirmwareImage;
use crate::ports::{self, Answer};

/// How long a flashed board has to boot and answer `hello`.
pub const CONFIRM_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum FlashError {
    #[error("no board {0:?} on a serial port here; `pqbench boards` lists them")]
    Unknown(String),
    #[error(
        "{0}: which board this is is not known (no pqbench firmware answered): name it with \
         --serial PORT=BOARD"
    )]
    UnknownBoard(String),
    #[error("{board}: the {chip} cannot be flashed by probe-rs")]
    NotFlashable { board: String, chip: String },
    #[error("{board}: no debug probe with the USB serial number of {port} is attached")]
    NoProbe { board: String, port: String },
    #[error(transparent)]
    Board(#[from] BoardError),
    #[cfg(feature = "probe-rs")]
    #[error(transparent)]
    Probe(#[from] crate::probe::ProbeError),
    #[error("{0}")]
    Image(#[from] crate::image::ImageError),
    #[error("flashed {image}, but {why}")]
    NotConfirmed { image: String, why: String },
}

/// A board flashed and confirmed.
#[derive(Debug, Clone, PartialEq)]
pub struct Flashed {
    pub board: String,
    pub image: PathBuf,
    /// The build id the board said after its restart: the image's.
    pub build_id: Option<String>,
}

/// Flashes `variant` of the board on serial board `id`'s port.
pub async fn flash(boards: &Boards, id: &str, variant: &str) -> Result<Flashed, FlashError> {
    let watch = boards.serial_watch().ok_or_else(|| FlashError::Unknown(id.into()))?;
    let watched = watch.port(id).ok_or_else(|| FlashError::Unknown(id.into()))?;
    let board = watched.board.ok_or_else(|| FlashError::UnknownBoard(id.into()))?;
    let named = Variant::named(variant).ok_or_else(|| BoardError::UnknownVariant(variant.into()))?;
    if !board.offers(variant) || named.transport != Transport::Text {
        return Err(BoardError::VariantNotOffered {
            board: id.into(),
            variant: variant.into(),
            offered: board
                .variants()
                .filter(|v| v.transport == Transport::Text)
                .map(|v| v.name)
                .collect::<Vec<_>>()
                .join(", "),
        }
        .into());
    }
    let chip = board
        .probe_rs_chip()
        .ok_or_else(|| FlashError::NotFlashable { board: id.into(), chip: board.firmware.into() })?;
    let path = boards.built(board, variant, boards.firmware_dir().join(board.image_file(named)))?;
    let loading = path.clone();
    let image = tokio::task::spawn_blocking(move || FirmwareImage::load(&loading))
        .await
        .map_err(|e| FlashError::NotConfirmed { image: path_text(&path), why: e.to_string() })??;
    let build_id = image.build_id.clone();
    let _held = boards.hold(id)?;
    write(boards, id, &watched.port, chip, Arc::new(image)).await?;
    watch.image_rebuilt(&path);
    let hello = confirm(&watched.port.path, build_id.as_deref(), CONFIRM_WAIT)
        .await
        .map_err(|why| FlashError::NotConfirmed { image: path_text(&path), why: why.to_string() })?;
    watch.answered(id, &watched.port, Answer::Firmware(hello)).await;
    Ok(Flashed { board: id.into(), image: path, build_id })
}

fn path_text(path: &std::path::Path) -> String {
    path.display().to_string()
}

#[cfg(feature = "probe-rs")]
async fn write(
    boards: &Boards,
    id: &str,
    port: &ports::FoundPort,
    chip: &'static str,
    image: Arc<FirmwareImage>,
) -> Result<(), FlashError> {
    use crate::probe::{self, Flash};
    let serials: Vec<String> = probe::attached().into_iter().map(|p| p.serial).collect();
    let serial = ports::paired_probe(port, &serials)
        .ok_or_else(|| FlashError::NoProbe { board: id.into(), port: port.path.display().to_string() })?
        .to_string();
    let connection = boards.probe_connection(&serial);
    let written = tokio::task::spawn_blocking(move || {
        let opened = probe::open(&serial)?;
        probe::write_image(opened, &serial, chip, image, Flash::Write, connection)
    })
    .await;
    match written {
        Ok(result) => Ok(result?),
        Err(e) => {
            Err(FlashError::NotConfirmed { image: "the image".into(), why: format!("probe-rs failed: {e}") })
        }
    }
}

#[cfg(not(feature = "probe-rs"))]
async fn write(
    _boards: &Boards,
    id: &str,
    _port: &ports::FoundPort,
    _chip: &'static str,
    _image: Arc<FirmwareImage>,
) -> Result<(), FlashError> {
    Err(BoardError::NoProbeSupport(id.into()).into())
}

/// Asks the board on `port` until it says build `expected` (it restarts
/// after a flash, so the first answers may be silence), for at most `wait`.
pub async fn confirm(
    port: &std::path::Path,
    expected: Option<&str>,
    wait: Duration,
) -> Result<pqbench_wire::Hello, ConfirmError> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut last = Heard::Nothing;
    while tokio::time::Instant::now() < deadline {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let heard = match ports::identify(port, left.min(ports::IDENTIFY_WAIT)).await {
            Answer::Firmware(hello) => {
                let said = hello.get("build_id").map(String::from);
                if expected.is_none() || said.as_deref() == expected {
                    return Ok(hello);
                }
                Heard::OtherBuild { said, expected: expected.map(String::from) }
            }
            Answer::NoFirmware => Heard::Nothing,
            Answer::Busy(holder) => Heard::Busy { holder },
            Answer::Failed(why) => Heard::Failed(why),
        };
        if heard.rank() >= last.rank() {
            last = heard;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(ConfirmError { wait, heard: last, port: port.into() })
}

/// Why a board was not confirmed to run the image: the most telling
/// answer its port gave within the wait.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("after {} s {heard} on {}", wait.as_secs(), port.display())]
pub struct ConfirmError {
    pub wait: Duration,
    pub heard: Heard,
    pub port: PathBuf,
}

/// What a port answered, short of the build expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Heard {
    #[error("no pqbench firmware answered")]
    Nothing,
    #[error("the port is held by another program{}", holder_text(holder))]
    Busy { holder: Option<String> },
    #[error("the board says build {}, not {}", or_none(said), or_none(expected))]
    OtherBuild { said: Option<String>, expected: Option<String> },
    #[error("{0}")]
    Failed(String),
}

impl Heard {
    /// How telling an answer is: another build beats a port that was busy
    /// or failed, which beats silence (a board still restarting, or an
    /// attempt cut short by the deadline).
    fn rank(&self) -> u8 {
        match self {
            Heard::Nothing => 0,
            Heard::Busy { .. } | Heard::Failed(_) => 1,
            Heard::OtherBuild { .. } => 2,
        }
    }
}

fn holder_text(holder: &Option<String>) -> String {
    holder.as_ref().map(|h| format!(" ({h})")).unwrap_or_default()
}

fn or_none(build: &Option<String>) -> &str {
    build.as_deref().unwrap_or("(none)")
}
