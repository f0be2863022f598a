//! Uploads and who may write, against the real server.

use std::process::Command;

use pqbench_types::{BenchResult, Run, RunStatus, Source};
use serde_json::{Value, json};

use crate::common;

fn browser_upload() -> Value {
    json!({
        "source": "browser",
        "board": "browser:1a2b3c4d",
        "ticks_per_second": 1_000_000_000u64,
        "tick_unit": "ns",
        "clock_hz": null,
        "build": {"target": "wasm32-unknown-unknown", "crates": {"ml-kem": "0.3.4"}, "extra": {"user_agent": "test"}},
        "measurements": [{
            "algorithm": "ML-KEM-768", "operation": "keygen", "status": "ok",
            "iterations": 4, "total_ticks": 400_000, "min_ticks": 90_000, "median_ticks": 100_000,
            "max_ticks": 120_000, "heap_bytes": 4736, "heap_allocs": 5, "stack_bytes": 30_200,
            "bytes_per_op": null, "needed_bytes": null
        }]
    })
}

#[tokio::test]
async fn an_upload_is_stored_with_figures_derived_from_its_ticks() {
    let server = common::start_server(&[]).await;
    let (status, body) = server.post("/api/uploads", &browser_upload()).await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();
    let run: Run = server.get(&format!("/api/runs/{id}")).await;
    assert_eq!((run.source, run.status), (Source::Browser, RunStatus::Complete));
    assert_eq!(run.build.extra["user_agent"], "test");
    let results: Vec<BenchResult> = server.get(&format!("/api/runs/{id}/results")).await;
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r.avg_ms, Some(0.1));
    assert_eq!(r.ops_per_sec, Some(10_000.0));
    assert_eq!((r.min_ms, r.median_ms, r.max_ms), (Some(0.09), Some(0.1), Some(0.12)));
    assert_eq!(r.cycles_per_op, None, "a browser has no cycle counter");
    assert_eq!((r.heap_bytes, r.heap_allocs, r.stack_bytes), (Some(4736), Some(5), Some(30_200)));
}

#[tokio::test]
async fn bad_uploads_get_clear_json_errors_and_store_nothing() {
    let server = common::start_server(&[]).await;
    let mut impossible = browser_upload();
    impossible["measurements"][0]["min_ticks"] = json!(500_000);
    let mut unknown = browser_upload();
    unknown["measurements"][0]["algorithm"] = json!("Kyber768");
    let mut negative = browser_upload();
    negative["measurements"][0]["iterations"] = json!(-1);
    let mut board = browser_upload();
    board["board"] = json!("qemu-mps2-an386");
    for (upload, status, says) in [
        (impossible, 422, "impossible"),
        (unknown, 422, "unknown algorithm"),
        (negative, 422, "iterations"),
        (board, 422, "starts with"),
        (json!({"source": "browser"}), 422, "missing field"),
    ] {
        let (got, body) = server.post("/api/uploads", &upload).await;
        assert_eq!(got, status, "{body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{body}");
    }
    let response = reqwest::Client::new()
        .post(format!("{}/api/uploads", server.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    assert!(response.json::<Value>().await.unwrap()["error"].is_string());
    let runs: Vec<Run> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "nothing was stored: {runs:?}");
}

/// The bounds `Upload::check` holds an upload to, over HTTP: each breach is
/// a 422 whose JSON error says which figure and why, and nothing is stored.
#[tokio::test]
async fn uploads_beyond_the_bounds_are_refused_and_store_nothing() {
    let server = common::start_server(&[]).await;
    let with = |change: &dyn Fn(&mut Value)| {
        let mut upload = browser_upload();
        change(&mut upload);
        upload
    };
    let mut twice = browser_upload();
    let first = twice["measurements"][0].clone();
    twice["measurements"].as_array_mut().unwrap().push(first);
    let cases = [
        (with(&|u| u["clock_hz"] = json!(100_000_000_001u64)), "clock_hz must be 1 to 100000000000 Hz"),
        (with(&|u| u["ticks_per_second"] = json!(1_000_000_000_001u64)), "above 1000000000000"),
        (with(&|u| u["ticks_per_second"] = json!(0)), "ticks_per_second must be positive"),
        (
            with(&|u| {
                let m = &mut u["measurements"][0];
                m["iterations"] = json!(1);
                for field in ["total_ticks", "median_ticks", "max_ticks"] {
                    m[field] = json!(u64::MAX);
                }
            }),
            "total_ticks is 18446744073709551615, above 9223372036854775807",
        ),
        (twice, "measurement 2 (ML-KEM-768 keygen) is measured twice in one upload"),
        (with(&|u| u["build"]["rustc"] = json!("x".repeat(2000))), "longer than 1024 bytes"),
    ];
    for (upload, says) in cases {
        let (status, body) = server.post("/api/uploads", &upload).await;
        assert_eq!(status, 422, "{body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(says), "expected {says:?} in {error:?}");
    }
    // Beyond what the type holds: refused as it is read, also as a 422.
    let stack = with(&|u| u["measurements"][0]["stack_bytes"] = json!(1u64 << 41));
    let (status, body) = server.post("/api/uploads", &stack).await;
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("stack_bytes"), "{body}");
    let runs: Vec<Run> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "nothing was stored: {runs:?}");
}

#[tokio::test]
async fn with_a_token_writes_need_it_and_reads_do_not() {
    let server = common::start_server(&["--token", "s3cret-lab-token-2026"]).await;
    let (status, body) = server.post("/api/uploads", &browser_upload()).await;
    assert_eq!(status, 401, "{body}");
    let response = reqwest::Client::new()
        .post(format!("{}/api/uploads", server.base))
        .bearer_auth("s3cret-lab-token-2026")
        .json(&browser_upload())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let runs: Vec<Run> = server.get("/api/runs").await;
    assert_eq!(runs.len(), 1);
}

#[test]
fn listening_beyond_loopback_without_a_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["serve", "--listen", &format!("0.0.0.0:{}", common::free_port())])
        .arg("--db")
        .arg(dir.path().join("pqbench.db"))
        .env_remove("PQBENCH_TOKEN")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--token"));
}
