//! The server's JSON API: one typed function per endpoint the dashboard
//! calls, and the only place that knows their paths. Every failure becomes
//! a sentence for the user: the server's own `{"error": ...}` where it gave
//! one.

use futures::StreamExt;
use futures::channel::mpsc;
use gloo_net::http::{Request, Response};
use leptos::prelude::*;
use pqbench_api::ResultQuery;
use pqbench_api::{
    Board, Flash, ImportCreated, ImportPreview, Matrix, NewFlash, NewImport, NewReport, NewRun, NewSession,
    Report, ReportCreated, RunCreated, RunEnd, RunProgress, RunRegressions, Session,
};
use pqbench_types::{BenchResult, ResultRow, Run};
use pqbench_view::HistoryOf;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

use crate::context::Alert;

pub type ApiResult<T> = Result<T, String>;

#[derive(Deserialize)]
struct ErrorBody {
    error: String,
}

/// `GET /api/session`: whether writes need the server's token, and
/// whether this browser is signed in.
pub async fn session() -> ApiResult<Session> {
    get("/api/session").await
}

/// `POST /api/session`: signs in with the server's token; the browser
/// keeps the session cookie the answer sets.
pub async fn sign_in(token: &NewSession) -> ApiResult<Session> {
    post("/api/session", token).await
}

/// `DELETE /api/session`: signs out.
pub async fn sign_out() -> ApiResult<Session> {
    read("DELETE", "/api/session", Request::delete("/api/session").send().await).await
}

/// `GET /api/boards`: the boards the server can reach now.
pub async fn boards() -> ApiResult<Vec<Board>> {
    get("/api/boards").await
}

/// `POST /api/flashes`: writes this host's image to a board through its
/// port's probe.
pub async fn flash(request: &NewFlash) -> ApiResult<Flash> {
    post("/api/flashes", request).await
}

/// `POST /api/runs`: starts the suite on a board; the new run's id.
pub async fn start_run(request: &NewRun) -> ApiResult<RunCreated> {
    post("/api/runs", request).await
}

/// `POST /api/runs/{id}/cancel`: stops a board run; it ends `interrupted`.
pub async fn cancel_run(id: i64) -> ApiResult<()> {
    post::<_, serde_json::Value>(&format!("/api/runs/{id}/cancel"), &()).await.map(drop)
}

/// `GET /api/runs?limit=..`: the newest `limit` runs.
pub async fn runs(limit: u32) -> ApiResult<Vec<Run>> {
    get(&format!("/api/runs?limit={limit}")).await
}

/// `GET /api/runs/{id}/results`: one run's results.
pub async fn run_results(id: i64) -> ApiResult<Vec<BenchResult>> {
    get(&format!("/api/runs/{id}/results")).await
}

/// `POST /api/uploads`: a browser run with its results, as the benchmark
/// worker gives it (JSON text already); the stored run's id.
pub async fn upload(json: String) -> ApiResult<RunCreated> {
    post_json_text("/api/uploads", json).await
}

/// `GET /api/results?..`: results across runs, as `query` selects them: the
/// query in the codec the server reads it with, every name and board id
/// escaped as it must be.
pub async fn results(query: &ResultQuery) -> ApiResult<Vec<ResultRow>> {
    get(&format!("/api/results?{}", query.to_query())).await
}

/// `GET /api/matrix?..`: the matrix's columns and their results, as `query`
/// selects them (`ResultQuery::of_matrix`).
pub async fn matrix(query: &ResultQuery) -> ApiResult<Matrix> {
    get(&format!("/api/matrix?{}", query.to_query())).await
}

/// `GET /api/regressions?runs=..`: each of `runs` judged against the
/// earlier runs of its lineage.
pub async fn regressions_of_runs(runs: &[i64]) -> ApiResult<Vec<RunRegressions>> {
    let runs: Vec<String> = runs.iter().map(i64::to_string).collect();
    get(&format!("/api/regressions?runs={}", runs.join(","))).await
}

/// `GET /api/regressions?board=..&algorithm=..&operation=..&limit=..`: a
/// history's newest `limit` runs, each judged against the earlier runs of
/// its lineage.
pub async fn regressions_of_history(history: &HistoryOf, limit: u32) -> ApiResult<Vec<RunRegressions>> {
    get(&format!("/api/regressions?{}", history.regressions_query(limit))).await
}

/// `POST /api/imports/preview`: what importing a published log would store,
/// and the lines it would not.
pub async fn preview_import(request: &NewImport) -> ApiResult<ImportPreview> {
    post("/api/imports/preview", request).await
}

/// `POST /api/imports`: stores a published log as runs.
pub async fn store_import(request: &NewImport) -> ApiResult<ImportCreated> {
    post("/api/imports", request).await
}

/// `POST /api/reports`: saves a view as a report under an unguessable id.
pub async fn create_report(report: &NewReport) -> ApiResult<ReportCreated> {
    post("/api/reports", report).await
}

/// `GET /api/reports/{id}`: a shared report; `id` as its link gave it,
/// escaped here.
pub async fn report(id: &str) -> ApiResult<Report> {
    get(&format!("/api/reports/{}", js_sys::encode_uri_component(id))).await
}

/// A list the page shows and reads again when it may have changed
/// (`refetch`): None if it could not be loaded, the banner saying why. A
/// failed refresh keeps what is shown (the banner says it is stale); only a
/// first load comes back with nothing.
pub fn listed<T, F, Fut>(fetch: F) -> LocalResource<Option<T>>
where
    T: Clone + Send + Sync + 'static,
    F: Fn() -> Fut + 'static,
    Fut: Future<Output = ApiResult<T>> + 'static,
{
    let alert = expect_context::<Alert>();
    let last = StoredValue::new(None::<T>);
    LocalResource::new(move || {
        let fetched = fetch();
        async move {
            match alert.check(fetched.await) {
                Some(fresh) => {
                    last.set_value(Some(fresh.clone()));
                    Some(fresh)
                }
                None => last.try_get_value().flatten(),
            }
        }
    })
}

enum RunEvent {
    Progress(RunProgress),
    End(RunEnd),
    Lost,
}

/// A run's live progress from the server, `GET /api/runs/{id}/events`, read
/// with the browser's `EventSource`: calls `on_progress` for each progress
/// event of run `id` until the run ends; the error is why it could not be
/// followed, or why the run did not complete.
pub async fn follow_run(id: i64, mut on_progress: impl FnMut(RunProgress)) -> Result<(), String> {
    let source = EventSource::new(&format!("/api/runs/{id}/events"))
        .map_err(|_| "the run's progress cannot be followed in this browser".to_string())?;
    let (sender, mut events) = mpsc::unbounded::<RunEvent>();

    let data = |event: &MessageEvent| event.data().as_string().unwrap_or_default();
    let progress = {
        let sender = sender.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            // A malformed event is skipped; the next one or the end says more.
            if let Ok(progress) = serde_json::from_str(&data(&event)) {
                let _ = sender.unbounded_send(RunEvent::Progress(progress));
            }
        })
    };
    let end = {
        let sender = sender.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let ended = serde_json::from_str(&data(&event)).map_or(RunEvent::Lost, RunEvent::End);
            let _ = sender.unbounded_send(ended);
        })
    };
    // The browser reconnects on its own after a dropped connection; only a
    // source it has given up on (CLOSED) is lost.
    let error = {
        let source = source.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if source.ready_state() == EventSource::CLOSED {
                let _ = sender.unbounded_send(RunEvent::Lost);
            }
        })
    };
    let listen = |name: &str, f: &Closure<dyn FnMut(MessageEvent)>| {
        source.add_event_listener_with_callback(name, f.as_ref().unchecked_ref())
    };
    let attached = listen("progress", &progress).and_then(|()| listen("end", &end));
    source.set_onerror(Some(error.as_ref().unchecked_ref()));
    if attached.is_err() {
        source.close();
        return Err("the run's progress cannot be followed in this browser".into());
    }

    let outcome = loop {
        match events.next().await {
            Some(RunEvent::Progress(progress)) => on_progress(progress),
            Some(RunEvent::End(end)) => {
                break match end.error {
                    Some(error) => Err(format!("run {id} ended {}: {error}", end.status.as_str())),
                    None => Ok(()),
                };
            }
            Some(RunEvent::Lost) | None => break Err(format!("lost the progress of run {id}")),
        }
    };
    source.close();
    // The closures must live until the source is closed.
    drop((progress, end, error));
    outcome
}

async fn get<T: DeserializeOwned>(path: &str) -> ApiResult<T> {
    let response = Request::get(path).send().await;
    read("GET", path, response).await
}

async fn post<B: Serialize, T: DeserializeOwned>(path: &str, body: &B) -> ApiResult<T> {
    let request = Request::post(path).json(body).map_err(|e| format!("POST {path}: {e}"))?;
    read("POST", path, request.send().await).await
}

/// Posts a body that is already JSON text, as the benchmark worker gives it.
async fn post_json_text<T: DeserializeOwned>(path: &str, json: String) -> ApiResult<T> {
    let request = Request::post(path)
        .header("Content-Type", "application/json")
        .body(json)
        .map_err(|e| format!("POST {path}: {e}"))?;
    read("POST", path, request.send().await).await
}

async fn read<T: DeserializeOwned>(
    method: &str,
    path: &str,
    response: Result<Response, gloo_net::Error>,
) -> ApiResult<T> {
    let response = response.map_err(|e| format!("{method} {path}: the server cannot be reached ({e})"))?;
    if response.ok() {
        return response
            .json()
            .await
            .map_err(|e| format!("{method} {path}: unexpected answer from the server ({e})"));
    }
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<ErrorBody>(&text)
        .map(|body| body.error)
        .unwrap_or_else(|_| response.status_text());
    Err(format!("{method} {path}: {message} (HTTP {status})"))
}
