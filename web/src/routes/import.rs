//! `/import`: a published log (wolfCrypt, pqm4), previewed, then stored.
//! The upload form: pick or paste a wolfCrypt or pqm4 log, say the board
//! and clock, see every row it will store and every line it will not, then
//! store it. Any change to the form drops the preview, so what is stored is
//! always what was last shown.

use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::{ImportPreview, LogFormat, NewImport};
use pqbench_types::{BenchResult, Source};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::components::Table;
use crate::context::{Alert, OpenRun, RunList, Shown};
use crate::{api, format};

/// The page logs are imported on, which the first stored run's page
/// replaces.
const PAGE: &str = "/import";

#[component]
pub fn ImportPage() -> impl IntoView {
    provide_context(Shown::routed(None));
    let alert = expect_context::<Alert>();
    let open = expect_context::<OpenRun>();
    let run_list = expect_context::<RunList>();
    let log_format = RwSignal::new(LogFormat::Wolfcrypt);
    let text = RwSignal::new(String::new());
    let file_name = RwSignal::new(None::<String>);
    let board = RwSignal::new(String::new());
    let clock_mhz = RwSignal::new(String::new());
    let preview = RwSignal::new(None::<ImportPreview>);
    let status = RwSignal::new(String::new());
    let busy = RwSignal::new(false);

    // The preview answers for the form as it was: any edit voids it.
    Effect::new(move |_| {
        log_format.track();
        text.track();
        board.track();
        clock_mhz.track();
        preview.set(None);
    });

    let request = move || -> Result<NewImport, String> {
        let clock = clock_mhz.get_untracked();
        let clock_hz = match clock.trim() {
            "" => None,
            mhz => match mhz.parse::<f64>() {
                Ok(mhz) if mhz.is_finite() && mhz > 0.0 => Some((mhz * 1e6).round() as u64),
                _ => return Err(format!("The clock is a number of MHz, such as 160, not {mhz:?}")),
            },
        };
        let text = text.get_untracked();
        if text.trim().is_empty() {
            return Err("Choose a log file or paste one first.".into());
        }
        let board = Some(board.get_untracked()).filter(|b| !b.trim().is_empty());
        Ok(NewImport {
            format: log_format.get_untracked(),
            text,
            file_name: file_name.get_untracked(),
            board,
            clock_hz,
        })
    };

    let show_preview = move |_| {
        alert.clear();
        let request = match request() {
            Ok(request) => request,
            Err(message) => return status.set(message),
        };
        busy.set(true);
        status.set("Reading…".into());
        spawn_local(async move {
            match api::preview_import(&request).await {
                Ok(shown) => {
                    status.set(String::new());
                    preview.set(Some(shown));
                }
                Err(message) => status.set(message),
            }
            busy.set(false);
        });
    };

    let store = move |_| {
        let request = match request() {
            Ok(request) => request,
            Err(message) => return status.set(message),
        };
        busy.set(true);
        status.set("Storing…".into());
        spawn_local(async move {
            match api::store_import(&request).await {
                Ok(stored) => {
                    preview.set(None);
                    let runs = stored.runs.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
                    status.set(format!("Stored as run {runs}."));
                    run_list.refresh();
                    if let Some(&first) = stored.runs.first() {
                        open.from(PAGE, first);
                    }
                }
                Err(message) => status.set(message),
            }
            busy.set(false);
        });
    };

    let pick_file = move |event: leptos::ev::Event| {
        let Some(file) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|input| input.files())
            .and_then(|files| files.get(0))
        else {
            return;
        };
        let name = file.name();
        spawn_local(async move {
            match JsFuture::from(file.text()).await.ok().and_then(|t| t.as_string()) {
                Some(content) => {
                    file_name.set(Some(name));
                    text.set(content);
                }
                None => status.set(format!("{name} could not be read as text.")),
            }
        });
    };

    let can_store =
        move || !busy.get() && preview.with(|p| p.as_ref().is_some_and(|p| p.already_imported_as.is_empty()));

    view! {
        <section id="import">
            <h2>"Import a published log"</h2>
            <p class="muted">
                "wolfCrypt's benchmark output or pqm4's benchmarks.md: its figures become runs beside the boards' and browsers'."
            </p>
            <div class="import-form">
                <label>
                    "Log "
                    <select
                        id="import-format"
                        on:change=move |e| {
                            if let Some(f) = LogFormat::from_name(&event_target_value(&e)) {
                                log_format.set(f);
                            }
                        }
                    >
                        {LogFormat::ALL
                            .iter()
                            .map(|f| view! { <option value=f.as_str()>{f.title()}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label>"File " <input id="import-file" type="file" accept=".txt,.log,.md,.csv,text/*" on:change=pick_file /></label>
                <label>
                    "Board "
                    <input
                        id="import-board"
                        type="text"
                        placeholder="e.g. nucleo-f439zi"
                        prop:value=move || board.get()
                        on:input=move |e| board.set(event_target_value(&e))
                    />
                </label>
                <label>
                    "Clock (MHz) "
                    <input
                        id="import-clock"
                        type="text"
                        inputmode="decimal"
                        size="6"
                        placeholder="e.g. 160"
                        prop:value=move || clock_mhz.get()
                        on:input=move |e| clock_mhz.set(event_target_value(&e))
                    />
                </label>
            </div>
            <textarea
                id="import-text"
                rows="6"
                spellcheck="false"
                placeholder="…or paste the log here"
                prop:value=move || text.get()
                on:input=move |e| {
                    file_name.set(None);
                    text.set(event_target_value(&e));
                }
            ></textarea>
            <div class="browser-controls">
                <button id="import-preview" class="secondary" disabled=move || busy.get() on:click=show_preview>
                    "Preview"
                </button>
                <button id="import-store" disabled=move || !can_store() on:click=store>
                    "Store"
                </button>
                <span id="import-status" aria-live="polite">{move || status.get()}</span>
            </div>
            {move || preview.get().map(preview_view)}
        </section>
    }
}

fn preview_view(preview: ImportPreview) -> impl IntoView {
    let results: usize = preview.runs.iter().map(|r| r.results.len()).sum();
    let summary = format!(
        "{}{}: {results} results in {} run{} for board {}{}. {} line{} not imported.",
        preview.format.title(),
        preview.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default(),
        preview.runs.len(),
        if preview.runs.len() == 1 { "" } else { "s" },
        preview.board,
        preview.clock_hz.map(|hz| format!(" at {} MHz", hz as f64 / 1e6)).unwrap_or_default(),
        preview.unread.len(),
        if preview.unread.len() == 1 { "" } else { "s" },
    );
    let duplicate = (!preview.already_imported_as.is_empty()).then(|| {
        let runs = preview.already_imported_as.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        view! {
            <p id="import-duplicate" class="warning">
                {format!("This log was imported before, as run {runs}: it will not be stored again.")}
            </p>
        }
    });
    let unread = (!preview.unread.is_empty()).then(|| {
        let head = view! {
            <th class="num">"Line"</th>
            <th>"Text"</th>
            <th>"Why"</th>
        };
        view! {
            <h3>"Lines not imported"</h3>
            <Table id="import-unread" head>
                {preview
                    .unread
                    .into_iter()
                    .map(|u| {
                        view! {
                            <tr data-line=u.line>
                                <td class="num">{u.line}</td>
                                <td><code>{u.text}</code></td>
                                <td>{u.reason}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </Table>
        }
    });
    let runs = preview
        .runs
        .into_iter()
        .map(|run| {
            view! {
                <h3>{run.build.label(Source::Import)}</h3>
                <Table class="import-rows" head=preview_head()>
                    {run.results.into_iter().map(preview_row).collect_view()}
                </Table>
            }
        })
        .collect_view();
    view! {
        <div id="import-result">
            <p id="import-summary">{summary}</p>
            {duplicate}
            {runs}
            {unread}
        </div>
    }
}

fn preview_head() -> impl IntoView {
    view! {
        <th>"Algorithm"</th>
        <th>"Operation"</th>
        <th class="num">"Ops"</th>
        <th class="num">"Seconds"</th>
        <th class="num">"ops/s"</th>
        <th class="num">"Average"</th>
        <th class="num">"Throughput"</th>
        <th class="num">"Cycles/op"</th>
        <th class="num">"Heap"</th>
        <th class="num">"Allocs"</th>
        <th class="num">"Stack"</th>
        <th class="num">"Code"</th>
        <th>"Note"</th>
    }
}

fn preview_row(r: BenchResult) -> impl IntoView {
    view! {
        <tr data-algorithm=r.algorithm.as_str() data-operation=r.operation.as_str()>
            <td>{r.algorithm.as_str()}</td>
            <td>{r.operation.as_str()}</td>
            <td class="num">{format::count(r.iterations)}</td>
            <td class="num">{r.total_seconds.map_or_else(|| format::MISSING.to_string(), |s| s.to_string())}</td>
            <td class="num">{format::rate(r.ops_per_sec)}</td>
            <td class="num">{format::duration_ms(r.avg_ms)}</td>
            <td class="num">{format::throughput(r.bytes_per_sec)}</td>
            <td class="num">{format::ticks(r.cycles_per_op)}</td>
            <td class="num">{format::bytes(r.heap_bytes)}</td>
            <td class="num">{format::count(r.heap_allocs)}</td>
            <td class="num">{format::bytes(r.stack_bytes)}</td>
            <td class="num">{format::bytes(r.code_bytes)}</td>
            <td class="note">{r.note}</td>
        </tr>
    }
}
