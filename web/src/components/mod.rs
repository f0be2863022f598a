//! The sections and pieces pages are made of: the matrix (with its
//! controls and its pair), a run's results, an operation's history, the
//! browser run, the error banner, "Share", the sign-in, the charts, the table in its
//! scrolling box, the filters over sets of names, a section's message in
//! place of its content, and the badge of a run that did not complete.

mod browser_run;
mod chart;
mod error_banner;
mod filter;
mod history;
mod matrix;
mod matrix_controls;
mod matrix_pair;
mod results;
mod share;
mod sign_in;
mod table;

pub use browser_run::BrowserRun;
pub use error_banner::ErrorBanner;
pub use filter::Filters;
pub use history::History;
pub use matrix::Matrix;
pub use results::Results;
pub use share::Share;
pub use sign_in::SignIn;
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
