use alloc::string::String;

use serde::{Deserialize, Serialize};

use crate::{Algorithm, Clock, Failure, KeyFormat, Measurement, ModelEstimate, Operation, Status, TickUnit};

/// One result row as the API, the store and the dashboard show it.
/// A figure that was not measured is `None` (JSON null), never 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub status: Status,
    pub iterations: Option<u64>,
    pub total_seconds: Option<f64>,
    pub avg_ms: Option<f64>,
    pub ops_per_sec: Option<f64>,
    pub min_ms: Option<f64>,
    pub median_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub cycles_per_op: Option<f64>,
    pub ticks_per_op: Option<f64>,
    pub tick_unit: Option<String>,
    pub bytes_per_sec: Option<f64>,
    pub heap_bytes: Option<u64>,
    pub heap_allocs: Option<u64>,
    pub stack_bytes: Option<u64>,
    pub note: Option<String>,
    /// The implementation's code and data size, where a log gives it (pqm4).
    /// Last, so the CSV export's columns before it keep their places.
    #[serde(default)]
    pub code_bytes: Option<u64>,
    /// How far below the suite's run loop a board's stack had reached by
    /// the end of this operation: its own stack, the benchmark's frame and
    /// the self-test before it ([`Measurement::stack_depth_bytes`]). What
    /// the board's "does not fit" check compares with its free stack.
    #[serde(default)]
    pub stack_depth_bytes: Option<u64>,
    /// How many samples were timed: one per call, or one per batch where
    /// calls are batched (`iterations / batch`). With `avg_ms` and
    /// `stdev_ms`, what a statistical test of two runs needs.
    #[serde(default)]
    pub samples: Option<u64>,
    /// The samples' standard deviation in milliseconds per call
    /// ([`Measurement::stdev_ticks`]); 0 where every sample was the same.
    #[serde(default)]
    pub stdev_ms: Option<f64>,
    /// On an emulated Cortex-M4, the timing model's estimate of the same
    /// calls (unit `m4-model-cycles`): never measured cycles.
    #[serde(default)]
    pub model: Option<ModelEstimate>,
    /// The samples' 10th, 90th and 99th percentiles in milliseconds per
    /// call ([`Measurement::p10_ticks`]): each a sample as measured, said
    /// only where there were samples enough for it to be neither min nor max.
    #[serde(default)]
    pub p10_ms: Option<f64>,
    #[serde(default)]
    pub p90_ms: Option<f64>,
    #[serde(default)]
    pub p99_ms: Option<f64>,
    /// The form of the key the timed calls were given ([`KeyFormat`]).
    #[serde(default)]
    pub key_format: Option<KeyFormat>,
}

impl BenchResult {
    /// A result with its names and status and no figure yet, for a
    /// producer to fill in what it measured.
    pub fn unmeasured(algorithm: Algorithm, operation: Operation, status: Status) -> Self {
        BenchResult {
            algorithm,
            operation,
            status,
            iterations: None,
            total_seconds: None,
            avg_ms: None,
            ops_per_sec: None,
            min_ms: None,
            median_ms: None,
            max_ms: None,
            cycles_per_op: None,
            ticks_per_op: None,
            tick_unit: None,
            bytes_per_sec: None,
            heap_bytes: None,
            heap_allocs: None,
            stack_bytes: None,
            note: None,
            code_bytes: None,
            stack_depth_bytes: None,
            samples: None,
            stdev_ms: None,
            model: None,
            p10_ms: None,
            p90_ms: None,
            p99_ms: None,
            key_format: None,
        }
    }

    /// Derives the shown figures from what a board counted, with the board's clock.
    pub fn from_measurement(m: &Measurement, clock: &Clock) -> Self {
        let memory = |v: Option<u32>| v.map(u64::from);
        let mut result = BenchResult {
            heap_bytes: memory(m.heap_bytes),
            heap_allocs: memory(m.heap_allocs),
            stack_bytes: memory(m.stack_bytes),
            stack_depth_bytes: memory(m.stack_depth_bytes),
            ..BenchResult::unmeasured(m.algorithm, m.operation, m.status)
        };
        match m.status {
            Status::Ok if m.iterations > 0 && clock.ticks_per_second > 0 => {}
            Status::DoesNotFit => {
                result.note = m.needed_bytes.map(|n| alloc::format!("does not fit (needs {n} bytes)"));
                return result;
            }
            Status::Failed => {
                result.note = m.failure.map(|failure| String::from(failure_note(failure)));
                return result;
            }
            _ => return result,
        }
        let tps = clock.ticks_per_second as f64;
        let iterations = f64::from(m.iterations);
        let ticks_to_ms = |t: u64| t as f64 * 1000.0 / tps;
        let total_seconds = m.total_ticks as f64 / tps;
        let ticks_per_op = m.total_ticks as f64 / iterations;
        result.iterations = Some(u64::from(m.iterations));
        result.total_seconds = Some(total_seconds);
        result.avg_ms = Some(total_seconds * 1000.0 / iterations);
        result.ops_per_sec = (total_seconds > 0.0).then(|| iterations / total_seconds);
        result.min_ms = Some(ticks_to_ms(m.min_ticks));
        result.median_ms = Some(ticks_to_ms(m.median_ticks));
        result.max_ms = Some(ticks_to_ms(m.max_ticks));
        result.samples = Some(u64::from(m.iterations / m.batch.unwrap_or(1).max(1)));
        result.stdev_ms = m.stdev_ticks.map(ticks_to_ms);
        result.p10_ms = m.p10_ticks.map(ticks_to_ms);
        result.p90_ms = m.p90_ticks.map(ticks_to_ms);
        result.p99_ms = m.p99_ticks.map(ticks_to_ms);
        result.key_format = m.key_format;
        result.ticks_per_op = Some(ticks_per_op);
        result.tick_unit = Some(alloc::format!("{}", clock.unit));
        result.cycles_per_op = (clock.unit == TickUnit::Cycles).then_some(ticks_per_op);
        result.bytes_per_sec = match (m.bytes_per_op, result.ops_per_sec) {
            (Some(bytes), Some(ops)) => Some(f64::from(bytes) * ops),
            _ => None,
        };
        if let Some(calls) = m.batch.filter(|&calls| calls > 1) {
            result.note =
                Some(alloc::format!("min, median and max are means of {calls}-call batches (coarse timer)"));
        }
        result
    }
}

/// What a failed self-test means, for the result's note: why no figure of
/// the operation can be trusted.
pub fn failure_note(failure: Failure) -> &'static str {
    match failure {
        Failure::KnownAnswer => {
            "self-test failed: an output differs from its known answer (the implementation computes something else)"
        }
        Failure::RoundTrip => "self-test failed: a round trip did not agree or a tampered input was accepted",
    }
}

impl BenchResult {
    /// The first derived figure that is not a finite, non-negative number,
    /// by its field name; `None` when all are sound (or absent). The store
    /// and every chart assume they are.
    pub fn unsound_figure(&self) -> Option<&'static str> {
        [
            ("total_seconds", self.total_seconds),
            ("avg_ms", self.avg_ms),
            ("ops_per_sec", self.ops_per_sec),
            ("min_ms", self.min_ms),
            ("median_ms", self.median_ms),
            ("max_ms", self.max_ms),
            ("stdev_ms", self.stdev_ms),
            ("p10_ms", self.p10_ms),
            ("p90_ms", self.p90_ms),
            ("p99_ms", self.p99_ms),
            ("cycles_per_op", self.cycles_per_op),
            ("ticks_per_op", self.ticks_per_op),
            ("bytes_per_sec", self.bytes_per_sec),
        ]
        .into_iter()
        .find(|(_, figure)| figure.is_some_and(|v| !v.is_finite() || v < 0.0))
        .map(|(name, _)| name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(total: u64, iterations: u32) -> Measurement {
        Measurement {
            iterations,
            total_ticks: total,
            min_ticks: total / u64::from(iterations) - 1,
            median_ticks: total / u64::from(iterations),
            max_ticks: total / u64::from(iterations) + 1,
            heap_bytes: Some(4736),
            heap_allocs: Some(3),
            stack_bytes: Some(27_712),
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        }
    }

    #[test]
    fn qemu_ticks_are_never_cycles() {
        let clock = Clock { ticks_per_second: 25_000_000, unit: TickUnit::QemuInstructions { per_tick: 40 } };
        let r = BenchResult::from_measurement(&measured(2_500_000, 10), &clock);
        assert_eq!(r.cycles_per_op, None);
        assert_eq!(r.ticks_per_op, Some(250_000.0));
        assert_eq!(r.tick_unit.as_deref(), Some("qemu-instructions/40"));
        assert_eq!(r.total_seconds, Some(0.1));
        assert_eq!(r.avg_ms, Some(10.0));
        assert_eq!(r.ops_per_sec, Some(100.0));
        assert_eq!(r.heap_bytes, Some(4736));
    }

    #[test]
    fn cycle_counters_give_cycles_per_op() {
        let clock = Clock { ticks_per_second: 180_000_000, unit: TickUnit::Cycles };
        let r = BenchResult::from_measurement(&measured(1_800_000, 3), &clock);
        assert_eq!(r.cycles_per_op, Some(600_000.0));
        assert_eq!(r.median_ms, Some(600_000.0 * 1000.0 / 180_000_000.0));
    }

    #[test]
    fn batched_results_say_their_spread_is_of_batch_means() {
        let clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };
        let m = Measurement { batch: Some(7), iterations: 21, ..measured(2_100_000, 21) };
        assert!(m.is_consistent());
        let r = BenchResult::from_measurement(&m, &clock);
        assert_eq!(r.iterations, Some(21));
        assert_eq!(r.note.as_deref(), Some("min, median and max are means of 7-call batches (coarse timer)"));
        assert_eq!(BenchResult::from_measurement(&measured(2_100_000, 21), &clock).note, None);
        assert!(!Measurement { batch: Some(4), ..m }.is_consistent(), "21 calls are not whole batches of 4");
    }

    #[test]
    fn untimed_results_have_no_figures() {
        let clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };
        let mut m = Measurement::untimed(Algorithm::MlDsa65, Operation::Sign, Status::DoesNotFit);
        m.needed_bytes = Some(102_912);
        let r = BenchResult::from_measurement(&m, &clock);
        assert_eq!(r.ops_per_sec, None);
        assert_eq!(r.iterations, None);
        assert_eq!(r.note.as_deref(), Some("does not fit (needs 102912 bytes)"));
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["avg_ms"].is_null());
        assert_eq!(json["status"], "does_not_fit");
    }

    #[test]
    fn a_failed_result_says_which_self_test_failed() {
        let clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };
        let mut m = Measurement::untimed(Algorithm::MlKem768, Operation::Encaps, Status::Failed);
        assert_eq!(BenchResult::from_measurement(&m, &clock).note, None, "a board that predates reasons");
        m.failure = Some(Failure::KnownAnswer);
        assert!(m.is_consistent());
        let r = BenchResult::from_measurement(&m, &clock);
        assert_eq!(r.note.as_deref(), Some(failure_note(Failure::KnownAnswer)));
        assert_eq!((r.iterations, r.avg_ms), (None, None));
        let json = serde_json::to_value(m).unwrap();
        assert_eq!(json["failure"], "known_answer");
        assert_eq!(serde_json::from_value::<Measurement>(json).unwrap(), m);
        // Only a failed result says why it failed.
        assert!(!Measurement { status: Status::Skipped, ..m }.is_consistent());
    }

    #[test]
    fn tick_units_read_back() {
        for unit in [
            TickUnit::Cycles,
            TickUnit::Nanoseconds,
            TickUnit::QemuInstructions { per_tick: 40 },
            TickUnit::QemuTicks,
        ] {
            assert_eq!(TickUnit::parse(&alloc::format!("{unit}")), Ok(unit));
        }
        assert!(TickUnit::parse("qemu-instructions/0").is_err());
        assert!(TickUnit::parse("qemu-instructions/").is_err());
    }

    #[test]
    fn consistency_catches_impossible_figures() {
        assert!(measured(1000, 10).is_consistent());
        let mut m = measured(1000, 10);
        m.min_ticks = 500;
        assert!(!m.is_consistent());
        let mut m = measured(1000, 10);
        m.iterations = 0;
        assert!(!m.is_consistent());
    }
}
