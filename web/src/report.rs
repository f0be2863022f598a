//! Shared reports: "Share" saves the view under an unguessable id, and the
//! report's route (`/reports/<id>`) shows the sections around that view,
//! read-only.

use leptos::either::Either;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_params_map;
use pqbench_api::{NewReport, Report, ReportCreated};
use pqbench_view::View;

use crate::alert::Alert;
use crate::api;
use crate::dashboard::Sections;
use crate::shown::Shown;

#[component]
pub fn ReportPage() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|params| params.get("id").unwrap_or_default()));
    let report = LocalResource::new(move || {
        let id = id.get();
        async move {
            let path = format!("/api/reports/{}", js_sys::encode_uri_component(&id));
            alert.check(api::get::<Report>(&path).await)
        }
    });
    let view = Memo::new(move |_| report.get().flatten().map(|report| report.view).unwrap_or_default());
    provide_context(Shown::report(id.into(), view.into()));
    view! { <Sections /> }
}

/// "Share": saves the view as a report and shows its link; on a report,
/// says that it is one.
#[component]
pub fn Share() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    let link = RwSignal::new(None::<String>);
    let share = move |_| {
        let view: View = shown.view.get_untracked();
        spawn_local(async move {
            let created = api::post::<_, ReportCreated>("/api/reports", &NewReport { view }).await;
            if let Some(created) = alert.check(created) {
                link.set(Some(absolute(&created.url)));
            }
        });
    };
    view! {
        <div class="share">
            {move || match shown.report.get() {
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
                                disabled=move || shown.selected.get().is_none()
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

/// `path` on this server, as a link to give someone.
fn absolute(path: &str) -> String {
    let origin = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
    format!("{origin}{path}")
}
