//! A published log (wolfCrypt's benchmark, pqm4's tables) on its way in:
//! what the dashboard's upload form sends, the preview the server answers
//! with before anything is stored, and what storing it made.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use pqbench_types::{BenchResult, Build};

/// Which program printed a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Wolfcrypt,
    Pqm4,
}

impl LogFormat {
    pub const ALL: &'static [LogFormat] = &[LogFormat::Wolfcrypt, LogFormat::Pqm4];

    pub const fn as_str(self) -> &'static str {
        match self {
            LogFormat::Wolfcrypt => "wolfcrypt",
            LogFormat::Pqm4 => "pqm4",
        }
    }

    /// The program's own spelling, for people.
    pub const fn title(self) -> &'static str {
        match self {
            LogFormat::Wolfcrypt => "wolfCrypt benchmark",
            LogFormat::Pqm4 => "pqm4 benchmarks",
        }
    }

    pub fn from_name(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|f| f.as_str() == text)
    }
}

/// How the id of a board pqbench measures itself begins: a serial port's
/// (`pqbench_collect::ports::SERIAL_PREFIX`), a probe's
/// (`pqbench_collect::boards::PROBE_PREFIX`), an emulated board's
/// (`qemu-mps2-an386`), an upload's. An agent's boards are `<host>/<id>`.
/// `pqbench-collect`'s tests hold its prefixes and the emulated boards to
/// this list.
pub const LIVE_BOARD_PREFIXES: &[&str] = &["serial:", "probe:", "qemu-", "browser:", "native:"];

/// Why an imported log may not be filed under `board`, if it may not: an
/// import keeps to ids no live board takes, so that a board's badge and
/// history never show a figure someone imported under its name as its own.
pub fn live_board_id(board: &str) -> Option<String> {
    let taken = LIVE_BOARD_PREFIXES.iter().find(|prefix| board.starts_with(**prefix)).copied();
    match taken {
        Some(prefix) => Some(alloc::format!(
            "board {board:?} has the form of a live board's id ({prefix}...): an import is filed under a name of \
             its own, such as the board's model"
        )),
        None if board.contains('/') => Some(alloc::format!(
            "board {board:?} has the form of an agent's board id (host/board): an import is filed under a \
             name without '/'"
        )),
        None => None,
    }
}

/// A log to preview or store, with what the log itself cannot say: the
/// board it ran on and its clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewImport {
    pub format: LogFormat,
    pub text: String,
    #[serde(default)]
    pub file_name: Option<String>,
    #[serde(default)]
    pub board: Option<String>,
    #[serde(default)]
    pub clock_hz: Option<u64>,
}

/// What an import would store, shown before it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportPreview {
    pub format: LogFormat,
    /// The producer's version where the log prints it.
    pub version: Option<String>,
    pub board: String,
    pub clock_hz: Option<u64>,
    /// One run per build the log holds (pqm4: per implementation).
    pub runs: Vec<ImportedRun>,
    /// Every line that will not become a result, with why.
    pub unread: Vec<UnreadLine>,
    /// Lines read as headers, banners and table rules.
    pub understood_lines: u64,
    /// The runs this same content was stored as before; storing it again
    /// is refused while this is not empty.
    pub already_imported_as: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedRun {
    pub build: Build,
    pub results: Vec<BenchResult>,
}

/// A line of a log that did not become a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnreadLine {
    /// 1-based, as an editor numbers it.
    pub line: u64,
    pub text: String,
    pub reason: String,
}

/// What storing an import made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportCreated {
    pub runs: Vec<i64>,
    pub unread_lines: u64,
}
