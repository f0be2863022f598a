//! Runs side by side: each (algorithm, operation) across the runs picked,
//! and whether a figure moved from one run to the next beyond noise.

use alloc::vec::Vec;

use pqbench_types::{Algorithm, BenchResult, Operation, ResultRow};

use crate::{Column, Filter};

/// One (algorithm, operation) across compared runs: each run's result, in
/// the order the runs were picked, where that run has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared<'r> {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub by_run: Vec<Option<&'r BenchResult>>,
}

impl Compared<'_> {
    /// How many times the first run's figure in `column` the run at `index`
    /// has (for ops/s: how many times faster). None where either has none.
    pub fn ratio(&self, column: Column, index: usize) -> Option<f64> {
        let base = self.by_run.first().copied().flatten().and_then(|r| column.value(r))?;
        let other = self.by_run.get(index).copied().flatten().and_then(|r| column.value(r))?;
        (base > 0.0).then(|| other / base)
    }
}

/// Rows of several runs side by side: one line per (algorithm, operation)
/// any of `runs` measured, in the order they first appear (runs in the
/// order given, each in its suite order), filtered by `filter`.
pub fn compare<'r>(runs: &[i64], rows: &'r [ResultRow], filter: &Filter) -> Vec<Compared<'r>> {
    let mut lines: Vec<Compared<'r>> = Vec::new();
    for (index, &run) in runs.iter().enumerate() {
        for row in rows.iter().filter(|row| row.run_id == run && filter.keeps(&row.result)) {
            let r = &row.result;
            let at = match lines.iter().position(|l| (l.algorithm, l.operation) == (r.algorithm, r.operation))
            {
                Some(at) => at,
                None => {
                    lines.push(Compared {
                        algorithm: r.algorithm,
                        operation: r.operation,
                        by_run: alloc::vec![None; runs.len()],
                    });
                    lines.len() - 1
                }
            };
            lines[at].by_run[index] = Some(r);
        }
    }
    lines
}

/// Whether a run's figure moved from the run before by more than the two
/// runs' own spread: their ranges of per-call time (min to max) do not
/// overlap. Noise moves a median inside that range; a change of code or
/// build moves the whole range. None where either run has no range.
pub fn changed(before: &BenchResult, after: &BenchResult) -> Option<bool> {
    let range = |r: &BenchResult| Some((r.min_ms?, r.max_ms?));
    let ((low, high), (new_low, new_high)) = (range(before)?, range(after)?);
    Some(new_low > high || new_high < low)
}
