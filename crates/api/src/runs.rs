//! A run as it is started and watched: the request that starts one
//! ([`NewRun`]), the answer that names it ([`RunCreated`]), and the events
//! of `GET /api/runs/{id}/events`.

use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::{Algorithm, Operation, RunStatus};
use serde::{Deserialize, Serialize};

/// The body of `POST /api/runs`. Left out: every algorithm the suite
/// measures, and the server's default iterations and time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRun {
    pub board: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithms: Option<Vec<Algorithm>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_iterations: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time_ms: Option<u32>,
    /// One of the board's `variants`; left out, `opt-s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// The answer to a request that made a run: `POST /api/runs` (a run
/// started on a board) and `POST /api/uploads` (a run measured elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCreated {
    pub id: i64,
}

/// The data of a `progress` event on `GET /api/runs/{id}/events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunProgress {
    /// Operations finished, of `total` the board planned.
    pub done: u32,
    pub total: u32,
    /// The operation the board is measuring now (or measured last).
    pub algorithm: Algorithm,
    pub operation: Operation,
    /// Since the server started the run, board start-up included.
    pub elapsed_ms: u64,
    /// Time left at the pace so far; null until an operation has finished.
    pub eta_ms: Option<u64>,
}

impl RunProgress {
    /// Time left if the remaining operations take as long on average as the
    /// finished ones did. Operations differ widely (an RSA keygen against a
    /// hash), so this is a guide, and none is given before the first ends.
    pub fn eta_ms(done: u32, total: u32, elapsed_ms: u64) -> Option<u64> {
        if done == 0 {
            return None;
        }
        let left = u128::from(total.saturating_sub(done));
        let eta = u128::from(elapsed_ms) * left / u128::from(done);
        Some(u64::try_from(eta).unwrap_or(u64::MAX))
    }
}

/// The data of the `end` event that closes `GET /api/runs/{id}/events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEnd {
    pub status: RunStatus,
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_follows_the_pace_so_far() {
        assert_eq!(RunProgress::eta_ms(0, 10, 5000), None);
        assert_eq!(RunProgress::eta_ms(2, 10, 1000), Some(4000));
        assert_eq!(RunProgress::eta_ms(10, 10, 1000), Some(0));
        assert_eq!(RunProgress::eta_ms(12, 10, 1000), Some(0), "a board that overcounts");
        assert_eq!(RunProgress::eta_ms(1, u32::MAX, u64::MAX), Some(u64::MAX));
    }
}
