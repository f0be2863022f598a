//! The page's one error banner: the last failure the user should know of,
//! from any section, until it is dismissed or a new attempt starts.

use leptos::prelude::*;

use crate::api::ApiResult;

/// The banner's message, shared through context.
#[derive(Clone, Copy)]
pub struct Alert(RwSignal<Option<String>>);

impl Alert {
    pub fn new() -> Self {
        Alert(RwSignal::new(None))
    }

    pub fn show(self, message: String) {
        self.0.set(Some(message));
    }

    /// Takes the banner down, as a new attempt starts.
    pub fn clear(self) {
        self.0.set(None);
    }

    /// Shows a failure, or passes a success on.
    pub fn check<T>(self, result: ApiResult<T>) -> Option<T> {
        result.map_err(|message| self.show(message)).ok()
    }
}

#[component]
pub fn ErrorBanner() -> impl IntoView {
    let alert = expect_context::<Alert>();
    move || {
        alert.0.get().map(|message| {
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
