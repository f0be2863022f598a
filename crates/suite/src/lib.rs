//! The benchmark suite, written once.
//!
//! Firmware, the browser's wasm module and the native host all call
//! [`run`] with their own [`Platform`] (a clock and memory probes) and their
//! own [`Reporter`] (UART records, `postMessage`, a database). The suite
//! decides what is measured and how; the platform only says what time it is
//! and how much memory was touched.
//!
//! Method, as pqm4 and wolfCrypt's benchmark do it:
//! - a self-test first: a known answer from the algorithm's standard where
//!   one is cheap (for ML-KEM and ML-DSA, from an independent implementation:
//!   see `kat`), and a round trip with a tampered input that must be
//!   rejected where there is one; a failed self-test is reported as failed,
//!   with which kind failed, and not timed;
//! - then at least `min_iterations` and at least `min_time_ms` of timed
//!   calls, each timed alone so min, median and max are real samples;
//! - heap and stack peaks over those calls, relative to before the first.
//!
//! Inputs come from a ChaCha20 generator with a fixed seed per algorithm,
//! so a deterministic board gives identical counts on every run.
//! Symmetric ciphers and hashes are measured on [`THROUGHPUT_BYTES`]-byte
//! messages and report that size, so the host can derive bytes per second.
#![no_std]

extern crate alloc;

#[cfg(not(any(feature = "libcrux", feature = "rustcrypto", feature = "pqclean")))]
compile_error!(
    "pqbench-suite needs an ML-KEM/ML-DSA implementation: the `libcrux`, `rustcrypto` or `pqclean` feature"
);

mod aead;
pub mod calibrate;
mod dsa;
mod ecc;
#[cfg(feature = "fn-dsa")]
mod fn_dsa;
mod hash;
mod hqc;
mod hss;
mod hybrid;
#[cfg(feature = "libcrux")]
pub mod interop;
mod kat;
mod kem;
mod measure;
pub mod needs;
pub mod probe;
mod rsa;
mod rule;
mod slh_dsa;
mod summary;

pub use measure::{BEAT_MS, Mark, MemoryBudget, MemoryUse, Platform, Reporter, Settings};
pub use rule::{Rule, Sizing};
pub use summary::summarise;

use pqbench_types::{Algorithm, Failure, Operation};

/// Every (algorithm, operation) the suite knows, in the order it runs them:
/// post-quantum first, then classical public-key, then symmetric and hashes.
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
    (Algorithm::MlDsa44, Operation::Keygen),
    (Algorithm::MlDsa44, Operation::Sign),
    (Algorithm::MlDsa44, Operation::Verify),
    (Algorithm::MlDsa65, Operation::Keygen),
    (Algorithm::MlDsa65, Operation::Sign),
    (Algorithm::MlDsa65, Operation::Verify),
    (Algorithm::MlDsa87, Operation::Keygen),
    (Algorithm::MlDsa87, Operation::Sign),
    (Algorithm::MlDsa87, Operation::Verify),
    (Algorithm::X25519MlKem768, Operation::Keygen),
    (Algorithm::X25519MlKem768, Operation::Encaps),
    (Algorithm::X25519MlKem768, Operation::Decaps),
    (Algorithm::XWing, Operation::Keygen),
    (Algorithm::XWing, Operation::Encaps),
    (Algorithm::XWing, Operation::Decaps),
    (Algorithm::SlhDsaSha2_128f, Operation::Keygen),
    (Algorithm::SlhDsaSha2_128f, Operation::Sign),
    (Algorithm::SlhDsaSha2_128f, Operation::Verify),
    (Algorithm::SlhDsaShake128f, Operation::Keygen),
    (Algorithm::SlhDsaShake128f, Operation::Sign),
    (Algorithm::SlhDsaShake128f, Operation::Verify),
    (Algorithm::SlhDsaSha2_128s, Operation::Keygen),
    (Algorithm::SlhDsaSha2_128s, Operation::Sign),
    (Algorithm::SlhDsaSha2_128s, Operation::Verify),
    (Algorithm::SlhDsaShake128s, Operation::Keygen),
    (Algorithm::SlhDsaShake128s, Operation::Sign),
    (Algorithm::SlhDsaShake128s, Operation::Verify),
    (Algorithm::FnDsa512, Operation::Keygen),
    (Algorithm::FnDsa512, Operation::Sign),
    (Algorithm::FnDsa512, Operation::Verify),
    (Algorithm::FnDsa1024, Operation::Keygen),
    (Algorithm::FnDsa1024, Operation::Sign),
    (Algorithm::FnDsa1024, Operation::Verify),
    (Algorithm::HqcKem128, Operation::Keygen),
    (Algorithm::HqcKem128, Operation::Encaps),
    (Algorithm::HqcKem128, Operation::Decaps),
    (Algorithm::HqcKem192, Operation::Keygen),
    (Algorithm::HqcKem192, Operation::Encaps),
    (Algorithm::HqcKem192, Operation::Decaps),
    (Algorithm::HqcKem256, Operation::Keygen),
    (Algorithm::HqcKem256, Operation::Encaps),
    (Algorithm::HqcKem256, Operation::Decaps),
    (Algorithm::HssSha256L1H5W4, Operation::Keygen),
    (Algorithm::HssSha256L1H5W4, Operation::Sign),
    (Algorithm::HssSha256L1H5W4, Operation::Verify),
    (Algorithm::Rsa2048, Operation::Public),
    (Algorithm::Rsa2048, Operation::Private),
    (Algorithm::EcdsaP256, Operation::Sign),
    (Algorithm::EcdsaP256, Operation::Verify),
    (Algorithm::EcdhP256, Operation::Keygen),
    (Algorithm::EcdhP256, Operation::Agree),
    (Algorithm::X25519, Operation::Keygen),
    (Algorithm::X25519, Operation::Agree),
    (Algorithm::Ed25519, Operation::Keygen),
    (Algorithm::Ed25519, Operation::Sign),
    (Algorithm::Ed25519, Operation::Verify),
    (Algorithm::Aes128Gcm, Operation::Encrypt),
    (Algorithm::Aes128Gcm, Operation::Decrypt),
    (Algorithm::Aes256Gcm, Operation::Encrypt),
    (Algorithm::Aes256Gcm, Operation::Decrypt),
    (Algorithm::ChaCha20Poly1305, Operation::Encrypt),
    (Algorithm::ChaCha20Poly1305, Operation::Decrypt),
    (Algorithm::Sha256, Operation::Hash),
    (Algorithm::Sha512, Operation::Hash),
    (Algorithm::Sha3_256, Operation::Hash),
    (Algorithm::Shake128, Operation::Hash),
    (Algorithm::Shake256, Operation::Hash),
];

/// The message size of every throughput measurement (ciphers, hashes):
/// about a network packet, large enough that per-call setup (key schedule,
/// padding, finalisation) does not dominate, small enough for any board's
/// stack.
pub const THROUGHPUT_BYTES: usize = 1024;

/// Whether the suite can measure this algorithm.
pub fn supports(algorithm: Algorithm) -> bool {
    CATALOGUE.iter().any(|&(a, _)| a == algorithm)
}

/// Whether this build holds the algorithm's code: every one of the
/// catalogue's, except FN-DSA's without the `fn-dsa` feature (a small
/// chip's flash) and SLH-DSA's `128s` sets' without `slh-dsa-128s` (a
/// chip's 32-bit cycle counter, which wraps inside one of their
/// signatures). One it does not hold is still listed and reported, each
/// operation `does_not_fit`, never run.
pub const fn in_this_build(algorithm: Algorithm) -> bool {
    match algorithm {
        Algorithm::FnDsa512 | Algorithm::FnDsa1024 => cfg!(feature = "fn-dsa"),
        Algorithm::SlhDsaSha2_128s | Algorithm::SlhDsaShake128s => cfg!(feature = "slh-dsa-128s"),
        _ => true,
    }
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
        if !in_this_build(algorithm) {
            session.not_in_this_build(algorithm);
            continue;
        }
        if let Some(budget) = session.memory_budget()
            && !fit::report_unless_fits(algorithm, budget, &mut session)
        {
            continue;
        }
        // From here to the next, how deep the algorithm takes the stack:
        // what the table of needs says of it (`cargo xtask needs`).
        session.algorithm_start();
        // Each arm's function is `#[inline(never)]`: its keys and buffers
        // then take stack only while that algorithm runs, instead of every
        // algorithm's adding up in this frame under the timed operations
        // (21 KB of a small board's 64 KB when they were all inlined).
        match algorithm {
            Algorithm::MlKem512 => kem::bench::<kem::MlKem512>(algorithm, &mut session),
            Algorithm::MlKem768 => kem::bench::<kem::MlKem768>(algorithm, &mut session),
            Algorithm::MlKem1024 => kem::bench::<kem::MlKem1024>(algorithm, &mut session),
            Algorithm::MlDsa44 => dsa::bench::<dsa::MlDsa44>(algorithm, &mut session),
            Algorithm::MlDsa65 => dsa::bench::<dsa::MlDsa65>(algorithm, &mut session),
            Algorithm::MlDsa87 => dsa::bench::<dsa::MlDsa87>(algorithm, &mut session),
            Algorithm::X25519MlKem768 => hybrid::x25519_mlkem768(algorithm, &mut session),
            Algorithm::XWing => hybrid::x_wing(algorithm, &mut session),
            Algorithm::SlhDsaSha2_128f => slh_dsa::bench::<slh_dsa::Sha2_128f>(algorithm, &mut session),
            Algorithm::SlhDsaShake128f => slh_dsa::bench::<slh_dsa::Shake128f>(algorithm, &mut session),
            #[cfg(feature = "slh-dsa-128s")]
            Algorithm::SlhDsaSha2_128s => slh_dsa::bench::<slh_dsa::Sha2_128s>(algorithm, &mut session),
            #[cfg(feature = "slh-dsa-128s")]
            Algorithm::SlhDsaShake128s => slh_dsa::bench::<slh_dsa::Shake128s>(algorithm, &mut session),
            #[cfg(feature = "fn-dsa")]
            Algorithm::FnDsa512 => fn_dsa::bench::<fn_dsa::FnDsa512>(algorithm, &mut session),
            #[cfg(feature = "fn-dsa")]
            Algorithm::FnDsa1024 => fn_dsa::bench::<fn_dsa::FnDsa1024>(algorithm, &mut session),
            Algorithm::HqcKem128 => hqc::bench::<hqc::Hqc128Params>(algorithm, &mut session),
            Algorithm::HqcKem192 => hqc::bench::<hqc::Hqc192Params>(algorithm, &mut session),
            Algorithm::HqcKem256 => hqc::bench::<hqc::Hqc256Params>(algorithm, &mut session),
            Algorithm::HssSha256L1H5W4 => hss::bench(algorithm, &hss::L1_H5_W4, &mut session),
            Algorithm::Rsa2048 => rsa::bench(algorithm, &mut session),
            Algorithm::EcdsaP256 => ecc::ecdsa_p256(algorithm, &mut session),
            Algorithm::EcdhP256 => ecc::ecdh_p256(algorithm, &mut session),
            Algorithm::X25519 => ecc::x25519(algorithm, &mut session),
            Algorithm::Ed25519 => ecc::ed25519(algorithm, &mut session),
            Algorithm::Aes128Gcm => {
                aead::bench::<aes_gcm::Aes128Gcm>(algorithm, &mut session, &aead::AES_128_GCM)
            }
            Algorithm::Aes256Gcm => {
                aead::bench::<aes_gcm::Aes256Gcm>(algorithm, &mut session, &aead::AES_256_GCM)
            }
            Algorithm::ChaCha20Poly1305 => aead::bench::<chacha20poly1305::ChaCha20Poly1305>(
                algorithm,
                &mut session,
                &aead::CHACHA20_POLY1305,
            ),
            Algorithm::Sha256 => hash::digest::<sha2::Sha256>(algorithm, &mut session, &hash::SHA_256),
            Algorithm::Sha512 => hash::digest::<sha2::Sha512>(algorithm, &mut session, &hash::SHA_512),
            Algorithm::Sha3_256 => hash::digest::<sha3::Sha3_256>(algorithm, &mut session, &hash::SHA3_256),
            Algorithm::Shake128 => hash::xof::<shake::Shake128>(algorithm, &mut session, &hash::SHAKE128),
            Algorithm::Shake256 => hash::xof::<shake::Shake256>(algorithm, &mut session, &hash::SHAKE256),
            // CATALOGUE names only the algorithms above.
            _ => {}
        }
    }
    let reported = session.reported();
    reporter.end(reported);
    reported
}

mod fit {
    //! Whether an algorithm can run on a small board, judged before any of
    //! it runs: a board that runs out of stack faults, and one that runs
    //! out of heap panics, and either would end the whole run.

    use pqbench_types::{Algorithm, Operation, Status};

    use crate::measure::{MemoryBudget, Platform, Reporter, Session};

    /// The needs are measured on the emulated board's `opt-s` build, from
    /// the run loop's frame down (the benchmark's frame with its keys and
    /// buffers, its self-test and the operation: `stack_depth_bytes`). A
    /// chip's build of the same code at another optimisation level lays
    /// out its frames a little differently: this is room for that, not
    /// for anything the table leaves out.
    pub(crate) const STACK_MARGIN: u32 = 2 * 1024;
    pub(crate) const HEAP_MARGIN: u32 = 1024;

    /// What an operation needs: how deep below the run loop the stack goes
    /// by its end, and its peak heap, on the emulated Cortex-M4. An
    /// operation not in the table is taken to fit.
    pub(crate) fn need(algorithm: Algorithm, operation: Operation) -> Option<(u32, u32)> {
        crate::needs::NEEDS
            .iter()
            .find(|&&(a, o, _, _)| a == algorithm.as_str() && o == operation.as_str())
            .map(|&(_, _, stack, heap)| (stack, heap))
    }

    fn operations(algorithm: Algorithm) -> impl Iterator<Item = Operation> {
        crate::CATALOGUE.iter().filter(move |&&(a, _)| a == algorithm).map(|&(_, o)| o)
    }

    /// True when `algorithm` fits `budget`. Otherwise reports each of its
    /// operations: `does_not_fit` with its need where the operation alone
    /// does not fit, `skipped` where it would but depends on one that does
    /// not (a verification needs a key and a signature). An algorithm's
    /// heap is what all its operations hold together (keys stay allocated
    /// across them), its stack what the deepest needs.
    pub(crate) fn report_unless_fits(
        algorithm: Algorithm,
        budget: MemoryBudget,
        session: &mut Session<'_, impl Platform, impl Reporter>,
    ) -> bool {
        let needs = || operations(algorithm).filter_map(move |o| need(algorithm, o));
        let stack = needs().map(|(stack, _)| stack).max().unwrap_or(0);
        let heap: u32 = needs().map(|(_, heap)| heap).sum();
        let fits = |stack: u32, heap: u32| {
            stack.saturating_add(STACK_MARGIN) <= budget.stack
                && heap.saturating_add(HEAP_MARGIN) <= budget.heap
        };
        if fits(stack, heap) {
            return true;
        }
        for operation in operations(algorithm) {
            match need(algorithm, operation) {
                Some((stack, heap)) if !fits(stack, heap) => {
                    session.does_not_fit(algorithm, operation, stack + heap)
                }
                _ => session.untimed(algorithm, operation, Status::Skipped),
            }
        }
        false
    }
}

/// The generator every operation draws its inputs from.
pub(crate) fn seeded_rng(algorithm: Algorithm) -> rand_chacha::ChaCha20Rng {
    use rand_core::SeedableRng;
    let mut seed = [0u8; 32];
    let name = algorithm.as_str().as_bytes();
    seed[..name.len().min(32)].copy_from_slice(&name[..name.len().min(32)]);
    rand_chacha::ChaCha20Rng::from_seed(seed)
}

/// `N` fresh bytes from the suite's generator, for the APIs that take their
/// randomness as an array rather than a generator (libcrux's), and tests.
#[cfg(any(feature = "libcrux", test))]
pub(crate) fn random<const N: usize>(rng: &mut impl rand_core::Rng) -> [u8; N] {
    let mut bytes = [0u8; N];
    rng.fill_bytes(&mut bytes);
    bytes
}

/// Whether a self-test's output is its known answer.
///
/// Under test, a hook (`tests::corrupt_known_answers`) makes the expected
/// value wrong by one bit, as a broken implementation would look.
pub(crate) fn known_answer(algorithm: Algorithm, actual: &[u8], expected: &[u8]) -> bool {
    #[cfg(test)]
    if tests::known_answers_corrupted(algorithm) {
        let mut corrupted = alloc::vec::Vec::from(expected);
        if let Some(first) = corrupted.first_mut() {
            *first ^= 1;
        }
        return actual == corrupted.as_slice();
    }
    // A test build of a target (never a shipped one) gets SHA-256's known
    // answer wrong on purpose, to show the failure stored end to end.
    if cfg!(feature = "inject-self-test-fault") && algorithm == Algorithm::Sha256 {
        return false;
    }
    actual == expected
}

/// A self-test's verdict: passed, or which kind of check failed.
pub(crate) type Verdict = Result<(), Failure>;

/// `Ok` when `passed`, else the `failure` a result will carry.
pub(crate) fn check(passed: bool, failure: Failure) -> Verdict {
    if passed { Ok(()) } else { Err(failure) }
}

/// A signature self-test: `signature` verifies for `message` and not for
/// the message with one bit flipped.
pub(crate) fn verifies_only<S>(
    verifier: &impl p256::ecdsa::signature::Verifier<S>,
    message: &[u8; 32],
    signature: &S,
) -> bool {
    let mut tampered = *message;
    tampered[0] ^= 1;
    verifier.verify(message, signature).is_ok() && verifier.verify(&tampered, signature).is_err()
}

/// Bytes from hex text, for known answers. Used only in `const` items, so
/// it runs at compile time: a malformed vector is a build error.
pub(crate) const fn hex<const N: usize>(text: &str) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("not lower-case hex"),
        }
    }
    let text = text.as_bytes();
    assert!(text.len() == 2 * N, "hex text of the wrong length");
    let mut bytes = [0u8; N];
    let mut i = 0;
    while i < N {
        bytes[i] = (nibble(text[2 * i]) << 4) | nibble(text[2 * i + 1]);
        i += 1;
    }
    bytes
}

#[cfg(test)]
mod tests;
