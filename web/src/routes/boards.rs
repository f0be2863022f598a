//! `/boards`: the boards this server reaches and this browser, each to run
//! and watch.

use leptos::prelude::*;

use crate::boards::Boards;
use crate::browser_run::BrowserRun;
use crate::shown::Shown;

#[component]
pub fn BoardsPage() -> impl IntoView {
    provide_context(Shown::routed(None));
    view! {
        <Boards />
        <BrowserRun />
    }
}
