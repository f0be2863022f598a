//! `GET /api/boards` (and `/api/health`): what this server can run on.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use pqbench_api::Board;
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;

pub async fn health() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
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
