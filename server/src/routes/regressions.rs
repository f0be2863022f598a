//! `/api/regressions`: runs judged against the earlier runs of their
//! lineage, by named models (`pqbench_view::regressions`).

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use pqbench_api::RunRegressions;
use pqbench_store::{Store, StoreResult};
use pqbench_types::{Run, RunStatus};
use pqbench_view::regressions::{self, BASELINE_RUNS, Model};
use serde::Deserialize;

use crate::AppState;
use crate::error::{ApiError, ApiResult};

/// Earlier runs of a board looked through for a run's lineage: a board
/// serving several builds in turn still finds its lineage's last five.
const CANDIDATES: u32 = 200;
/// Runs judged in one request at most.
const MAX_RUNS: u32 = 100;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegressionsQuery {
    /// One run; else the newest complete runs.
    run: Option<i64>,
    board: Option<String>,
    /// Comma-separated models (`percent:10,welch:0.001`); the defaults
    /// when left out.
    models: Option<String>,
    /// How many of the newest runs (20 when left out).
    limit: Option<u32>,
    /// Only runs with a regression.
    #[serde(default)]
    regressed: bool,
}

/// The models named in a query, or the defaults.
pub fn parse_models(text: Option<&str>) -> Result<Vec<Model>, String> {
    match text {
        None => Ok(Model::DEFAULTS.to_vec()),
        Some(text) => text.split(',').map(str::trim).filter(|m| !m.is_empty()).map(Model::parse).collect(),
    }
}

pub async fn regressions(
    State(state): State<AppState>,
    query: Result<Query<RegressionsQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<RunRegressions>>> {
    let Query(query) = query?;
    let models =
        parse_models(query.models.as_deref()).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e))?;
    if models.is_empty() {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "models names none"));
    }
    let runs = match query.run {
        Some(id) => {
            let run = state.store.run(id).await?.ok_or_else(|| super::runs::no_run(id))?;
            vec![run]
        }
        None => {
            let limit = query.limit.unwrap_or(20);
            if !(1..=MAX_RUNS).contains(&limit) {
                return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("limit must be 1 to {MAX_RUNS}")));
            }
            // Only complete runs are judged; a page of the newest runs may
            // hold others, so read a few more.
            let newest = state.store.runs(query.board.as_deref(), limit.saturating_mul(2).min(500)).await?;
            newest.into_iter().filter(|r| r.status == RunStatus::Complete).take(limit as usize).collect()
        }
    };
    let mut judged = Vec::with_capacity(runs.len());
    for run in &runs {
        let regressions = judge_run(&state.store, run, &models).await?;
        if !query.regressed || regressions.has_regression() {
            judged.push(regressions);
        }
    }
    Ok(Json(judged))
}

/// `run` judged by `models` against the newest complete runs of its
/// lineage before it. A run that is not complete is judged against nothing:
/// its figures are not all there.
pub async fn judge_run(store: &Store, run: &Run, models: &[Model]) -> StoreResult<RunRegressions> {
    let lineage = regressions::lineage(run);
    let mut judged = RunRegressions {
        run: run.id,
        board: run.board.clone(),
        build_label: run.build.label(run.source),
        lineage: lineage.clone(),
        judgements: Vec::new(),
    };
    if run.status != RunStatus::Complete {
        return Ok(judged);
    }
    let mut earlier = Vec::new();
    for candidate in store.complete_runs_before(&run.board, run.id, CANDIDATES).await? {
        if earlier.len() == BASELINE_RUNS {
            break;
        }
        if regressions::lineage(&candidate) == lineage {
            earlier.push((candidate.id, store.results(candidate.id).await?));
        }
    }
    let results = store.results(run.id).await?;
    judged.judgements = regressions::judge(&(run.id, results), &earlier, models);
    Ok(judged)
}
