//! Pieces the sections share: the table in its scrolling box, the filter
//! over a set of names, a section's message in place of its content, and
//! the badge of a run that did not complete.

mod filter;
mod table;

pub use filter::{FilterSelect, Name};
pub use table::Table;

use leptos::prelude::*;
use pqbench_types::RunStatus;

/// A section's message where its content would be: loading, nothing yet,
/// or why there is nothing.
pub fn muted(text: &'static str) -> AnyView {
    view! { <p class="muted">{text}</p> }.into_any()
}

/// A badge for a run that did not end `complete` (failed, incomplete,
/// interrupted, or still going), beside figures shown with other runs':
/// they may be a part of what the run set out to measure.
pub fn unfinished_badge(status: RunStatus) -> Option<impl IntoView + use<>> {
    (status != RunStatus::Complete).then(|| {
        let status = status.as_str();
        view! {
            " "
            <span class=format!("badge run-{status}") data-run-status=status>
                {status}
            </span>
        }
    })
}
