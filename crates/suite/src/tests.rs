extern crate std;
use std::vec::Vec;

use pqbench_types::{Clock, Measurement, Status, TickUnit};

use super::*;

/// A clock that advances a fixed step per reading, and memory probes that
/// report what they were told: enough to check the suite's own arithmetic.
struct SteppingPlatform {
    ticks: u64,
    step: u64,
    memory_windows: u32,
}

impl Platform for SteppingPlatform {
    fn clock(&self) -> Clock {
        Clock {
            ticks_per_second: 1000,
            unit: TickUnit::Nanoseconds,
        }
    }
    fn now(&mut self) -> u64 {
        self.ticks += self.step;
        self.ticks
    }
    fn memory_start(&mut self) {
        self.memory_windows += 1;
    }
    fn memory_stop(&mut self) -> MemoryUse {
        MemoryUse {
            heap_bytes: Some(64),
            heap_allocs: Some(1),
            stack_bytes: None,
        }
    }
}

#[derive(Default)]
struct Collected {
    begun: Option<u32>,
    progress: Vec<(Algorithm, Operation, u32, u32)>,
    results: Vec<Measurement>,
    ended: Option<u32>,
}

impl Reporter for Collected {
    fn begin(&mut self, operations: u32) {
        self.begun = Some(operations);
    }
    fn progress(&mut self, a: Algorithm, o: Operation, index: u32, total: u32) {
        self.progress.push((a, o, index, total));
    }
    fn result(&mut self, m: &Measurement) {
        self.results.push(*m);
    }
    fn end(&mut self, results: u32) {
        self.ended = Some(results);
    }
}

fn run_ml_kem_768(settings: Settings, samples: &mut [u64]) -> (SteppingPlatform, Collected) {
    let mut platform = SteppingPlatform {
        ticks: 0,
        step: 5,
        memory_windows: 0,
    };
    let mut collected = Collected::default();
    run(
        &mut platform,
        &mut collected,
        &settings,
        |a| a == Algorithm::MlKem768,
        samples,
    );
    (platform, collected)
}

#[test]
fn ml_kem_768_reports_three_timed_operations_in_order() {
    let (platform, got) = run_ml_kem_768(
        Settings {
            min_iterations: 4,
            min_time_ms: 0,
        },
        &mut [0; 16],
    );
    assert_eq!(got.begun, Some(3));
    assert_eq!(got.ended, Some(3));
    assert_eq!(platform.memory_windows, 3);
    let ops: Vec<_> = got
        .results
        .iter()
        .map(|m| (m.algorithm, m.operation, m.status))
        .collect();
    assert_eq!(
        ops,
        [
            (Algorithm::MlKem768, Operation::Keygen, Status::Ok),
            (Algorithm::MlKem768, Operation::Encaps, Status::Ok),
            (Algorithm::MlKem768, Operation::Decaps, Status::Ok),
        ]
    );
    assert_eq!(
        got.progress[2],
        (Algorithm::MlKem768, Operation::Decaps, 3, 3)
    );
    for m in &got.results {
        // Each call is timed between two readings of the stepping clock.
        assert_eq!(
            (m.iterations, m.total_ticks, m.min_ticks, m.max_ticks),
            (4, 20, 5, 5)
        );
        assert_eq!(m.heap_bytes, Some(64));
        assert!(m.is_consistent());
    }
}

#[test]
fn minimum_time_extends_iterations_up_to_the_sample_capacity() {
    // 1000 ticks per second: 50 ms is 50 ticks, 10 calls of 5 ticks.
    let (_, got) = run_ml_kem_768(
        Settings {
            min_iterations: 1,
            min_time_ms: 50,
        },
        &mut [0; 64],
    );
    assert!(
        got.results.iter().all(|m| m.iterations == 10),
        "{:?}",
        got.results
    );
    let (_, got) = run_ml_kem_768(
        Settings {
            min_iterations: 1,
            min_time_ms: 50,
        },
        &mut [0; 6],
    );
    assert!(got.results.iter().all(|m| m.iterations == 6));
}

#[test]
fn no_sample_room_is_skipped_not_faked() {
    let (_, got) = run_ml_kem_768(Settings::default(), &mut []);
    assert!(
        got.results
            .iter()
            .all(|m| m.status == Status::Skipped && m.iterations == 0)
    );
}

#[test]
fn median_is_a_measured_sample() {
    assert_eq!(measure_median(&[1, 2, 3, 4]), 2);
    assert_eq!(measure_median(&[7]), 7);
    assert_eq!(measure_median(&[1, 5, 9]), 5);
}

fn measure_median(sorted: &[u64]) -> u64 {
    measure::median(sorted)
}
