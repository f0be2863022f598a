//! The JSON API under `/api` and the dashboard's static files.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path as UrlPath, Query, RawQuery, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use futures_util::Stream;
use pqbench_api::{
    Board, Created, ImportPreview, ImportRequest, ImportStored, NewReport, Report, ReportCreated, RunEnd,
    RunRequest, Upload, is_report_id,
};
use pqbench_types::{ResultRow, RunStatus};
use pqbench_view::{QueryError, ResultQuery};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::agent::hub::{self, AgentRunError, Agents};
use crate::boards::{BoardError, Boards};
use crate::import::{self, ImportError};
use crate::live::{CancelAnswer, LiveRuns, LiveState};
use crate::runner::{self, RunError};
use crate::store::{Store, StoreError};
use crate::{reports, upload};

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub boards: Arc<Boards>,
    /// The runs this server is making now: their progress, and their cancel.
    pub live: Arc<LiveRuns>,
    /// Hosts whose agents serve their boards to this server.
    pub agents: Arc<Agents>,
    /// What an agent must send to connect; none, and no agent may.
    agent_token: Option<TokenDigest>,
}

impl AppState {
    pub fn new(store: Store, boards: Arc<Boards>) -> Self {
        AppState { store, boards, live: Arc::default(), agents: Arc::default(), agent_token: None }
    }

    /// Takes agents that send `token` (`pqbench agent --token`).
    pub fn accepting_agents(mut self, token: &str) -> Self {
        self.agent_token = Some(TokenDigest::of(token));
        self
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

impl From<PathRejection> for ApiError {
    fn from(e: PathRejection) -> Self {
        ApiError::new(e.status(), e.body_text())
    }
}

/// A path parameter whose rejection (such as `%FF`, not UTF-8) is JSON,
/// as every API error is; axum's own `Path` answers in plain text.
struct ApiPath<T>(T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> ApiResult<Self> {
        let UrlPath(value) = UrlPath::<T>::from_request_parts(parts, state).await?;
        Ok(ApiPath(value))
    }
}

/// A JSON body, or why not: a body over `limit` bytes (the route's
/// `DefaultBodyLimit`) says the limit, so the client knows what to cut.
fn json_body<T>(body: Result<Json<T>, JsonRejection>, limit: usize) -> ApiResult<T> {
    match body {
        Ok(Json(value)) => Ok(value),
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than this endpoint takes ({} KiB at most)", limit / 1024),
        )),
        Err(e) => Err(e.into()),
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

impl From<AgentRunError> for ApiError {
    fn from(e: AgentRunError) -> Self {
        let e = match e {
            AgentRunError::Run(e) => return e.into(),
            other => other,
        };
        let status = match &e {
            AgentRunError::UnknownBoard { .. } => StatusCode::NOT_FOUND,
            AgentRunError::NotConnected { .. } | AgentRunError::Unavailable { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AgentRunError::Busy(_) | AgentRunError::Run(_) => StatusCode::CONFLICT,
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

/// An upload of the most measurements `upload::validate` takes (1000, each
/// about 400 bytes of JSON) and the largest build description (16 KiB) is
/// under 500 KiB; twice that leaves room for pretty-printed JSON.
const MAX_UPLOAD_BYTES: usize = 1024 * 1024;

/// A run request is a board, a variant, a few numbers and at most every
/// algorithm's name: well under 2 KiB.
const MAX_RUN_REQUEST_BYTES: usize = 16 * 1024;

/// The whole application: `/api`, then the dashboard's files from `dist`.
pub fn router(state: AppState, dist: &Path, token: Option<String>) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .route("/boards", get(boards))
        .route("/runs", get(list_runs).post(start_run).layer(DefaultBodyLimit::max(MAX_RUN_REQUEST_BYTES)))
        .route("/runs/{id}", get(get_run))
        .route("/runs/{id}/results", get(get_results))
        .route("/runs/{id}/events", get(run_events))
        .route("/runs/{id}/cancel", post(cancel_run))
        .route("/results", get(results_across_runs))
        .route("/uploads", post(upload).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)))
        // A log is read twice: previewed (nothing stored), then stored.
        .route("/imports/preview", post(preview_import).layer(DefaultBodyLimit::max(MAX_IMPORT_BYTES)))
        .route("/imports", post(store_import).layer(DefaultBodyLimit::max(MAX_IMPORT_BYTES)))
        // Reports are immutable: no route changes or deletes one.
        .route("/reports", post(create_report).layer(DefaultBodyLimit::max(MAX_REPORT_BYTES)))
        .route("/reports/{id}", get(get_report))
        // An agent's WebSocket: its own token, checked by the route.
        .route("/agents/connect", get(connect_agent))
        .fallback(no_such_endpoint)
        .method_not_allowed_fallback(|| async {
            ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "this endpoint does not take that method")
        })
        .layer(middleware::from_fn_with_state(
            token.as_deref().map(TokenDigest::of),
            require_token_for_writes,
        ))
        // Outermost, so that it sees every answer, the token's included.
        .layer(middleware::from_fn(errors_as_json))
        .with_state(state);
    let files = ServeDir::new(dist).fallback(ServeFile::new(dist.join("index.html")));
    Router::new()
        .nest("/api", api)
        // `nest` leaves `/api/` to the dashboard's files, but a client there
        // is after the API.
        .route("/api/", any(no_such_endpoint))
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
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
}

/// What a page of this server may load and run, on every response (a
/// worker's script takes its policy from its own response): only this
/// server's files, no inline script or style, no plugins, no framing by
/// other sites. `'wasm-unsafe-eval'` lets the dashboard, the benchmark
/// worker and the browser comparison's peers (`/bench/compare/`,
/// liboqs-js compiles wasm from bytes) compile WebAssembly without
/// allowing JavaScript's eval. `img-src data:` lets a page show a `data:`
/// image, such as a chart's SVG download; an image runs no script. Charts
/// are inline SVG with presentation attributes, never `style=`, so
/// `style-src` needs no `'unsafe-inline'`. `tests/e2e/security.test.mjs`
/// holds the dashboard and the comparison page to it.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The SHA-256 of a token. Tokens are compared by their digests, every
/// byte of both, so the time a comparison takes says nothing about how
/// much of a guess was right.
#[derive(Clone, Copy)]
struct TokenDigest([u8; 32]);

impl TokenDigest {
    fn of(token: &str) -> Self {
        TokenDigest(Sha256::digest(token.as_bytes()).into())
    }

    fn matches(&self, other: &TokenDigest) -> bool {
        self.0.iter().zip(&other.0).fold(0u8, |differ, (a, b)| differ | (a ^ b)) == 0
    }
}

async fn no_such_endpoint() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such API endpoint")
}

/// Reading needs no token; with a token configured, writing does.
async fn require_token_for_writes(
    State(token): State<Option<TokenDigest>>,
    request: Request,
    next: Next,
) -> Response {
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if let (true, Some(token)) = (writes, token) {
        let refusal = match bearer_token(request.headers()) {
            None => Some("writing to this server needs its token: send `Authorization: Bearer <token>`"),
            Some(given) if !token.matches(&TokenDigest::of(given)) => Some("that is not this server's token"),
            Some(_) => None,
        };
        if let Some(why) = refusal {
            let mut response = ApiError::new(StatusCode::UNAUTHORIZED, why).into_response();
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    }
    next.run(request).await
}

/// The token of an `Authorization: Bearer <token>` header (the scheme's
/// name is case-insensitive, RFC 9110).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Every API error is `{"error": "..."}`: an error answered in plain text
/// by axum itself (an extractor's rejection a handler did not map) is
/// rewrapped, so a client can always read why, and keeps its status and
/// headers (such as `Allow`).
async fn errors_as_json(request: Request, next: Next) -> Response {
    /// More than any of axum's own rejection texts.
    const MAX_ERROR_TEXT: usize = 4096;
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_ERROR_TEXT)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("the request failed").to_lowercase()
    } else {
        text
    };
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    let mut rewrapped = ApiError::new(status, message).into_response();
    rewrapped.headers_mut().extend(parts.headers);
    rewrapped
}

async fn health() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

async fn boards(State(state): State<AppState>) -> Result<Json<Vec<Board>>, ApiError> {
    // Listing probes walks USB, which blocks.
    let boards = state.boards.clone();
    let mut listed = tokio::task::spawn_blocking(move || boards.list())
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("listing boards: {e}")))?;
    listed.extend(state.agents.boards());
    Ok(Json(listed))
}

/// An agent connecting (`pqbench agent`): with the agents' token, the
/// connection becomes a WebSocket that [`hub::serve`] follows to its end.
async fn connect_agent(
    State(state): State<AppState>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(expected) = state.agent_token else {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this server takes no agents: start it with --agent-token (or PQBENCH_AGENT_TOKEN)",
        ));
    };
    let refusal = match bearer_token(&headers) {
        None => Some("an agent must send the agents' token: `Authorization: Bearer <token>`"),
        Some(token) if !expected.matches(&TokenDigest::of(token)) => {
            Some("that is not this server's agent token")
        }
        Some(_) => None,
    };
    if let Some(why) = refusal {
        let mut response = ApiError::new(StatusCode::UNAUTHORIZED, why).into_response();
        response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return Ok(response);
    }
    let upgrade = upgrade.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    let (agents, store) = (state.agents.clone(), state.store.clone());
    // An agent's largest message is its list of boards: a few KiB.
    let upgrade = upgrade.max_message_size(hub::MAX_MESSAGE_BYTES).max_frame_size(hub::MAX_MESSAGE_BYTES);
    Ok(upgrade.on_upgrade(move |socket| hub::serve(socket, agents, store)))
}

async fn start_run(
    State(state): State<AppState>,
    request: Result<Json<RunRequest>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Created>)> {
    let request = json_body(request, MAX_RUN_REQUEST_BYTES)?;
    if let Some((host, board)) = state.agents.owner_of(&request.board) {
        let id = state.agents.start(&state.store, &state.live, &host, &board, &request).await?;
        return Ok((StatusCode::ACCEPTED, Json(Created { id })));
    }
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
    ApiPath(id): ApiPath<String>,
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
    ApiPath(id): ApiPath<String>,
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

/// Results across runs, for the explorer: the query is
/// [`ResultQuery`]'s, the codec the dashboard builds its requests with.
async fn results_across_runs(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Vec<ResultRow>>> {
    let filter = ResultQuery::from_query(query.as_deref().unwrap_or("")).map_err(|e| {
        let status = match e {
            QueryError::UnknownName { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            QueryError::Malformed(_) => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.to_string())
    })?;
    Ok(Json(state.store.result_rows(&filter).await?))
}

/// A report's body is a dashboard view, small: a bound keeps the store
/// from being used as a free file host.
const MAX_REPORT_BYTES: usize = 16 * 1024;

async fn create_report(
    State(state): State<AppState>,
    body: Result<Json<NewReport>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<ReportCreated>)> {
    let body = json_body(body, MAX_REPORT_BYTES)?;
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

async fn get_report(State(state): State<AppState>, ApiPath(id): ApiPath<String>) -> ApiResult<Json<Report>> {
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
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<pqbench_types::Run>> {
    let id = run_id(&id)?;
    let run = state.store.run(id).await?;
    run.map(Json).ok_or_else(|| no_run(id))
}

async fn get_results(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
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
    let body = json_body(body, MAX_UPLOAD_BYTES)?;
    let (run, clock) =
        upload::validate(&body).map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let id = state.store.insert_finished_run(&run, &clock, &body.measurements).await?;
    Ok((StatusCode::CREATED, Json(Created { id })))
}

async fn preview_import(
    State(state): State<AppState>,
    body: Result<Json<ImportRequest>, JsonRejection>,
) -> ApiResult<Json<ImportPreview>> {
    let request = json_body(body, MAX_IMPORT_BYTES)?;
    Ok(Json(import::preview(&state.store, &request).await?))
}

async fn store_import(
    State(state): State<AppState>,
    body: Result<Json<ImportRequest>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<ImportStored>)> {
    let request = json_body(body, MAX_IMPORT_BYTES)?;
    let plan = import::plan(&request)?;
    Ok((StatusCode::CREATED, Json(import::store(&state.store, plan).await?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error axum answers in plain text (an extractor a handler left
    /// unmapped, a method a route lacks) reaches the client as JSON, with
    /// its status and headers; other answers pass untouched.
    #[tokio::test]
    async fn plain_text_errors_are_rewrapped_as_json() {
        async fn number(UrlPath(n): UrlPath<u32>) -> String {
            n.to_string()
        }
        let app = Router::new().route("/n/{n}", get(number)).layer(middleware::from_fn(errors_as_json));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });

        let refused = reqwest::get(format!("{base}/n/x")).await.unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(refused.headers()[header::CONTENT_TYPE], "application/json");
        let answer: serde_json::Value = refused.json().await.unwrap();
        assert!(answer["error"].as_str().unwrap().contains("Cannot parse"), "{answer}");

        let wrong_method = reqwest::Client::new().post(format!("{base}/n/1")).send().await.unwrap();
        assert_eq!(wrong_method.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert!(wrong_method.headers()[header::ALLOW].to_str().unwrap().contains("GET"));
        let answer: serde_json::Value = wrong_method.json().await.unwrap();
        assert_eq!(answer, json!({"error": "method not allowed"}));

        let fine = reqwest::get(format!("{base}/n/7")).await.unwrap();
        assert_eq!((fine.status(), fine.text().await.unwrap()), (StatusCode::OK, "7".to_owned()));
    }

    #[test]
    fn tokens_match_only_themselves() {
        let token = TokenDigest::of("s3cret");
        assert!(token.matches(&TokenDigest::of("s3cret")));
        for other in ["", "s3cre", "s3cret ", "S3cret", "s3cret2"] {
            assert!(!token.matches(&TokenDigest::of(other)), "{other:?}");
        }
    }
}
