//! pqbench's HTTP server: the JSON API under `/api` and the dashboard's
//! files. It serves what the store keeps, starts runs on the board side
//! (`pqbench-collect`) and on agents' boards (`hub`), and follows them
//! live. `main.rs` is the command line over this and the other crates.
//!
//! - [`routes`]: one module per resource; [`error`]: the one mapping from
//!   what failed to a status; [`security`]: headers and tokens; [`listen`]:
//!   connections and their bounds; [`tls`]: HTTPS.
//! - [`live`]: the runs this server is making now; [`hub`]: agents' hosts.
//! - [`metrics`]: `/metrics`, for a lab's monitoring; [`cpu_work`]: a
//!   request's CPU work, off the async workers.
//! - [`record`]: a board's run recorded into the store.

use std::path::Path;
use std::sync::Arc;

use axum::routing::{any, get};
use axum::{Router, middleware};
use pqbench_collect::boards::Boards;
use pqbench_store::Store;
use tower_http::services::{ServeDir, ServeFile};

pub mod cpu_work;
pub mod error;
pub mod hub;
pub mod listen;
pub mod live;
pub mod metrics;
pub mod record;
pub mod routes;
pub mod security;
pub mod tls;

use hub::Agents;
use live::LiveRuns;
use security::{ServedHosts, TokenDigest};

/// What every route shares.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub boards: Arc<Boards>,
    /// The runs this server is making now: their progress, and their cancel.
    pub live: Arc<LiveRuns>,
    /// Hosts whose agents serve their boards to this server.
    pub agents: Arc<Agents>,
    /// The matrices made last, served again while unchanged.
    pub matrices: Arc<routes::matrix::KeptMatrices>,
    /// Wrong tokens by peer, for writes and agents alike.
    pub guesses: Arc<security::Guesses>,
    /// Requests answered, for `/metrics`.
    pub metrics: Arc<metrics::Metrics>,
    /// The dashboard's sessions, signed in with the write token.
    pub sessions: Arc<security::Sessions>,
    /// What an agent must send to connect; none, and no agent may.
    agent_token: Option<TokenDigest>,
}

impl AppState {
    pub fn new(store: Store, boards: Arc<Boards>) -> Self {
        AppState {
            store,
            boards,
            live: Arc::default(),
            agents: Arc::default(),
            matrices: Arc::default(),
            guesses: Arc::default(),
            metrics: Arc::default(),
            sessions: Arc::default(),
            agent_token: None,
        }
    }

    /// Takes agents that send `token` (`pqbench agent --token`).
    pub fn accepting_agents(mut self, token: &str) -> Self {
        self.agent_token = Some(TokenDigest::of(token));
        self
    }

    pub(crate) fn agent_token(&self) -> Option<TokenDigest> {
        self.agent_token
    }
}

/// The whole application: `/api`, then the dashboard's files from `dist`,
/// for the hosts in `hosts` only.
pub fn router(state: AppState, dist: &Path, token: Option<String>, hosts: ServedHosts) -> Router {
    let index = dist.join("index.html");
    let files = ServeDir::new(dist).fallback(ServeFile::new(&index));
    let images = Router::new()
        .route(
            "/reports/{file}",
            get(move |state, path, headers, request| {
                routes::images::report_file(state, path, headers, request, index.clone())
            }),
        )
        .route("/badge.svg", get(routes::images::badge))
        .route("/metrics", get(metrics::metrics))
        .route_layer(middleware::from_fn(metrics::name_route))
        .with_state(state.clone());
    let counted = state.metrics.clone();
    let app = Router::new()
        .nest("/api", routes::api(state, token.as_deref()))
        .merge(images)
        // `nest` leaves `/api/` to the dashboard's files, but a client there
        // is after the API.
        .route("/api/", any(error::no_such_endpoint))
        .fallback_service(files)
        // Around everything, reads too: a rebound page could read results.
        .layer(middleware::from_fn_with_state(Arc::new(hosts), security::require_served_host_and_origin));
    let app = access_log(security::with_security_headers(app));
    app.layer(middleware::from_fn_with_state(counted, metrics::count_requests))
}

/// One line at info level per request, when its answer begins (a live
/// run's event stream is logged as it opens): the peer, method, path (its
/// query left out, as a query may hold what a person typed), status and
/// time taken.
fn access_log(app: Router) -> Router {
    use axum::extract::Request;
    use axum::response::Response;
    use tower_http::trace::TraceLayer;
    let layer = TraceLayer::new_for_http()
        .make_span_with(|request: &Request| {
            let peer = listen::peer_of(request).map(|peer| peer.to_string()).unwrap_or_else(|| "-".into());
            tracing::info_span!("request", %peer, method = %request.method(), path = %request.uri().path())
        })
        .on_request(())
        .on_response(|response: &Response, took: std::time::Duration, _span: &tracing::Span| {
            let ms = format_args!("{:.1}", took.as_secs_f64() * 1000.0);
            tracing::info!(status = response.status().as_u16(), %ms, "served");
        })
        .on_failure(());
    app.layer(layer)
}
