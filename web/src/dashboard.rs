//! The dashboard's route: every section, the view in the address bar so
//! that any view is a link to bookmark or send.

use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_location, use_navigate};
use pqbench_view::View;

use crate::alert::Alert;
use crate::boards::Boards;
use crate::browser_run::BrowserRun;
use crate::compare::Compare;
use crate::field::Field;
use crate::history::History;
use crate::import::Import;
use crate::results::Results;
use crate::runs::{RunList, Runs};
use crate::shown::Shown;

#[component]
pub fn Dashboard() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let location = use_location();
    let navigate = use_navigate();
    let linked = Memo::new(move |_| View::from_query(&location.search.get()));
    // A link naming something unknown says so instead of showing a wider
    // view than it asked for.
    Effect::new(move |_| {
        if let Err(message) = linked.get() {
            alert.show(message);
        }
    });
    let view = Memo::new(move |_| linked.get().unwrap_or_default());
    let change = Callback::new(move |view: View| {
        let path = location.pathname.get_untracked();
        let query = view.to_query();
        let url = if query.is_empty() { path } else { format!("{path}?{query}") };
        // Replaced, not pushed: the back button leaves the dashboard, not
        // the last sort. Not scrolled: the page stays where the click was.
        navigate(
            &url,
            NavigateOptions { resolve: false, replace: true, scroll: false, ..Default::default() },
        );
    });
    provide_context(Shown::editable(view.into(), change));
    view! { <Sections /> }
}

/// The sections, in their order: the dashboard's, and a report's around its
/// fixed view.
#[component]
pub fn Sections() -> impl IntoView {
    provide_context(RunList::new());
    view! {
        <Boards />
        <BrowserRun />
        <Import />
        <Runs />
        <Compare />
        <Results />
        <Field />
        <History />
    }
}
