//! Every API error, one mapping from what failed to what the client is
//! told: a status and `{"error": "..."}`. An error of the store is logged
//! and told as a database failure; the others say what was wrong.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequestParts, Path as UrlPath, Request};
use axum::http::StatusCode;
use axum::http::header;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use pqbench_api::QueryError;
use pqbench_collect::boards::BoardError;
use pqbench_collect::flash::FlashError;
use pqbench_collect::runner::RunError;
use pqbench_store::StoreError;
use pqbench_store::import::ImportError;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::hub::AgentRunError;

/// An error for a person: a status and `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        tracing::error!("store: {e}");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the database failed; see the server log")
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> Self {
        ApiError::new(e.status(), e.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, e.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(e: PathRejection) -> Self {
        ApiError::new(e.status(), e.body_text())
    }
}

/// A path parameter whose rejection (such as `%FF`, not UTF-8) is JSON,
/// as every API error is; axum's own `Path` answers in plain text.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> ApiResult<Self> {
        let UrlPath(value) = UrlPath::<T>::from_request_parts(parts, state).await?;
        Ok(ApiPath(value))
    }
}

/// A JSON body, or why not: a body over `limit` bytes (the route's
/// `DefaultBodyLimit`) says the limit, so the client knows what to cut.
pub fn json_body<T>(body: Result<Json<T>, JsonRejection>, limit: usize) -> ApiResult<T> {
    match body {
        Ok(Json(value)) => Ok(value),
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than this endpoint takes ({} KiB at most)", limit / 1024),
        )),
        Err(e) => Err(e.into()),
    }
}

/// What a board that cannot be used says to a client.
fn board_status(e: &BoardError) -> StatusCode {
    match e {
        BoardError::Unknown(_) | BoardError::ProbeNotAttached(_) => StatusCode::NOT_FOUND,
        BoardError::UnknownVariant(_) | BoardError::VariantNotOffered { .. } | BoardError::BadWiring(_) => {
            StatusCode::BAD_REQUEST
        }
        BoardError::NoProbeSupport(_) => StatusCode::NOT_IMPLEMENTED,
        BoardError::Busy(_) | BoardError::NotReady { .. } | BoardError::ImageBuilding(_) => {
            StatusCode::CONFLICT
        }
        _ => StatusCode::SERVICE_UNAVAILABLE,
    }
}

impl From<RunError> for ApiError {
    fn from(e: RunError) -> Self {
        let status = match &e {
            RunError::Invalid(_) => StatusCode::BAD_REQUEST,
            RunError::Board(board) => board_status(board),
            RunError::Record(e) => {
                tracing::error!("recording the run: {e}");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<AgentRunError> for ApiError {
    fn from(e: AgentRunError) -> Self {
        let e = match e {
            AgentRunError::Run(e) => return e.into(),
            other => other,
        };
        let status = match &e {
            AgentRunError::UnknownBoard { .. } => StatusCode::NOT_FOUND,
            AgentRunError::NotConnected { .. } | AgentRunError::Unavailable { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AgentRunError::Busy(_) | AgentRunError::Run(_) => StatusCode::CONFLICT,
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<ImportError> for ApiError {
    fn from(e: ImportError) -> Self {
        let status = match &e {
            ImportError::Invalid(_) | ImportError::Parse(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ImportError::Duplicate { .. } => StatusCode::CONFLICT,
            ImportError::Store(e) => {
                tracing::error!("store: {e}");
                return ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the database failed; see the server log",
                );
            }
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<FlashError> for ApiError {
    fn from(e: FlashError) -> Self {
        let status = match &e {
            FlashError::Board(board) => board_status(board),
            FlashError::Unknown(_) => StatusCode::NOT_FOUND,
            FlashError::UnknownBoard(_) | FlashError::NotFlashable { .. } => StatusCode::CONFLICT,
            FlashError::NoProbe { .. } => StatusCode::SERVICE_UNAVAILABLE,
            FlashError::NotConfirmed { .. } | FlashError::Image(_) => StatusCode::BAD_GATEWAY,
            #[cfg(feature = "probe-rs")]
            FlashError::Probe(_) => StatusCode::BAD_GATEWAY,
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<QueryError> for ApiError {
    fn from(e: QueryError) -> Self {
        let status = match e {
            QueryError::UnknownName { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            QueryError::Malformed(_) => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.to_string())
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

pub async fn no_such_endpoint() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such API endpoint")
}

/// Every API error is `{"error": "..."}`: an error answered in plain text
/// by axum itself (an extractor's rejection a handler did not map) is
/// rewrapped, so a client can always read why, and keeps its status and
/// headers (such as `Allow`).
pub async fn errors_as_json(request: Request, next: Next) -> Response {
    /// More than any of axum's own rejection texts.
    const MAX_ERROR_TEXT: usize = 4096;
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_ERROR_TEXT)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("the request failed").to_lowercase()
    } else {
        text
    };
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    let mut rewrapped = ApiError::new(status, message).into_response();
    rewrapped.headers_mut().extend(parts.headers);
    rewrapped
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::middleware;
    use axum::routing::get;

    use super::*;

    /// An error axum answers in plain text (an extractor a handler left
    /// unmapped, a method a route lacks) reaches the client as JSON, with
    /// its status and headers; other answers pass untouched.
    #[tokio::test]
    async fn plain_text_errors_are_rewrapped_as_json() {
        async fn number(UrlPath(n): UrlPath<u32>) -> String {
            n.to_string()
        }
        let app = Router::new().route("/n/{n}", get(number)).layer(middleware::from_fn(errors_as_json));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });

        let refused = reqwest::get(format!("{base}/n/x")).await.unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(refused.headers()[header::CONTENT_TYPE], "application/json");
        let answer: serde_json::Value = refused.json().await.unwrap();
        assert!(answer["error"].as_str().unwrap().contains("Cannot parse"), "{answer}");

        let wrong_method = reqwest::Client::new().post(format!("{base}/n/1")).send().await.unwrap();
        assert_eq!(wrong_method.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert!(wrong_method.headers()[header::ALLOW].to_str().unwrap().contains("GET"));
        let answer: serde_json::Value = wrong_method.json().await.unwrap();
        assert_eq!(answer, json!({"error": "method not allowed"}));

        let fine = reqwest::get(format!("{base}/n/7")).await.unwrap();
        assert_eq!((fine.status(), fine.text().await.unwrap()), (StatusCode::OK, "7".to_owned()));
    }
}
