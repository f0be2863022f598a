//! `GET /api/boards` (and `/api/health`): what this server can run on.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use pqbench_api::Board;
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;

/// How long the store may take to answer before the server is unhealthy.
pub(crate) const STORE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// `ok` when the store answers a read within [`STORE_DEADLINE`], with the
/// time it took; 503 saying why otherwise, so a monitor sees a server
/// whose database is gone (deleted, locked, its server down).
pub async fn health(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    let version = env!("CARGO_PKG_VERSION");
    let asked = std::time::Instant::now();
    let answered = tokio::time::timeout(STORE_DEADLINE, state.store.ping()).await;
    let store_ms = asked.elapsed().as_secs_f64() * 1000.0;
    match answered {
        Ok(Ok(())) => {
            (StatusCode::OK, Json(json!({ "status": "ok", "version": version, "store_ms": store_ms })))
        }
        Ok(Err(e)) => {
            tracing::error!("health: the store failed: {e}");
            let why = "the database failed; see the server log";
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "failing", "version": version, "error": why })),
            )
        }
        Err(_) => {
            let why = format!("the database did not answer within {} s", STORE_DEADLINE.as_secs());
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "failing", "version": version, "error": why })),
            )
        }
    }
}

pub async fn boards(State(state): State<AppState>) -> Result<Json<Vec<Board>>, ApiError> {
    // Listing probes walks USB, which blocks.
    let boards = state.boards.clone();
    let mut listed = tokio::task::spawn_blocking(move || boards.list())
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("listing boards: {e}")))?;
    listed.extend(state.agents.boards());
    Ok(Json(listed))
}
