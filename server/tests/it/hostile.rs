//! What a hostile client on a lab network tries, and what the server does
//! about it (issue 36's probes): connections past the caps and too slow,
//! labels that would read other than they are, imports under a live
//! board's id, unbounded work in one query, spreadsheet formulas in a
//! CSV, token guessing, a store gone from under the health check. None
//! needs an image or a browser.

use std::io::{Read, Write};
use std::net::{IpAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::access::{browser_upload, import_request};
use crate::common;

/// The server's header and body deadlines (`pqbench::listen::Limits`).
const HEADER_WITHIN: Duration = Duration::from_secs(10);
const BODY_WITHIN: Duration = Duration::from_secs(30);

fn port_of(server: &common::Server) -> u16 {
    server.base.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port")
}

/// A blocking connection to the server from a loopback address of its own.
async fn connect_from(local: &str, port: u16) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{local}:0").parse().unwrap()).unwrap();
    let stream = socket.connect(([127, 0, 0, 1], port).into()).await.unwrap().into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
}

/// How long until the server closes `stream` (reads EOF or a reset), what
/// it sent first.
fn until_closed(mut stream: TcpStream, limit: Duration) -> (Duration, String) {
    let started = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    (started.elapsed(), String::from_utf8_lossy(&got).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_caps_connections_are_refused_and_health_still_answers_within_100_ms() {
    let server = common::start_server(&["--max-connections-per-peer", "8"]).await;
    let port = port_of(&server);
    // Connections that never send a byte take 127.0.0.1's share, eight;
    // the next is answered 503 at once, saying why. (Each is given half a
    // second to be answered, so the server's accepting them is no race.)
    let mut silent = Vec::new();
    let (took, answer) = loop {
        assert!(silent.len() <= 8, "{} connections were taken past the cap of 8", silent.len());
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
        let mut first = [0u8; 1];
        match (&stream).read(&mut first) {
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                silent.push(stream)
            }
            _ => {
                let (took, rest) = until_closed(stream, Duration::from_secs(5));
                break (took, format!("{}{rest}", String::from_utf8_lossy(&first)));
            }
        }
    };
    assert_eq!(silent.len(), 8);
    assert!(answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), "{answer:?}");
    assert!(answer.contains("this address has 8 connections open"), "{answer}");
    assert!(took < Duration::from_secs(1), "{took:?}");

    // Another address is served, and at once.
    let other: IpAddr = "127.0.0.2".parse().unwrap();
    let client = reqwest::Client::builder().local_address(other).build().unwrap();
    let mut slowest = Duration::ZERO;
    for _ in 0..5 {
        let asked = Instant::now();
        let health = client.get(format!("http://127.0.0.1:{port}/api/health")).send().await.unwrap();
        slowest = slowest.max(asked.elapsed());
        assert_eq!(health.status().as_u16(), 200);
        let body: Value = health.json().await.unwrap();
        assert_eq!(body["status"], "ok", "{body}");
        assert!(body["store_ms"].as_f64().is_some(), "the store was asked: {body}");
    }
    assert!(slowest < Duration::from_millis(100), "health took {slowest:?} past the cap");

    // The silent ones are closed within the header deadline, and a head
    // sent a byte a second is too.
    let mut trickle = connect_from("127.0.0.2", port).await;
    let trickled = std::thread::spawn(move || {
        let started = Instant::now();
        for byte in b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".iter().cycle() {
            if trickle.write_all(&[*byte]).is_err() || started.elapsed() > HEADER_WITHIN * 2 {
                break;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        started.elapsed()
    });
    let closings: Vec<_> = silent
        .into_iter()
        .map(|stream| std::thread::spawn(move || until_closed(stream, HEADER_WITHIN * 2)))
        .collect();
    for closing in closings {
        let (took, _) = closing.join().unwrap();
        assert!(took <= HEADER_WITHIN + Duration::from_secs(2), "a silent connection stayed {took:?}");
    }
    let trickled = trickled.join().unwrap();
    assert!(trickled <= HEADER_WITHIN + Duration::from_secs(3), "a trickled head stayed {trickled:?}");
    // Their places are free again.
    let health = reqwest::get(format!("{}/api/health", server.base)).await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
}

#[test]
fn a_kept_alive_connection_that_idles_and_a_body_that_trickles_are_closed() {
    let server = tokio::runtime::Runtime::new().unwrap().block_on(common::start_server(&[]));
    let port = port_of(&server);
    // One request, then nothing: closed within the header deadline.
    let mut idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    idle.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let idling = std::thread::spawn(move || until_closed(idle, HEADER_WITHIN * 2));
    // A body of 1000 bytes, a byte a second: refused within the body deadline.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(
        b"POST /api/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n",
    )
    .unwrap();
    let reader = slow.try_clone().unwrap();
    let answered = std::thread::spawn(move || until_closed(reader, BODY_WITHIN * 2));
    let writer = std::thread::spawn(move || {
        for _ in 0..1000 {
            if slow.write_all(b" ").is_err() {
                break;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    });
    let (idled, first) = idling.join().unwrap();
    assert!(first.starts_with("HTTP/1.1 200 OK"), "{first}");
    assert!(idled <= HEADER_WITHIN + Duration::from_secs(2), "an idle connection stayed {idled:?}");
    let (took, answer) = answered.join().unwrap();
    assert!(took <= BODY_WITHIN + Duration::from_secs(3), "a trickled body took {took:?}");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("the request body did not arrive within 30 s"), "{answer}");
    drop(writer);
}

async fn send(
    server: &common::Server,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", server.base));
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[tokio::test]
async fn labels_that_would_read_other_than_they_are_are_refused_naming_the_field() {
    let server = common::start_server(&[]).await;
    let upload_with = |change: &dyn Fn(&mut Value)| {
        let mut upload = browser_upload();
        change(&mut upload);
        upload
    };
    let refusals = [
        (upload_with(&|u| u["board"] = json!("browser:1a2b\u{202E}3c")), "board must be browser:<name>"),
        (
            upload_with(&|u| u["build"]["profile"] = json!("release\u{1}")),
            "build.profile holds a control character (U+0001)",
        ),
        (
            upload_with(&|u| u["build"]["extra"] = json!({"browser": "Chromium\u{200B}"})),
            "build.extra.browser holds an invisible character (U+200B)",
        ),
        (
            upload_with(&|u| {
                u["notes"] =
                    json!([{"algorithm": "ML-KEM-768", "operation": "keygen", "note": "fast\u{2066}"}])
            }),
            "the note on ML-KEM-768 keygen holds a bidirectional control (U+2066)",
        ),
    ];
    for (upload, why) in refusals {
        let (status, answer) = send(&server, reqwest::Method::POST, "/api/uploads", Some(&upload)).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer["error"].as_str().is_some_and(|e| e.contains(why)), "{why}: {answer}");
    }
    // An import's board name is a label too, and keeps out of live boards' ids.
    for (board, why) in [
        ("b-u585i\u{200D}", "an invisible character"),
        ("serial:066DFF555185754867044030", "has the form of a live board's id (serial:...)"),
        ("probe:066DFF", "has the form of a live board's id (probe:...)"),
        ("qemu-mps2-an386", "has the form of a live board's id (qemu-...)"),
        ("lab-1/serial:x", "has the form of an agent's board id"),
    ] {
        let mut import = import_request();
        import["board"] = json!(board);
        for path in ["/api/imports/preview", "/api/imports"] {
            let (status, answer) = send(&server, reqwest::Method::POST, path, Some(&import)).await;
            assert_eq!(status, 422, "{path} {board:?}: {answer}");
            assert!(answer["error"].as_str().is_some_and(|e| e.contains(why)), "{board:?}: {answer}");
        }
    }
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "nothing was stored: {runs:?}");

    // A shared report's texts are read by whoever opens its link.
    for (view, why) in [
        (json!({"title": "Results\u{202E}lanif"}), "view.title holds a bidirectional control (U+202E)"),
        (json!({"title": "x".repeat(201)}), "view.title is 201 bytes, more than 200"),
        (
            json!({"history": {"board": "browser:1a\u{7}", "algorithm": "ML-KEM-768", "operation": "keygen"}}),
            "view.history.board holds a control character (U+0007)",
        ),
    ] {
        let (status, answer) =
            send(&server, reqwest::Method::POST, "/api/reports", Some(&json!({"view": view}))).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer["error"].as_str().is_some_and(|e| e.contains(why)), "{why}: {answer}");
    }
    let (status, answer) = send(
        &server,
        reqwest::Method::POST,
        "/api/reports",
        Some(&json!({"view": {"title": "ML-KEM on the U585"}})),
    )
    .await;
    assert_eq!(status, 201, "a plain title is taken: {answer}");

    // A badge's board id is checked as any board id is: no control
    // character (the SVG would be ill-formed), no 30 KB id.
    for board in ["a%01b".to_string(), "x".repeat(30_000)] {
        let (status, answer) = send(
            &server,
            reqwest::Method::GET,
            &format!("/badge.svg?board={board}&algorithm=X25519&operation=agree"),
            None,
        )
        .await;
        assert_eq!(status, 400, "{answer}");
    }
}

#[tokio::test]
async fn one_query_names_a_handful_of_models_each_once() {
    let server = common::start_server(&[]).await;
    let many: Vec<String> = (1..=400).map(|p| format!("percent:{p}")).collect();
    for (models, why) in [
        (many.join(","), "models names 400 models; 4 at most"),
        ("welch,welch:0.01".into(), "models names welch:0.01 twice"),
        (",".into(), "models names none"),
    ] {
        let (status, answer) =
            send(&server, reqwest::Method::GET, &format!("/api/regressions?models={models}"), None).await;
        assert_eq!((status, answer["error"].as_str()), (400, Some(why)), "{answer}");
    }
    let (status, _) =
        send(&server, reqwest::Method::GET, "/api/regressions?models=percent:5,welch", None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_note_a_spreadsheet_would_run_leaves_the_csv_export_as_text() {
    let server = common::start_server(&[]).await;
    let mut upload = browser_upload();
    upload["notes"] = json!([{"algorithm": "ML-KEM-768", "operation": "keygen", "note": "=HYPERLINK(\"http://x.example\",\"open\")"}]);
    let (status, answer) = send(&server, reqwest::Method::POST, "/api/uploads", Some(&upload)).await;
    assert_eq!(status, 201, "{answer}");
    let id = answer["id"].as_i64().unwrap().to_string();
    let output = common::pqbench(&["export", "--run", &id, "--format", "csv"], server.db());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let csv = String::from_utf8(output.stdout).unwrap();
    assert!(csv.contains(",\"'=HYPERLINK(\"\"http://x.example\"\",\"\"open\"\")\","), "{csv}");
    assert!(!csv.contains(",=") && !csv.contains(",\"="), "a live formula: {csv}");
}

#[tokio::test]
async fn wrong_tokens_are_guessed_a_burst_at_a_time_then_answered_429_unheard() {
    let token = "lab-write-token-0451-abcdef";
    let server = common::start_server(&["--token", token]).await;
    let post = |given: &'static str| {
        let url = format!("{}/api/reports", server.base);
        async move {
            let body = json!({"view": {"runs": [1], "filter": {"families": [], "algorithms": [], "operations": []}}});
            reqwest::Client::new().post(url).bearer_auth(given).json(&body).send().await.unwrap()
        }
    };
    for n in 0..pqbench::security::guesses::BURST {
        assert_eq!(post("not-the-token").await.status().as_u16(), 401, "guess {n}");
    }
    let refused = post("not-the-token").await;
    assert_eq!(refused.status().as_u16(), 429);
    assert_eq!(refused.headers()["retry-after"], "1");
    let body: Value = refused.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("too many wrong tokens from this address"), "{body}");
    // Even the right token waits its turn: it is not compared while the
    // address is past its guesses, so parallel guesses gain nothing.
    assert_eq!(post(token).await.status().as_u16(), 429);
    tokio::time::sleep(pqbench::security::guesses::REFILL).await;
    assert_eq!(post(token).await.status().as_u16(), 201, "a guess refilled, and the right one costs none");
}

#[tokio::test]
async fn health_fails_when_the_store_does_and_every_request_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pqbench.db");
    let log = dir.path().join("server.log");
    let port = common::free_port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--db"])
        .arg(&db)
        .arg("--dist")
        .arg(common::dist())
        .env_remove("PQBENCH_TOKEN")
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while reqwest::get(format!("{base}/api/health")).await.is_err() {
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let health = reqwest::get(format!("{base}/api/health?probe=1")).await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
    // The database's tables go from under the server.
    let output =
        std::process::Command::new("sqlite3").arg(&db).arg("DROP TABLE results; DROP TABLE runs;").output();
    let dropped = match output {
        Ok(output) if output.status.success() => true,
        _ => {
            // No sqlite3 CLI: overwrite the file's header instead.
            let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            file.write_all(&[0u8; 100]).is_ok()
        }
    };
    assert!(dropped);
    let health = reqwest::get(format!("{base}/api/health")).await.unwrap();
    assert_eq!(health.status().as_u16(), 503);
    let body: Value = health.json().await.unwrap();
    assert_eq!(body["status"], "failing", "{body}");
    let _ = child.kill();
    let _ = child.wait();
    let log = std::fs::read_to_string(&log).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("path=/api/health") && l.contains("status=200"))
        .unwrap_or_else(|| panic!("no access line: {log}"));
    assert!(
        line.contains("peer=127.0.0.1:") && line.contains("method=GET") && line.contains("ms="),
        "{line}"
    );
    assert!(!log.contains("probe=1"), "a query is not logged: {log}");
    assert!(log.lines().any(|l| l.contains("path=/api/health") && l.contains("status=503")), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_large_logs_leaves_the_health_check_quick() {
    let server = common::start_server(&[]).await;
    // A 1.8 MiB log: the sample's text, again and again.
    let sample = import_request()["text"].as_str().unwrap().to_string();
    let text = sample.repeat((1_800_000 / sample.len()).max(1));
    let import = json!({"format": "wolfcrypt", "text": text, "board": "b-u585i-iot02a"});
    let previews: Vec<_> = (0..4)
        .map(|_| {
            let (url, import) = (format!("{}/api/imports/preview", server.base), import.clone());
            tokio::spawn(async move {
                reqwest::Client::new().post(url).json(&import).send().await.unwrap().status()
            })
        })
        .collect();
    let client = reqwest::Client::new();
    let mut times = Vec::new();
    while times.len() < 20 && !previews.iter().all(|p| p.is_finished()) {
        let asked = Instant::now();
        let health = client.get(format!("{}/api/health", server.base)).send().await.unwrap();
        assert_eq!(health.status().as_u16(), 200);
        times.push(asked.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for preview in previews {
        assert_eq!(preview.await.unwrap().as_u16(), 200);
    }
    times.sort();
    assert!(times.len() >= 3, "the previews ended before health was asked: {times:?}");
    let median = times[times.len() / 2];
    assert!(
        median < Duration::from_millis(100),
        "health's median {median:?} while logs were read: {times:?}"
    );
}

#[tokio::test]
async fn metrics_count_requests_by_route_template_never_by_the_path_asked() {
    let server = common::start_server(&[]).await;
    let client = reqwest::Client::new();
    let get = |path: &str| client.get(format!("{}{path}", server.base)).send();
    assert_eq!(get("/api/health").await.unwrap().status().as_u16(), 200);
    for id in [999_001, 999_002] {
        assert_eq!(get(&format!("/api/runs/{id}")).await.unwrap().status().as_u16(), 404);
    }
    // Ever new paths: counted, but never a label of their own.
    for n in 0..3 {
        get(&format!("/probe-{n}-x")).await.unwrap();
    }
    let metrics = get("/metrics").await.unwrap();
    assert_eq!(metrics.status().as_u16(), 200);
    assert_eq!(metrics.headers()["content-type"], pqbench::metrics::CONTENT_TYPE);
    let text = metrics.text().await.unwrap();
    // Health was asked while the server came up too.
    assert!(text.contains("pqbench_http_requests_total{route=\"/api/health\",status=\"200\"} "), "{text}");
    assert!(
        text.contains("pqbench_http_requests_total{route=\"/api/runs/{id}\",status=\"404\"} 2\n"),
        "{text}"
    );
    assert!(!text.contains("probe-"), "a path asked for became a label: {text}");
    assert!(text.contains("route=\"other\""), "{text}");
    for line in ["pqbench_runs_in_flight 0", "pqbench_agents_connected 0", "pqbench_store_up 1"] {
        assert!(text.lines().any(|l| l == line), "no {line:?}: {text}");
    }
    assert!(text.ends_with("# EOF\n"), "{text}");
}

#[tokio::test]
async fn a_replayed_upload_is_stored_once_and_answered_with_the_first_run() {
    let server = common::start_server(&[]).await;
    let post = |body: String| {
        reqwest::Client::new()
            .post(format!("{}/api/uploads", server.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let upload = browser_upload();
    let first = post(upload.to_string()).await.unwrap();
    assert_eq!(first.status().as_u16(), 201);
    let first: Value = first.json().await.unwrap();
    // The same content, sent again and written otherwise: pretty-printed,
    // its fields in another order.
    let reordered: Vec<String> = upload
        .as_object()
        .unwrap()
        .iter()
        .rev()
        .map(|(key, value)| format!("\n  {key:?}: {value}"))
        .collect();
    let reordered = format!("{{{}\n}}", reordered.join(","));
    for again in [upload.to_string(), reordered] {
        let replayed = post(again).await.unwrap();
        assert_eq!(replayed.status().as_u16(), 200, "a replay is no new run");
        assert_eq!(replayed.json::<Value>().await.unwrap()["id"], first["id"]);
    }
    // Any other content is a run of its own.
    let mut other = upload.clone();
    other["measurements"][0]["max_ticks"] = json!(120_001);
    assert_eq!(post(other.to_string()).await.unwrap().status().as_u16(), 201);
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert_eq!(runs.len(), 2, "{runs:?}");
}
