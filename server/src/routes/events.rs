//! `GET /api/runs/{id}/events`: a run's progress as server-sent events,
//! from this server's live runs, or from the store for a run another
//! process is making.

use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use pqbench_api::RunEnd;
use pqbench_store::Store;
use tokio::sync::watch;

use crate::AppState;
use crate::error::{ApiPath, ApiResult};
use crate::live::LiveState;
use crate::routes::runs::{no_run, run_id};

/// How often a run another process is making is looked up in the store.
const POLL_STORE: Duration = Duration::from_secs(1);

/// Where a run's event stream is.
enum Feed {
    /// A run of this server's: its state as it changes.
    Live {
        rx: watch::Receiver<LiveState>,
        fresh: bool,
        store: Store,
        id: i64,
    },
    /// A run another process (`pqbench run`) is making: only the store
    /// knows it, and it says no progress, only the end.
    Poll {
        store: Store,
        id: i64,
    },
    Ended(RunEnd),
    Done,
}

/// `progress` events while the run goes, then one `end` event, then the
/// stream closes. A run that has ended answers its `end` at once.
pub async fn run_events(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, axum::Error>>>> {
    let id = run_id(&id)?;
    // Subscribe before reading the store: a run ending in between is seen
    // ending by one or the other.
    let live = state.live.subscribe(id);
    let run = state.store.run(id).await?.ok_or_else(|| no_run(id))?;
    let store = state.store.clone();
    let feed = match live {
        Some(rx) => Feed::Live { rx, fresh: true, store, id },
        None if run.status.is_finished() => Feed::Ended(RunEnd { status: run.status, error: run.error }),
        None => Feed::Poll { store, id },
    };
    let events = futures_util::stream::unfold(feed, next_event);
    // Comments every 15 s keep proxies from closing a quiet stream (an
    // RSA keygen on a board can take minutes).
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

async fn next_event(mut feed: Feed) -> Option<(Result<Event, axum::Error>, Feed)> {
    loop {
        feed = match feed {
            Feed::Done => return None,
            Feed::Ended(end) => return Some((Event::default().event("end").json_data(&end), Feed::Done)),
            Feed::Live { mut rx, fresh, store, id } => {
                if !fresh && rx.changed().await.is_err() {
                    // The tracker is gone; its last state or the store says
                    // how the run ended.
                    let end = rx.borrow().end.clone();
                    match end {
                        Some(end) => Feed::Ended(end),
                        None => Feed::Poll { store, id },
                    }
                } else {
                    let state = rx.borrow_and_update().clone();
                    match (state.end, state.progress) {
                        (Some(end), _) => Feed::Ended(end),
                        (None, Some(progress)) => {
                            let event = Event::default().event("progress").json_data(&progress);
                            return Some((event, Feed::Live { rx, fresh: false, store, id }));
                        }
                        // Started, but the board has not begun measuring.
                        (None, None) => Feed::Live { rx, fresh: false, store, id },
                    }
                }
            }
            Feed::Poll { store, id } => {
                tokio::time::sleep(POLL_STORE).await;
                match store.run(id).await {
                    Ok(Some(run)) if run.status.is_finished() => {
                        Feed::Ended(RunEnd { status: run.status, error: run.error })
                    }
                    Ok(Some(_)) => Feed::Poll { store, id },
                    Ok(None) => return None,
                    Err(e) => {
                        tracing::warn!(run = id, "following a run in the store: {e}");
                        Feed::Poll { store, id }
                    }
                }
            }
        };
    }
}
