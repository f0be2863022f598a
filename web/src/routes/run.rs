//! `/runs/<id>`: one run's results, its browser field, and an operation's
//! history on its board.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::field::Field;
use crate::history::History;
use crate::results::Results;
use crate::shown::Shown;

#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = Signal::derive(move || {
        params.with(|params| params.get("id").and_then(|id| id.parse::<i64>().ok()).filter(|&id| id > 0))
    });
    provide_context(Shown::routed(Some(id)));
    view! {
        <Results />
        <Field />
        <History />
    }
}
