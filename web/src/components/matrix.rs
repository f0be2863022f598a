//! The matrix: operations as rows, runs as columns (the latest complete
//! run of each board and build, or runs picked to compare), one figure a
//! cell, as `pqbench_view::matrix` arranges them; a chart of one operation
//! across the columns; and two columns chosen as a pair (`matrix_pair.rs`
//! says what the pair and each column's post-quantum costs are).

use leptos::prelude::*;
use pqbench_api::{Matrix as Loaded, MatrixColumn, ResultQuery, RunRegressions};
use pqbench_view::matrix::{self, Likeness, MatrixOrder, MatrixRow, MatrixView, Named, SortBy};
use pqbench_view::{Column, MemoryTiming, View, WorkPerOp, charts, mixed_timing_warning};

use super::{chart, matrix_controls, matrix_pair};
use crate::components::{Share, Table, muted, unfinished_badge};
use crate::context::{Alert, Shown};
use crate::{api, format, regression};

/// The figures a cell can show, in the order the choice offers them.
pub(crate) const FIGURES: &[Column] = &[
    Column::OpsPerSec,
    Column::CyclesPerOp,
    Column::ModelCycles,
    Column::AvgMs,
    Column::MedianMs,
    Column::MinMs,
    Column::MaxMs,
    Column::P10Ms,
    Column::P90Ms,
    Column::P99Ms,
    Column::HeapBytes,
    Column::StackBytes,
    Column::CodeBytes,
    Column::BytesPerSec,
    Column::HeapAllocs,
];

/// The request for a view's matrix: its columns' filters, its chosen runs,
/// and the names it keeps (a family is kept here, from every result).
/// The matrix of the shown view. `id` is the section's (`matrix` on the
/// home page, `compare` for runs picked to compare).
#[component]
pub fn Matrix(
    id: &'static str,
    title: &'static str,
    /// Runs the view must name (Compare's two), else the section asks for
    /// them.
    #[prop(optional)]
    at_least: usize,
) -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    // Only a new request fetches again, not a new sort, figure or pair.
    // Read with `try_`: when the address bar changes as its page is left,
    // this request may be asked for again after the page disposed what it
    // reads; it then asks for nothing.
    let query = Memo::new(move |_| shown.view.try_with(ResultQuery::of_matrix));
    let loaded = LocalResource::new(move || {
        let query = query.try_get().flatten();
        async move {
            let query = query?;
            alert.check(api::matrix(&query).await)
        }
    });
    // The columns' runs judged against the earlier runs of their lineages,
    // once the columns are known; empty until then or if it failed (the
    // banner says why), so the figures never wait on it.
    let judged = LocalResource::new(move || {
        let runs: Vec<i64> = loaded
            .get()
            .flatten()
            .map(|loaded| loaded.columns.iter().map(|c| c.run.id).collect())
            .unwrap_or_default();
        async move {
            if runs.is_empty() {
                return Vec::new();
            }
            alert.check(api::regressions_of_runs(&runs).await).unwrap_or_default()
        }
    });
    view! {
        <section id=id class="matrix">
            <h2>{title}</h2>
            <Transition fallback=|| muted("Loading…")>
                {move || {
                    loaded
                        .get()
                        .map(|loaded| match loaded {
                            None => muted("The matrix could not be loaded."),
                            // A page being left may have disposed its view.
                            Some(loaded) => match shown.view.try_get() {
                                Some(view) if view.runs.len() < at_least => {
                                    muted("Pick two or more runs on the Runs page to compare them.")
                                }
                                Some(view) => matrix_view(&view, loaded, &judged.get().unwrap_or_default()),
                                None => muted("Loading…"),
                            },
                        })
                }}
            </Transition>
        </section>
    }
}

fn matrix_view(view: &View, loaded: Loaded, judged: &[RunRegressions]) -> AnyView {
    let shown = expect_context::<Shown>();
    let settings = view.matrix.clone().unwrap_or_default();
    let columns: Vec<i64> = loaded.columns.iter().map(|c| c.run.id).collect();
    // With a model clock chosen, emulated boards' times are the timing
    // model's estimate at it.
    let results = pqbench_view::estimate::shown(&loaded.results, settings.model_clock_hz);
    let rows = matrix::rows(&columns, &results, &view.filter, &settings);
    let controls = matrix_controls::controls(&loaded.available, &loaded.columns, &rows, &settings);
    let share_columns = columns.clone();
    // A shared matrix keeps its columns: the runs shown now, not whichever
    // is latest when the link is opened.
    let freeze = Callback::new(move |mut view: View| {
        view.runs = share_columns.clone();
        view.matrix = Some(view.matrix.unwrap_or_default());
        view
    });
    let truncated = loaded.truncated.then(|| {
        view! {
            <p class="note">
                {format!(
                    "More boards and builds match than a table can show; these are the newest {}. Narrow the filters to see others.",
                    columns.len()
                )}
            </p>
        }
    });
    let warning = timing_warning(&loaded.columns);
    let body = if loaded.columns.is_empty() {
        muted("No complete run matches these filters yet: run a board, this browser, or import a log.")
    } else if rows.is_empty() {
        muted("These runs have no results that match the filters.")
    } else {
        let pair = pair_of(&settings, &columns);
        view! {
            {matrix_pair::emulated_note(&loaded.columns, &rows, pair)}
            {table(&loaded.columns, &rows, &settings, pair, judged)}
            {pair.map(|pair| matrix_pair::figures(&loaded.columns, &rows, pair))}
            <div class="matrix-aside">
                {matrix_pair::costs(&loaded.columns, &rows, &settings, pair)}
                {chart_view(&loaded.columns, &rows, &settings)}
            </div>
        }
        .into_any()
    };
    view! {
        {(!shown.read_only()).then(|| view! { <Share prepare=freeze /> })}
        {controls}
        {truncated}
        {warning.map(|warning| view! { <p class="warning timing-warning" role="note">{warning}</p> })}
        {body}
    }
    .into_any()
}

/// The two columns set side by side, as indices into the columns: the
/// view's pair, where both are shown (Compare chooses its first two runs
/// until another pair is).
fn pair_of(settings: &MatrixView, columns: &[i64]) -> Option<[usize; 2]> {
    let index = |id: i64| columns.iter().position(|&c| c == id);
    match settings.pair {
        Some([first, second]) => Some([index(first)?, index(second)?]),
        None => None,
    }
}

/// A warning when the columns' cycles were counted with different flash
/// timing.
fn timing_warning(columns: &[MatrixColumn]) -> Option<String> {
    let timings: Vec<(i64, MemoryTiming)> =
        columns.iter().filter_map(|c| MemoryTiming::of(&c.run).map(|timing| (c.run.id, timing))).collect();
    mixed_timing_warning(&timings)
}

/// A column's name in a header, a select or a chart: its board and build.
pub(crate) fn column_label(column: &MatrixColumn) -> String {
    charts::column_label(&column.run.board, &column.build_label)
}

pub(crate) fn is_emulated_column(rows: &[MatrixRow<'_>], index: usize) -> bool {
    rows.iter().any(|row| row.cells[index].is_some_and(matrix::is_emulated))
}

pub(crate) use pqbench_view::charts::{cell_text, figure_label};

pub(crate) fn cell_view(figure: Column, cell: Option<&pqbench_types::BenchResult>) -> AnyView {
    let work = cell.filter(|_| figure == Column::CyclesPerOp).and_then(WorkPerOp::of);
    match (cell, work) {
        (_, Some(work)) => view! {
            {format::ticks(Some(work.value()))}
            <span class="unit">{work.unit()}</span>
        }
        .into_any(),
        (Some(r), None) => cell_text(figure, r).into_any(),
        (None, None) => format::MISSING.into_any(),
    }
}

fn table(
    columns: &[MatrixColumn],
    rows: &[MatrixRow<'_>],
    settings: &MatrixView,
    pair: Option<[usize; 2]>,
    judged: &[RunRegressions],
) -> impl IntoView + use<> {
    let figure = settings.figure;
    let order = settings.order;
    let emulated: Vec<bool> = (0..columns.len()).map(|i| is_emulated_column(rows, i)).collect();
    let headers = columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            let run = &column.run;
            let board = run.board.clone();
            view! {
                <th class="num" data-run=run.id.to_string() aria-sort=aria(order, SortBy::Run(run.id))>
                    <SortButton by=SortBy::Run(run.id) order>
                        <span class="column-board">{board.clone()}</span>
                    </SortButton>
                    <span class="column-build">{column.build_label.clone()}</span>
                    <span class="column-run">
                        <a href=format!("/runs/{}", run.id)>{format!("run {}", run.id)}</a>
                        " · " {run.source.as_str()}
                        {emulated[index].then(|| view! { " " <span class="kind emulated">"emulated"</span> })}
                        {unfinished_badge(run.status)}
                    </span>
                </th>
            }
        })
        .collect_view();
    let ratio_header = pair.map(|[first, second]| {
        let text = format!("run {} ÷ run {}", columns[second].run.id, columns[first].run.id);
        view! {
            <th class="num ratio" aria-sort=aria(order, SortBy::Ratio)>
                <SortButton by=SortBy::Ratio order>
                    {text}
                </SortButton>
            </th>
        }
    });
    let body = rows
        .iter()
        .map(|row| {
            let cells = row
                .cells
                .iter()
                .zip(columns)
                .map(|(cell, column)| {
                    let value = cell.and_then(|r| matrix::value(figure, r));
                    let named = Some((row.named.algorithm, row.named.operation));
                    let (verdict, said) = regression::verdict_of(judged, column.run.id, named);
                    // Only a change is marked: "within the line" is the rule.
                    let mark = said.filter(|_| matches!(verdict, "slower" | "faster")).map(|said| {
                        let arrow = if verdict == "slower" { "▼" } else { "▲" };
                        view! { <span class=format!("regression {verdict}") title=said.clone() aria-label=said>{arrow}</span> }
                    });
                    view! {
                        <td class="num" data-run=column.run.id.to_string() data-field=figure.key() data-value=value.map(|v| v.to_string()) data-regression=verdict>
                            {cell_view(figure, *cell)}
                            {mark}
                        </td>
                    }
                })
                .collect_view();
            let ratio = pair.map(|[first, second]| {
                let both = row.cells[first].zip(row.cells[second]);
                let ratio = both.and_then(|(a, b)| matrix::ratio(figure, a, b));
                let unlike = both.and_then(|(a, b)| match matrix::likeness(figure, a, b) {
                    Likeness::Unlike(why) => Some(why),
                    Likeness::Alike => None,
                });
                view! {
                    <td class="num ratio" data-ratio-run=columns[second].run.id.to_string() data-value=ratio.map(|v| v.to_string())>
                        {ratio.map_or_else(|| format::MISSING.to_string(), |r| format!("{r:.3}×"))}
                        {ratio.and(unlike).map(|why| view! { <span class="note unlike" title=why>{"unlike: "}{why}</span> })}
                    </td>
                }
            });
            view! {
                <tr data-algorithm=row.named.algorithm.as_str() data-operation=row.named.operation.as_str()>
                    <td>{row.named.algorithm.as_str()}</td>
                    <td>{row.named.operation.as_str()}</td>
                    {cells}
                    {ratio}
                </tr>
            }
        })
        .collect_view();
    let head = view! {
        <th>"Algorithm"</th>
        <th>"Operation"</th>
        {headers}
        {ratio_header}
    };
    view! {
        <p class="muted figure-caption">{format!("Each cell: {}.", figure_label(figure))}</p>
        <Table class="matrix-table" head>{body}</Table>
    }
}

fn aria(order: Option<MatrixOrder>, by: SortBy) -> &'static str {
    match order {
        Some(MatrixOrder { by: b, descending: true }) if b == by => "descending",
        Some(MatrixOrder { by: b, descending: false }) if b == by => "ascending",
        _ => "none",
    }
}

/// A column header's button: sorts by the column, descending first, then
/// ascending.
#[component]
fn SortButton(by: SortBy, order: Option<MatrixOrder>, children: Children) -> impl IntoView {
    let shown = expect_context::<Shown>();
    let toggle = move |_| {
        shown.edit(|view| {
            let mut matrix = view.matrix.take().unwrap_or_default();
            let descending =
                !matches!(matrix.order, Some(MatrixOrder { by: b, descending: true }) if b == by);
            matrix.order = Some(MatrixOrder { by, descending });
            view.matrix = Some(matrix);
        })
    };
    let key = match by {
        SortBy::Run(id) => id.to_string(),
        SortBy::Ratio => "ratio".into(),
    };
    let arrow = match aria(order, by) {
        "descending" => " ↓",
        "ascending" => " ↑",
        _ => "",
    };
    view! {
        <button class="sort" data-sort-column=key disabled=shown.read_only() on:click=toggle>
            {children()}
            {arrow}
        </button>
    }
}

/// One operation across the columns, as a bar chart: the chosen one, or the
/// first row.
fn chart_view(
    columns: &[MatrixColumn],
    rows: &[MatrixRow<'_>],
    settings: &MatrixView,
) -> Option<impl IntoView + use<>> {
    let shown = expect_context::<Shown>();
    let labels: Vec<String> = columns.iter().map(column_label).collect();
    let bars = charts::matrix(&labels, rows, settings)?;
    let named =
        settings.chart.and_then(|named| rows.iter().find(|r| r.named == named)).or(rows.first())?.named;
    let options = rows
        .iter()
        .map(|r| {
            let n = r.named;
            view! { <option value=n.to_query() selected=n == named>{n.describe()}</option> }
        })
        .collect_view();
    Some(view! {
        <div class="matrix-chart">
            <label>
                "Chart "
                <select
                    id="matrix-chart"
                    disabled=shown.read_only()
                    on:change=move |e| {
                        let chosen = Named::from_query(&event_target_value(&e));
                        shown.edit(|view| {
                            let mut matrix = view.matrix.take().unwrap_or_default();
                            matrix.chart = chosen;
                            view.matrix = Some(matrix);
                        });
                    }
                >
                    {options}
                </select>
            </label>
            {chart::figure("chart-matrix", "pqbench-matrix.svg", bars)}
        </div>
    })
}
