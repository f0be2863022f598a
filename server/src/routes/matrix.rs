//! `GET /api/matrix`: operations as rows, boards x builds as columns.

use axum::Json;
use axum::extract::{RawQuery, State};
use pqbench_api::Matrix;
use pqbench_view::ResultQuery;

use crate::AppState;
use crate::error::ApiResult;

/// The matrix's columns (the latest complete run of each board and build,
/// or the runs asked for) and their results: the query is
/// [`ResultQuery`]'s, as for `GET /api/results`.
pub async fn matrix(State(state): State<AppState>, RawQuery(query): RawQuery) -> ApiResult<Json<Matrix>> {
    let filter = ResultQuery::from_query(query.as_deref().unwrap_or(""))?;
    Ok(Json(state.store.matrix(&filter).await?))
}
