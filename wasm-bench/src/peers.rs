//! What the peers worker (`www/peers.js`) asks of pqbench's wasm when it
//! measures another implementation in this browser (its WebCrypto, a
//! JavaScript library): our ML-KEM/ML-DSA, X-Wing and SLH-DSA on their bytes, to check them
//! before timing; the timing itself, by the suite's own [`Rule`] on the
//! same clock as our run; and the finished [`Upload`], as a build of this
//! browser's board.

use std::cell::Cell;
use std::collections::BTreeMap;

use js_sys::{Array, Function, Promise, Uint8Array};
use pqbench_api::UploadNote;
use pqbench_suite::{Platform, Rule, Settings, Sizing, interop};
use pqbench_types::{Algorithm, Build, IMPLEMENTATION, Measurement, Operation};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::WorkerGlobalScope;

use crate::{Browser, CLOCK, MAX_SAMPLES, browser_extra, timer_resolution_ns, upload_json};

fn algorithm(name: &str) -> Result<Algorithm, JsError> {
    Algorithm::from_name(name).map_err(|_| JsError::new(&format!("unknown algorithm {name:?}")))
}

fn scope() -> Result<WorkerGlobalScope, JsError> {
    js_sys::global().dyn_into().map_err(|_| JsError::new("pqbench's peers run in a Web Worker"))
}

fn pair(a: &[u8], b: &[u8]) -> Array {
    Array::of2(&Uint8Array::from(a), &Uint8Array::from(b))
}

/// The bytes of randomness our deterministic functions take for `name`:
/// `[key pair seed, encapsulation randomness]` (0 where there is none),
/// or an error for an algorithm they do not take.
fn seeds(name: &str) -> Result<(Algorithm, usize, usize), JsError> {
    let algorithm = algorithm(name)?;
    let (key, encapsulation) = interop::seed_bytes(algorithm)
        .ok_or_else(|| JsError::new(&format!("pqbench checks no peer's {name}")))?;
    Ok((algorithm, key, encapsulation))
}

fn sized<'a>(bytes: &'a [u8], length: usize, what: &str) -> Result<&'a [u8], JsError> {
    if bytes.len() == length {
        Ok(bytes)
    } else {
        Err(JsError::new(&format!("{what} must be {length} bytes, not {}", bytes.len())))
    }
}

/// Whether we check `name` against a peer's, and as a KEM or a signature:
/// `"kem"`, `"dsa"`, or undefined.
#[wasm_bindgen]
pub fn ours_kind(name: &str) -> Option<String> {
    let algorithm = Algorithm::from_name(name).ok()?;
    interop::seed_bytes(algorithm)?;
    Some(if interop::is_kem(algorithm) { "kem" } else { "dsa" }.to_string())
}

/// The seed lengths `ours_kem_key_pair`/`ours_dsa_key_pair` and
/// `ours_kem_encapsulate` take for `name`: `[key, encapsulation]`.
#[wasm_bindgen]
pub fn ours_seed_bytes(name: &str) -> Result<Array, JsError> {
    let (_, key, encapsulation) = seeds(name)?;
    Ok(Array::of2(&(key as u32).into(), &(encapsulation as u32).into()))
}

/// Our KEM key pair from its seed (ML-KEM's d || z, X-Wing's 32 bytes):
/// `[ek, dk]`.
#[wasm_bindgen]
pub fn ours_kem_key_pair(name: &str, seed: &[u8]) -> Result<Array, JsError> {
    let (algorithm, length, _) = seeds(name)?;
    let (ek, dk) = interop::kem_key_pair(algorithm, sized(seed, length, "the seed")?)
        .ok_or_else(|| JsError::new(&format!("{name} is not a KEM pqbench checks")))?;
    Ok(pair(&ek, &dk))
}

/// Our encapsulation to their key with its randomness (ML-KEM's 32-byte
/// `m`, X-Wing's 64-byte eseed): `[ciphertext, shared secret]`, or
/// undefined when we refuse their key.
#[wasm_bindgen]
pub fn ours_kem_encapsulate(name: &str, ek: &[u8], m: &[u8]) -> Result<Option<Array>, JsError> {
    let (algorithm, _, length) = seeds(name)?;
    let sent = interop::kem_encapsulate(algorithm, ek, sized(m, length, "the randomness")?);
    Ok(sent.map(|(ciphertext, shared)| pair(&ciphertext, &shared)))
}

/// Our decapsulation of their ciphertext: the shared secret, or undefined
/// when the bytes are not of this algorithm's sizes.
#[wasm_bindgen]
pub fn ours_kem_decapsulate(name: &str, dk: &[u8], ciphertext: &[u8]) -> Result<Option<Vec<u8>>, JsError> {
    Ok(interop::kem_decapsulate(algorithm(name)?, dk, ciphertext).map(Vec::from))
}

/// Our signature key pair from its seed (ML-DSA's xi, SLH-DSA's three
/// seeds): `[pk, sk]`.
#[wasm_bindgen]
pub fn ours_dsa_key_pair(name: &str, seed: &[u8]) -> Result<Array, JsError> {
    let (algorithm, length, _) = seeds(name)?;
    let (pk, sk) = interop::dsa_key_pair(algorithm, sized(seed, length, "the seed")?)
        .ok_or_else(|| JsError::new(&format!("{name} is not a signature pqbench checks")))?;
    Ok(pair(&pk, &sk))
}

/// Our deterministic signature (empty context), or undefined.
#[wasm_bindgen]
pub fn ours_dsa_sign(name: &str, sk: &[u8], message: &[u8]) -> Result<Option<Vec<u8>>, JsError> {
    Ok(interop::dsa_sign(algorithm(name)?, sk, message, [0; 32]))
}

/// Whether we accept their signature (empty context).
#[wasm_bindgen]
pub fn ours_dsa_verify(name: &str, pk: &[u8], message: &[u8], signature: &[u8]) -> Result<bool, JsError> {
    Ok(interop::dsa_verify(algorithm(name)?, pk, message, signature))
}

thread_local! {
    /// The clock's step, measured once per worker (it costs up to 50 ms).
    static RESOLUTION: Cell<Option<Option<u64>>> = const { Cell::new(None) };
}

fn browser() -> Result<(Browser, Option<u64>), JsError> {
    let performance =
        scope()?.performance().ok_or_else(|| JsError::new("this worker has no performance clock"))?;
    let mut platform = Browser { performance, resolution_ns: 1 };
    let resolution = match RESOLUTION.get() {
        Some(known) => known,
        None => {
            let measured = timer_resolution_ns(&mut platform);
            RESOLUTION.set(Some(measured));
            measured
        }
    };
    platform.resolution_ns = resolution.unwrap_or(1);
    Ok((platform, resolution))
}

/// Times `call` (no arguments) as the suite times an operation, and
/// returns the measurement as JSON. A call that returns a promise is
/// awaited before the next begins, so each timed call includes the
/// promise's round trip; one that returns anything else is not awaited.
/// Heap and stack are not measured (null): the calls run outside our wasm.
#[wasm_bindgen]
pub async fn measure_peer(
    name: String,
    operation: String,
    call: Function,
    min_iterations: u32,
    min_time_ms: u32,
) -> Result<String, JsError> {
    let algorithm = algorithm(&name)?;
    let operation = Operation::from_name(&operation)
        .map_err(|_| JsError::new(&format!("unknown operation {operation:?}")))?;
    let (mut platform, _) = browser()?;
    let rule = Rule::new(&Settings { min_iterations, min_time_ms }, &CLOCK, platform.timer_resolution());
    // Sized by the suite's own steps, its untimed warm-up call first: a
    // cold first call (the engine's first tier, WebCrypto's first key
    // import) would size the batch too small.
    let mut step = rule.start_sizing();
    let batch = loop {
        step = match step {
            Sizing::WarmUp => {
                timed_calls(&mut platform, &call, 1).await?;
                rule.after(step, 0)
            }
            Sizing::Time(calls) => {
                let elapsed = timed_calls(&mut platform, &call, calls).await?;
                rule.after(step, elapsed)
            }
            Sizing::Batch(calls) => break calls,
        }
    };
    let mut samples = Vec::new();
    let mut total = 0u64;
    while rule.more(samples.len(), total, batch, MAX_SAMPLES) {
        let elapsed = timed_calls(&mut platform, &call, batch).await?;
        // A batch's per-call mean, rounded down, as the suite keeps it.
        samples.push(elapsed / u64::from(batch));
        total += elapsed;
    }
    let measurement = pqbench_suite::summarise(algorithm, operation, &mut samples, batch, total);
    serde_json::to_string(&measurement).map_err(|e| JsError::new(&format!("cannot encode: {e}")))
}

/// The ops/s of `call` with `in_flight` calls started together and
/// awaited as a group, groups one after another, for at least
/// `min_time_ms` and 10 calls: what a page that does not await each call
/// before the next gets from a promise-returning API. Said beside the
/// awaited figure, never in its place.
#[wasm_bindgen]
pub async fn measure_in_flight(call: Function, in_flight: u32, min_time_ms: u32) -> Result<f64, JsError> {
    let (mut platform, _) = browser()?;
    let in_flight = in_flight.max(1);
    let least_ns = u64::from(min_time_ms) * 1_000_000;
    let start = platform.now();
    let mut calls = 0u64;
    loop {
        let group = Array::new();
        for _ in 0..in_flight {
            group.push(&call.call0(&JsValue::NULL).map_err(thrown)?);
        }
        JsFuture::from(Promise::all(&group)).await.map_err(thrown)?;
        calls += u64::from(in_flight);
        let elapsed = platform.now().saturating_sub(start);
        if elapsed >= least_ns && calls >= 10 && elapsed > 0 {
            return Ok(calls as f64 * 1e9 / elapsed as f64);
        }
    }
}

/// `calls` calls one after another; the nanoseconds they took together.
async fn timed_calls(platform: &mut Browser, call: &Function, calls: u32) -> Result<u64, JsError> {
    let start = platform.now();
    for _ in 0..calls {
        let out = call.call0(&JsValue::NULL).map_err(thrown)?;
        if let Some(promise) = out.dyn_ref::<Promise>() {
            JsFuture::from(promise.clone()).await.map_err(thrown)?;
        }
    }
    Ok(platform.now().saturating_sub(start))
}

fn thrown(error: JsValue) -> JsError {
    let text = error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"));
    JsError::new(&format!("a timed call threw: {text}"))
}

/// The upload of one implementation measured in this browser: this
/// browser's board, our clock, a build named by `implementation` (its
/// label, e.g. `noble-post-quantum@0.7.1`) with `packages` (name to
/// version) as its crates, and the `measurements` and `notes` (JSON lists
/// of [`Measurement`] and [`UploadNote`]); `browser_run` as `run_suite`'s.
#[wasm_bindgen]
pub fn peer_upload(
    implementation: String,
    packages: JsValue,
    measurements: &str,
    notes: &str,
    browser_run: Option<String>,
) -> Result<String, JsError> {
    let scope = scope()?;
    let (_, resolution) = browser()?;
    let decode =
        |what: &str, e: serde_json::Error| JsError::new(&format!("the {what} are not as expected: {e}"));
    let measurements: Vec<Measurement> =
        serde_json::from_str(measurements).map_err(|e| decode("measurements", e))?;
    let notes: Vec<UploadNote> = serde_json::from_str(notes).map_err(|e| decode("notes", e))?;
    let mut crates = BTreeMap::new();
    if !packages.is_undefined() && !packages.is_null() {
        let json = js_sys::JSON::stringify(&packages).ok().and_then(|s| s.as_string()).unwrap_or_default();
        crates = serde_json::from_str(&json).map_err(|e| decode("package versions", e))?;
    }
    let mut extra = browser_extra(&scope, resolution, browser_run);
    extra.insert(IMPLEMENTATION.to_owned(), implementation);
    upload_json(&scope, Build { crates, extra, ..Build::default() }, measurements, notes)
}
