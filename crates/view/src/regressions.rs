//! Whether a run is slower than the runs before it, by named models.
//!
//! A run is judged only against earlier runs of its [`lineage`]: the same
//! board and source, built the same way (target, profile, opt-level, LTO,
//! features) and measuring the same implementation. What may differ along
//! a lineage is what a regression is made of: the code's revision and the
//! versions of the crates it uses. A run is never judged against another
//! board, build variant or implementation, whose figures differ for
//! reasons no commit caused.
//!
//! The models:
//! - [`Model::Percent`]: the mean time per call rose by more than a given
//!   percentage over the median of the earlier runs' means. Simple, and
//!   blind to noise: it is for figures known to be steady.
//! - [`Model::Welch`]: a t-test of the run's mean against the earlier
//!   runs' means. Runs differ from one another by more than their samples
//!   say: measured in Chromium, two ordinary runs of WebCrypto differ by 10
//!   to 50% with the state of the machine, and a test of their samples
//!   alone flagged 32 of 60 such pairs. So the unit of the test is the run:
//!   the spread of the earlier runs' means estimates how far one more run
//!   may fall from them with no change in the code, on `k - 1` degrees of
//!   freedom from `k` earlier runs (a prediction interval). Under the
//!   usual model of runs (a run's mean is the true mean, plus a normal
//!   run-to-run term, plus its samples' mean), the test's false rate is its
//!   level exactly, whatever the run-to-run spread and however few the
//!   runs; the simulation in the tests holds it to that. With one earlier
//!   run the spread is unknown and so is the verdict. A rise is flagged
//!   when the test rejects equal means at the given level and the mean
//!   rose. The name is the model's first form (Welch's test of samples
//!   plus a between-run term), kept because queries and gates name it.
//! - Deterministic: where every sample on both sides was the same (an
//!   emulator counting instructions), a t-test has no variance to work
//!   with, and none is needed: the counts are exact, so any rise is real.
//!   The Welch model judges such figures by this rule and says so.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use pqbench_types::{Algorithm, BenchResult, IMPLEMENTATION, Operation, Run, Status};

/// How many earlier runs of a lineage a run is judged against.
pub const BASELINE_RUNS: usize = 5;

/// A model a run is judged by, as named in a query (`percent:10`,
/// `welch:0.01`) and in each judgement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum Model {
    /// Slower when the mean per call rose by more than `percent`.
    Percent { percent: f64 },
    /// Slower when a t-test of the run's mean against the earlier runs'
    /// means rejects equality at level `alpha` (two-sided) and the mean
    /// rose; exact figures by the deterministic rule.
    Welch { alpha: f64 },
}

impl Model {
    /// The models a run is judged by when none is named.
    pub const DEFAULTS: [Model; 2] = [Model::Percent { percent: 10.0 }, Model::Welch { alpha: 0.01 }];

    /// `percent`, `percent:5`, `welch`, `welch:0.01`.
    pub fn parse(text: &str) -> Result<Model, ModelError> {
        let (name, value) = match text.split_once(':') {
            Some((name, value)) => (name, Some(value)),
            None => (text, None),
        };
        let number = |model: &'static str, default: f64, low: f64, high: f64| -> Result<f64, ModelError> {
            let Some(value) = value else { return Ok(default) };
            match value.parse::<f64>() {
                Ok(v) if v > low && v < high => Ok(v),
                _ => Err(ModelError::BadParameter { model, low, high, value: value.into() }),
            }
        };
        match name {
            "percent" => Ok(Model::Percent { percent: number("percent", 10.0, 0.0, 1e6)? }),
            "welch" => Ok(Model::Welch { alpha: number("welch", 0.01, 0.0, 1.0)? }),
            _ => Err(ModelError::Unknown(name.into())),
        }
    }

    pub fn name(&self) -> String {
        match self {
            Model::Percent { percent } => format!("percent:{percent}"),
            Model::Welch { alpha } => format!("welch:{alpha}"),
        }
    }
}

/// Why a model's name in a query was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("{model}'s parameter must be a number above {low} and below {high}, not {value:?}")]
    BadParameter { model: &'static str, low: f64, high: f64, value: String },
    #[error("unknown model {0:?}: choose percent[:P] or welch[:ALPHA]")]
    Unknown(String),
    #[error("models names none")]
    None,
    #[error("models names {0} models; {MAX_MODELS} at most")]
    TooMany(usize),
    #[error("models names {0} twice")]
    Twice(String),
}

/// The most models one request may judge by: each multiplies the
/// judgements a request computes (a handful covers every comparison a
/// person makes at once; 400 gave an 11.6 MB answer to a 4.8 KB GET).
pub const MAX_MODELS: usize = 4;

/// The models a comma-separated list names (`percent:10,welch:0.01`), or
/// the defaults where none is given: at most [`MAX_MODELS`], none twice
/// (by value: `percent:10` and `percent:10.0` are one model).
pub fn parse_models(text: Option<&str>) -> Result<Vec<Model>, ModelError> {
    let Some(text) = text else { return Ok(Model::DEFAULTS.to_vec()) };
    let named: Vec<&str> = text.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
    if named.len() > MAX_MODELS {
        return Err(ModelError::TooMany(named.len()));
    }
    let mut models: Vec<Model> = Vec::with_capacity(named.len());
    for name in named {
        let model = Model::parse(name)?;
        if models.contains(&model) {
            return Err(ModelError::Twice(name.into()));
        }
        models.push(model);
    }
    if models.is_empty() {
        return Err(ModelError::None);
    }
    Ok(models)
}

/// The lineage a run belongs to: runs with the same lineage measure the
/// same board, variant and implementation, and only their code may differ.
pub fn lineage(run: &Run) -> String {
    let b = &run.build;
    let field = |v: &Option<String>| v.as_deref().unwrap_or("").replace('|', "/");
    // An implementation named with its version (`noble-post-quantum@0.7.1`)
    // stays one lineage across versions: a new version is what is judged.
    let implementation = b.extra.get(IMPLEMENTATION).map(|i| i.split('@').next().unwrap_or(i)).unwrap_or("");
    format!(
        "{}|{}|{}|{}|{}|{}|{}|{}",
        run.source.as_str(),
        run.board.replace('|', "/"),
        field(&b.target),
        field(&b.profile),
        field(&b.opt_level),
        field(&b.lto),
        field(&b.features),
        implementation.replace('|', "/"),
    )
}

/// What a verdict says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Slower beyond the model's line: a regression.
    Slower,
    /// Faster beyond the model's line.
    Faster,
    /// Within the model's line.
    Unchanged,
    /// The model cannot tell from the runs there are (Welch's test needs
    /// two earlier runs to know how far runs differ from one another).
    Unknown,
}

/// One operation of one run judged by one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    pub algorithm: Algorithm,
    pub operation: Operation,
    /// The model, by name (`percent:10`, `welch:0.01`), or `deterministic`
    /// where the Welch model judged exact figures.
    pub model: String,
    pub verdict: Verdict,
    /// The runs judged against, newest first.
    pub against: Vec<i64>,
    /// Mean milliseconds per call before (the baseline) and in this run.
    pub before_ms: f64,
    pub after_ms: f64,
    /// `after / before - 1`, in percent.
    pub change_percent: f64,
    /// Welch's two-sided p-value; `None` for other models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// What crossed the line (or did not), in words and figures.
    pub why: String,
}

impl Judgement {
    pub fn is_regression(&self) -> bool {
        self.verdict == Verdict::Slower
    }
}

/// A result's figures as a test needs them: samples, mean and standard
/// deviation per call in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    n: f64,
    mean: f64,
    stdev: f64,
}

impl Sample {
    fn of(r: &BenchResult) -> Option<Sample> {
        if r.status != Status::Ok {
            return None;
        }
        Some(Sample { n: r.samples? as f64, mean: r.avg_ms?, stdev: r.stdev_ms? })
            .filter(|s| s.n >= 2.0 && s.mean.is_finite() && s.stdev.is_finite())
    }

    /// How far this sample's mean strays from its run's true mean by its
    /// samples' noise alone.
    fn variance_of_mean(&self) -> f64 {
        self.stdev * self.stdev / self.n
    }
}

/// The earlier runs of a lineage, as a test of a new run needs them. The
/// test's unit is the run, so each run weighs the same in every figure.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Baseline {
    /// How many runs.
    runs: f64,
    /// The mean of the runs' means.
    mean: f64,
    /// The variance of one run's mean about the others: the runs' own
    /// variation and their samples' noise together, on `runs - 1` degrees
    /// of freedom; `None` from a single run, where it cannot be told.
    of_means: Option<f64>,
    /// The variance a run's mean has from its own samples alone
    /// (`stdev² / n`), averaged over the runs: what the new run's mean
    /// would add beyond it had it fewer or noisier samples.
    sampling: f64,
    /// Every sample of every run the same.
    exact: bool,
}

impl Baseline {
    fn of(samples: &[Sample]) -> Option<Baseline> {
        if samples.is_empty() {
            return None;
        }
        let runs = samples.len() as f64;
        let mean = samples.iter().map(|s| s.mean).sum::<f64>() / runs;
        let of_means = (samples.len() >= 2)
            .then(|| samples.iter().map(|s| (s.mean - mean) * (s.mean - mean)).sum::<f64>() / (runs - 1.0));
        let sampling = samples.iter().map(Sample::variance_of_mean).sum::<f64>() / runs;
        let exact = samples.iter().all(|s| s.stdev == 0.0 && s.mean == samples[0].mean);
        Some(Baseline { runs, mean, of_means, sampling, exact })
    }
}

/// Judges `run`'s results by `models` against `earlier`: runs of its
/// lineage before it, newest first, each with its results (at most
/// [`BASELINE_RUNS`] are used). An operation no earlier run measured, or
/// whose figures lack what a model needs, gets no judgement by it.
pub fn judge(
    run: &(i64, Vec<BenchResult>),
    earlier: &[(i64, Vec<BenchResult>)],
    models: &[Model],
) -> Vec<Judgement> {
    let earlier = &earlier[..earlier.len().min(BASELINE_RUNS)];
    let mut out = Vec::new();
    for result in run.1.iter().filter(|r| r.status == Status::Ok) {
        let before: Vec<(i64, &BenchResult)> = earlier
            .iter()
            .filter_map(|(id, results)| {
                let same = results.iter().find(|b| {
                    b.algorithm == result.algorithm
                        && b.operation == result.operation
                        && b.status == Status::Ok
                })?;
                Some((*id, same))
            })
            .collect();
        if before.is_empty() {
            continue;
        }
        for model in models {
            if let Some(judgement) = judge_one(result, &before, *model) {
                out.push(judgement);
            }
        }
    }
    out
}

fn judge_one(after: &BenchResult, before: &[(i64, &BenchResult)], model: Model) -> Option<Judgement> {
    let judged =
        |model: String, verdict, against: Vec<i64>, before_ms: f64, after_ms: f64, p, why| Judgement {
            algorithm: after.algorithm,
            operation: after.operation,
            model,
            verdict,
            against,
            before_ms,
            after_ms,
            change_percent: (after_ms / before_ms - 1.0) * 100.0,
            p_value: p,
            why,
        };
    match model {
        Model::Percent { percent } => {
            let after_ms = after.avg_ms?;
            let mut means: Vec<f64> = before.iter().filter_map(|(_, r)| r.avg_ms).collect();
            let against: Vec<i64> =
                before.iter().filter(|(_, r)| r.avg_ms.is_some()).map(|(id, _)| *id).collect();
            if means.is_empty() {
                return None;
            }
            means.sort_by(f64::total_cmp);
            let before_ms = means[(means.len() - 1) / 2];
            if before_ms <= 0.0 {
                return None;
            }
            let change = (after_ms / before_ms - 1.0) * 100.0;
            let verdict = if change > percent {
                Verdict::Slower
            } else if change < -percent {
                Verdict::Faster
            } else {
                Verdict::Unchanged
            };
            let why = format!(
                "mean {after_ms:.6} ms per call against {before_ms:.6} ms (median of {} earlier runs): {change:+.2}%, line ±{percent}%",
                means.len()
            );
            Some(judged(model.name(), verdict, against, before_ms, after_ms, None, why))
        }
        Model::Welch { alpha } => {
            let new = Sample::of(after)?;
            let old: Vec<(i64, Sample)> =
                before.iter().filter_map(|(id, r)| Some((*id, Sample::of(r)?))).collect();
            let against: Vec<i64> = old.iter().map(|(id, _)| *id).collect();
            let samples: Vec<Sample> = old.iter().map(|(_, s)| *s).collect();
            let base = Baseline::of(&samples)?;
            if base.mean <= 0.0 {
                return None;
            }
            if base.exact && new.stdev == 0.0 {
                // Exact counts on both sides: any difference is real.
                let verdict = match new.mean.total_cmp(&base.mean) {
                    core::cmp::Ordering::Greater => Verdict::Slower,
                    core::cmp::Ordering::Less => Verdict::Faster,
                    core::cmp::Ordering::Equal => Verdict::Unchanged,
                };
                let why = format!(
                    "every sample the same on both sides (exact counts): mean {:.6} ms per call against {:.6} ms",
                    new.mean, base.mean
                );
                return Some(judged(
                    "deterministic".into(),
                    verdict,
                    against,
                    base.mean,
                    new.mean,
                    None,
                    why,
                ));
            }
            let Some(of_means) = base.of_means else {
                let why = format!(
                    "one earlier run: how far this lineage's runs differ from one another cannot be told from it, and a run's own samples do not say (mean {:.6} ms per call against {:.6} ms)",
                    new.mean, base.mean
                );
                return Some(judged(model.name(), Verdict::Unknown, against, base.mean, new.mean, None, why));
            };
            let (t, df) = run_means_t(&base, of_means, &new);
            let p = two_sided_p(t, df);
            let verdict = match (p < alpha, new.mean > base.mean) {
                (true, true) => Verdict::Slower,
                (true, false) => Verdict::Faster,
                (false, _) => Verdict::Unchanged,
            };
            let why = format!(
                "t = {t:.3} on {df} degrees of freedom, p = {p:.3e} against α = {alpha}: mean {:.6} ± {:.6} ms over {} samples against {:.6} ms, the mean of {} earlier runs' means, which vary by ±{:.6} ms from run to run",
                new.mean,
                new.stdev,
                new.n,
                base.mean,
                samples.len(),
                libm::sqrt(of_means),
            );
            Some(judged(model.name(), verdict, against, base.mean, new.mean, Some(p), why))
        }
    }
}

/// The t statistic of `new`'s mean against the earlier runs' mean, and its
/// degrees of freedom: a prediction of one more run from `k` runs.
///
/// With no change, the new mean differs from the earlier runs' mean by one
/// run's variation plus `1/k` of it; the earlier means' spread
/// (`of_means`) estimates that variation on `k - 1` degrees of freedom, so
/// `t` follows Student's law on `k - 1` when runs are alike. Two guards,
/// each only ever widening the line: a new run with fewer or noisier
/// samples than the earlier ones adds what its samples add beyond theirs;
/// and the difference's variance is never taken below what the samples
/// alone give (earlier means that happen to agree closely say nothing
/// about a new run's samples).
fn run_means_t(base: &Baseline, of_means: f64, new: &Sample) -> (f64, f64) {
    let k = base.runs;
    let predicted = of_means * (1.0 + 1.0 / k) + (new.variance_of_mean() - base.sampling).max(0.0);
    let sampled = new.variance_of_mean() + base.sampling / k;
    let variance = predicted.max(sampled);
    let difference = new.mean - base.mean;
    let t = if variance > 0.0 {
        difference / libm::sqrt(variance)
    } else if difference > 0.0 {
        f64::INFINITY
    } else if difference < 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    };
    (t, k - 1.0)
}

/// The two-sided p-value of Student's t with `df` degrees of freedom:
/// `I_{df/(df+t²)}(df/2, 1/2)`.
fn two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// `I_x(a, b)` by its continued fraction (Lentz's method), as in Numerical
/// Recipes' `betai`: converges in a few dozen terms for the arguments a
/// t-test gives.
fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = libm::exp(
        libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b) + a * libm::log(x) + b * libm::log(1.0 - x),
    );
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let away_from_zero = |v: f64| if libm::fabs(v) < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away_from_zero(1.0 - qab * x / qap);
    let mut h = d;
    // One term of the fraction into Lentz's running `c` and `d`; the
    // factor it multiplies `h` by.
    let term = |aa: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 / away_from_zero(1.0 + aa * *d);
        *c = away_from_zero(1.0 + aa / *c);
        *d * *c
    };
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        h *= term(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let step = term(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &mut c, &mut d);
        h *= step;
        if libm::fabs(step - 1.0) < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod false_rates;
