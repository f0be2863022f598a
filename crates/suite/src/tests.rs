extern crate std;
use std::cell::Cell;
use std::vec::Vec;

use pqbench_types::{Clock, Failure, Family, Measurement, Measuring, Status, TickUnit};

use super::*;

mod marks;

std::thread_local! {
    /// The algorithm whose known answers are corrupted on this test's thread.
    static CORRUPTED: Cell<Option<Algorithm>> = const { Cell::new(None) };
}

/// The hook behind [`crate::known_answer`].
pub(crate) fn known_answers_corrupted(algorithm: Algorithm) -> bool {
    CORRUPTED.with(|c| c.get() == Some(algorithm))
}

std::thread_local! {
    /// Whether this test's thread flips a bit of every ML-KEM/ML-DSA
    /// key-generation seed, as the `inject-pqc-fault` feature does.
    static PQC_FAULT: Cell<bool> = const { Cell::new(false) };
}

/// The hook behind [`crate::kat::keygen_seed`].
pub(crate) fn pqc_fault_injected() -> bool {
    PQC_FAULT.with(Cell::get)
}

/// Runs `body` with ML-KEM and ML-DSA wrong but consistent.
pub(crate) fn inject_pqc_fault<T>(body: impl FnOnce() -> T) -> T {
    PQC_FAULT.with(|c| c.set(true));
    let out = body();
    PQC_FAULT.with(|c| c.set(false));
    out
}

/// Runs `body` with `algorithm`'s known answers off by one bit.
fn corrupt_known_answers<T>(algorithm: Algorithm, body: impl FnOnce() -> T) -> T {
    CORRUPTED.with(|c| c.set(Some(algorithm)));
    let out = body();
    CORRUPTED.with(|c| c.set(None));
    out
}

/// A clock that advances a fixed step per reading, and memory probes that
/// report what they were told: enough to check the suite's own arithmetic.
struct SteppingPlatform {
    ticks: u64,
    step: u64,
    memory_windows: u32,
}

impl Platform for SteppingPlatform {
    fn clock(&self) -> Clock {
        Clock { ticks_per_second: 1000, unit: TickUnit::Nanoseconds }
    }
    fn now(&mut self) -> u64 {
        self.ticks += self.step;
        self.ticks
    }
    fn memory_start(&mut self) {
        self.memory_windows += 1;
    }
    fn memory_stop(&mut self) -> MemoryUse {
        MemoryUse { heap_bytes: Some(64), heap_allocs: Some(1), stack_bytes: None, stack_depth_bytes: None }
    }
}

#[derive(Default)]
struct Collected {
    begun: Option<u32>,
    progress: Vec<(Algorithm, Operation, u32, u32)>,
    measuring: Vec<Measuring>,
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
    fn measuring(&mut self, status: &Measuring) {
        self.measuring.push(*status);
    }
    fn result(&mut self, m: &Measurement) {
        self.results.push(*m);
    }
    fn end(&mut self, results: u32) {
        self.ended = Some(results);
    }
}

fn run_selected(
    settings: Settings,
    samples: &mut [u64],
    selected: impl Fn(Algorithm) -> bool,
) -> (SteppingPlatform, Collected) {
    let mut platform = SteppingPlatform { ticks: 0, step: 5, memory_windows: 0 };
    let mut collected = Collected::default();
    run(&mut platform, &mut collected, &settings, selected, samples);
    (platform, collected)
}

fn run_ml_kem_768(settings: Settings, samples: &mut [u64]) -> (SteppingPlatform, Collected) {
    run_selected(settings, samples, |a| a == Algorithm::MlKem768)
}

#[test]
fn ml_kem_768_reports_three_timed_operations_in_order() {
    let (platform, got) = run_ml_kem_768(Settings { min_iterations: 4, min_time_ms: 0 }, &mut [0; 16]);
    assert_eq!(got.begun, Some(3));
    assert_eq!(got.ended, Some(3));
    assert_eq!(platform.memory_windows, 3);
    let ops: Vec<_> = got.results.iter().map(|m| (m.algorithm, m.operation, m.status)).collect();
    assert_eq!(
        ops,
        [
            (Algorithm::MlKem768, Operation::Keygen, Status::Ok),
            (Algorithm::MlKem768, Operation::Encaps, Status::Ok),
            (Algorithm::MlKem768, Operation::Decaps, Status::Ok),
        ]
    );
    assert_eq!(got.progress[2], (Algorithm::MlKem768, Operation::Decaps, 3, 3));
    for m in &got.results {
        // Each call is timed between two readings of the stepping clock.
        assert_eq!((m.iterations, m.total_ticks, m.min_ticks, m.max_ticks), (4, 20, 5, 5));
        assert_eq!(m.heap_bytes, Some(64));
        assert!(m.is_consistent());
    }
}

#[test]
fn a_long_measurement_says_so_before_it_and_between_calls_at_each_beat() {
    // 1000 ticks per second, 5 ticks a call: 3 s is 600 calls, and a beat
    // (1 s) is 200 calls.
    assert_eq!(BEAT_MS, 1000);
    let settings = Settings { min_iterations: 1, min_time_ms: 3000 };
    let (platform, got) = run_selected(settings, &mut [0; 1024], |a| a == Algorithm::Sha256);
    let [m] = &got.results[..] else { panic!("{:?}", got.results) };
    assert_eq!((m.iterations, m.total_ticks), (600, 3000), "{m:?}");
    let beats: Vec<_> = got.measuring.iter().map(|b| (b.calls, b.elapsed_ticks, b.slowest_ticks)).collect();
    // One before the first call, then one per beat of timed ticks, and none
    // after the last call: its result follows at once.
    assert_eq!(beats, [(0, 0, 0), (200, 1000, 5), (400, 2000, 5)]);
    for beat in &got.measuring {
        assert_eq!((beat.algorithm, beat.operation), (Algorithm::Sha256, Operation::Hash));
        assert_eq!((beat.min_time_ms, beat.beat_ms), (3000, BEAT_MS));
        assert!(beat.is_consistent(), "{beat:?}");
    }
    // No clock reading of their own: two per timed call, and nothing else
    // (this clock moves one step per reading).
    assert_eq!(platform.ticks / platform.step, 2 * 600);
    // Each beat is reported between two memory windows, in neither.
    assert_eq!(platform.memory_windows, 3);
}

#[test]
fn a_short_measurement_says_so_once_before_it() {
    let (_, got) = run_ml_kem_768(Settings { min_iterations: 4, min_time_ms: 0 }, &mut [0; 16]);
    let beats: Vec<_> = got.measuring.iter().map(|b| (b.operation, b.calls, b.elapsed_ticks)).collect();
    assert_eq!(beats, [(Operation::Keygen, 0, 0), (Operation::Encaps, 0, 0), (Operation::Decaps, 0, 0)]);
}

#[test]
fn memory_windows_of_one_operation_keep_the_highest_peaks() {
    let window = |heap, stack| MemoryUse {
        heap_bytes: heap,
        heap_allocs: heap.map(|_| 1),
        stack_bytes: stack,
        stack_depth_bytes: None,
    };
    let first = measure::peaks(None, window(Some(64), Some(900)));
    assert_eq!(first, window(Some(64), Some(900)));
    let both = measure::peaks(Some(first), window(Some(128), Some(700)));
    assert_eq!(both, window(Some(128), Some(900)));
    // A stack that overflowed its paint in any window is unknown.
    assert_eq!(measure::peaks(Some(both), window(Some(0), None)).stack_bytes, None);
}

#[test]
fn minimum_time_extends_iterations_up_to_the_sample_capacity() {
    // 1000 ticks per second: 50 ms is 50 ticks, 10 calls of 5 ticks.
    let (_, got) = run_ml_kem_768(Settings { min_iterations: 1, min_time_ms: 50 }, &mut [0; 64]);
    assert!(got.results.iter().all(|m| m.iterations == 10), "{:?}", got.results);
    let (_, got) = run_ml_kem_768(Settings { min_iterations: 1, min_time_ms: 50 }, &mut [0; 6]);
    assert!(got.results.iter().all(|m| m.iterations == 6));
}

#[test]
fn no_sample_room_is_skipped_not_faked() {
    let (_, got) = run_ml_kem_768(Settings::default(), &mut []);
    assert!(got.results.iter().all(|m| m.status == Status::Skipped && m.iterations == 0));
}

#[test]
fn median_is_a_measured_sample() {
    assert_eq!(measure_median(&[1, 2, 3, 4]), 2);
    assert_eq!(measure_median(&[7]), 7);
    assert_eq!(measure_median(&[1, 5, 9]), 5);
}

#[test]
fn the_standard_deviation_is_the_samples_own_rounded_to_a_tick() {
    use summary::standard_deviation as sd;
    // Σ(x − 5)² = 32 over 7 degrees of freedom: √4.571 = 2.138.
    assert_eq!(sd(&[2, 4, 4, 4, 5, 5, 7, 9]), Some(2));
    // √0.5 = 0.707 rounds up, √0.2 = 0.447 down, and a half up: √0.25.
    assert_eq!(sd(&[10, 11]), Some(1));
    assert_eq!(sd(&[10, 10, 10, 10, 11]), Some(0));
    assert_eq!(sd(&[10, 10, 10, 11]), Some(1));
    // An emulator's instruction counts: every sample the same.
    assert_eq!(sd(&[289_010; 40]), Some(0));
    assert_eq!(sd(&[7]), None);
    assert_eq!(sd(&[]), None);
    // Large counts keep their precision: 1e12 ± 1e6.
    assert_eq!(sd(&[1_000_000_000_000 - 1_000_000, 1_000_000_000_000 + 1_000_000]), Some(1_414_214));
    // Beyond 128 bits: said to be unknown, never wrapped.
    assert_eq!(sd(&[u64::MAX, 0, u64::MAX]), None);
}

#[test]
fn a_summary_carries_the_spread_of_its_samples() {
    let m = summarise(Algorithm::MlKem768, Operation::Keygen, &mut [12, 10, 11], 1, 33);
    assert_eq!(m.stdev_ticks, Some(1));
    assert!(m.is_consistent(), "{m:?}");
}

#[test]
fn percentiles_are_samples_by_nearest_rank_and_never_min_or_max_again() {
    use summary::percentile;
    let hundred: Vec<u64> = (1..=100).collect();
    // The ⌈p·n/100⌉-th smallest: the 10th, 90th and 99th of 100.
    assert_eq!(percentile(&hundred, 10), Some(10));
    assert_eq!(percentile(&hundred, 90), Some(90));
    assert_eq!(percentile(&hundred, 99), Some(99));
    // Of 99 samples the 99th percentile would be the max: not said.
    assert_eq!(percentile(&hundred[..99], 99), None);
    // p90 from 10 samples (the 9th), p10 only from 11 (the 2nd).
    assert_eq!(percentile(&hundred[..10], 90), Some(9));
    assert_eq!(percentile(&hundred[..10], 10), None);
    assert_eq!(percentile(&hundred[..11], 10), Some(2));
    assert_eq!(percentile(&[], 10), None);
    assert_eq!(percentile(&[5], 90), None);

    // A slow tail, as a noisy host gives: p99 shows it where min, median
    // and the mean would not.
    let mut samples: Vec<u64> = (0..1000).map(|i| if i % 50 == 0 { 900 } else { 100 + i % 7 }).collect();
    let total = samples.iter().sum();
    let m = summarise(Algorithm::MlKem768, Operation::Keygen, &mut samples, 1, total);
    assert_eq!((m.p10_ticks, m.p90_ticks, m.p99_ticks), (Some(100), Some(106), Some(900)));
    assert!(m.is_consistent(), "{m:?}");
}

fn measure_median(sorted: &[u64]) -> u64 {
    summary::median(sorted)
}

const QUICK: Settings = Settings { min_iterations: 2, min_time_ms: 0 };

/// The algorithms whose self-test compares with a known answer: published
/// (the standards' examples, RFCs), or for ML-KEM and ML-DSA derived by an
/// independent implementation (`kat`).
const WITH_KNOWN_ANSWERS: &[Algorithm] = &[
    Algorithm::MlKem512,
    Algorithm::MlKem768,
    Algorithm::MlKem1024,
    Algorithm::MlDsa44,
    Algorithm::MlDsa65,
    Algorithm::MlDsa87,
    Algorithm::X25519MlKem768,
    Algorithm::XWing,
    Algorithm::SlhDsaSha2_128f,
    Algorithm::SlhDsaShake128f,
    Algorithm::SlhDsaSha2_128s,
    Algorithm::SlhDsaShake128s,
    Algorithm::FnDsa512,
    Algorithm::FnDsa1024,
    Algorithm::X25519,
    Algorithm::Ed25519,
    Algorithm::Aes128Gcm,
    Algorithm::Aes256Gcm,
    Algorithm::ChaCha20Poly1305,
    Algorithm::Sha256,
    Algorithm::Sha512,
    Algorithm::Sha3_256,
    Algorithm::Shake128,
    Algorithm::Shake256,
];

fn is_throughput(algorithm: Algorithm) -> bool {
    matches!(algorithm.family(), Family::Symmetric | Family::Hash)
}

#[test]
fn every_catalogue_entry_is_reported_ok_in_catalogue_order() {
    let (platform, got) = run_selected(QUICK, &mut [0; 8], |_| true);
    let total = CATALOGUE.len() as u32;
    assert_eq!((got.begun, got.ended), (Some(total), Some(total)));
    let built = CATALOGUE.iter().filter(|&&(a, _)| crate::in_this_build(a)).count() as u32;
    assert_eq!(platform.memory_windows, built, "one window per timed operation");
    let reported: Vec<_> = got.results.iter().map(|m| (m.algorithm, m.operation)).collect();
    assert_eq!(reported, CATALOGUE);
    for (index, m) in got.results.iter().enumerate() {
        assert_eq!(got.progress[index], (m.algorithm, m.operation, index as u32 + 1, total));
        if !crate::in_this_build(m.algorithm) {
            assert_eq!(*m, Measurement::untimed(m.algorithm, m.operation, Status::DoesNotFit));
            continue;
        }
        assert_eq!(m.status, Status::Ok, "{} {}", m.algorithm, m.operation);
        assert_eq!((m.iterations, m.total_ticks, m.min_ticks, m.max_ticks), (2, 10, 5, 5));
        assert!(m.is_consistent(), "{m:?}");
    }
}

/// FN-DSA's code is in every build but the small chips' (`fn-dsa` off),
/// SLH-DSA's `128s` sets' in every build but the chips' (`slh-dsa-128s`
/// off): where a feature is off, each of its operations is reported
/// `does_not_fit`, with no byte count (the flash or the clock, not the
/// RAM), and nothing of it runs.
#[test]
fn feature_gated_sets_are_in_the_build_with_their_feature_and_reported_not_fitting_without() {
    let fn_dsa = |a: Algorithm| matches!(a, Algorithm::FnDsa512 | Algorithm::FnDsa1024);
    let slh_dsa_128s = |a: Algorithm| matches!(a, Algorithm::SlhDsaSha2_128s | Algorithm::SlhDsaShake128s);
    assert!(CATALOGUE.iter().all(|&(a, _)| crate::in_this_build(a) || fn_dsa(a) || slh_dsa_128s(a)));
    assert_eq!(crate::in_this_build(Algorithm::FnDsa512), cfg!(feature = "fn-dsa"));
    assert_eq!(crate::in_this_build(Algorithm::SlhDsaShake128s), cfg!(feature = "slh-dsa-128s"));
    let gated: [(&dyn Fn(Algorithm) -> bool, bool); 2] =
        [(&fn_dsa, cfg!(feature = "fn-dsa")), (&slh_dsa_128s, cfg!(feature = "slh-dsa-128s"))];
    for (sets, built) in gated {
        let (platform, got) = run_selected(QUICK, &mut [0; 2], sets);
        assert_eq!(got.results.len(), 6);
        if built {
            assert_eq!(platform.memory_windows, 6);
            assert!(got.results.iter().all(|m| m.status == Status::Ok));
        } else {
            assert_eq!(platform.memory_windows, 0, "nothing of it ran");
            for m in &got.results {
                assert_eq!(*m, Measurement::untimed(m.algorithm, m.operation, Status::DoesNotFit));
                assert_eq!(m.needed_bytes, None);
            }
        }
    }
}

#[test]
fn catalogue_lists_each_operation_once_and_each_algorithm_together() {
    for (i, entry) in CATALOGUE.iter().enumerate() {
        assert!(!CATALOGUE[i + 1..].contains(entry), "{entry:?} twice");
    }
    // `run` dispatches an algorithm once, at its first entry: its operations
    // must be adjacent for the report to follow the catalogue.
    for (i, &(algorithm, _)) in CATALOGUE.iter().enumerate().skip(1) {
        if CATALOGUE[i - 1].0 != algorithm {
            assert!(!CATALOGUE[..i].iter().any(|&(a, _)| a == algorithm), "{algorithm} split");
        }
    }
}

#[test]
fn throughput_results_carry_the_message_size_and_others_none() {
    let (_, got) = run_selected(QUICK, &mut [0; 8], is_throughput);
    assert_eq!(got.results.len(), 11);
    for m in &got.results {
        assert_eq!(m.status, Status::Ok);
        assert_eq!(m.bytes_per_op, Some(1024), "{} {}", m.algorithm, m.operation);
    }
    let (_, got) = run_selected(QUICK, &mut [0; 8], |a| matches!(a, Algorithm::X25519 | Algorithm::MlKem512));
    assert_eq!(got.results.len(), 5);
    assert!(got.results.iter().all(|m| m.status == Status::Ok && m.bytes_per_op.is_none()));
}

#[test]
fn a_corrupted_known_answer_fails_every_operation_untimed() {
    for &algorithm in WITH_KNOWN_ANSWERS.iter().filter(|&&a| crate::in_this_build(a)) {
        // SHA-256 runs beside it, to show the hook touches one algorithm.
        let beside = if algorithm == Algorithm::Sha256 { Algorithm::Sha512 } else { Algorithm::Sha256 };
        let (platform, got) = corrupt_known_answers(algorithm, || {
            run_selected(QUICK, &mut [0; 8], |a| a == algorithm || a == beside)
        });
        assert_eq!(platform.memory_windows, 1, "{algorithm}: only the other one was timed");
        let operations = CATALOGUE.iter().filter(|&&(a, _)| a == algorithm).count();
        let failed: Vec<_> = got.results.iter().filter(|m| m.algorithm == algorithm).collect();
        assert_eq!(failed.len(), operations, "{algorithm}");
        for m in failed {
            let expected = Measurement {
                failure: Some(Failure::KnownAnswer),
                ..Measurement::untimed(algorithm, m.operation, Status::Failed)
            };
            assert_eq!(*m, expected, "failed, untimed, and says it was the known answer");
        }
        let other = got.results.iter().find(|m| m.algorithm == beside);
        assert_eq!(other.map(|m| m.status), Some(Status::Ok), "{algorithm}");
    }
}

/// This build's implementation (libcrux, or RustCrypto in the
/// `--no-default-features --features rustcrypto` run of `cargo xtask test`)
/// gives every known answer of `kat`, which the independent implementation
/// derived: run under both, the two agree with each other byte for byte.
#[test]
fn every_post_quantum_algorithm_gives_the_known_answers_with_this_implementation() {
    let (_, got) =
        run_selected(QUICK, &mut [0; 2], |a| a.family() == Family::PostQuantum && crate::in_this_build(a));
    assert_eq!(
        got.results.len(),
        post_quantum_operations_built(),
        "three parameter sets of ML-KEM, ML-DSA and HQC, the two hybrids, SLH-DSA-SHA2-128f and -SHAKE-128f, HSS-SHA256-L1-H5-W4, SLH-DSA's two 128s sets and FN-DSA's two where built"
    );
    for m in &got.results {
        assert_eq!(m.status, Status::Ok, "{} {} with {}", m.algorithm, m.operation, implementation());
    }
}

/// The post-quantum operations of this build: 42 in every build, and three
/// more for each FN-DSA or SLH-DSA `128s` set its features hold.
fn post_quantum_operations_built() -> usize {
    42 + if cfg!(feature = "fn-dsa") { 6 } else { 0 } + if cfg!(feature = "slh-dsa-128s") { 6 } else { 0 }
}

fn implementation() -> &'static str {
    if cfg!(feature = "libcrux") { "libcrux" } else { "RustCrypto" }
}

/// A fault that keeps ML-KEM and ML-DSA consistent (one bit of every
/// key-generation seed flipped, as `inject-pqc-fault` does on a board)
/// passes every round trip and fails only the known answers: every
/// operation is reported failed, untimed, as a known-answer failure.
#[test]
fn a_consistent_fault_passes_the_round_trips_and_fails_the_known_answers() {
    let pqc = |a: Algorithm| a.family() == Family::PostQuantum && crate::in_this_build(a);
    let (platform, got) =
        inject_pqc_fault(|| run_selected(QUICK, &mut [0; 2], |a| pqc(a) || a == Algorithm::Sha256));
    assert_eq!(platform.memory_windows, 1, "only SHA-256 was timed");
    let failed: Vec<_> = got.results.iter().filter(|m| pqc(m.algorithm)).collect();
    assert_eq!(
        failed.len(),
        post_quantum_operations_built(),
        "the hybrids (their ML-KEM seed), SLH-DSA, FN-DSA, HQC and HSS (their seeds) too"
    );
    for m in failed {
        let expected = Measurement {
            failure: Some(Failure::KnownAnswer),
            ..Measurement::untimed(m.algorithm, m.operation, Status::Failed)
        };
        // The round trip is checked first: `known_answer` means it passed.
        assert_eq!(*m, expected, "with {}", implementation());
    }
    assert_eq!(got.results.last().map(|m| m.status), Some(Status::Ok), "SHA-256 is still measured");
}

#[test]
fn round_trip_self_tests_reject_a_mismatched_key() {
    use ::rsa::pkcs1::DecodeRsaPrivateKey;
    use ::rsa::traits::PublicKeyParts;
    use p256::ecdsa::signature::RandomizedSigner;
    use p256::elliptic_curve::Generate;

    // ML-DSA's is beside each implementation (dsa/*.rs).
    let mut rng = seeded_rng(Algorithm::EcdsaP256);
    let message: [u8; 32] = random(&mut rng);

    let key = p256::ecdsa::SigningKey::generate_from_rng(&mut rng);
    let other = p256::ecdsa::SigningKey::generate_from_rng(&mut rng);
    let signature: p256::ecdsa::Signature = key.sign_with_rng(&mut rng, &message);
    assert!(verifies_only(key.verifying_key(), &message, &signature));
    assert!(!verifies_only(other.verifying_key(), &message, &signature));

    // The test key's modulus with the wrong public exponent.
    let key = ::rsa::PrivateKey::from_pkcs1_der(include_bytes!("keys/rsa2048-priv.der"))
        .expect("the embedded key parses");
    let public = key.to_public_key();
    let wrong = ::rsa::PublicKey::new(public.n().as_ref().clone(), ::rsa::BoxedUint::from(3u32))
        .expect("a well-formed public key");
    assert!(rsa::self_test(&key, &public, &message, &mut rng).is_some());
    assert!(rsa::self_test(&key, &wrong, &message, &mut rng).is_none());
}

#[test]
fn hex_reads_known_answers() {
    const BYTES: [u8; 4] = hex("00a1ff7e");
    assert_eq!(BYTES, [0x00, 0xa1, 0xff, 0x7e]);
}

/// A platform with a RAM budget, as a small board reports it.
struct SmallBoard {
    inner: SteppingPlatform,
    budget: MemoryBudget,
}

impl Platform for SmallBoard {
    fn clock(&self) -> Clock {
        self.inner.clock()
    }
    fn now(&mut self) -> u64 {
        self.inner.now()
    }
    fn memory_start(&mut self) {
        self.inner.memory_start()
    }
    fn memory_stop(&mut self) -> MemoryUse {
        self.inner.memory_stop()
    }
    fn memory_budget(&self) -> Option<MemoryBudget> {
        Some(self.budget)
    }
}

#[test]
fn what_does_not_fit_is_reported_with_its_need_and_not_run() {
    let need = |operation| fit::need(Algorithm::MlDsa65, operation).expect("ML-DSA-65 is in the table");
    let operations = [Operation::Keygen, Operation::Sign, Operation::Verify];
    // A stack one byte short of the deepest the algorithm goes (its
    // self-test and benchmark frame included), the heap ample.
    let deepest = operations.iter().map(|&o| need(o).0).max().unwrap();
    let budget = MemoryBudget { stack: deepest + fit::STACK_MARGIN - 1, heap: u32::MAX / 2 };
    let mut board = SmallBoard { inner: SteppingPlatform { ticks: 0, step: 5, memory_windows: 0 }, budget };
    let mut got = Collected::default();
    let selected = |a| a == Algorithm::MlDsa65 || a == Algorithm::Sha256;
    run(&mut board, &mut got, &Settings { min_iterations: 1, min_time_ms: 0 }, selected, &mut [0; 4]);

    let statuses: Vec<_> = got.results.iter().map(|m| (m.operation, m.status, m.needed_bytes)).collect();
    // Each operation that alone goes as deep does not fit, with its need;
    // one that would fit alone is skipped, as it needs the others' keys.
    let expected: Vec<_> = operations
        .iter()
        .map(|&o| {
            let (stack, heap) = need(o);
            if stack == deepest {
                (o, Status::DoesNotFit, Some(stack + heap))
            } else {
                (o, Status::Skipped, None)
            }
        })
        .chain([(Operation::Hash, Status::Ok, None)])
        .collect();
    assert_eq!(statuses, expected);
    assert!(statuses.iter().any(|s| s.1 == Status::DoesNotFit));
    // Only SHA-256 opened a memory window: nothing of ML-DSA ran.
    assert_eq!(board.inner.memory_windows, 1);
}

/// A real clock read as a browser reads `performance.now()`: rounded down
/// to a coarse step.
struct CoarseClock {
    start: std::time::Instant,
    step_ns: u64,
}

impl Platform for CoarseClock {
    fn clock(&self) -> Clock {
        Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds }
    }
    fn now(&mut self) -> u64 {
        let ns = self.start.elapsed().as_nanos() as u64;
        ns / self.step_ns * self.step_ns
    }
    fn timer_resolution(&self) -> u64 {
        self.step_ns
    }
    fn memory_start(&mut self) {}
    fn memory_stop(&mut self) -> MemoryUse {
        MemoryUse::default()
    }
}

#[test]
fn calls_quicker_than_the_clock_are_timed_in_batches_that_span_it() {
    // SHA-256 over 1 KiB takes microseconds; this clock moves in 2 ms steps.
    let step_ns = 2_000_000;
    let mut platform = CoarseClock { start: std::time::Instant::now(), step_ns };
    let mut collected = Collected::default();
    let settings = Settings { min_iterations: 3, min_time_ms: 0 };
    run(&mut platform, &mut collected, &settings, |a| a == Algorithm::Sha256, &mut [0; 16]);

    let [m] = &collected.results[..] else { panic!("{:?}", collected.results) };
    let calls = m.batch.expect("batched");
    assert!(calls > 1, "{m:?}");
    assert_eq!(m.iterations, 3 * calls, "three samples of {calls} calls");
    assert!(m.is_consistent(), "{m:?}");
    // The batch is sized so that a sample spans 25 steps at the pace of
    // its calibration; this clock is the host's wall clock, so later
    // samples may run faster than that (the other core freed, as in a
    // test run where one sample spanned 16). Half of it leaves that room
    // while still showing no sample reads as a step or two.
    assert!(m.total_ticks >= 3 * 10 * step_ns, "{m:?}");
    assert!(m.min_ticks > 0, "{m:?}");
}

#[test]
fn a_clock_that_resolves_a_call_times_each_call_alone() {
    let (_, collected) = run_ml_kem_768(Settings { min_iterations: 2, min_time_ms: 0 }, &mut [0; 8]);
    assert!(
        collected.results.iter().all(|m| m.batch.is_none() && m.iterations == 2),
        "{:?}",
        collected.results
    );
}

/// A clock that moves only when the operation runs: each call costs
/// exactly `cost` ticks, and the clock is read in steps of `step` ticks, as
/// a browser's is. Nothing here depends on the machine the test runs on.
struct SteppedClock {
    now: std::rc::Rc<Cell<u64>>,
    step: u64,
}

impl Platform for SteppedClock {
    fn clock(&self) -> Clock {
        Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds }
    }
    fn now(&mut self) -> u64 {
        self.now.get() / self.step * self.step
    }
    fn timer_resolution(&self) -> u64 {
        self.step
    }
    fn memory_start(&mut self) {}
    fn memory_stop(&mut self) -> MemoryUse {
        MemoryUse::default()
    }
}

/// One SHA-256 measurement on a [`SteppedClock`] of `step`, each call
/// costing what `cost` says.
fn time_on_stepped_clock(step: u64, min_iterations: u32, mut cost: impl FnMut() -> u64) -> Measurement {
    let now = std::rc::Rc::new(Cell::new(0));
    let mut platform = SteppedClock { now: now.clone(), step };
    let mut collected = Collected::default();
    let mut samples = [0u64; 32];
    let mut session = measure::Session::new(
        &mut platform,
        &mut collected,
        &Settings { min_iterations, min_time_ms: 0 },
        &mut samples,
        1,
    );
    session.throughput(Algorithm::Sha256, Operation::Hash, None, 64, || now.set(now.get() + cost()));
    let [m] = &collected.results[..] else { panic!("{:?}", collected.results) };
    *m
}

#[test]
fn batched_figures_round_by_less_than_five_percent() {
    let step = 5_000;
    // From far below one step (but at least 100 ticks, as a batch mean is a
    // whole number of ticks) to just below a batch of one, and odd costs
    // that never divide the step evenly.
    for cost in [100u64, 137, 999, 1_999, 4_999, 5_001, 19_999, 33_333, 124_999, 125_001] {
        let m = &time_on_stepped_clock(step, 7, || cost);
        let calls = u64::from(m.batch.unwrap_or(1));
        // A sample spans at least 25 steps: one step of rounding is under 4%.
        assert!(calls * cost >= 25 * step, "cost {cost}: {m:?}");
        let within = |figure: f64, what: &str| {
            let error = (figure - cost as f64).abs() / cost as f64;
            assert!(error < 0.05, "cost {cost}: {what} {figure} is {:.2}% off: {m:?}", error * 100.0);
        };
        within(m.total_ticks as f64 / f64::from(m.iterations), "the mean");
        within(m.min_ticks as f64, "the min");
        within(m.median_ticks as f64, "the median");
        within(m.max_ticks as f64, "the max");
        assert!(m.is_consistent(), "{m:?}");
    }
}

#[test]
fn a_cold_first_call_is_not_what_a_batch_is_sized_from() {
    // The first call costs 40 steps (code not cached, pages not touched),
    // every later one a tenth of a step: sized from the first, a sample
    // would be one call, read to a tenth of its true cost by the clock's
    // rounding. The untimed warm-up call takes the cold one.
    let step = 1_000;
    let calls_made = Cell::new(0u32);
    let m = time_on_stepped_clock(step, 5, || {
        calls_made.set(calls_made.get() + 1);
        if calls_made.get() == 1 { 40 * step } else { step / 10 }
    });
    let calls = m.batch.expect("batched: a warm call is a tenth of a step");
    assert!(u64::from(calls) * step / 10 >= 25 * step, "{m:?}");
    let mean = m.total_ticks as f64 / f64::from(m.iterations);
    assert!((mean - 100.0).abs() < 5.0, "a warm call is 100 ticks, not {mean}: {m:?}");
}

#[test]
fn a_batch_is_sized_by_steps_a_caller_who_awaits_can_take_one_at_a_time() {
    let clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };
    let settings = Settings { min_iterations: 3, min_time_ms: 0 };
    // A clock that resolves a call: no warm-up, no batch.
    assert_eq!(Rule::new(&settings, &clock, 1).start_sizing(), Sizing::Batch(1));
    // A 100 µs clock (a browser's): warm up once, then from one call up,
    // until a sample spans 26 steps (one of them for the rounding).
    let rule = Rule::new(&settings, &clock, 100_000);
    let mut step = rule.start_sizing();
    assert_eq!(step, Sizing::WarmUp);
    step = rule.after(step, 0);
    assert_eq!(step, Sizing::Time(1));
    // Below one step: grow sixteen-fold.
    step = rule.after(step, 0);
    assert_eq!(step, Sizing::Time(16));
    // 16 calls in 4 steps: 26 steps want 104 calls, and one more.
    step = rule.after(step, 400_000);
    assert_eq!(step, Sizing::Time(105));
    step = rule.after(step, 2_600_000);
    assert_eq!(step, Sizing::Batch(105));
    assert_eq!(rule.after(step, 0), Sizing::Batch(105), "done stays done");
}
