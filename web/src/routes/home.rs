//! `/`: the matrix, every board and build at a glance.
//!
//! Links from before the pages (`/?runs=3`, `/?runs=3,7`) open the run's
//! page or the comparison they meant.

use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_location, use_navigate};
use pqbench_view::View;

use crate::components::Matrix;
use crate::context::Shown;

#[component]
pub fn HomePage() -> impl IntoView {
    let location = use_location();
    let navigate = use_navigate();
    Effect::new(move |_| {
        let Ok(view) = View::from_query(&location.search.get()) else { return };
        if view.matrix.is_some() || view.runs.is_empty() {
            return;
        }
        let url = match view.runs[..] {
            [id] => {
                let rest = View { runs: Vec::new(), ..view }.to_query();
                if rest.is_empty() { format!("/runs/{id}") } else { format!("/runs/{id}?{rest}") }
            }
            _ => format!("/compare?{}", view.to_query()),
        };
        navigate(&url, NavigateOptions { replace: true, ..Default::default() });
    });
    provide_context(Shown::routed(None));
    view! { <Matrix id="matrix" title="Every board and build" /> }
}
