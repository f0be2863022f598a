//! `pqbench migrate`: a whole SQLite store copied into PostgreSQL.
//!
//! Every row of every table is copied column by column with its id, so run
//! ids, share links and the import that made a run stay as they were; the
//! tables are read in one SQLite transaction (a server writing to the file
//! meanwhile cannot tear the copy) and written in one PostgreSQL
//! transaction (a copy that fails leaves the target as it was). The target
//! must hold no runs, reports or imports: a copy never merges.

use std::path::Path;

use futures_util::TryStreamExt;
use sqlx::{Postgres, QueryBuilder, Row};

use super::{StoreError, postgres, sqlite};

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "the target database already holds {rows} rows in `{table}`: migrate copies into an empty store only"
    )]
    NotEmpty { table: &'static str, rows: i64 },
    #[error("`{table}` holds {source_rows} rows in SQLite but {copied} were copied; nothing was committed")]
    Count { table: &'static str, source_rows: i64, copied: i64 },
}

impl From<sqlx::Error> for MigrateError {
    fn from(e: sqlx::Error) -> Self {
        MigrateError::Store(e.into())
    }
}

/// What was copied, table by table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    pub tables: Vec<(&'static str, i64)>,
}

#[derive(Clone, Copy)]
enum Kind {
    Integer,
    Real,
    Text,
}

struct Table {
    name: &'static str,
    columns: &'static [(&'static str, Kind)],
    /// The identity column whose sequence must continue after the copied
    /// ids (reports have text ids).
    identity: bool,
}

use Kind::{Integer, Real, Text};

/// Every table and column of the schema, in an order that satisfies the
/// foreign keys (a run names its import, a result its run). A column
/// added by a later migration must be added here too, or it would be lost:
/// `every_column_of_the_schema_is_copied` checks this list against SQLite.
const TABLES: &[Table] = &[
    Table {
        name: "imports",
        columns: &[
            ("id", Integer),
            ("digest", Text),
            ("format", Text),
            ("file_name", Text),
            ("version", Text),
            ("unread", Text),
            ("imported_at", Text),
        ],
        identity: true,
    },
    Table {
        name: "runs",
        columns: &[
            ("id", Integer),
            ("status", Text),
            ("source", Text),
            ("board", Text),
            ("clock_hz", Integer),
            ("ticks_per_second", Integer),
            ("tick_unit", Text),
            ("build", Text),
            ("settings", Text),
            ("started_at", Text),
            ("finished_at", Text),
            ("error", Text),
            ("rejected_records", Integer),
            ("import_id", Integer),
            ("host", Text),
            ("build_label", Text),
            ("notes", Text),
            ("owner", Text),
            ("lease_until", Text),
            ("upload_digest", Text),
        ],
        identity: true,
    },
    Table {
        name: "results",
        columns: &[
            ("id", Integer),
            ("run_id", Integer),
            ("seq", Integer),
            ("algorithm", Text),
            ("operation", Text),
            ("status", Text),
            ("iterations", Integer),
            ("total_seconds", Real),
            ("avg_ms", Real),
            ("ops_per_sec", Real),
            ("min_ms", Real),
            ("median_ms", Real),
            ("max_ms", Real),
            ("cycles_per_op", Real),
            ("ticks_per_op", Real),
            ("tick_unit", Text),
            ("bytes_per_sec", Real),
            ("heap_bytes", Integer),
            ("heap_allocs", Integer),
            ("stack_bytes", Integer),
            ("code_bytes", Integer),
            ("note", Text),
            ("total_ticks", Integer),
            ("min_ticks", Integer),
            ("median_ticks", Integer),
            ("max_ticks", Integer),
            ("stack_depth_bytes", Integer),
            ("samples", Integer),
            ("stdev_ticks", Integer),
            ("stdev_ms", Real),
            ("model_cycles_per_op", Real),
            ("model_estimate", Text),
            ("p10_ticks", Integer),
            ("p90_ticks", Integer),
            ("p99_ticks", Integer),
            ("p10_ms", Real),
            ("p90_ms", Real),
            ("p99_ms", Real),
            ("key_format", Text),
        ],
        identity: true,
    },
    Table {
        name: "reports",
        columns: &[("id", Text), ("view", Text), ("created_at", Text)],
        identity: false,
    },
    Table {
        name: "agent_tokens",
        columns: &[("host", Text), ("digest", Text), ("created_at", Text)],
        identity: false,
    },
];

/// The names of the tables a copy holds, in [`TABLES`]' order.
pub(crate) fn table_names() -> impl Iterator<Item = &'static str> {
    TABLES.iter().map(|table| table.name)
}

/// The most parameters one statement may bind on both databases: SQLite's
/// 32,766 (`SQLITE_MAX_VARIABLE_NUMBER` since 3.32); PostgreSQL takes
/// 65,535. A backup writes SQLite, a migration PostgreSQL.
const MAX_PARAMETERS: usize = 32_766;

/// Rows per INSERT of `table`: as many as fit one statement's parameters
/// (840 of results' 39 columns), so that a table that grows a column never
/// makes a batch one database refuses.
fn rows_per_insert(table: &Table) -> usize {
    MAX_PARAMETERS / table.columns.len()
}

/// Copies the SQLite store at `from` (migrated first, as any pqbench
/// command opening it would) into the PostgreSQL database at `to`.
pub async fn migrate(from: &Path, to: &str) -> Result<Migrated, MigrateError> {
    if !from.is_file() {
        return Err(
            StoreError::Corrupt(format!("{} is not an SQLite store (no such file)", from.display())).into()
        );
    }
    let source = sqlite::open(from).await?;
    let target = postgres::connect(to).await?;
    let mut reading = source.pool.begin().await?;
    let mut writing = target.pool.begin().await?;
    for table in TABLES {
        let rows: i64 = sqlx::query(&format!("SELECT COUNT(*) AS n FROM {}", table.name))
            .fetch_one(&mut *writing)
            .await?
            .try_get("n")?;
        if rows > 0 {
            return Err(MigrateError::NotEmpty { table: table.name, rows });
        }
    }
    let copied = copy_into_postgres(&mut reading, &mut writing).await?;
    writing.commit().await?;
    reading.rollback().await?;
    Ok(Migrated { tables: copied })
}

enum Value {
    Integer(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
}

/// A copier of every table from one database's transaction into
/// another's, row by row with its ids, counting both sides: written once
/// and made for each direction (SQLite into PostgreSQL for `migrate`,
/// PostgreSQL into SQLite for a backup), as `sql/` is for statements.
macro_rules! copier {
    ($copy:ident, $from:ty, $into:ty, $identity:expr) => {
        /// Copies every table of [`TABLES`], in its order, checking that
        /// each holds as many rows on both sides as were copied.
        pub(crate) async fn $copy(
            reading: &mut sqlx::Transaction<'_, $from>,
            writing: &mut sqlx::Transaction<'_, $into>,
        ) -> Result<Vec<(&'static str, i64)>, MigrateError> {
            /// Inserts `rows` of `table` in one statement.
            async fn insert(
                writing: &mut sqlx::Transaction<'_, $into>,
                table: &Table,
                columns: &str,
                rows: &[Vec<Value>],
            ) -> Result<i64, MigrateError> {
                let mut query =
                    QueryBuilder::<$into>::new(format!("INSERT INTO {} ({columns}) ", table.name));
                query.push_values(rows, |mut row, values| {
                    for value in values {
                        match value {
                            Value::Integer(v) => row.push_bind(*v),
                            Value::Real(v) => row.push_bind(*v),
                            Value::Text(v) => row.push_bind(v.clone()),
                        };
                    }
                });
                let done = query.build().execute(&mut **writing).await?;
                Ok(done.rows_affected() as i64)
            }

            let mut copied = Vec::new();
            for table in TABLES {
                let columns = table.columns.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ");
                // In the order of the first column, the key: a copy reads
                // and writes the rows as the source holds them.
                let select = format!("SELECT {columns} FROM {} ORDER BY {}", table.name, table.columns[0].0);
                let mut rows = sqlx::query(&select).fetch(&mut **reading);
                let rows_per_insert = rows_per_insert(table);
                let mut batch = Vec::with_capacity(rows_per_insert);
                let mut count = 0i64;
                while let Some(row) = rows.try_next().await? {
                    let values = table
                        .columns
                        .iter()
                        .map(|&(column, kind)| {
                            Ok(match kind {
                                Integer => Value::Integer(row.try_get(column)?),
                                Real => Value::Real(row.try_get(column)?),
                                Text => Value::Text(row.try_get(column)?),
                            })
                        })
                        .collect::<Result<Vec<Value>, sqlx::Error>>()?;
                    batch.push(values);
                    if batch.len() == rows_per_insert {
                        count += insert(writing, table, &columns, &batch).await?;
                        batch.clear();
                    }
                }
                drop(rows);
                if !batch.is_empty() {
                    count += insert(writing, table, &columns, &batch).await?;
                }
                let source_rows: i64 = sqlx::query(&format!("SELECT COUNT(*) AS n FROM {}", table.name))
                    .fetch_one(&mut **reading)
                    .await?
                    .try_get("n")?;
                let target_rows: i64 = sqlx::query(&format!("SELECT COUNT(*) AS n FROM {}", table.name))
                    .fetch_one(&mut **writing)
                    .await?
                    .try_get("n")?;
                if source_rows != count || target_rows != count {
                    return Err(MigrateError::Count { table: table.name, source_rows, copied: target_rows });
                }
                if table.identity {
                    $identity(&mut **writing, table.name).await?;
                }
                copied.push((table.name, count));
            }
            Ok(copied)
        }
    };
}

copier!(copy_into_postgres, sqlx::Sqlite, Postgres, continue_postgres_ids);
copier!(copy_into_sqlite, Postgres, sqlx::Sqlite, continue_sqlite_ids);

/// New rows continue after the copied ids, as they would have in SQLite.
/// (PostgreSQL's own function: this module is the one place that knows
/// it is writing to PostgreSQL.)
async fn continue_postgres_ids(writing: &mut sqlx::PgConnection, table: &str) -> Result<(), sqlx::Error> {
    sqlx::query(&format!(
        "SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
    ))
    .execute(writing)
    .await
    .map(drop)
}

/// SQLite's `INTEGER PRIMARY KEY` continues after the largest id by itself.
async fn continue_sqlite_ids(_: &mut sqlx::SqliteConnection, _: &str) -> Result<(), sqlx::Error> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite refuses a statement of more than 32,766 parameters, and
    /// PostgreSQL of 65,535: a full batch of any table fits both, and is
    /// still hundreds of rows.
    #[test]
    fn a_full_batch_of_any_table_fits_one_statement_on_both_databases() {
        for table in TABLES {
            let parameters = table.columns.len() * rows_per_insert(table);
            assert!(parameters <= 32_766, "{}: {parameters} parameters", table.name);
            assert!(rows_per_insert(table) >= 500, "{}: {} rows", table.name, rows_per_insert(table));
        }
    }

    /// A column a migration adds must be copied too: the list above names
    /// every column SQLite's schema has, table by table.
    #[tokio::test]
    async fn every_column_of_the_schema_is_copied() {
        let dir = tempfile::tempdir().unwrap();
        let store = sqlite::open(&dir.path().join("schema.db")).await.unwrap();
        let names = |query: String| {
            let pool = store.pool.clone();
            async move {
                let rows = sqlx::query(&query).fetch_all(&pool).await.unwrap();
                let mut names: Vec<String> = rows.iter().map(|row| row.get("name")).collect();
                names.sort();
                names
            }
        };
        let tables = names(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' \
             AND name NOT LIKE 'sqlite%'"
                .into(),
        )
        .await;
        let mut listed: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        listed.sort();
        assert_eq!(tables, listed);
        for table in TABLES {
            let columns = names(format!("SELECT name FROM pragma_table_info('{}')", table.name)).await;
            let mut listed: Vec<String> = table.columns.iter().map(|(c, _)| c.to_string()).collect();
            listed.sort();
            assert_eq!(columns, listed, "the columns of {}", table.name);
        }
    }
}
