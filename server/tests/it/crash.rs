//! Crash safety, for real: `pqbench serve` killed with SIGKILL while it
//! stores uploads and a board run, ten times over on one database.
//!
//! After each kill the SQLite file is opened directly and must be sound: no
//! corruption, every upload whole or absent (and every one the server
//! acknowledged present), no run `complete` with rows missing. After each
//! restart no run may be left `running` or `queued`: the runs the crash cut
//! off are `interrupted`, saying the server stopped.
//!
//! Needs the firmware image: `cargo xtask test` builds it and sets PQBENCH_DIST.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use pqbench_api::RunCreated;
use pqbench_api::uploads::MAX_MEASUREMENTS;
use pqbench_types::{Algorithm, Operation, Run, RunStatus};
use serde_json::{Value, json};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, Row, SqliteConnection};

use crate::common;

const ROUNDS: u64 = 10;
/// Uploads posted at once, each poster sending one after another until the
/// server dies, so that the kill lands while some are being stored.
const POSTERS: usize = 4;
/// The board run: one algorithm, one call each, so results arrive within
/// the kill delays.
const BOARD_ALGORITHM: &str = "ML-KEM-512";
const BOARD_RESULTS: i64 = 3;

/// As many distinct (algorithm, operation) pairs as an upload takes, once
/// each: the largest upload the server takes without a pair measured twice.
/// `upload` as the `n`th of its poster's: a note numbers it, so that each
/// is content of its own (the server stores the same upload once).
pub(crate) fn numbered(upload: &Value, poster: usize, n: usize) -> Vec<u8> {
    let mut upload = upload.clone();
    let first = upload["measurements"][0].clone();
    upload["notes"] = json!([{
        "algorithm": first["algorithm"], "operation": first["operation"], "note": format!("poster {poster} upload {n}")
    }]);
    serde_json::to_vec(&upload).unwrap()
}

pub(crate) fn large_upload() -> Value {
    let measurements: Vec<Value> = Algorithm::ALL
        .iter()
        .flat_map(|a| Operation::ALL.iter().map(move |o| (a, o)))
        .take(MAX_MEASUREMENTS)
        .map(|(algorithm, operation)| {
            json!({
                "algorithm": algorithm.as_str(), "operation": operation.as_str(), "status": "ok",
                "iterations": 4, "total_ticks": 400_000, "min_ticks": 90_000, "median_ticks": 100_000,
                "max_ticks": 120_000, "heap_bytes": 4736, "heap_allocs": 5, "stack_bytes": 30_200,
                "bytes_per_op": null, "needed_bytes": null
            })
        })
        .collect();
    json!({
        "source": "browser", "board": "browser:crashtest", "ticks_per_second": 1_000_000_000u64,
        "tick_unit": "ns", "clock_hz": null,
        "build": {"target": "wasm32-unknown-unknown", "extra": {"user_agent": "crash test"}},
        "measurements": measurements
    })
}

/// 50 to 600 ms, spread over the rounds by a fixed hash of the round
/// (splitmix64), so every run of the test kills at the same moments.
fn kill_delay(round: u64) -> Duration {
    let mut z = round.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    Duration::from_millis(50 + z % 551)
}

/// A run as the file holds it, with its rows counted.
#[derive(Debug)]
struct StoredRun {
    status: String,
    source: String,
    rows: i64,
    /// The highest `seq`: equal to `rows` when they are numbered 1..=n.
    last_seq: i64,
}

/// Opens the file as a fresh process would after the crash (SQLite
/// recovers the write-ahead log on open) and reads what it holds.
async fn inspect(db: &Path) -> BTreeMap<i64, StoredRun> {
    let options = SqliteConnectOptions::new().filename(db).create_if_missing(false);
    let mut conn =
        SqliteConnection::connect_with(&options).await.expect("opening the database after the kill");
    let integrity: Vec<String> =
        sqlx::query_scalar("PRAGMA integrity_check").fetch_all(&mut conn).await.unwrap();
    assert_eq!(integrity, ["ok"], "integrity_check after the kill");
    let dangling: Vec<(String,)> =
        sqlx::query_as("PRAGMA foreign_key_check").fetch_all(&mut conn).await.unwrap();
    assert!(dangling.is_empty(), "results without their run: {dangling:?}");
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&mut conn).await.unwrap();
    assert_eq!(mode, "wal");
    let rows = sqlx::query(
        "SELECT runs.id, runs.status, runs.source,
            (SELECT COUNT(*) FROM results WHERE run_id = runs.id) AS n,
            (SELECT COALESCE(MAX(seq), 0) FROM results WHERE run_id = runs.id) AS last_seq
         FROM runs",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    rows.iter()
        .map(|row| {
            (
                row.get("id"),
                StoredRun {
                    status: row.get("status"),
                    source: row.get("source"),
                    rows: row.get("n"),
                    last_seq: row.get("last_seq"),
                },
            )
        })
        .collect()
}

/// Stops the server dead: frozen first (SIGSTOP), so the emulators it
/// started can be listed with none starting after, then SIGKILL, as a crash.
/// Returns those emulators, `(pid, name)`.
fn crash(server: &mut common::Server) -> Vec<(i32, String)> {
    let pid = server.pid() as i32;
    // SAFETY: signals a process this test started and still owns.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0, "freezing the server");
    let children = common::children_of(server.pid())
        .iter()
        .filter_map(|child| {
            let (pid, rest) = child.split_once(" (")?;
            let name = rest.rsplit_once(')')?.0;
            Some((pid.parse().ok()?, name.to_string()))
        })
        .collect();
    server.kill_hard();
    children
}

/// Kills the emulators a killed server left, by pid, each only if it is
/// still the process of that name. A server that takes its emulators with
/// it (PR_SET_PDEATHSIG) leaves none, and this finds them gone.
async fn kill_left_over(children: &[(i32, String)]) {
    let alive = |pid: i32, name: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim_end() == name)
    };
    for (pid, name) in children {
        if alive(*pid, name) {
            // SAFETY: a pid this test saw as the killed server's child, of the same name.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while children.iter().any(|(pid, name)| alive(*pid, name)) {
        assert!(Instant::now() < deadline, "the killed server's emulators are still running: {children:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the board run's emulator has started (stage 0), or until
/// the run has stored `stage` results, or has ended.
async fn wait_for_stage(server: &common::Server, run: i64, stage: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reached = if stage == 0 {
            !common::children_of(server.pid()).is_empty()
        } else {
            let results: Vec<Value> = server.get(&format!("/api/runs/{run}/results")).await;
            results.len() as u64 >= stage
        };
        let ended = || async { server.get::<Run>(&format!("/api/runs/{run}")).await.status.is_finished() };
        if reached || ended().await {
            return;
        }
        assert!(Instant::now() < deadline, "board run {run} did not reach stage {stage} in 60 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Posts `upload`, numbered anew each time, until the server stops
/// answering; returns the runs it acknowledged.
async fn post_until_gone(base: String, upload: Value, poster: usize) -> Vec<i64> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let mut acknowledged = Vec::new();
    for n in 0.. {
        let sent = client
            .post(format!("{base}/api/uploads"))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(numbered(&upload, poster, n))
            .send()
            .await;
        let Ok(response) = sent else { return acknowledged };
        let status = response.status().as_u16();
        let Ok(text) = response.text().await else { return acknowledged };
        assert_eq!(status, 201, "a sound upload was refused: {text}");
        let Ok(created) = serde_json::from_str::<RunCreated>(&text) else { return acknowledged };
        acknowledged.push(created.id);
    }
    acknowledged
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_while_storing_leaves_a_sound_store_ten_times_over() {
    pqbench_test_needs::require!(common::firmware_dist());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let upload = large_upload();
    // One port for every round: the server started again is the same
    // server, which interrupts at once the runs it left.
    let port = common::free_port();
    let upload_rows = (Algorithm::ALL.len() * Operation::ALL.len()).min(MAX_MEASUREMENTS) as i64;
    let started = Instant::now();
    // Runs the last crash cut off, to be found `interrupted` after the restart.
    let mut cut_off: Vec<i64> = Vec::new();
    let (mut uploads_stored, mut board_runs_cut, mut board_rows_kept) = (0, 0, 0);

    for round in 0..=ROUNDS {
        let mut server = common::start_server_with(common::ServerOptions {
            db: Some(db.clone()),
            port: Some(port),
            ..Default::default()
        })
        .await;
        for &id in &cut_off {
            let run: Run = server.get(&format!("/api/runs/{id}")).await;
            assert_eq!(run.status, RunStatus::Interrupted, "run {id} after the restart: {run:?}");
            let error = run.error.unwrap_or_default();
            assert!(error.contains("server stopped"), "run {id}: {error}");
        }
        let unfinished: Vec<(i64, String)> = inspect(&db)
            .await
            .into_iter()
            .filter(|(_, run)| run.status == "running" || run.status == "queued")
            .map(|(id, run)| (id, run.status))
            .collect();
        assert!(unfinished.is_empty(), "after the restart, still unfinished: {unfinished:?}");
        if round == ROUNDS {
            break;
        }

        let posters: Vec<_> = (0..POSTERS)
            .map(|poster| {
                tokio::spawn(post_until_gone(
                    server.base.clone(),
                    upload.clone(),
                    round as usize * POSTERS + poster,
                ))
            })
            .collect();
        let request = json!({"board": "qemu-mps2-an386", "algorithms": [BOARD_ALGORITHM], "min_iterations": 1, "min_time_ms": 0});
        let (status, body) = server.post("/api/runs", &request).await;
        assert_eq!(status, 202, "{body}");
        let board_run = body["id"].as_i64().unwrap();

        // The kill lands at a different stage of the board run each round:
        // its emulator started, then 1, 2 or all 3 results stored; then a
        // further 50-600 ms. The uploads go on throughout.
        let stage = round % (BOARD_RESULTS as u64 + 1);
        wait_for_stage(&server, board_run, stage).await;
        let delay = kill_delay(round);
        tokio::time::sleep(delay).await;
        let emulators = crash(&mut server);
        kill_left_over(&emulators).await;
        let mut acknowledged = Vec::new();
        for poster in posters {
            acknowledged.extend(poster.await.unwrap());
        }

        let runs = inspect(&db).await;
        for (id, run) in &runs {
            assert_eq!(run.rows, run.last_seq, "run {id}'s rows are not numbered 1 to n: {run:?}");
            match run.source.as_str() {
                // An upload is stored whole, with its status, or not at all.
                "browser" => {
                    assert_eq!(run.status, "complete", "upload {id}: {run:?}");
                    assert_eq!(run.rows, upload_rows, "upload {id} is stored in part: {run:?}");
                }
                "serial" if run.status == "complete" => {
                    assert_eq!(
                        run.rows, BOARD_RESULTS,
                        "board run {id} is complete without its rows: {run:?}"
                    )
                }
                _ => {}
            }
        }
        for id in &acknowledged {
            assert!(runs.contains_key(id), "upload {id} was acknowledged, then lost in the crash");
        }
        let board = runs.get(&board_run).expect("the board run's row, written before its 202");
        uploads_stored = runs.values().filter(|run| run.source == "browser").count();
        if board.status == "running" {
            board_runs_cut += 1;
            board_rows_kept += board.rows;
        }
        eprintln!(
            "round {round}: killed {} ms after stage {stage} with {} emulator(s); {} uploads acknowledged, {} stored in \
             all; board run {board_run} {} with {} of {BOARD_RESULTS} results",
            delay.as_millis(),
            emulators.len(),
            acknowledged.len(),
            uploads_stored,
            board.status,
            board.rows
        );
        cut_off = runs
            .iter()
            .filter(|(_, run)| run.status == "running" || run.status == "queued")
            .map(|(&id, _)| id)
            .collect();
    }
    eprintln!(
        "{ROUNDS} kills in {:.1} s; board runs cut off: {board_runs_cut} (keeping {board_rows_kept} results)",
        started.elapsed().as_secs_f64()
    );
    assert!(uploads_stored > 0, "no upload was ever stored: the kills tested nothing");
}
