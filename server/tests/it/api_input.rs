//! Bad input to the API, against the real server: every refusal is a 4xx
//! with a JSON `{"error": "..."}` a person can read, never a 5xx and never
//! axum's plain text, whichever part of the request is wrong (path, query,
//! content type, size, syntax, shape).

use pqbench_api::{Upload, UploadNote};
use pqbench_types::{Algorithm, Build, Measurement, Operation, Source, Status};
use reqwest::Method;
use serde_json::Value;

use crate::common;

/// A request the API must refuse, and the status it refuses it with.
struct BadRequest {
    method: Method,
    path: &'static str,
    /// The body and its `Content-Type` (None: no such header).
    body: Option<(Option<&'static str>, String)>,
    status: u16,
}

fn get(path: &'static str, status: u16) -> BadRequest {
    BadRequest { method: Method::GET, path, body: None, status }
}

fn post(path: &'static str, content_type: Option<&'static str>, body: String, status: u16) -> BadRequest {
    BadRequest { method: Method::POST, path, body: Some((content_type, body)), status }
}

fn post_json(path: &'static str, body: &str, status: u16) -> BadRequest {
    post(path, Some("application/json"), body.to_owned(), status)
}

/// Valid JSON of `bytes` bytes: only its size is wrong.
fn json_of_size(bytes: usize) -> String {
    let padding = bytes - r#"{"padding":""}"#.len();
    format!(r#"{{"padding":"{}"}}"#, "a".repeat(padding))
}

/// The routes' body limits, as `server/src/routes/` sets them.
const UPLOAD_LIMIT: usize = 2 * 1024 * 1024;
const RUN_REQUEST_LIMIT: usize = 16 * 1024;
const REPORT_LIMIT: usize = 16 * 1024;

fn bad_requests() -> Vec<BadRequest> {
    vec![
        // Path parameters: not UTF-8, not a positive run id, not a report id.
        get("/api/runs/%FF", 400),
        get("/api/runs/-1", 400),
        get("/api/runs/0", 400),
        get("/api/runs/99999999999999999999", 400),
        get("/api/runs/abc/results", 400),
        get("/api/runs/%FF/results", 400),
        get("/api/runs/%FF/events", 400),
        get("/api/runs/1.5/events", 400),
        post("/api/runs/%FF/cancel", None, String::new(), 400),
        post("/api/runs/abc/cancel", None, String::new(), 400),
        get("/api/reports/xyz", 400),
        get("/api/reports/%FF%FE", 400),
        // Routes and methods that do not exist.
        get("/api/nowhere", 404),
        get("/api", 404),
        get("/api/", 404),
        get("/api//runs", 404),
        get("/api/runs/1/nowhere", 404),
        post_json("/api/nowhere", "{}", 404),
        BadRequest { method: Method::DELETE, path: "/api/runs", body: None, status: 405 },
        BadRequest { method: Method::DELETE, path: "/api/runs/1", body: None, status: 405 },
        BadRequest { method: Method::PUT, path: "/api/reports/AAAAAAAAAAAAAAAA", body: None, status: 405 },
        BadRequest { method: Method::PATCH, path: "/api/uploads", body: None, status: 405 },
        get("/api/uploads", 405),
        // Bodies: not JSON by their content type, too large, not JSON,
        // JSON of the wrong shape.
        post("/api/uploads", Some("text/plain"), "{}".into(), 415),
        post("/api/uploads", None, "{}".into(), 415),
        post("/api/runs", Some("application/x-www-form-urlencoded"), "board=x".into(), 415),
        post("/api/imports/preview", Some("text/plain"), "wolfCrypt".into(), 415),
        post("/api/reports", Some("text/html"), "<p>".into(), 415),
        post_json("/api/uploads", &json_of_size(UPLOAD_LIMIT + 1), 413),
        post_json("/api/runs", &json_of_size(RUN_REQUEST_LIMIT + 1), 413),
        post_json("/api/reports", &json_of_size(REPORT_LIMIT + 1), 413),
        post_json("/api/uploads", "{not json", 400),
        post_json("/api/uploads", "", 400),
        post_json("/api/runs", r#"{"board": "qemu-mps2-an386""#, 400),
        post_json("/api/uploads", r#""an upload""#, 422),
        post_json("/api/uploads", r#"{"source": "browser"}"#, 422),
        post_json("/api/runs", r#"{"board": 5}"#, 422),
        post_json("/api/runs", r#"{"board": "qemu-mps2-an386", "min_iterations": -1}"#, 422),
        post_json("/api/imports/preview", r#"{"format": "openssl", "text": "RSA 2048 sign 100 ops/s"}"#, 422),
        post_json("/api/imports", r#"{"format": "wolfcrypt"}"#, 422),
        post_json("/api/reports", r#"{"view": [1, 2]}"#, 422),
        // Query parameters: outside the page bounds, not numbers, unknown.
        get("/api/runs?limit=0", 400),
        get("/api/runs?limit=x", 400),
        get("/api/runs?limit=-1", 400),
        get("/api/runs?limit=501", 400),
        get("/api/runs?colour=red", 400),
        get("/api/results?limit=999999", 400),
        get("/api/results?limit=0", 400),
        get("/api/results?limit=x", 400),
        get("/api/results?run=abc", 400),
        get("/api/results?run=%FF", 400),
        get("/api/results?colour=red", 400),
        get("/api/results?algorithm=Kyber768", 422),
        get("/api/matrix?run=abc", 400),
        get("/api/matrix?algorithm=Kyber768", 422),
    ]
}

#[tokio::test]
async fn every_bad_request_gets_a_json_4xx_saying_why() {
    let server = common::start_server(&[]).await;
    let client = reqwest::Client::new();
    let mut wrong = Vec::new();
    for bad in bad_requests() {
        let mut request = client.request(bad.method.clone(), format!("{}{}", server.base, bad.path));
        if let Some((content_type, body)) = bad.body {
            if let Some(content_type) = content_type {
                request = request.header("content-type", content_type);
            }
            request = request.body(body);
        }
        let what = format!("{} {}", bad.method, bad.path);
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => {
                wrong.push(format!("{what}: no answer: {e}"));
                continue;
            }
        };
        let status = response.status().as_u16();
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let text = response.text().await.unwrap_or_default();
        let error =
            serde_json::from_str::<Value>(&text).ok().and_then(|v| v["error"].as_str().map(str::to_owned));
        match error {
            Some(error)
                if status == bad.status && content_type == "application/json" && !error.is_empty() => {}
            _ => wrong.push(format!(
                "{what}: expected {} with a JSON error, got {status} ({content_type}) {text:.200}",
                bad.status
            )),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of the bad requests were answered wrongly:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Nothing was stored by any of them.
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "{runs:?}");
}

#[tokio::test]
async fn refusals_say_what_is_wrong() {
    let server = common::start_server(&[]).await;
    let error = |path: &'static str| {
        let url = format!("{}{path}", server.base);
        async move { reqwest::get(url).await.unwrap().json::<Value>().await.unwrap()["error"].clone() }
    };
    assert_eq!(error("/api/runs/-1").await, "\"-1\" is not a run id");
    assert!(error("/api/runs/%FF").await.as_str().unwrap().contains("UTF-8"));
    assert_eq!(error("/api/runs?limit=0").await, "limit must be 1 to 500");
    assert_eq!(error("/api/results?limit=999999").await, "limit must be 1 to 20000");

    let too_large = reqwest::Client::new()
        .post(format!("{}/api/runs", server.base))
        .header("content-type", "application/json")
        .body(json_of_size(RUN_REQUEST_LIMIT + 1))
        .send()
        .await
        .unwrap();
    assert_eq!(too_large.status().as_u16(), 413);
    assert_eq!(
        too_large.json::<Value>().await.unwrap()["error"],
        "the request body is larger than this endpoint takes (16 KiB at most)"
    );

    let wrong_method =
        reqwest::Client::new().delete(format!("{}/api/runs", server.base)).send().await.unwrap();
    assert_eq!(wrong_method.status().as_u16(), 405);
    assert_eq!(
        wrong_method.json::<Value>().await.unwrap()["error"],
        "this endpoint does not take that method"
    );
}

/// The upload limit is no bar to a real upload: the largest the server
/// accepts (every algorithm and operation the contract names, the longest
/// figures, a build description near its own bound) is stored.
#[tokio::test]
async fn the_largest_valid_upload_fits_under_the_limit() {
    let server = common::start_server(&[]).await;
    let widest = Measurement {
        iterations: 100_000_000,
        total_ticks: 900_000_000_000_000_000,
        min_ticks: 9_000_000_000,
        median_ticks: 9_000_000_000,
        max_ticks: 9_000_000_000,
        heap_bytes: Some(u32::MAX),
        heap_allocs: Some(u32::MAX),
        stack_bytes: Some(u32::MAX),
        bytes_per_op: Some(u32::MAX),
        needed_bytes: Some(u32::MAX),
        // A batch divides the calls.
        batch: Some(100_000_000),
        ..Measurement::untimed(Algorithm::ALL[0], Operation::ALL[0], Status::Ok)
    };
    let measurements: Vec<Measurement> = Algorithm::ALL
        .iter()
        .flat_map(|&algorithm| Operation::ALL.iter().map(move |&operation| (algorithm, operation)))
        // As many distinct pairs as an upload takes (the vocabulary has more).
        .take(pqbench_api::uploads::MAX_MEASUREMENTS)
        .map(|(algorithm, operation)| Measurement { algorithm, operation, ..widest })
        .collect();
    let mut build = Build::default();
    for n in 0..15 {
        build.extra.insert(format!("key{n}"), "v".repeat(1000));
    }
    let upload = Upload {
        source: Source::Browser,
        board: format!("browser:{}", "b".repeat(100)),
        ticks_per_second: 1_000_000_000,
        tick_unit: pqbench_types::TickUnit::Nanoseconds,
        clock_hz: None,
        notes: measurements
            .iter()
            .map(|m| UploadNote {
                algorithm: m.algorithm,
                operation: m.operation,
                note: "n".repeat(pqbench_api::uploads::MAX_NOTE_LEN),
            })
            .collect(),
        build,
        measurements,
    };
    let body = serde_json::to_string_pretty(&upload).unwrap();
    assert!(body.len() < UPLOAD_LIMIT, "{} bytes", body.len());
    let response = reqwest::Client::new()
        .post(format!("{}/api/uploads", server.base))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201, "{}", response.text().await.unwrap());
}
