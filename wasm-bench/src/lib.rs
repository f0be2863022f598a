//! The shared suite in a browser: `run_suite` runs in a Web Worker (it
//! blocks its thread for the whole run) and returns an [`Upload`] as JSON,
//! ready for `POST /api/uploads`.

mod memory;
mod peers;

use std::collections::BTreeMap;

use js_sys::{Function, Object, Reflect};
use pqbench_api::Upload;
use pqbench_suite::{MemoryUse, Platform, Reporter, Settings};
use pqbench_types::{
    Algorithm, BROWSER_RUN, Build, Clock, Measurement, Measuring, Operation, Source, TickUnit,
};
use wasm_bindgen::prelude::*;
use web_sys::{Performance, WorkerGlobalScope};

/// Per-call samples of one operation; bounds its iterations (512 KiB).
const MAX_SAMPLES: usize = 1 << 16;

const CLOCK: Clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };

/// Runs the suite on `algorithms` (contract names; empty for every one the
/// suite measures), calling `on_progress({algorithm, operation, index,
/// total})` before each operation, and returns the `Upload` JSON.
/// `browser_run`: the page's token for this press of its button, shared
/// with the other implementations it measures ([`BROWSER_RUN`]).
#[wasm_bindgen]
pub fn run_suite(
    algorithms: Vec<String>,
    min_iterations: u32,
    min_time_ms: u32,
    on_progress: &Function,
    browser_run: Option<String>,
) -> Result<String, JsError> {
    let selected = select(&algorithms)?;
    let scope: WorkerGlobalScope =
        js_sys::global().dyn_into().map_err(|_| JsError::new("run_suite must be called in a Web Worker"))?;
    let performance =
        scope.performance().ok_or_else(|| JsError::new("this worker has no performance clock"))?;

    let mut platform = Browser { performance, resolution_ns: 1 };
    // Measured before the run: calls quicker than a few hundred of its
    // steps are then timed in batches.
    let resolution = timer_resolution_ns(&mut platform);
    platform.resolution_ns = resolution.unwrap_or(1);
    let mut reporter = Collector { on_progress, measurements: Vec::new(), callback_error: None };
    let settings = Settings { min_iterations, min_time_ms };
    let mut samples = vec![0u64; MAX_SAMPLES];
    pqbench_suite::run(&mut platform, &mut reporter, &settings, |a| selected.contains(&a), &mut samples);
    if let Some(error) = reporter.callback_error {
        return Err(JsError::new(&format!("the progress callback failed: {error:?}")));
    }

    let mut extra = browser_extra(&scope, resolution, browser_run);
    extra.insert("wasm_features".to_owned(), wasm_features().join(","));
    upload_json(&scope, build(extra), reporter.measurements, Vec::new())
}

/// A run measured in this browser with our clock, as `POST /api/uploads` takes it.
fn upload_json(
    scope: &WorkerGlobalScope,
    build: Build,
    measurements: Vec<Measurement>,
    notes: Vec<pqbench_api::UploadNote>,
) -> Result<String, JsError> {
    let upload = Upload {
        source: Source::Browser,
        board: board_of(scope),
        ticks_per_second: CLOCK.ticks_per_second,
        tick_unit: CLOCK.unit,
        clock_hz: None,
        build,
        measurements,
        notes,
    };
    // Checked here as the server will check it, so that a mistake says
    // what is wrong before anything is sent.
    upload.check().map_err(|e| JsError::new(&e.to_string()))?;
    serde_json::to_string(&upload).map_err(|e| JsError::new(&format!("cannot encode the upload: {e}")))
}

/// This browser as a board: every implementation measured in it is a
/// build of this one board.
fn board_of(scope: &WorkerGlobalScope) -> String {
    let user_agent = scope.navigator().user_agent().unwrap_or_default();
    format!("browser:{:08x}", fnv1a(user_agent.as_bytes()))
}

/// What a build measured in this browser says of the browser: its user
/// agent, name and version, OS, cores, isolation and timer step.
fn browser_extra(
    scope: &WorkerGlobalScope,
    resolution: Option<u64>,
    browser_run: Option<String>,
) -> BTreeMap<String, String> {
    let navigator = scope.navigator();
    let user_agent = navigator.user_agent().unwrap_or_default();
    let mut extra = BTreeMap::from([
        ("user_agent".to_owned(), user_agent.clone()),
        ("hardware_concurrency".to_owned(), navigator.hardware_concurrency().to_string()),
    ]);
    if let Some(browser) = browser_of(&user_agent) {
        extra.insert("browser".to_owned(), browser);
    }
    if let Some(os) = os_of(&user_agent) {
        extra.insert("os".to_owned(), os.to_owned());
    }
    // Browsers coarsen performance.now() unless the page is isolated
    // (web-sys has no binding for this flag).
    if let Some(isolated) = Reflect::get(scope, &"crossOriginIsolated".into()).ok().and_then(|v| v.as_bool())
    {
        extra.insert("cross_origin_isolated".to_owned(), isolated.to_string());
    }
    if let Some(step) = resolution {
        extra.insert("timer_resolution_ns".to_owned(), step.to_string());
    }
    if let Some(token) = browser_run {
        extra.insert(BROWSER_RUN.to_owned(), token);
    }
    extra
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
    /// The clock's smallest step, in nanoseconds.
    resolution_ns: u64,
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

    fn timer_resolution(&self) -> u64 {
        self.resolution_ns
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

    /// Ignored: the page waits for the run without a silence limit, and
    /// its callback reports progress per operation.
    fn measuring(&mut self, _status: &Measuring) {}

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

/// The WebAssembly features this build was compiled to use: what the
/// browser had to support, and part of what its figures depend on.
fn wasm_features() -> Vec<&'static str> {
    [
        ("simd128", cfg!(target_feature = "simd128")),
        ("relaxed-simd", cfg!(target_feature = "relaxed-simd")),
        ("bulk-memory", cfg!(target_feature = "bulk-memory")),
        ("sign-ext", cfg!(target_feature = "sign-ext")),
        ("nontrapping-fptoint", cfg!(target_feature = "nontrapping-fptoint")),
        ("mutable-globals", cfg!(target_feature = "mutable-globals")),
        ("multivalue", cfg!(target_feature = "multivalue")),
        ("reference-types", cfg!(target_feature = "reference-types")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect()
}

/// The browser and its version from a user agent, e.g. `Chrome 131.0.6778.85`.
/// Order matters: Edge and Opera also say Chrome, Chrome also says Safari.
fn browser_of(user_agent: &str) -> Option<String> {
    let version_after = |token: &str| {
        let start = user_agent.find(token)? + token.len();
        let version: String =
            user_agent[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        (!version.is_empty()).then_some(version)
    };
    [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("HeadlessChrome/", "Headless Chrome"),
        ("Chrome/", "Chrome"),
        ("Version/", "Safari"),
    ]
    .into_iter()
    .find_map(|(token, name)| version_after(token).map(|version| format!("{name} {version}")))
}

/// The operating system a user agent names.
fn os_of(user_agent: &str) -> Option<&'static str> {
    [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find_map(|(token, name)| user_agent.contains(token).then_some(name))
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
    fn user_agents_name_their_browser_and_os() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                      HeadlessChrome/131.0.6778.85 Safari/537.36";
        assert_eq!(browser_of(chrome).as_deref(), Some("Headless Chrome 131.0.6778.85"));
        assert_eq!(os_of(chrome), Some("Linux"));
        let firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
        assert_eq!(browser_of(firefox).as_deref(), Some("Firefox 133.0"));
        assert_eq!(os_of(firefox), Some("Windows"));
        let safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 \
                      (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
        assert_eq!(browser_of(safari).as_deref(), Some("Safari 18.1"));
        assert_eq!(os_of(safari), Some("iOS"));
        assert_eq!(browser_of("curl/8.5"), None);
    }

    #[test]
    fn fnv1a_matches_the_reference() {
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a(b"foobar"), 0xbf9c_f968);
    }
}
