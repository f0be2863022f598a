//! `/api/runs`: starting a run on a board (this server's or an agent's),
//! listing runs, one run and its results, and cancelling.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use pqbench_api::{NewRun, RunCreated, RunEnd};
use pqbench_collect::runner;
use pqbench_types::{BenchResult, Run, RunStatus};
use serde::Deserialize;

use crate::AppState;
use crate::error::{ApiError, ApiPath, ApiResult, json_body};
use crate::live::CancelAnswer;
use crate::record::StoreRecorder;

/// A run request is a board, a variant, a few numbers and at most every
/// algorithm's name: well under 2 KiB.
pub const MAX_RUN_REQUEST_BYTES: usize = 16 * 1024;

pub async fn start_run(
    State(state): State<AppState>,
    request: Result<Json<NewRun>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<RunCreated>)> {
    let request = json_body(request, MAX_RUN_REQUEST_BYTES)?;
    if let Some((host, board)) = state.agents.owner_of(&request.board) {
        let id = state.agents.start(&state.store, &state.live, &host, &board, &request).await?;
        return Ok((StatusCode::ACCEPTED, Json(RunCreated { id })));
    }
    let store = state.store.clone();
    let open = |run| async move { StoreRecorder::open(&store, run, None).await };
    let prepared = runner::prepare(&state.boards, &request, open).await?;
    let id = prepared.id;
    // Registered before the id is given out, so its events and its cancel
    // work from the first moment a client can ask for them.
    let mut tracker = state.live.track(id, prepared.canceller());
    tokio::spawn(async move {
        let end = match prepared.execute(|progress| tracker.update(&progress)).await {
            Ok(outcome) => {
                tracing::info!(run = id, "run ended: {outcome:?}");
                RunEnd { status: outcome.status, error: outcome.error }
            }
            Err(e) => {
                tracing::error!(run = id, "run could not be recorded: {e}");
                RunEnd {
                    status: RunStatus::Failed,
                    error: Some(format!("the run could not be recorded: {e}")),
                }
            }
        };
        tracker.finish(end);
    });
    Ok((StatusCode::ACCEPTED, Json(RunCreated { id })))
}

/// Stops a run this server is making; it ends `interrupted`, keeping the
/// results stored until then.
pub async fn cancel_run(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<(StatusCode, Json<RunCreated>)> {
    let id = run_id(&id)?;
    let ended = |status: RunStatus| {
        ApiError::new(
            StatusCode::CONFLICT,
            format!("run {id} has already ended ({}): there is nothing to cancel", status.as_str()),
        )
    };
    match state.live.cancel(id) {
        CancelAnswer::Requested => {
            tracing::info!(run = id, "cancel requested");
            return Ok((StatusCode::ACCEPTED, Json(RunCreated { id })));
        }
        CancelAnswer::Ended(end) => return Err(ended(end.status)),
        CancelAnswer::NotLive => {}
    }
    match state.store.run(id).await? {
        None => Err(no_run(id)),
        Some(run) if run.status.is_finished() => Err(ended(run.status)),
        Some(_) => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!(
                "run {id} is being made by another pqbench process (such as `pqbench run`), \
                 not this server: stop it there"
            ),
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    board: Option<String>,
    limit: Option<u32>,
}

const MAX_RUNS_PAGE: u32 = 500;

pub async fn list_runs(
    State(state): State<AppState>,
    query: Result<Query<RunsQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<Run>>> {
    let Query(query) = query?;
    let limit = query.limit.unwrap_or(50);
    if !(1..=MAX_RUNS_PAGE).contains(&limit) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("limit must be 1 to {MAX_RUNS_PAGE}")));
    }
    Ok(Json(state.store.runs(query.board.as_deref(), limit).await?))
}

pub fn no_run(id: i64) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, format!("no run {id}"))
}

pub fn run_id(raw: &str) -> ApiResult<i64> {
    raw.parse::<i64>()
        .ok()
        .filter(|&id| id > 0)
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, format!("{raw:?} is not a run id")))
}

pub async fn get_run(State(state): State<AppState>, ApiPath(id): ApiPath<String>) -> ApiResult<Json<Run>> {
    let id = run_id(&id)?;
    let run = state.store.run(id).await?;
    run.map(Json).ok_or_else(|| no_run(id))
}

pub async fn get_results(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<Vec<BenchResult>>> {
    let id = run_id(&id)?;
    if state.store.run(id).await?.is_none() {
        return Err(no_run(id));
    }
    Ok(Json(state.store.results(id).await?))
}
