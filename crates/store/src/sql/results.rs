//! Results, one by one as a board measures them, and read back: a run's,
//! or across runs as the explorer filters them.

use pqbench_types::{BenchResult, Measurement, ResultRow, RunStatus};
use sqlx::{QueryBuilder, Row};

use super::{Db, RESULT_FIGURES, Statements, any_of, insert_result, result_from_row, source_of};
use crate::{ResultQuery, StoreResult, corrupt};

impl Statements {
    pub async fn add_result(
        &self,
        run_id: i64,
        seq: u32,
        result: &BenchResult,
        raw: Option<&Measurement>,
    ) -> StoreResult<()> {
        insert_result(&self.pool, run_id, seq, result, raw).await
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

    pub async fn results(&self, run_id: i64) -> StoreResult<Vec<BenchResult>> {
        let statement = format!("SELECT {RESULT_FIGURES} FROM results WHERE run_id = $1 ORDER BY seq");
        let rows = sqlx::query(&statement).bind(run_id).fetch_all(&self.pool).await?;
        rows.iter().map(result_from_row).collect()
    }
}

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
