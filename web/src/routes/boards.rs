//! `/boards`: the boards this server reaches and this browser, each to run
//! and watch. The boards are the server's, each with a button that runs the
//! suite on it; the run's progress is the server's, live, until its results
//! open. The browser's own run is a section of its own
//! (`components/browser_run.rs`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::{Board, NewFlash, NewRun, RunCreated, RunProgress};

use crate::components::{BrowserRun, muted};
use crate::context::{Alert, BOARD_SUITES, BoardRun, BoardRunState, OpenRun, RunList, Shown};
use crate::{api, format};

/// The page the board runs start on, which a finished run's page replaces.
const PAGE: &str = "/boards";

/// How often the boards are read again, to follow agents' hosts and boards
/// plugged in or out (the server scans its serial ports every second).
const BOARDS_REREAD_MS: u32 = 1_000;

/// The board list, read again when a run or a flash ends, if it is still
/// on the page.
fn reread(boards: LocalResource<Option<Vec<Board>>>) {
    if !boards.is_disposed() {
        boards.refetch();
    }
}

#[component]
pub fn BoardsPage() -> impl IntoView {
    provide_context(Shown::routed(None));
    let alert = expect_context::<Alert>();
    let open = expect_context::<OpenRun>();
    let runs = expect_context::<RunList>();
    let boards = api::listed(api::boards);
    spawn_local(follow(boards));

    let BoardRunState { running, cancelled, flashing, suite, iterations } = expect_context();

    let start = move |board: String| {
        alert.clear();
        cancelled.set(false);
        running.set(Some(BoardRun { board: board.clone(), id: None, progress: None }));
        let algorithms = BOARD_SUITES
            .iter()
            .find(|(key, ..)| *key == suite.get_untracked())
            .map(|(_, _, algorithms)| algorithms.to_vec())
            .filter(|algorithms| !algorithms.is_empty());
        let request = NewRun {
            board,
            algorithms,
            min_iterations: Some(iterations.get_untracked()),
            min_time_ms: Some(0),
            variant: None,
        };
        spawn_local(async move {
            if let Some(RunCreated { id }) = alert.check(api::start_run(&request).await) {
                running.update(|run| {
                    if let Some(run) = run {
                        run.id = Some(id)
                    }
                });
                runs.refresh();
                let ended = api::follow_run(id, move |progress| {
                    running.update(|run| {
                        if let Some(run) = run {
                            run.progress = Some(progress)
                        }
                    })
                })
                .await;
                if let Err(message) = ended
                    && !cancelled.get_untracked()
                {
                    alert.show(message);
                }
                runs.refresh();
                open.from(PAGE, id);
            }
            running.set(None);
            reread(boards);
        });
    };
    let flash = move |board: String, then_run: bool| {
        alert.clear();
        flashing.set(Some(board.clone()));
        spawn_local(async move {
            let request = NewFlash { board: board.clone(), variant: None };
            let flashed = alert.check(api::flash(&request).await);
            flashing.set(None);
            reread(boards);
            if flashed.is_some() && then_run {
                start(board);
            }
        });
    };
    let cancel = move |_| {
        let Some(id) = running.get_untracked().and_then(|run| run.id) else { return };
        cancelled.set(true);
        spawn_local(async move {
            let _ = alert.check(api::cancel_run(id).await);
        });
    };

    let board_item = move |board: Board| {
        let available = board.available;
        let id = board.id.clone();
        let busy = {
            let id = board.id.clone();
            move || running.get().is_some_and(|run| run.board == id)
        };
        let being_flashed = {
            let id = board.id.clone();
            move || flashing.get().is_some_and(|board| board == id)
        };
        let idle = move || running.get().is_none() && flashing.get().is_none();
        // Its firmware is not this host's build: flash it, then run.
        let stale = board.note.as_deref().is_some_and(|note| note.contains("differs from this build"));
        let flash_buttons = board.can_flash.then(|| {
            let (once, then) = (board.id.clone(), board.id.clone());
            view! {
                <button class="secondary flash" data-flash=board.id.clone() disabled=move || !idle() on:click=move |_| flash(once.clone(), false)>
                    {move || if being_flashed() { "Flashing…" } else { "Flash" }}
                </button>
                {stale.then(|| view! {
                    <button class="flash-run" disabled=move || !idle() on:click=move |_| flash(then.clone(), true)>
                        "Flash and run"
                    </button>
                })}
            }
        });
        view! {
            <li>
                <div>
                    <span class="board-name">{board.name}</span>
                    " "
                    <code class="board-id">{board.id.clone()}</code>
                    " "
                    <span class="kind">{board.kind.as_str()}</span>
                    {board.chip.map(|chip| view! { " " <span class="chip">{chip}</span> })}
                    {board.port.map(|port| view! { " " <span class="port">{port}</span> })}
                    {board.probe.map(|probe| view! { " " <span class="probe">"probe " {probe}</span> })}
                    {board.host.map(|host| {
                        let state = if board.connected { "connected" } else { "not connected" };
                        view! {
                            " "
                            <span class="host" data-connected=board.connected.to_string()>
                                "on " {host} " (" {state} ")"
                            </span>
                        }
                    })}
                    {board.note.map(|note| view! { <p class="board-note">{note}</p> })}
                    {board.building.map(|building| view! {
                        <p class="board-building">
                            <progress max=building.total value=building.done></progress>
                            " " {building.done} " of " {building.total} " firmware images built; still to come here: "
                            {building.images.join(", ")}
                        </p>
                    })}
                </div>
                {flash_buttons}
                <button
                    data-board=board.id
                    disabled=move || !available || !idle()
                    on:click=move |_| start(id.clone())
                >
                    {move || if busy() { "Running…" } else { "Run" }}
                </button>
            </li>
        }
    };

    view! {
        <section id="boards">
            <h2>"Boards"</h2>
            <div class="browser-controls">
                <select
                    id="board-suite"
                    prop:value=move || suite.get()
                    on:change=move |e| suite.set(event_target_value(&e))
                >
                    {BOARD_SUITES
                        .iter()
                        .map(|(key, label, _)| view! { <option value=*key>{*label}</option> })
                        .collect_view()}
                </select>
                <label class="muted">
                    "At least "
                    <input
                        id="board-iterations"
                        type="number"
                        min="1"
                        max="1000"
                        prop:value=move || iterations.get().to_string()
                        on:change=move |e| {
                            if let Ok(n) = event_target_value(&e).parse::<u32>() {
                                iterations.set(n.clamp(1, 1000));
                            }
                        }
                    />
                    " calls per operation"
                </label>
            </div>
            {move || running.get().map(|run| progress_view(run, cancel))}
            <Transition fallback=|| muted("Loading…")>
                {move || {
                    boards
                        .get()
                        .map(|listed| match listed {
                            None => muted("The boards could not be loaded."),
                            Some(boards) if boards.is_empty() => muted("No boards found."),
                            Some(boards) => {
                                view! { <ul class="boards">{boards.into_iter().map(board_item).collect_view()}</ul> }
                                    .into_any()
                            }
                        })
                }}
            </Transition>
        </section>
        <BrowserRun />
    }
}

/// Boards come and go with their hosts' agents: the list is read again
/// every few seconds, and drawn again only when it changed (a button must
/// not be replaced under a click). Ends with the section.
async fn follow(boards: LocalResource<Option<Vec<Board>>>) {
    loop {
        gloo_timers::future::TimeoutFuture::new(BOARDS_REREAD_MS).await;
        if boards.is_disposed() {
            return;
        }
        let Ok(fresh) = api::boards().await else { continue };
        let changed = boards
            .try_with_untracked(|shown| shown.as_ref().and_then(Option::as_ref) != Some(&fresh))
            .unwrap_or(false);
        if changed {
            boards.set(Some(Some(fresh)));
        }
    }
}

fn progress_view(run: BoardRun, cancel: impl Fn(leptos::ev::MouseEvent) + 'static) -> impl IntoView {
    let text = match &run.progress {
        None => format!("Starting {}…", run.board),
        Some(progress) => describe_progress(progress),
    };
    let (done, total) = run.progress.as_ref().map_or((0, 1), |p| (p.done, p.total.max(1)));
    view! {
        <div id="board-run">
            <progress id="board-progress-bar" max=total value=done></progress>
            <span id="board-progress">{text}</span>
            " "
            <button id="board-cancel" class="secondary" disabled=run.id.is_none() on:click=cancel>
                "Cancel"
            </button>
        </div>
    }
}

/// "ML-KEM-768 encaps: 5 of 18 operations done, about 12 s left".
fn describe_progress(p: &RunProgress) -> String {
    let left = p
        .eta_ms
        .map(|ms| format!(", about {} left", format::duration_ms(Some(ms as f64))))
        .unwrap_or_default();
    format!(
        "{} {}: {} of {} operations done{left}",
        p.algorithm.as_str(),
        p.operation.as_str(),
        p.done,
        p.total
    )
}
