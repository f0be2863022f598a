//! A request's CPU work (reading an imported log, judging runs, writing a
//! matrix) runs here: on tokio's blocking pool, so that the async workers
//! answering every other request never wait on it (two 1.8 MiB import
//! previews parsed on them stalled `/api/health` to 1.3 s), and at most
//! [`AT_ONCE`] at a time, so that a flood of heavy requests waits its turn
//! rather than taking every core.

use axum::http::StatusCode;
use tokio::sync::Semaphore;

use crate::error::{ApiError, ApiResult};

/// Pieces of CPU work at once, across every request: this server's
/// machines have two cores and more, and a third piece would only share
/// them.
pub const AT_ONCE: usize = 2;
static TURNS: Semaphore = Semaphore::const_new(AT_ONCE);

/// `work`'s value, computed on the blocking pool when its turn comes.
/// `what` names it in the log should it panic.
pub async fn run<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> ApiResult<T> {
    let _turn = TURNS
        .acquire()
        .await
        .map_err(|_| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping"))?;
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        tracing::error!("{what}: {e}");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{what} failed; see the server log"))
    })
}
