//! `/api/regressions`: runs judged against the earlier runs of their
//! lineage, by named models (`pqbench_view::regressions`).

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use pqbench_api::RunRegressions;
use pqbench_store::{Store, StoreResult};
use std::collections::HashMap;

use pqbench_types::{Algorithm, BenchResult, Operation, Run, RunStatus};
use pqbench_view::regressions::{self, BASELINE_RUNS, Model, parse_models};
use serde::Deserialize;

use crate::AppState;
use crate::cpu_work;
use crate::error::{ApiError, ApiResult};

/// Earlier runs of a board looked through for a run's lineage: a board
/// serving several builds in turn still finds its lineage's last five.
const CANDIDATES: u32 = 200;
/// Runs judged in one request at most: a history's 200.
const MAX_RUNS: u32 = 200;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegressionsQuery {
    /// One run; else `runs`; else the newest complete runs.
    run: Option<i64>,
    /// Comma-separated run ids (the matrix's columns).
    runs: Option<String>,
    board: Option<String>,
    /// Only the judgements of this operation (a history's).
    algorithm: Option<Algorithm>,
    operation: Option<Operation>,
    /// Comma-separated models (`percent:10,welch:0.01`); the defaults
    /// when left out.
    models: Option<String>,
    /// How many of the newest runs (20 when left out).
    limit: Option<u32>,
    /// Only runs with a regression.
    #[serde(default)]
    regressed: bool,
}

fn bad(why: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, why)
}

pub async fn regressions(
    State(state): State<AppState>,
    query: Result<Query<RegressionsQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<RunRegressions>>> {
    let Query(query) = query?;
    let models = parse_models(query.models.as_deref()).map_err(|e| bad(e.to_string()))?;
    let ids = match (query.run, query.runs.as_deref()) {
        (Some(id), _) => Some(vec![id]),
        (None, Some(list)) => {
            let ids: Vec<i64> = list
                .split(',')
                .filter(|id| !id.trim().is_empty())
                .map(|id| super::runs::run_id(id.trim()))
                .collect::<ApiResult<_>>()?;
            if ids.len() > MAX_RUNS as usize {
                return Err(bad(format!("runs names {} runs; {MAX_RUNS} at most", ids.len())));
            }
            Some(ids)
        }
        (None, None) => None,
    };
    let runs = match ids {
        Some(ids) => {
            let mut runs = Vec::with_capacity(ids.len());
            for id in ids {
                runs.push(state.store.run(id).await?.ok_or_else(|| super::runs::no_run(id))?);
            }
            runs
        }
        None => {
            let limit = query.limit.unwrap_or(20);
            if !(1..=MAX_RUNS).contains(&limit) {
                return Err(bad(format!("limit must be 1 to {MAX_RUNS}")));
            }
            // Only complete runs are judged; a page of the newest runs may
            // hold others, so read a few more.
            let newest = state.store.runs(query.board.as_deref(), limit.saturating_mul(2).min(500)).await?;
            newest.into_iter().filter(|r| r.status == RunStatus::Complete).take(limit as usize).collect()
        }
    };
    let only = query.algorithm.zip(query.operation);
    let mut judge = Judge::new(&state.store);
    let mut cases = Vec::with_capacity(runs.len());
    for run in &runs {
        cases.push(judge.case(run).await?);
    }
    // Up to 200 runs by 4 models: the judging is CPU work.
    let judged = cpu_work::run("judging runs", move || {
        let mut judged = Vec::with_capacity(cases.len());
        for case in cases {
            let mut regressions = case.decide(&models);
            if let Some((algorithm, operation)) = only {
                regressions.judgements.retain(|j| j.algorithm == algorithm && j.operation == operation);
            }
            if !query.regressed || regressions.has_regression() {
                judged.push(regressions);
            }
        }
        judged
    })
    .await?;
    Ok(Json(judged))
}

/// `run` judged by `models` against the newest complete runs of its
/// lineage before it. A run that is not complete is judged against nothing:
/// its figures are not all there. One run's judging is a few hundred
/// comparisons, done in place.
pub async fn judge_run(store: &Store, run: &Run, models: &[Model]) -> StoreResult<RunRegressions> {
    Ok(Judge::new(store).case(run).await?.decide(models))
}

/// A run's id and results.
type Figures = (i64, Vec<BenchResult>);

/// A run to judge, with what it is judged on read from the store.
struct Case {
    judged: RunRegressions,
    /// The run's results and its lineage's earlier runs' (newest first);
    /// none for a run that is not complete.
    figures: Option<(Figures, Vec<Figures>)>,
}

impl Case {
    fn decide(self, models: &[Model]) -> RunRegressions {
        let Case { mut judged, figures } = self;
        if let Some((run, earlier)) = figures {
            judged.judgements = regressions::judge(&run, &earlier, models);
        }
        judged
    }
}

/// Runs judged one after another, each board's earlier runs and each run's
/// results read once: a history judges up to a hundred runs of one board,
/// whose baselines overlap.
struct Judge<'a> {
    store: &'a Store,
    /// Per board, the run its runs were read below, and those complete
    /// runs, newest first.
    boards: HashMap<String, (i64, Vec<Run>)>,
    results: HashMap<i64, Vec<BenchResult>>,
}

impl<'a> Judge<'a> {
    fn new(store: &'a Store) -> Self {
        Judge { store, boards: HashMap::new(), results: HashMap::new() }
    }

    async fn results(&mut self, id: i64) -> StoreResult<Vec<BenchResult>> {
        if let Some(known) = self.results.get(&id) {
            return Ok(known.clone());
        }
        let results = self.store.results(id).await?;
        self.results.insert(id, results.clone());
        Ok(results)
    }

    /// The complete runs of `run`'s board before it, newest first: the
    /// board's runs read for an earlier (newer) run serve while they reach
    /// the store's oldest or hold half of [`CANDIDATES`] below `run`.
    async fn earlier_runs(&mut self, run: &Run) -> StoreResult<Vec<Run>> {
        let covered = self.boards.get(&run.board).is_some_and(|(from, runs)| {
            let below = runs.iter().filter(|r| r.id < run.id).count();
            run.id <= *from && (runs.len() < CANDIDATES as usize || below >= CANDIDATES as usize / 2)
        });
        if !covered {
            let read = self.store.complete_runs_before(&run.board, run.id, CANDIDATES).await?;
            self.boards.insert(run.board.clone(), (run.id, read));
        }
        let runs = self.boards.get(&run.board).map(|(_, runs)| runs.as_slice()).unwrap_or_default();
        Ok(runs.iter().filter(|r| r.id < run.id).cloned().collect())
    }

    async fn case(&mut self, run: &Run) -> StoreResult<Case> {
        let lineage = regressions::lineage(run);
        let judged = RunRegressions {
            run: run.id,
            board: run.board.clone(),
            build_label: run.build.label(run.source),
            lineage: lineage.clone(),
            judgements: Vec::new(),
        };
        if run.status != RunStatus::Complete {
            return Ok(Case { judged, figures: None });
        }
        let mut earlier = Vec::new();
        for candidate in self.earlier_runs(run).await? {
            if earlier.len() == BASELINE_RUNS {
                break;
            }
            if regressions::lineage(&candidate) == lineage {
                earlier.push((candidate.id, self.results(candidate.id).await?));
            }
        }
        let results = self.results(run.id).await?;
        Ok(Case { judged, figures: Some(((run.id, results), earlier)) })
    }
}
