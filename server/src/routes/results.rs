//! `GET /api/results`: results across runs, for the explorer.

use axum::Json;
use axum::extract::{RawQuery, State};
use pqbench_api::ResultQuery;
use pqbench_types::ResultRow;

use crate::AppState;
use crate::error::ApiResult;

/// Results across runs, for the explorer: the query is
/// [`ResultQuery`]'s, the codec the dashboard builds its requests with.
pub async fn results_across_runs(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Vec<ResultRow>>> {
    let filter = ResultQuery::from_query(query.as_deref().unwrap_or(""))?;
    Ok(Json(state.store.result_rows(&filter).await?))
}
