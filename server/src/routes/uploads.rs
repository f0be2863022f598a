//! `POST /api/uploads`: a run measured in a browser or on a host, whole.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use pqbench_api::{RunCreated, Upload};
use pqbench_store::{StoreError, upload};

use crate::AppState;
use crate::error::{ApiError, ApiResult, json_body};

/// An upload of the most measurements `upload::validate` takes (1000, each
/// about 400 bytes of JSON, and a note of at most 400 bytes on each) and
/// the largest build description (16 KiB) is under 1 MiB; twice that leaves
/// room for pretty-printed JSON.
pub const MAX_UPLOAD_BYTES: usize = 2 * 1024 * 1024;

/// Stores an upload: `201` with its new run; the same upload again (a
/// client's retry after a lost answer, a replayed request) is stored once,
/// and answered `200` with the run the first made.
pub async fn upload(
    State(state): State<AppState>,
    body: Result<Json<Upload>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<RunCreated>)> {
    let body = json_body(body, MAX_UPLOAD_BYTES)?;
    let (run, clock) = upload::validate(&body)
        .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    let digest = upload::digest(&body);
    let stored =
        state.store.insert_finished_run(&run, &clock, &body.measurements, &body.notes, Some(&digest)).await;
    match stored {
        Ok(id) => Ok((StatusCode::CREATED, Json(RunCreated { id }))),
        Err(StoreError::AlreadyUploaded { run }) => Ok((StatusCode::OK, Json(RunCreated { id: run }))),
        Err(e) => Err(e.into()),
    }
}
