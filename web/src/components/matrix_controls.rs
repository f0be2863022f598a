//! The matrix's controls: the filters of its rows and columns, the figure
//! a cell shows, the pair set side by side, and the classical operation
//! post-quantum ones are set against. Each choice edits the view (the
//! address bar), as every control of the dashboard does.

use leptos::prelude::*;
use pqbench_api::{MatrixColumn, MatrixKey};
use pqbench_types::{Family, MODEL_CLOCKS_HZ, Source};
use pqbench_view::Column;
use pqbench_view::matrix::{MatrixRow, MatrixView, Named, SortBy};

use super::matrix::{FIGURES, column_label, figure_label};
use crate::components::Filters;
use crate::context::Shown;

pub(crate) fn controls(
    available: &[MatrixKey],
    columns: &[MatrixColumn],
    rows: &[MatrixRow<'_>],
    settings: &MatrixView,
) -> impl IntoView + use<> {
    let shown = expect_context::<Shown>();
    let disabled = shown.read_only();
    let edit = move |change: Box<dyn FnOnce(&mut MatrixView)>| {
        shown.edit(|view| {
            let mut matrix = view.matrix.take().unwrap_or_default();
            change(&mut matrix);
            view.matrix = Some(matrix);
        })
    };
    let mut boards: Vec<String> = available.iter().map(|k| k.board.clone()).collect();
    boards.sort();
    boards.dedup();
    let mut builds: Vec<String> = available.iter().map(|k| k.build_label.clone()).collect();
    builds.sort();
    builds.dedup();
    let sources: Vec<Source> =
        Source::ALL.iter().copied().filter(|s| available.iter().any(|k| k.source == *s)).collect();

    let text_select = |id: &'static str,
                       label: &'static str,
                       options: Vec<String>,
                       chosen: Option<String>,
                       on: fn(&mut MatrixView, Option<String>)| {
        let chosen = chosen.unwrap_or_default();
        view! {
            <label>
                {label} " "
                <select
                    id=id
                    disabled=disabled
                    on:change=move |e| {
                        let value = event_target_value(&e);
                        let value = (!value.is_empty()).then_some(value);
                        edit(Box::new(move |m| on(m, value)));
                    }
                >
                    <option value="" selected=chosen.is_empty()>"All"</option>
                    {options
                        .into_iter()
                        .map(|option| {
                            let selected = option == chosen;
                            view! { <option value=option.clone() selected=selected>{option.clone()}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
        }
    };
    let board = text_select("matrix-board", "Board", boards, settings.boards.first().cloned(), |m, v| {
        m.boards = v.into_iter().collect()
    });
    let build = text_select("matrix-build", "Build", builds, settings.builds.first().cloned(), |m, v| {
        m.builds = v.into_iter().collect()
    });
    let source = text_select(
        "matrix-source",
        "Source",
        sources.iter().map(|s| s.as_str().to_string()).collect(),
        settings.sources.first().map(|s| s.as_str().to_string()),
        |m, v| m.sources = v.and_then(|v| Source::from_name(&v)).into_iter().collect(),
    );

    let figure = settings.figure;
    let figure_select = view! {
        <label>
            "Figure "
            <select
                id="matrix-figure"
                disabled=disabled
                on:change=move |e| {
                    let chosen = Column::from_key(&event_target_value(&e));
                    if let Some(chosen) = chosen {
                        edit(Box::new(move |m| m.figure = chosen));
                    }
                }
            >
                {FIGURES
                    .iter()
                    .map(|&c| view! { <option value=c.key() selected=c == figure>{figure_label(c)}</option> })
                    .collect_view()}
            </select>
        </label>
    };

    // An emulated board beside a chip or a browser: its times as the timing
    // model's estimate at the clock of the board it stands for, or QEMU's.
    let model_clock = settings.model_clock_hz;
    let model_clock_select = view! {
        <label>
            "Emulated boards' time "
            <select
                id="matrix-model-clock"
                disabled=disabled
                on:change=move |e| {
                    let hz = event_target_value(&e).parse::<u64>().ok();
                    edit(Box::new(move |m| m.model_clock_hz = hz));
                }
            >
                <option value="" selected=model_clock.is_none()>"emulated (QEMU's)"</option>
                {MODEL_CLOCKS_HZ
                    .iter()
                    .map(|&hz| {
                        view! {
                            <option value=hz.to_string() selected=model_clock == Some(hz)>
                                {pqbench_view::estimate::label(hz)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
    };

    // Two columns side by side: "any two columns", e.g. a board and a browser.
    let pair = settings.pair;
    let column_options = |chosen: Option<i64>| {
        columns
            .iter()
            .map(|c| {
                let id = c.run.id;
                view! { <option value=id.to_string() selected=chosen == Some(id)>{column_label(c)}</option> }
            })
            .collect_view()
    };
    let ids: Vec<i64> = columns.iter().map(|c| c.run.id).collect();
    let set_pair = move |slot: usize, value: String| {
        let ids = ids.clone();
        edit(Box::new(move |m| {
            let Ok(chosen) = value.parse::<i64>() else {
                // "—": no pair, and no order by its ratio.
                m.pair = None;
                m.order = m.order.filter(|o| o.by != SortBy::Ratio);
                return;
            };
            // Choosing one side of no pair yet sets a whole one: the other
            // side is the first other column, for the user to change.
            let other = ids.iter().copied().find(|&id| id != chosen).unwrap_or(chosen);
            let mut pair = m.pair.unwrap_or([other, other]);
            pair[slot] = chosen;
            m.pair = Some(pair);
        }))
    };
    // "Set <second> against <first>": the second's figures over the first's.
    let pair_choice = |slot: usize, id: &'static str, label: &'static str| {
        view! {
            <label>
                {label}
                <select
                    id=id
                    disabled=disabled
                    on:change={
                        let set_pair = set_pair.clone();
                        move |e| set_pair(slot, event_target_value(&e))
                    }
                >
                    <option value="">"—"</option>
                    {column_options(pair.map(|p| p[slot]))}
                </select>
            </label>
        }
    };
    let pair_select = view! {
        {pair_choice(1, "pair-second", "Set ")}
        {pair_choice(0, "pair-first", " against ")}
    };

    // The classical operation post-quantum ones are set against.
    let classical: Vec<Named> =
        rows.iter().map(|r| r.named).filter(|n| n.algorithm.family() == Family::Classical).collect();
    let baseline = settings.baseline;
    let baseline_select = view! {
        <label>
            "Post-quantum against "
            <select
                id="baseline"
                disabled=disabled
                on:change=move |e| {
                    let chosen = Named::from_query(&event_target_value(&e));
                    edit(Box::new(move |m| m.baseline = chosen));
                }
            >
                <option value="" selected=baseline.is_none()>"its usual classical counterpart"</option>
                {classical
                    .into_iter()
                    .map(|n| {
                        view! {
                            <option value=n.to_query() selected=baseline == Some(n)>
                                {n.describe()}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
    };

    view! {
        // The rows' filters are a run's results' own.
        <Filters />
        <div class="filters">
            {board}
            {source}
            {build}
        </div>
        <div class="filters">{figure_select} {model_clock_select} {pair_select} {baseline_select}</div>
    }
}
