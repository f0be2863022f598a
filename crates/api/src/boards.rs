//! The boards a server can reach, and the request that starts a run on one.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// A board the server can reach now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// A stable slug: `qemu-mps2-an386`, `serial:/dev/ttyACM0`, ...
    pub id: String,
    pub name: String,
    pub kind: BoardKind,
    /// Whether a run can start now (false while one is running).
    pub available: bool,
    /// The firmware builds a run can choose (`opt-s`, the default, `opt-z`,
    /// `opt-3`): the same suite at other optimisation levels.
    #[serde(default)]
    pub variants: Vec<String>,
    /// The chip a run is asked to use (a probe board: probe-rs's name).
    #[serde(default)]
    pub chip: Option<String>,
    /// Why the board cannot run now, or what to know before it does.
    #[serde(default)]
    pub note: Option<String>,
    /// The agent host the board is attached to (`pqbench agent`); null for
    /// the server's own boards. An agent's board's `id` is `host/board`.
    #[serde(default)]
    pub host: Option<String>,
    /// Whether the board's host is connected now (always, for the server's
    /// own boards). A host that went away keeps its boards listed, not
    /// available, until it comes back.
    #[serde(default = "connected")]
    pub connected: bool,
    /// The serial port a serial board is on (its stable by-id path where
    /// there is one).
    #[serde(default)]
    pub port: Option<String>,
    /// The debug probe on the same ST-LINK as a serial board's port (their
    /// USB serial numbers are one), through which it can be flashed.
    #[serde(default)]
    pub probe: Option<String>,
    /// Whether `POST /api/boards/{id}/flash` can write this host's image to
    /// it now: a paired probe, a board the firmware named, its image built.
    #[serde(default)]
    pub can_flash: bool,
    /// This host's images of the board that are still being built: `cargo
    /// xtask dev` serves as soon as the emulated board's default image is
    /// built and builds the others afterwards. Left out when none is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub building: Option<ImageBuildProgress>,
}

/// How far the build of a host's firmware images is, for one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageBuildProgress {
    /// The board's own images not built yet, by file name.
    pub images: Vec<String>,
    /// Images whose build has ended, of every board.
    pub done: u32,
    /// Images in the whole build.
    pub total: u32,
    /// The image being compiled now, whichever board's it is.
    #[serde(default)]
    pub current: Option<String>,
}

fn connected() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardKind {
    Emulated,
    Serial,
    Probe,
}

impl BoardKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardKind::Emulated => "emulated",
            BoardKind::Serial => "serial",
            BoardKind::Probe => "probe",
        }
    }
}

/// The body of `POST /api/flashes`: write this host's image of `variant`
/// (left out, `opt-s`) to a board on a serial port, through the debug probe
/// on the same ST-LINK.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewFlash {
    pub board: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// The answer to `POST /api/flashes`: the board restarted with the image
/// and said its build id over its port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flash {
    pub board: String,
    /// The image's file name.
    pub image: String,
    pub build_id: Option<String>,
}
