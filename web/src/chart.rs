//! The results table's rows as `pqbench-plot` charts.

use leptos::prelude::*;
use pqbench_plot::{BarChart, Row, Series};
use pqbench_types::{BenchResult, Status};

use crate::format;

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
                values: vec![r.ops_per_sec.map(|v| (v, format!("{} ops/s", format::rate(Some(v)))))],
                missing: missing(r),
            })
            .collect(),
        log_scale,
    }
}

/// Peak stack and heap per row.
pub fn memory(rows: &[BenchResult]) -> BarChart {
    let bytes = |v: Option<u64>| v.map(|b| (b as f64, format::bytes(Some(b))));
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

/// Anything `pqbench-plot` draws.
pub trait Svg {
    fn to_svg(&self) -> String;
}

impl Svg for BarChart {
    fn to_svg(&self) -> String {
        BarChart::to_svg(self)
    }
}

impl Svg for pqbench_plot::LineChart {
    fn to_svg(&self) -> String {
        pqbench_plot::LineChart::to_svg(self)
    }
}

/// A chart drawn inline, with a link that downloads the same SVG.
pub fn figure(id: &'static str, file: &'static str, chart: impl Svg) -> impl IntoView {
    let svg = chart.to_svg();
    let href = format!("data:image/svg+xml;charset=utf-8,{}", js_sys::encode_uri_component(&svg));
    view! {
        <figure class="chart" id=id>
            <div class="svg" inner_html=svg />
            <figcaption>
                <a class="download" href=href download=file>
                    "Download SVG"
                </a>
            </figcaption>
        </figure>
    }
}
