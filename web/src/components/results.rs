//! The open run's results: filtered and sorted as the view says, as a
//! table, as files to download and as charts.

use leptos::either::Either;
use leptos::prelude::*;
use pqbench_types::{BenchResult, MODEL_CYCLES_UNIT, ModelEstimate, Status};
use pqbench_view::{Column, HistoryOf, Sort, View, WorkPerOp, key_format};

use super::chart;
use crate::components::{Filters, Share, Table, muted};
use crate::context::{Alert, RunList, Shown};
use crate::{api, format};

#[component]
pub fn Results() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    // None where they could not be loaded (the banner says why), or where
    // no run is open.
    let results = LocalResource::new(move || {
        // `try_`: asked again as its page is left, it asks for nothing.
        let open = shown.selected.try_get().flatten();
        async move {
            let id = open?;
            alert.check(api::run_results(id).await)
        }
    });
    let picked = Memo::new(move |_| shown.selected.try_get().flatten().is_some());
    let content = move || {
        if !picked.get() {
            return muted("Pick a run to see its results.");
        }
        view! {
            <Suspense fallback=|| muted("Loading…")>
                {move || {
                    results
                        .get()
                        .map(|results| match results {
                            None => muted("The results could not be loaded."),
                            Some(results) if results.is_empty() => muted("This run has no results."),
                            Some(results) => results_view(&shown.view.get(), &results),
                        })
                }}
            </Suspense>
        }
        .into_any()
    };
    // The open run's board fell back to another clock: its figures are not
    // the board's usual ones, which is the first thing to know of them.
    let runs = expect_context::<RunList>();
    let clock_warning = move || {
        let warning = shown.selected.get().and_then(|id| runs.clock_warning_of(id))?;
        Some(view! { <p class="warning clock-warning" role="note">{warning}</p> })
    };
    // What the cycles below were counted with, beside them.
    let memory_timing = move || {
        let timing = shown.selected.get().and_then(|id| runs.memory_timing_of(id))?.describe();
        Some(view! { <p class="note memory-timing">"Cycles counted at " {timing}</p> })
    };
    view! {
        <section id="results">
            <h2>"Results" {move || shown.selected.get().map(|id| format!(" of run {id}"))}</h2>
            {clock_warning}
            {memory_timing}
            {(!shown.read_only()).then(|| view! { <Share /> })}
            <Filters />
            {content}
        </section>
    }
}

fn results_view(view: &View, results: &[BenchResult]) -> AnyView {
    let shown: Vec<BenchResult> = view.apply(results).into_iter().cloned().collect();
    if shown.is_empty() {
        return muted("No results match these filters.");
    }
    // Only the columns some shown row has a figure in: a column of dashes
    // says nothing and costs the width the others need.
    let columns = Column::with_figures(&shown);
    let head = view! {
        <th>"Algorithm"</th>
        <th>"Operation"</th>
        <th>"Status"</th>
        {columns.iter().map(|&column| sort_header(column)).collect_view()}
    };
    let rows = shown.iter().cloned().map(|r| result_row(r, &columns)).collect_view();
    let exports = exports(view, &shown);
    view! {
        <Table head>{rows}</Table>
        {exports}
        <Charts shown />
    }
    .into_any()
}

/// The shown rows, in their order, as files: CSV in `pqbench export`'s
/// columns, and JSON with the view that chose them.
fn exports(view: &View, shown: &[BenchResult]) -> impl IntoView + use<> {
    let name = view.runs.first().map_or_else(|| "pqbench".to_string(), |id| format!("pqbench-run-{id}"));
    let csv = pqbench_view::csv::csv(shown);
    let json = serde_json::json!({ "view": view, "results": shown }).to_string();
    let href =
        |mime: &str, text: &str| format!("data:{mime};charset=utf-8,{}", js_sys::encode_uri_component(text));
    view! {
        <p class="exports">
            "Download these rows: "
            <a id="export-csv" href=href("text/csv", &csv) download=format!("{name}.csv")>
                "CSV"
            </a>
            " · "
            <a id="export-json" href=href("application/json", &json) download=format!("{name}.json")>
                "JSON"
            </a>
        </p>
    }
}

/// The shown rows as charts: ops/s (longer is faster) and memory, in the
/// table's order, each with its SVG to download.
#[component]
fn Charts(shown: Vec<BenchResult>) -> impl IntoView {
    let page = expect_context::<Shown>();
    let log_scale = move || page.view.with(|view| view.log_scale);
    let speed = chart::speed(&shown, log_scale());
    let memory = chart::memory(&shown);
    view! {
        <div class="charts">
            <label class="chart-scale">
                <input
                    type="checkbox"
                    id="chart-log"
                    disabled=page.read_only()
                    prop:checked=log_scale
                    on:change=move |e| {
                        let on = event_target_checked(&e);
                        page.edit(|view| view.log_scale = on);
                    }
                />
                " Logarithmic scale"
            </label>
            {chart::figure("chart-ops", "pqbench-ops.svg", speed)}
            {chart::figure("chart-memory", "pqbench-memory.svg", memory)}
        </div>
    }
}

/// A numeric column's header: a button that sorts by it, descending first
/// (the biggest figure is the usual question), then ascending.
fn sort_header(column: Column) -> impl IntoView {
    let shown = expect_context::<Shown>();
    let current = move || shown.view.with(|view| view.sort.filter(|sort| sort.column == column));
    let aria = move || match current() {
        Some(Sort { descending: true, .. }) => "descending",
        Some(Sort { descending: false, .. }) => "ascending",
        None => "none",
    };
    let arrow = move || match current() {
        Some(Sort { descending: true, .. }) => " ↓",
        Some(Sort { descending: false, .. }) => " ↑",
        None => "",
    };
    let toggle = move |_| {
        shown.edit(|view| {
            let descending = !matches!(view.sort, Some(Sort { column: c, descending: true }) if c == column);
            view.sort = Some(Sort { column, descending });
        })
    };
    view! {
        <th class="num" aria-sort=aria>
            <button class="sort" data-sort=column.key() disabled=shown.read_only() on:click=toggle>
                {column.label()}
                {arrow}
            </button>
        </th>
    }
}

/// The timing model's estimate, in its own unit and never as cycles: the
/// cell's title says what share went to hashing and where the most went.
fn model_cell(model: Option<ModelEstimate>) -> impl IntoView {
    let value = model.as_ref().map(|model| model.cycles_per_op.to_string());
    let title = model.as_ref().map(model_summary);
    let text = model.map(|model| {
        view! {
            <span data-field="model_cycles">{format::ticks(Some(model.cycles_per_op))}</span>
            " "
            <span class="unit">{MODEL_CYCLES_UNIT}</span>
        }
    });
    view! {
        <td class="num" data-field="model_cycles_per_op" data-value=value title=title>
            {text}
        </td>
    }
}

/// What a hover over an estimate tells: that it is one, the hashing share
/// and the costliest functions.
fn model_summary(model: &ModelEstimate) -> String {
    let mut text = format!("estimated (M4 model, {}), not measured", model.parameters);
    if let Some(share) = model.hashing_share {
        text.push_str(&format!("; Keccak/SHA-3 {:.1}%", share * 100.0));
        if let Some(per_call) = model.hashing_share_per_call {
            text.push_str(&format!(" ({:.1}% per call, as pqm4 takes it)", per_call * 100.0));
        }
    }
    if !model.harness.is_empty() {
        let harness: Vec<String> = model
            .harness
            .iter()
            .map(|h| format!("{} {}", h.class, format::ticks(Some(h.cycles_per_op))))
            .collect();
        text.push_str(&format!("; the harness's, not the implementation's: {}", harness.join(", ")));
    }
    for function in model.functions.iter().take(5) {
        text.push_str(&format!("\n{} {}", format::ticks(Some(function.cycles_per_op)), function.name));
    }
    text
}

fn result_row(r: BenchResult, columns: &[Column]) -> impl IntoView + use<> {
    let shown = expect_context::<Shown>();
    let runs = expect_context::<RunList>();
    let (algorithm, operation) = (r.algorithm, r.operation);
    let show_history = move |_| {
        let board = shown.selected.get_untracked().and_then(|id| runs.board_of(id));
        if let Some(board) = board {
            shown.edit(|view| view.history = Some(HistoryOf { board, algorithm, operation }));
        }
    };
    let status = r.status.as_str();
    let figures = columns.iter().map(|&column| figure_cell(column, &r)).collect_view();
    view! {
        <tr data-algorithm=r.algorithm.as_str() data-operation=r.operation.as_str() data-status=status>
            <td data-field="algorithm">
                {r.algorithm.as_str()}
                <button class="history-link" title="This operation on this board over time" on:click=show_history>
                    "history"
                </button>
            </td>
            <td data-field="operation">
                {r.operation.as_str()}
                {r.key_format.map(|keys| {
                    view! {
                        <span class="note" data-field="key_format" data-value=keys.as_str() title=key_format::meaning(keys)>
                            {key_format::label(keys)}
                        </span>
                    }
                })}
            </td>
            <td data-field="status">
                {if r.status == Status::Ok {
                    Either::Left(status)
                } else {
                    Either::Right(
                        view! { <span class=format!("badge status-{status}")>{status.replace('_', " ")}</span> },
                    )
                }}
                {r.note.clone().map(|note| view! { <span class="note">{note}</span> })}
            </td>
            {figures}
        </tr>
    }
}

/// A row's cell in one figure's column, its value in `data-value` as stored.
fn figure_cell(column: Column, r: &BenchResult) -> AnyView {
    let integer = |v: Option<u64>| v.map(|v| v as f64);
    let text = match column {
        // Each count says what it is: cycles from a chip's counter,
        // instructions from an emulator (never read as cycles), and
        // nothing for a clock of time (its figure is the time columns').
        Column::CyclesPerOp => {
            let work = WorkPerOp::of(r).map(|work| {
                let class = if matches!(work, WorkPerOp::Cycles(_)) { "" } else { "muted" };
                view! {
                    <span class=class data-field="ticks_per_op">{format::ticks(Some(work.value()))}</span>
                    " "
                    <span class="unit">{work.unit()}</span>
                }
            });
            return view! {
                <td class="num" data-field="cycles_per_op" data-value=r.cycles_per_op.map(|v| v.to_string())>
                    {work}
                </td>
            }
            .into_any();
        }
        Column::ModelCycles => return model_cell(r.model.clone()).into_any(),
        Column::OpsPerSec => format::rate(r.ops_per_sec),
        Column::AvgMs
        | Column::MinMs
        | Column::P10Ms
        | Column::MedianMs
        | Column::P90Ms
        | Column::P99Ms
        | Column::MaxMs => format::duration_ms(column.value(r)),
        Column::HeapBytes => format::bytes(r.heap_bytes),
        Column::HeapAllocs => format::count(r.heap_allocs),
        Column::StackBytes => format::bytes(r.stack_bytes),
        Column::BytesPerSec => format::throughput(r.bytes_per_sec),
        Column::CodeBytes => format::bytes(r.code_bytes),
    };
    let value = match column {
        Column::HeapBytes => integer(r.heap_bytes),
        Column::HeapAllocs => integer(r.heap_allocs),
        Column::StackBytes => integer(r.stack_bytes),
        Column::CodeBytes => integer(r.code_bytes),
        _ => column.value(r),
    };
    view! {
        <td class="num" data-field=column.key() data-value=value.map(|v| v.to_string())>
            {text}
        </td>
    }
    .into_any()
}
