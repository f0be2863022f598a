//! The server's JSON API. Every failure becomes a sentence for the user:
//! the server's own `{"error": ...}` where it gave one.

use gloo_net::http::{Request, Response};
use leptos::prelude::*;
use pqbench_types::ResultRow;
use pqbench_view::ResultQuery;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::alert::Alert;

pub type ApiResult<T> = Result<T, String>;

#[derive(Deserialize)]
struct ErrorBody {
    error: String,
}

pub async fn get<T: DeserializeOwned>(path: &str) -> ApiResult<T> {
    let response = Request::get(path).send().await;
    read("GET", path, response).await
}

/// Results across runs, as `query` selects them: the query in the codec
/// the server reads it with, every name and board id escaped as it must be.
pub async fn results(query: &ResultQuery) -> ApiResult<Vec<ResultRow>> {
    get(&format!("/api/results?{}", query.to_query())).await
}

/// A list the page shows and reads again when it may have changed
/// (`refetch`): None if it could not be loaded, the banner saying why. A
/// failed refresh keeps what is shown (the banner says it is stale); only a
/// first load comes back with nothing.
pub fn listed<T>(path: String) -> LocalResource<Option<T>>
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let alert = expect_context::<Alert>();
    let last = StoredValue::new(None::<T>);
    LocalResource::new(move || {
        let path = path.clone();
        async move {
            match alert.check(get::<T>(&path).await) {
                Some(fresh) => {
                    last.set_value(Some(fresh.clone()));
                    Some(fresh)
                }
                None => last.try_get_value().flatten(),
            }
        }
    })
}

pub async fn post<B: Serialize, T: DeserializeOwned>(path: &str, body: &B) -> ApiResult<T> {
    let request = Request::post(path).json(body).map_err(|e| format!("POST {path}: {e}"))?;
    read("POST", path, request.send().await).await
}

/// Posts a body that is already JSON text, as the benchmark worker gives it.
pub async fn post_json_text<T: DeserializeOwned>(path: &str, json: String) -> ApiResult<T> {
    let request = Request::post(path)
        .header("Content-Type", "application/json")
        .body(json)
        .map_err(|e| format!("POST {path}: {e}"))?;
    read("POST", path, request.send().await).await
}

async fn read<T: DeserializeOwned>(
    method: &str,
    path: &str,
    response: Result<Response, gloo_net::Error>,
) -> ApiResult<T> {
    let response = response.map_err(|e| format!("{method} {path}: the server cannot be reached ({e})"))?;
    if response.ok() {
        return response
            .json()
            .await
            .map_err(|e| format!("{method} {path}: unexpected answer from the server ({e})"));
    }
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<ErrorBody>(&text)
        .map(|body| body.error)
        .unwrap_or_else(|_| response.status_text());
    Err(format!("{method} {path}: {message} (HTTP {status})"))
}
