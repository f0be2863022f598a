//! Every table of the dashboard: a header row and a body, in a box that
//! scrolls sideways on a narrow screen rather than squeezing the figures.

use leptos::prelude::*;

#[component]
pub fn Table<H: IntoView + 'static>(
    /// The table's own id, where a test or a link names it.
    #[prop(optional)]
    id: Option<&'static str>,
    #[prop(optional)] class: Option<&'static str>,
    /// The header row's cells.
    head: H,
    /// The body's rows.
    children: Children,
) -> impl IntoView {
    view! {
        <div class="scroll">
            <table id=id class=class>
                <thead>
                    <tr>{head}</tr>
                </thead>
                <tbody>{children()}</tbody>
            </table>
        </div>
    }
}
