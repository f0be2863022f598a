//! The silence limit against a board on a scripted link, in tokio's
//! paused time: a wait of minutes takes none.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use pqbench_types::{Build, Measurement, Measuring, RunStatus, Status};
use pqbench_wire::{Decoder, RecordWriter, write_measurement, write_measuring};
use tokio::time::Instant;

use super::*;
use crate::record::{Recorder, Recording};

/// Keeps nothing but how many results and refusals came.
#[derive(Default)]
struct Counting {
    results: Mutex<u32>,
    rejected: Mutex<Vec<String>>,
}

impl Recorder for Counting {
    fn run_id(&self) -> i64 {
        1
    }
    fn describe<'a>(&'a self, _: &'a Build, _: Option<u64>, _: u64, _: &'a str) -> Recording<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    fn add_result<'a>(&'a self, _: u32, _: &'a BenchResult, _: Option<&'a Measurement>) -> Recording<'a, ()> {
        *self.results.lock().unwrap() += 1;
        Box::pin(async { Ok(()) })
    }
    fn count_rejected<'a>(&'a self, why: &'a str) -> Recording<'a, ()> {
        self.rejected.lock().unwrap().push(why.to_string());
        Box::pin(async { Ok(()) })
    }
    fn note<'a>(&'a self, _: &'a str) -> Recording<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    fn finish<'a>(
        &'a self,
        status: RunStatus,
        _: Option<&'a str>,
        _: Option<u32>,
    ) -> Recording<'a, RunStatus> {
        Box::pin(async move { Ok(status) })
    }
}

/// A board's lines, each after a pause; then silence, its port open.
struct Scripted {
    lines: VecDeque<(Duration, Vec<u8>)>,
    /// When the next line is due, once a call has begun waiting for it.
    due: Option<Instant>,
}

impl From<Vec<(Duration, Vec<u8>)>> for Scripted {
    fn from(script: Vec<(Duration, Vec<u8>)>) -> Self {
        Scripted { lines: script.into(), due: None }
    }
}

impl Link for Scripted {
    type Error = std::convert::Infallible;

    /// Cancel safe, as a serial port's read is: a call dropped while it
    /// waits leaves the line due at the same time.
    async fn receive(&mut self) -> Result<Vec<u8>, Self::Error> {
        let Some(&(pause, _)) = self.lines.front() else { return std::future::pending().await };
        let due = *self.due.get_or_insert_with(|| Instant::now() + pause);
        tokio::time::sleep_until(due).await;
        self.due = None;
        Ok(self.lines.pop_front().map(|(_, bytes)| bytes).unwrap_or_default())
    }
}

/// 1000 ticks a second: a tick is a millisecond of board time.
const TICKS_PER_SECOND: u64 = 1000;
const SILENCE: Duration = Duration::from_secs(30);

fn record(kind: &str, fields: &[(&str, &str)]) -> Vec<u8> {
    let mut line = String::new();
    let mut writer = RecordWriter::begin(&mut line, kind).unwrap();
    for (key, value) in fields {
        writer.field(key, value).unwrap();
    }
    writer.finish().unwrap();
    line.into_bytes()
}

fn start() -> Vec<Vec<u8>> {
    vec![
        record(
            "hello",
            &[
                ("board", "scripted"),
                ("ticks_per_second", &TICKS_PER_SECOND.to_string()),
                ("tick_unit", "ns"),
            ],
        ),
        record("begin", &[("operations", "1")]),
        record("op", &[("alg", "RSA-2048"), ("op", "private"), ("n", "1"), ("of", "1")]),
    ]
}

fn measuring(calls: u32, elapsed_ticks: u64, slowest_ticks: u64) -> Vec<u8> {
    let status = Measuring {
        algorithm: Algorithm::Rsa2048,
        operation: Operation::Private,
        min_time_ms: 60_000,
        beat_ms: 1000,
        calls,
        elapsed_ticks,
        slowest_ticks,
    };
    let mut line = String::new();
    write_measuring(&mut line, &status).unwrap();
    line.into_bytes()
}

fn end(iterations: u32, total_ticks: u64) -> Vec<Vec<u8>> {
    let m = Measurement {
        iterations,
        total_ticks,
        min_ticks: total_ticks / u64::from(iterations),
        median_ticks: total_ticks / u64::from(iterations),
        max_ticks: total_ticks / u64::from(iterations),
        ..Measurement::untimed(Algorithm::Rsa2048, Operation::Private, Status::Ok)
    };
    let mut line = String::new();
    write_measurement(&mut line, &m).unwrap();
    vec![line.into_bytes(), record("end", &[("results", "1")])]
}

/// Collects the script with a 30 s silence limit: the outcome, the
/// host time it took, and the refusals.
async fn collect(script: Vec<(Duration, Vec<u8>)>) -> (Outcome, Duration, Vec<String>) {
    collect_emulated(script, None).await
}

/// An emulator that computes (a core's worth of CPU time per second) until
/// `halts` after it starts, then uses none: its core halted.
struct Qemu {
    started: Instant,
    halts: Duration,
}

impl CpuClock for Qemu {
    fn used(&self) -> Option<Duration> {
        Some(self.started.elapsed().min(self.halts))
    }
}

/// [`collect`], from an emulated board whose QEMU is `emulator`.
async fn collect_emulated(
    script: Vec<(Duration, Vec<u8>)>,
    emulator: Option<Qemu>,
) -> (Outcome, Duration, Vec<String>) {
    let recorder = Arc::new(Counting::default());
    let mut collector = Collector::to(recorder.clone());
    collector.silence = SILENCE;
    collector.emulator_cpu = emulator.map(|e| Box::new(e) as Box<dyn CpuClock>);
    let started = Instant::now();
    let outcome =
        collector.collect_link(&mut Scripted::from(script), &mut Decoder::new(), |_| {}).await.unwrap();
    let rejected = recorder.rejected.lock().unwrap().clone();
    (outcome, started.elapsed(), rejected)
}

fn at_once(lines: Vec<Vec<u8>>) -> impl Iterator<Item = (Duration, Vec<u8>)> {
    lines.into_iter().map(|line| (Duration::ZERO, line))
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[tokio::test(start_paused = true)]
async fn an_operation_measured_longer_than_the_silence_completes_on_its_beats() {
    // 40 s between `op` and `result`, a beat every 10 s between them.
    let mut script: Vec<_> = at_once(start()).collect();
    script.push((Duration::ZERO, measuring(0, 0, 0)));
    for beat in 1..4u32 {
        script.push((secs(10), measuring(beat * 100, u64::from(beat) * 10_000, 100)));
    }
    let mut rest = at_once(end(400, 40_000));
    let (_, result) = rest.next().unwrap();
    script.push((secs(10), result));
    script.extend(rest);
    let (outcome, took, rejected) = collect(script).await;
    assert_eq!((outcome.status, outcome.results), (RunStatus::Complete, 1), "{outcome:?} {rejected:?}");
    assert_eq!(took, secs(40));
}

#[tokio::test(start_paused = true)]
async fn the_same_operation_without_beats_is_taken_for_a_dead_board() {
    // An older board, which does not send `measuring`: as before it,
    // 30 s without a record ends the run, though the board would have
    // reported at 40 s.
    let mut script: Vec<_> = at_once(start()).collect();
    let mut rest = at_once(end(400, 40_000));
    let (_, result) = rest.next().unwrap();
    script.push((secs(40), result));
    script.extend(rest);
    let (outcome, took, _) = collect(script).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing for 30 s"));
    assert_eq!(took, SILENCE);
}

/// Calls of 20 s of board time, the board keeping a board second per
/// host second: a call, then a record.
fn twenty_second_calls() -> Vec<(Duration, Vec<u8>)> {
    let mut script: Vec<_> = at_once(start()).collect();
    script.push((Duration::ZERO, measuring(0, 0, 0)));
    script.push((secs(20), measuring(1, 20_000, 20_000)));
    script.push((secs(20), measuring(2, 40_000, 20_000)));
    script
}

#[tokio::test(start_paused = true)]
async fn a_call_longer_than_the_silence_is_waited_for_after_slow_calls() {
    // After calls of 20 s, one of 50 s: within 3 x (1 s beat + 20 s).
    let mut script = twenty_second_calls();
    script.push((secs(50), measuring(3, 90_000, 50_000)));
    script.extend(at_once(end(3, 90_000)));
    let (outcome, took, rejected) = collect(script).await;
    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?} {rejected:?}");
    assert_eq!(took, secs(90));
}

#[tokio::test(start_paused = true)]
async fn a_board_dead_after_slow_calls_is_given_up_after_three_of_them() {
    let (outcome, took, _) = collect(twenty_second_calls()).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing for 63 s"));
    assert_eq!(took, secs(40 + 63));
}

#[tokio::test(start_paused = true)]
async fn the_wait_follows_the_boards_pace_not_its_clock() {
    // The same calls on a board (an emulator) running at a quarter of
    // its clock's speed: 20 s of its time take 80 s of the host's.
    let mut script: Vec<_> = at_once(start()).collect();
    script.push((Duration::ZERO, measuring(0, 0, 0)));
    script.push((secs(80), measuring(1, 20_000, 20_000)));
    script.push((secs(80), measuring(2, 40_000, 20_000)));
    script.extend(at_once(end(2, 40_000)));
    let (outcome, _, rejected) = collect(script).await;
    // The first call had no pace to go by: 80 s of silence is too long.
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?} {rejected:?}");

    // With the pace known from a first, quicker call (7 s of board
    // time in 28 s), the next is waited for 3 x (1 + 7) board seconds at
    // that pace, 96 s; and after it, 3 x (1 + 20), 252 s.
    let mut script: Vec<_> = at_once(start()).collect();
    script.push((Duration::ZERO, measuring(0, 0, 0)));
    script.push((secs(28), measuring(1, 7_000, 7_000)));
    script.push((secs(80), measuring(2, 27_000, 20_000)));
    script.push((secs(240), measuring(3, 87_000, 60_000)));
    script.extend(at_once(end(3, 87_000)));
    let (outcome, took, rejected) = collect(script).await;
    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?} {rejected:?}");
    assert_eq!(took, secs(348));
}

#[tokio::test(start_paused = true)]
async fn a_measuring_record_for_another_operation_is_refused() {
    let mut script: Vec<_> = at_once(start()).collect();
    let mut other = String::new();
    let status = Measuring {
        algorithm: Algorithm::Rsa2048,
        operation: Operation::Public,
        min_time_ms: 0,
        beat_ms: 1000,
        calls: 0,
        elapsed_ticks: 0,
        slowest_ticks: 0,
    };
    write_measuring(&mut other, &status).unwrap();
    script.push((Duration::ZERO, other.into_bytes()));
    script.extend(at_once(end(1, 100)));
    let (outcome, _, rejected) = collect(script).await;
    assert_eq!(outcome.status, RunStatus::Incomplete, "{outcome:?}");
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(rejected[0].contains("RSA-2048 public"), "{rejected:?}");
}

/// The first call of an operation, 100 s long, before any record gave the
/// board's pace: its emulator computing all along, it is waited for.
fn one_long_first_call() -> Vec<(Duration, Vec<u8>)> {
    let mut script: Vec<_> = at_once(start()).collect();
    script.push((Duration::ZERO, measuring(0, 0, 0)));
    let mut rest = at_once(end(1, 100_000));
    let (_, result) = rest.next().unwrap();
    script.push((secs(100), result));
    script.extend(rest);
    script
}

#[tokio::test(start_paused = true)]
async fn a_silent_emulated_board_is_waited_for_while_its_emulator_computes() {
    let computing = Qemu { started: Instant::now(), halts: Duration::MAX };
    let (outcome, took, rejected) = collect_emulated(one_long_first_call(), Some(computing)).await;
    assert_eq!((outcome.status, outcome.results), (RunStatus::Complete, 1), "{outcome:?} {rejected:?}");
    assert_eq!(took, secs(100));
}

#[tokio::test(start_paused = true)]
async fn a_silent_emulated_board_whose_core_halted_is_given_up_after_the_silence() {
    // Its core halts 10 s into the call: the first 30 s of silence held
    // 10 s of computing, a third of a core, so it is waited for once more;
    // the next 30 s hold none.
    let halted = Qemu { started: Instant::now(), halts: secs(10) };
    let (outcome, took, _) = collect_emulated(one_long_first_call(), Some(halted)).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing for 60 s"));
    assert_eq!(took, secs(60));
    // Halted from the start, it is given up after the silence, as a chip.
    let idle = Qemu { started: Instant::now(), halts: Duration::ZERO };
    let (outcome, took, _) = collect_emulated(one_long_first_call(), Some(idle)).await;
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing for 30 s"));
    assert_eq!(took, SILENCE);
}

#[tokio::test(start_paused = true)]
async fn an_emulated_board_that_computes_but_never_speaks_is_given_up_at_the_longest_silence() {
    // The core computes for ever, but nothing reaches the host (a broken
    // console): the wait has an end.
    let mut script: Vec<_> = at_once(start()).collect();
    script.push((Duration::ZERO, measuring(0, 0, 0)));
    let computing = Qemu { started: Instant::now(), halts: Duration::MAX };
    let (outcome, took, _) = collect_emulated(script, Some(computing)).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(took, LONGEST_COMPUTING_SILENCE);
    assert_eq!(
        outcome.error,
        Some(format!("the board sent nothing for {} s", LONGEST_COMPUTING_SILENCE.as_secs()))
    );
}
