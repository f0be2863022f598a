//! The pqbench dashboard: boards to run, runs to pick, a run's results, and
//! a run of the suite in this browser. Client-side rendered; all data comes
//! from the server's JSON API (`/api/...`).

mod api;
mod browser;
mod chart;
mod events;
mod format;
mod import;
mod link;

use leptos::either::Either;
use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::{Board, Created, NewReport, Report, ReportCreated, RunProgress, RunRequest};
use pqbench_types::{Algorithm, BenchResult, Family, Operation, ResultRow, Run, RunStatus, Status};
use pqbench_view::{Column, HistoryOf, Sort, View};
use wasm_bindgen::prelude::*;

/// What a browser run can measure: (key, label, algorithms; none = all).
const BROWSER_SUITES: &[(&str, &str, &[&str])] = &[
    ("post-quantum", "ML-KEM and ML-DSA, every level", POST_QUANTUM),
    ("with-classical", "ML-KEM and ML-DSA with the classical baselines", WITH_CLASSICAL),
    ("whole", "The whole suite", &[]),
];
const POST_QUANTUM: &[&str] =
    &["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87"];
const WITH_CLASSICAL: &[&str] = &[
    "ML-KEM-512",
    "ML-KEM-768",
    "ML-KEM-1024",
    "ML-DSA-44",
    "ML-DSA-65",
    "ML-DSA-87",
    "RSA-2048",
    "ECDSA-P256",
    "ECDH-P256",
    "X25519",
    "Ed25519",
    "AES-128-GCM",
    "SHA-256",
];
/// Time given to each operation: (ms, label). The first is the default,
/// the suite's own, so figures settle.
const BROWSER_TIMES: &[(u32, &str)] = &[(1000, "1 s per operation"), (200, "0.2 s per operation")];

const RUNS_SHOWN: u32 = 50;
/// Runs a history shows, the newest: more points than a chart can show
/// apart, and a request that stays quick with a million results stored
/// (BENCHMARKS.md, the load table).
const HISTORY_RUNS: u32 = 200;

#[wasm_bindgen(start)]
pub fn main() {
    leptos::mount::mount_to_body(App);
}

/// How often the boards are read again, to follow agents' hosts.
const BOARDS_REREAD_MS: u32 = 5_000;

/// Data from the API as a section shows it.
#[derive(Clone)]
enum Load<T> {
    Loading,
    Failed,
    Ready(T),
}

impl<T> Load<T> {
    /// Takes a fetch's outcome. A failed refresh keeps what is shown (the
    /// error banner says it is stale); only a first load can fail.
    fn settle(&mut self, outcome: Option<T>) {
        match outcome {
            Some(value) => *self = Load::Ready(value),
            None if matches!(self, Load::Loading) => *self = Load::Failed,
            None => {}
        }
    }
}

/// The page's data; every section reads and refreshes it through here.
#[derive(Clone, Copy)]
struct State {
    boards: RwSignal<Load<Vec<Board>>>,
    runs: RwSignal<Load<Vec<Run>>>,
    selected: RwSignal<Option<i64>>,
    results: RwSignal<Load<Vec<BenchResult>>>,
    /// Which results are shown and how: the page's URL says it too, so any
    /// view is a link.
    view: RwSignal<View>,
    /// The shared report this page shows, read-only, if it is one.
    report: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
}

impl State {
    fn new() -> Self {
        State {
            boards: RwSignal::new(Load::Loading),
            runs: RwSignal::new(Load::Loading),
            selected: RwSignal::new(None),
            results: RwSignal::new(Load::Loading),
            view: RwSignal::new(View::default()),
            report: RwSignal::new(None),
            error: RwSignal::new(None),
        }
    }

    /// Shows a failure, or passes a success on.
    fn check<T>(self, result: api::ApiResult<T>) -> Option<T> {
        result.map_err(|message| self.error.set(Some(message))).ok()
    }

    async fn refresh_boards(self) {
        let boards = self.check(api::get("/api/boards").await);
        self.boards.update(|shown| shown.settle(boards));
    }

    /// Boards come and go with their hosts' agents: the list is read again
    /// every few seconds, and drawn again only when it changed (a button
    /// must not be replaced under a click).
    async fn follow_boards(self) {
        loop {
            gloo_timers::future::TimeoutFuture::new(BOARDS_REREAD_MS).await;
            let Ok(boards) = api::get::<Vec<Board>>("/api/boards").await else { continue };
            let changed =
                self.boards.with_untracked(|shown| !matches!(shown, Load::Ready(b) if *b == boards));
            if changed {
                self.boards.set(Load::Ready(boards));
            }
        }
    }

    async fn refresh_runs(self) {
        let runs = self.check(api::get(&format!("/api/runs?limit={RUNS_SHOWN}")).await);
        self.runs.update(|shown| shown.settle(runs));
    }

    async fn load_results(self, id: i64) {
        let results = api::get(&format!("/api/runs/{id}/results")).await;
        // A later click may have picked another run while this one loaded.
        if self.selected.get_untracked() == Some(id) {
            let results = self.check(results);
            self.results.update(|shown| shown.settle(results));
        }
    }

    /// Opens `view`: its first run's results, in its order.
    fn show(self, view: View) {
        if let Some(&id) = view.runs.first() {
            self.selected.set(Some(id));
            self.results.set(Load::Loading);
            spawn_local(self.load_results(id));
        }
        self.view.set(view);
    }

    fn read_only(self) -> bool {
        self.report.get().is_some()
    }

    fn select(self, id: i64) {
        if self.read_only() {
            return;
        }
        self.view.update(|view| view.runs = vec![id]);
        self.selected.set(Some(id));
        self.results.set(Load::Loading);
        spawn_local(self.load_results(id));
    }
}

#[component]
fn App() -> impl IntoView {
    let state = State::new();
    spawn_local(state.refresh_boards());
    spawn_local(state.follow_boards());
    spawn_local(state.refresh_runs());
    if let Some(id) = link::report_id() {
        state.report.set(Some(id.clone()));
        spawn_local(async move {
            if let Some(report) = state.check(api::get::<Report>(&format!("/api/reports/{id}")).await) {
                state.show(report.view);
            }
        });
    } else {
        match View::from_query(&link::query()) {
            Ok(view) => state.show(view),
            Err(message) => state.error.set(Some(message)),
        }
    }
    // Keep the address bar on the view, so it can be bookmarked or sent.
    Effect::new(move |_| link::show(&state.view.get().to_query()));

    view! {
        <header>
            <h1>"pqbench"</h1>
            <p class="tagline">"Post-quantum cryptography on microcontrollers and browsers"</p>
        </header>
        <main>
            <ErrorBanner state />
            <Boards state />
            <BrowserRun state />
            <import::Import state />
            <Runs state />
            <Compare state />
            <Results state />
            <History state />
        </main>
    }
}

#[component]
fn ErrorBanner(state: State) -> impl IntoView {
    move || {
        state.error.get().map(|message| {
            view! {
                <div id="error" role="alert">
                    <span>{message}</span>
                    <button class="dismiss" aria-label="Dismiss" on:click=move |_| state.error.set(None)>
                        "×"
                    </button>
                </div>
            }
        })
    }
}

/// What a board run can measure: (key, label, algorithms; none = all).
const BOARD_SUITES: &[(&str, &str, &[&str])] = &[
    ("quick", "ML-KEM-768 only (seconds)", &["ML-KEM-768"]),
    ("post-quantum", "ML-KEM and ML-DSA, every level", POST_QUANTUM),
    ("whole", "The whole suite", &[]),
];

/// A board run this page started and follows.
#[derive(Clone)]
struct BoardRun {
    board: String,
    id: Option<i64>,
    progress: Option<RunProgress>,
}

#[component]
fn Boards(state: State) -> impl IntoView {
    let running = RwSignal::new(None::<BoardRun>);
    // A run the user cancelled ends `interrupted`; that is no error to show.
    let cancelled = RwSignal::new(false);
    let suite = RwSignal::new(BOARD_SUITES[0].0.to_owned());
    let iterations = RwSignal::new(3u32);

    let start = move |board: String| {
        state.error.set(None);
        cancelled.set(false);
        running.set(Some(BoardRun { board: board.clone(), id: None, progress: None }));
        let algorithms = BOARD_SUITES
            .iter()
            .find(|(key, _, _)| *key == suite.get_untracked())
            .map(|(_, _, names)| {
                names.iter().filter_map(|n| Algorithm::from_name(n).ok()).collect::<Vec<_>>()
            })
            .filter(|names| !names.is_empty());
        let request = RunRequest {
            board,
            algorithms,
            min_iterations: Some(iterations.get_untracked()),
            min_time_ms: Some(0),
            variant: None,
        };
        spawn_local(async move {
            if let Some(Created { id }) = state.check(api::post("/api/runs", &request).await) {
                running.update(|r| {
                    if let Some(r) = r {
                        r.id = Some(id)
                    }
                });
                state.refresh_runs().await;
                let ended = events::follow(id, move |progress| {
                    running.update(|r| {
                        if let Some(r) = r {
                            r.progress = Some(progress)
                        }
                    })
                })
                .await;
                if let Err(message) = ended
                    && !cancelled.get_untracked()
                {
                    state.error.set(Some(message));
                }
                state.refresh_runs().await;
                state.select(id);
            }
            running.set(None);
            state.refresh_boards().await;
        });
    };
    let cancel = move |_| {
        let Some(id) = running.get_untracked().and_then(|r| r.id) else { return };
        cancelled.set(true);
        spawn_local(async move {
            let _ =
                state.check(api::post::<_, serde_json::Value>(&format!("/api/runs/{id}/cancel"), &()).await);
        });
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
            {move || {
                running
                    .get()
                    .map(|run| {
                        let text = match &run.progress {
                            None => format!("Starting {}…", run.board),
                            Some(p) => describe_board_progress(p),
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
                    })
            }}
            {move || match state.boards.get() {
                Load::Loading => muted("Loading…"),
                Load::Failed => muted("The boards could not be loaded."),
                Load::Ready(boards) if boards.is_empty() => muted("No boards found."),
                Load::Ready(boards) => {
                    view! {
                        <ul class="boards">
                            {boards
                                .into_iter()
                                .map(|board| {
                                    let available = board.available;
                                    let id = board.id.clone();
                                    let busy = {
                                        let id = board.id.clone();
                                        move || running.get().is_some_and(|r| r.board == id)
                                    };
                                    view! {
                                        <li>
                                            <div>
                                                <span class="board-name">{board.name}</span>
                                                " "
                                                <code class="board-id">{board.id.clone()}</code>
                                                " "
                                                <span class="kind">{board.kind.as_str()}</span>
                                                {board.chip.map(|chip| view! { " " <span class="chip">{chip}</span> })}
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
                                            </div>
                                            <button
                                                data-board=board.id
                                                disabled=move || !available || running.get().is_some()
                                                on:click=move |_| start(id.clone())
                                            >
                                                {move || if busy() { "Running…" } else { "Run" }}
                                            </button>
                                        </li>
                                    }
                                })
                                .collect_view()}
                        </ul>
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

fn describe_board_progress(p: &RunProgress) -> String {
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

fn muted(text: &'static str) -> AnyView {
    view! { <p class="muted">{text}</p> }.into_any()
}

#[component]
fn BrowserRun(state: State) -> impl IntoView {
    let suite = RwSignal::new(BROWSER_SUITES[0].0.to_owned());
    let time_ms = RwSignal::new(BROWSER_TIMES[0].0);
    let status = RwSignal::new(String::new());
    let step = RwSignal::new(None::<browser::Step>);
    let busy = RwSignal::new(false);
    let cancel = StoredValue::new(None::<futures::channel::oneshot::Sender<()>>);

    let run = move |_| {
        state.error.set(None);
        busy.set(true);
        step.set(None);
        status.set("Starting…".into());
        let (cancel_sender, cancelled) = futures::channel::oneshot::channel();
        cancel.set_value(Some(cancel_sender));
        let algorithms =
            BROWSER_SUITES.iter().find(|(key, ..)| *key == suite.get_untracked()).map_or(&[][..], |s| s.2);
        let request =
            browser::Request { algorithms, min_iterations: 10, min_time_ms: time_ms.get_untracked() };
        spawn_local(async move {
            let started = js_sys::Date::now();
            let on_step = move |next: browser::Step| {
                status.set(describe_step(&next, js_sys::Date::now() - started));
                step.set(Some(next));
            };
            let measured = browser::run(&request, on_step, cancelled).await;
            cancel.set_value(None);
            step.set(None);
            match measured {
                Err(why) if why == browser::CANCELLED => status.set("Cancelled: nothing was stored".into()),
                measured => {
                    let uploaded = async {
                        let upload = measured?;
                        status.set("Uploading…".into());
                        api::post_json_text::<Created>("/api/uploads", upload).await
                    };
                    if let Some(Created { id }) = state.check(uploaded.await) {
                        status.set(format!("Done: run {id}"));
                        state.refresh_runs().await;
                        state.select(id);
                    } else {
                        status.set("Failed".into());
                    }
                }
            }
            busy.set(false);
        });
    };
    let stop = move |_| {
        if let Some(sender) = cancel.try_update_value(Option::take).flatten() {
            let _ = sender.send(());
        }
    };

    view! {
        <section id="browser">
            <h2>"This browser"</h2>
            <p class="muted">
                "Runs the same suite as the boards, compiled to WebAssembly, in a worker: the page stays usable."
            </p>
            <div class="browser-controls">
                <select
                    id="browser-suite"
                    aria-label="What to measure"
                    disabled=move || busy.get()
                    on:change=move |event| suite.set(event_target_value(&event))
                >
                    {BROWSER_SUITES
                        .iter()
                        .map(|(key, label, _)| view! { <option value=*key>{*label}</option> })
                        .collect_view()}
                </select>
                <select
                    id="browser-time"
                    aria-label="Time per operation"
                    disabled=move || busy.get()
                    on:change=move |event| {
                        if let Ok(ms) = event_target_value(&event).parse() {
                            time_ms.set(ms);
                        }
                    }
                >
                    {BROWSER_TIMES
                        .iter()
                        .map(|(ms, label)| view! { <option value=ms.to_string()>{*label}</option> })
                        .collect_view()}
                </select>
                <button id="browser-run" disabled=move || busy.get() on:click=run>
                    "Run in this browser"
                </button>
                <button id="browser-cancel" class="secondary" disabled=move || !busy.get() on:click=stop>
                    "Cancel"
                </button>
            </div>
            <progress
                id="browser-progress-bar"
                hidden=move || step.get().is_none()
                max=move || step.get().map_or(1, |s| s.total)
                value=move || step.get().map_or(0, |s| s.index - 1)
            ></progress>
            <span id="browser-progress" aria-live="polite">{move || status.get()}</span>
        </section>
    }
}

/// "ML-KEM-768 encaps (5 of 30), about 12 s left": what is measured now,
/// and a time left from the pace so far.
fn describe_step(step: &browser::Step, elapsed_ms: f64) -> String {
    let done = step.index.saturating_sub(1);
    let mut text = format!("{} {} ({} of {})", step.algorithm, step.operation, step.index, step.total);
    if done > 0 {
        let left_s = elapsed_ms / f64::from(done) * f64::from(step.total - done) / 1000.0;
        text.push_str(&format!(", about {} s left", left_s.ceil()));
    }
    text
}

#[component]
fn Runs(state: State) -> impl IntoView {
    view! {
        <section id="runs">
            <h2>"Runs"</h2>
            {move || match state.runs.get() {
                Load::Loading => muted("Loading…"),
                Load::Failed => muted("The runs could not be loaded."),
                Load::Ready(runs) if runs.is_empty() => muted("No runs yet."),
                Load::Ready(runs) => {
                    view! {
                        <div class="scroll">
                            <table>
                                <thead>
                                    <tr>
                                        <th title="Pick two or more to compare">"Compare"</th>
                                        <th>"Run"</th>
                                        <th>"Board"</th>
                                        <th>"Source"</th>
                                        <th>"Status"</th>
                                        <th>"Started"</th>
                                        <th>"Revision"</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {runs.into_iter().map(|run| run_row(state, run)).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

fn run_row(state: State, run: Run) -> impl IntoView {
    let id = run.id;
    let status = run.status.as_str();
    view! {
        <tr
            data-run-id=id.to_string()
            data-status=status
            class:selected=move || state.selected.get() == Some(id)
            tabindex="0"
            on:click=move |_| state.select(id)
            on:keydown=move |event| {
                if event.key() == "Enter" {
                    state.select(id);
                }
            }
        >
            <td on:click=|event| event.stop_propagation()>
                <input
                    type="checkbox"
                    class="compare"
                    data-run-id=id.to_string()
                    aria-label=format!("Compare run {id}")
                    disabled=move || state.read_only()
                    prop:checked=move || state.view.get().runs.contains(&id)
                    on:change=move |e| {
                        let on = event_target_checked(&e);
                        state.view.update(|view| {
                            view.runs.retain(|&r| r != id);
                            if on {
                                view.runs.push(id);
                            }
                        });
                    }
                />
            </td>
            <td>{id}</td>
            <td>
                <code>{run.board}</code>
                {run.host.map(|host| view! { " " <span class="host run-host">"on " {host}</span> })}
            </td>
            <td>{run.source.as_str()}</td>
            <td>
                <span class=format!("badge run-{status}")>{status}</span>
                // Why a run failed or came back incomplete (a probe not
                // reached, a board fault) is what its owner needs first.
                {run.error.map(|error| view! { <span class="note run-error">{error}</span> })}
            </td>
            <td title=run.started_at.clone()>{format::timestamp(&run.started_at)}</td>
            <td>
                <code>{run.build.revision.unwrap_or_else(|| format::MISSING.into())}</code>
            </td>
        </tr>
    }
}

#[component]
fn Results(state: State) -> impl IntoView {
    view! {
        <section id="results">
            <h2>
                "Results"
                {move || state.selected.get().map(|id| format!(" of run {id}"))}
            </h2>
            <Share state />
            <ResultFilters state />
            {move || match (state.selected.get(), state.results.get()) {
                (None, _) => muted("Pick a run to see its results."),
                (Some(_), Load::Loading) => muted("Loading…"),
                (Some(_), Load::Failed) => muted("The results could not be loaded."),
                (Some(_), Load::Ready(results)) if results.is_empty() => muted("This run has no results."),
                (Some(_), Load::Ready(results)) => {
                    let view = state.view.get();
                    let shown: Vec<BenchResult> = view.apply(&results).into_iter().cloned().collect();
                    if shown.is_empty() {
                        return muted("No results match these filters.");
                    }
                    view! {
                        <div class="scroll">
                            <table>
                                <thead>
                                    <tr>
                                        <th>"Algorithm"</th>
                                        <th>"Operation"</th>
                                        <th>"Status"</th>
                                        {Column::ALL.iter().map(|&column| sort_header(state, column)).collect_view()}
                                    </tr>
                                </thead>
                                <tbody>{shown.iter().cloned().map(|r| result_row(state, r)).collect_view()}</tbody>
                            </table>
                        </div>
                        {exports(&view, &shown)}
                        <Charts state shown />
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

/// One operation on one board across its runs, oldest first: a line of
/// ops/s, and the runs in a table, a change beyond the runs' own spread
/// flagged.
#[component]
fn History(state: State) -> impl IntoView {
    let rows = RwSignal::new(Load::<Vec<ResultRow>>::Loading);
    // Only a new choice of history fetches again, not a new sort or filter.
    let chosen = Memo::new(move |_| state.view.get().history);
    Effect::new(move |_| {
        let Some(HistoryOf { board, algorithm, operation }) = chosen.get() else { return };
        rows.set(Load::Loading);
        let path = format!(
            "/api/results?board={}&algorithm={}&operation={}&limit={HISTORY_RUNS}",
            js_sys::encode_uri_component(&board),
            algorithm.as_str(),
            operation.as_str()
        );
        spawn_local(async move {
            let mut fetched: Option<Vec<ResultRow>> = state.check(api::get(&path).await);
            // The API gives the newest first; a history reads left to right.
            if let Some(rows) = fetched.as_mut() {
                rows.reverse();
            }
            rows.update(|shown| shown.settle(fetched));
        });
    });
    move || {
        chosen.get().map(|HistoryOf { board, algorithm, operation }| {
            let title = format!("{} {} on {board}", algorithm.as_str(), operation.as_str());
            view! {
                <section id="history">
                    <h2>"History: " {title.clone()}</h2>
                    {move || match rows.get() {
                        Load::Loading => muted("Loading…"),
                        Load::Failed => muted("The history could not be loaded."),
                        Load::Ready(rows) if rows.is_empty() => muted("No runs measured this."),
                        Load::Ready(rows) => {
                            let older = (rows.len() == HISTORY_RUNS as usize).then(|| {
                                view! {
                                    <p class="muted" id="history-truncated">
                                        {format!(
                                            "The newest {HISTORY_RUNS} runs; older ones stay in the store (GET /api/results)."
                                        )}
                                    </p>
                                }
                            });
                            view! {
                                {older}
                                {history_view(&title, &rows)}
                            }
                                .into_any()
                        }
                    }}
                </section>
            }
        })
    }
}

fn history_view(title: &str, rows: &[ResultRow]) -> impl IntoView + use<> {
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
            view! {
                <tr data-run-id=row.run_id.to_string() data-changed=flagged.to_string()>
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
                </tr>
            }
        })
        .collect_view();
    view! {
        {chart::figure("chart-history", "pqbench-history.svg", chart)}
        <div class="scroll">
            <table>
                <thead>
                    <tr>
                        <th>"Run"</th>
                        <th>"Started"</th>
                        <th>"Build"</th>
                        <th class="num">"ops/s"</th>
                        <th class="num">"Min – max per call"</th>
                        <th>"Change"</th>
                    </tr>
                </thead>
                <tbody>{table}</tbody>
            </table>
        </div>
    }
}

/// A badge for a run that did not end `complete` (failed, incomplete,
/// interrupted, or still going), beside figures shown with other runs':
/// they may be a part of what the run set out to measure.
fn unfinished_badge(status: RunStatus) -> Option<impl IntoView + use<>> {
    (status != RunStatus::Complete).then(|| {
        let status = status.as_str();
        view! {
            " "
            <span class=format!("badge run-{status}") data-run-status=status>
                {status}
            </span>
        }
    })
}

/// Two or more runs side by side: ops/s of each, and each run's ratio to
/// the first picked (how many times faster), as the filters narrow them.
#[component]
fn Compare(state: State) -> impl IntoView {
    let rows = RwSignal::new(Load::<Vec<ResultRow>>::Loading);
    Effect::new(move |_| {
        let runs = state.view.get().runs;
        if runs.len() < 2 {
            return;
        }
        rows.set(Load::Loading);
        let list = runs.iter().map(|id| id.to_string()).collect::<Vec<_>>().join(",");
        spawn_local(async move {
            let fetched = state.check(api::get(&format!("/api/results?run={list}&limit=20000")).await);
            if state.view.get_untracked().runs == runs {
                rows.update(|shown| shown.settle(fetched));
            }
        });
    });
    move || {
        let view = state.view.get();
        (view.runs.len() >= 2).then(|| {
            let runs = view.runs.clone();
            view! {
                <section id="compare">
                    <h2>{format!("Compare runs {}", runs.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", "))}</h2>
                    {move || match rows.get() {
                        Load::Loading => muted("Loading…"),
                        Load::Failed => muted("The runs could not be loaded."),
                        Load::Ready(rows) => compare_table(&state.view.get(), &rows).into_any(),
                    }}
                </section>
            }
        })
    }
}

fn compare_table(view: &View, rows: &[ResultRow]) -> impl IntoView {
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
    view! {
        <div class="scroll">
            <table>
                <thead>
                    <tr>
                        <th>"Algorithm"</th>
                        <th>"Operation"</th>
                        {headers}
                        {ratio_headers}
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
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
fn Charts(state: State, shown: Vec<BenchResult>) -> impl IntoView {
    let log_scale = move || state.view.get().log_scale;
    let speed = chart::speed(&shown, log_scale());
    let memory = chart::memory(&shown);
    view! {
        <div class="charts">
            <label class="chart-scale">
                <input
                    type="checkbox"
                    id="chart-log"
                    disabled=move || state.read_only()
                    prop:checked=log_scale
                    on:change=move |e| {
                        let on = event_target_checked(&e);
                        state.view.update(|view| view.log_scale = on);
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
fn sort_header(state: State, column: Column) -> impl IntoView {
    let current = move || state.view.get().sort.filter(|sort| sort.column == column);
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
        state.view.update(|view| {
            let descending = !matches!(view.sort, Some(Sort { column: c, descending: true }) if c == column);
            view.sort = Some(Sort { column, descending });
        })
    };
    view! {
        <th class="num" aria-sort=aria>
            <button class="sort" data-sort=column.key() disabled=move || state.read_only() on:click=toggle>
                {column.label()}
                {arrow}
            </button>
        </th>
    }
}

/// "Share": saves the view as a report and shows its link; on a report,
/// says that it is one.
#[component]
fn Share(state: State) -> impl IntoView {
    let link = RwSignal::new(None::<String>);
    let share = move |_| {
        let view = state.view.get_untracked();
        spawn_local(async move {
            let created = api::post::<_, ReportCreated>("/api/reports", &NewReport { view }).await;
            if let Some(created) = state.check(created) {
                link.set(Some(link::absolute(&created.url)));
            }
        });
    };
    view! {
        <div class="share">
            {move || match state.report.get() {
                Some(id) => {
                    Either::Left(
                        view! {
                            <p id="report-banner" class="muted">
                                "Shared report " <code>{id}</code> ", read-only. "
                                <a href="/">"Open the dashboard"</a>
                            </p>
                        },
                    )
                }
                None => {
                    Either::Right(
                        view! {
                            <button
                                id="share"
                                class="secondary"
                                disabled=move || state.selected.get().is_none()
                                on:click=share
                            >
                                "Share"
                            </button>
                            {move || {
                                link.get()
                                    .map(|url| {
                                        let text = url.clone();
                                        view! {
                                            " "
                                            <a id="share-link" href=url>
                                                {text}
                                            </a>
                                        }
                                    })
                            }}
                        },
                    )
                }
            }}
        </div>
    }
}

/// The filters over a run's results: family, algorithm, operation; each
/// "all" or one value.
#[component]
fn ResultFilters(state: State) -> impl IntoView {
    let family = move || state.view.get().filter.families.first().map_or("", |f| f.as_str());
    let algorithm = move || state.view.get().filter.algorithms.first().map_or("", |a| a.as_str());
    let operation = move || state.view.get().filter.operations.first().map_or("", |o| o.as_str());
    let choose = move |update: fn(&mut View, &str), value: String| {
        state.view.update(|view| update(view, &value));
    };
    view! {
        <div class="filters">
            <label>
                "Family "
                <select
                    id="filter-family"
                    disabled=move || state.read_only()
                    prop:value=family
                    on:change=move |e| {
                        choose(
                            |v, name| v.filter.families = Family::from_name(name).into_iter().collect(),
                            event_target_value(&e),
                        )
                    }
                >
                    <option value="">"All"</option>
                    {Family::ALL
                        .iter()
                        .map(|f| view! { <option value=f.as_str()>{family_label(*f)}</option> })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Algorithm "
                <select
                    id="filter-algorithm"
                    disabled=move || state.read_only()
                    prop:value=algorithm
                    on:change=move |e| {
                        choose(
                            |v, name| v.filter.algorithms = Algorithm::from_name(name).into_iter().collect(),
                            event_target_value(&e),
                        )
                    }
                >
                    <option value="">"All"</option>
                    {Algorithm::ALL
                        .iter()
                        .map(|a| view! { <option value=a.as_str()>{a.as_str()}</option> })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Operation "
                <select
                    id="filter-operation"
                    disabled=move || state.read_only()
                    prop:value=operation
                    on:change=move |e| {
                        choose(
                            |v, name| v.filter.operations = Operation::from_name(name).into_iter().collect(),
                            event_target_value(&e),
                        )
                    }
                >
                    <option value="">"All"</option>
                    {Operation::ALL
                        .iter()
                        .map(|o| view! { <option value=o.as_str()>{o.as_str()}</option> })
                        .collect_view()}
                </select>
            </label>
        </div>
    }
}

fn family_label(family: Family) -> &'static str {
    match family {
        Family::PostQuantum => "Post-quantum",
        Family::Classical => "Classical public-key",
        Family::Symmetric => "Symmetric",
        Family::Hash => "Hashes",
    }
}

fn result_row(state: State, r: BenchResult) -> impl IntoView {
    let (algorithm, operation) = (r.algorithm, r.operation);
    let show_history = move |_| {
        let board = state.selected.get_untracked().and_then(|id| match state.runs.get_untracked() {
            Load::Ready(runs) => runs.into_iter().find(|run| run.id == id).map(|run| run.board),
            _ => None,
        });
        if let Some(board) = board {
            state.view.update(|view| view.history = Some(HistoryOf { board, algorithm, operation }));
        }
    };
    let status = r.status.as_str();
    let figure = |field: &'static str, value: Option<f64>, text: String| {
        view! {
            <td class="num" data-field=field data-value=value.map(|v| v.to_string())>
                {text}
            </td>
        }
    };
    let integer = |v: Option<u64>| v.map(|v| v as f64);
    view! {
        <tr data-algorithm=r.algorithm.as_str() data-operation=r.operation.as_str() data-status=status>
            <td data-field="algorithm">
                {r.algorithm.as_str()}
                " "
                <button class="history-link" title="This operation on this board over time" on:click=show_history>
                    "history"
                </button>
            </td>
            <td data-field="operation">{r.operation.as_str()}</td>
            <td data-field="status">
                {if r.status == Status::Ok {
                    Either::Left(status)
                } else {
                    Either::Right(
                        view! { <span class=format!("badge status-{status}")>{status.replace('_', " ")}</span> },
                    )
                }}
                {r.note.map(|note| view! { <span class="note">{note}</span> })}
            </td>
            {figure("ops_per_sec", r.ops_per_sec, format::rate(r.ops_per_sec))}
            {figure("avg_ms", r.avg_ms, format::duration_ms(r.avg_ms))}
            // Ticks stand in where the board has no cycle counter, with
            // their unit, so an emulator's count is never read as cycles.
            <td class="num" data-field="cycles_per_op" data-value=r.cycles_per_op.map(|v| v.to_string())>
                {match (r.cycles_per_op, r.ticks_per_op) {
                    (Some(cycles), _) => Either::Left(format::ticks(Some(cycles))),
                    (None, ticks) => {
                        Either::Right(
                            view! {
                                <span class="muted" data-field="ticks_per_op">{format::ticks(ticks)}</span>
                                {r.tick_unit
                                    .filter(|_| ticks.is_some())
                                    .map(|unit| view! { " " <span class="unit">{unit}</span> })}
                            },
                        )
                    }
                }}
            </td>
            {figure("min_ms", r.min_ms, format::duration_ms(r.min_ms))}
            {figure("median_ms", r.median_ms, format::duration_ms(r.median_ms))}
            {figure("max_ms", r.max_ms, format::duration_ms(r.max_ms))}
            {figure("heap_bytes", integer(r.heap_bytes), format::bytes(r.heap_bytes))}
            {figure("heap_allocs", integer(r.heap_allocs), format::count(r.heap_allocs))}
            {figure("stack_bytes", integer(r.stack_bytes), format::bytes(r.stack_bytes))}
            {figure("bytes_per_sec", r.bytes_per_sec, format::throughput(r.bytes_per_sec))}
            {figure("code_bytes", integer(r.code_bytes), format::bytes(r.code_bytes))}
        </tr>
    }
}
