//! `/compare?runs=..`: runs picked to compare, as the matrix's columns,
//! the first two set against each other until another pair is chosen.

use leptos::prelude::*;
use pqbench_view::View;

use crate::components::Matrix;
use crate::context::Shown;

#[component]
pub fn ComparePage() -> impl IntoView {
    let shown = Shown::routed(None);
    // The pair the comparison opens on: the first run against the second.
    // Read with `try_`: while the router leaves this page the address bar
    // changes before the page is gone, and what it derived may be disposed
    // first; the page then shows nothing new rather than failing.
    let defaulted = Signal::derive(move || {
        let mut view: View = shown.view.try_get().unwrap_or_default();
        if let [first, second, ..] = view.runs[..] {
            let mut matrix = view.matrix.take().unwrap_or_default();
            matrix.pair.get_or_insert([first, second]);
            view.matrix = Some(matrix);
        }
        view
    });
    provide_context(shown.showing(defaulted));
    // The matrix is made once, whatever the view: a page whose content
    // switched with its view would dispose the matrix while its own update
    // was under way as the page is left.
    view! { <Matrix id="compare" title="Compare runs" at_least=2 /> }
}
