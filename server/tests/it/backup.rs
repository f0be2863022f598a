//! `pqbench backup` taken while a server stores uploads from four clients
//! at once (the crash test's writers), on SQLite and on PostgreSQL: the
//! backup passes SQLite's integrity check, holds every upload the server
//! acknowledged before it started, each whole, and restores into an empty
//! store with every run it holds.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pqbench_api::RunCreated;
use pqbench_api::uploads::MAX_MEASUREMENTS;
use pqbench_store::test_support::fresh_postgres_database;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, Row, SqliteConnection};

use crate::common;
use crate::crash::{large_upload, numbered};

const POSTERS: usize = 4;

/// Posts uploads until `stop`, pushing each run the server acknowledged.
async fn post_until(base: String, poster: usize, stop: Arc<AtomicBool>, acknowledged: Arc<Mutex<Vec<i64>>>) {
    let client = reqwest::Client::new();
    let upload = large_upload();
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let response = client
            .post(format!("{base}/api/uploads"))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(numbered(&upload, poster, n))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 201);
        let created: RunCreated = response.json().await.unwrap();
        acknowledged.lock().unwrap().push(created.id);
    }
}

/// Each run the backup file holds, with its number of results; checked
/// sound first.
async fn runs_in(path: &std::path::Path) -> std::collections::BTreeMap<i64, i64> {
    let options = SqliteConnectOptions::new().filename(path).read_only(true);
    let mut conn = SqliteConnection::connect_with(&options).await.unwrap();
    let integrity: Vec<String> =
        sqlx::query_scalar("PRAGMA integrity_check").fetch_all(&mut conn).await.unwrap();
    assert_eq!(integrity, ["ok"]);
    let rows =
        sqlx::query("SELECT runs.id, (SELECT COUNT(*) FROM results WHERE run_id = runs.id) AS n FROM runs")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    rows.iter().map(|row| (row.get("id"), row.get("n"))).collect()
}

/// The backup of `server`'s store `db`, taken while four clients upload.
async fn backed_up_while_writing(server: &common::Server, db: &str) {
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let posters: Vec<_> = (0..POSTERS)
        .map(|poster| {
            tokio::spawn(post_until(server.base.clone(), poster, stop.clone(), acknowledged.clone()))
        })
        .collect();
    while acknowledged.lock().unwrap().len() < 20 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let before: Vec<i64> = acknowledged.lock().unwrap().clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.db");
    let file_arg = file.to_str().unwrap().to_owned();
    let db_arg = db.to_owned();
    let output = tokio::task::spawn_blocking(move || common::pqbench(&["backup", "--to", &file_arg], db_arg))
        .await
        .unwrap();
    let during = acknowledged.lock().unwrap().len() - before.len();
    stop.store(true, Ordering::Relaxed);
    for poster in posters {
        poster.await.unwrap();
    }
    let said =
        String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("integrity check: ok"), "{said}");
    eprintln!("{during} uploads acknowledged while the backup ran");

    let held = runs_in(&file).await;
    for id in &before {
        assert_eq!(
            held.get(id),
            Some(&(MAX_MEASUREMENTS as i64)),
            "run {id}, acknowledged before the backup"
        );
    }
    assert!(held.values().all(|&n| n == MAX_MEASUREMENTS as i64), "every upload whole or absent: {held:?}");

    // It restores into an empty store, and not over one.
    let restored = dir.path().join("restored.db");
    let output = common::pqbench(&["restore", "--from", file.to_str().unwrap()], &restored);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(runs_in(&restored).await, held);
    let output = common::pqbench(&["restore", "--from", file.to_str().unwrap()], &restored);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("already exists"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_of_an_sqlite_store_taken_under_writers_holds_every_acknowledged_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pqbench.db");
    let server =
        common::start_server_with(common::ServerOptions { db: Some(db.clone()), ..Default::default() }).await;
    backed_up_while_writing(&server, db.to_str().unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_of_a_postgresql_store_taken_under_writers_holds_every_acknowledged_run() {
    let Some(admin) = pqbench_test_needs::or_skip(pqbench_test_needs::postgres()) else { return };
    let url = fresh_postgres_database(&admin, "backup").await;
    let server = common::start_server_with(common::ServerOptions {
        postgres: Some(url.clone()),
        ..Default::default()
    })
    .await;
    backed_up_while_writing(&server, &url).await;
}
