//! `pqbench backup` and `pqbench restore`: a whole store as one SQLite
//! file, taken while a server writes to it, and put back into an empty
//! store.
//!
//! A backup is always a pqbench SQLite store, whichever database it came
//! from: it opens with `pqbench serve --db FILE` as it is, and the same
//! file restores into SQLite or PostgreSQL.
//!
//! - From SQLite, `VACUUM INTO`: SQLite's own copy, made in one read
//!   transaction, so writers go on (the log is write-ahead) and the copy
//!   is the store as of one moment, compacted.
//! - From PostgreSQL, every table in one `REPEATABLE READ` transaction
//!   (one snapshot, writers unhindered), row by row with its ids through
//!   the copier `migrate` uses in the other direction.
//!
//! Either way the file is then opened anew and must pass SQLite's
//! `integrity_check`, its tables counted. A backup never overwrites a
//! file, and one that fails removes what it wrote.

use std::path::{Path, PathBuf};

use sqlx::{Connection, Row};

use crate::migrate::{MigrateError, Migrated, copy_into_sqlite, migrate};
use crate::{Location, StoreError, postgres, sqlite};

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0} already exists: a backup or a restore writes a new file and never overwrites one")]
    Exists(PathBuf),
    #[error("{0} is not a file")]
    Missing(PathBuf),
    #[error("{path} is damaged, SQLite's integrity check says: {says}")]
    Damaged { path: PathBuf, says: String },
    #[error(transparent)]
    Copy(#[from] MigrateError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<sqlx::Error> for BackupError {
    fn from(e: sqlx::Error) -> Self {
        BackupError::Store(e.into())
    }
}

/// Copies the store at `from` into a new SQLite file `to`, checks the
/// copy, and says how many rows each table holds in it.
pub async fn backup(from: &Location, to: &Path) -> Result<Migrated, BackupError> {
    if to.exists() {
        return Err(BackupError::Exists(to.to_path_buf()));
    }
    let copied = match from {
        Location::Sqlite(path) => vacuum_into(path, to).await,
        Location::Postgres(url) => from_postgres(url, to).await,
    };
    if let Err(e) = copied {
        // Only what this backup wrote: `to` did not exist before it.
        for leftover in [to.to_path_buf(), with_suffix(to, "-wal"), with_suffix(to, "-shm")] {
            let _ = std::fs::remove_file(leftover);
        }
        return Err(e);
    }
    check(to).await
}

/// Puts the backup `from` into the empty store `to`: a new SQLite file,
/// or a PostgreSQL database holding nothing yet (as `migrate` takes).
pub async fn restore(from: &Path, to: &Location) -> Result<Migrated, BackupError> {
    check(from).await?;
    match to {
        Location::Postgres(url) => Ok(migrate(from, url).await?),
        Location::Sqlite(path) => {
            if path.exists() {
                return Err(BackupError::Exists(path.clone()));
            }
            vacuum_into(from, path).await?;
            // Opened as a server would: a backup of an older pqbench gets
            // this one's migrations.
            crate::Store::open(path).await?;
            check(path).await
        }
    }
}

/// SQLite's online copy of the store at `from` into the new file `to`.
async fn vacuum_into(from: &Path, to: &Path) -> Result<(), BackupError> {
    if !from.is_file() {
        return Err(BackupError::Missing(from.to_path_buf()));
    }
    let target = to.to_str().ok_or_else(|| {
        BackupError::Io(std::io::Error::other(format!("{} is not a UTF-8 path", to.display())))
    })?;
    // Read-only: neither a live store nor a backup being restored is
    // changed (no migration, no statistics) by being copied.
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(from).read_only(true);
    let mut source = sqlx::SqliteConnection::connect_with(&options).await?;
    sqlx::query("VACUUM INTO $1").bind(target).execute(&mut source).await?;
    source.close().await?;
    Ok(())
}

/// Every table of the PostgreSQL store at `url`, as of one snapshot, into
/// a new SQLite store at `to`.
async fn from_postgres(url: &str, to: &Path) -> Result<(), BackupError> {
    let source = postgres::connect(url).await?;
    let target = sqlite::open(to).await?;
    let mut reading = source.pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *reading).await?;
    let mut writing = target.pool.begin().await?;
    copy_into_sqlite(&mut reading, &mut writing).await?;
    writing.commit().await?;
    reading.rollback().await?;
    target.pool.close().await;
    Ok(())
}

/// Opens the SQLite store at `path`, read-only, and checks it: SQLite's
/// `integrity_check` must say `ok`. Its tables' rows, counted.
pub async fn check(path: &Path) -> Result<Migrated, BackupError> {
    if !path.is_file() {
        return Err(BackupError::Missing(path.to_path_buf()));
    }
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path).read_only(true);
    let pool = sqlx::SqlitePool::connect_with(options).await?;
    let says: Vec<String> = sqlx::query("PRAGMA integrity_check")
        .fetch_all(&pool)
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    if says != ["ok"] {
        return Err(BackupError::Damaged { path: path.to_path_buf(), says: says.join("; ") });
    }
    let mut tables = Vec::new();
    for table in crate::migrate::table_names() {
        let rows: i64 =
            sqlx::query(&format!("SELECT COUNT(*) FROM {table}")).fetch_one(&pool).await?.try_get(0)?;
        tables.push((table, rows));
    }
    pool.close().await;
    Ok(Migrated { tables })
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use pqbench_types::{Algorithm, Build, Clock, Measurement, Operation, RunStatus, Status, TickUnit};

    use super::*;
    use crate::{NewRun, ResultQuery, Store, test_support};

    /// Three runs (one running, with a result), a report: what a store
    /// holds mid-use.
    async fn fill(store: &Store) -> Vec<i64> {
        let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
        let measured = |operation| Measurement {
            iterations: 2,
            total_ticks: 20,
            min_ticks: 9,
            median_ticks: 10,
            max_ticks: 11,
            ..Measurement::untimed(Algorithm::MlKem768, operation, Status::Ok)
        };
        let mut ids = Vec::new();
        for profile in ["release", "debug"] {
            let run = NewRun {
                status: RunStatus::Complete,
                build: Build { profile: Some(profile.into()), ..Build::default() },
                ..NewRun::on_board("native:host", None)
            };
            let measurements = [measured(Operation::Keygen), measured(Operation::Encaps)];
            ids.push(store.insert_finished_run(&run, &clock, &measurements, &[], None).await.unwrap());
        }
        let running = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
        let m = measured(Operation::Decaps);
        let result = pqbench_types::BenchResult::from_measurement(&m, &clock);
        store.add_result(running, 1, &result, Some(&m)).await.unwrap();
        ids.push(running);
        let view = pqbench_view::View { runs: ids.clone(), ..Default::default() };
        store.insert_report("AAAAAAAAAAAAAAAA", &view).await.unwrap();
        assert!(store.add_agent_token("rack-2", &"ab".repeat(32)).await.unwrap());
        ids
    }

    /// What a store shows: its runs and every result row, the report, and
    /// which agent host has a token of its own.
    async fn shown(store: &Store) -> String {
        let runs = store.runs(None, 100).await.unwrap();
        let rows = store.result_rows(&ResultQuery { limit: 1000, ..Default::default() }).await.unwrap();
        let report = store.report("AAAAAAAAAAAAAAAA").await.unwrap();
        let token = store.agent_token_host(&"ab".repeat(32)).await.unwrap();
        format!("{runs:?}\n{rows:?}\n{report:?}\n{token:?}")
    }

    fn counts(copied: &Migrated) -> Vec<(&'static str, i64)> {
        copied.tables.clone()
    }

    const HELD: [(&str, i64); 5] =
        [("imports", 0), ("runs", 3), ("results", 5), ("reports", 1), ("agent_tokens", 1)];

    #[tokio::test]
    async fn an_sqlite_store_backs_up_and_restores_whole() {
        let dir = tempfile::tempdir().unwrap();
        let original = dir.path().join("pqbench.db");
        let store = Store::open(&original).await.unwrap();
        fill(&store).await;
        let copy = dir.path().join("backup.db");
        let backed = backup(&Location::Sqlite(original.clone()), &copy).await.unwrap();
        assert_eq!(counts(&backed), HELD);
        // Never over a file: the backup's, or a store's.
        let again = backup(&Location::Sqlite(original.clone()), &copy).await;
        assert!(matches!(again, Err(BackupError::Exists(_))), "{again:?}");
        assert!(matches!(
            restore(&copy, &Location::Sqlite(original.clone())).await,
            Err(BackupError::Exists(_))
        ));

        let restored = dir.path().join("restored.db");
        assert_eq!(counts(&restore(&copy, &Location::Sqlite(restored.clone())).await.unwrap()), HELD);
        let restored = Store::open(&restored).await.unwrap();
        assert_eq!(shown(&restored).await, shown(&store).await);
        // The backup opens as a store of its own, too.
        assert_eq!(shown(&Store::open(&copy).await.unwrap()).await, shown(&store).await);
    }

    #[tokio::test]
    async fn a_damaged_or_missing_backup_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let missing = restore(&dir.path().join("none.db"), &Location::Sqlite(dir.path().join("x.db"))).await;
        assert!(matches!(missing, Err(BackupError::Missing(_))), "{missing:?}");
        let original = dir.path().join("pqbench.db");
        fill(&Store::open(&original).await.unwrap()).await;
        let copy = dir.path().join("backup.db");
        backup(&Location::Sqlite(original), &copy).await.unwrap();
        // A page in the middle overwritten, as a bad disk would.
        let mut bytes = std::fs::read(&copy).unwrap();
        let page = 4096;
        assert!(bytes.len() > 3 * page);
        bytes[2 * page..3 * page].fill(0x55);
        std::fs::write(&copy, bytes).unwrap();
        let target = dir.path().join("restored.db");
        let damaged = restore(&copy, &Location::Sqlite(target.clone())).await;
        assert!(damaged.is_err(), "{damaged:?}");
        assert!(!target.exists(), "nothing restored from a damaged backup");
    }

    #[tokio::test]
    async fn a_postgresql_store_backs_up_to_a_file_and_restores_into_an_empty_database() {
        let Some(admin) = pqbench_test_needs::or_skip(pqbench_test_needs::postgres()) else { return };
        let url = test_support::fresh_postgres_database(&admin, "backup").await;
        let store = Store::connect(&Location::Postgres(url.clone())).await.unwrap();
        let ids = fill(&store).await;
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("backup.db");
        assert_eq!(counts(&backup(&Location::Postgres(url.clone()), &copy).await.unwrap()), HELD);
        assert_eq!(shown(&Store::open(&copy).await.unwrap()).await, shown(&store).await);

        let empty = test_support::fresh_postgres_database(&admin, "restore").await;
        let restored = restore(&copy, &Location::Postgres(empty.clone())).await.unwrap();
        assert_eq!(counts(&restored), HELD);
        let restored = Store::connect(&Location::Postgres(empty.clone())).await.unwrap();
        assert_eq!(shown(&restored).await, shown(&store).await);
        // New runs continue after the restored ids.
        let next = restored.create_run(&NewRun::on_board("b", None)).await.unwrap();
        assert!(next > *ids.iter().max().unwrap());
        // Not into a database that holds anything.
        let twice = restore(&copy, &Location::Postgres(empty)).await;
        assert!(matches!(twice, Err(BackupError::Copy(MigrateError::NotEmpty { .. }))), "{twice:?}");
    }
}
