//! `/runs/<id>`: one run's results, its browser field, and an operation's
//! history on its board.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use pqbench_api::ResultQuery;
use pqbench_view::field::{FieldCell, FieldRow, field};

use crate::components::{History, Results, Table};
use crate::context::{Alert, RunList, Shown};
use crate::{api, format};

#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = Signal::derive(move || {
        params.with(|params| params.get("id").and_then(|id| id.parse::<i64>().ok()).filter(|&id| id > 0))
    });
    provide_context(Shown::routed(Some(id)));
    view! {
        <Results />
        <Field />
        <History />
    }
}

/// A browser run's field: the implementations one press of "Run in this
/// browser" stored (ours, WebCrypto, the JavaScript libraries), side by
/// side per operation, ops/s and each one's share of the fastest, as
/// `pqbench_view::field` sets them.
#[component]
fn Field() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    let runs = expect_context::<RunList>();
    let ids = Memo::new(move |_| shown.selected.get().map(|id| runs.field_of(id)).unwrap_or_default());
    let loaded = LocalResource::new(move || {
        let ids = ids.get();
        async move {
            // One run alone is no field.
            if ids.len() < 2 {
                return None;
            }
            let query = ResultQuery { runs: ids.clone(), ..ResultQuery::default() };
            alert.check(api::results(&query).await).map(|rows| field(&rows, &ids))
        }
    });
    move || {
        let (columns, rows) = loaded.get().flatten()?;
        let head = view! {
            <th>"Algorithm"</th>
            <th>"Operation"</th>
            {columns.iter().map(|label| view! { <th class="num">{label.clone()}</th> }).collect_view()}
        };
        Some(view! {
            <section id="field">
                <h2>"This browser's field"</h2>
                <p class="muted">
                    "Operations per second of each implementation this run measured, and its share of the \
                     fastest (1.00)."
                </p>
                <Table head>{rows.into_iter().map(|row| field_row(row, &columns)).collect_view()}</Table>
            </section>
        })
    }
}

fn field_row(row: FieldRow, columns: &[String]) -> impl IntoView + use<> {
    let cells = row
        .cells
        .into_iter()
        .zip(columns.to_vec())
        .map(|(cell, label)| match cell {
            None => view! { <td class="num" data-build=label>{format::MISSING}</td> }.into_any(),
            Some(FieldCell { status, ops_per_sec, of_fastest }) => view! {
                <td
                    class="num"
                    data-build=label
                    data-status=status.as_str()
                    data-value=ops_per_sec.map(|v| v.to_string())
                    data-of-fastest=of_fastest.map(|v| v.to_string())
                >
                    {match ops_per_sec {
                        Some(_) => format::rate(ops_per_sec),
                        None => status.as_str().replace('_', " "),
                    }}
                    {of_fastest.map(|share| view! { " " <span class="muted">{format!("{share:.2}")}</span> })}
                </td>
            }
            .into_any(),
        })
        .collect_view();
    view! {
        <tr data-algorithm=row.algorithm.as_str() data-operation=row.operation.as_str()>
            <td>{row.algorithm.as_str()}</td>
            <td>{row.operation.as_str()}</td>
            {cells}
        </tr>
    }
}
