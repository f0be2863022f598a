//! `pqbench migrate` end to end: a populated SQLite store (imported
//! wolfCrypt and pqm4 logs, a native run, board runs ended every way, a
//! run on an agent host, reports) is copied into a real PostgreSQL
//! database. Every run exports the same before and after, byte for byte,
//! and every column of every row is the same, floats to the bit.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use pqbench_store::test_support::fresh_postgres_database;
use pqbench_store::{Location, NewRun, Store};
use pqbench_types::{Algorithm, BenchResult, Clock, Measurement, Operation, RunStatus, Status, TickUnit};
use pqbench_view::View;
use sqlx::{Column, Connection, Row, TypeInfo};

use crate::common;

use common::pqbench;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples");

fn succeeded(output: Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Every run's JSON and CSV export, by id.
fn exports(db: impl AsRef<OsStr> + Copy, runs: &[i64]) -> Vec<(i64, String, String)> {
    runs.iter()
        .map(|&id| {
            let run = id.to_string();
            let json = succeeded(pqbench(&["export", "--run", &run, "--format", "json"], db));
            let csv = succeeded(pqbench(&["export", "--run", &run, "--format", "csv"], db));
            (id, json, csv)
        })
        .collect()
}

/// A store with a bit of everything the tables can hold.
async fn populate(db: &Path) -> Vec<i64> {
    let wolfcrypt = format!("{SAMPLES}/wolfcrypt-stm32u585-memory.txt");
    let args = ["import", "wolfcrypt", &wolfcrypt, "--board", "b-u585i-iot02a", "--clock-hz", "160000000"];
    succeeded(pqbench(&args, db));
    succeeded(pqbench(&["import", "pqm4", &format!("{SAMPLES}/pqm4-2025-excerpt.md")], db));
    let native = [
        "bench",
        "--native",
        "--algorithms",
        "ML-KEM-512,SHA-256",
        "--min-iterations",
        "1",
        "--min-time-ms",
        "0",
    ];
    succeeded(pqbench(&native, db));

    let store = Store::open(db).await.unwrap();
    let clock = Clock { ticks_per_second: 25_000_000, unit: TickUnit::QemuInstructions { per_tick: 40 } };
    let measured = |algorithm, operation, ticks: u64| Measurement {
        iterations: 7,
        total_ticks: ticks * 7 + 3,
        min_ticks: ticks - 1,
        median_ticks: ticks,
        max_ticks: ticks + 9,
        heap_bytes: Some(2042),
        heap_allocs: Some(2),
        stack_bytes: Some(1096),
        ..Measurement::untimed(algorithm, operation, Status::Ok)
    };
    for (status, error, host) in [
        (RunStatus::Complete, None, None),
        (
            RunStatus::Interrupted,
            Some("the agent on lab-a disconnected mid-run; 1 result kept"),
            Some("lab-a"),
        ),
        (RunStatus::Failed, Some("the serial port closed: ✗ \"gone\""), None),
        (RunStatus::Running, None, Some("lab-b")),
    ] {
        let run = NewRun { host: host.map(String::from), ..NewRun::on_board("qemu-mps2-an386", None) };
        let id = store.create_run(&run).await.unwrap();
        let build = pqbench_types::Build { profile: Some("firmware".into()), ..Default::default() };
        store
            .describe_run(id, &build, Some(25_000_000), clock.ticks_per_second, &clock.unit.to_string())
            .await
            .unwrap();
        let m = measured(Algorithm::MlDsa65, Operation::Sign, 1_234_567);
        store.add_result(id, 1, &BenchResult::from_measurement(&m, &clock), Some(&m)).await.unwrap();
        store.count_rejected(id).await.unwrap();
        if status != RunStatus::Running {
            store.finish_run(id, status, error).await.unwrap();
        }
    }
    let view = View { title: Some("ML-KEM on the bench — « shared »".into()), ..View::default() };
    store.insert_report("AbCdEfGhIjKlMnOp", &view).await.unwrap().unwrap();
    store.insert_report("0123456789abcdef", &View::default()).await.unwrap().unwrap();
    let mut runs: Vec<i64> = store.runs(None, 1000).await.unwrap().iter().map(|r| r.id).collect();
    runs.sort();
    runs
}

/// Every row of every table, each column decoded by its declared type
/// (floats as their bits), in id order: equal dumps are equal stores. A
/// macro, as the connection types of the two databases share no trait
/// that sqlx's generic bounds would not have to spell out here.
macro_rules! dump {
    ($connection:expr) => {{
        let mut connection = $connection;
        let mut lines = Vec::new();
        for table in TABLES {
            let query = format!("SELECT * FROM {table} ORDER BY id");
            for row in sqlx::query(&query).fetch_all(&mut connection).await.unwrap() {
                lines.push(format!("{table}: {}", dump_row(&row)));
            }
        }
        lines
    }};
}

async fn dump_sqlite(db: &Path) -> Vec<String> {
    dump!(sqlx::SqliteConnection::connect(&format!("sqlite:{}", db.display())).await.unwrap())
}

async fn dump_postgres(url: &str) -> Vec<String> {
    dump!(sqlx::PgConnection::connect(url).await.unwrap())
}

const TABLES: [&str; 4] = ["imports", "runs", "results", "reports"];

fn dump_row<R: Row>(row: &R) -> String
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<f64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let mut columns: Vec<(String, String)> = row
        .columns()
        .iter()
        .map(|column| {
            let i = column.ordinal();
            let kind = column.type_info().name().to_ascii_uppercase();
            let value = if kind.contains("INT") {
                format!("{:?}", row.try_get_unchecked::<Option<i64>, _>(i).unwrap())
            } else if kind.contains("DOUBLE") || kind.contains("REAL") || kind.contains("FLOAT") {
                format!("{:?}", row.try_get_unchecked::<Option<f64>, _>(i).unwrap().map(f64::to_bits))
            } else {
                format!("{:?}", row.try_get_unchecked::<Option<String>, _>(i).unwrap())
            };
            (column.name().to_string(), value)
        })
        .collect();
    columns.sort();
    format!("{columns:?}")
}

#[tokio::test]
async fn a_populated_sqlite_store_moves_into_postgresql_without_loss() {
    let Some(admin) = pqbench_test_needs::or_skip(pqbench_test_needs::postgres()) else { return };
    let url = fresh_postgres_database(&admin, "migrate").await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("lab.db");
    let runs = populate(&db).await;
    assert!(runs.len() >= 7, "{runs:?}");
    let before = exports(&db, &runs);
    let rows_before = dump_sqlite(&db).await;

    let migrate = |from: &Path, to: &str| {
        Command::new(env!("CARGO_BIN_EXE_pqbench"))
            .args(["migrate", "--from"])
            .arg(from)
            .args(["--to", to])
            .output()
            .unwrap()
    };
    let output = migrate(&db, &url);
    let said = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{said}");
    assert!(said.contains(&format!("runs: {} rows copied", runs.len())), "{said}");

    // Every run exports the same, byte for byte, under the same id.
    let after = exports(url.as_str(), &runs);
    for ((id, json, csv), (_, json_after, csv_after)) in before.iter().zip(&after) {
        assert_eq!(json, json_after, "run {id}'s JSON export");
        assert_eq!(csv, csv_after, "run {id}'s CSV export");
    }
    // Every column of every row, the counts the exports leave out included.
    let rows_after = dump_postgres(&url).await;
    assert_eq!(rows_before.len(), rows_after.len());
    for (sqlite, postgres) in rows_before.iter().zip(&rows_after) {
        assert_eq!(sqlite, postgres);
    }
    let central = Store::connect(&Location::Postgres(url.clone())).await.unwrap();
    let sqlite = Store::open(&db).await.unwrap();
    for id in ["AbCdEfGhIjKlMnOp", "0123456789abcdef"] {
        assert_eq!(central.report(id).await.unwrap(), sqlite.report(id).await.unwrap());
    }
    // New rows number on from the copied ones.
    let next = central.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    assert_eq!(next, runs.iter().max().unwrap() + 1);

    // A second copy into the same database is refused, and changes nothing.
    let output = migrate(&db, &url);
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("already holds") && said.contains("empty store only"), "{said}");
    assert_eq!(central.runs(None, 1000).await.unwrap().len(), runs.len() + 1);

    // Bad input says what is wrong.
    let output = migrate(&dir.path().join("missing.db"), &url);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("no such file"));
    let output = migrate(&db, "elsewhere.db");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("postgres://"));
    assert!(!dir.path().join("missing.db").exists() && !Path::new("elsewhere.db").exists());
}
