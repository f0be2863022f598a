//! The columns a table of results has, each row's figure in them, and a
//! table's order by one of them.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use pqbench_types::BenchResult;

/// A column a table can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    OpsPerSec,
    AvgMs,
    CyclesPerOp,
    /// The emulator's Cortex-M4 timing model's estimate: a column of its
    /// own, so that no estimate sits among counted cycles.
    ModelCycles,
    MinMs,
    /// The samples' percentiles, where enough were timed (see
    /// `Measurement::p10_ticks`).
    P10Ms,
    MedianMs,
    P90Ms,
    P99Ms,
    MaxMs,
    HeapBytes,
    HeapAllocs,
    StackBytes,
    BytesPerSec,
    CodeBytes,
}

impl Column {
    pub const ALL: &'static [Column] = &[
        Column::OpsPerSec,
        Column::AvgMs,
        Column::CyclesPerOp,
        Column::ModelCycles,
        Column::MinMs,
        Column::P10Ms,
        Column::MedianMs,
        Column::P90Ms,
        Column::P99Ms,
        Column::MaxMs,
        Column::HeapBytes,
        Column::HeapAllocs,
        Column::StackBytes,
        Column::BytesPerSec,
        Column::CodeBytes,
    ];

    /// The result field's name in the API (and the table's `data-field`).
    pub const fn key(self) -> &'static str {
        match self {
            Column::OpsPerSec => "ops_per_sec",
            Column::AvgMs => "avg_ms",
            Column::CyclesPerOp => "cycles_per_op",
            Column::ModelCycles => "model_cycles_per_op",
            Column::MinMs => "min_ms",
            Column::P10Ms => "p10_ms",
            Column::MedianMs => "median_ms",
            Column::P90Ms => "p90_ms",
            Column::P99Ms => "p99_ms",
            Column::MaxMs => "max_ms",
            Column::HeapBytes => "heap_bytes",
            Column::HeapAllocs => "heap_allocs",
            Column::StackBytes => "stack_bytes",
            Column::BytesPerSec => "bytes_per_sec",
            Column::CodeBytes => "code_bytes",
        }
    }

    pub fn from_key(key: &str) -> Option<Column> {
        Column::ALL.iter().copied().find(|c| c.key() == key)
    }

    pub const fn label(self) -> &'static str {
        match self {
            Column::OpsPerSec => "ops/s",
            Column::AvgMs => "Average",
            // Each cell names its unit: cycles on a chip, instructions on
            // an emulator; a clock of time has none.
            Column::CyclesPerOp => "Cycles or instr./op",
            Column::ModelCycles => "Cycles/op, estimated (M4 model)",
            Column::MinMs => "Min",
            Column::P10Ms => "P10",
            Column::MedianMs => "Median",
            Column::P90Ms => "P90",
            Column::P99Ms => "P99",
            Column::MaxMs => "Max",
            Column::HeapBytes => "Heap",
            Column::HeapAllocs => "Allocs",
            Column::StackBytes => "Stack",
            Column::BytesPerSec => "Throughput",
            Column::CodeBytes => "Code",
        }
    }

    /// Whether the row has something to show in this column: its figure,
    /// or for the count of work an emulator's instructions, which the cell
    /// shows (never as cycles) where `value` has none.
    pub fn has_figure(self, r: &BenchResult) -> bool {
        match self {
            Column::CyclesPerOp => crate::WorkPerOp::of(r).is_some(),
            _ => self.value(r).is_some(),
        }
    }

    /// The columns a table of `rows` draws, in their order: those at least
    /// one row has a figure in. A column of dashes alone (code size for a
    /// board's run, percentiles for an imported log) says nothing and takes
    /// the width a 1280-pixel screen needs for the rest.
    pub fn with_figures<'r>(rows: impl IntoIterator<Item = &'r BenchResult> + Clone) -> Vec<Column> {
        Column::ALL
            .iter()
            .copied()
            .filter(|column| rows.clone().into_iter().any(|r| column.has_figure(r)))
            .collect()
    }

    /// The row's figure in this column, if it has one.
    pub fn value(self, r: &BenchResult) -> Option<f64> {
        let integer = |v: Option<u64>| v.map(|v| v as f64);
        match self {
            Column::OpsPerSec => r.ops_per_sec,
            Column::AvgMs => r.avg_ms,
            Column::CyclesPerOp => r.cycles_per_op,
            Column::ModelCycles => r.model.as_ref().map(|model| model.cycles_per_op),
            Column::MinMs => r.min_ms,
            Column::P10Ms => r.p10_ms,
            Column::MedianMs => r.median_ms,
            Column::P90Ms => r.p90_ms,
            Column::P99Ms => r.p99_ms,
            Column::MaxMs => r.max_ms,
            Column::HeapBytes => integer(r.heap_bytes),
            Column::HeapAllocs => integer(r.heap_allocs),
            Column::StackBytes => integer(r.stack_bytes),
            Column::BytesPerSec => r.bytes_per_sec,
            Column::CodeBytes => integer(r.code_bytes),
        }
    }
}

/// A table's order: `None` in a [`View`] keeps the suite's own order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}
