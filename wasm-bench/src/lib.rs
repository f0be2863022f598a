//! The shared suite in a browser: `run_suite` runs in a Web Worker (it
//! blocks its thread for the whole run) and returns an [`Upload`] as JSON,
//! ready for `POST /api/uploads`.

mod memory;

use std::collections::BTreeMap;

use js_sys::{Function, Object, Reflect};
use pqbench_suite::{MemoryUse, Platform, Reporter, Settings};
use pqbench_types::{Algorithm, Build, Clock, Measurement, Operation, Source, TickUnit, Upload};
use wasm_bindgen::prelude::*;
use web_sys::{Performance, WorkerGlobalScope};

/// Per-call samples of one operation; bounds its iterations (512 KiB).
const MAX_SAMPLES: usize = 1 << 16;

const CLOCK: Clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };

/// Runs the suite on `algorithms` (contract names; empty for every one the
/// suite measures), calling `on_progress({algorithm, operation, index,
/// total})` before each operation, and returns the `Upload` JSON.
#[wasm_bindgen]
pub fn run_suite(
    algorithms: Vec<String>,
    min_iterations: u32,
    min_time_ms: u32,
    on_progress: &Function,
) -> Result<String, JsError> {
    let selected = select(&algorithms)?;
    let scope: WorkerGlobalScope =
        js_sys::global().dyn_into().map_err(|_| JsError::new("run_suite must be called in a Web Worker"))?;
    let performance =
        scope.performance().ok_or_else(|| JsError::new("this worker has no performance clock"))?;

    let mut platform = Browser { performance };
    let mut reporter = Collector { on_progress, measurements: Vec::new(), callback_error: None };
    let settings = Settings { min_iterations, min_time_ms };
    let mut samples = vec![0u64; MAX_SAMPLES];
    pqbench_suite::run(&mut platform, &mut reporter, &settings, |a| selected.contains(&a), &mut samples);
    if let Some(error) = reporter.callback_error {
        return Err(JsError::new(&format!("the progress callback failed: {error:?}")));
    }

    let navigator = scope.navigator();
    let user_agent = navigator.user_agent().unwrap_or_default();
    let mut extra = BTreeMap::from([
        ("user_agent".to_owned(), user_agent.clone()),
        ("hardware_concurrency".to_owned(), navigator.hardware_concurrency().to_string()),
    ]);
    // Browsers coarsen performance.now() unless the page is isolated
    // (web-sys has no binding for this flag).
    if let Some(isolated) = Reflect::get(&scope, &"crossOriginIsolated".into()).ok().and_then(|v| v.as_bool())
    {
        extra.insert("cross_origin_isolated".to_owned(), isolated.to_string());
    }
    if let Some(step) = timer_resolution_ns(&mut platform) {
        extra.insert("timer_resolution_ns".to_owned(), step.to_string());
    }
    let upload = Upload {
        source: Source::Browser,
        board: format!("browser:{:08x}", fnv1a(user_agent.as_bytes())),
        ticks_per_second: CLOCK.ticks_per_second,
        tick_unit: CLOCK.unit.to_string(),
        clock_hz: None,
        build: build(extra),
        measurements: reporter.measurements,
    };
    serde_json::to_string(&upload).map_err(|e| JsError::new(&format!("cannot encode the upload: {e}")))
}

/// The algorithms named, each checked to be a contract name the suite measures.
fn select(names: &[String]) -> Result<Vec<Algorithm>, JsError> {
    let measured = || {
        let mut all: Vec<&str> = pqbench_suite::CATALOGUE.iter().map(|(a, _)| a.as_str()).collect();
        all.dedup();
        all.join(", ")
    };
    if names.is_empty() {
        return Ok(Algorithm::ALL.iter().copied().filter(|&a| pqbench_suite::supports(a)).collect());
    }
    names
        .iter()
        .map(|name| match Algorithm::from_name(name) {
            Ok(a) if pqbench_suite::supports(a) => Ok(a),
            Ok(_) => Err(JsError::new(&format!(
                "{name} is not measured in the browser yet; choose from {}",
                measured()
            ))),
            Err(_) => Err(JsError::new(&format!("unknown algorithm {name:?}; choose from {}", measured()))),
        })
        .collect()
}

struct Browser {
    performance: Performance,
}

impl Platform for Browser {
    fn clock(&self) -> Clock {
        CLOCK
    }

    fn now(&mut self) -> u64 {
        // Milliseconds as a float, exact to well under a nanosecond for any
        // page lifetime a benchmark sees.
        (self.performance.now() * 1e6).round() as u64
    }

    fn memory_start(&mut self) {
        memory::start();
    }

    fn memory_stop(&mut self) -> MemoryUse {
        memory::stop()
    }
}

struct Collector<'a> {
    on_progress: &'a Function,
    measurements: Vec<Measurement>,
    /// The first exception the callback threw; the run goes on regardless.
    callback_error: Option<JsValue>,
}

impl Reporter for Collector<'_> {
    fn begin(&mut self, _operations: u32) {}

    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32) {
        let event = Object::new();
        let fields: [(&str, JsValue); 4] = [
            ("algorithm", algorithm.as_str().into()),
            ("operation", operation.as_str().into()),
            ("index", index.into()),
            ("total", total.into()),
        ];
        for (key, value) in fields {
            // Cannot fail: a plain object with no setters.
            let _ = Reflect::set(&event, &key.into(), &value);
        }
        if let Err(error) = self.on_progress.call1(&JsValue::NULL, &event) {
            self.callback_error.get_or_insert(error);
        }
    }

    fn result(&mut self, measurement: &Measurement) {
        self.measurements.push(*measurement);
    }

    fn end(&mut self, _results: u32) {}
}

/// The smallest non-zero step of the clock: browsers coarsen and jitter
/// performance.now() (5 µs isolated, 100 µs otherwise in Chromium).
fn timer_resolution_ns(platform: &mut Browser) -> Option<u64> {
    const STEPS: u32 = 50;
    const BUDGET_NS: u64 = 50_000_000;
    let start = platform.now();
    let mut last = start;
    let mut smallest = None;
    let mut steps = 0;
    while steps < STEPS && last - start < BUDGET_NS {
        let now = platform.now();
        if now > last {
            smallest = Some(smallest.map_or(now - last, |s: u64| s.min(now - last)));
            steps += 1;
            last = now;
        }
    }
    smallest
}

/// 32-bit FNV-1a: a short, stable board id for a user agent.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &b| (hash ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

fn build(extra: BTreeMap<String, String>) -> Build {
    Build { extra, ..pqbench_types::compiled_build!() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference() {
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a(b"foobar"), 0xbf9c_f968);
    }
}
