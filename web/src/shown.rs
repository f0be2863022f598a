//! What a page shows, shared through context by its sections: the view
//! (which runs, filters, order, chart scale, history, matrix), the run
//! whose results are open, and whether the view can change at all. A
//! page's route keeps the view in the address bar (a run's id in its
//! path); a shared report's route takes it from the report, and nothing
//! changes it there.

use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_location, use_navigate};
use pqbench_view::View;

use crate::alert::Alert;

#[derive(Clone, Copy)]
pub struct Shown {
    pub view: Signal<View>,
    /// The run whose results are open: a run's page's, or a one-run
    /// report's.
    pub selected: Signal<Option<i64>>,
    /// Puts a changed view on the page; none on a report, which is
    /// read-only.
    change: Option<Callback<View>>,
    /// The view last put, until the address bar has it: the router takes
    /// a navigation in a later tick, and a second change before then
    /// (two filters chosen quickly) builds on the first, not on the view
    /// before it.
    pending: StoredValue<Option<View>>,
    /// Opens a run's page; none on a report.
    open: Option<Callback<i64>>,
}

impl Shown {
    /// A page's view, read from the address bar's query and written back
    /// there. `run` is the run a page's path names (`/runs/<id>`): it is
    /// the view's one run, and not repeated in the query.
    pub fn routed(run: Option<Signal<Option<i64>>>) -> Self {
        let alert = expect_context::<Alert>();
        let location = use_location();
        let navigate = use_navigate();
        let linked = Memo::new(move |_| View::from_query(&location.search.get()));
        // A link naming something unknown says so instead of showing a wider
        // view than it asked for.
        Effect::new(move |_| {
            if let Err(message) = linked.get() {
                alert.show(message);
            }
        });
        let view = Memo::new(move |_| {
            let mut view = linked.get().unwrap_or_default();
            if let Some(id) = run.and_then(|run| run.get()) {
                view.runs = vec![id];
            }
            view
        });
        let pending = StoredValue::new(None::<View>);
        // The address bar has caught up (or the user went back): nothing
        // is pending.
        Effect::new(move |_| {
            location.search.track();
            pending.set_value(None);
        });
        let replace = navigate.clone();
        let change = Callback::new(move |mut view: View| {
            pending.set_value(Some(view.clone()));
            if run.is_some() {
                view.runs.clear();
            }
            let path = location.pathname.get_untracked();
            let query = view.to_query();
            let url = if query.is_empty() { path } else { format!("{path}?{query}") };
            // Replaced, not pushed: the back button leaves the page, not the
            // last sort. Not scrolled: the page stays where the click was.
            replace(
                &url,
                NavigateOptions { resolve: false, replace: true, scroll: false, ..Default::default() },
            );
        });
        // A run opens on its own page with the rows the view keeps and
        // their order; a matrix's or a history's choices stay behind.
        let open = Callback::new(move |id: i64| {
            let kept = view.with_untracked(|view| View {
                filter: view.filter.clone(),
                sort: view.sort,
                log_scale: view.log_scale,
                ..View::default()
            });
            let query = kept.to_query();
            let url = if query.is_empty() { format!("/runs/{id}") } else { format!("/runs/{id}?{query}") };
            navigate(&url, NavigateOptions::default());
        });
        let selected = Signal::derive(move || run.and_then(|run| run.get()));
        Shown { view: view.into(), selected, change: Some(change), pending, open: Some(open) }
    }

    /// A shared report's, once `view` has loaded: fixed.
    pub fn report(view: Signal<View>) -> Self {
        // A one-run report opens on its run.
        let selected = Signal::derive(move || {
            view.with(|view| (view.matrix.is_none() && view.runs.len() == 1).then(|| view.runs[0]))
        });
        Shown { view, selected, change: None, pending: StoredValue::new(None), open: None }
    }

    /// The same page's, showing `view` instead: a page that fills in
    /// what its link leaves out (a comparison's default pair).
    pub fn showing(self, view: Signal<View>) -> Self {
        Shown { view, ..self }
    }

    pub fn read_only(self) -> bool {
        self.change.is_none()
    }

    /// Changes the view, where it can change.
    pub fn edit(self, change: impl FnOnce(&mut View)) {
        let Some(put) = self.change else { return };
        let mut view = self.pending.get_value().unwrap_or_else(|| self.view.get_untracked());
        change(&mut view);
        put.run(view);
    }

    /// Opens run `id`'s page.
    pub fn select(self, id: i64) {
        if let Some(open) = self.open {
            open.run(id);
        }
    }
}
