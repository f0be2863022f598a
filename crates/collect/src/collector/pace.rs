//! How long the host waits for a board's next record: the silence limit,
//! or longer after a `measuring` record, at the pace the board is seen to
//! keep.

use std::time::Duration;

use pqbench_types::{Algorithm, Clock, Measuring, Operation};

use super::Collector;

/// How many times the time of a beat and the slowest call so far the host
/// waits after a `measuring` record: a call may take longer than the
/// slowest before it (a key generation's search, an interrupt), and the
/// board's pace may drop (an emulator on a busy host).
pub const SLOWEST_CALLS: f64 = 3.0;

/// The longest wait a `measuring` record can set: a board whose call is
/// said to take longer is taken for dead anyway, so a wrong figure in a
/// record cannot hold a board for ever.
pub const MAX_WAIT: Duration = Duration::from_secs(3600);

impl Collector {
    /// How long to wait for the next record after `status`, the board
    /// keeping `pace` ticks per second of this host's time.
    ///
    /// The board speaks again between calls once another `beat_ms` of its
    /// time has been timed, so at most a beat and one call (or batch) from
    /// now. A call's length is known only by the slowest so far, and board
    /// time is not this host's (an emulated board runs at its host's pace,
    /// a real one at its clock's), so the wait is [`SLOWEST_CALLS`] times
    /// a beat and the slowest call at the pace the board is seen to keep,
    /// and never less than [`silence`](Self::silence) nor more than
    /// [`MAX_WAIT`]. Once the record after it has come, the wait is
    /// `silence` again.
    ///
    /// This rather than raising the limit by what the board says it will
    /// measure: an operation runs for at least `min_time_ms` and at least
    /// `min_iterations` calls, whichever is longer, so the board cannot say
    /// in advance how long it will be silent, and one slow call can outlast
    /// any fixed limit. Beats keep the limit about silence, however long
    /// the operation.
    pub fn wait_after(&self, status: &Measuring, clock: &Clock, pace: f64) -> Duration {
        let beat = f64::from(status.beat_ms) / 1000.0 * clock.ticks_per_second as f64;
        let board_seconds = (beat + status.slowest_ticks as f64) / pace;
        let wait = Duration::try_from_secs_f64(SLOWEST_CALLS * board_seconds).unwrap_or(MAX_WAIT);
        wait.clamp(self.silence, MAX_WAIT.max(self.silence))
    }
}

/// The operation being measured, and when its last `measuring` record came.
pub(super) struct Watch {
    pub(super) algorithm: Algorithm,
    pub(super) operation: Operation,
    /// When the last `measuring` record arrived, and its `elapsed`.
    pub(super) last: Option<(tokio::time::Instant, u64)>,
}

impl Watch {
    pub(super) fn is(&self, status: &Measuring) -> bool {
        (self.algorithm, self.operation) == (status.algorithm, status.operation)
    }

    /// Board ticks per second of this host's time since the last record of
    /// this operation. It counts the timed ticks only, over a host time
    /// that also holds the board's untimed work and the records' transfer:
    /// a pace a little slow, so a wait a little long, never short.
    pub(super) fn pace(&self, status: &Measuring, now: tokio::time::Instant) -> Option<f64> {
        let (then, elapsed) = self.last?;
        let ticks = status.elapsed_ticks.checked_sub(elapsed).filter(|&t| t > 0)?;
        let seconds = now.duration_since(then).as_secs_f64();
        (seconds > 0.0).then(|| ticks as f64 / seconds)
    }
}
