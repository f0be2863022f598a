//! `POST /api/flashes`: this host's image written to a board on a serial
//! port through the probe on the same ST-LINK, confirmed over the port.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use pqbench_api::{Flash, NewFlash};
use pqbench_collect::flash;

use crate::AppState;
use crate::error::{ApiResult, json_body};

/// A board id and a variant name.
pub const MAX_FLASH_REQUEST_BYTES: usize = 4 * 1024;

pub async fn create_flash(
    State(state): State<AppState>,
    body: Result<Json<NewFlash>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Flash>)> {
    let request = json_body(body, MAX_FLASH_REQUEST_BYTES)?;
    let variant = request.variant.as_deref().unwrap_or(pqbench_boards::DEFAULT_VARIANT);
    let flashed = flash::flash(&state.boards, &request.board, variant).await?;
    let image = flashed.image.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok((StatusCode::CREATED, Json(Flash { board: flashed.board, image, build_id: flashed.build_id })))
}
