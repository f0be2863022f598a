//! The page's one error banner (`Alert`, in context): the last failure the
//! user should know of, from any section, with a button that dismisses it.

use leptos::prelude::*;

use crate::context::Alert;

#[component]
pub fn ErrorBanner() -> impl IntoView {
    let alert = expect_context::<Alert>();
    move || {
        alert.message().map(|message| {
            view! {
                <div id="error" role="alert">
                    <span>{message}</span>
                    <button class="dismiss" aria-label="Dismiss" on:click=move |_| alert.clear()>
                        "×"
                    </button>
                </div>
            }
        })
    }
}
