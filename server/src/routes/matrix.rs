//! `GET /api/matrix`: operations as rows, boards x builds as columns.
//!
//! The home page of every visitor asks for the same matrix, and with a
//! lab's store it is a few thousand results. The ones made last are kept
//! as the bytes sent ([`KeptMatrices`]) and served again while the
//! store's [`MatrixHead`] for the query is unchanged, which the store
//! reads in a few index seeks: a kept matrix is always the one the store
//! would give now.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Mutex;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flate2::Compression;
use flate2::write::GzEncoder;
use pqbench_api::ResultQuery;
use pqbench_store::MatrixHead;

use crate::AppState;
use crate::cpu_work;
use crate::error::{ApiError, ApiResult};

/// The matrix's columns (the latest complete run of each board and build,
/// or the runs asked for) and their results: the query is
/// [`ResultQuery`]'s, as for `GET /api/results`.
pub async fn matrix(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let query = ResultQuery::from_query(query.as_deref().unwrap_or(""))?;
    let head = state.store.matrix_head(&query).await?;
    let kept = match state.matrices.find(&query, &head) {
        Some(kept) => kept,
        None => {
            let results = state.store.matrix_results(&head, &query).await?;
            let matrix = head.clone().into_matrix(results);
            // Writing and compressing a lab's matrix is milliseconds of CPU.
            let made = cpu_work::run("writing the matrix", move || {
                // Sized for the body at once: a vector grown by doubling to
                // a megabyte frees a chunk of 64 KiB or more at each step,
                // and glibc's malloc consolidates its free lists at each.
                let mut body = Vec::with_capacity(BODY_BYTES_PER_RESULT * (matrix.results.len() + 16));
                serde_json::to_writer(&mut body, &matrix).map(|()| Made::of(body))
            })
            .await?
            .map_err(|e| {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the matrix as JSON: {e}"))
            })?;
            state.matrices.keep(query, head, made.clone());
            made
        }
    };
    let (body, encoding) = match kept.gzip {
        Some(gzip) if accepts_gzip(&headers) => (gzip, Some("gzip")),
        _ => (kept.json, None),
    };
    let mut response = ([(header::CONTENT_TYPE, "application/json")], body).into_response();
    let response_headers = response.headers_mut();
    response_headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if let Some(encoding) = encoding {
        response_headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    Ok(response)
}

/// A matrix as sent: its JSON, and the same gzipped. Every browser asks
/// for gzip, and a matrix's JSON (0.9 MB for 40 columns of the suite) is
/// 76 KB at the fastest level: compressed once, when made, a kept matrix
/// costs its clients a twelfth of the bytes to send and to read.
#[derive(Clone)]
struct Made {
    json: Bytes,
    /// None if compressing failed (it writes into memory, so it does not).
    gzip: Option<Bytes>,
}

impl Made {
    fn of(json: Vec<u8>) -> Made {
        let mut gzip = GzEncoder::new(Vec::with_capacity(json.len() / 16), Compression::fast());
        let gzip = gzip.write_all(&json).and_then(|()| gzip.finish()).ok().map(Bytes::from);
        Made { json: Bytes::from(json), gzip }
    }
}

/// Whether `Accept-Encoding` takes gzip: named with a weight above zero,
/// or not named and `*` is (RFC 9110 12.5.3).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    let (mut gzip, mut any) = (None, None);
    let values = headers.get_all(header::ACCEPT_ENCODING);
    for coding in values.iter().filter_map(|value| value.to_str().ok()).flat_map(|value| value.split(',')) {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let weight =
            match parts.find_map(|param| param.strip_prefix("q=").or_else(|| param.strip_prefix("Q="))) {
                Some(q) => q.parse::<f32>().unwrap_or(0.0),
                None => 1.0,
            };
        if name.eq_ignore_ascii_case("gzip") {
            gzip = Some(weight);
        } else if name == "*" {
            any = Some(weight);
        }
    }
    gzip.or(any).is_some_and(|weight| weight > 0.0)
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
    made: Made,
}

impl KeptMatrices {
    /// The matrix kept for `query` whose head is `head`, if one is.
    fn find(&self, query: &ResultQuery, head: &MatrixHead) -> Option<Made> {
        let kept = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.iter().find(|k| k.query == *query && k.head == *head).map(|k| k.made.clone())
    }

    /// Keeps `made`, replacing what was kept for `query` and, past
    /// [`KEPT`], the least recently made.
    fn keep(&self, query: ResultQuery, head: MatrixHead, made: Made) {
        let mut kept = self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.retain(|k| k.query != query);
        kept.push_front(Kept { query, head, made });
        kept.truncate(KEPT);
    }
}
