//! Every statement of the store, written once and compiled once for each
//! database: this file is the body of both `sqlite::sql` and
//! `postgres::sql`, where `Db` names that module's database. sqlx's
//! generic bounds for "any database with these types" would have to be
//! spelled out on every function; compiling the same text twice gives each
//! database's own concrete types, so sqlx checks every bind and read as
//! usual, and the SQL cannot drift between the two.
//!
//! The SQL is portable: `$n` placeholders (PostgreSQL's; SQLite reads them
//! as numbered parameters), RETURNING, and standard types.

use pqbench_api::{MAX_MATRIX_COLUMNS, MatrixColumn, MatrixKey, Report, UploadNote};
use pqbench_types::{BenchResult, Build, Clock, Measurement, ResultRow, Run, RunStatus, Source};
use pqbench_view::View;
use sqlx::{Database, Pool, QueryBuilder, Row};

use super::Db;
use crate::{MatrixHead, NewImport, NewRun, ResultQuery, StoreError, StoreResult, corrupt, text, to_json};

type DbRow = <Db as Database>::Row;

/// One database's statements, on its pool.
#[derive(Clone)]
pub struct Statements {
    pub pool: Pool<Db>,
}

impl Statements {
    pub async fn create_run(&self, run: &NewRun, now: &str) -> StoreResult<i64> {
        insert_run(&self.pool, run, now, None, None).await
    }

    pub async fn describe_run(
        &self,
        run_id: i64,
        build: &Build,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: &str,
    ) -> StoreResult<()> {
        // The label depends on the run's source, read back by the write
        // itself: a transaction that writes first holds SQLite's write
        // lock from its first statement (see `finish_run_expecting`).
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "UPDATE runs SET build = $1, clock_hz = $2, ticks_per_second = $3, tick_unit = $4 WHERE id = $5
             RETURNING source",
        )
        .bind(to_json(build)?)
        .bind(clock_hz.map(|hz| hz as i64))
        .bind(ticks_per_second as i64)
        .bind(tick_unit)
        .bind(run_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(row) = row {
            let source = source_of(&row, "source")?;
            sqlx::query("UPDATE runs SET build_label = $1 WHERE id = $2")
                .bind(text(&build.label(source)))
                .bind(run_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Labels the runs stored before builds were labelled (migration
    /// 0007): each build's label is made in Rust, from its JSON and the
    /// run's source. 500 runs a transaction, each committed, so a store
    /// of many runs is never held in one long write; a run whose label a
    /// writer set meanwhile (from a newer build) is left as it is.
    /// Returns how many runs were labelled.
    pub async fn label_builds(&self) -> StoreResult<u64> {
        let mut labelled = 0;
        let mut after = 0i64;
        loop {
            let rows = sqlx::query(
                "SELECT id, source, build FROM runs WHERE build_label IS NULL AND id > $1 ORDER BY id LIMIT 500",
            )
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
            let Some(last) = rows.last() else { return Ok(labelled) };
            after = last.try_get("id")?;
            let mut tx = self.pool.begin().await?;
            for row in &rows {
                let id: i64 = row.try_get("id")?;
                let build: String = row.try_get("build")?;
                let build: Build =
                    serde_json::from_str(&build).map_err(|e| corrupt(format!("run {id}'s build: {e}")))?;
                let done =
                    sqlx::query("UPDATE runs SET build_label = $1 WHERE id = $2 AND build_label IS NULL")
                        .bind(text(&build.label(source_of(row, "source")?)))
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                labelled += done.rows_affected();
            }
            tx.commit().await?;
        }
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

    pub async fn insert_finished_run(
        &self,
        run: &NewRun,
        clock: &Clock,
        measurements: &[Measurement],
        notes: &[UploadNote],
        now: &str,
    ) -> StoreResult<i64> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "INSERT INTO runs (status, source, board, clock_hz, ticks_per_second, tick_unit, build,
                build_label, settings, started_at, finished_at, host)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
        )
        .bind(run.status.as_str())
        .bind(run.source.as_str())
        .bind(text(&run.board))
        .bind(run.clock_hz.map(|hz| hz as i64))
        .bind(clock.ticks_per_second as i64)
        .bind(clock.unit.to_string())
        .bind(to_json(&run.build)?)
        .bind(text(&run.build.label(run.source)))
        .bind(run.settings.as_ref().map(|s| s.to_string()))
        .bind(now)
        .bind(now)
        .bind(run.host.as_deref())
        .fetch_one(&mut *tx)
        .await?;
        let id: i64 = row.try_get("id")?;
        for (seq, m) in (1..).zip(measurements) {
            let mut result = BenchResult::from_measurement(m, clock);
            let given = notes.iter().find(|n| (n.algorithm, n.operation) == (m.algorithm, m.operation));
            if let Some(given) = given {
                result.note = Some(crate::upload::with_note(result.note.take(), &given.note));
            }
            insert_result(&mut *tx, id, seq, &result, Some(m)).await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    pub async fn insert_import(&self, import: &NewImport, now: &str) -> StoreResult<Vec<i64>> {
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO imports (digest, format, file_name, version, unread, imported_at)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&import.digest)
        .bind(import.format.as_str())
        .bind(import.file_name.as_deref().map(text))
        .bind(import.version.as_deref().map(text))
        .bind(to_json(&import.unread)?)
        .bind(now)
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
            let id = insert_run(&mut *tx, run, now, Some(now), Some(import_id)).await?;
            for (seq, result) in (1..).zip(results) {
                insert_result(&mut *tx, id, seq, result, None).await?;
            }
            ids.push(id);
        }
        tx.commit().await?;
        Ok(ids)
    }

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

    /// Appends a line to the run's notes.
    pub async fn note_run(&self, run_id: i64, note: &str) -> StoreResult<()> {
        // One statement, so two notes never lose each other.
        sqlx::query(
            "UPDATE runs SET notes = CASE WHEN notes IS NULL THEN $1 ELSE notes || '\n' || $1 END \
             WHERE id = $2",
        )
        .bind(text(note))
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn finish_run_expecting(
        &self,
        run_id: i64,
        status: RunStatus,
        error: Option<&str>,
        expected: Option<u32>,
        now: &str,
    ) -> StoreResult<RunStatus> {
        let mut tx = self.pool.begin().await?;
        // Written first, so that the transaction holds the write lock from
        // its first statement: in SQLite, a read first would have to
        // upgrade its snapshot to write, which fails outright (not after a
        // wait) when another connection committed in between.
        sqlx::query("UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE id = $4")
            .bind(status.as_str())
            .bind(error.map(text))
            .bind(now)
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

    /// Marks `interrupted`, with `reason`, every run not yet finished.
    pub async fn interrupt_unfinished(&self, reason: &str, now: &str) -> StoreResult<u64> {
        let done =
            sqlx::query("UPDATE runs SET status = $1, error = $2, finished_at = $3 WHERE status IN ($4, $5)")
                .bind(RunStatus::Interrupted.as_str())
                .bind(reason)
                .bind(now)
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

    pub async fn runs(&self, board: Option<&str>, limit: u32) -> StoreResult<Vec<Run>> {
        let rows =
            sqlx::query(&format!("{RUN_COLUMNS} WHERE ($1 IS NULL OR board = $1) ORDER BY id DESC LIMIT $2"))
                .bind(board)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(run_from_row).collect()
    }

    pub async fn complete_runs_before(&self, board: &str, before: i64, limit: u32) -> StoreResult<Vec<Run>> {
        let rows = sqlx::query(&format!(
            "{RUN_COLUMNS} WHERE status = 'complete' AND board = $1 AND id < $2 ORDER BY id DESC LIMIT $3"
        ))
        .bind(board)
        .bind(before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_from_row).collect()
    }

    pub async fn result_rows(&self, filter: &ResultQuery) -> StoreResult<Vec<ResultRow>> {
        let mut query = result_rows_query(filter, "");
        let rows = query.build().fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| {
                let run_status: String = row.try_get("run_status")?;
                Ok(ResultRow {
                    run_id: row.try_get("run_id")?,
                    board: row.try_get("run_board")?,
                    source: source_of(row, "run_source")?,
                    started_at: row.try_get("run_started_at")?,
                    build_label: row.try_get("run_build_label")?,
                    run_status: RunStatus::from_name(&run_status)
                        .ok_or_else(|| corrupt(format!("run status {run_status:?}")))?,
                    result: result_from_row(row)?,
                })
            })
            .collect()
    }

    /// `None` when the id is taken.
    pub async fn insert_report(&self, id: &str, view: &View, now: &str) -> StoreResult<Option<Report>> {
        let inserted = sqlx::query("INSERT INTO reports (id, view, created_at) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(to_json(view)?)
            .bind(now)
            .execute(&self.pool)
            .await;
        match inserted {
            Ok(_) => Ok(Some(Report { id: id.into(), view: view.clone(), created_at: now.into() })),
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
        let statement = format!("SELECT {RESULT_FIGURES} FROM results WHERE run_id = $1 ORDER BY seq");
        let rows = sqlx::query(&statement).bind(run_id).fetch_all(&self.pool).await?;
        rows.iter().map(result_from_row).collect()
    }
}

/// The columns of `results` that [`result_from_row`] reads.
const RESULT_FIGURES: &str = "algorithm, operation, status, iterations, total_seconds, avg_ms, ops_per_sec, \
    min_ms, median_ms, max_ms, cycles_per_op, ticks_per_op, tick_unit, bytes_per_sec, heap_bytes, heap_allocs, \
    stack_bytes, code_bytes, note, stack_depth_bytes, samples, stdev_ms, model_estimate";

/// The statement of [`Statements::result_rows`], after `prefix` (`EXPLAIN
/// QUERY PLAN ` in a test of its plan).
pub fn result_rows_query(filter: &ResultQuery, prefix: &str) -> QueryBuilder<'static, Db> {
    let mut query = QueryBuilder::<Db>::new(prefix);
    query.push(
        "SELECT r.run_id, runs.board AS run_board, runs.source AS run_source,
            runs.started_at AS run_started_at, runs.status AS run_status, runs.build_label AS run_build_label",
    );
    for figure in RESULT_FIGURES.split(", ") {
        query.push(", r.").push(figure);
    }
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
    any_of(&mut query, "runs.build_label", filter.builds.iter().cloned());
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
    // filtered only by run, source or build, the runs (by id,
    // `runs_by_source`) and each one's results by `(run_id, seq)`.
    let by_name = !filter.algorithms.is_empty() || !filter.operations.is_empty();
    let by_run = !filter.boards.is_empty()
        || !filter.sources.is_empty()
        || !filter.builds.is_empty()
        || !filter.runs.is_empty();
    let newest = if !filter.boards.is_empty() || (by_run && !by_name) { "runs.id" } else { "r.run_id" };
    query.push(format!(" ORDER BY {newest} DESC, r.seq LIMIT ")).push_bind(i64::from(filter.limit));
    query
}

async fn insert_run<'e>(
    db: impl sqlx::Executor<'e, Database = Db>,
    run: &NewRun,
    started_at: &str,
    finished_at: Option<&str>,
    import_id: Option<i64>,
) -> StoreResult<i64> {
    let row = sqlx::query(
        "INSERT INTO runs (status, source, board, clock_hz, build, build_label, settings, started_at,
            finished_at, import_id, host)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
    )
    .bind(run.status.as_str())
    .bind(run.source.as_str())
    .bind(text(&run.board))
    .bind(run.clock_hz.map(|hz| hz as i64))
    .bind(to_json(&run.build)?)
    .bind(text(&run.build.label(run.source)))
    .bind(run.settings.as_ref().map(|s| s.to_string()))
    .bind(started_at)
    .bind(finished_at)
    .bind(import_id)
    .bind(run.host.as_deref())
    .fetch_one(db)
    .await?;
    Ok(row.try_get("id")?)
}

async fn insert_result<'e>(
    db: impl sqlx::Executor<'e, Database = Db>,
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
            total_ticks, min_ticks, median_ticks, max_ticks, stack_depth_bytes, samples, stdev_ticks,
            stdev_ms, model_cycles_per_op, model_estimate)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
            $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)",
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
    .bind(result.note.as_deref().map(text))
    .bind(ticks(|m| m.total_ticks))
    .bind(ticks(|m| m.min_ticks))
    .bind(ticks(|m| m.median_ticks))
    .bind(ticks(|m| m.max_ticks))
    .bind(result.stack_depth_bytes.map(|v| v as i64))
    .bind(result.samples.map(|v| v as i64))
    .bind(raw.filter(|m| m.iterations > 0).and_then(|m| m.stdev_ticks).map(|v| v as i64))
    .bind(result.stdev_ms)
    .bind(result.model.as_ref().map(|model| model.cycles_per_op))
    .bind(result.model.as_ref().map(to_json).transpose()?)
    .execute(db)
    .await?;
    Ok(())
}

/// Narrows `query` to rows whose `column` is one of `values`; no values, no
/// narrowing.
fn any_of<'a, T>(query: &mut QueryBuilder<'a, Db>, column: &str, values: impl Iterator<Item = T>)
where
    T: 'a + sqlx::Encode<'a, Db> + sqlx::Type<Db>,
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

const RUN_COLUMNS: &str = "SELECT id, status, source, board, clock_hz, build, build_label, started_at,
    finished_at, error, rejected_records, host, notes FROM runs";

fn source_of(row: &DbRow, column: &str) -> StoreResult<Source> {
    let source: String = row.try_get(column)?;
    Source::from_name(&source).ok_or_else(|| corrupt(format!("run source {source:?}")))
}

fn run_from_row(row: &DbRow) -> StoreResult<Run> {
    let status: String = row.try_get("status")?;
    let build: String = row.try_get("build")?;
    Ok(Run {
        id: row.try_get("id")?,
        status: RunStatus::from_name(&status).ok_or_else(|| corrupt(format!("run status {status:?}")))?,
        source: source_of(row, "source")?,
        board: row.try_get("board")?,
        clock_hz: row.try_get::<Option<i64>, _>("clock_hz")?.map(|v| v as u64),
        build: serde_json::from_str(&build).map_err(corrupt)?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        error: row.try_get("error")?,
        rejected_records: row.try_get::<i64, _>("rejected_records")? as u64,
        host: row.try_get("host")?,
        notes: row.try_get("notes")?,
    })
}

fn result_from_row(row: &DbRow) -> StoreResult<BenchResult> {
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
        stack_depth_bytes: count("stack_depth_bytes")?,
        samples: count("samples")?,
        stdev_ms: row.try_get("stdev_ms")?,
        model: row
            .try_get::<Option<String>, _>("model_estimate")?
            .map(|json| serde_json::from_str(&json).map_err(corrupt))
            .transpose()?,
    })
}

// The matrix's statements, in a file of their own (this one holds the rest).
include!("sql_matrix.rs");

// Agent hosts' own tokens.
include!("sql_agent_tokens.rs");
