//! Every statement of the store, written once and compiled once for each
//! database: this module is the body of both `sqlite::sql` and
//! `postgres::sql`, where `Db` names that module's database. sqlx's
//! generic bounds for "any database with these types" would have to be
//! spelled out on every function; compiling the same text twice gives each
//! database's own concrete types, so sqlx checks every bind and read as
//! usual, and the SQL cannot drift between the two.
//!
//! The SQL is portable: `$n` placeholders (PostgreSQL's; SQLite reads them
//! as numbered parameters), RETURNING, and standard types.
//!
//! Each job's statements are a file of this folder, compiled with it; the
//! rows more than one job writes or reads (a run, a result) are here.

use pqbench_types::{BenchResult, KeyFormat, Measurement, Run, RunStatus, Source};
use sqlx::{Database, Pool, QueryBuilder, Row};

use super::Db;
use crate::{NewRun, StoreResult, corrupt, text, to_json};

mod agent_tokens;
mod imports;
// Visible to the database's module for its tests of their plans.
pub(super) mod matrix;
mod reports;
pub(super) mod results;
mod runs;

type DbRow = <Db as Database>::Row;

/// One database's statements, on its pool.
#[derive(Clone)]
pub struct Statements {
    pub pool: Pool<Db>,
}

impl Statements {
    /// A read of the runs table: the database answers, and holds pqbench's
    /// schema.
    pub async fn ping(&self) -> StoreResult<()> {
        sqlx::query("SELECT count(*) FROM (SELECT 1 FROM runs LIMIT 1) AS one").fetch_one(&self.pool).await?;
        Ok(())
    }
}

async fn insert_run<'e>(
    db: impl sqlx::Executor<'e, Database = Db>,
    run: &NewRun,
    started_at: &str,
    finished_at: Option<&str>,
    import_id: Option<i64>,
    // Who is making the run, and until when it has said so (migration 0012).
    lease: Option<(&str, &str)>,
) -> StoreResult<i64> {
    let row = sqlx::query(
        "INSERT INTO runs (status, source, board, clock_hz, build, build_label, settings, started_at,
            finished_at, import_id, host, owner, lease_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
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
    .bind(lease.map(|(owner, _)| owner))
    .bind(lease.map(|(_, until)| until))
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
    let timed =
        |f: fn(&Measurement) -> Option<u64>| raw.filter(|m| m.iterations > 0).and_then(f).map(|v| v as i64);
    sqlx::query(
        "INSERT INTO results (run_id, seq, algorithm, operation, status, iterations, total_seconds,
            avg_ms, ops_per_sec, min_ms, median_ms, max_ms, cycles_per_op, ticks_per_op, tick_unit,
            bytes_per_sec, heap_bytes, heap_allocs, stack_bytes, code_bytes, note,
            total_ticks, min_ticks, median_ticks, max_ticks, stack_depth_bytes, samples, stdev_ticks,
            stdev_ms, model_cycles_per_op, model_estimate, p10_ticks, p90_ticks, p99_ticks, p10_ms,
            p90_ms, p99_ms, key_format)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
            $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36,
            $37, $38)",
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
    .bind(timed(|m| m.stdev_ticks))
    .bind(result.stdev_ms)
    .bind(result.model.as_ref().map(|model| model.cycles_per_op))
    .bind(result.model.as_ref().map(to_json).transpose()?)
    .bind(timed(|m| m.p10_ticks))
    .bind(timed(|m| m.p90_ticks))
    .bind(timed(|m| m.p99_ticks))
    .bind(result.p10_ms)
    .bind(result.p90_ms)
    .bind(result.p99_ms)
    .bind(result.key_format.map(KeyFormat::as_str))
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

/// The columns of `results` that [`result_from_row`] reads.
const RESULT_FIGURES: &str = "algorithm, operation, status, iterations, total_seconds, avg_ms, ops_per_sec, \
    min_ms, median_ms, max_ms, cycles_per_op, ticks_per_op, tick_unit, bytes_per_sec, heap_bytes, heap_allocs, \
    stack_bytes, code_bytes, note, stack_depth_bytes, samples, stdev_ms, model_estimate, p10_ms, p90_ms, p99_ms, \
    key_format";

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
        p10_ms: row.try_get("p10_ms")?,
        p90_ms: row.try_get("p90_ms")?,
        p99_ms: row.try_get("p99_ms")?,
        key_format: row
            .try_get::<Option<String>, _>("key_format")?
            .map(|name| KeyFormat::from_name(&name).map_err(|_| corrupt(format!("key format {name:?}"))))
            .transpose()?,
    })
}
