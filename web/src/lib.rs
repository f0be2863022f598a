//! The pqbench dashboard: boards to run, runs to pick, a run's results, and
//! a run of the suite in this browser. Client-side rendered; all data comes
//! from the server's JSON API (`/api/...`, every endpoint a function of
//! `api`).
//!
//! This file is the app and its routes, one page each (`routes/`): the
//! matrix at `/`, the boards to run and watch, the runs, a run, a
//! comparison, an import, and a shared report at `/reports/<id>`. A page's
//! view is in the address bar's query, so every view is a link. The
//! sections more than one page shows are in `components/`; what they share
//! (the view, the open run, the runs, the error banner) is in context
//! (`context`).

mod api;
mod components;
mod context;
mod panic_hook;
mod routes;
mod worker;

/// Regression verdicts in words, shared with the server's badges.
use pqbench_api::verdicts as regression;
/// Figures as people read them, shared with the server's charts.
use pqbench_view::format;

use leptos::prelude::*;
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::path;
use wasm_bindgen::prelude::*;

use components::{ErrorBanner, SignIn};
use context::{Alert, BoardRunState, BrowserRunState, OpenRun, RunList};
use routes::boards::BoardsPage;
use routes::compare::ComparePage;
use routes::home::HomePage;
use routes::import::ImportPage;
use routes::report::ReportPage;
use routes::run::RunPage;
use routes::runs::RunsPage;

#[wasm_bindgen(start)]
pub fn main() {
    panic_hook::install();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    provide_context(Alert::new());
    // The newest runs, read once and again when a page stores one: the
    // runs page lists them, the others find a run's board and clock in them.
    provide_context(RunList::new());
    view! {
        <Router>
            <Pages />
        </Router>
    }
}

/// The header, its navigation and the routes. Runs started on a page live
/// here, above the routes, so that they go on while their user reads
/// another page.
#[component]
fn Pages() -> impl IntoView {
    provide_context(BoardRunState::new());
    provide_context(BrowserRunState::new());
    provide_context(OpenRun::new());
    view! {
            <header>
                <div class="brand">
                    <h1>"pqbench"</h1>
                    <p class="tagline">"Post-quantum cryptography on microcontrollers and browsers"</p>
                </div>
                <nav aria-label="Pages">
                    <A href="/" exact=true>"Matrix"</A>
                    <A href="/boards">"Boards"</A>
                    <A href="/runs">"Runs"</A>
                    <A href="/compare">"Compare"</A>
                    <A href="/import">"Import"</A>
                </nav>
                <SignIn />
            </header>
            <main>
                <ErrorBanner />
                // The server answers every path that is not a file with this
                // page: an address no page has opens the matrix.
                <Routes fallback=HomePage>
                    <Route path=path!("/") view=HomePage />
                    <Route path=path!("/boards") view=BoardsPage />
                    <Route path=path!("/runs") view=RunsPage />
                    <Route path=path!("/runs/:id") view=RunPage />
                    <Route path=path!("/compare") view=ComparePage />
                    <Route path=path!("/import") view=ImportPage />
                    <Route path=path!("/reports/:id") view=ReportPage />
                </Routes>
            </main>
    }
}
