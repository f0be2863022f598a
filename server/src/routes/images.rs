//! Images to embed where people read results (a README, a wiki, a pull
//! request): a shared report's chart, `/reports/<id>.svg`, and a badge of
//! one operation on one board, `/badge.svg`. Both are SVG drawn by
//! `pqbench-plot` from `pqbench-view`'s charts, the very bytes the
//! dashboard downloads for the same view, with an ETag so that a client
//! asks again cheaply (304) and sees a new run at once.

use std::path::PathBuf;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pqbench_api::verdicts;
use pqbench_api::{BoardId, ResultQuery};
use pqbench_api::{Report, is_report_id};
use pqbench_plot::Badge;
use pqbench_types::{Algorithm, Operation, RunStatus, Status};
use pqbench_view::regressions::Model;
use pqbench_view::{View, charts, format, matrix};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tower::ServiceExt;
use tower_http::services::ServeFile;

use crate::AppState;
use crate::error::{ApiError, ApiResult};

/// `/reports/<id>.svg`: the report's chart; any other `/reports/<id>` is
/// the dashboard's page for it (`index`).
pub async fn report_file(
    state: State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
    request: Request,
    index: PathBuf,
) -> Response {
    let Some(id) = file.strip_suffix(".svg") else {
        return match ServeFile::new(index).oneshot(request).await {
            Ok(page) => page.into_response(),
            Err(never) => match never {},
        };
    };
    match report_svg(&state, id).await {
        Ok(svg) => svg_response(svg, &headers),
        Err(e) => e.into_response(),
    }
}

async fn report_svg(state: &AppState, id: &str) -> ApiResult<String> {
    if !is_report_id(id) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("{id:?} is not a report id (16 letters and digits)"),
        ));
    }
    let Report { view, .. } = state
        .store
        .report(id)
        .await?
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no report {id}")))?;
    view_svg(state, &view).await
}

/// The chart the dashboard shows first for `view`: the results' ops/s for
/// one run, the matrix's chart otherwise.
pub async fn view_svg(state: &AppState, view: &View) -> ApiResult<String> {
    match view.runs[..] {
        [run] if view.matrix.is_none() => {
            let results = state.store.results(run).await?;
            let shown: Vec<_> = view.apply(&results).into_iter().cloned().collect();
            if shown.is_empty() {
                return Err(ApiError::new(
                    StatusCode::NOT_FOUND,
                    format!("run {run} has no results this view shows"),
                ));
            }
            Ok(charts::speed(&shown, view.log_scale).to_svg())
        }
        _ => {
            let loaded = state.store.matrix(&ResultQuery::of_matrix(view)).await?;
            let settings = view.matrix.clone().unwrap_or_default();
            let columns: Vec<i64> = loaded.columns.iter().map(|c| c.run.id).collect();
            let results = pqbench_view::estimate::shown(&loaded.results, settings.model_clock_hz);
            let rows = matrix::rows(&columns, &results, &view.filter, &settings);
            let labels: Vec<String> =
                loaded.columns.iter().map(|c| charts::column_label(&c.run.board, &c.build_label)).collect();
            let chart = charts::matrix(&labels, &rows, &settings)
                .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "no result matches this view"))?;
            Ok(chart.to_svg())
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BadgeQuery {
    /// Checked as every board id is: a 30 KB id, or one with a control
    /// character, is a 400 before any work.
    board: BoardId,
    algorithm: Algorithm,
    operation: Operation,
    /// One build of the board, by its label; its newest otherwise.
    build: Option<String>,
}

/// Runs looked through for the newest complete one with the operation.
const BADGE_CANDIDATES: u32 = 50;

/// `/badge.svg?board=..&algorithm=..&operation=..[&build=..]`: the newest
/// complete run's ops/s of one operation on one board, and its regression
/// verdict (every model that could tell agreeing, as the dashboard marks it).
pub async fn badge(
    State(state): State<AppState>,
    query: Result<Query<BadgeQuery>, QueryRejection>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let Query(query) = query?;
    let label = format!("{} {} · {}", query.algorithm.as_str(), query.operation.as_str(), query.board);
    let rows = state
        .store
        .result_rows(&ResultQuery {
            boards: vec![query.board.to_string()],
            builds: query.build.iter().cloned().collect(),
            algorithms: vec![query.algorithm],
            operations: vec![query.operation],
            limit: BADGE_CANDIDATES,
            ..ResultQuery::default()
        })
        .await?;
    let newest = rows.iter().find(|r| r.run_status == RunStatus::Complete && r.result.status == Status::Ok);
    let badge = match newest {
        None => Badge { label, message: "no complete run".into(), colour: "#6b7a8f" },
        Some(row) => {
            let run = state.store.run(row.run_id).await?.ok_or_else(|| super::runs::no_run(row.run_id))?;
            let judged = super::regressions::judge_run(&state.store, &run, &Model::DEFAULTS).await?;
            let named = Some((query.algorithm, query.operation));
            let (verdict, _) = verdicts::verdict_of(std::slice::from_ref(&judged), run.id, named);
            let rate = format::rate(row.result.ops_per_sec);
            let (message, colour) = match verdict {
                "slower" => (format!("{rate} ops/s ▼ slower"), "#c0392b"),
                "faster" => (format!("{rate} ops/s ▲ faster"), "#1e7b34"),
                "disputed" => (format!("{rate} ops/s, disputed"), "#d9822b"),
                "unchanged" => (format!("{rate} ops/s"), "#2456c7"),
                _ => (format!("{rate} ops/s"), "#6b7a8f"),
            };
            Badge { label, message, colour }
        }
    };
    Ok(svg_response(badge.to_svg(), &headers))
}

/// `svg` as an image with its ETag (the SHA-256 of its bytes, in part), or
/// 304 where the client has it already. `no-cache`: kept, but asked again
/// each time, so a new run shows at once.
fn svg_response(svg: String, headers: &HeaderMap) -> Response {
    let digest = Sha256::digest(svg.as_bytes());
    let tag: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    let etag = format!("\"{tag}\"");
    let cached = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|candidate| candidate.trim().trim_start_matches("W/") == etag || candidate.trim() == "*");
    let etag = HeaderValue::from_str(&etag).expect("hex in quotes is a header value");
    let cache = (header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if cached {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag), cache]).into_response();
    }
    ([(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml")), (header::ETAG, etag), cache], svg)
        .into_response()
}
