//! "Share": saves the shown view as a report under an unguessable id and
//! shows its link.

use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::NewReport;
use pqbench_view::View;

use crate::api;
use crate::context::{Alert, Shown};

/// `prepare` makes the view to save from the shown one (a matrix pins the
/// runs it shows, so that the report shows them tomorrow too).
#[component]
pub fn Share(#[prop(optional)] prepare: Option<Callback<View, View>>) -> impl IntoView {
    let alert = expect_context::<Alert>();
    let shown = expect_context::<Shown>();
    let link = RwSignal::new(None::<String>);
    let share = move |_| {
        let view = shown.view.get_untracked();
        let view = match prepare {
            Some(prepare) => prepare.run(view),
            None => view,
        };
        spawn_local(async move {
            let created = api::create_report(&NewReport { view }).await;
            if let Some(created) = alert.check(created) {
                link.set(Some(absolute(&created.url)));
            }
        });
    };
    view! {
        <div class="share">
            <button id="share" class="secondary" on:click=share>
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
        </div>
    }
}

/// `path` on this server, as a link to give someone.
fn absolute(path: &str) -> String {
    let origin = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
    format!("{origin}{path}")
}
