//! Where pqbench keeps every run: the one place that speaks SQL, to an
//! SQLite file (the default) or a PostgreSQL server, chosen by the
//! database's location. Every statement is written once (`sql/`,
//! compiled for each database), portable, and bound with parameters, never
//! built by concatenation.
//!
//! Besides [`Store`] itself: [`upload`] and [`import`] turn a browser's or
//! host's upload and a published log into the runs to store, and
//! [`secrets`] draws report ids and agent tokens. Nothing here knows of boards or
//! HTTP: the board side and the server both build on this crate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pqbench_api::{LogFormat, Matrix, MatrixColumn, MatrixKey, Report, UnreadLine, UploadNote};
use pqbench_types::{BenchResult, Build, Clock, Measurement, ResultRow, Run, RunStatus, Source};
use pqbench_view::View;

pub mod backup;
pub mod import;
mod migrate;
mod postgres;
pub mod secrets;
mod sqlite;
#[doc(hidden)]
pub mod test_support;
pub mod upload;

pub use leases::Abandoned;
pub use migrate::{MigrateError, Migrated, migrate};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migrating the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    #[error("this content was imported before, as runs {runs:?}")]
    AlreadyImported { runs: Vec<i64> },
    #[error("this upload was stored before, as run {run}")]
    AlreadyUploaded { run: i64 },
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Where the store is: an SQLite file, or a PostgreSQL database named by
/// its URL (`postgres://` or `postgresql://`). A path may also be written
/// as an `sqlite:` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

/// Why a text names no [`Location`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    #[error("an empty database path")]
    Empty,
    #[error("{0:?}: not an SQLite path or a postgres:// URL")]
    NotALocation(String),
}

impl std::str::FromStr for Location {
    type Err = LocationError;

    fn from_str(text: &str) -> Result<Location, LocationError> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Location::Postgres(text.into()));
        }
        let path = text.strip_prefix("sqlite://").or_else(|| text.strip_prefix("sqlite:")).unwrap_or(text);
        if path.is_empty() {
            return Err(LocationError::Empty);
        }
        if path.contains("://") {
            return Err(LocationError::NotALocation(text.into()));
        }
        Ok(Location::Sqlite(path.into()))
    }
}

impl std::fmt::Display for Location {
    /// A PostgreSQL URL is shown without its password: it ends up in logs
    /// and error messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => match url.split_once("://").and_then(|(scheme, rest)| {
                let (credentials, host) = rest.split_once('@')?;
                let user = credentials.split_once(':').map_or(credentials, |(user, _)| user);
                Some(format!("{scheme}://{user}@{host}"))
            }) {
                Some(shown) => f.write_str(&shown),
                None => f.write_str(url),
            },
        }
    }
}

/// A new run as its collector starts it.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub status: RunStatus,
    pub source: Source,
    pub board: String,
    pub clock_hz: Option<u64>,
    pub build: Build,
    pub settings: Option<serde_json::Value>,
    /// The agent host it is made on; None for the server's own boards.
    pub host: Option<String>,
}

impl NewRun {
    /// A run a board is about to make over its serial port; the board says
    /// its build and clock when it answers.
    pub fn on_board(board: &str, settings: Option<serde_json::Value>) -> NewRun {
        NewRun {
            status: RunStatus::Running,
            source: Source::Serial,
            board: board.into(),
            clock_hz: None,
            build: Build::default(),
            settings,
            host: None,
        }
    }
}

/// A log to store: the runs it became, and what identifies its content.
#[derive(Debug, Clone)]
pub struct NewImport {
    pub digest: String,
    pub format: LogFormat,
    pub file_name: Option<String>,
    pub version: Option<String>,
    pub unread: Vec<UnreadLine>,
    pub runs: Vec<(NewRun, Vec<BenchResult>)>,
}

/// Which results to list across runs: an empty list keeps every value.
pub use pqbench_api::ResultQuery;

/// A matrix without its results' figures: its columns (each run whole),
/// what its filters can offer, and how many results each column's run
/// has stored.
///
/// Two heads that are equal stand for the same matrix, for the same
/// query: a result is only ever inserted (the store has no statement
/// that updates or deletes one; a tidy test keeps it so), so a run's
/// results are the same while their count is, and everything else a
/// matrix shows is in the head. A server can therefore keep a matrix it
/// made and serve it again while the head is unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixHead {
    pub columns: Vec<MatrixColumn>,
    pub available: Vec<MatrixKey>,
    pub truncated: bool,
    /// (run id, results stored) of each column's run that has any, by id.
    pub stored: Vec<(i64, i64)>,
}

impl MatrixHead {
    pub fn into_matrix(self, results: Vec<ResultRow>) -> Matrix {
        Matrix { columns: self.columns, results, available: self.available, truncated: self.truncated }
    }
}

#[derive(Clone)]
enum Backend {
    Sqlite(sqlite::sql::Statements),
    Postgres(postgres::sql::Statements),
}

/// The same call on whichever database the store is on.
macro_rules! on_backend {
    ($store:expr, $statements:ident => $call:expr) => {
        match &$store.backend {
            Backend::Sqlite($statements) => $call,
            Backend::Postgres($statements) => $call,
        }
    };
}

// After `on_backend!`, which it uses.
mod leases;

#[derive(Clone)]
pub struct Store {
    backend: Backend,
    /// Held by each writing statement or transaction of this process.
    /// SQLite lets one writer in at a time, and the others poll for the
    /// lock with growing sleeps, so under many writers (uploads while a
    /// board runs) one could wait seconds while others came and went;
    /// queueing them here, first come first served, keeps every write's
    /// wait the sum of those ahead of it. Another process's writes (a
    /// `pqbench run` beside the server) still meet SQLite's busy timeout.
    /// PostgreSQL needs no queue, and has none.
    writer: Option<Arc<tokio::sync::Mutex<()>>>,
    /// Who this process is, and for how long a lease it takes on each run
    /// it makes: none for a process that takes none.
    lease: Option<Arc<leases::Lease>>,
}

fn now() -> String {
    rfc3339(std::time::SystemTime::now())
}

/// Every time the store writes, in one form (UTC, milliseconds, `Z`), so
/// that times compare as text.
fn rfc3339(time: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

impl Store {
    /// Opens the store at `location`, creating an SQLite file if needed,
    /// and applies the migrations.
    pub async fn connect(location: &Location) -> StoreResult<Store> {
        match location {
            Location::Sqlite(path) => Store::open(path).await,
            Location::Postgres(url) => Ok(Store {
                backend: Backend::Postgres(postgres::connect(url).await?),
                writer: None,
                lease: None,
            }),
        }
    }

    /// Opens (creating if needed) an SQLite file and applies the migrations.
    pub async fn open(path: &Path) -> StoreResult<Store> {
        Ok(Store {
            backend: Backend::Sqlite(sqlite::open(path).await?),
            writer: Some(Arc::default()),
            lease: None,
        })
    }

    /// Which database this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "SQLite",
            Backend::Postgres(_) => "PostgreSQL",
        }
    }

    /// Waits for this process's earlier writes, where the database needs
    /// them queued.
    async fn writing(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match &self.writer {
            Some(writer) => Some(writer.lock().await),
            None => None,
        }
    }

    pub async fn create_run(&self, run: &NewRun) -> StoreResult<i64> {
        let _writing = self.writing().await;
        let started = std::time::SystemTime::now();
        let until = self.lease.as_ref().map(|lease| lease.until(started));
        let lease =
            self.lease.as_ref().zip(until.as_deref()).map(|(lease, until)| (lease.owner.as_str(), until));
        on_backend!(self, db => db.create_run(run, &rfc3339(started), lease).await)
    }

    /// What the board said of itself once it answered.
    pub async fn describe_run(
        &self,
        run_id: i64,
        build: &Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: &str,
    ) -> StoreResult<()> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.describe_run(run_id, build, clock_hz, ticks_per_second, tick_unit).await)
    }

    pub async fn add_result(
        &self,
        run_id: i64,
        seq: u32,
        result: &BenchResult,
        raw: Option<&Measurement>,
    ) -> StoreResult<()> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.add_result(run_id, seq, result, raw).await)
    }

    /// Stores a run that arrived whole (an upload) in one transaction: it is
    /// there with all its results, or not at all. Each result's note is the
    /// one its counts give, followed by the producer's `notes` on it. An
    /// upload whose `digest` ([`upload::digest`]) was stored before is
    /// refused with [`StoreError::AlreadyUploaded`], naming its run.
    pub async fn insert_finished_run(
        &self,
        run: &NewRun,
        clock: &Clock,
        measurements: &[Measurement],
        notes: &[UploadNote],
        digest: Option<&str>,
    ) -> StoreResult<i64> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.insert_finished_run(run, clock, measurements, notes, digest, &now()).await)
    }

    /// Stores an imported log's runs in one transaction, or none of them:
    /// content stored before (by digest) is refused with the runs it made.
    /// The digest's UNIQUE constraint settles two imports racing.
    pub async fn insert_import(&self, import: &NewImport) -> StoreResult<Vec<i64>> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.insert_import(import, &now()).await)
    }

    /// The runs an import of this content made; empty when there was none.
    pub async fn runs_of_import(&self, digest: &str) -> StoreResult<Vec<i64>> {
        on_backend!(self, db => db.runs_of_import(digest).await)
    }

    /// Whether the database answers (`/api/health`): a read, so it waits
    /// on no writer.
    pub async fn ping(&self) -> StoreResult<()> {
        on_backend!(self, db => db.ping().await)
    }

    pub async fn count_rejected(&self, run_id: i64) -> StoreResult<()> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.count_rejected(run_id).await)
    }

    /// Adds a line to what the run's notes say of its way (a probe's
    /// transient errors it recovered from, ...): shown with the run, never
    /// in place of its error.
    pub async fn note_run(&self, run_id: i64, note: &str) -> StoreResult<()> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.note_run(run_id, note).await)
    }

    /// Ends a board's run, as [`Store::finish_run_expecting`] without a
    /// count: a `complete` run must still have its rows numbered 1 to n
    /// without a gap.
    pub async fn finish_run(
        &self,
        run_id: i64,
        status: RunStatus,
        error: Option<&str>,
    ) -> StoreResult<RunStatus> {
        self.finish_run_expecting(run_id, status, error, None).await
    }

    /// Ends a board's run with `status`, and returns the status written.
    ///
    /// A board's results are stored one by one as they arrive, so the end
    /// is where a run is vouched for: in the same transaction as the status,
    /// a `complete` run is checked to hold `expected` rows (the results the
    /// board reported, where the caller knows them), numbered 1 to n as the
    /// collector numbers them; otherwise it is written `incomplete` with
    /// the reason. Nobody ever reads a run as complete with rows missing.
    pub async fn finish_run_expecting(
        &self,
        run_id: i64,
        status: RunStatus,
        error: Option<&str>,
        expected: Option<u32>,
    ) -> StoreResult<RunStatus> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.finish_run_expecting(run_id, status, error, expected, &now()).await)
    }

    pub async fn run(&self, run_id: i64) -> StoreResult<Option<Run>> {
        on_backend!(self, db => db.run(run_id).await)
    }

    /// Newest first.
    pub async fn runs(&self, board: Option<&str>, limit: u32) -> StoreResult<Vec<Run>> {
        on_backend!(self, db => db.runs(board, limit).await)
    }

    /// The complete runs on `board` before run `before`, newest first: the
    /// candidates a run's regressions are judged against.
    pub async fn complete_runs_before(&self, board: &str, before: i64, limit: u32) -> StoreResult<Vec<Run>> {
        on_backend!(self, db => db.complete_runs_before(board, before, limit).await)
    }

    /// Results across runs, newest run first and each run's in the order
    /// they were measured. One statement: each filter is an `IN` list of
    /// bound parameters (only the placeholders are generated).
    pub async fn result_rows(&self, filter: &ResultQuery) -> StoreResult<Vec<ResultRow>> {
        on_backend!(self, db => db.result_rows(filter).await)
    }

    /// The matrix of `GET /api/matrix` (see [`pqbench_api::matrix`]):
    /// without `runs`, the latest complete run of each (board, build
    /// label) the filters keep, at most [`pqbench_api::MAX_MATRIX_COLUMNS`]
    /// of the newest, by board then build; with `runs`, those runs in the
    /// order asked, narrowed by board, source and build when given. Then
    /// their results, narrowed by algorithm and operation, at most
    /// `query.limit`, as [`Store::result_rows`] lists them.
    pub async fn matrix(&self, query: &ResultQuery) -> StoreResult<Matrix> {
        let head = self.matrix_head(query).await?;
        let results = self.matrix_results(&head, query).await?;
        Ok(head.into_matrix(results))
    }

    /// The part of [`Store::matrix`] that says which runs it shows and
    /// whether their results changed: a few index seeks, whatever the
    /// store's size.
    pub async fn matrix_head(&self, query: &ResultQuery) -> StoreResult<MatrixHead> {
        on_backend!(self, db => db.matrix_head(query).await)
    }

    /// The rest of [`Store::matrix`]: the results of `head`'s columns.
    pub async fn matrix_results(
        &self,
        head: &MatrixHead,
        query: &ResultQuery,
    ) -> StoreResult<Vec<ResultRow>> {
        on_backend!(self, db => db.matrix_results(head, query).await)
    }

    /// Stores a new report under `id`; `None` when that id is taken, for
    /// the caller to draw another.
    pub async fn insert_report(&self, id: &str, view: &View) -> StoreResult<Option<Report>> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.insert_report(id, view, &now()).await)
    }

    /// Stores `digest` (hex SHA-256) as agent `host`'s own token; false
    /// where the host has one already or the digest is another's.
    pub async fn add_agent_token(&self, host: &str, digest: &str) -> StoreResult<bool> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.add_agent_token(host, digest, &now()).await)
    }

    /// Ends agent `host`'s own token; whether it had one.
    pub async fn revoke_agent_token(&self, host: &str) -> StoreResult<bool> {
        let _writing = self.writing().await;
        on_backend!(self, db => db.revoke_agent_token(host).await)
    }

    /// The agent host whose own token has this digest, if any.
    pub async fn agent_token_host(&self, digest: &str) -> StoreResult<Option<String>> {
        on_backend!(self, db => db.agent_token_host(digest).await)
    }

    /// Every agent host with a token of its own, and when it was made.
    pub async fn agent_token_hosts(&self) -> StoreResult<Vec<(String, String)>> {
        on_backend!(self, db => db.agent_token_hosts().await)
    }

    pub async fn report(&self, id: &str) -> StoreResult<Option<Report>> {
        on_backend!(self, db => db.report(id).await)
    }

    pub async fn results(&self, run_id: i64) -> StoreResult<Vec<BenchResult>> {
        on_backend!(self, db => db.results(run_id).await)
    }
}

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

/// Text as both databases can hold it: PostgreSQL's text has no NUL, so
/// a NUL in what a user, a log or a board sent is stored as U+FFFD on
/// either, and a store moves between them unchanged.
fn text(value: &str) -> std::borrow::Cow<'_, str> {
    if value.contains('\0') { value.replace('\0', "\u{FFFD}").into() } else { value.into() }
}

fn to_json(value: &impl serde::Serialize) -> StoreResult<String> {
    serde_json::to_string(value).map_err(corrupt)
}

#[cfg(test)]
mod tests;
