//! The marks an outside observer (the emulated boards' timing model) reads
//! a measurement by: their order, and that they enclose exactly the
//! reported samples.

extern crate std;

use std::cell::RefCell;
use std::rc::Rc;
use std::vec::Vec;

use pqbench_types::{Clock, Measurement, Measuring, Status, TickUnit};

use super::super::*;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    Mark(Mark, u64),
    Result(Measurement),
}

type Log = Rc<RefCell<Vec<Event>>>;

/// A clock that steps 5 ticks a reading, or with `coarse` the real time in
/// 20 µs steps (so that quick calls are timed in batches); every mark and
/// result goes in `log`.
struct Observed {
    ticks: u64,
    coarse: Option<std::time::Instant>,
    log: Log,
}

const COARSE_NS: u64 = 20_000;

impl Platform for Observed {
    fn clock(&self) -> Clock {
        Clock { ticks_per_second: 1000, unit: TickUnit::Nanoseconds }
    }
    fn now(&mut self) -> u64 {
        self.ticks = match self.coarse {
            Some(start) => start.elapsed().as_nanos() as u64 / COARSE_NS * COARSE_NS,
            None => self.ticks + 5,
        };
        self.ticks
    }
    fn timer_resolution(&self) -> u64 {
        if self.coarse.is_some() { COARSE_NS } else { 1 }
    }
    fn mark(&mut self, mark: Mark) {
        self.log.borrow_mut().push(Event::Mark(mark, self.ticks));
    }
    fn memory_start(&mut self) {}
    fn memory_stop(&mut self) -> MemoryUse {
        MemoryUse::default()
    }
}

struct Results(Log);

impl Reporter for Results {
    fn begin(&mut self, _: u32) {}
    fn progress(&mut self, _: Algorithm, _: Operation, _: u32, _: u32) {}
    fn measuring(&mut self, _: &Measuring) {}
    fn result(&mut self, m: &Measurement) {
        self.0.borrow_mut().push(Event::Result(*m));
    }
    fn end(&mut self, _: u32) {}
}

/// Each measured operation: OperationStart, then per reported sample a
/// SampleStart and SampleEnd two clock readings apart, then OperationEnd,
/// then its record; nothing marked between an OperationEnd and the next
/// record.
fn check_marks(coarse: bool) -> Vec<Measurement> {
    let log: Log = Rc::default();
    let mut platform = Observed { ticks: 0, coarse: coarse.then(std::time::Instant::now), log: log.clone() };
    let settings = Settings { min_iterations: 3, min_time_ms: 0 };
    // With the coarse clock SHA-256 alone: its calls are quick enough to be
    // batched, and ML-KEM's would be sized in batches for long in a debug build.
    let selected = |a: Algorithm| a == Algorithm::Sha256 || (!coarse && a == Algorithm::MlKem512);
    run(&mut platform, &mut Results(log.clone()), &settings, selected, &mut [0; 64]);

    let events = log.borrow();
    let mut results = Vec::new();
    let mut since_result: Vec<(Mark, u64)> = Vec::new();
    for event in events.iter() {
        match *event {
            Event::Mark(mark, ticks) => since_result.push((mark, ticks)),
            Event::Result(measurement) => {
                results.push(measurement);
                assert_eq!(measurement.status, Status::Ok);
                // Batch sizing (coarse clock) may come first, unmarked as
                // an operation: the operation is what follows its start.
                let start = since_result.iter().rposition(|(m, _)| *m == Mark::OperationStart).unwrap();
                let operation = &since_result[start..];
                assert_eq!(operation.last().map(|(m, _)| *m), Some(Mark::OperationEnd));
                let samples = &operation[1..operation.len() - 1];
                let reported = measurement.iterations / measurement.batch.unwrap_or(1);
                assert_eq!(samples.len() as u32, 2 * reported, "{measurement:?}");
                for pair in samples.chunks(2) {
                    assert_eq!(pair[0].0, Mark::SampleStart);
                    assert_eq!(pair[1].0, Mark::SampleEnd);
                    if !coarse {
                        assert_eq!(pair[1].1 - pair[0].1, 2 * 5, "two clock readings between");
                    }
                }
                since_result.clear();
            }
        }
    }
    assert!(since_result.is_empty());
    results
}

#[test]
fn each_measured_operation_is_marked_around_exactly_its_samples() {
    let results = check_marks(false);
    assert_eq!(results.len(), 4, "ML-KEM-512's three operations and SHA-256's hash");
}

#[test]
fn batch_sizing_comes_before_the_operation_is_marked() {
    let results = check_marks(true);
    assert!(results[0].batch.is_some_and(|calls| calls > 1), "{results:?}");
}
