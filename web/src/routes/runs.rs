//! `/runs`: the newest runs (the list in context, `RunList`), each to
//! open, or to tick and compare.

use leptos::prelude::*;
use pqbench_types::{IMPLEMENTATION, Run};
use pqbench_view::MemoryTiming;

use crate::components::{Table, muted};
use crate::context::{RunList, Shown, clock_warning};
use crate::format;

#[component]
pub fn RunsPage() -> impl IntoView {
    let shown = Shown::routed(None);
    provide_context(shown);
    let runs = expect_context::<RunList>();
    let ticked = Memo::new(move |_| shown.view.with(|view| view.runs.clone()));
    // Two or more ticked: their comparison is a link, like every view.
    let compare = move || {
        let ticked = ticked.get();
        let query = pqbench_view::View { runs: ticked.clone(), ..Default::default() }.to_query();
        let ready = ticked.len() >= 2;
        view! {
            <p class="compare-bar">
                <a
                    id="compare-link"
                    class=if ready { "button" } else { "button disabled" }
                    href=ready.then(|| format!("/compare?{query}"))
                    aria-disabled=(!ready).then_some("true")
                >
                    {format!("Compare {} ticked", ticked.len())}
                </a>
                " "
                <span class="muted">"Tick two or more runs to compare them; open a run to see its results."</span>
            </p>
        }
    };
    view! {
        <section id="runs">
            <h2>"Runs"</h2>
            {compare}
            <Transition fallback=|| muted("Loading…")>
                {move || {
                    runs.listed()
                        .map(|listed| match listed {
                            None => muted("The runs could not be loaded."),
                            Some(runs) if runs.is_empty() => muted("No runs yet."),
                            Some(runs) => runs_table(runs).into_any(),
                        })
                }}
            </Transition>
        </section>
    }
}

fn runs_table(runs: Vec<Run>) -> impl IntoView {
    let head = view! {
        <th title="Pick two or more to compare">"Compare"</th>
        <th>"Run"</th>
        <th>"Board"</th>
        <th>"Source"</th>
        <th>"Status"</th>
        <th>"Started"</th>
        <th>"Revision"</th>
    };
    view! { <Table head>{runs.into_iter().map(run_row).collect_view()}</Table> }
}

fn run_row(run: Run) -> impl IntoView {
    let shown = expect_context::<Shown>();
    let id = run.id;
    let status = run.status.as_str();
    let clock = clock_warning(&run);
    // The clock and the flash timing the cycles were counted with.
    let timing = MemoryTiming::of(&run).map(|timing| timing.describe());
    let compare = move |event| {
        let on = event_target_checked(&event);
        shown.edit(|view| {
            view.runs.retain(|&r| r != id);
            if on {
                view.runs.push(id);
            }
        });
    };
    view! {
        <tr
            data-run-id=id.to_string()
            data-status=status
            class:selected=move || shown.selected.get() == Some(id)
            tabindex="0"
            on:click=move |_| shown.select(id)
            on:keydown=move |event| {
                if event.key() == "Enter" {
                    shown.select(id);
                }
            }
        >
            <td on:click=|event| event.stop_propagation()>
                <input
                    type="checkbox"
                    class="compare"
                    data-run-id=id.to_string()
                    aria-label=format!("Compare run {id}")
                    disabled=shown.read_only()
                    prop:checked=move || shown.view.with(|view| view.runs.contains(&id))
                    on:change=compare
                />
            </td>
            <td>{id}</td>
            <td>
                <code>{run.board}</code>
                // A browser board's builds beside our wasm: which one this is.
                {run
                    .build
                    .extra
                    .get(IMPLEMENTATION)
                    .cloned()
                    .map(|name| view! { " " <span class="kind implementation">{name}</span> })}
                {run.host.map(|host| view! { " " <span class="host run-host">"on " {host}</span> })}
                // Figures at a fallback clock are not the board's usual
                // ones: say so where the run is listed.
                {clock.map(|warning| view! { <span class="note warning clock-warning">{warning}</span> })}
                // What the cycles were counted with: the clock, the flash
                // wait states and the caches.
                {timing.map(|timing| view! { " " <span class="note memory-timing">{timing}</span> })}
            </td>
            <td>{run.source.as_str()}</td>
            <td>
                <span class=format!("badge run-{status}")>{status}</span>
                // Why a run failed or came back incomplete (a probe not
                // reached, a board fault) is what its owner needs first.
                {run.error.map(|error| view! { <span class="note run-error">{error}</span> })}
                // What the run went through that its figures do not show (a
                // probe that failed now and then): whole, but worth a look.
                {run.notes.map(|notes| view! { <span class="note run-notes">{notes}</span> })}
            </td>
            <td title=run.started_at.clone()>{format::timestamp(&run.started_at)}</td>
            <td>
                <code>{run.build.revision.unwrap_or_else(|| format::MISSING.into())}</code>
            </td>
        </tr>
    }
}
