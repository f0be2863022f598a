//! The JSON API under `/api` and the dashboard's static files.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::Stream;
use pqbench_types::{
    Algorithm, Board, Created, ImportPreview, ImportRequest, ImportStored, NewReport, Operation, Report,
    ReportCreated, ResultRow, RunEnd, RunRequest, RunStatus, Source, Upload, is_report_id,
};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::watch;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::boards::{BoardError, Boards};
use crate::import::{self, ImportError};
use crate::live::{CancelAnswer, LiveRuns, LiveState};
use crate::runner::{self, RunError};
use crate::store::{ResultFilter, Store, StoreError};
use crate::{reports, upload};

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub boards: Arc<Boards>,
    /// The runs this server is making now: their progress, and their cancel.
    pub live: Arc<LiveRuns>,
}

impl AppState {
    pub fn new(store: Store, boards: Arc<Boards>) -> Self {
        AppState { store, boards, live: Arc::default() }
    }
}

/// An error for a person: a status and `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        tracing::error!("store: {e}");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the database failed; see the server log")
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> Self {
        ApiError::new(e.status(), e.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, e.body_text())
    }
}

impl From<RunError> for ApiError {
    fn from(e: RunError) -> Self {
        let status = match &e {
            RunError::Invalid(_) => StatusCode::BAD_REQUEST,
            RunError::Board(BoardError::Unknown(_)) => StatusCode::NOT_FOUND,
            RunError::Board(BoardError::ProbeNotAttached(_)) => StatusCode::NOT_FOUND,
            RunError::Board(
                BoardError::UnknownVariant(_)
                | BoardError::VariantNotOffered { .. }
                | BoardError::BadWiring(_),
            ) => StatusCode::BAD_REQUEST,
            RunError::Board(BoardError::NoProbeSupport(_)) => StatusCode::NOT_IMPLEMENTED,
            RunError::Board(BoardError::Busy(_)) => StatusCode::CONFLICT,
            RunError::Board(_) => StatusCode::SERVICE_UNAVAILABLE,
            RunError::Store(e) => {
                tracing::error!("store: {e}");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<ImportError> for ApiError {
    fn from(e: ImportError) -> Self {
        let status = match &e {
            ImportError::Invalid(_) | ImportError::Parse(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ImportError::Duplicate { .. } => StatusCode::CONFLICT,
            ImportError::Store(e) => {
                tracing::error!("store: {e}");
                return ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the database failed; see the server log",
                );
            }
        };
        ApiError::new(status, e.to_string())
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// A log as JSON text: the largest published wolfCrypt or pqm4 log is a few
/// hundred KiB; the adapters refuse more than 4 MiB of text in any case.
const MAX_IMPORT_BYTES: usize = 8 * 1024 * 1024;

/// The whole application: `/api`, then the dashboard's files from `dist`.
pub fn router(state: AppState, dist: &Path, token: Option<String>) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .route("/boards", get(boards))
        .route("/runs", get(list_runs).post(start_run))
        .route("/runs/{id}", get(get_run))
        .route("/runs/{id}/results", get(get_results))
        .route("/runs/{id}/events", get(run_events))
        .route("/runs/{id}/cancel", post(cancel_run))
        .route("/results", get(results_across_runs))
        .route("/uploads", post(upload))
        // A log is read twice: previewed (nothing stored), then stored.
        .route("/imports/preview", post(preview_import).layer(DefaultBodyLimit::max(MAX_IMPORT_BYTES)))
        .route("/imports", post(store_import).layer(DefaultBodyLimit::max(MAX_IMPORT_BYTES)))
        // Reports are immutable: no route changes or deletes one.
        .route("/reports", post(create_report).layer(DefaultBodyLimit::max(MAX_REPORT_BYTES)))
        .route("/reports/{id}", get(get_report))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such API endpoint") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "this endpoint does not take that method")
        })
        .layer(middleware::from_fn_with_state(token.map(Arc::new), require_token_for_writes))
        .with_state(state);
    let files = ServeDir::new(dist).fallback(ServeFile::new(dist.join("index.html")));
    Router::new()
        .nest("/api", api)
        .fallback_service(files)
        // Cross-origin isolation gives the browser benchmark a fine-grained
        // performance.now(); nosniff keeps uploads from being run as scripts.
        .layer(SetResponseHeaderLayer::overriding(
            header::HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::HeaderName::from_static("cross-origin-embedder-policy"),
            HeaderValue::from_static("require-corp"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
}

/// Reading needs no token; with a token configured, writing does.
async fn require_token_for_writes(
    State(token): State<Option<Arc<String>>>,
    request: Request,
    next: Next,
) -> Response {
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if let (true, Some(token)) = (writes, token) {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if given != Some(token.as_str()) {
            return ApiError::new(StatusCode::UNAUTHORIZED, "this server needs a token to write")
                .into_response();
        }
    }
    next.run(request).await
}

async fn health() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

async fn boards(State(state): State<AppState>) -> Result<Json<Vec<Board>>, ApiError> {
    // Listing probes walks USB, which blocks.
    let boards = state.boards.clone();
    let listed = tokio::task::spawn_blocking(move || boards.list())
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("listing boards: {e}")))?;
    Ok(Json(listed))
}

async fn start_run(
    State(state): State<AppState>,
    request: Result<Json<RunRequest>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Created>)> {
    let Json(request) = request?;
    let prepared = runner::prepare(&state.store, &state.boards, &request).await?;
    let id = prepared.id;
    // Registered before the id is given out, so its events and its cancel
    // work from the first moment a client can ask for them.
    let mut tracker = state.live.track(id, prepared.canceller());
    tokio::spawn(async move {
        let end = match prepared.execute(|progress| tracker.update(&progress)).await {
            Ok(outcome) => {
                tracing::info!(run = id, "run ended: {outcome:?}");
                RunEnd { status: outcome.status, error: outcome.error }
            }
            Err(e) => {
                tracing::error!(run = id, "run could not be recorded: {e}");
                RunEnd {
                    status: RunStatus::Failed,
                    error: Some(format!("the run could not be recorded: {e}")),
                }
            }
        };
        tracker.finish(end);
    });
    Ok((StatusCode::ACCEPTED, Json(Created { id })))
}

/// How often a run another process is making is looked up in the store.
const POLL_STORE: Duration = Duration::from_secs(1);

/// Where a run's event stream is.
enum Feed {
    /// A run of this server's: its state as it changes.
    Live {
        rx: watch::Receiver<LiveState>,
        fresh: bool,
        store: Store,
        id: i64,
    },
    /// A run another process (`pqbench run`) is making: only the store
    /// knows it, and it says no progress, only the end.
    Poll {
        store: Store,
        id: i64,
    },
    Ended(RunEnd),
    Done,
}

/// `progress` events while the run goes, then one `end` event, then the
/// stream closes. A run that has ended answers its `end` at once.
async fn run_events(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, axum::Error>>>> {
    let id = run_id(&id)?;
    // Subscribe before reading the store: a run ending in between is seen
    // ending by one or the other.
    let live = state.live.subscribe(id);
    let run = state.store.run(id).await?.ok_or_else(|| no_run(id))?;
    let store = state.store.clone();
    let feed = match live {
        Some(rx) => Feed::Live { rx, fresh: true, store, id },
        None if run.status.is_finished() => Feed::Ended(RunEnd { status: run.status, error: run.error }),
        None => Feed::Poll { store, id },
    };
    let events = futures_util::stream::unfold(feed, next_event);
    // Comments every 15 s keep proxies from closing a quiet stream (an
    // RSA keygen on a board can take minutes).
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

async fn next_event(mut feed: Feed) -> Option<(Result<Event, axum::Error>, Feed)> {
    loop {
        feed = match feed {
            Feed::Done => return None,
            Feed::Ended(end) => return Some((Event::default().event("end").json_data(&end), Feed::Done)),
            Feed::Live { mut rx, fresh, store, id } => {
                if !fresh && rx.changed().await.is_err() {
                    // The tracker is gone; its last state or the store says
                    // how the run ended.
                    let end = rx.borrow().end.clone();
                    match end {
                        Some(end) => Feed::Ended(end),
                        None => Feed::Poll { store, id },
                    }
                } else {
                    let state = rx.borrow_and_update().clone();
                    match (state.end, state.progress) {
                        (Some(end), _) => Feed::Ended(end),
                        (None, Some(progress)) => {
                            let event = Event::default().event("progress").json_data(&progress);
                            return Some((event, Feed::Live { rx, fresh: false, store, id }));
                        }
                        // Started, but the board has not begun measuring.
                        (None, None) => Feed::Live { rx, fresh: false, store, id },
                    }
                }
            }
            Feed::Poll { store, id } => {
                tokio::time::sleep(POLL_STORE).await;
                match store.run(id).await {
                    Ok(Some(run)) if run.status.is_finished() => {
                        Feed::Ended(RunEnd { status: run.status, error: run.error })
                    }
                    Ok(Some(_)) => Feed::Poll { store, id },
                    Ok(None) => return None,
                    Err(e) => {
                        tracing::warn!(run = id, "following a run in the store: {e}");
                        Feed::Poll { store, id }
                    }
                }
            }
        };
    }
}

/// Stops a run this server is making; it ends `interrupted`, keeping the
/// results stored until then.
async fn cancel_run(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<(StatusCode, Json<Created>)> {
    let id = run_id(&id)?;
    let ended = |status: RunStatus| {
        ApiError::new(
            StatusCode::CONFLICT,
            format!("run {id} has already ended ({}): there is nothing to cancel", status.as_str()),
        )
    };
    match state.live.cancel(id) {
        CancelAnswer::Requested => {
            tracing::info!(run = id, "cancel requested");
            return Ok((StatusCode::ACCEPTED, Json(Created { id })));
        }
        CancelAnswer::Ended(end) => return Err(ended(end.status)),
        CancelAnswer::NotLive => {}
    }
    match state.store.run(id).await? {
        None => Err(no_run(id)),
        Some(run) if run.status.is_finished() => Err(ended(run.status)),
        Some(_) => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!(
                "run {id} is being made by another pqbench process (such as `pqbench run`), \
                 not this server: stop it there"
            ),
        )),
    }
}

/// Most results one request lists, and how many when it does not say.
const DEFAULT_RESULTS_PAGE: u32 = 5000;
const MAX_RESULTS_PAGE: u32 = 20_000;
/// Most values one filter takes: each is a bound parameter.
const MAX_FILTER_VALUES: usize = 500;

/// Results across runs, for the explorer. Every filter may be repeated
/// (`run=1&run=2`); all but `board` (whose ids are free text) also take
/// comma-separated values (`run=1,2`). Empty values are ignored.
async fn results_across_runs(
    State(state): State<AppState>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Json<Vec<ResultRow>>> {
    let Query(pairs) = query?;
    let filter = result_filter(&pairs)?;
    Ok(Json(state.store.result_rows(&filter).await?))
}

fn result_filter(pairs: &[(String, String)]) -> ApiResult<ResultFilter> {
    fn name<T: std::str::FromStr>(kind: &str, text: &str) -> ApiResult<T> {
        text.parse()
            .map_err(|_| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, format!("unknown {kind} {text:?}")))
    }
    let mut filter = ResultFilter { limit: DEFAULT_RESULTS_PAGE, ..ResultFilter::default() };
    for (key, value) in pairs {
        let mut values = value.split(',').map(str::trim).filter(|v| !v.is_empty());
        match key.as_str() {
            "board" if !value.is_empty() => filter.boards.push(value.clone()),
            "board" => {}
            "source" => {
                for v in values {
                    let source = Source::from_name(v).ok_or_else(|| {
                        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, format!("unknown source {v:?}"))
                    })?;
                    filter.sources.push(source);
                }
            }
            "algorithm" => filter
                .algorithms
                .extend(values.map(|v| name::<Algorithm>("algorithm", v)).collect::<Result<Vec<_>, _>>()?),
            "operation" => filter
                .operations
                .extend(values.map(|v| name::<Operation>("operation", v)).collect::<Result<Vec<_>, _>>()?),
            "run" => filter.runs.extend(values.map(run_id).collect::<Result<Vec<_>, _>>()?),
            "limit" => {
                filter.limit = values
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|limit| (1..=MAX_RESULTS_PAGE).contains(limit))
                    .ok_or_else(|| {
                        ApiError::new(
                            StatusCode::BAD_REQUEST,
                            format!("limit must be 1 to {MAX_RESULTS_PAGE}"),
                        )
                    })?;
            }
            other => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "unknown parameter {other:?}: filter by board, source, algorithm, operation \
                         or run, and give a limit"
                    ),
                ));
            }
        }
    }
    let counts = [
        filter.boards.len(),
        filter.sources.len(),
        filter.algorithms.len(),
        filter.operations.len(),
        filter.runs.len(),
    ];
    if counts.iter().any(|&n| n > MAX_FILTER_VALUES) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("a filter takes at most {MAX_FILTER_VALUES} values"),
        ));
    }
    Ok(filter)
}

/// A report's body is a dashboard view, small: a bound keeps the store
/// from being used as a free file host.
const MAX_REPORT_BYTES: usize = 16 * 1024;

async fn create_report(
    State(state): State<AppState>,
    body: Result<Json<NewReport>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<ReportCreated>)> {
    let Json(body) = body?;
    // Two of 62^16 ids meeting is all but impossible, but drawing again
    // costs nothing and keeps a report from ever replacing another.
    for _ in 0..3 {
        let id = reports::new_id().map_err(|e| {
            tracing::error!("the OS random generator failed: {e}");
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "no random id could be drawn; see the server log",
            )
        })?;
        if let Some(report) = state.store.insert_report(&id, &body.view).await? {
            return Ok((StatusCode::CREATED, Json(ReportCreated::for_id(&report.id))));
        }
    }
    Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "no free report id was found"))
}

async fn get_report(State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> ApiResult<Json<Report>> {
    if !is_report_id(&id) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("{id:?} is not a report id (16 letters and digits)"),
        ));
    }
    let report = state.store.report(&id).await?;
    report.map(Json).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no report {id}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunsQuery {
    board: Option<String>,
    limit: Option<u32>,
}

const MAX_RUNS_PAGE: u32 = 500;

async fn list_runs(
    State(state): State<AppState>,
    query: Result<Query<RunsQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<pqbench_types::Run>>> {
    let Query(query) = query?;
    let limit = query.limit.unwrap_or(50);
    if !(1..=MAX_RUNS_PAGE).contains(&limit) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("limit must be 1 to {MAX_RUNS_PAGE}")));
    }
    Ok(Json(state.store.runs(query.board.as_deref(), limit).await?))
}

fn no_run(id: i64) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}"))
}

fn run_id(raw: &str) -> ApiResult<i64> {
    raw.parse::<i64>()
        .ok()
        .filter(|&id| id > 0)
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, format!("{raw:?} is not a run id")))
}

async fn get_run(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<pqbench_types::Run>> {
    let id = run_id(&id)?;
    let run = state.store.run(id).await?;
    run.map(Json).ok_or_else(|| no_run(id))
}

async fn get_results(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<Vec<pqbench_types::BenchResult>>> {
    let id = run_id(&id)?;
    if state.store.run(id).await?.is_none() {
        return Err(no_run(id));
    }
    Ok(Json(state.store.results(id).await?))
}

async fn upload(
    State(state): State<AppState>,
    body: Result<Json<Upload>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Created>)> {
    let Json(body) = body?;
    let (run, clock) =
        upload::validate(&body).map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let id = state.store.insert_finished_run(&run, &clock, &body.measurements).await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

async fn preview_import(
    State(state): State<AppState>,
    body: Result<Json<ImportRequest>, JsonRejection>,
) -> ApiResult<Json<ImportPreview>> {
    let Json(request) = body?;
    Ok(Json(import::preview(&state.store, &request).await?))
}

async fn store_import(
    State(state): State<AppState>,
    body: Result<Json<ImportRequest>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<ImportStored>)> {
    let Json(request) = body?;
    let plan = import::plan(&request)?;
    Ok((StatusCode::CREATED, Json(import::store(&state.store, plan).await?)))
}
