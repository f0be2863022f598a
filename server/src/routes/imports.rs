//! `POST /api/imports/preview` and `POST /api/imports`: a published log,
//! shown as it would be stored, then stored.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use pqbench_api::{ImportCreated, ImportPreview, NewImport};
use pqbench_store::import;

use crate::AppState;
use crate::cpu_work;
use crate::error::{ApiResult, json_body};

/// A log as JSON text: the largest published wolfCrypt or pqm4 log is a few
/// hundred KiB; the adapters refuse more than 4 MiB of text in any case.
pub const MAX_IMPORT_BYTES: usize = 8 * 1024 * 1024;

/// The plan of an import: reading the log is CPU work (a 1.8 MiB log,
/// hundreds of milliseconds).
async fn planned(request: NewImport) -> ApiResult<import::Plan> {
    Ok(cpu_work::run("reading the log", move || import::plan(&request)).await??)
}

pub async fn preview_import(
    State(state): State<AppState>,
    body: Result<Json<NewImport>, JsonRejection>,
) -> ApiResult<Json<ImportPreview>> {
    let plan = planned(json_body(body, MAX_IMPORT_BYTES)?).await?;
    Ok(Json(import::preview(&state.store, plan).await?))
}

pub async fn store_import(
    State(state): State<AppState>,
    body: Result<Json<NewImport>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<ImportCreated>)> {
    let plan = planned(json_body(body, MAX_IMPORT_BYTES)?).await?;
    Ok((StatusCode::CREATED, Json(import::store(&state.store, plan).await?)))
}
