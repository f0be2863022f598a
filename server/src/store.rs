//! The one place that speaks SQL. Every statement is portable (no SQLite
//! dialect) and bound with parameters, never built by concatenation.

use std::path::Path;
use std::str::FromStr;

use pqbench_types::view::View;
use pqbench_types::{
    Algorithm, BenchResult, Build, Clock, LogFormat, Measurement, Operation, Report, ResultRow, Run,
    RunStatus, Source, UnreadLine,
};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow};
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
}

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

impl Store {
    /// Opens (creating if needed) the SQLite file and applies the migrations.
    pub async fn open(path: &Path) -> StoreResult<Store> {
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        Ok(Store { pool })
    }

    pub async fn create_run(&self, run: &NewRun) -> StoreResult<i64> {
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
        sqlx::query("UPDATE runs SET rejected_records = rejected_records + 1 WHERE id = $1")
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn finish_run(&self, run_id: i64, status: RunStatus, error: Option<&str>) -> StoreResult<()> {
        sqlx::query("UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE id = $4")
            .bind(status.as_str())
            .bind(error)
            .bind(now())
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Runs a previous server left running can no longer finish.
    pub async fn interrupt_unfinished(&self) -> StoreResult<u64> {
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
        let mut query = QueryBuilder::<Sqlite>::new(
            "SELECT r.run_id, runs.board AS run_board, runs.source AS run_source,
                runs.started_at AS run_started_at, runs.build AS run_build,
                r.algorithm, r.operation, r.status, r.iterations, r.total_seconds, r.avg_ms,
                r.ops_per_sec, r.min_ms, r.median_ms, r.max_ms, r.cycles_per_op, r.ticks_per_op,
                r.tick_unit, r.bytes_per_sec, r.heap_bytes, r.heap_allocs, r.stack_bytes, r.code_bytes, r.note
             FROM results r JOIN runs ON runs.id = r.run_id
             WHERE 1 = 1",
        );
        any_of(&mut query, "runs.board", filter.boards.iter().cloned());
        any_of(&mut query, "runs.source", filter.sources.iter().map(|s| s.as_str()));
        any_of(&mut query, "r.algorithm", filter.algorithms.iter().map(|a| a.as_str()));
        any_of(&mut query, "r.operation", filter.operations.iter().map(|o| o.as_str()));
        any_of(&mut query, "r.run_id", filter.runs.iter().copied());
        query.push(" ORDER BY r.run_id DESC, r.seq LIMIT ").push_bind(i64::from(filter.limit));
        let rows = query.build().fetch_all(&self.pool).await?;

        // Runs repeat down the rows: read each one's build once.
        let mut labels = std::collections::HashMap::<i64, String>::new();
        rows.iter()
            .map(|row| {
                let run_id: i64 = row.try_get("run_id")?;
                let source: String = row.try_get("run_source")?;
                let source =
                    Source::from_name(&source).ok_or_else(|| corrupt(format!("run source {source:?}")))?;
                let build_label = match labels.get(&run_id) {
                    Some(label) => label.clone(),
                    None => {
                        let build: String = row.try_get("run_build")?;
                        let build: Build = serde_json::from_str(&build).map_err(corrupt)?;
                        let label = build.label(source);
                        labels.insert(run_id, label.clone());
                        label
                    }
                };
                Ok(ResultRow {
                    run_id,
                    board: row.try_get("run_board")?,
                    source,
                    started_at: row.try_get("run_started_at")?,
                    build_label,
                    result: result_from_row(row)?,
                })
            })
            .collect()
    }

    /// Stores a new report under `id`; `None` when that id is taken, for
    /// the caller to draw another.
    pub async fn insert_report(&self, id: &str, view: &View) -> StoreResult<Option<Report>> {
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
