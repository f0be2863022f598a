//! Who may write, against the real server listening beyond loopback:
//! reading (and a shared report's link) needs nothing; every write needs
//! the server's token; a server that would let anyone write does not start.
//! `api_writes.rs` covers a token on a loopback listener.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use crate::common;

const TOKEN: &str = "s3cret-lab-token-2026";
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/wolfcrypt-stm32u585-memory.txt");

pub(crate) fn browser_upload() -> Value {
    json!({
        "source": "browser",
        "board": "browser:1a2b3c4d",
        "ticks_per_second": 1_000_000_000u64,
        "tick_unit": "ns",
        "clock_hz": null,
        "build": {"target": "wasm32-unknown-unknown"},
        "measurements": [{
            "algorithm": "ML-KEM-768", "operation": "keygen", "status": "ok",
            "iterations": 4, "total_ticks": 400_000, "min_ticks": 90_000, "median_ticks": 100_000,
            "max_ticks": 120_000, "heap_bytes": 4736, "heap_allocs": 5, "stack_bytes": 30_200,
            "bytes_per_op": null, "needed_bytes": null
        }]
    })
}

pub(crate) fn import_request() -> Value {
    json!({
        "format": "wolfcrypt", "text": std::fs::read_to_string(SAMPLE).unwrap(),
        "board": "b-u585i-iot02a", "clock_hz": 160_000_000u64,
    })
}

fn report() -> Value {
    json!({"view": {"runs": [1], "filter": {"families": [], "algorithms": ["ML-KEM-768"], "operations": []}}})
}

/// Every write the API takes, each with a body it would accept: only the
/// token stands between them and the store.
pub(crate) fn writes() -> Vec<(Method, &'static str, Value)> {
    vec![
        (Method::POST, "/api/runs", json!({"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"]})),
        (Method::POST, "/api/runs/1/cancel", Value::Null),
        (Method::POST, "/api/uploads", browser_upload()),
        (Method::POST, "/api/imports/preview", import_request()),
        (Method::POST, "/api/imports", import_request()),
        (Method::POST, "/api/reports", report()),
        // No route takes these, but they are refused as writes before any
        // route is looked up: a client without the token learns nothing.
        (Method::DELETE, "/api/runs/1", Value::Null),
        (Method::PUT, "/api/reports/AAAAAAAAAAAAAAAA", report()),
        (Method::PATCH, "/api/runs/1", json!({"status": "complete"})),
    ]
}

fn request(server: &common::Server, method: &Method, path: &str, body: &Value) -> RequestBuilder {
    let request = reqwest::Client::new().request(method.clone(), format!("{}{path}", server.base));
    if body.is_null() { request } else { request.json(body) }
}

#[tokio::test]
async fn beyond_loopback_every_write_needs_the_token_and_no_read_does() {
    pqbench_test_needs::require!(pqbench_test_needs::dashboard());
    let server = common::start_server_with(common::ServerOptions {
        listen_ip: "0.0.0.0",
        extra: &["--token", TOKEN],
        ..Default::default()
    })
    .await;

    // Without the token, with another, a prefix of it, it and more, or it
    // under another scheme: refused, saying why, with nothing stored.
    let wrong_authorizations = [
        None,
        Some("Bearer nope"),
        Some("Bearer s3cre"),
        Some("Bearer s3cret-lab-token-20262"),
        Some("Basic s3cret-lab-token-2026"),
        Some("s3cret-lab-token-2026"),
    ];
    for (method, path, body) in writes() {
        for authorization in wrong_authorizations {
            let mut refused = request(&server, &method, path, &body);
            if let Some(authorization) = authorization {
                refused = refused.header("authorization", authorization);
            }
            let response = refused.send().await.unwrap();
            let what = format!("{method} {path} with {authorization:?}");
            assert_eq!(response.status().as_u16(), 401, "{what}");
            assert_eq!(response.headers()["www-authenticate"], "Bearer", "{what}");
            let answer: Value = response.json().await.unwrap();
            assert!(answer["error"].as_str().is_some_and(|e| e.contains("token")), "{what}: {answer}");
        }
    }
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "a refused write stored nothing: {runs:?}");

    // With the token (its scheme's name in any case), writes go through.
    let response =
        request(&server, &Method::POST, "/api/reports", &report()).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let report_id = response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let response = request(&server, &Method::POST, "/api/imports/preview", &import_request())
        .header("authorization", format!("bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["runs"][0]["results"].as_array().unwrap().len(), 62);
    let response = request(&server, &Method::POST, "/api/uploads", &browser_upload())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let run_id = response.json::<Value>().await.unwrap()["id"].as_i64().unwrap();

    // Reading needs no token: the API, the dashboard, a shared report's link.
    for path in [
        "/api/health".to_owned(),
        "/api/boards".to_owned(),
        "/api/runs".to_owned(),
        "/api/results".to_owned(),
        "/api/matrix".to_owned(),
        format!("/api/runs/{run_id}"),
        format!("/api/runs/{run_id}/results"),
        format!("/api/runs/{run_id}/events"),
        format!("/api/reports/{report_id}"),
        "/".to_owned(),
        format!("/reports/{report_id}"),
    ] {
        let response = reqwest::get(format!("{}{path}", server.base)).await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "GET {path}");
    }
    let results: Vec<Value> = server.get("/api/results").await;
    assert_eq!(results.len(), 1, "the upload made with the token is stored: {results:?}");
}

/// Starts `pqbench serve` with `args`, expecting it to refuse: its stderr.
pub(crate) fn refusal(args: &[&str], env_token: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pqbench"));
    command
        .arg("serve")
        .args(args)
        .arg("--db")
        .arg(dir.path().join("pqbench.db"))
        .arg("--dist")
        .arg(common::dist())
        .env_remove("PQBENCH_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(token) = env_token {
        command.env("PQBENCH_TOKEN", token);
    }
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pqbench serve {args:?} started, where it should have refused");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(!output.status.success(), "pqbench serve {args:?} exited successfully");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_server_anyone_could_write_to_does_not_start() {
    let beyond = format!("0.0.0.0:{}", common::free_port());
    let loopback = format!("127.0.0.1:{}", common::free_port());

    let no_token = refusal(&["--listen", &beyond], None);
    assert!(no_token.contains("--token") && no_token.contains("lets other machines reach"), "{no_token}");
    // PQBENCH_TOKEN set but empty is no token either.
    let empty_env = refusal(&["--listen", &beyond], Some(""));
    assert!(empty_env.contains("--token"), "{empty_env}");

    // An empty token protects nothing, on any address.
    for token in ["", "   "] {
        for listen in [&beyond, &loopback] {
            let empty = refusal(&["--listen", listen, "--token", token], None);
            assert!(
                empty.contains("token") && empty.contains("empty"),
                "--token {token:?} on {listen}: {empty}"
            );
        }
    }
    // A token no client could send in an Authorization header.
    for token in [" s3cret", "s3cret\n", "sécret"] {
        let unsendable = refusal(&["--listen", &beyond, "--token", token], None);
        assert!(unsendable.contains("printable ASCII"), "--token {token:?}: {unsendable}");
    }
    // A token a guesser's first list holds: short, or of few characters,
    // given on argv, in the environment or in a file alike.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    for token in ["s3cret", "password-1234", "abababababababababab"] {
        std::fs::write(&file, format!("{token}\n")).unwrap();
        let file = file.to_str().unwrap();
        for (args, env) in [
            (vec!["--listen", &beyond, "--token", token], None),
            (vec!["--listen", &beyond], Some(token)),
            (vec!["--listen", &beyond, "--token-file", file], None),
        ] {
            let weak = refusal(&args, env);
            assert!(
                weak.contains("too easily guessed: give at least 16 characters, 8 of them different"),
                "{token:?} {args:?}: {weak}"
            );
        }
    }
    let missing = refusal(&["--listen", &beyond, "--token-file", "/nonexistent/token"], None);
    assert!(missing.contains("--token-file /nonexistent/token"), "{missing}");
}
