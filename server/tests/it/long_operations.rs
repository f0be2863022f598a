//! Long operations: an operation measured for longer than the host's
//! silence limit completes, because the board says it is measuring between
//! calls (`measuring` records) and every record resets the limit.
//!
//! RSA-2048 private on the emulated board at `min_time_ms=60000`: 60 s of
//! board time, with nothing but `measuring` records between its `op` and
//! its `result`, on a board whose limit is 30 s. A request names
//! algorithms, not operations, so RSA-2048 public runs first; its calls are
//! quick, and it stops at the firmware's 1024 samples after a few seconds.
//!
//! Needs the firmware image: `cargo xtask test` builds it and sets PQBENCH_DIST.

use std::time::{Duration, Instant};

use pqbench_collect::runner::EMULATED_SILENCE;
use pqbench_types::{Algorithm, BenchResult, Operation, Run, RunStatus, Status};
use serde_json::json;

use crate::common;

/// Host time the run may take at most: 60 s of board time is 60 billion
/// emulated instructions, a few minutes at QEMU's slowest.
const LONGEST_RUN: Duration = Duration::from_secs(1200);

#[tokio::test]
async fn rsa_2048_private_measured_for_60_s_on_the_emulated_board_completes() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let request = json!({"board": "qemu-mps2-an386", "algorithms": ["RSA-2048"],
                         "min_iterations": 1, "min_time_ms": 60000});
    let started = Instant::now();
    let id = server.start_run(&request).await;

    // Each result is stored as it arrives: the host time between the
    // public result and the private one is the private operation's, when
    // nothing but its `op` and its `measuring` records came.
    let mut public_stored = None;
    let mut private_stored = None;
    let (run, results) = loop {
        let run: Run = server.get(&format!("/api/runs/{id}")).await;
        let results: Vec<BenchResult> = server.get(&format!("/api/runs/{id}/results")).await;
        let now = Instant::now();
        let stored = |operation| results.iter().any(|r| r.operation == operation);
        if stored(Operation::Public) {
            public_stored.get_or_insert(now);
        }
        if stored(Operation::Private) {
            private_stored.get_or_insert(now);
        }
        if run.status.is_finished() {
            break (run, results);
        }
        assert!(started.elapsed() < LONGEST_RUN, "run {id} still {:?} after {LONGEST_RUN:?}", run.status);
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let took = started.elapsed();

    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.rejected_records, 0, "{run:?}");
    let operations: Vec<_> = results.iter().map(|r| (r.algorithm, r.operation, r.status)).collect();
    assert_eq!(
        operations,
        [
            (Algorithm::Rsa2048, Operation::Public, Status::Ok),
            (Algorithm::Rsa2048, Operation::Private, Status::Ok)
        ]
    );
    let private = &results[1];
    // Measured for the time asked, in the board's own time.
    let board_seconds = private.total_seconds.expect("a timed result has its total");
    assert!(board_seconds >= 60.0, "{private:?}");
    // Many calls, each far shorter than the limit: no single call needed
    // the wait a slow call gets, only the records between calls.
    assert!(private.iterations.unwrap() > 100, "{private:?}");
    assert!(private.max_ms.unwrap() < 1000.0, "{private:?}");

    // And it needed them: the board measured for longer than the host's
    // silence limit without a record of any other kind.
    let (Some(public_stored), Some(private_stored)) = (public_stored, private_stored) else {
        panic!("a result never seen stored")
    };
    let measuring = private_stored.duration_since(public_stored);
    assert!(
        measuring > EMULATED_SILENCE,
        "the private operation took {measuring:?} of host time, within the {EMULATED_SILENCE:?} \
         limit: this host runs the emulator too fast to show anything"
    );
    eprintln!(
        "RSA-2048 private: {board_seconds:.1} s of board time in {:.1} s of host time; the run took {:.1} s",
        measuring.as_secs_f64(),
        took.as_secs_f64()
    );
}
