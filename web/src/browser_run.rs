//! "This browser": the suite run here, in a worker, its figures uploaded
//! as a run beside the boards'.

use futures::channel::oneshot;
use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::Created;
use pqbench_types::Algorithm;

use crate::alert::Alert;
use crate::boards::POST_QUANTUM;
use crate::runs::RunList;
use crate::shown::Shown;
use crate::{api, worker};

/// What a browser run can measure: (key, label, algorithms; none = all).
const BROWSER_SUITES: &[(&str, &str, &[Algorithm])] = &[
    ("post-quantum", "ML-KEM and ML-DSA, every level", POST_QUANTUM),
    ("with-classical", "ML-KEM and ML-DSA with the classical baselines", WITH_CLASSICAL),
    ("whole", "The whole suite", &[]),
];

const WITH_CLASSICAL: &[Algorithm] = &[
    Algorithm::MlKem512,
    Algorithm::MlKem768,
    Algorithm::MlKem1024,
    Algorithm::MlDsa44,
    Algorithm::MlDsa65,
    Algorithm::MlDsa87,
    Algorithm::Rsa2048,
    Algorithm::EcdsaP256,
    Algorithm::EcdhP256,
    Algorithm::X25519,
    Algorithm::Ed25519,
    Algorithm::Aes128Gcm,
    Algorithm::Sha256,
];

/// Time given to each operation: (ms, label). The first is the default,
/// the suite's own, so figures settle.
const BROWSER_TIMES: &[(u32, &str)] = &[(1000, "1 s per operation"), (200, "0.2 s per operation")];

#[component]
pub fn BrowserRun() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    let runs = expect_context::<RunList>();
    let suite = RwSignal::new(BROWSER_SUITES[0].0.to_owned());
    let time_ms = RwSignal::new(BROWSER_TIMES[0].0);
    let status = RwSignal::new(String::new());
    let step = RwSignal::new(None::<worker::Step>);
    let busy = RwSignal::new(false);
    let cancel = StoredValue::new(None::<oneshot::Sender<()>>);

    let run = move |_| {
        alert.clear();
        busy.set(true);
        step.set(None);
        status.set("Starting…".into());
        let (cancel_sender, cancelled) = oneshot::channel();
        cancel.set_value(Some(cancel_sender));
        let algorithms =
            BROWSER_SUITES.iter().find(|(key, ..)| *key == suite.get_untracked()).map_or(&[][..], |s| s.2);
        let request =
            worker::Request { algorithms, min_iterations: 10, min_time_ms: time_ms.get_untracked() };
        spawn_local(async move {
            let started = js_sys::Date::now();
            let on_step = move |next: worker::Step| {
                status.set(describe_step(&next, js_sys::Date::now() - started));
                step.set(Some(next));
            };
            let measured = worker::run(&request, on_step, cancelled).await;
            cancel.set_value(None);
            step.set(None);
            match measured {
                Err(why) if why == worker::CANCELLED => status.set("Cancelled: nothing was stored".into()),
                measured => {
                    let uploaded = async {
                        let upload = measured?;
                        status.set("Uploading…".into());
                        api::post_json_text::<Created>("/api/uploads", upload).await
                    };
                    if let Some(Created { id }) = alert.check(uploaded.await) {
                        status.set(format!("Done: run {id}"));
                        runs.refresh();
                        shown.select(id);
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
                value=move || step.get().map_or(0, |s| s.index.saturating_sub(1))
            ></progress>
            <span id="browser-progress" aria-live="polite">{move || status.get()}</span>
        </section>
    }
}

/// "ML-KEM-768 encaps (5 of 30), about 12 s left": what is measured now,
/// and a time left from the pace so far.
fn describe_step(step: &worker::Step, elapsed_ms: f64) -> String {
    let done = step.index.saturating_sub(1);
    let mut text = format!("{} {} ({} of {})", step.algorithm, step.operation, step.index, step.total);
    if done > 0 {
        let left_s = elapsed_ms / f64::from(done) * f64::from(step.total - done) / 1000.0;
        text.push_str(&format!(", about {} s left", left_s.ceil()));
    }
    text
}
