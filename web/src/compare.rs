//! Two or more runs side by side: ops/s of each, and each run's ratio to
//! the first picked (how many times faster), as the filters narrow them.

use leptos::prelude::*;
use pqbench_types::ResultRow;
use pqbench_view::query::MAX_RESULTS_PAGE;
use pqbench_view::{Column, MemoryTiming, ResultQuery, View, mixed_timing_warning};

use crate::alert::Alert;
use crate::components::{Table, muted, unfinished_badge};
use crate::runs::RunList;
use crate::shown::Shown;
use crate::{api, format};

#[component]
pub fn Compare() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    let list = expect_context::<RunList>();
    // Only a new choice of runs fetches again, not a new sort or filter.
    let runs = Memo::new(move |_| shown.view.with(|view| view.runs.clone()));
    // None where they could not be loaded (the banner says why), or where
    // fewer than two runs are picked.
    let rows = LocalResource::new(move || {
        let runs = runs.get();
        async move {
            if runs.len() < 2 {
                return None;
            }
            let query = ResultQuery { runs, limit: MAX_RESULTS_PAGE, ..ResultQuery::default() };
            alert.check(api::results(&query).await)
        }
    });
    move || {
        let runs = runs.get();
        (runs.len() >= 2).then(|| {
            let title = format!(
                "Compare runs {}",
                runs.iter().map(|id| id.to_string()).collect::<Vec<_>>().join(", ")
            );
            let warning = move || timing_warning(list, &runs);
            view! {
                <section id="compare">
                    <h2>{title}</h2>
                    {move || warning().map(|warning| view! { <p class="warning timing-warning" role="note">{warning}</p> })}
                    <Suspense fallback=|| muted("Loading…")>
                        {move || {
                            rows.get()
                                .map(|rows| match rows {
                                    None => muted("The runs could not be loaded."),
                                    Some(rows) => compare_table(&shown.view.get(), &rows),
                                })
                        }}
                    </Suspense>
                </section>
            }
        })
    }
}

/// A warning when the picked runs' cycles were counted with different
/// flash timing. Only runs the runs list holds (the newest) are known; a
/// run without the fields says nothing either way.
fn timing_warning(list: RunList, runs: &[i64]) -> Option<String> {
    let timings: Vec<(i64, MemoryTiming)> =
        runs.iter().filter_map(|&id| list.memory_timing_of(id).map(|timing| (id, timing))).collect();
    mixed_timing_warning(&timings)
}

fn compare_table(view: &View, rows: &[ResultRow]) -> AnyView {
    let runs = view.runs.clone();
    let lines = pqbench_view::compare(&runs, rows, &view.filter);
    if lines.is_empty() {
        return muted("These runs have no results that match the filters.");
    }
    let label = |id: i64| {
        rows.iter()
            .find(|r| r.run_id == id)
            .map_or_else(|| format!("run {id}"), |r| format!("run {id}: {} ({})", r.board, r.build_label))
    };
    let base = runs[0];
    let status = |id: i64| rows.iter().find(|r| r.run_id == id).map(|r| r.run_status);
    let headers = runs
        .iter()
        .map(|&id| {
            view! {
                <th class="num" data-run=id.to_string()>
                    {label(id)}" ops/s"{status(id).and_then(unfinished_badge)}
                </th>
            }
        })
        .collect_view();
    let ratio_headers = runs[1..]
        .iter()
        .map(|&id| view! { <th class="num">{format!("run {id} ÷ run {base}")}</th> })
        .collect_view();
    let body = lines
        .iter()
        .map(|line| {
            let cells = line
                .by_run
                .iter()
                .zip(&runs)
                .map(|(result, &id)| {
                    let ops = result.and_then(|r| r.ops_per_sec);
                    let text = match result {
                        Some(r) if ops.is_none() => r.status.as_str().replace('_', " "),
                        _ => format::rate(ops),
                    };
                    view! {
                        <td class="num" data-run=id.to_string() data-field="ops_per_sec" data-value=ops.map(|v| v.to_string())>
                            {text}
                        </td>
                    }
                })
                .collect_view();
            let ratios = (1..runs.len())
                .map(|index| {
                    let ratio = line.ratio(Column::OpsPerSec, index);
                    view! {
                        <td class="num" data-ratio-run=runs[index].to_string() data-value=ratio.map(|v| v.to_string())>
                            {ratio.map_or_else(|| format::MISSING.to_string(), |r| format!("{r:.3}×"))}
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr data-algorithm=line.algorithm.as_str() data-operation=line.operation.as_str()>
                    <td>{line.algorithm.as_str()}</td>
                    <td>{line.operation.as_str()}</td>
                    {cells}
                    {ratios}
                </tr>
            }
        })
        .collect_view();
    let head = view! {
        <th>"Algorithm"</th>
        <th>"Operation"</th>
        {headers}
        {ratio_headers}
    };
    view! { <Table head>{body}</Table> }.into_any()
}
