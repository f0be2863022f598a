//! What the page shows, shared through context by every section: the view
//! (which runs, filters, order, chart scale, history), the run whose
//! results are open, and whether the view can change at all. The
//! dashboard's route keeps the view in the address bar; a shared report's
//! route takes it from the report, and nothing changes it there.

use leptos::prelude::*;
use pqbench_view::View;

#[derive(Clone, Copy)]
pub struct Shown {
    pub view: Signal<View>,
    /// The run whose results are open: the view's first run when the page
    /// opened, then the run last picked. Ticking runs to compare changes
    /// the view's runs but not this: the open results stay.
    pub selected: RwSignal<Option<i64>>,
    /// The shared report's id, on a report.
    pub report: Signal<Option<String>>,
    /// Puts a changed view on the page; none on a report, which is
    /// read-only.
    change: Option<Callback<View>>,
}

impl Shown {
    /// The dashboard's: `change` writes a view where `view` reads it from.
    pub fn editable(view: Signal<View>, change: Callback<View>) -> Self {
        let selected = RwSignal::new(view.with_untracked(|view| view.runs.first().copied()));
        Shown { view, selected, report: Signal::stored(None), change: Some(change) }
    }

    /// A shared report's, once `view` has loaded: fixed.
    pub fn report(id: Signal<String>, view: Signal<View>) -> Self {
        let selected = RwSignal::new(None);
        // A report opens on its first run, as the dashboard opens a link.
        Effect::new(move |_| selected.set(view.with(|view| view.runs.first().copied())));
        Shown { view, selected, report: Signal::derive(move || Some(id.get())), change: None }
    }

    pub fn read_only(self) -> bool {
        self.change.is_none()
    }

    /// Changes the view, where it can change.
    pub fn edit(self, change: impl FnOnce(&mut View)) {
        let Some(put) = self.change else { return };
        let mut view = self.view.get_untracked();
        change(&mut view);
        put.run(view);
    }

    /// Opens run `id`'s results, and makes it the view's one run.
    pub fn select(self, id: i64) {
        if self.read_only() {
            return;
        }
        self.edit(|view| view.runs = vec![id]);
        self.selected.set(Some(id));
    }
}
