//! The store in one SQLite file: the default, nothing to install or run.

use std::path::Path;
use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::StoreResult;

pub(super) type Db = sqlx::Sqlite;

// The same statements, compiled for this database (see sql/mod.rs).
#[allow(clippy::duplicate_mod)]
#[path = "sql/mod.rs"]
pub(super) mod sql;

/// Opens (creating if needed) the file and applies the migrations.
///
/// Write-ahead logging, so readers (the dashboard) never wait on a run
/// being written, and a crash at any point leaves the last committed
/// state. `synchronous=FULL` syncs the log at every commit: a committed
/// run survives a power cut too, not only a killed process, and a
/// commit is one run's status or one board result every few seconds, or
/// a whole upload, so the sync costs little.
pub(super) async fn open(path: &Path) -> StoreResult<sql::Statements> {
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
    sqlx::migrate!("../../migrations/sqlite").run(&pool).await?;
    // Runs stored before builds were labelled (migration 0007) are
    // labelled now, once.
    let statements = sql::Statements { pool };
    statements.label_builds().await?;
    let pool = &statements.pool;
    // Statistics for the planner from a sample of each index (at most
    // 1000 rows read), gathered where missing or stale: quick on a
    // store of millions of results.
    let mut connection = pool.acquire().await?;
    sqlx::query("PRAGMA analysis_limit=1000").execute(&mut *connection).await?;
    sqlx::query("PRAGMA optimize=0x10002").execute(&mut *connection).await?;
    drop(connection);
    Ok(statements)
}

#[cfg(test)]
mod tests {
    use pqbench_types::{Algorithm, Operation, Source};
    use sqlx::Row;

    use super::sql::matrix::available_statement;
    use super::sql::results::result_rows_query;
    use crate::ResultQuery;

    /// The explorer's queries on a store shaped like a lab's (many runs on
    /// a score of boards, each run a suite's results) and with the
    /// planner's statistics, as `open` gathers them (migrations 0004 and
    /// 0007): each walks an index in the order it returns rows, so its
    /// LIMIT ends the walk; none sorts every matching row first.
    #[tokio::test]
    async fn filtered_result_rows_follow_an_index_without_a_sort() {
        let dir = tempfile::tempdir().unwrap();
        let statements = super::open(&dir.path().join("plan.db")).await.unwrap();
        let pool = &statements.pool;
        for statement in [
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO runs (status, source, board, build, started_at)
             SELECT 'complete', 'native', 'board-' || (i % 20), '{}', '2026-11-30T00:00:00Z' FROM n",
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2000 * 40 - 1)
             INSERT INTO results (run_id, seq, algorithm, operation, status)
             SELECT i / 40 + 1, i % 40 + 1, 'alg-' || (i % 40), 'op', 'ok' FROM n",
            "UPDATE results SET algorithm = 'ML-KEM-768', operation = 'keygen' WHERE seq = 1",
        ] {
            sqlx::query(statement).execute(pool).await.unwrap();
        }
        let history = || ResultQuery {
            boards: vec!["board-7".into()],
            algorithms: vec![Algorithm::MlKem768],
            operations: vec![Operation::Keygen],
            limit: 200,
            ..Default::default()
        };
        // A history starts from the board's runs even before the planner
        // has statistics (a store filled since the server started).
        let mut query = result_rows_query(&history(), "EXPLAIN QUERY PLAN ");
        let rows = query.build().fetch_all(pool).await.unwrap();
        let plan = rows.iter().map(|row| row.get::<String, _>("detail")).collect::<Vec<_>>().join("; ");
        assert!(
            plan.starts_with("SEARCH runs USING") && plan.contains("runs_by_board") && !plan.contains("TEMP"),
            "{plan}"
        );
        sqlx::query("ANALYZE").execute(pool).await.unwrap();
        let plan = |filter: ResultQuery| async move {
            let mut query = result_rows_query(&ResultQuery { limit: 200, ..filter }, "EXPLAIN QUERY PLAN ");
            let rows = query.build().fetch_all(pool).await.unwrap();
            rows.iter().map(|row| row.get::<String, _>("detail")).collect::<Vec<_>>().join("; ")
        };
        let names = || ResultQuery {
            algorithms: vec![Algorithm::MlKem768],
            operations: vec![Operation::Keygen],
            ..Default::default()
        };
        let history = ResultQuery { boards: vec!["board-7".into()], ..names() };
        for (filter, index) in [
            (names(), "results_by_name_newest"),
            (history, "runs_by_board"),
            (ResultQuery { boards: vec!["b".into()], ..Default::default() }, "runs_by_board"),
            (ResultQuery { sources: vec![Source::Browser], ..Default::default() }, "runs_by_source"),
            (ResultQuery { runs: vec![3, 1], ..Default::default() }, "PRIMARY KEY"),
        ] {
            let plan = plan(filter.clone()).await;
            assert!(plan.contains(index) && !plan.contains("TEMP B-TREE"), "{filter:?}: {plan}");
        }
        // The matrix's (board, build) pairs: a seek of `runs_by_build` for
        // each step, never a scan of the runs or a sort.
        let rows = sqlx::query(&format!("EXPLAIN QUERY PLAN {}", available_statement()))
            .bind("complete")
            .fetch_all(pool)
            .await
            .unwrap();
        let plan: Vec<String> = rows.iter().map(|row| row.get::<String, _>("detail")).collect();
        let reads: Vec<&String> = plan.iter().filter(|step| step.contains(" runs ")).collect();
        assert!(
            !reads.is_empty()
                && reads.iter().all(|step| step.starts_with("SEARCH runs USING")
                    && (step.contains("COVERING INDEX runs_by_build (status=?")
                        || step.contains("PRIMARY KEY")))
                && !plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{plan:?}"
        );
    }
}
