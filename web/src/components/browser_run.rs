//! "This browser": the suite run here, in a worker, its figures uploaded
//! as a run beside the boards'; and beside it, on the suite's post-quantum
//! algorithms each of them has (ML-KEM and ML-DSA; noble's X-Wing, noble's
//! and liboqs-js's SLH-DSA 128-bit sets), each other implementation this
//! browser can run (its own WebCrypto, `@noble/post-quantum`,
//! `@oqs/liboqs-js`), each uploaded as a build of its own of the same
//! browser board.

use futures::FutureExt;
use futures::channel::oneshot;
use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::RunCreated;
use pqbench_types::{Algorithm, Family};

use crate::context::{
    Alert, BROWSER_SUITES, BROWSER_TIMES, BrowserRunState, IMPLEMENTATIONS, OpenRun, RunList,
};
use crate::{api, worker};

/// The page a browser run starts on, which its first run's page replaces.
const PAGE: &str = "/boards";

#[component]
pub fn BrowserRun() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let open = expect_context::<OpenRun>();
    let runs = expect_context::<RunList>();
    let BrowserRunState { suite, time_ms, status, step, busy, cancel, chosen } = expect_context();

    let run = move |_| {
        alert.clear();
        busy.set(true);
        step.set(None);
        status.set("Starting…".into());
        let (cancel_sender, cancelled) = oneshot::channel();
        cancel.set_value(Some(cancel_sender));
        let algorithms =
            BROWSER_SUITES.iter().find(|(key, ..)| *key == suite.get_untracked()).map_or(&[][..], |s| s.2);
        let time_ms = time_ms.get_untracked();
        let implementations = chosen.get_untracked();
        // Shared by every build this press stores, so the results page
        // finds them together (pqbench_view::field).
        let token = format!("{:013x}", (js_sys::Math::random() * 2f64.powi(52)) as u64);
        spawn_local(async move {
            let mut cancelled = cancelled.fuse();
            let mut stored = Vec::new();
            let mut problems = Vec::new();
            let mut was_cancelled = false;
            for implementation in implementations {
                let label = label_of(implementation);
                let peer_algorithms = post_quantum_of(algorithms);
                let (url, request) = match implementation {
                    "wasm" => (
                        worker::SUITE_URL,
                        worker::Request {
                            implementation: None,
                            algorithms,
                            min_iterations: 10,
                            min_time_ms: time_ms,
                            browser_run: Some(&token),
                        },
                    ),
                    peer => (
                        worker::PEERS_URL,
                        worker::Request {
                            implementation: Some(peer),
                            algorithms: &peer_algorithms,
                            min_iterations: 10,
                            min_time_ms: time_ms,
                            browser_run: Some(&token),
                        },
                    ),
                };
                let started = js_sys::Date::now();
                let on_step = move |next: worker::Step| {
                    status.set(format!("{label}: {}", describe_step(&next, js_sys::Date::now() - started)));
                    step.set(Some(next));
                };
                match worker::run(url, &request, on_step, &mut cancelled).await {
                    Err(why) if why == worker::CANCELLED => {
                        was_cancelled = true;
                        break;
                    }
                    Err(why) => problems.push(format!("{label}: {why}")),
                    Ok(upload) => {
                        status.set(format!("{label}: uploading…"));
                        match api::upload(upload).await {
                            Ok(RunCreated { id }) => stored.push(id),
                            Err(why) => problems.push(format!("{label}: {why}")),
                        }
                    }
                }
            }
            cancel.set_value(None);
            step.set(None);
            if !problems.is_empty() {
                alert.show(problems.join("; "));
            }
            status.set(summary(&stored, was_cancelled, problems.is_empty()));
            if let Some(&first) = stored.first() {
                runs.refresh();
                open.from(PAGE, first);
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
                "Runs the same suite as the boards, compiled to WebAssembly, in a worker: the page stays usable. \
                 Beside it, on the post-quantum algorithms each has (ML-KEM and ML-DSA; noble's X-Wing; \
                 SLH-DSA's 128-bit sets), this browser's own WebCrypto and two JavaScript libraries, each checked \
                 against pqbench's outputs first and stored as a run of its own."
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
                        .map(|&(key, label, _)| {
                            view! { <option value=key selected=move || suite.with(|s| s == key)>{label}</option> }
                        })
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
                        .map(|&(ms, label)| {
                            view! { <option value=ms.to_string() selected=move || time_ms.get() == ms>{label}</option> }
                        })
                        .collect_view()}
                </select>
                <fieldset id="browser-implementations" class="implementations">
                    <legend>"Implementations"</legend>
                    {IMPLEMENTATIONS
                        .iter()
                        .map(|&(key, label)| {
                            let toggle = move |event| {
                                let on = event_target_checked(&event);
                                chosen.update(|list| {
                                    list.retain(|k| *k != key);
                                    if on {
                                        list.push(key);
                                        // Always in the list's order: ours first.
                                        list.sort_by_key(|k| IMPLEMENTATIONS.iter().position(|(i, _)| i == k));
                                    }
                                });
                            };
                            view! {
                                <label>
                                    <input
                                        type="checkbox"
                                        id=format!("browser-impl-{key}")
                                        prop:checked=move || chosen.with(|list| list.contains(&key))
                                        disabled=move || busy.get()
                                        on:change=toggle
                                    />
                                    {label}
                                </label>
                            }
                        })
                        .collect_view()}
                </fieldset>
                <button
                    id="browser-run"
                    disabled=move || busy.get() || chosen.with(Vec::is_empty)
                    on:click=run
                >
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

fn label_of(implementation: &str) -> &'static str {
    IMPLEMENTATIONS.iter().find(|(key, _)| *key == implementation).map_or("?", |(_, label)| label)
}

/// What the other implementations are asked for: the suite's post-quantum
/// algorithms (every one pqbench names, for the whole suite, named by no
/// algorithm). Each measures those it offers and pqbench checks it against
/// (peers.js); the classical baselines are ours alone.
fn post_quantum_of(algorithms: &[Algorithm]) -> Vec<Algorithm> {
    let asked = if algorithms.is_empty() { Algorithm::ALL } else { algorithms };
    asked.iter().copied().filter(|a| a.family() == Family::PostQuantum).collect()
}

/// What a finished browser run says: the runs it stored, and whether it was
/// cut short or something failed (the banner says what).
fn summary(stored: &[i64], cancelled: bool, clean: bool) -> String {
    let runs = match stored {
        [] => "nothing was stored".to_owned(),
        [one] => format!("run {one}"),
        many => format!("runs {}", many.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")),
    };
    match (cancelled, clean) {
        (true, _) if stored.is_empty() => "Cancelled: nothing was stored".to_owned(),
        (true, _) => format!("Cancelled: {runs} stored before"),
        (false, true) => format!("Done: {runs}"),
        (false, false) if stored.is_empty() => "Failed: nothing was stored".to_owned(),
        (false, false) => format!("Failed in part: {runs}"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{POST_QUANTUM, WITH_CLASSICAL};

    #[test]
    fn the_other_implementations_get_the_suite_s_post_quantum_algorithms() {
        let whole = post_quantum_of(&[]);
        for a in
            POST_QUANTUM.iter().chain(&[Algorithm::XWing, Algorithm::SlhDsaSha2_128f, Algorithm::FnDsa512])
        {
            assert!(whole.contains(a), "the whole suite: {a}");
        }
        assert!(!whole.contains(&Algorithm::EcdsaP256) && !whole.contains(&Algorithm::Sha256));
        // The suite's own: its ML-KEM and ML-DSA first, then the hybrids,
        // SLH-DSA, FN-DSA and HQC, in the suite's order; no baseline.
        let with_classical = post_quantum_of(WITH_CLASSICAL);
        assert_eq!(with_classical[..POST_QUANTUM.len()], *POST_QUANTUM);
        for a in
            [Algorithm::X25519MlKem768, Algorithm::XWing, Algorithm::SlhDsaSha2_128f, Algorithm::HqcKem256]
        {
            assert!(with_classical.contains(&a), "with the classical baselines: {a}");
        }
        let mut rest = WITH_CLASSICAL.iter();
        assert!(with_classical.iter().all(|a| rest.any(|b| b == a)), "in the suite's order");
        assert!(
            !with_classical.contains(&Algorithm::Rsa2048) && !with_classical.contains(&Algorithm::Sha256)
        );
        assert_eq!(
            post_quantum_of(&[Algorithm::MlKem768, Algorithm::MlDsa65]),
            [Algorithm::MlKem768, Algorithm::MlDsa65]
        );
        assert_eq!(post_quantum_of(&[Algorithm::Sha256]), []);
    }

    #[test]
    fn a_finished_run_says_what_it_stored() {
        assert_eq!(summary(&[4, 5, 6, 7], false, true), "Done: runs 4, 5, 6, 7");
        assert_eq!(summary(&[4], false, true), "Done: run 4");
        assert_eq!(summary(&[4, 5], false, false), "Failed in part: runs 4, 5");
        assert_eq!(summary(&[], false, false), "Failed: nothing was stored");
        assert_eq!(summary(&[], true, true), "Cancelled: nothing was stored");
        assert_eq!(summary(&[4], true, true), "Cancelled: run 4 stored before");
        assert_eq!(label_of("noble"), "@noble/post-quantum");
    }
}
