//! What a run's samples say: the figures of one operation's measurement
//! (min, percentiles, median, max, standard deviation), in exact integers,
//! so that every target rounds them alike.

use pqbench_types::{Algorithm, Measurement, Operation, Status};

/// The measurement of `samples` (each a call's time, or a batch's per-call
/// mean rounded down) of `batch` calls each, `total` ticks in all; memory
/// and throughput left for the caller. No sample: skipped, as nothing was
/// timed.
pub fn summarise(
    algorithm: Algorithm,
    operation: Operation,
    samples: &mut [u64],
    batch: u32,
    total: u64,
) -> Measurement {
    let done = samples.len();
    if done == 0 {
        return Measurement::untimed(algorithm, operation, Status::Skipped);
    }
    samples.sort_unstable();
    Measurement {
        iterations: done as u32 * batch,
        batch: (batch > 1).then_some(batch),
        total_ticks: total,
        min_ticks: samples[0],
        median_ticks: median(samples),
        max_ticks: samples[done - 1],
        stdev_ticks: standard_deviation(samples),
        p10_ticks: percentile(samples, 10),
        p90_ticks: percentile(samples, 90),
        p99_ticks: percentile(samples, 99),
        ..Measurement::untimed(algorithm, operation, Status::Ok)
    }
}

/// The samples' standard deviation with Bessel's correction, rounded to
/// the nearest tick; None for fewer than two samples, or sums too large
/// for 128 bits (none a board or browser can time). Exact integers: the
/// variance is `(n·Σx² − (Σx)²) / (n(n−1))`, and the rounded root
/// `⌊(⌊√(4v)⌋ + 1) / 2⌋`, so no float rounding varies between targets.
pub fn standard_deviation(samples: &[u64]) -> Option<u64> {
    let n = samples.len() as u128;
    if n < 2 {
        return None;
    }
    let (mut sum, mut squares) = (0u128, 0u128);
    for &x in samples {
        let x = u128::from(x);
        sum = sum.checked_add(x)?;
        squares = squares.checked_add(x.checked_mul(x)?)?;
    }
    // Never negative (Cauchy–Schwarz); checked all the same.
    let spread = n.checked_mul(squares)?.checked_sub(sum.checked_mul(sum)?)?;
    let four_variances = spread.checked_mul(4)? / (n * (n - 1));
    u64::try_from(four_variances.isqrt().div_ceil(2)).ok()
}

/// The `p`th percentile (0 < p < 100) of sorted samples by nearest rank:
/// the ⌈p·n/100⌉-th smallest, a sample as measured (as the median is).
/// `None` where that rank is the least or the greatest sample: a p99 of
/// fewer than 100 samples would be the max again under another name.
pub fn percentile(sorted: &[u64], p: u32) -> Option<u64> {
    let n = sorted.len();
    let rank = (p as usize).checked_mul(n)?.div_ceil(100);
    (rank > 1 && rank < n).then(|| sorted[rank - 1])
}

/// The median of sorted samples; for an even count, the lower middle, so
/// that the figure is one that was actually measured.
pub(crate) fn median(sorted: &[u64]) -> u64 {
    sorted[(sorted.len() - 1) / 2]
}
