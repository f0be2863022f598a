//! The benchmark suite, written once.
//!
//! Firmware, the browser's wasm module and the native host all call
//! [`run`] with their own [`Platform`] (a clock and memory probes) and their
//! own [`Reporter`] (UART records, `postMessage`, a database). The suite
//! decides what is measured and how; the platform only says what time it is
//! and how much memory was touched.
//!
//! Method, as pqm4 and wolfCrypt's benchmark do it:
//! - a self-test first (for a KEM: decapsulation of an encapsulation gives
//!   the same key); a failed self-test is reported as failed and not timed;
//! - then at least `min_iterations` and at least `min_time_ms` of timed
//!   calls, each timed alone so min, median and max are real samples;
//! - heap and stack peaks over those calls, relative to before the first.
//!
//! Inputs come from a ChaCha20 generator with a fixed seed per algorithm,
//! so a deterministic board gives identical counts on every run.
#![no_std]

mod kem;
mod measure;
pub mod probe;

pub use measure::{MemoryUse, Platform, Reporter, Settings};

use pqbench_types::{Algorithm, Operation};

/// Every (algorithm, operation) the suite knows, in the order it runs them.
pub const CATALOGUE: &[(Algorithm, Operation)] = &[
    (Algorithm::MlKem512, Operation::Keygen),
    (Algorithm::MlKem512, Operation::Encaps),
    (Algorithm::MlKem512, Operation::Decaps),
    (Algorithm::MlKem768, Operation::Keygen),
    (Algorithm::MlKem768, Operation::Encaps),
    (Algorithm::MlKem768, Operation::Decaps),
    (Algorithm::MlKem1024, Operation::Keygen),
    (Algorithm::MlKem1024, Operation::Encaps),
    (Algorithm::MlKem1024, Operation::Decaps),
];

/// Whether the suite can measure this algorithm.
pub fn supports(algorithm: Algorithm) -> bool {
    CATALOGUE.iter().any(|&(a, _)| a == algorithm)
}

/// Runs every selected algorithm's operations, reporting each as it ends.
///
/// `samples` holds the per-call times; its length caps the iterations of
/// one operation, so a caller bounds both memory and run time with it.
/// Returns the number of results reported.
pub fn run<P: Platform, R: Reporter>(
    platform: &mut P,
    reporter: &mut R,
    settings: &Settings,
    selected: impl Fn(Algorithm) -> bool,
    samples: &mut [u64],
) -> u32 {
    let total = CATALOGUE.iter().filter(|&&(a, _)| selected(a)).count() as u32;
    reporter.begin(total);
    let mut session = measure::Session::new(platform, reporter, settings, samples, total);
    let mut last = None;
    for &(algorithm, _) in CATALOGUE {
        if !selected(algorithm) || last == Some(algorithm) {
            continue;
        }
        last = Some(algorithm);
        match algorithm {
            Algorithm::MlKem512 => kem::bench::<ml_kem::MlKem512>(algorithm, &mut session),
            Algorithm::MlKem768 => kem::bench::<ml_kem::MlKem768>(algorithm, &mut session),
            Algorithm::MlKem1024 => kem::bench::<ml_kem::MlKem1024>(algorithm, &mut session),
            // CATALOGUE names only the algorithms above.
            _ => {}
        }
    }
    let reported = session.reported();
    reporter.end(reported);
    reported
}

/// The generator every operation draws its inputs from.
pub(crate) fn seeded_rng(algorithm: Algorithm) -> rand_chacha::ChaCha20Rng {
    use rand_core::SeedableRng;
    let mut seed = [0u8; 32];
    let name = algorithm.as_str().as_bytes();
    seed[..name.len().min(32)].copy_from_slice(&name[..name.len().min(32)]);
    rand_chacha::ChaCha20Rng::from_seed(seed)
}

#[cfg(test)]
mod tests;
