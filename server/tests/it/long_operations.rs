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
//! And the first calls of a slow operation, before any record gives the
//! board's pace: waited for while the emulator computes, and only then.
//!
//! Needs the firmware image: `cargo xtask test` builds it and sets PQBENCH_DIST.

use std::path::Path;
use std::time::{Duration, Instant};

use pqbench::record::StoreRecorder;
use pqbench_collect::boards::{Emulator, EmulatorOptions};
use pqbench_collect::collector::{Collector, CpuClock};
use pqbench_collect::runner::EMULATED_SILENCE;
use pqbench_store::Store;
use pqbench_types::{Algorithm, BenchResult, Operation, Run, RunStatus, Status};
use pqbench_wire::{Decoder, RunCommand};
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

/// Collects `command` from a fresh mps2-an386 (monitor at `monitor`) with
/// `silence` allowed, its QEMU's CPU time watched or not; calls `meanwhile`
/// once the first result is stored. The outcome, and the results.
async fn collect_from_qemu(
    command: RunCommand,
    silence: Duration,
    watch_cpu: bool,
    meanwhile: impl AsyncFnOnce(&Path),
) -> (pqbench_collect::collector::Outcome, Vec<BenchResult>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("long.db")).await.unwrap();
    let id = store.create_run(&pqbench_store::NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let monitor = dir.path().join("qemu.monitor");
    let options = EmulatorOptions { monitor: Some(monitor.clone()), timing_model: None };
    let image = common::dist().join("firmware/mps2-an386.elf");
    let qemu = Emulator::start_with(common::mps2(), &image, &options).await.unwrap();
    let mut port = qemu.open_console().unwrap();
    let mut collector = Collector::to(StoreRecorder::for_run(&store, id));
    collector.silence = silence;
    collector.emulated = true;
    if watch_cpu {
        collector.emulator_cpu = qemu.cpu_clock().map(|clock| Box::new(clock) as Box<dyn CpuClock>);
    }
    let mut decoder = Decoder::new();
    let collecting = collector.collect(&mut port, command, &mut decoder, |_| {});
    let watching = async {
        while store.results(id).await.unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        meanwhile(&monitor).await;
        std::future::pending::<()>().await
    };
    let outcome = tokio::time::timeout(LONGEST_RUN, async {
        tokio::select! {
            outcome = collecting => outcome.unwrap(),
            () = watching => unreachable!(),
        }
    })
    .await
    .expect("the run ends");
    drop(port);
    qemu.stop().await;
    (outcome, store.results(id).await.unwrap())
}

/// SHA-256 first (its result starts the watch), then SLH-DSA-SHA2-128s and
/// FN-DSA-1024, each once: the known answers before SLH-DSA's first record
/// (a key of 0.97 billion instructions, a signature of 7.4 billion, two
/// verifications) and FN-DSA-1024's 200-million-instruction key generation
/// are each silent for longer than the limit below, on any host, before any
/// pace is known. (SLH-DSA-SHA2-128f's 0.37 billion was not: on a quick
/// host, once, its silence was shorter than the limit.)
fn slow_first_calls() -> RunCommand {
    [Algorithm::Sha256, Algorithm::SlhDsaSha2_128s, Algorithm::FnDsa1024]
        .into_iter()
        .try_fold(RunCommand::new(1, 0), RunCommand::with_algorithm)
        .unwrap()
}

/// Long enough for a share of QEMU's CPU time to be counted (Linux counts it in
/// 10 ms ticks), short of the silences above on any host.
const SHORT_SILENCE: Duration = Duration::from_millis(250);

/// A silent emulated board is waited for while its QEMU computes, and only
/// then: the same silences fail the run when nothing watches QEMU, and a
/// QEMU stopped mid-run (its core halted) fails it after the limit even
/// when watched.
#[tokio::test]
async fn a_silent_emulated_board_is_waited_for_only_while_its_qemu_computes() {
    pqbench_test_needs::require!(common::firmware_dist());
    let (outcome, results) = collect_from_qemu(slow_first_calls(), SHORT_SILENCE, true, async |_| {}).await;
    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    assert_eq!(results.len(), 1 + 3 + 3);
    assert!(results.iter().all(|r| r.status == Status::Ok), "{results:?}");

    let (outcome, results) = collect_from_qemu(slow_first_calls(), SHORT_SILENCE, false, async |_| {}).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert!(
        outcome.error.as_deref().unwrap_or_default().starts_with("the board sent nothing"),
        "{outcome:?}"
    );
    assert!(results.len() < 7, "the silences were longer than the limit: {results:?}");

    let stopped = std::sync::Mutex::new(None);
    let stop = async |monitor: &Path| {
        monitor_command(monitor, "stop").await;
        *stopped.lock().unwrap() = Some(Instant::now());
    };
    let silence = Duration::from_secs(2);
    let (outcome, _) = collect_from_qemu(slow_first_calls(), silence, true, stop).await;
    let gave_up_after = stopped.lock().unwrap().expect("QEMU was stopped").elapsed();
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(
        outcome.error.as_deref(),
        Some("the board sent nothing for 2 s; 1 result kept"),
        "{outcome:?}"
    );
    // Given up after the limit (from the last record, before the stop),
    // not waited for as a computing board would be.
    assert!(gave_up_after < silence * 3, "{gave_up_after:?}");
}

/// Sends a command to QEMU's human monitor and waits for its echo.
async fn monitor_command(socket: &Path, command: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut monitor = tokio::net::UnixStream::connect(socket).await.expect("QEMU's monitor");
    let mut buf = [0u8; 256];
    let _ = tokio::time::timeout(Duration::from_secs(5), monitor.read(&mut buf)).await;
    monitor.write_all(format!("{command}\n").as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    while !String::from_utf8_lossy(&answer).contains(command) {
        match tokio::time::timeout(Duration::from_secs(5), monitor.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
}
