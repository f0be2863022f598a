//! The boards x builds matrix: which runs are its columns, and their
//! results.

use pqbench_api::{MAX_MATRIX_COLUMNS, MatrixColumn, MatrixKey};
use pqbench_types::{ResultRow, RunStatus, Source};
use sqlx::{QueryBuilder, Row};

use super::{Db, RESULT_FIGURES, RUN_COLUMNS, Statements, any_of, result_from_row, run_from_row, source_of};
use crate::{MatrixHead, ResultQuery, StoreResult, corrupt};

impl Statements {
    /// The matrix's columns and what they depend on: everything but the
    /// results' figures (see [`MatrixHead`]).
    pub async fn matrix_head(&self, query: &ResultQuery) -> StoreResult<MatrixHead> {
        let available = self.available().await?;
        let kept = |board: &str, source: Source, label: &str| {
            (query.boards.is_empty() || query.boards.iter().any(|b| b == board))
                && (query.sources.is_empty() || query.sources.contains(&source))
                && (query.builds.is_empty() || query.builds.iter().any(|b| b == label))
        };
        let (columns, truncated) = if query.runs.is_empty() {
            let mut latest: Vec<i64> = available
                .iter()
                .filter(|key| kept(&key.board, key.source, &key.build_label))
                .map(|key| key.latest_run)
                .collect();
            latest.sort_unstable_by(|a, b| b.cmp(a));
            let truncated = latest.len() > MAX_MATRIX_COLUMNS;
            latest.truncate(MAX_MATRIX_COLUMNS);
            let mut columns = self.columns(&latest).await?;
            // By board (a stand-in beside its chip), then build.
            columns.sort_by(|a, b| {
                (pqbench_boards::column_order(&a.run.board), &a.build_label)
                    .cmp(&(pqbench_boards::column_order(&b.run.board), &b.build_label))
            });
            (columns, truncated)
        } else {
            // In the order asked, each run once.
            let mut asked = std::collections::HashMap::new();
            for &id in &query.runs {
                let next = asked.len();
                asked.entry(id).or_insert(next);
            }
            let ids: Vec<i64> = asked.keys().copied().collect();
            let mut columns = self.columns(&ids).await?;
            columns.retain(|column| kept(&column.run.board, column.run.source, &column.build_label));
            columns.sort_by_key(|column| asked[&column.run.id]);
            let truncated = columns.len() > MAX_MATRIX_COLUMNS;
            columns.truncate(MAX_MATRIX_COLUMNS);
            (columns, truncated)
        };
        let stored = self.stored_results(&columns).await?;
        Ok(MatrixHead { columns, available, truncated, stored })
    }

    /// The results of `head`'s columns, narrowed by `query`'s algorithms
    /// and operations, newest run first and each run's in the order
    /// measured, at most `query.limit`: [`Statements::result_rows`]'s
    /// rows for these runs, read by `(run_id, seq)` alone, as each row's
    /// run is already at hand among the columns.
    pub async fn matrix_results(
        &self,
        head: &MatrixHead,
        query: &ResultQuery,
    ) -> StoreResult<Vec<ResultRow>> {
        if head.columns.is_empty() {
            return Ok(Vec::new());
        }
        let runs: std::collections::HashMap<i64, &MatrixColumn> =
            head.columns.iter().map(|column| (column.run.id, column)).collect();
        let mut select =
            QueryBuilder::<Db>::new(format!("SELECT run_id, {RESULT_FIGURES} FROM results WHERE 1 = 1"));
        any_of(&mut select, "run_id", runs.keys().copied());
        any_of(&mut select, "algorithm", query.algorithms.iter().map(|a| a.as_str()));
        any_of(&mut select, "operation", query.operations.iter().map(|o| o.as_str()));
        select.push(" ORDER BY run_id DESC, seq LIMIT ").push_bind(i64::from(query.limit));
        let rows = select.build().fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| {
                let run_id: i64 = row.try_get("run_id")?;
                let column = runs
                    .get(&run_id)
                    .ok_or_else(|| corrupt(format!("a result of run {run_id}, not asked for")))?;
                Ok(ResultRow {
                    run_id,
                    board: column.run.board.clone(),
                    source: column.run.source,
                    started_at: column.run.started_at.clone(),
                    build_label: column.build_label.clone(),
                    run_status: column.run.status,
                    result: result_from_row(row)?,
                })
            })
            .collect()
    }

    /// Every (board, build label) with a complete run, and its latest
    /// complete run, by board then label.
    ///
    /// A loose index scan of `runs_by_build` (migration 0007): from each
    /// (board, label) the next one is one seek, and each one's latest run
    /// another, so the cost follows the number of builds, not of runs.
    /// A `GROUP BY` read every complete run's index entry: 10 ms for
    /// 25,000 runs in SQLite, against 0.3 ms for this (40 builds).
    /// `ORDER BY .. LIMIT 1` rather than `MIN`: SQLite reads `MIN` with a
    /// range condition as a scan of the range. A run whose label is not
    /// yet set (`Statements::label_builds` sets it at open) is no column.
    async fn available(&self) -> StoreResult<Vec<MatrixKey>> {
        let rows = sqlx::query(&available_statement())
            .bind(RunStatus::Complete.as_str())
            .fetch_all(&self.pool)
            .await?;
        let mut keys = rows
            .iter()
            .map(|row| {
                Ok(MatrixKey {
                    board: row.try_get("board")?,
                    source: source_of(row, "source")?,
                    build_label: row.try_get("build_label")?,
                    latest_run: row.try_get("id")?,
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        // Sorted here, not by the database: PostgreSQL's order of text is
        // its collation's, SQLite's is the bytes'.
        keys.sort_by(|a, b| (&a.board, &a.build_label).cmp(&(&b.board, &b.build_label)));
        Ok(keys)
    }

    /// These runs as matrix columns, in no particular order; an unknown id
    /// is left out.
    async fn columns(&self, ids: &[i64]) -> StoreResult<Vec<MatrixColumn>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = QueryBuilder::<Db>::new(format!("{RUN_COLUMNS} WHERE 1 = 1"));
        any_of(&mut query, "id", ids.iter().copied());
        let rows = query.build().fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| Ok(MatrixColumn { run: run_from_row(row)?, build_label: row.try_get("build_label")? }))
            .collect()
    }

    /// How many results each column's run has stored, by run id, read
    /// from the `(run_id, seq)` index alone.
    async fn stored_results(&self, columns: &[MatrixColumn]) -> StoreResult<Vec<(i64, i64)>> {
        if columns.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = QueryBuilder::<Db>::new("SELECT run_id, COUNT(*) AS stored FROM results WHERE 1 = 1");
        any_of(&mut query, "run_id", columns.iter().map(|column| column.run.id));
        query.push(" GROUP BY run_id");
        let rows = query.build().fetch_all(&self.pool).await?;
        let mut stored = rows
            .iter()
            .map(|row| Ok((row.try_get("run_id")?, row.try_get("stored")?)))
            .collect::<StoreResult<Vec<(i64, i64)>>>()?;
        stored.sort_unstable();
        Ok(stored)
    }
}

/// [`Statements::available`]'s statement: `$1` is the complete status.
/// The recursion steps from one (board, label) of `runs_by_build` to the
/// next: the board's next label, or else the next board's first label.
pub fn available_statement() -> String {
    let next_label = "(SELECT build_label FROM runs WHERE status = $1 AND board = build.board
        AND build_label > build.build_label ORDER BY build_label LIMIT 1)";
    let next_board =
        "(SELECT board FROM runs WHERE status = $1 AND board > build.board ORDER BY board LIMIT 1)";
    let first_label = |board: &str| {
        format!(
            "(SELECT build_label FROM runs WHERE status = $1 AND board = {board} AND build_label IS NOT NULL
              ORDER BY build_label LIMIT 1)"
        )
    };
    format!(
        "WITH RECURSIVE build (board, build_label) AS (
            SELECT first.board, {first_of_first}
              FROM (SELECT board FROM runs WHERE status = $1 ORDER BY board LIMIT 1) first
            UNION ALL
            SELECT CASE WHEN {next_label} IS NULL THEN {next_board} ELSE build.board END,
                   COALESCE({next_label}, {first_of_next})
              FROM build
             WHERE {next_label} IS NOT NULL OR {next_board} IS NOT NULL
        )
        SELECT build.board, build.build_label, runs.id, runs.source
          FROM build
          JOIN runs ON runs.id = (SELECT id FROM runs WHERE status = $1 AND board = build.board
                                     AND build_label = build.build_label ORDER BY id DESC LIMIT 1)",
        first_of_first = first_label("first.board"),
        first_of_next = first_label(next_board),
    )
}
