//! `GET /api/matrix`: operations as rows, boards x builds as columns.
//!
//! The home page of every visitor asks for the same matrix, and with a
//! lab's store it is a few thousand results. The ones made last are kept
//! as the bytes sent ([`KeptMatrices`]) and served again while the
//! store's [`MatrixHead`] for the query is unchanged, which the store
//! reads in a few index seeks: a kept matrix is always the one the store
//! would give now.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use pqbench_store::MatrixHead;
use pqbench_view::ResultQuery;

use crate::AppState;
use crate::error::{ApiError, ApiResult};

/// The matrix's columns (the latest complete run of each board and build,
/// or the runs asked for) and their results: the query is
/// [`ResultQuery`]'s, as for `GET /api/results`.
pub async fn matrix(State(state): State<AppState>, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let query = ResultQuery::from_query(query.as_deref().unwrap_or(""))?;
    let head = state.store.matrix_head(&query).await?;
    let body = match state.matrices.find(&query, &head) {
        Some(body) => body,
        None => {
            let results = state.store.matrix_results(&head, &query).await?;
            let matrix = head.clone().into_matrix(results);
            // Sized for the body at once: a vector grown by doubling to
            // a megabyte frees a chunk of 64 KiB or more at each step,
            // and glibc's malloc consolidates its free lists at each.
            let mut body = Vec::with_capacity(BODY_BYTES_PER_RESULT * (matrix.results.len() + 16));
            serde_json::to_writer(&mut body, &matrix).map_err(|e| {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the matrix as JSON: {e}"))
            })?;
            let body = Bytes::from(body);
            state.matrices.keep(query, head, body.clone());
            body
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// About what a result takes in a matrix's JSON (580 bytes for the
/// suite's results in `bench-load`), with room for a longer note.
const BODY_BYTES_PER_RESULT: usize = 640;

/// How many matrices are kept: the home page's, and those of the filters
/// and comparisons people have open.
const KEPT: usize = 16;

/// The matrices made last, newest first, each with the query and head it
/// was made for.
#[derive(Default)]
pub struct KeptMatrices {
    kept: Mutex<VecDeque<Kept>>,
}

struct Kept {
    query: ResultQuery,
    head: MatrixHead,
    body: Bytes,
}

impl KeptMatrices {
    /// The body kept for `query` whose head is `head`, if one is.
    fn find(&self, query: &ResultQuery, head: &MatrixHead) -> Option<Bytes> {
        let kept = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.iter().find(|k| k.query == *query && k.head == *head).map(|k| k.body.clone())
    }

    /// Keeps `body`, replacing what was kept for `query` and, past
    /// [`KEPT`], the least recently made.
    fn keep(&self, query: ResultQuery, head: MatrixHead, body: Bytes) {
        let mut kept = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.retain(|k| k.query != query);
        kept.push_front(Kept { query, head, body });
        kept.truncate(KEPT);
    }
}
