//! Where a finished run takes its user: to its page, when they are still on
//! the page that started it. A run goes on while they read another page
//! (its state is above the routes), and ending it must not pull them away
//! from what they read; it is then on the Runs page.

use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_location, use_navigate};

#[derive(Clone, Copy)]
pub struct OpenRun {
    navigate: Callback<String>,
    path: Memo<String>,
}

impl OpenRun {
    /// Inside the router, above the routes, so that it outlives each page.
    pub fn new() -> Self {
        let navigate = use_navigate();
        let location = use_location();
        OpenRun {
            navigate: Callback::new(move |url: String| navigate(&url, NavigateOptions::default())),
            path: Memo::new(move |_| location.pathname.get()),
        }
    }

    /// Opens run `id`'s page if the user is still on `page`.
    pub fn from(self, page: &str, id: i64) {
        if self.path.get_untracked() == page {
            self.navigate.run(format!("/runs/{id}"));
        }
    }
}
