//! `/api/reports`: shared views, created once and never changed.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use pqbench_api::{NewReport, Report, ReportCreated, is_report_id};
use pqbench_store::secrets;

use crate::AppState;
use crate::error::{ApiError, ApiPath, ApiResult, json_body};

/// A report's body is a dashboard view, small: a bound keeps the store
/// from being used as a free file host.
pub const MAX_REPORT_BYTES: usize = 16 * 1024;

pub async fn create_report(
    State(state): State<AppState>,
    body: Result<Json<NewReport>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<ReportCreated>)> {
    let body = json_body(body, MAX_REPORT_BYTES)?;
    body.check().map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    // Two of 62^16 ids meeting is all but impossible, but drawing again
    // costs nothing and keeps a report from ever replacing another.
    for _ in 0..3 {
        let id = secrets::new_report_id().map_err(|e| {
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

pub async fn get_report(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<Report>> {
    if !is_report_id(&id) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("{id:?} is not a report id (16 letters and digits)"),
        ));
    }
    let report = state.store.report(&id).await?;
    report.map(Json).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no report {id}")))
}
