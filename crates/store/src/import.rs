//! Published logs into runs: the adapters read a log, this module checks
//! what the user adds to it (board, clock), shapes the runs it becomes and
//! hands them to the store, which refuses content it already holds.
//!
//! Previewing and storing go through the same [`plan`], so what the preview
//! shows is exactly what is stored.

use pqbench_adapters::{Log, ParseError};
use pqbench_api::{BoardId, ImportCreated, ImportPreview, ImportedRun, LogFormat};
use pqbench_types::{Build, IMPORTED_FROM, RunStatus, Source};

use crate::{NewImport, NewRun, Store, StoreError};

pub const MAX_FILE_NAME_LEN: usize = 255;
/// The same bound as an upload's clock.
pub use pqbench_api::uploads::MAX_CLOCK_HZ;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("this log was imported before, as run {}", runs_list(.runs))]
    Duplicate { runs: Vec<i64> },
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::AlreadyImported { runs } => ImportError::Duplicate { runs },
            e => ImportError::Store(e),
        }
    }
}

fn runs_list(runs: &[i64]) -> String {
    runs.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// A log read and checked, ready to preview or store.
pub struct Plan {
    pub preview: ImportPreview,
    import: NewImport,
}

/// The board an import is filed under when the user names none.
pub fn default_board(format: LogFormat) -> String {
    format!("import:{}", format.as_str())
}

/// Reads the log and shapes its runs; nothing is stored.
pub fn plan(request: &pqbench_api::NewImport) -> Result<Plan, ImportError> {
    let board = match request.board.as_deref().map(str::trim) {
        None | Some("") => default_board(request.format),
        Some(board) => {
            let board = BoardId::new(board).map_err(|e| ImportError::Invalid(e.to_string()))?.into_string();
            if let Some(why) = pqbench_api::imports::live_board_id(&board) {
                return Err(ImportError::Invalid(why));
            }
            board
        }
    };
    if let Some(hz) = request.clock_hz
        && !(1..=MAX_CLOCK_HZ).contains(&hz)
    {
        return Err(ImportError::Invalid(format!("a clock is 1 to {MAX_CLOCK_HZ} Hz, not {hz}")));
    }
    let file_name = request.file_name.as_deref().map(|name| {
        // A path's last part, cut to a sane length: only shown, never opened.
        let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
        name.chars().filter(|c| !c.is_control()).take(MAX_FILE_NAME_LEN).collect::<String>()
    });
    let log = pqbench_adapters::parse(request.format, &request.text, request.clock_hz)?;
    let runs = imported_runs(request.format, &log);
    let unread = log.unread.clone();
    let import = NewImport {
        digest: pqbench_adapters::digest(&request.text),
        format: request.format,
        file_name,
        version: log.version.clone(),
        unread: unread.clone(),
        runs: runs
            .iter()
            .map(|run| {
                let new_run = NewRun {
                    status: RunStatus::Complete,
                    source: Source::Import,
                    board: board.clone(),
                    clock_hz: request.clock_hz,
                    build: run.build.clone(),
                    settings: None,
                    host: None,
                };
                (new_run, run.results.clone())
            })
            .collect(),
    };
    let preview = ImportPreview {
        format: request.format,
        version: log.version,
        board,
        clock_hz: request.clock_hz,
        runs,
        unread,
        understood_lines: log.understood_lines as u64,
        already_imported_as: Vec::new(),
    };
    Ok(Plan { preview, import })
}

/// One run per group of the log, its build saying what printed it.
fn imported_runs(format: LogFormat, log: &Log) -> Vec<ImportedRun> {
    log.groups
        .iter()
        .map(|group| {
            let mut build = Build::default();
            build.extra.insert("log".into(), format.as_str().into());
            let imported_from = match (format, &log.version, &group.implementation) {
                (LogFormat::Wolfcrypt, Some(version), _) => {
                    build.crates.insert("wolfssl".into(), version.clone());
                    format!("wolfCrypt {version}")
                }
                (LogFormat::Wolfcrypt, None, _) => "wolfCrypt (version not printed)".into(),
                (LogFormat::Pqm4, _, Some(implementation)) => {
                    build.extra.insert("implementation".into(), implementation.clone());
                    format!("pqm4 {implementation}")
                }
                (LogFormat::Pqm4, _, None) => "pqm4".into(),
            };
            build.extra.insert(IMPORTED_FROM.into(), imported_from);
            ImportedRun { build, results: group.results.clone() }
        })
        .collect()
}

/// A plan's preview, with the runs this content was already stored as.
pub async fn preview(store: &Store, plan: Plan) -> Result<ImportPreview, ImportError> {
    let Plan { mut preview, import } = plan;
    preview.already_imported_as = store.runs_of_import(&import.digest).await?;
    Ok(preview)
}

/// Stores a planned log's runs in one transaction, or refuses it as a
/// duplicate.
pub async fn store(store: &Store, plan: Plan) -> Result<ImportCreated, ImportError> {
    let Plan { preview, import } = plan;
    let runs = store.insert_import(&import).await?;
    Ok(ImportCreated { runs, unread_lines: preview.unread.len() as u64 })
}
