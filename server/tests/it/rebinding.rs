//! DNS rebinding and cross-site writes, against the real server on
//! loopback without a token, the server a rebinding page would aim at:
//! a request for another host name is refused on every route, and so is
//! a write from another site's page.

use reqwest::Method;
use serde_json::{Value, json};

use crate::access::{refusal, writes};
use crate::common;

/// Every write, the flash too (a board needs no token on loopback).
fn every_write() -> Vec<(Method, &'static str, Value)> {
    let mut all = writes();
    all.push((Method::POST, "/api/flashes", json!({"board": "qemu-mps2-an386"})));
    all
}

fn request(server: &common::Server, method: &Method, path: &str, body: &Value) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new().request(method.clone(), format!("{}{path}", server.base));
    if body.is_null() { request } else { request.json(body) }
}

fn port(server: &common::Server) -> &str {
    server.base.rsplit(':').next().unwrap()
}

#[tokio::test]
async fn a_request_for_another_host_name_is_refused_on_every_route() {
    let server = common::start_server(&[]).await;
    let port = port(&server);
    let reads =
        ["/api/runs", "/api/results", "/api/matrix", "/api/boards", "/api/agents/connect", "/", "/runs"];
    let mut routes = every_write();
    routes.extend(reads.iter().map(|path| (Method::GET, *path, Value::Null)));
    // As a rebound page sends them: its own name, with and without the
    // port, and names that only look like loopback.
    let foreign = [
        format!("attacker.example:{port}"),
        "attacker.example".to_string(),
        format!("localhost.attacker.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
    ];
    for (method, path, body) in &routes {
        for host in &foreign {
            let response = request(&server, method, path, body).header("host", host).send().await.unwrap();
            let what = format!("{method} {path} for {host}");
            assert_eq!(response.status().as_u16(), 421, "{what}");
            let answer: Value = response.json().await.unwrap();
            let error = answer["error"].as_str().unwrap_or_default();
            assert!(error.contains(host.as_str()) && error.contains("--allow-host"), "{what}: {answer}");
        }
    }
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "a refused write stored nothing: {runs:?}");
    let reports = request(&server, &Method::GET, "/api/reports/AAAAAAAAAAAAAAAA", &Value::Null);
    assert_eq!(reports.send().await.unwrap().status().as_u16(), 404, "no report was stored either");

    // By its address, or as localhost, it is this server.
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), "localhost".to_string()] {
        let response = request(&server, &Method::GET, "/api/runs", &Value::Null).header("host", &host);
        assert_eq!(response.send().await.unwrap().status().as_u16(), 200, "{host}");
    }
}

#[tokio::test]
async fn a_write_from_another_sites_page_is_refused() {
    let server = common::start_server(&[]).await;
    let port = port(&server);
    let other_port: u16 = port.parse::<u16>().unwrap() ^ 1;
    let foreign = [
        "http://attacker.example".to_string(),
        format!("http://attacker.example:{port}"),
        // Another server on the same machine is another site too.
        format!("http://127.0.0.1:{other_port}"),
        "null".to_string(),
    ];
    for (method, path, body) in every_write() {
        for origin in &foreign {
            let response =
                request(&server, &method, path, &body).header("origin", origin).send().await.unwrap();
            let what = format!("{method} {path} from {origin}");
            assert_eq!(response.status().as_u16(), 403, "{what}");
            let answer: Value = response.json().await.unwrap();
            assert!(answer["error"].as_str().is_some_and(|e| e.contains("another site")), "{what}: {answer}");
        }
    }
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "a refused write stored nothing: {runs:?}");

    // From the server's own page, as the dashboard writes, it goes through.
    let own = request(&server, &Method::POST, "/api/reports", &json!({"view": {"runs": [1]}}))
        .header("origin", &server.base)
        .send()
        .await
        .unwrap();
    assert_eq!(own.status().as_u16(), 201);
    // A read from another site's page is the browser's to withhold (no
    // CORS header lets it read the answer); it is no write.
    let read =
        request(&server, &Method::GET, "/api/runs", &Value::Null).header("origin", "http://attacker.example");
    assert_eq!(read.send().await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn a_name_of_the_labs_own_is_served_once_allowed() {
    let server = common::start_server(&["--allow-host", "Bench.Lab"]).await;
    let host = format!("bench.lab:{}", port(&server));
    let read = request(&server, &Method::GET, "/api/runs", &Value::Null).header("host", &host);
    assert_eq!(read.send().await.unwrap().status().as_u16(), 200);
    let write = request(&server, &Method::POST, "/api/reports", &json!({"view": {"runs": [1]}}))
        .header("host", &host)
        .header("origin", format!("http://{host}"))
        .send()
        .await
        .unwrap();
    assert_eq!(write.status().as_u16(), 201);
    let other = request(&server, &Method::GET, "/api/runs", &Value::Null).header("host", "other.lab");
    assert_eq!(other.send().await.unwrap().status().as_u16(), 421);

    for bad in ["http://bench.lab", "bench.lab:8080", ""] {
        let said = refusal(&["--allow-host", bad], None);
        assert!(said.contains("--allow-host takes a host name"), "{bad:?}: {said}");
    }
}
