//! `GET /metrics`: the server's state in the OpenMetrics text format, for
//! a lab's Prometheus (or anything that reads it): requests answered by
//! route and status, runs in flight, agents connected, and how long a read
//! of the store took when scraped.
//!
//! Requests are counted by the route that answered them (its template,
//! `/api/runs/{id}`), never by the path asked for: a client naming ever new
//! paths cannot grow the table. Whatever no route answered (the
//! dashboard's files, unknown paths, requests refused before routing) is
//! counted as `other`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;

/// The route label of requests no route answered.
pub const OTHER_ROUTE: &str = "other";

/// Requests answered, by route template and status.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
}

/// Where the route that answers a request writes its template, for
/// [`count_requests`] to read when the answer comes back.
#[derive(Clone, Default)]
struct RouteSlot(Arc<Mutex<Option<String>>>);

impl Metrics {
    fn requests(&self) -> std::sync::MutexGuard<'_, BTreeMap<(String, u16), u64>> {
        // Each change is one increment under the lock.
        self.requests.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Outermost: counts every request once its answer begins.
pub async fn count_requests(
    State(metrics): State<Arc<Metrics>>,
    mut request: Request,
    next: Next,
) -> Response {
    let slot = RouteSlot::default();
    request.extensions_mut().insert(slot.clone());
    let response = next.run(request).await;
    let route = slot.0.lock().unwrap_or_else(PoisonError::into_inner).take();
    let route = route.unwrap_or_else(|| OTHER_ROUTE.into());
    *metrics.requests().entry((route, response.status().as_u16())).or_default() += 1;
    response
}

/// On the routes (`route_layer`): says which route answered.
pub async fn name_route(request: Request, next: Next) -> Response {
    if let (Some(slot), Some(matched)) =
        (request.extensions().get::<RouteSlot>(), request.extensions().get::<MatchedPath>())
    {
        *slot.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(matched.as_str().to_owned());
    }
    next.run(request).await
}

pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub async fn metrics(State(state): State<AppState>) -> Response {
    let asked = std::time::Instant::now();
    let read = tokio::time::timeout(crate::routes::boards::STORE_DEADLINE, state.store.ping()).await;
    let store_seconds = asked.elapsed().as_secs_f64();
    let store_up = matches!(read, Ok(Ok(())));
    let text = exposition(
        &state.metrics.requests(),
        state.live.count(),
        state.agents.connected(),
        store_up,
        store_seconds,
    );
    let mut response = text.into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    response
}

/// The exposition: each family's TYPE and HELP, its samples, `# EOF`.
fn exposition(
    requests: &BTreeMap<(String, u16), u64>,
    runs_in_flight: usize,
    agents_connected: usize,
    store_up: bool,
    store_seconds: f64,
) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(text, "# TYPE pqbench_http_requests counter");
    let _ = writeln!(text, "# HELP pqbench_http_requests Requests answered, by route template and status.");
    for ((route, status), count) in requests {
        let _ = writeln!(
            text,
            "pqbench_http_requests_total{{route=\"{}\",status=\"{status}\"}} {count}",
            label(route)
        );
    }
    let _ = writeln!(text, "# TYPE pqbench_runs_in_flight gauge");
    let _ = writeln!(
        text,
        "# HELP pqbench_runs_in_flight Runs this server is making now, on its boards and agents'."
    );
    let _ = writeln!(text, "pqbench_runs_in_flight {runs_in_flight}");
    let _ = writeln!(text, "# TYPE pqbench_agents_connected gauge");
    let _ = writeln!(text, "# HELP pqbench_agents_connected Agent hosts connected now.");
    let _ = writeln!(text, "pqbench_agents_connected {agents_connected}");
    let _ = writeln!(text, "# TYPE pqbench_store_up gauge");
    let _ = writeln!(text, "# HELP pqbench_store_up Whether a read of the store answered when scraped.");
    let _ = writeln!(text, "pqbench_store_up {}", u8::from(store_up));
    let _ = writeln!(text, "# TYPE pqbench_store_read_seconds gauge");
    let _ = writeln!(text, "# UNIT pqbench_store_read_seconds seconds");
    let _ = writeln!(
        text,
        "# HELP pqbench_store_read_seconds How long that read took (or until it was given up)."
    );
    let _ = writeln!(text, "pqbench_store_read_seconds {store_seconds:.6}");
    text.push_str("# EOF\n");
    text
}

/// A label value as OpenMetrics writes it: `\`, `"` and line feeds escaped.
fn label(value: &str) -> String {
    value.replace('\\', r"\\").replace('"', "\\\"").replace('\n', r"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_every_family_and_ends_with_eof() {
        let mut requests = BTreeMap::new();
        requests.insert(("/api/runs/{id}".to_string(), 200), 3);
        requests.insert(("odd\"\\\nroute".to_string(), 404), 1);
        let text = exposition(&requests, 2, 1, true, 0.0015);
        assert!(
            text.contains("pqbench_http_requests_total{route=\"/api/runs/{id}\",status=\"200\"} 3\n"),
            "{text}"
        );
        assert!(text.contains(r#"route="odd\"\\\nroute",status="404"} 1"#), "{text}");
        assert!(text.contains("\npqbench_runs_in_flight 2\n"), "{text}");
        assert!(text.contains("\npqbench_agents_connected 1\n"), "{text}");
        assert!(text.contains("\npqbench_store_up 1\n"), "{text}");
        assert!(text.contains("\npqbench_store_read_seconds 0.001500\n"), "{text}");
        assert!(text.ends_with("\n# EOF\n"), "{text}");
        // Every sample's family was declared before it.
        let declared: Vec<&str> =
            text.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.split(' ').next()).collect();
        for sample in text.lines().filter(|l| !l.starts_with('#')) {
            let name = sample.split(['{', ' ']).next().unwrap_or_default();
            let family = name.strip_suffix("_total").unwrap_or(name);
            assert!(declared.contains(&family), "{sample} has no TYPE line");
        }
    }
}
