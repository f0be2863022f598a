//! What the dashboard reads and writes beyond runs, against the real
//! server: a run's live events, cancelling it, shared reports, results
//! across runs and the matrix of boards and builds.
//!
//! The tests that run a board need the firmware image: `cargo xtask test`
//! builds it and sets PQBENCH_DIST.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pqbench_api::Matrix;
use pqbench_types::{ResultRow, Run, RunStatus, Source};
use serde_json::{Value, json};

use crate::common;

use common::{Server, children_of};

/// A run's server-sent events, read as they come.
struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    async fn open(server: &Server, id: i64) -> Events {
        let response = reqwest::get(format!("{}/api/runs/{id}/events", server.base)).await.unwrap();
        assert_eq!(response.status(), 200);
        let kind = response.headers()[reqwest::header::CONTENT_TYPE].to_str().unwrap().to_string();
        assert!(kind.starts_with("text/event-stream"), "{kind}");
        Events { response, buffer: String::new() }
    }

    /// The next event's name and data, or None once the server has closed
    /// the stream. Keep-alive comments are skipped.
    async fn next(&mut self) -> Option<(String, Value)> {
        loop {
            if let Some(at) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..at + 2).collect();
                let mut name = None;
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        name = Some(value.trim().to_string());
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.trim());
                    }
                }
                match name {
                    Some(name) => return Some((name, serde_json::from_str(&data).unwrap())),
                    None => continue,
                }
            }
            match self.response.chunk().await.unwrap() {
                Some(bytes) => self.buffer.push_str(std::str::from_utf8(&bytes).unwrap()),
                None => {
                    assert!(self.buffer.trim().is_empty(), "cut off: {:?}", self.buffer);
                    return None;
                }
            }
        }
    }

    async fn next_within(&mut self, limit: Duration) -> Option<(String, Value)> {
        tokio::time::timeout(limit, self.next()).await.expect("no event in time")
    }

    /// Every event to the end of the stream: progress, then `end`.
    async fn until_end(&mut self, limit: Duration) -> Vec<(String, Value)> {
        let deadline = Instant::now() + limit;
        let mut events = Vec::new();
        while let Some(event) = self.next_within(deadline.saturating_duration_since(Instant::now())).await {
            events.push(event);
        }
        events
    }
}

async fn request(method: reqwest::Method, server: &Server, path: &str) -> (u16, Value) {
    let response =
        reqwest::Client::new().request(method, format!("{}{path}", server.base)).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn get_status(server: &Server, path: &str) -> (u16, Value) {
    request(reqwest::Method::GET, server, path).await
}

async fn post_raw(server: &Server, path: &str, body: String) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", server.base))
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// The processes `pid` started that still exist, reaped or not.
fn upload(board: &str, source: &str, build: Value, measurements: &[(&str, &str)]) -> Value {
    let measurements: Vec<Value> = measurements
        .iter()
        .map(|(algorithm, operation)| {
            json!({
                "algorithm": algorithm, "operation": operation, "status": "ok",
                "iterations": 4, "total_ticks": 400_000, "min_ticks": 90_000, "median_ticks": 100_000,
                "max_ticks": 120_000, "heap_bytes": 100, "heap_allocs": 1, "stack_bytes": 2000,
                "bytes_per_op": null, "needed_bytes": null
            })
        })
        .collect();
    json!({
        "source": source, "board": board, "ticks_per_second": 1_000_000_000u64, "tick_unit": "ns",
        "clock_hz": null, "build": build, "measurements": measurements
    })
}

/// `body` measured again: another run's figures, as no two runs' are the
/// same (the server stores the same upload once).
fn newer(mut body: Value) -> Value {
    for m in body["measurements"].as_array_mut().unwrap() {
        m["max_ticks"] = json!(m["max_ticks"].as_u64().unwrap() + 1000);
    }
    body
}

/// The run and operation of each row `GET /api/results?{query}` lists.
async fn result_ids(server: &Server, query: String) -> Vec<(i64, &'static str)> {
    let rows: Vec<ResultRow> = server.get(&format!("/api/results?{query}")).await;
    rows.iter().map(|r| (r.run_id, r.result.operation.as_str())).collect()
}

async fn uploaded(server: &Server, body: Value) -> i64 {
    let (status, created) = server.post("/api/uploads", &body).await;
    assert_eq!(status, 201, "{created}");
    created["id"].as_i64().unwrap()
}

/// A browser's run (`Chrome 131.0`: ML-KEM-768 keygen, encaps), then a
/// host's (`release opt-3, libcrux-ml-kem 0.0.11`: SHA-256 hash, ML-KEM-768
/// keygen), uploaded.
async fn a_browser_run_then_a_native_one(server: &Server) -> (i64, i64) {
    let chrome = json!({"target": "wasm32-unknown-unknown", "extra": {"browser": "Chrome 131.0"}});
    let kem = [("ML-KEM-768", "keygen"), ("ML-KEM-768", "encaps")];
    let a = uploaded(server, upload("browser:aaaa", "browser", chrome, &kem)).await;
    let b = uploaded(server, upload("native:host", "native", native_release(), &NATIVE_SUITE)).await;
    (a, b)
}

const NATIVE_SUITE: [(&str, &str); 2] = [("SHA-256", "hash"), ("ML-KEM-768", "keygen")];

fn native_release() -> Value {
    json!({"profile": "release", "opt_level": "3", "crates": {"libcrux-ml-kem": "0.0.11"}})
}

#[tokio::test]
async fn a_run_s_events_show_its_progress_then_its_end_and_close() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let request = json!({
        "board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"], "min_iterations": 3, "min_time_ms": 0
    });
    let (status, body) = server.post("/api/runs", &request).await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_i64().unwrap();

    let events = Events::open(&server, id).await.until_end(Duration::from_secs(120)).await;
    let (last, progress) = events.split_last().expect("no events");
    assert_eq!(last.0, "end", "{events:?}");
    assert_eq!(last.1, json!({"status": "complete", "error": null}));
    assert!(!progress.is_empty(), "no progress before the end: {events:?}");
    let mut done = 0;
    let mut elapsed = 0;
    for (name, p) in progress {
        assert_eq!(name, "progress");
        let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 6, "{p}");
        for key in ["done", "total", "algorithm", "operation", "elapsed_ms", "eta_ms"] {
            assert!(keys.contains(&key), "{key} missing from {p}");
        }
        assert_eq!(p["algorithm"], "ML-KEM-768");
        assert_eq!(p["total"], 3, "{p}");
        let now = p["done"].as_u64().unwrap();
        assert!(now >= done && now <= 3, "{events:?}");
        done = now;
        assert!(p["elapsed_ms"].as_u64().unwrap() >= elapsed);
        elapsed = p["elapsed_ms"].as_u64().unwrap();
        assert_eq!(p["eta_ms"].is_null(), done == 0, "an estimate only once something finished: {p}");
    }

    // An ended run says so at once, and closes.
    let started = Instant::now();
    let again = Events::open(&server, id).await.until_end(Duration::from_secs(5)).await;
    assert_eq!(again, [("end".to_string(), json!({"status": "complete", "error": null}))]);
    assert!(started.elapsed() < Duration::from_secs(2));
    let run: Run = server.get(&format!("/api/runs/{id}")).await;
    assert_eq!(run.status, RunStatus::Complete);
}

#[tokio::test]
async fn cancel_stops_the_board_keeps_what_it_measured_and_frees_it() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    // Long enough that it is still measuring when cancelled.
    let request = json!({
        "board": "qemu-mps2-an386",
        "algorithms": ["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87"],
        "min_iterations": 10, "min_time_ms": 1000
    });
    let (status, body) = server.post("/api/runs", &request).await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_i64().unwrap();

    let mut events = Events::open(&server, id).await;
    loop {
        let (name, p) = events.next_within(Duration::from_secs(120)).await.expect("closed early");
        assert_eq!(name, "progress", "{p}");
        if p["done"].as_u64().unwrap() >= 1 {
            assert!(p["eta_ms"].as_u64().unwrap() > 0, "{p}");
            break;
        }
    }
    assert!(!children_of(server.pid()).is_empty(), "QEMU runs as the server's child");

    let (status, body) = server.post(&format!("/api/runs/{id}/cancel"), &json!({})).await;
    assert_eq!((status, body), (202, json!({"id": id})));
    let cancelled = Instant::now();
    let rest = events.until_end(Duration::from_secs(30)).await;
    assert!(cancelled.elapsed() < Duration::from_secs(5), "took {:?}", cancelled.elapsed());
    let (name, end) = rest.last().unwrap();
    assert_eq!(name, "end", "{rest:?}");
    assert_eq!(*end, json!({"status": "interrupted", "error": "cancelled from the dashboard"}));

    let run: Run = server.get(&format!("/api/runs/{id}")).await;
    assert_eq!(run.status, RunStatus::Interrupted);
    assert_eq!(run.error.as_deref(), Some("cancelled from the dashboard"));
    assert!(run.finished_at.is_some());
    let results: Vec<Value> = server.get(&format!("/api/runs/{id}/results")).await;
    assert!(!results.is_empty() && results.len() < 18, "{} results", results.len());
    // QEMU was stopped and reaped before the run showed as ended.
    assert_eq!(children_of(server.pid()), Vec::<String>::new());
    let boards: Value = server.get("/api/boards").await;
    let board = boards.as_array().unwrap().iter().find(|b| b["id"] == "qemu-mps2-an386").unwrap();
    assert_eq!(board["available"], true, "{board}");

    let (status, body) = server.post(&format!("/api/runs/{id}/cancel"), &json!({})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("already ended (interrupted)"), "{body}");

    // The board takes the next run at once, and a cancel before it has
    // measured anything stops it too.
    let (status, body) = server.post("/api/runs", &request).await;
    assert_eq!(status, 202, "{body}");
    let next = body["id"].as_i64().unwrap();
    let (status, _) = server.post(&format!("/api/runs/{next}/cancel"), &json!({})).await;
    assert_eq!(status, 202);
    let events = Events::open(&server, next).await.until_end(Duration::from_secs(30)).await;
    assert_eq!(events.last().unwrap().1["status"], "interrupted", "{events:?}");
    let results: Vec<Value> = server.get(&format!("/api/runs/{next}/results")).await;
    assert!(results.is_empty(), "{results:?}");
    assert_eq!(children_of(server.pid()), Vec::<String>::new());
}

#[tokio::test]
async fn a_run_another_process_makes_is_followed_to_its_end_but_not_cancelled() {
    let dist = pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let mut cli = Command::new(env!("CARGO_BIN_EXE_pqbench"))
        // A few seconds: still running when the server is asked about it.
        .args(["run", "--board", "qemu-mps2-an386", "--algorithms", "ML-KEM-768"])
        .args(["--min-iterations", "1", "--min-time-ms", "3000", "--db"])
        .arg(server.db())
        .arg("--dist")
        .arg(&dist)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let id = loop {
        let runs: Vec<Run> = server.get("/api/runs").await;
        if let Some(run) = runs.first() {
            break run.id;
        }
        assert!(Instant::now() < deadline, "the command line's run never showed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    let mut events = Events::open(&server, id).await;
    let run: Run = server.get(&format!("/api/runs/{id}")).await;
    assert_eq!(run.status, RunStatus::Running, "the run must still be going to test following it");
    let (status, body) = server.post(&format!("/api/runs/{id}/cancel"), &json!({})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("another pqbench process"), "{body}");

    // Only the store knows this run: no progress, but its end.
    let all = events.until_end(Duration::from_secs(180)).await;
    assert_eq!(all, [("end".to_string(), json!({"status": "complete", "error": null}))]);
    assert!(cli.wait().unwrap().success());
}

#[tokio::test]
async fn events_and_cancel_answer_clearly_for_runs_they_cannot_follow() {
    let server = common::start_server(&[]).await;
    for path in ["/api/runs/abc/events", "/api/runs/0/events", "/api/runs/-1/events"] {
        let (status, body) = get_status(&server, path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["error"].is_string());
    }
    let (status, body) = get_status(&server, "/api/runs/999/events").await;
    assert_eq!((status, body), (404, json!({"error": "no run 999"})));
    let (status, body) = server.post("/api/runs/999/cancel", &json!({})).await;
    assert_eq!((status, body), (404, json!({"error": "no run 999"})));
    let (status, _) = server.post("/api/runs/x/cancel", &json!({})).await;
    assert_eq!(status, 400);
    let (status, body) = get_status(&server, "/api/runs/1/cancel").await;
    assert_eq!(status, 405, "{body}");
    assert!(body["error"].is_string());

    let id =
        uploaded(&server, upload("browser:1a2b3c4d", "browser", json!({}), &[("SHA-256", "hash")])).await;
    let events = Events::open(&server, id).await.until_end(Duration::from_secs(5)).await;
    assert_eq!(events, [("end".to_string(), json!({"status": "complete", "error": null}))]);
    let (status, body) = server.post(&format!("/api/runs/{id}/cancel"), &json!({})).await;
    assert_eq!(status, 409);
    assert_eq!(body["error"], format!("run {id} has already ended (complete): there is nothing to cancel"));
}

#[tokio::test]
async fn reports_are_created_read_back_and_never_changed() {
    let server = common::start_server(&[]).await;
    let view = json!({"runs": [3, 1], "filter": {"families": [], "algorithms": ["ML-KEM-768"], "operations": []},
            "sort": {"column": "stack_bytes", "descending": false}, "log_scale": true, "title": "Ärger",
            "history": {"board": "serial:/dev/ttyACM0", "algorithm": "ML-KEM-768", "operation": "keygen"}});
    let (status, created) = server.post("/api/reports", &json!({"view": view})).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    assert!(id.len() == 16 && id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
    assert_eq!(created, json!({"id": id, "url": format!("/reports/{id}")}));

    let report: Value = server.get(&format!("/api/reports/{id}")).await;
    assert_eq!(report.as_object().unwrap().len(), 3, "{report}");
    assert_eq!((&report["id"], &report["view"]), (&json!(id), &view));
    let created_at = report["created_at"].as_str().unwrap();
    assert!(created_at.len() >= 20 && created_at.ends_with('Z') && created_at.contains('T'), "{created_at}");

    let (_, other) = server.post("/api/reports", &json!({"view": {}})).await;
    assert_ne!(other["id"], json!(id));

    for (body, status) in [
        (json!({"view": [1, 2]}), 422),
        (json!({"view": "a view"}), 422),
        (json!({"view": null}), 422),
        (json!({}), 422),
        (json!({"view": {}, "id": "AAAAAAAAAAAAAAAA"}), 422),
        // Only a view the dashboard can open is shared.
        (json!({"view": {"tab": "explorer"}}), 422),
        (json!({"view": {"filter": {"algorithms": ["Kyber768"]}}}), 422),
        (json!({"view": {"sort": {"column": "speed", "descending": true}}}), 422),
    ] {
        let (got, answer) = server.post("/api/reports", &body).await;
        assert_eq!(got, status, "{body}: {answer}");
        assert!(answer["error"].is_string(), "{answer}");
    }
    let (status, _) = post_raw(&server, "/api/reports", "{\"view\": ".into()).await;
    assert_eq!(status, 400);
    // A view of n bytes or so: its runs, as many as fit.
    let big = |n: usize| format!("{{\"view\": {{\"runs\": [{}1]}}}}", "1,".repeat(n / 2));
    let (status, body) = post_raw(&server, "/api/reports", big(17 * 1024)).await;
    assert_eq!(status, 413, "{body}");
    let (status, body) = post_raw(&server, "/api/reports", big(15 * 1024)).await;
    assert_eq!(status, 201, "{body}");

    let (status, body) = get_status(&server, "/api/reports/AAAAAAAAAAAAAAAA").await;
    assert_eq!((status, body), (404, json!({"error": "no report AAAAAAAAAAAAAAAA"})));
    for bad in ["short", "AAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAA-", "AAAAAAAAAAAAAA%20"] {
        let (status, body) = get_status(&server, &format!("/api/reports/{bad}")).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    // Immutable: nothing changes or deletes a report.
    for method in [reqwest::Method::PUT, reqwest::Method::DELETE, reqwest::Method::PATCH] {
        let (status, body) = request(method.clone(), &server, &format!("/api/reports/{id}")).await;
        assert_eq!(status, 405, "{method}: {body}");
    }
    let again: Value = server.get(&format!("/api/reports/{id}")).await;
    assert_eq!(again, report);
}

#[tokio::test]
async fn with_a_token_creating_a_report_needs_it_and_reading_does_not() {
    let server = common::start_server(&["--token", "s3cret-lab-token-2026"]).await;
    let (status, _) = server.post("/api/reports", &json!({"view": {}})).await;
    assert_eq!(status, 401);
    let response = reqwest::Client::new()
        .post(format!("{}/api/reports", server.base))
        .bearer_auth("s3cret-lab-token-2026")
        .json(&json!({"view": {"log_scale": true}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let created: Value = response.json().await.unwrap();
    let report: Value =
        server.get(created["url"].as_str().unwrap().replace("/reports", "/api/reports").as_str()).await;
    assert_eq!(report["view"]["log_scale"], json!(true));
    let (status, _) = server.post("/api/runs/1/cancel", &json!({})).await;
    assert_eq!(status, 401, "cancelling is writing");
}

#[tokio::test]
async fn results_across_runs_are_filtered_ordered_and_labelled() {
    let server = common::start_server(&[]).await;
    let (a, b) = a_browser_run_then_a_native_one(&server).await;

    let rows: Vec<Value> = server.get("/api/results").await;
    let order: Vec<(i64, &str)> =
        rows.iter().map(|r| (r["run_id"].as_i64().unwrap(), r["operation"].as_str().unwrap())).collect();
    assert_eq!(order, [(b, "hash"), (b, "keygen"), (a, "keygen"), (a, "encaps")]);
    let row = &rows[0];
    assert_eq!(row["board"], "native:host");
    assert_eq!(row["source"], "native");
    assert_eq!(row["build_label"], "release opt-3, libcrux-ml-kem 0.0.11");
    assert!(row["started_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!((row["algorithm"].as_str(), row["avg_ms"].as_f64()), (Some("SHA-256"), Some(0.1)));
    assert!(row["cycles_per_op"].is_null());
    assert_eq!(rows[3]["build_label"], "Chrome 131.0");
    let typed: Vec<ResultRow> = server.get("/api/results").await;
    assert_eq!((typed[3].run_id, typed[3].source), (a, Source::Browser));

    let query = |q: String| result_ids(&server, q);
    assert_eq!(query("algorithm=ML-KEM-768".into()).await, [(b, "keygen"), (a, "keygen"), (a, "encaps")]);
    assert_eq!(query("algorithm=SHA-256,ML-KEM-768&operation=hash".into()).await, [(b, "hash")]);
    let keygen_or_hash = [(b, "hash"), (b, "keygen"), (a, "keygen")];
    assert_eq!(query("operation=keygen&operation=hash".into()).await, keygen_or_hash);
    assert_eq!(query("source=browser".into()).await, [(a, "keygen"), (a, "encaps")]);
    assert_eq!(query("board=native%3Ahost&algorithm=ML-KEM-768".into()).await, [(b, "keygen")]);
    assert_eq!(query(format!("run={a}")).await.len(), 2);
    assert_eq!(query(format!("run={a},{b}&limit=3")).await.len(), 3);
    assert_eq!(query(format!("run={a}&run={b}")).await.len(), 4);
    assert_eq!(query("run=999".into()).await, []);
    assert_eq!(query("limit=1".into()).await, [(b, "hash")]);
    assert_eq!(query("limit=20000&algorithm=&board=".into()).await.len(), 4);

    for (q, status, says) in [
        ("algorithm=Kyber768", 422, "Kyber768"),
        ("algorithm=ML-KEM-768,Dilithium3", 422, "Dilithium3"),
        ("operation=encrypt-ish", 422, "encrypt-ish"),
        ("source=phone", 422, "phone"),
        ("run=abc", 400, "abc"),
        ("run=0", 400, "run id"),
        ("limit=0", 400, "limit"),
        ("limit=20001", 400, "limit"),
        ("boards=x", 400, "boards"),
        (&format!("run={}", vec!["1"; 501].join(",")), 400, "at most 500"),
    ] {
        let (got, body) = get_status(&server, &format!("/api/results?{q}")).await;
        assert_eq!(got, status, "{q}: {body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{q}: {body}");
    }
}

#[tokio::test]
async fn the_matrix_is_the_latest_complete_run_of_each_board_and_build() {
    let server = common::start_server(&[]).await;
    let (a, b) = a_browser_run_then_a_native_one(&server).await;
    let debug = json!({"profile": "debug"});
    let c = uploaded(&server, upload("native:host", "native", debug, &[("ML-KEM-768", "keygen")])).await;
    // A newer run of the same build takes its column.
    let d = uploaded(&server, newer(upload("native:host", "native", native_release(), &NATIVE_SUITE))).await;
    let release = "release opt-3, libcrux-ml-kem 0.0.11";

    let shown = |query: String| {
        let server = &server;
        async move {
            let matrix: Matrix = server.get(&format!("/api/matrix{query}")).await;
            let columns: Vec<(i64, String)> =
                matrix.columns.iter().map(|c| (c.run.id, c.build_label.clone())).collect();
            let results: Vec<(i64, &str)> =
                matrix.results.iter().map(|r| (r.run_id, r.result.operation.as_str())).collect();
            (columns, results, matrix)
        }
    };
    let (columns, results, matrix) = shown(String::new()).await;
    // By board, then build; results newest run first, each run's in order.
    assert_eq!(
        columns,
        [(a, "Chrome 131.0".into()), (c, "debug".into()), (d, release.into())],
        "{:?}",
        matrix.available
    );
    assert_eq!(results, [(d, "hash"), (d, "keygen"), (c, "keygen"), (a, "keygen"), (a, "encaps")]);
    assert!(!matrix.truncated);
    let available: Vec<(&str, Source, &str, i64)> = matrix
        .available
        .iter()
        .map(|k| (k.board.as_str(), k.source, k.build_label.as_str(), k.latest_run))
        .collect();
    assert_eq!(
        available,
        [
            ("browser:aaaa", Source::Browser, "Chrome 131.0", a),
            ("native:host", Source::Native, "debug", c),
            ("native:host", Source::Native, release, d)
        ]
    );
    assert_eq!(matrix.columns[0].run.board, "browser:aaaa");
    assert_eq!(matrix.results[0].build_label, release);

    let (columns, results, matrix) = shown("?source=native&algorithm=ML-KEM-768".into()).await;
    assert_eq!(columns, [(c, "debug".into()), (d, release.into())]);
    assert_eq!(results, [(d, "keygen"), (c, "keygen")]);
    assert_eq!(matrix.available.len(), 3, "what a filter can offer stays whole");
    let (columns, ..) = shown("?build=release+opt-3%2C+libcrux-ml-kem+0.0.11".into()).await;
    assert_eq!(columns, [(d, release.into())]);
    // Chosen runs, in the order asked, whatever replaced them.
    let (columns, results, _) = shown(format!("?run={b},{a}&operation=keygen")).await;
    assert_eq!(columns, [(b, release.into()), (a, "Chrome 131.0".into())]);
    assert_eq!(results, [(b, "keygen"), (a, "keygen")]);

    for (q, status, says) in
        [("algorithm=Kyber768", 422, "Kyber768"), ("run=abc", 400, "abc"), ("columns=9", 400, "columns")]
    {
        let (got, body) = get_status(&server, &format!("/api/matrix?{q}")).await;
        assert_eq!(got, status, "{q}: {body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{q}: {body}");
    }
}

/// The server keeps the matrices it made (`routes::matrix`); what it
/// serves is still always what the store holds now, whoever wrote it.
#[tokio::test]
async fn a_kept_matrix_is_served_only_while_the_store_agrees() {
    let server = common::start_server(&[]).await;
    let (a, _) = a_browser_run_then_a_native_one(&server).await;
    let first: Matrix = server.get("/api/matrix").await;
    assert_eq!(server.get::<Matrix>("/api/matrix").await, first);

    // A newer run of a build, through the API: its column at once.
    let d = uploaded(&server, newer(upload("native:host", "native", native_release(), &NATIVE_SUITE))).await;
    let after: Matrix = server.get("/api/matrix").await;
    assert!(after.columns.iter().any(|c| c.run.id == d), "{:?}", after.columns);
    assert_ne!(after, first);

    // A run written by another process (an import into the same file).
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/wolfcrypt-stm32u585-memory.txt");
    let import = common::pqbench(&["import", "wolfcrypt", sample], server.db());
    assert!(import.status.success(), "{}", String::from_utf8_lossy(&import.stderr));
    let imported: Matrix = server.get("/api/matrix").await;
    assert_eq!(imported.columns.len(), after.columns.len() + 1);
    assert!(imported.columns.iter().any(|c| c.run.source == Source::Import));

    // Each query has its own: a filtered matrix is not the whole one.
    let chosen: Matrix = server.get(&format!("/api/matrix?run={a}&operation=encaps")).await;
    assert_eq!(chosen.columns.len(), 1);
    assert!(chosen.results.iter().all(|r| r.run_id == a && r.result.operation.as_str() == "encaps"));
    assert_eq!(server.get::<Matrix>("/api/matrix").await, imported);
}

/// A browser asks for gzip, and gets the very matrix gzipped; a client
/// that does not (or refuses it by weight) gets plain JSON.
#[tokio::test]
async fn the_matrix_is_gzipped_for_clients_that_take_it() {
    use std::io::Read;

    let server = common::start_server(&[]).await;
    a_browser_run_then_a_native_one(&server).await;
    let client = reqwest::Client::new();
    let get = |encoding: Option<&'static str>| {
        let mut request = client.get(format!("{}/api/matrix", server.base));
        if let Some(encoding) = encoding {
            request = request.header("accept-encoding", encoding);
        }
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status().as_u16(), 200);
            assert_eq!(response.headers()["vary"], "accept-encoding");
            let encoding = response.headers().get("content-encoding").map(|v| v.to_str().unwrap().to_owned());
            (encoding, response.bytes().await.unwrap().to_vec())
        }
    };
    let (plain_encoding, plain) = get(None).await;
    assert_eq!(plain_encoding, None);
    let plain: Matrix = serde_json::from_slice(&plain).unwrap();
    for asked in ["gzip", "br, gzip;q=0.8, deflate", "*", "GZIP;q=1.0"] {
        // Made once, then kept: both answers are the same bytes.
        for _ in 0..2 {
            let (encoding, body) = get(Some(asked)).await;
            assert_eq!(encoding.as_deref(), Some("gzip"), "{asked}");
            let mut json = Vec::new();
            flate2::read::GzDecoder::new(body.as_slice()).read_to_end(&mut json).unwrap();
            assert_eq!(serde_json::from_slice::<Matrix>(&json).unwrap(), plain, "{asked}");
        }
    }
    for refused in ["gzip;q=0", "br", "identity", "gzip;q=0.0, *", "*;q=0"] {
        let (encoding, body) = get(Some(refused)).await;
        assert_eq!(encoding, None, "{refused}");
        assert_eq!(serde_json::from_slice::<Matrix>(&body).unwrap(), plain, "{refused}");
    }
}
