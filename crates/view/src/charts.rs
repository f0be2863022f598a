//! The charts a view draws, as `pqbench-plot` values: the results' ops/s
//! and memory, and one operation across the matrix's columns. The
//! dashboard draws these and offers their SVG; the server draws the same
//! for a shared report's image (`/reports/<id>.svg`), so the two are the
//! same bytes.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;

use pqbench_plot::{BarChart, Row, Series};
use pqbench_types::{BenchResult, Status};

use crate::format::{self as figures, MISSING};
use crate::matrix::{self, MatrixRow, MatrixView};
use crate::{Column, WorkPerOp};

fn label(r: &BenchResult) -> String {
    format!("{} {}", r.algorithm.as_str(), r.operation.as_str())
}

/// Why a row has no bar: its status, or that the figure was not measured.
fn missing(r: &BenchResult) -> String {
    match r.status {
        Status::Ok => "not measured".into(),
        status => status.as_str().replace('_', " "),
    }
}

/// ops/s per row, as wolfSSL's charts: a longer bar is faster.
pub fn speed(rows: &[BenchResult], log_scale: bool) -> BarChart {
    BarChart {
        title: "Operations per second".into(),
        series: vec![Series { name: "ops/s".into(), colour: "#2456c7" }],
        rows: rows
            .iter()
            .map(|r| Row {
                label: label(r),
                values: vec![r.ops_per_sec.map(|v| (v, format!("{} ops/s", figures::rate(Some(v)))))],
                missing: missing(r),
            })
            .collect(),
        log_scale,
    }
}

/// Peak stack and heap per row.
pub fn memory(rows: &[BenchResult]) -> BarChart {
    let bytes = |v: Option<u64>| v.map(|b| (b as f64, figures::bytes(Some(b))));
    BarChart {
        title: "Peak stack and heap".into(),
        series: vec![
            Series { name: "stack".into(), colour: "#2456c7" },
            Series { name: "heap".into(), colour: "#d9822b" },
        ],
        rows: rows
            .iter()
            .map(|r| Row {
                label: label(r),
                values: vec![bytes(r.stack_bytes), bytes(r.heap_bytes)],
                missing: missing(r),
            })
            .collect(),
        log_scale: false,
    }
}

/// A matrix column's label: its board and build.
pub fn column_label(board: &str, build_label: &str) -> String {
    format!("{board} · {build_label}")
}

/// What a figure's choice and header say.
pub fn figure_label(figure: Column) -> &'static str {
    match figure {
        Column::OpsPerSec => "ops/s",
        Column::CyclesPerOp => "cycles (or instructions) per op",
        Column::ModelCycles => "cycles per op, estimated (M4 model) on an emulator, counted elsewhere",
        Column::AvgMs => "average time",
        Column::MedianMs => "median time",
        Column::MinMs => "fastest call",
        Column::P10Ms => "10th percentile time",
        Column::P90Ms => "90th percentile time",
        Column::P99Ms => "99th percentile time",
        Column::MaxMs => "slowest call",
        Column::HeapBytes => "peak heap",
        Column::StackBytes => "peak stack",
        Column::CodeBytes => "code size",
        Column::BytesPerSec => "throughput",
        Column::HeapAllocs => "heap allocations",
    }
}

/// A cell's text: the figure in its unit, or why there is none.
pub fn cell_text(figure: Column, r: &BenchResult) -> String {
    let Some(value) = matrix::value(figure, r) else {
        return match r.status {
            Status::Ok => MISSING.into(),
            status => status.as_str().replace('_', " "),
        };
    };
    let bytes = |v: f64| figures::bytes(Some(v as u64));
    match figure {
        Column::OpsPerSec => figures::rate(Some(value)),
        Column::CyclesPerOp => match WorkPerOp::of(r) {
            Some(work) => format!("{} {}", figures::ticks(Some(work.value())), work.unit()),
            None => MISSING.to_string(),
        },
        // An estimate says so in its unit; a count is a count.
        Column::ModelCycles => match &r.model {
            Some(_) => format!("{} {}", figures::ticks(Some(value)), pqbench_types::MODEL_CYCLES_UNIT),
            None => format!("{} cycles", figures::ticks(Some(value))),
        },
        Column::AvgMs
        | Column::MedianMs
        | Column::MinMs
        | Column::MaxMs
        | Column::P10Ms
        | Column::P90Ms
        | Column::P99Ms => {
            let time = figures::duration_ms(Some(value));
            // A time worked out from the model's cycles says it is an estimate.
            if crate::estimate::is_estimated(r) { format!("≈{time} (est.)") } else { time }
        }
        Column::HeapBytes | Column::StackBytes | Column::CodeBytes => bytes(value),
        Column::BytesPerSec => figures::throughput(Some(value)),
        Column::HeapAllocs => figures::count(Some(value as u64)),
    }
}

/// The matrix's chart: one operation across the columns (labelled
/// `labels`), the one `settings` chose or the first row; None without rows.
pub fn matrix(labels: &[String], rows: &[MatrixRow<'_>], settings: &MatrixView) -> Option<BarChart> {
    let figure = settings.figure;
    let row = settings.chart.and_then(|named| rows.iter().find(|r| r.named == named)).or(rows.first())?;
    Some(BarChart {
        title: format!("{}: {}", row.named.describe(), figure_label(figure)),
        series: vec![Series { name: figure_label(figure).into(), colour: "#2456c7" }],
        rows: labels
            .iter()
            .zip(&row.cells)
            .map(|(label, cell)| Row {
                label: label.clone(),
                values: vec![cell.and_then(|r| matrix::value(figure, r).map(|v| (v, cell_text(figure, r))))],
                missing: cell.map_or_else(|| "not measured".into(), |r| cell_text(figure, r)),
            })
            .collect(),
        log_scale: false,
    })
}
