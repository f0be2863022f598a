//! The JSON API under `/api`, one module per resource. Each write route
//! has its own body limit; the token layer and the JSON error layer wrap
//! them all.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware;
use axum::routing::{get, post};

use crate::AppState;
use crate::error::{ApiError, errors_as_json, no_such_endpoint};
use crate::security::{TokenDigest, WriteGuard, require_token_for_writes};

pub mod agents;
pub mod boards;
pub mod events;
pub mod flashes;
pub mod images;
pub mod imports;
pub mod matrix;
pub mod regressions;
pub mod reports;
pub mod results;
pub mod runs;
pub mod sessions;
pub mod uploads;

/// The routes of `/api`: reading is open; with `token`, writing needs it.
pub fn api(state: AppState, token: Option<&str>) -> Router {
    let guard = WriteGuard {
        token: token.map(TokenDigest::of),
        guesses: state.guesses.clone(),
        sessions: state.sessions.clone(),
    };
    // Outside the write guard: signing in is how a browser comes by the
    // right to write.
    let session = Router::new()
        .route(
            "/session",
            get(sessions::session)
                .post(sessions::sign_in)
                .delete(sessions::sign_out)
                .layer(DefaultBodyLimit::max(sessions::MAX_SESSION_BYTES)),
        )
        .route_layer(middleware::from_fn(crate::metrics::name_route))
        .with_state(guard.clone());
    Router::new()
        .route("/health", get(boards::health))
        .route("/boards", get(boards::boards))
        .route(
            "/runs",
            get(runs::list_runs)
                .post(runs::start_run)
                .layer(DefaultBodyLimit::max(runs::MAX_RUN_REQUEST_BYTES)),
        )
        .route("/runs/{id}", get(runs::get_run))
        .route("/runs/{id}/results", get(runs::get_results))
        .route("/runs/{id}/events", get(events::run_events))
        .route("/runs/{id}/cancel", post(runs::cancel_run))
        .route("/results", get(results::results_across_runs))
        .route("/matrix", get(matrix::matrix))
        .route("/regressions", get(regressions::regressions))
        .route(
            "/flashes",
            post(flashes::create_flash).layer(DefaultBodyLimit::max(flashes::MAX_FLASH_REQUEST_BYTES)),
        )
        .route("/uploads", post(uploads::upload).layer(DefaultBodyLimit::max(uploads::MAX_UPLOAD_BYTES)))
        // A log is read twice: previewed (nothing stored), then stored.
        .route(
            "/imports/preview",
            post(imports::preview_import).layer(DefaultBodyLimit::max(imports::MAX_IMPORT_BYTES)),
        )
        .route(
            "/imports",
            post(imports::store_import).layer(DefaultBodyLimit::max(imports::MAX_IMPORT_BYTES)),
        )
        // Reports are immutable: no route changes or deletes one.
        .route(
            "/reports",
            post(reports::create_report).layer(DefaultBodyLimit::max(reports::MAX_REPORT_BYTES)),
        )
        .route("/reports/{id}", get(reports::get_report))
        // An agent's WebSocket: its own token, checked by the route.
        .route("/agents/connect", get(agents::connect_agent))
        .route_layer(middleware::from_fn(crate::metrics::name_route))
        .fallback(no_such_endpoint)
        .method_not_allowed_fallback(|| async {
            ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "this endpoint does not take that method")
        })
        .layer(middleware::from_fn_with_state(guard, require_token_for_writes))
        .with_state(state)
        .merge(session)
        // Outermost, so that it sees every answer, the token's included.
        .layer(middleware::from_fn(errors_as_json))
}
