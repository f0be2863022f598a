//! `/import`: a published log (wolfCrypt, pqm4), previewed, then stored.

use leptos::prelude::*;

use crate::import::Import;
use crate::shown::Shown;

#[component]
pub fn ImportPage() -> impl IntoView {
    provide_context(Shown::routed(None));
    view! { <Import /> }
}
