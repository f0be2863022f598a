//! The runs this server is making now, for live progress and for cancel.
//!
//! A run started through the API is registered while it runs: its progress
//! callback feeds a watch channel that any number of event streams follow,
//! and its cancellation token lets the dashboard stop it. The entry goes
//! when the run ends; from then on the store alone answers for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use pqbench_api::{RunEnd, RunProgress};
use pqbench_types::{Algorithm, Operation};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use pqbench_collect::collector::Progress;

/// The latest of a live run: where it is, and how it ended once it has.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveState {
    /// None until the board starts its first operation.
    pub progress: Option<RunProgress>,
    pub end: Option<RunEnd>,
}

struct LiveRun {
    state: watch::Sender<LiveState>,
    cancel: CancellationToken,
}

#[derive(Default)]
pub struct LiveRuns {
    runs: Mutex<HashMap<i64, Arc<LiveRun>>>,
}

/// What a cancel request found.
#[derive(Debug, PartialEq)]
pub enum CancelAnswer {
    /// The run is stopping.
    Requested,
    /// The run has ended, and is only waiting to leave the registry.
    Ended(RunEnd),
    /// Not a run of this server's (unknown, ended, or another process's).
    NotLive,
}

impl LiveRuns {
    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<LiveRun>>> {
        // The map stays consistent whatever a panicking holder was doing:
        // every change to it is a single insert or remove.
        self.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers run `id`, stopped by `cancel`; the tracker feeds it and
    /// removes it when dropped.
    pub fn track(self: &Arc<Self>, id: i64, cancel: CancellationToken) -> Tracker {
        let run = Arc::new(LiveRun { state: watch::Sender::new(LiveState::default()), cancel });
        self.runs().insert(id, run.clone());
        Tracker { registry: self.clone(), id, run, started: Instant::now(), done: 0, total: 0, current: None }
    }

    /// Follows run `id`, if it is live here.
    pub fn subscribe(&self, id: i64) -> Option<watch::Receiver<LiveState>> {
        self.runs().get(&id).map(|run| run.state.subscribe())
    }

    pub fn cancel(&self, id: i64) -> CancelAnswer {
        let Some(run) = self.runs().get(&id).cloned() else {
            return CancelAnswer::NotLive;
        };
        if let Some(end) = run.state.borrow().end.clone() {
            return CancelAnswer::Ended(end);
        }
        run.cancel.cancel();
        CancelAnswer::Requested
    }

    pub fn is_live(&self, id: i64) -> bool {
        self.runs().contains_key(&id)
    }

    /// Runs live now.
    pub fn count(&self) -> usize {
        self.runs().len()
    }
}

/// Turns one run's progress callbacks into its live state.
pub struct Tracker {
    registry: Arc<LiveRuns>,
    id: i64,
    run: Arc<LiveRun>,
    started: Instant,
    done: u32,
    total: u32,
    current: Option<(Algorithm, Operation)>,
}

impl Tracker {
    pub fn update(&mut self, progress: &Progress) {
        match *progress {
            Progress::Operation { algorithm, operation, index, total } => {
                // `index` counts from 1 and comes from the board: clamp
                // rather than trust it.
                self.total = total;
                self.done = index.saturating_sub(1).min(total);
                self.current = Some((algorithm, operation));
            }
            Progress::Result(_) => self.done = self.done.saturating_add(1).min(self.total),
            Progress::Rejected(_) | Progress::Text(_) => return,
        }
        let Some((algorithm, operation)) = self.current else { return };
        let elapsed_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let progress = RunProgress {
            done: self.done,
            total: self.total,
            algorithm,
            operation,
            elapsed_ms,
            eta_ms: RunProgress::eta_ms(self.done, self.total, elapsed_ms),
        };
        self.run.state.send_modify(|state| state.progress = Some(progress));
    }

    /// Says how the run ended to everyone following it, and leaves the
    /// registry: the store has the run's end by now.
    pub fn finish(self, end: RunEnd) {
        self.run.state.send_modify(|state| state.end = Some(end));
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        // Only this run's own entry: an id is never reused, but be exact.
        let mut runs = self.registry.runs();
        if runs.get(&self.id).is_some_and(|run| Arc::ptr_eq(run, &self.run)) {
            runs.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pqbench_types::RunStatus;

    #[test]
    fn progress_counts_operations_and_ends_with_the_run() {
        let registry = Arc::new(LiveRuns::default());
        let mut tracker = registry.track(3, CancellationToken::new());
        let mut rx = registry.subscribe(3).unwrap();
        assert_eq!(rx.borrow_and_update().progress, None);

        let op = |index| Progress::Operation {
            algorithm: Algorithm::MlKem768,
            operation: Operation::Encaps,
            index,
            total: 3,
        };
        tracker.update(&op(2));
        let progress = rx.borrow_and_update().progress.clone().unwrap();
        assert_eq!((progress.done, progress.total, progress.operation), (1, 3, Operation::Encaps));
        assert!(progress.eta_ms.is_some());
        tracker.update(&Progress::Text("banner".into()));
        assert!(!rx.has_changed().unwrap(), "text is not progress");

        // A board's nonsense never counts past the plan.
        tracker.update(&op(0));
        assert_eq!(rx.borrow_and_update().progress.as_ref().unwrap().done, 0);
        tracker.update(&op(99));
        assert_eq!(rx.borrow_and_update().progress.as_ref().unwrap().done, 3);

        let end = RunEnd { status: RunStatus::Complete, error: None };
        tracker.finish(end.clone());
        assert_eq!(rx.borrow().end, Some(end));
        assert!(!registry.is_live(3), "an ended run leaves the registry");
        assert!(registry.subscribe(3).is_none());
    }

    #[test]
    fn cancel_reaches_a_live_run_only() {
        let registry = Arc::new(LiveRuns::default());
        let token = CancellationToken::new();
        let tracker = registry.track(5, token.clone());
        assert_eq!(registry.cancel(6), CancelAnswer::NotLive);
        assert_eq!(registry.cancel(5), CancelAnswer::Requested);
        assert!(token.is_cancelled());

        let end = RunEnd { status: RunStatus::Interrupted, error: Some("cancelled".into()) };
        tracker.run.state.send_modify(|state| state.end = Some(end.clone()));
        assert_eq!(registry.cancel(5), CancelAnswer::Ended(end));
        drop(tracker);
        assert_eq!(registry.cancel(5), CancelAnswer::NotLive);
    }
}
