//! One operation on one board across its runs, oldest first: a line of
//! ops/s, and the runs in a table, a change beyond the runs' own spread
//! flagged.

use leptos::prelude::*;
use pqbench_api::{HISTORY_RUNS, ResultQuery, RunRegressions};
use pqbench_types::ResultRow;
use pqbench_view::HistoryOf;

use super::chart;
use crate::components::{Table, muted, unfinished_badge};
use crate::context::{Alert, Shown};
use crate::{api, format, regression};

#[component]
pub fn History() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    // Only a new choice of history fetches again, not a new sort or filter.
    let chosen = Memo::new(move |_| shown.view.with(|view| view.history.clone()));
    // None where they could not be loaded (the banner says why), or where
    // no history is chosen.
    let rows = LocalResource::new(move || {
        let chosen = chosen.get();
        async move {
            let mut rows =
                alert.check(api::results(&ResultQuery::of_history(&chosen?, HISTORY_RUNS)).await)?;
            // The API gives the newest first; a history reads left to right.
            rows.reverse();
            Some(rows)
        }
    });
    // Each run judged against the earlier runs of its lineage; None until
    // loaded, or where it could not be (the banner says why).
    let judged = LocalResource::new(move || {
        let chosen = chosen.get();
        async move { alert.check(api::regressions_of_history(&chosen?, HISTORY_RUNS).await) }
    });
    move || {
        chosen.get().map(|HistoryOf { board, algorithm, operation }| {
            let title = format!("{} {} on {board}", algorithm.as_str(), operation.as_str());
            view! {
                <section id="history">
                    <h2>"History: " {title.clone()}</h2>
                    <Suspense fallback=|| muted("Loading…")>
                        {
                            let title = title.clone();
                            move || {
                                rows.get()
                                    .map(|rows| match rows {
                                        None => muted("The history could not be loaded."),
                                        Some(rows) if rows.is_empty() => muted("No runs measured this."),
                                        Some(rows) => {
                                            let judged = judged.get().flatten().unwrap_or_default();
                                            history_view(&title, &rows, &judged).into_any()
                                        }
                                    })
                            }
                        }
                    </Suspense>
                </section>
            }
        })
    }
}

fn history_view(title: &str, rows: &[ResultRow], judged: &[RunRegressions]) -> impl IntoView + use<> {
    let older = (rows.len() == HISTORY_RUNS as usize).then(|| {
        view! {
            <p class="muted" id="history-truncated">
                {format!("The newest {HISTORY_RUNS} runs; older ones stay in the store (GET /api/results).")}
            </p>
        }
    });
    let flags: Vec<bool> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| i > 0 && pqbench_view::changed(&rows[i - 1].result, &row.result) == Some(true))
        .collect();
    let chart = pqbench_plot::LineChart {
        title: format!("{title}: operations per second"),
        points: rows
            .iter()
            .zip(&flags)
            .map(|(row, &flagged)| pqbench_plot::Point {
                label: format!("run {}", row.run_id),
                value: row.result.ops_per_sec,
                text: format::rate(row.result.ops_per_sec),
                flagged,
            })
            .collect(),
    };
    let table = rows
        .iter()
        .zip(&flags)
        .map(|(row, &flagged)| {
            let r = &row.result;
            let (verdict, said) = regression::verdict_of(judged, row.run_id, None);
            view! {
                <tr
                    data-run-id=row.run_id.to_string()
                    data-changed=flagged.to_string()
                    data-regression=verdict
                >
                    <td>{row.run_id}{unfinished_badge(row.run_status)}</td>
                    <td title=row.started_at.clone()>{format::timestamp(&row.started_at)}</td>
                    <td>{row.build_label.clone()}</td>
                    <td class="num" data-field="ops_per_sec" data-value=r.ops_per_sec.map(|v| v.to_string())>
                        {format::rate(r.ops_per_sec)}
                    </td>
                    <td class="num">
                        {format!("{} – {}", format::duration_ms(r.min_ms), format::duration_ms(r.max_ms))}
                    </td>
                    <td>{flagged.then_some("changed beyond the spread")}</td>
                    <td class=verdict>{said}</td>
                </tr>
            }
        })
        .collect_view();
    let head = view! {
        <th>"Run"</th>
        <th>"Started"</th>
        <th>"Build"</th>
        <th class="num">"ops/s"</th>
        <th class="num">"Min – max per call"</th>
        <th>"Change"</th>
        <th title="Against the earlier runs of the same board, build variant and implementation">"Regression"</th>
    };
    view! {
        {older}
        {chart::figure("chart-history", "pqbench-history.svg", chart)}
        <Table head>{table}</Table>
    }
}
