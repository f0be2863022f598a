//! Which rows a view keeps, and in which order.

use alloc::vec::Vec;
use core::cmp::Ordering;

use serde::{Deserialize, Serialize};

use pqbench_types::{Algorithm, BenchResult, Family, Operation};

use crate::{Sort, View};

/// Which rows a view keeps; an empty list keeps every value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Filter {
    pub families: Vec<Family>,
    pub algorithms: Vec<Algorithm>,
    pub operations: Vec<Operation>,
}

impl Filter {
    pub fn keeps(&self, r: &BenchResult) -> bool {
        fn keeps<T: PartialEq>(chosen: &[T], value: T) -> bool {
            chosen.is_empty() || chosen.contains(&value)
        }
        // An algorithm is in its family and, if post-quantum, its kind.
        (self.families.is_empty() || self.families.iter().any(|&family| r.algorithm.is_in(family)))
            && keeps(&self.algorithms, r.algorithm)
            && keeps(&self.operations, r.operation)
    }
}

impl View {
    /// The rows this view keeps, in its order. The sort is stable, so rows
    /// with equal figures keep the suite's order, and a row without a figure
    /// in the sort column goes last whichever the direction.
    pub fn apply<'r>(&self, rows: &'r [BenchResult]) -> Vec<&'r BenchResult> {
        let mut kept: Vec<&BenchResult> = rows.iter().filter(|r| self.filter.keeps(r)).collect();
        if let Some(Sort { column, descending }) = self.sort {
            kept.sort_by(|a, b| match (column.value(a), column.value(b)) {
                (Some(x), Some(y)) => {
                    let order = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
                    if descending { order.reverse() } else { order }
                }
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            });
        }
        kept
    }
}
