//! `/runs`: the newest runs, each to open, or to tick and compare.

use leptos::prelude::*;

use crate::runs::Runs;
use crate::shown::Shown;

#[component]
pub fn RunsPage() -> impl IntoView {
    provide_context(Shown::routed(None));
    view! { <Runs /> }
}
