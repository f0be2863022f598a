//! The runs: the newest, each to open or to tick for a comparison. The list
//! is shared through context, as the sections that start runs read it
//! again when theirs are stored.

use leptos::prelude::*;
use pqbench_types::{IMPLEMENTATION, Run};
use pqbench_view::MemoryTiming;

use crate::api;
use crate::components::{Table, muted};
use crate::format;
use crate::shown::Shown;

const RUNS_SHOWN: u32 = 50;

/// The newest runs, as the server lists them.
#[derive(Clone, Copy)]
pub struct RunList(LocalResource<Option<Vec<Run>>>);

impl RunList {
    pub fn new() -> Self {
        RunList(api::listed(format!("/api/runs?limit={RUNS_SHOWN}")))
    }

    /// Reads the list again, as a run was started, ended or stored.
    pub fn refresh(self) {
        self.0.refetch();
    }

    /// What to warn of the clock run `id`'s board ran at, if the list has
    /// the run and its board fell back (see [`clock_warning`]).
    pub fn clock_warning_of(self, id: i64) -> Option<String> {
        self.0
            .with(|listed| listed.as_ref()?.as_ref()?.iter().find(|run| run.id == id).and_then(clock_warning))
    }

    /// How run `id`'s board read its flash, if the list has the run and its
    /// firmware said.
    pub fn memory_timing_of(self, id: i64) -> Option<MemoryTiming> {
        self.0.with(|listed| {
            listed.as_ref()?.as_ref()?.iter().find(|run| run.id == id).and_then(MemoryTiming::of)
        })
    }

    /// The runs stored by the same press of "Run in this browser" as run
    /// `id`, oldest first, as far as the list has them.
    pub fn field_of(self, id: i64) -> Vec<i64> {
        self.0.with(|listed| {
            listed
                .as_ref()
                .and_then(Option::as_ref)
                .map_or_else(Vec::new, |runs| pqbench_view::field::runs_of(runs, id))
        })
    }

    /// The board run `id` was made on, if the list has it.
    pub fn board_of(self, id: i64) -> Option<String> {
        self.0
            .try_with_untracked(|listed| {
                listed.as_ref()?.as_ref()?.iter().find(|run| run.id == id).map(|run| run.board.clone())
            })
            .flatten()
    }
}

/// What a person should know of the clock a run's board ran at, when it is
/// not that board's usual one: its firmware fell back (no 8 MHz clock from
/// the ST-LINK, or a PLL that did not lock) and said so in its `hello`'s
/// `clock_source`, which a run keeps in its build's `extra` beside the
/// firmware's own board id (a serial board's run id is its port's). The
/// sentence is the board catalogue's, as the board list shows it.
pub fn clock_warning(run: &Run) -> Option<String> {
    let said = |key: &str| run.build.extra.get(key).map(String::as_str);
    pqbench_boards::clock_note(said("board"), said("clock_source")).map(|note| format!("clock: {note}"))
}

#[component]
pub fn Runs() -> impl IntoView {
    let RunList(runs) = expect_context::<RunList>();
    let shown = expect_context::<Shown>();
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
                    runs.get()
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
