//! How often the Welch model calls a run slower when nothing changed: a
//! simulation of lineages over the real `judge`.
//!
//! Each simulated run has a true mean shifted by a normal run-to-run term
//! (the machine's state: 1 to 20% here), and its samples scatter about that
//! by 5% each, 10 to 40 of them (the browser's batches). The new run is drawn
//! the same way, so every "slower" is false. Print the table with
//! `cargo test -p pqbench-view false_slower -- --nocapture`.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;

use super::*;

/// SplitMix64: a simulation that gives the same figures on every machine.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform on (0, 1), never 0.
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal, by Box and Muller.
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        libm::sqrt(-2.0 * libm::log(u)) * libm::cos(2.0 * core::f64::consts::PI * v)
    }
}

const TRUE_MS: f64 = 1.0;
const SAMPLE_NOISE: f64 = 0.05;

/// One run's result: its mean, standard deviation and count, from samples.
fn simulated_run(random: &mut Random, spread: f64) -> BenchResult {
    let run_mean = TRUE_MS * (1.0 + spread * random.normal());
    let n = 10 + (random.next() % 31) as usize;
    let samples: Vec<f64> = (0..n).map(|_| run_mean + TRUE_MS * SAMPLE_NOISE * random.normal()).collect();
    let mean = samples.iter().sum::<f64>() / n as f64;
    let variance = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    BenchResult {
        avg_ms: Some(mean),
        stdev_ms: Some(libm::sqrt(variance)),
        samples: Some(n as u64),
        ..BenchResult::unmeasured(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
    }
}

const SPREADS: [f64; 5] = [0.01, 0.02, 0.05, 0.10, 0.20];
const EARLIER: [usize; 4] = [2, 3, 4, 5];
const ALPHAS: [f64; 2] = [0.01, 0.05];
const TRIALS: usize = 20_000;

#[test]
fn false_slower_at_most_the_nominal_rate_for_two_to_five_earlier_runs_and_any_spread() {
    let models = ALPHAS.map(|alpha| Model::Welch { alpha });
    let mut random = Random(0x5eed_0f9b_3ec4_a100);
    let mut failures = Vec::new();
    std::println!(
        "spread | earlier runs | false slower at α = 0.01 (nominal 0.5%) | at α = 0.05 (nominal 2.5%)"
    );
    for spread in SPREADS {
        // [earlier runs][alpha]
        let mut slower = [[0usize; ALPHAS.len()]; EARLIER.len()];
        for _ in 0..TRIALS {
            let earlier: Vec<(i64, Vec<BenchResult>)> =
                (0..5).map(|id| (id, vec![simulated_run(&mut random, spread)])).collect();
            let new = (9, vec![simulated_run(&mut random, spread)]);
            for (e, &k) in EARLIER.iter().enumerate() {
                let judged = judge(&new, &earlier[..k], &models);
                assert_eq!(judged.len(), ALPHAS.len(), "{judged:?}");
                for (a, judgement) in judged.iter().enumerate() {
                    slower[e][a] += usize::from(judgement.verdict == Verdict::Slower);
                }
            }
        }
        for (e, &k) in EARLIER.iter().enumerate() {
            let rates = slower[e].map(|count| count as f64 / TRIALS as f64);
            std::println!(
                "{:>5.0}% | {k} | {:.2}% | {:.2}%",
                spread * 100.0,
                rates[0] * 100.0,
                rates[1] * 100.0
            );
            for (a, alpha) in ALPHAS.iter().enumerate() {
                // "Slower" is one side of a two-sided test: α/2 is nominal.
                let nominal = alpha / 2.0;
                // Three standard errors of a rate measured over TRIALS.
                let allowed = nominal + 3.0 * libm::sqrt(nominal * (1.0 - nominal) / TRIALS as f64);
                if rates[a] > allowed {
                    failures.push(format!(
                        "spread {spread}, {k} earlier runs, α = {alpha}: {:.2}% false slower, above {:.2}%",
                        rates[a] * 100.0,
                        allowed * 100.0
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_simulated_runs_are_what_they_say() {
    // The generator's own check: a run-to-run spread of 10% shows as 10%
    // in the runs' means, and the samples' 5% in their deviations.
    let mut random = Random(7);
    let runs: Vec<BenchResult> = (0..4000).map(|_| simulated_run(&mut random, 0.10)).collect();
    let means: Vec<f64> = runs.iter().map(|r| r.avg_ms.unwrap()).collect();
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    let spread = libm::sqrt(means.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / means.len() as f64);
    assert!((mean - 1.0).abs() < 0.01, "{mean}");
    // 10% between runs plus a 5%/√25 sample mean's noise: √(0.1² + 0.01²).
    assert!((spread - 0.1005).abs() < 0.005, "{spread}");
    let stdev = runs.iter().map(|r| r.stdev_ms.unwrap()).sum::<f64>() / runs.len() as f64;
    assert!((stdev - 0.05).abs() < 0.002, "{stdev}");
}
