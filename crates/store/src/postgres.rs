//! The store on a PostgreSQL server: one database for a team's hosts.

use sqlx::postgres::PgPoolOptions;

use super::StoreResult;

pub(super) type Db = sqlx::Postgres;

// The same statements, compiled for this database (see sql/mod.rs).
#[allow(clippy::duplicate_mod)]
#[path = "sql/mod.rs"]
pub(super) mod sql;

/// Connects to the database at `url` and applies the migrations (its own
/// dialect's, `migrations/postgres`, which mirror SQLite's one for one),
/// then labels the builds of runs stored before 0007.
///
/// Every commit waits for the server's write-ahead log to be flushed (its
/// default), as SQLite's `synchronous=FULL` does for the file store.
pub(super) async fn connect(url: &str) -> StoreResult<sql::Statements> {
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .acquire_timeout(std::time::Duration::from_secs(30))
        .connect(url)
        .await?;
    sqlx::migrate!("../../migrations/postgres").run(&pool).await?;
    let statements = sql::Statements { pool };
    statements.label_builds().await?;
    Ok(statements)
}
