//! Images to embed: a badge of one operation on one board, and a shared
//! report's chart, served as SVG with an ETag under the server's CSP. (That
//! a report's SVG is the page's own download, byte for byte, is checked in
//! Chromium: `tests/e2e/images.test.mjs`.)

use pqbench_types::{BenchResult, Run};
use serde_json::json;

use crate::common;
use crate::regressions::file_under;

/// A GET's status, headers and body.
async fn fetch(url: &str, if_none_match: Option<&str>) -> (u16, reqwest::header::HeaderMap, String) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(tag) = if_none_match {
        request = request.header("if-none-match", tag);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    (status, headers, response.text().await.unwrap())
}

/// The text of every `<text>` of a well-formed SVG document.
fn svg_texts(svg: &str) -> Vec<String> {
    let document = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed: {e}: {svg}"));
    let root = document.root_element();
    assert_eq!(
        (root.tag_name().name(), root.tag_name().namespace()),
        ("svg", Some("http://www.w3.org/2000/svg"))
    );
    root.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(String::from).collect()
}

#[tokio::test]
async fn a_badge_shows_the_newest_figure_and_turns_when_a_regression_is_flagged() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let url =
        format!("{}/badge.svg?board=qemu-mps2-an386&algorithm=ML-KEM-768&operation=keygen", server.base);
    let (status, _, svg) = fetch(&url, None).await;
    assert_eq!(status, 200);
    assert_eq!(svg_texts(&svg), ["ML-KEM-768 keygen · qemu-mps2-an386", "no complete run"]);

    let request = |variant: &str| {
        json!({"board": "qemu-mps2-an386", "variant": variant, "algorithms": ["ML-KEM-768"],
            "min_iterations": 8, "min_time_ms": 0})
    };
    server.run_to_end(request("opt-s")).await;
    let (_, fast): (Run, Vec<BenchResult>) = server.run_to_end(request("opt-s")).await;
    let (status, headers, svg) = fetch(&url, None).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "image/svg+xml");
    assert!(
        headers["content-security-policy"].to_str().unwrap().contains("default-src"),
        "the CSP is intact"
    );
    let keygen = fast.iter().find(|r| r.operation.as_str() == "keygen").unwrap();
    let rate = pqbench_view::format::rate(keygen.ops_per_sec);
    assert_eq!(svg_texts(&svg)[1], format!("{rate} ops/s"));
    assert!(svg.contains("#2456c7"), "judged unchanged: {svg}");

    // Unchanged: the client's copy stands.
    let etag = headers["etag"].to_str().unwrap().to_string();
    let (status, again, body) = fetch(&url, Some(&etag)).await;
    assert_eq!((status, body.as_str()), (304, ""));
    assert_eq!(again["etag"].to_str().unwrap(), etag);

    // RustCrypto's real figures filed as the lineage's next revision.
    let (_, slow) = server.run_to_end(request("opt-s-rustcrypto")).await;
    let second: Run = server.get("/api/runs/2").await;
    file_under(std::path::Path::new(&server.db()), &second, slow.clone()).await;
    let (status, headers, svg) = fetch(&url, Some(&etag)).await;
    assert_eq!(status, 200, "a new figure is a new image");
    assert_ne!(headers["etag"].to_str().unwrap(), etag);
    let slow_rate = pqbench_view::format::rate(
        slow.iter().find(|r| r.operation.as_str() == "keygen").unwrap().ops_per_sec,
    );
    assert_eq!(svg_texts(&svg)[1], format!("{slow_rate} ops/s ▼ slower"));
    assert!(svg.contains("#c0392b"), "{svg}");

    // A build of the board by its label; a name that is none.
    let label = "firmware opt-s, ml-kem 0.3.4";
    let (status, _, svg) =
        fetch(&format!("{url}&build={}", label.replace(' ', "%20").replace(',', "%2C")), None).await;
    assert_eq!(status, 200);
    assert!(svg_texts(&svg)[1].ends_with("ops/s"), "{svg}");
    let (status, _, body) = fetch(&url.replace("ML-KEM-768", "ML-KEM-769"), None).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn a_reports_chart_is_served_as_svg_and_a_reports_page_as_the_dashboard() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let (run, results) = server
        .run_to_end(json!({"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"], "min_iterations": 2, "min_time_ms": 0}))
        .await;
    let (status, created) = server.post("/api/reports", &json!({"view": {"runs": [run.id]}})).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let (status, headers, svg) = fetch(&format!("{}/reports/{id}.svg", server.base), None).await;
    assert_eq!(status, 200, "{svg}");
    assert_eq!(headers["content-type"], "image/svg+xml");
    let texts = svg_texts(&svg);
    assert_eq!(texts[0], "Operations per second");
    for r in &results {
        let bar = format!("{} ops/s", pqbench_view::format::rate(r.ops_per_sec));
        assert!(texts.contains(&bar), "{bar} in {texts:?}");
    }
    // The page itself, as before.
    let (status, headers, page) = fetch(&format!("{}/reports/{id}", server.base), None).await;
    assert_eq!(status, 200);
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.contains("<html") || page.contains("<!DOCTYPE") || page.contains("<!doctype"), "{page}");
    // No such report, or no report id.
    let (status, _, _) = fetch(&format!("{}/reports/AAAAAAAAAAAAAAAA.svg", server.base), None).await;
    assert_eq!(status, 404);
    let (status, _, _) = fetch(&format!("{}/reports/x.svg", server.base), None).await;
    assert_eq!(status, 400);
}
