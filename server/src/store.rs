//! The one place that speaks SQL. Every statement is portable (no SQLite
//! dialect) and bound with parameters, never built by concatenation.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use pqbench_types::view::View;
use pqbench_types::{
    Algorithm, BenchResult, Build, Clock, LogFormat, Measurement, Operation, Report, ResultRow, Run,
    RunStatus, Source, UnreadLine,
};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite, SqlitePool};

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
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A new run as its collector starts it.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub status: RunStatus,
    pub source: Source,
    pub board: String,
    pub clock_hz: Option<u64>,
    pub build: Build,
    pub settings: Option<serde_json::Value>,
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultFilter {
    pub boards: Vec<String>,
    pub sources: Vec<Source>,
    pub algorithms: Vec<Algorithm>,
    pub operations: Vec<Operation>,
    pub runs: Vec<i64>,
    pub limit: u32,
}

#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
    /// The build label of each finished run read so far (a finished run's
    /// build never changes). Rows across runs name their run's build; with
    /// one run per row, as in an operation's history, reading every run's
    /// build JSON again took most of a request's time.
    build_labels: Arc<Mutex<HashMap<i64, String>>>,
    /// Held by each writing statement or transaction of this process.
    /// SQLite lets one writer in at a time, and the others poll for the
    /// lock with growing sleeps, so under many writers (uploads while a
    /// board runs) one could wait seconds while others came and went;
    /// queueing them here, first come first served, keeps every write's
    /// wait the sum of those ahead of it. Another process's writes (a
    /// `pqbench run` beside the server) still meet SQLite's busy timeout.
    writer: Arc<tokio::sync::Mutex<()>>,
}

/// Labels kept before the cache starts over: a few MB.
const MAX_CACHED_LABELS: usize = 100_000;

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

impl Store {
    /// Opens (creating if needed) the SQLite file and applies the migrations.
    ///
    /// Write-ahead logging, so readers (the dashboard) never wait on a run
    /// being written, and a crash at any point leaves the last committed
    /// state. `synchronous=FULL` syncs the log at every commit: a committed
    /// run survives a power cut too, not only a killed process, and a
    /// commit is one run's status or one board result every few seconds, or
    /// a whole upload, so the sync costs little.
    pub async fn open(path: &Path) -> StoreResult<Store> {
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            // Reading a million results (`cargo xtask bench-load`): pages
            // mapped rather than copied in by a read() each, and rows
            // handed to the caller in large batches rather than 50 at a
            // time, each batch a wake-up of the calling thread. Both
            // halved an operation's history (hundreds of rows) there.
            .pragma("mmap_size", "268435456")
            .row_buffer_size(1024)
            // A planner that knows the tables' shapes: without statistics
            // SQLite walks every result of an operation to find a board's.
            .optimize_on_close(true, 1000);
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        // Statistics for the planner from a sample of each index (at most
        // 1000 rows read), gathered where missing or stale: quick on a
        // store of millions of results.
        let mut connection = pool.acquire().await?;
        sqlx::query("PRAGMA analysis_limit=1000").execute(&mut *connection).await?;
        sqlx::query("PRAGMA optimize=0x10002").execute(&mut *connection).await?;
        drop(connection);
        Ok(Store { pool, build_labels: Arc::default(), writer: Arc::default() })
    }

    pub async fn create_run(&self, run: &NewRun) -> StoreResult<i64> {
        let _writing = self.writer.lock().await;
        insert_run(&self.pool, run, &now(), None, None).await
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
        let _writing = self.writer.lock().await;
        let build = serde_json::to_string(build).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query(
            "UPDATE runs SET build = $1, clock_hz = $2, ticks_per_second = $3, tick_unit = $4 WHERE id = $5",
        )
        .bind(build)
        .bind(clock_hz.map(|hz| hz as i64))
        .bind(ticks_per_second as i64)
        .bind(tick_unit)
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn add_result(
        &self,
        run_id: i64,
        seq: u32,
        result: &BenchResult,
        raw: Option<&Measurement>,
    ) -> StoreResult<()> {
        let _writing = self.writer.lock().await;
        insert_result(&self.pool, run_id, seq, result, raw).await
    }

    /// Stores a run that arrived whole (an upload) in one transaction: it is
    /// there with all its results, or not at all.
    pub async fn insert_finished_run(
        &self,
        run: &NewRun,
        clock: &Clock,
        measurements: &[Measurement],
    ) -> StoreResult<i64> {
        let _writing = self.writer.lock().await;
        let build = serde_json::to_string(&run.build).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let started = now();
        let row = sqlx::query(
            "INSERT INTO runs (status, source, board, clock_hz, ticks_per_second, tick_unit, build,
                settings, started_at, finished_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        )
        .bind(run.status.as_str())
        .bind(run.source.as_str())
        .bind(&run.board)
        .bind(run.clock_hz.map(|hz| hz as i64))
        .bind(clock.ticks_per_second as i64)
        .bind(clock.unit.to_string())
        .bind(build)
        .bind(run.settings.as_ref().map(|s| s.to_string()))
        .bind(&started)
        .bind(&started)
        .fetch_one(&mut *tx)
        .await?;
        let id: i64 = row.try_get("id")?;
        for (seq, m) in (1..).zip(measurements) {
            let result = BenchResult::from_measurement(m, clock);
            insert_result(&mut *tx, id, seq, &result, Some(m)).await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// Stores an imported log's runs in one transaction, or none of them:
    /// content stored before (by digest) is refused with the runs it made.
    /// The digest's UNIQUE constraint settles two imports racing.
    pub async fn insert_import(&self, import: &NewImport) -> StoreResult<Vec<i64>> {
        let _writing = self.writer.lock().await;
        let unread = serde_json::to_string(&import.unread).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let imported_at = now();
        let inserted = sqlx::query(
            "INSERT INTO imports (digest, format, file_name, version, unread, imported_at)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&import.digest)
        .bind(import.format.as_str())
        .bind(import.file_name.as_deref())
        .bind(import.version.as_deref())
        .bind(unread)
        .bind(&imported_at)
        .fetch_one(&mut *tx)
        .await;
        let import_id: i64 = match inserted {
            Ok(row) => row.try_get("id")?,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                drop(tx);
                return Err(StoreError::AlreadyImported { runs: self.runs_of_import(&import.digest).await? });
            }
            Err(e) => return Err(e.into()),
        };
        let mut ids = Vec::with_capacity(import.runs.len());
        for (run, results) in &import.runs {
            let id = insert_run(&mut *tx, run, &imported_at, Some(&imported_at), Some(import_id)).await?;
            for (seq, result) in (1..).zip(results) {
                insert_result(&mut *tx, id, seq, result, None).await?;
            }
            ids.push(id);
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// The runs an import of this content made; empty when there was none.
    pub async fn runs_of_import(&self, digest: &str) -> StoreResult<Vec<i64>> {
        let rows = sqlx::query(
            "SELECT runs.id FROM runs JOIN imports ON imports.id = runs.import_id
             WHERE imports.digest = $1 ORDER BY runs.id",
        )
        .bind(digest)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|row| Ok(row.try_get("id")?)).collect()
    }

    pub async fn count_rejected(&self, run_id: i64) -> StoreResult<()> {
        let _writing = self.writer.lock().await;
        sqlx::query("UPDATE runs SET rejected_records = rejected_records + 1 WHERE id = $1")
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
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
        let _writing = self.writer.lock().await;
        let mut tx = self.pool.begin().await?;
        // Written first, so that the transaction holds the write lock from
        // its first statement: a read first would have to upgrade its
        // snapshot to write, which fails outright (not after a wait) when
        // another connection committed in between.
        sqlx::query("UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE id = $4")
            .bind(status.as_str())
            .bind(error)
            .bind(now())
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
        let mut written = status;
        if status == RunStatus::Complete {
            let row = sqlx::query(
                "SELECT COUNT(*) AS stored, COALESCE(MAX(seq), 0) AS last FROM results WHERE run_id = $1",
            )
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
            let stored: i64 = row.try_get("stored")?;
            let last: i64 = row.try_get("last")?;
            let missing = match expected {
                Some(expected) if i64::from(expected) != stored => {
                    Some(format!("the board reported {expected} results, but {stored} are stored"))
                }
                _ if stored != last => Some(format!(
                    "results are missing from the store: {stored} stored, numbered up to {last}"
                )),
                _ => None,
            };
            if let Some(why) = missing {
                tracing::warn!(run = run_id, "a run that ended complete is stored incomplete: {why}");
                written = RunStatus::Incomplete;
                sqlx::query("UPDATE runs SET status = $1, error = $2 WHERE id = $3")
                    .bind(written.as_str())
                    .bind(why)
                    .bind(run_id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(written)
    }

    /// Runs a previous server left running can no longer finish.
    pub async fn interrupt_unfinished(&self) -> StoreResult<u64> {
        let _writing = self.writer.lock().await;
        let done =
            sqlx::query("UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE status IN ($4, $5)")
                .bind(RunStatus::Interrupted.as_str())
                .bind("the server stopped before the run finished")
                .bind(now())
                .bind(RunStatus::Queued.as_str())
                .bind(RunStatus::Running.as_str())
                .execute(&self.pool)
                .await?;
        Ok(done.rows_affected())
    }

    pub async fn run(&self, run_id: i64) -> StoreResult<Option<Run>> {
        let row = sqlx::query(&format!("{RUN_COLUMNS} WHERE id = $1"))
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| run_from_row(&r)).transpose()
    }

    /// Newest first.
    pub async fn runs(&self, board: Option<&str>, limit: u32) -> StoreResult<Vec<Run>> {
        let rows =
            sqlx::query(&format!("{RUN_COLUMNS} WHERE ($1 IS NULL OR board = $1) ORDER BY id DESC LIMIT $2"))
                .bind(board)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(run_from_row).collect()
    }

    /// Results across runs, newest run first and each run's in the order
    /// they were measured. One statement: each filter is an `IN` list of
    /// bound parameters (only the placeholders are generated).
    pub async fn result_rows(&self, filter: &ResultFilter) -> StoreResult<Vec<ResultRow>> {
        let mut query = result_rows_query(filter, "");
        let rows = query.build().fetch_all(&self.pool).await?;
        let run_ids: Vec<i64> = rows.iter().map(|row| row.try_get("run_id")).collect::<Result<_, _>>()?;
        let labels = self.build_labels(&run_ids).await?;
        rows.iter()
            .map(|row| {
                let run_id: i64 = row.try_get("run_id")?;
                let source: String = row.try_get("run_source")?;
                let source =
                    Source::from_name(&source).ok_or_else(|| corrupt(format!("run source {source:?}")))?;
                let build_label = labels
                    .get(&run_id)
                    .cloned()
                    .ok_or_else(|| corrupt(format!("run {run_id} has no build")))?;
                let run_status: String = row.try_get("run_status")?;
                Ok(ResultRow {
                    run_id,
                    board: row.try_get("run_board")?,
                    source,
                    started_at: row.try_get("run_started_at")?,
                    build_label,
                    run_status: RunStatus::from_name(&run_status)
                        .ok_or_else(|| corrupt(format!("run status {run_status:?}")))?,
                    result: result_from_row(row)?,
                })
            })
            .collect()
    }

    /// The build label of each of these runs: from the cache, else read
    /// (one statement per 500 runs) and kept once the run has finished.
    async fn build_labels(&self, run_ids: &[i64]) -> StoreResult<HashMap<i64, String>> {
        let mut labels = HashMap::new();
        let mut missing = std::collections::BTreeSet::new();
        {
            let cached = self.build_labels.lock().map_err(|_| corrupt("the label cache is poisoned"))?;
            for &id in run_ids {
                match cached.get(&id) {
                    Some(label) => {
                        labels.insert(id, label.clone());
                    }
                    None => {
                        missing.insert(id);
                    }
                }
            }
        }
        let missing: Vec<i64> = missing.into_iter().collect();
        let mut finished = Vec::new();
        for ids in missing.chunks(500) {
            let mut query =
                QueryBuilder::<Sqlite>::new("SELECT id, source, status, build FROM runs WHERE 1 = 1");
            any_of(&mut query, "id", ids.iter().copied());
            for row in query.build().fetch_all(&self.pool).await? {
                let id: i64 = row.try_get("id")?;
                let source: String = row.try_get("source")?;
                let source =
                    Source::from_name(&source).ok_or_else(|| corrupt(format!("run source {source:?}")))?;
                let build: String = row.try_get("build")?;
                let build: Build = serde_json::from_str(&build).map_err(corrupt)?;
                let label = build.label(source);
                let status: String = row.try_get("status")?;
                if RunStatus::from_name(&status).is_some_and(RunStatus::is_finished) {
                    finished.push((id, label.clone()));
                }
                labels.insert(id, label);
            }
        }
        if !finished.is_empty() {
            let mut cached = self.build_labels.lock().map_err(|_| corrupt("the label cache is poisoned"))?;
            if cached.len() + finished.len() > MAX_CACHED_LABELS {
                cached.clear();
            }
            cached.extend(finished);
        }
        Ok(labels)
    }

    /// Stores a new report under `id`; `None` when that id is taken, for
    /// the caller to draw another.
    pub async fn insert_report(&self, id: &str, view: &View) -> StoreResult<Option<Report>> {
        let _writing = self.writer.lock().await;
        let created_at = now();
        let inserted = sqlx::query("INSERT INTO reports (id, view, created_at) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(serde_json::to_string(view).map_err(corrupt)?)
            .bind(&created_at)
            .execute(&self.pool)
            .await;
        match inserted {
            Ok(_) => Ok(Some(Report { id: id.into(), view: view.clone(), created_at })),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn report(&self, id: &str) -> StoreResult<Option<Report>> {
        let row = sqlx::query("SELECT id, view, created_at FROM reports WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            let view: String = row.try_get("view")?;
            Ok(Report {
                id: row.try_get("id")?,
                view: serde_json::from_str(&view).map_err(corrupt)?,
                created_at: row.try_get("created_at")?,
            })
        })
        .transpose()
    }

    pub async fn results(&self, run_id: i64) -> StoreResult<Vec<BenchResult>> {
        let rows = sqlx::query(
            "SELECT algorithm, operation, status, iterations, total_seconds, avg_ms, ops_per_sec,
                min_ms, median_ms, max_ms, cycles_per_op, ticks_per_op, tick_unit, bytes_per_sec,
                heap_bytes, heap_allocs, stack_bytes, code_bytes, note
             FROM results WHERE run_id = $1 ORDER BY seq",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(result_from_row).collect()
    }
}

/// The statement of [`Store::result_rows`], after `prefix` (`EXPLAIN QUERY
/// PLAN ` in a test of its plan).
fn result_rows_query(filter: &ResultFilter, prefix: &str) -> QueryBuilder<'static, Sqlite> {
    let mut query = QueryBuilder::<Sqlite>::new(prefix);
    query.push(
        "SELECT r.run_id, runs.board AS run_board, runs.source AS run_source,
            runs.started_at AS run_started_at, runs.status AS run_status,
            r.algorithm, r.operation, r.status, r.iterations, r.total_seconds, r.avg_ms,
            r.ops_per_sec, r.min_ms, r.median_ms, r.max_ms, r.cycles_per_op, r.ticks_per_op,
            r.tick_unit, r.bytes_per_sec, r.heap_bytes, r.heap_allocs, r.stack_bytes, r.code_bytes, r.note",
    );
    // Filtered by board, the runs come first whatever the statistics say
    // (SQLite keeps the tables of a CROSS JOIN in the order written; the
    // SQL is standard, and PostgreSQL plans it as any join): an
    // operation's history on a board then reads that board's runs and
    // their rows only, 1 ms with a million results stored, where a
    // planner without statistics walked the operation's rows on every
    // board and sorted them (8 ms).
    if filter.boards.is_empty() {
        query.push(" FROM results r JOIN runs ON runs.id = r.run_id WHERE 1 = 1");
    } else {
        query.push(" FROM runs CROSS JOIN results r WHERE runs.id = r.run_id");
    }
    any_of(&mut query, "runs.board", filter.boards.iter().cloned());
    any_of(&mut query, "runs.source", filter.sources.iter().map(|s| s.as_str()));
    any_of(&mut query, "r.algorithm", filter.algorithms.iter().map(|a| a.as_str()));
    any_of(&mut query, "r.operation", filter.operations.iter().map(|o| o.as_str()));
    any_of(&mut query, "r.run_id", filter.runs.iter().copied());
    // Newest run first, named on the table the plan starts from (the
    // two columns are equal by the join): an index then yields the rows
    // in order and the LIMIT ends the walk, instead of every match being
    // sorted first. Filtered by board, the plan walks that board's runs
    // (`runs_by_board`) and finds each one's rows by name or by
    // `(run_id, seq)`: an operation's history on a board then reads its
    // runs' rows only, not the operation's rows on every board. Filtered
    // by name alone, it walks `results_by_name_newest` (migration 0004);
    // filtered only by run or source, the runs (by id, `runs_by_source`)
    // and each one's results by `(run_id, seq)`.
    let by_name = !filter.algorithms.is_empty() || !filter.operations.is_empty();
    let by_run = !filter.boards.is_empty() || !filter.sources.is_empty() || !filter.runs.is_empty();
    let newest = if !filter.boards.is_empty() || (by_run && !by_name) { "runs.id" } else { "r.run_id" };
    query.push(format!(" ORDER BY {newest} DESC, r.seq LIMIT ")).push_bind(i64::from(filter.limit));
    query
}

async fn insert_run<'e>(
    db: impl sqlx::SqliteExecutor<'e>,
    run: &NewRun,
    started_at: &str,
    finished_at: Option<&str>,
    import_id: Option<i64>,
) -> StoreResult<i64> {
    let build = serde_json::to_string(&run.build).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let row = sqlx::query(
        "INSERT INTO runs (status, source, board, clock_hz, build, settings, started_at, finished_at, import_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(run.status.as_str())
    .bind(run.source.as_str())
    .bind(&run.board)
    .bind(run.clock_hz.map(|hz| hz as i64))
    .bind(build)
    .bind(run.settings.as_ref().map(|s| s.to_string()))
    .bind(started_at)
    .bind(finished_at)
    .bind(import_id)
    .fetch_one(db)
    .await?;
    Ok(row.try_get("id")?)
}

async fn insert_result<'e>(
    db: impl sqlx::SqliteExecutor<'e>,
    run_id: i64,
    seq: u32,
    result: &BenchResult,
    raw: Option<&Measurement>,
) -> StoreResult<()> {
    let ticks = |f: fn(&Measurement) -> u64| raw.filter(|m| m.iterations > 0).map(|m| f(m) as i64);
    sqlx::query(
        "INSERT INTO results (run_id, seq, algorithm, operation, status, iterations, total_seconds,
            avg_ms, ops_per_sec, min_ms, median_ms, max_ms, cycles_per_op, ticks_per_op, tick_unit,
            bytes_per_sec, heap_bytes, heap_allocs, stack_bytes, code_bytes, note,
            total_ticks, min_ticks, median_ticks, max_ticks)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
            $19, $20, $21, $22, $23, $24, $25)",
    )
    .bind(run_id)
    .bind(i64::from(seq))
    .bind(result.algorithm.as_str())
    .bind(result.operation.as_str())
    .bind(result.status.as_str())
    .bind(result.iterations.map(|v| v as i64))
    .bind(result.total_seconds)
    .bind(result.avg_ms)
    .bind(result.ops_per_sec)
    .bind(result.min_ms)
    .bind(result.median_ms)
    .bind(result.max_ms)
    .bind(result.cycles_per_op)
    .bind(result.ticks_per_op)
    .bind(result.tick_unit.as_deref())
    .bind(result.bytes_per_sec)
    .bind(result.heap_bytes.map(|v| v as i64))
    .bind(result.heap_allocs.map(|v| v as i64))
    .bind(result.stack_bytes.map(|v| v as i64))
    .bind(result.code_bytes.map(|v| v as i64))
    .bind(result.note.as_deref())
    .bind(ticks(|m| m.total_ticks))
    .bind(ticks(|m| m.min_ticks))
    .bind(ticks(|m| m.median_ticks))
    .bind(ticks(|m| m.max_ticks))
    .execute(db)
    .await?;
    Ok(())
}

/// Narrows `query` to rows whose `column` is one of `values`; no values, no
/// narrowing.
fn any_of<'a, T>(query: &mut QueryBuilder<'a, Sqlite>, column: &str, values: impl Iterator<Item = T>)
where
    T: 'a + sqlx::Encode<'a, Sqlite> + sqlx::Type<Sqlite>,
{
    let mut values = values.peekable();
    if values.peek().is_none() {
        return;
    }
    query.push(" AND ").push(column).push(" IN (");
    let mut list = query.separated(", ");
    for value in values {
        list.push_bind(value);
    }
    list.push_unseparated(")");
}

const RUN_COLUMNS: &str = "SELECT id, status, source, board, clock_hz, build, started_at, finished_at, error,
    rejected_records FROM runs";

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

fn run_from_row(row: &SqliteRow) -> StoreResult<Run> {
    let status: String = row.try_get("status")?;
    let source: String = row.try_get("source")?;
    let build: String = row.try_get("build")?;
    Ok(Run {
        id: row.try_get("id")?,
        status: RunStatus::from_name(&status).ok_or_else(|| corrupt(format!("run status {status:?}")))?,
        source: Source::from_name(&source).ok_or_else(|| corrupt(format!("run source {source:?}")))?,
        board: row.try_get("board")?,
        clock_hz: row.try_get::<Option<i64>, _>("clock_hz")?.map(|v| v as u64),
        build: serde_json::from_str(&build).map_err(corrupt)?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        error: row.try_get("error")?,
        rejected_records: row.try_get::<i64, _>("rejected_records")? as u64,
    })
}

fn result_from_row(row: &SqliteRow) -> StoreResult<BenchResult> {
    let name = |column: &str| -> StoreResult<String> { Ok(row.try_get(column)?) };
    let count = |column: &str| -> StoreResult<Option<u64>> {
        Ok(row.try_get::<Option<i64>, _>(column)?.map(|v| v as u64))
    };
    let algorithm = name("algorithm")?;
    let operation = name("operation")?;
    let status = name("status")?;
    Ok(BenchResult {
        algorithm: algorithm.parse().map_err(|_| corrupt(format!("algorithm {algorithm:?}")))?,
        operation: operation.parse().map_err(|_| corrupt(format!("operation {operation:?}")))?,
        status: status.parse().map_err(|_| corrupt(format!("status {status:?}")))?,
        iterations: count("iterations")?,
        total_seconds: row.try_get("total_seconds")?,
        avg_ms: row.try_get("avg_ms")?,
        ops_per_sec: row.try_get("ops_per_sec")?,
        min_ms: row.try_get("min_ms")?,
        median_ms: row.try_get("median_ms")?,
        max_ms: row.try_get("max_ms")?,
        cycles_per_op: row.try_get("cycles_per_op")?,
        ticks_per_op: row.try_get("ticks_per_op")?,
        tick_unit: row.try_get("tick_unit")?,
        bytes_per_sec: row.try_get("bytes_per_sec")?,
        heap_bytes: count("heap_bytes")?,
        heap_allocs: count("heap_allocs")?,
        stack_bytes: count("stack_bytes")?,
        code_bytes: count("code_bytes")?,
        note: row.try_get("note")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pqbench_types::{Algorithm, Operation, Status, TickUnit};

    async fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("pqbench.db")).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn a_run_and_its_results_read_back_as_written() {
        let (_dir, store) = temp_store().await;
        let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
        let m = Measurement {
            iterations: 3,
            total_ticks: 300,
            min_ticks: 99,
            median_ticks: 100,
            max_ticks: 101,
            heap_bytes: Some(10),
            heap_allocs: Some(1),
            stack_bytes: Some(2000),
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Encaps, Status::Ok)
        };
        let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
        let result = BenchResult::from_measurement(&m, &clock);
        store.add_result(id, 1, &result, Some(&m)).await.unwrap();
        store.finish_run(id, RunStatus::Complete, None).await.unwrap();

        assert_eq!(store.results(id).await.unwrap(), [result]);
        let run = store.run(id).await.unwrap().unwrap();
        assert_eq!(run.status, RunStatus::Complete);
        assert!(run.finished_at.is_some());
        assert_eq!(store.runs(Some("qemu-mps2-an386"), 10).await.unwrap().len(), 1);
        assert!(store.runs(Some("other"), 10).await.unwrap().is_empty());
        assert!(store.run(id + 1).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn reports_read_back_and_their_ids_are_never_reused() {
        let (_dir, store) = temp_store().await;
        let view = View {
            filter: pqbench_types::view::Filter {
                algorithms: vec![pqbench_types::Algorithm::MlKem768],
                ..Default::default()
            },
            title: Some("é".into()),
            ..View::default()
        };
        let report = store.insert_report("AAAAAAAAAAAAAAAA", &view).await.unwrap().unwrap();
        assert_eq!(store.report("AAAAAAAAAAAAAAAA").await.unwrap(), Some(report));
        assert_eq!(store.insert_report("AAAAAAAAAAAAAAAA", &View::default()).await.unwrap(), None);
        assert_eq!(store.report("AAAAAAAAAAAAAAAA").await.unwrap().unwrap().view, view);
        assert_eq!(store.report("BBBBBBBBBBBBBBBB").await.unwrap(), None);
    }

    #[tokio::test]
    async fn result_rows_are_filtered_across_runs_newest_first() {
        let (_dir, store) = temp_store().await;
        let clock = Clock { ticks_per_second: 1_000_000, unit: TickUnit::Nanoseconds };
        let measured = |algorithm, operation| Measurement {
            iterations: 1,
            total_ticks: 10,
            min_ticks: 10,
            median_ticks: 10,
            max_ticks: 10,
            ..Measurement::untimed(algorithm, operation, Status::Ok)
        };
        let mut first = NewRun::on_board("native:a", None);
        first.source = Source::Native;
        first.status = RunStatus::Complete;
        let kem = [
            measured(Algorithm::MlKem768, Operation::Keygen),
            measured(Algorithm::MlKem768, Operation::Encaps),
        ];
        let a = store.insert_finished_run(&first, &clock, &kem).await.unwrap();
        let second = NewRun { board: "native:b".into(), ..first };
        let b = store
            .insert_finished_run(&second, &clock, &[measured(Algorithm::Sha256, Operation::Hash)])
            .await
            .unwrap();

        let all = ResultFilter { limit: 100, ..ResultFilter::default() };
        let rows = store.result_rows(&all).await.unwrap();
        let order: Vec<(i64, Operation)> = rows.iter().map(|r| (r.run_id, r.result.operation)).collect();
        assert_eq!(order, [(b, Operation::Hash), (a, Operation::Keygen), (a, Operation::Encaps)]);
        assert_eq!(rows[0].board, "native:b");
        assert_eq!(rows[0].source, Source::Native);
        assert_eq!(rows[0].build_label, "native", "a build that says nothing is named by its source");

        let only = |filter: ResultFilter| {
            let store = store.clone();
            async move {
                let rows = store.result_rows(&ResultFilter { limit: 100, ..filter }).await.unwrap();
                rows.iter().map(|r| (r.run_id, r.result.operation)).collect::<Vec<_>>()
            }
        };
        let kem_only = ResultFilter { algorithms: vec![Algorithm::MlKem768], ..Default::default() };
        assert_eq!(only(kem_only).await, [(a, Operation::Keygen), (a, Operation::Encaps)]);
        let encaps =
            ResultFilter { operations: vec![Operation::Encaps, Operation::Hash], ..Default::default() };
        assert_eq!(only(encaps).await, [(b, Operation::Hash), (a, Operation::Encaps)]);
        let board = ResultFilter { boards: vec!["native:a".into()], runs: vec![a, b], ..Default::default() };
        assert_eq!(only(board).await.len(), 2);
        let browsers = ResultFilter { sources: vec![Source::Browser], ..Default::default() };
        assert_eq!(only(browsers).await, []);
        let first_row = store.result_rows(&ResultFilter { limit: 1, ..Default::default() }).await.unwrap();
        assert_eq!(first_row.len(), 1);
    }

    fn timed(algorithm: Algorithm, operation: Operation) -> (BenchResult, Measurement) {
        let m = Measurement {
            iterations: 1,
            total_ticks: 10,
            min_ticks: 10,
            median_ticks: 10,
            max_ticks: 10,
            ..Measurement::untimed(algorithm, operation, Status::Ok)
        };
        let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
        (BenchResult::from_measurement(&m, &clock), m)
    }

    /// A board run with results stored under these numbers.
    async fn board_run(store: &Store, seqs: &[u32]) -> i64 {
        let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
        for &seq in seqs {
            let (result, m) = timed(Algorithm::MlKem768, Operation::ALL[seq as usize % Operation::ALL.len()]);
            store.add_result(id, seq, &result, Some(&m)).await.unwrap();
        }
        id
    }

    #[tokio::test]
    async fn a_run_is_stored_complete_only_with_every_result_it_reported() {
        let (_dir, store) = temp_store().await;
        let whole = board_run(&store, &[1, 2, 3]).await;
        let written = store.finish_run_expecting(whole, RunStatus::Complete, None, Some(3)).await.unwrap();
        assert_eq!(written, RunStatus::Complete);
        assert_eq!(store.run(whole).await.unwrap().unwrap().error, None);

        // The board said 3, the store holds 2: not complete, and it says why.
        let short = board_run(&store, &[1, 2]).await;
        let written = store.finish_run_expecting(short, RunStatus::Complete, None, Some(3)).await.unwrap();
        assert_eq!(written, RunStatus::Incomplete);
        let run = store.run(short).await.unwrap().unwrap();
        assert_eq!(run.status, RunStatus::Incomplete);
        assert_eq!(run.error.as_deref(), Some("the board reported 3 results, but 2 are stored"));
        assert!(run.finished_at.is_some());

        // Without the board's count, a gap in the numbering still shows.
        let gap = board_run(&store, &[1, 3]).await;
        assert_eq!(store.finish_run(gap, RunStatus::Complete, None).await.unwrap(), RunStatus::Incomplete);
        let error = store.run(gap).await.unwrap().unwrap().error.unwrap();
        assert!(error.contains("2 stored, numbered up to 3"), "{error}");

        // Other endings are written as given, whatever was stored.
        let failed = board_run(&store, &[1]).await;
        let written =
            store.finish_run_expecting(failed, RunStatus::Failed, Some("lost"), Some(9)).await.unwrap();
        assert_eq!(written, RunStatus::Failed);
        assert_eq!(store.run(failed).await.unwrap().unwrap().error.as_deref(), Some("lost"));
        let empty = board_run(&store, &[]).await;
        assert_eq!(store.finish_run(empty, RunStatus::Complete, None).await.unwrap(), RunStatus::Complete);
    }

    #[tokio::test]
    async fn result_rows_say_how_their_run_ended() {
        let (_dir, store) = temp_store().await;
        let done = board_run(&store, &[1]).await;
        store.finish_run(done, RunStatus::Complete, None).await.unwrap();
        let cut_off = board_run(&store, &[1, 2]).await;
        assert_eq!(store.interrupt_unfinished().await.unwrap(), 1);
        let still = board_run(&store, &[1]).await;

        let rows = store.result_rows(&ResultFilter { limit: 100, ..Default::default() }).await.unwrap();
        let statuses: Vec<(i64, RunStatus)> = rows.iter().map(|r| (r.run_id, r.run_status)).collect();
        assert_eq!(
            statuses,
            [
                (still, RunStatus::Running),
                (cut_off, RunStatus::Interrupted),
                (cut_off, RunStatus::Interrupted),
                (done, RunStatus::Complete)
            ]
        );
    }

    /// A running run's build may still change (the board says it once it
    /// answers), so its label is read afresh until the run ends.
    #[tokio::test]
    async fn a_runs_build_label_follows_its_build_until_it_ends() {
        let (_dir, store) = temp_store().await;
        let id = board_run(&store, &[1]).await;
        let label = |store: Store| async move {
            let rows = store.result_rows(&ResultFilter { limit: 10, ..Default::default() }).await.unwrap();
            rows[0].build_label.clone()
        };
        assert_eq!(label(store.clone()).await, "serial");
        let build =
            Build { profile: Some("firmware".into()), opt_level: Some("s".into()), ..Build::default() };
        store.describe_run(id, &build, Some(25_000_000), 25_000_000, "cycles").await.unwrap();
        assert_eq!(label(store.clone()).await, "firmware opt-s");
        store.finish_run(id, RunStatus::Complete, None).await.unwrap();
        assert_eq!(label(store.clone()).await, "firmware opt-s");
        assert_eq!(store.build_labels.lock().unwrap().get(&id).map(String::as_str), Some("firmware opt-s"));
    }

    /// The explorer's queries on a store shaped like a lab's (many runs on
    /// a score of boards, each run a suite's results) and with the
    /// planner's statistics, as `Store::open` gathers them (migration
    /// 0004): each walks an index in the order it returns rows, so its
    /// LIMIT ends the walk; none sorts every matching row first.
    #[tokio::test]
    async fn filtered_result_rows_follow_an_index_without_a_sort() {
        let (_dir, store) = temp_store().await;
        for statement in [
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO runs (status, source, board, build, started_at)
             SELECT 'complete', 'native', 'board-' || (i % 20), '{}', '2026-11-30T00:00:00Z' FROM n",
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2000 * 40 - 1)
             INSERT INTO results (run_id, seq, algorithm, operation, status)
             SELECT i / 40 + 1, i % 40 + 1, 'alg-' || (i % 40), 'op', 'ok' FROM n",
            "UPDATE results SET algorithm = 'ML-KEM-768', operation = 'keygen' WHERE seq = 1",
        ] {
            sqlx::query(statement).execute(&store.pool).await.unwrap();
        }
        let history = || ResultFilter {
            boards: vec!["board-7".into()],
            algorithms: vec![Algorithm::MlKem768],
            operations: vec![Operation::Keygen],
            limit: 200,
            ..Default::default()
        };
        // A history starts from the board's runs even before the planner
        // has statistics (a store filled since the server started).
        let mut query = result_rows_query(&history(), "EXPLAIN QUERY PLAN ");
        let rows = query.build().fetch_all(&store.pool).await.unwrap();
        let plan = rows.iter().map(|row| row.get::<String, _>("detail")).collect::<Vec<_>>().join("; ");
        assert!(
            plan.starts_with("SEARCH runs USING") && plan.contains("runs_by_board") && !plan.contains("TEMP"),
            "{plan}"
        );
        sqlx::query("ANALYZE").execute(&store.pool).await.unwrap();
        let plan = |filter: ResultFilter| {
            let store = store.clone();
            async move {
                let mut query =
                    result_rows_query(&ResultFilter { limit: 200, ..filter }, "EXPLAIN QUERY PLAN ");
                let rows = query.build().fetch_all(&store.pool).await.unwrap();
                rows.iter().map(|row| row.get::<String, _>("detail")).collect::<Vec<_>>().join("; ")
            }
        };
        let names = || ResultFilter {
            algorithms: vec![Algorithm::MlKem768],
            operations: vec![Operation::Keygen],
            ..Default::default()
        };
        let history = ResultFilter { boards: vec!["board-7".into()], ..names() };
        for (filter, index) in [
            (names(), "results_by_name_newest"),
            (history, "runs_by_board"),
            (ResultFilter { boards: vec!["b".into()], ..Default::default() }, "runs_by_board"),
            (ResultFilter { sources: vec![Source::Browser], ..Default::default() }, "runs_by_source"),
            (ResultFilter { runs: vec![3, 1], ..Default::default() }, "PRIMARY KEY"),
        ] {
            let plan = plan(filter.clone()).await;
            assert!(plan.contains(index) && !plan.contains("TEMP B-TREE"), "{filter:?}: {plan}");
        }
    }

    #[tokio::test]
    async fn unfinished_runs_are_interrupted_at_start() {
        let (_dir, store) = temp_store().await;
        let new = NewRun::on_board("b", None);
        let running = store.create_run(&new).await.unwrap();
        let done = store.create_run(&new).await.unwrap();
        store.finish_run(done, RunStatus::Complete, None).await.unwrap();
        assert_eq!(store.interrupt_unfinished().await.unwrap(), 1);
        assert_eq!(store.run(running).await.unwrap().unwrap().status, RunStatus::Interrupted);
        assert_eq!(store.run(done).await.unwrap().unwrap().status, RunStatus::Complete);
    }
}
