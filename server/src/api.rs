//! The JSON API under `/api` and the dashboard's static files.

use std::path::Path;
use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use pqbench_types::{Board, Created, RunRequest, Upload};
use serde::Deserialize;
use serde_json::json;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::boards::{BoardError, Boards};
use crate::runner::{self, RunError};
use crate::store::{Store, StoreError};
use crate::upload;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub boards: Arc<Boards>,
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

type ApiResult<T> = Result<T, ApiError>;

/// The whole application: `/api`, then the dashboard's files from `dist`.
pub fn router(state: AppState, dist: &Path, token: Option<String>) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .route("/boards", get(boards))
        .route("/runs", get(list_runs).post(start_run))
        .route("/runs/{id}", get(get_run))
        .route("/runs/{id}/results", get(get_results))
        .route("/uploads", post(upload))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such API endpoint") })
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
    tokio::spawn(async move {
        match prepared.execute(|_| {}).await {
            Ok(outcome) => tracing::info!(run = id, "run ended: {outcome:?}"),
            Err(e) => tracing::error!(run = id, "run could not be recorded: {e}"),
        }
    });
    Ok((StatusCode::ACCEPTED, Json(Created { id })))
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
    run.map(Json).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}")))
}

async fn get_results(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<Vec<pqbench_types::BenchResult>>> {
    let id = run_id(&id)?;
    if state.store.run(id).await?.is_none() {
        return Err(ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}")));
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
