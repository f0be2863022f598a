//! The messages of an agent's connection: JSON text frames over a
//! WebSocket that the agent opens to `GET /api/agents/connect` (so an agent
//! behind NAT needs no open port), with `Authorization: Bearer <token>`.
//!
//! The agent says `hello` with its host name and boards; the server
//! answers `welcome` (or `refused`, and closes). From then on the server
//! sends `run` and `cancel`, and the agent streams each run's records as
//! its board sends them, named by the run's id in the central store. An
//! agent can only write into runs the server gave it.
//!
//! A result travels as the board's integer counts (`Measurement`), and the
//! server derives its figures with the clock the board described, as it
//! does for its own boards: no float crosses the connection, so nothing is
//! rounded on the way, and an agent cannot send figures its counts do not
//! give. Messages are externally tagged (`{"result": {...}}`): serde reads
//! an internally tagged one through a buffer that cannot hold serde_json's
//! `arbitrary_precision` numbers, which the server's build turns on.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::{Algorithm, Build, Measurement, Operation, RunStatus};
use serde::{Deserialize, Serialize};

use crate::{Board, NewRun};

/// Both ends speak this version; a server refuses an agent of another, at
/// its hello rather than at the first message it could not read. 2 added
/// `noted` (a run's notes).
pub const PROTOCOL_VERSION: u32 = 2;

/// Host names are `pqbench_valid::HostName`s.
pub use pqbench_valid::{HostName, HostNameError, MAX_HOST_LEN};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FromAgent {
    Hello {
        protocol: u32,
        host: String,
        version: String,
        boards: Vec<Board>,
    },
    /// The boards changed (a port plugged in, a run started or ended).
    Boards {
        boards: Vec<Board>,
    },
    /// The board's own progress, as its run goes.
    Progress {
        run: i64,
        algorithm: Algorithm,
        operation: Operation,
        index: u32,
        total: u32,
    },
    /// The board answered: its build and clock.
    Described {
        run: i64,
        build: Box<Build>,
        clock_hz: Option<u64>,
        ticks_per_second: u64,
        tick_unit: String,
    },
    /// Result `seq` (1, 2, ...) of the run, as the board counted it.
    Result {
        run: i64,
        seq: u32,
        measurement: Measurement,
    },
    /// A record the agent refused (damaged, out of place).
    Rejected {
        run: i64,
        why: String,
    },
    /// A line for the run's notes (`Run::notes`): what happened on the way
    /// that its results do not say.
    Noted {
        run: i64,
        note: String,
    },
    /// The run ended on the agent; `results` is how many it reported.
    Finished {
        run: i64,
        status: RunStatus,
        error: Option<String>,
        results: Option<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ToAgent {
    Welcome,
    Refused {
        reason: String,
    },
    /// Run `request` on the agent's board `request.board` (its own id, not
    /// the host-qualified one), as run `run` of the central store.
    Run {
        run: i64,
        request: NewRun,
    },
    Cancel {
        run: i64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_tagged_json_and_unknown_fields_are_refused() {
        let cancel = serde_json::to_string(&ToAgent::Cancel { run: 7 }).unwrap();
        assert_eq!(cancel, r#"{"cancel":{"run":7}}"#);
        assert_eq!(serde_json::from_str::<ToAgent>(&cancel).unwrap(), ToAgent::Cancel { run: 7 });
        assert_eq!(serde_json::to_string(&ToAgent::Welcome).unwrap(), r#""welcome""#);
        assert!(serde_json::from_str::<ToAgent>(r#"{"cancel":{"run":7,"x":1}}"#).is_err());
        assert!(serde_json::from_str::<FromAgent>(r#"{"format_disk":{}}"#).is_err());
    }

    /// Through the server's own serde_json (with `arbitrary_precision`), a
    /// result reads back as the agent sent it, every count exact.
    #[test]
    fn a_result_crosses_whole() {
        use pqbench_types::Status;
        let measurement = Measurement {
            iterations: 3,
            total_ticks: u64::MAX / 3,
            min_ticks: 1,
            median_ticks: 2,
            max_ticks: u64::MAX / 2,
            heap_bytes: Some(2048),
            heap_allocs: Some(2),
            stack_bytes: Some(1096),
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        };
        let message = FromAgent::Result { run: 3, seq: 1, measurement };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<FromAgent>(&text).unwrap(), message);
    }

    #[test]
    fn host_names_are_short_plain_words() {
        assert!(HostName::new("lab-a.rack2_b").is_ok());
        for bad in ["", "a/b", "a b", "serial:x", "é", &"x".repeat(65)] {
            assert!(HostName::new(bad).is_err(), "{bad:?}");
        }
    }
}
