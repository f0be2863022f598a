//! An emulated Cortex-M4's times as the timing model estimates them at the
//! clock of the board it stands for (168 or 180 MHz, the user's choice):
//! how an emulated run is set beside a real board or a browser, as an
//! estimate. Without it, its times are QEMU's emulated nanoseconds, which
//! say nothing of a chip.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::{BenchResult, MODEL_CYCLES_UNIT, ResultRow};

/// How an estimate at `clock_hz` is named wherever it is shown. The model
/// charges no flash wait state (as pqm4 measures, at 24 MHz), though an F4
/// at 168 or 180 MHz runs with 5: the times are those of a chip whose code
/// never waits for its flash (an accelerator that always hits), and the
/// name says so rather than apply a chip's wait states the model's cycles
/// were not counted with.
pub fn label(clock_hz: u64) -> String {
    format!("estimated (M4 model, zero wait states) at {} MHz", clock_hz as f64 / 1e6)
}

/// `r`'s times from its timing-model estimate at `clock_hz`: average,
/// ops/s, min, median, max, spread and throughput, with the estimated
/// cycles as its ticks (`m4-model-cycles`) and a note that says so. `None`
/// for a result without an estimate.
pub fn at_clock(r: &BenchResult, clock_hz: u64) -> Option<BenchResult> {
    let model = r.model.as_ref()?;
    if clock_hz == 0 || model.cycles_per_op <= 0.0 {
        return None;
    }
    let ms = |cycles: f64| cycles / clock_hz as f64 * 1000.0;
    let avg_ms = ms(model.cycles_per_op);
    let said = label(clock_hz);
    Some(BenchResult {
        avg_ms: Some(avg_ms),
        ops_per_sec: Some(1000.0 / avg_ms),
        min_ms: Some(ms(model.min_cycles as f64)),
        median_ms: Some(ms(model.median_cycles as f64)),
        max_ms: Some(ms(model.max_cycles as f64)),
        stdev_ms: model.stdev_cycles.map(|s| ms(s as f64)),
        total_seconds: None,
        // The same bytes a call, in the estimated time of a call.
        bytes_per_sec: r.bytes_per_sec.zip(r.avg_ms).map(|(rate, emulated_ms)| rate * emulated_ms / avg_ms),
        ticks_per_op: Some(model.cycles_per_op),
        tick_unit: Some(String::from(MODEL_CYCLES_UNIT)),
        note: Some(match &r.note {
            Some(note) => format!("{said}; {note}"),
            None => said,
        }),
        ..r.clone()
    })
}

/// Whether a result's times are the timing model's estimate ([`at_clock`]).
pub fn is_estimated(r: &BenchResult) -> bool {
    r.tick_unit.as_deref() == Some(MODEL_CYCLES_UNIT)
}

/// The results a matrix shows: with a model clock chosen, every result
/// with an estimate has its times at that clock; the rest as stored.
pub fn shown(results: &[ResultRow], clock_hz: Option<u64>) -> Cow<'_, [ResultRow]> {
    let Some(clock_hz) = clock_hz else { return Cow::Borrowed(results) };
    let estimated: Vec<ResultRow> = results
        .iter()
        .map(|row| match at_clock(&row.result, clock_hz) {
            Some(result) => ResultRow { result, ..row.clone() },
            None => row.clone(),
        })
        .collect();
    Cow::Owned(estimated)
}

#[cfg(test)]
mod tests {
    use pqbench_types::{Algorithm, ModelEstimate, Operation, Status};

    use super::*;

    #[test]
    fn an_estimate_at_a_clock_is_its_cycles_over_the_clock_and_says_so() {
        let emulated = BenchResult {
            avg_ms: Some(0.5),
            bytes_per_sec: Some(2_048_000.0),
            ticks_per_op: Some(12_000.0),
            tick_unit: Some("qemu-instructions/40".into()),
            model: Some(ModelEstimate {
                cycles_per_op: 1_680_000.0,
                min_cycles: 1_512_000,
                median_cycles: 1_680_000,
                max_cycles: 3_360_000,
                stdev_cycles: Some(168_000),
                samples: 10,
                hashing_share: Some(0.5),
                hashing_share_per_call: None,
                harness: Vec::new(),
                functions: Vec::new(),
                parameters: "refill=2,divide=7,wait_states=0".into(),
            }),
            ..BenchResult::unmeasured(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        };
        let at = at_clock(&emulated, 168_000_000).unwrap();
        assert_eq!(at.avg_ms, Some(10.0));
        assert_eq!(at.ops_per_sec, Some(100.0));
        assert_eq!(
            (at.min_ms, at.median_ms, at.max_ms, at.stdev_ms),
            (Some(9.0), Some(10.0), Some(20.0), Some(1.0))
        );
        assert_eq!(at.bytes_per_sec, Some(102_400.0));
        assert!(is_estimated(&at) && !is_estimated(&emulated));
        assert_eq!(at.note.as_deref(), Some("estimated (M4 model, zero wait states) at 168 MHz"));
        assert_eq!(at_clock(&BenchResult { model: None, ..emulated }, 168_000_000), None);
    }
}
