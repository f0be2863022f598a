//! The pqbench dashboard: boards to run, runs to pick, a run's results, and
//! a run of the suite in this browser. Client-side rendered; all data comes
//! from the server's JSON API (`/api/...`).
//!
//! This file is the app and its routes: the dashboard at `/` (its view in
//! the address bar's query), and a shared report at `/reports/<id>`. Each
//! section is a module of its own; what they share (the view, the open run,
//! the runs, the error banner) is in context.

mod alert;
mod api;
mod boards;
mod browser_run;
mod chart;
mod compare;
mod components;
mod dashboard;
mod events;
mod field;
mod format;
mod history;
mod import;
mod report;
mod results;
mod runs;
mod shown;
mod worker;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;
use wasm_bindgen::prelude::*;

use alert::{Alert, ErrorBanner};
use dashboard::Dashboard;
use report::ReportPage;

#[wasm_bindgen(start)]
pub fn main() {
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    provide_context(Alert::new());
    view! {
        <Router>
            <header>
                <h1>"pqbench"</h1>
                <p class="tagline">"Post-quantum cryptography on microcontrollers and browsers"</p>
            </header>
            <main>
                <ErrorBanner />
                // The server answers every path that is not a file with this
                // page: any other address opens the dashboard, as `/` does.
                <Routes fallback=Dashboard>
                    <Route path=path!("/") view=Dashboard />
                    <Route path=path!("/reports/:id") view=ReportPage />
                </Routes>
            </main>
        </Router>
    }
}
