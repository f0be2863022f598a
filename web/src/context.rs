//! What the pages and their sections share through context: the error
//! banner's message and the newest runs (the app's, for every page); the
//! board run, the browser run and where a finished one opens (above the
//! routes, so that a run outlives the page that started it); and what a
//! page shows (each page's own).

use futures::channel::oneshot;
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_location, use_navigate};
use pqbench_api::RunProgress;
use pqbench_types::{Algorithm, Run};
use pqbench_view::{MemoryTiming, View};

use crate::api::{self, ApiResult};
use crate::worker;

// The error banner.

/// The page's one error banner: the last failure the user should know of,
/// from any section, until it is dismissed or a new attempt starts.
#[derive(Clone, Copy)]
pub struct Alert(RwSignal<Option<String>>);

impl Alert {
    pub fn new() -> Self {
        Alert(RwSignal::new(None))
    }

    /// What the banner says now, if it is up.
    pub fn message(self) -> Option<String> {
        self.0.get()
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

// The runs.

/// How many of the newest runs the list holds.
const RUNS_SHOWN: u32 = 50;

/// The newest runs, as the server lists them. Shared through context, as
/// the sections that start runs read it again when theirs are stored.
#[derive(Clone, Copy)]
pub struct RunList(LocalResource<Option<Vec<Run>>>);

impl RunList {
    pub fn new() -> Self {
        RunList(api::listed(|| api::runs(RUNS_SHOWN)))
    }

    /// The list as loaded: None until it is, or if it could not be.
    pub fn listed(self) -> Option<Option<Vec<Run>>> {
        self.0.get()
    }

    /// Reads the list again, as a run was started, ended or stored.
    pub fn refresh(self) {
        self.0.refetch();
    }

    /// What to warn of the clock run `id`'s board ran at, if the list has
    /// the run and its board fell back (see [`clock_warning`]).
    pub fn clock_warning_of(self, id: i64) -> Option<String> {
        self.0
            .with(|listed| listed.as_ref()?.as_ref()?.iter().find(|run| run.id == id).and_then(clock_warning))
    }

    /// How run `id`'s board read its flash, if the list has the run and its
    /// firmware said.
    pub fn memory_timing_of(self, id: i64) -> Option<MemoryTiming> {
        self.0.with(|listed| {
            listed.as_ref()?.as_ref()?.iter().find(|run| run.id == id).and_then(MemoryTiming::of)
        })
    }

    /// The runs stored by the same press of "Run in this browser" as run
    /// `id`, oldest first, as far as the list has them.
    pub fn field_of(self, id: i64) -> Vec<i64> {
        self.0.with(|listed| {
            listed
                .as_ref()
                .and_then(Option::as_ref)
                .map_or_else(Vec::new, |runs| pqbench_view::field::runs_of(runs, id))
        })
    }

    /// The board run `id` was made on, if the list has it.
    pub fn board_of(self, id: i64) -> Option<String> {
        self.0
            .try_with_untracked(|listed| {
                listed.as_ref()?.as_ref()?.iter().find(|run| run.id == id).map(|run| run.board.clone())
            })
            .flatten()
    }
}

/// What a person should know of the clock a run's board ran at, when it is
/// not that board's usual one: its firmware fell back (no 8 MHz clock from
/// the ST-LINK, or a PLL that did not lock) and said so in its `hello`'s
/// `clock_source`, which a run keeps in its build's `extra` beside the
/// firmware's own board id (a serial board's run id is its port's). The
/// sentence is the board catalogue's, as the board list shows it.
pub fn clock_warning(run: &Run) -> Option<String> {
    let said = |key: &str| run.build.extra.get(key).map(String::as_str);
    pqbench_boards::clock_note(said("board"), said("clock_source")).map(|note| format!("clock: {note}"))
}

// Where a finished run opens.

/// Where a finished run takes its user: to its page, when they are still on
/// the page that started it. A run goes on while they read another page
/// (its state is above the routes), and ending it must not pull them away
/// from what they read; it is then on the Runs page.
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

// A board run.

/// What a board run can measure: (key, label, algorithms; none = all).
pub const BOARD_SUITES: &[(&str, &str, &[Algorithm])] = &[
    ("quick", "ML-KEM-768 only (seconds)", &[Algorithm::MlKem768]),
    ("post-quantum", "ML-KEM and ML-DSA, every level", POST_QUANTUM),
    // SLH-DSA-SHAKE-128s alone is some four minutes of an emulated
    // board's time at one call per operation, and a chip's image leaves it
    // out: the label says so before anyone waits.
    ("whole", "The whole suite (SLH-DSA's 128s sets take many minutes on an emulated board)", &[]),
];

/// ML-KEM and ML-DSA at every level, as a board or a browser runs them.
pub const POST_QUANTUM: &[Algorithm] = &[
    Algorithm::MlKem512,
    Algorithm::MlKem768,
    Algorithm::MlKem1024,
    Algorithm::MlDsa44,
    Algorithm::MlDsa65,
    Algorithm::MlDsa87,
];

/// A board run the Boards page started and follows.
#[derive(Clone)]
pub struct BoardRun {
    pub board: String,
    pub id: Option<i64>,
    pub progress: Option<RunProgress>,
}

/// The board run and the flash in flight, and the run's settings. Kept in
/// context above the routes, so that a run goes on, and its progress is
/// followed, while its user reads another page.
#[derive(Clone, Copy)]
pub struct BoardRunState {
    pub running: RwSignal<Option<BoardRun>>,
    /// A run the user cancelled ends `interrupted`; that is no error to show.
    pub cancelled: RwSignal<bool>,
    /// A board being flashed: its port's probe writes this host's image.
    pub flashing: RwSignal<Option<String>>,
    /// A key of [`BOARD_SUITES`].
    pub suite: RwSignal<String>,
    pub iterations: RwSignal<u32>,
}

impl BoardRunState {
    pub fn new() -> Self {
        BoardRunState {
            running: RwSignal::new(None),
            cancelled: RwSignal::new(false),
            flashing: RwSignal::new(None),
            suite: RwSignal::new(BOARD_SUITES[0].0.to_owned()),
            iterations: RwSignal::new(3),
        }
    }
}

// A browser run.

/// What a browser run can measure: (key, label, algorithms; none = all).
pub const BROWSER_SUITES: &[(&str, &str, &[Algorithm])] = &[
    ("post-quantum", "ML-KEM and ML-DSA, every level", POST_QUANTUM),
    // The levels a web developer picks, and the quickest whole comparison:
    // every implementation has both (WebCrypto in Chromium lacks ML-KEM-512).
    ("common", "ML-KEM-768 and ML-DSA-65", &[Algorithm::MlKem768, Algorithm::MlDsa65]),
    (
        "with-classical",
        "ML-KEM, ML-DSA, SLH-DSA, FN-DSA, HQC and HSS with the hybrids and the classical baselines",
        WITH_CLASSICAL,
    ),
    // Each set beside the peers that offer it; not in `with-classical`,
    // whose every test would then wait for noble's SHAKE-128s signatures
    // (8 s each under Node on this project's machine).
    ("slh-dsa", "SLH-DSA's 128-bit sets: SHA2 and SHAKE, fast (f) and small (s)", SLH_DSA_128),
    ("whole", "The whole suite", &[]),
];

/// SLH-DSA's 128-bit sets, as the suite runs them.
pub const SLH_DSA_128: &[Algorithm] = &[
    Algorithm::SlhDsaSha2_128f,
    Algorithm::SlhDsaShake128f,
    Algorithm::SlhDsaSha2_128s,
    Algorithm::SlhDsaShake128s,
];

/// ML-KEM and ML-DSA at every level, the hybrids built on ML-KEM-768 and
/// SLH-DSA-SHA2-128f, FN-DSA, HQC and HSS-SHA256-L1-H5-W4, with the
/// classical and symmetric baselines they are set against.
pub const WITH_CLASSICAL: &[Algorithm] = &[
    Algorithm::MlKem512,
    Algorithm::MlKem768,
    Algorithm::MlKem1024,
    Algorithm::MlDsa44,
    Algorithm::MlDsa65,
    Algorithm::MlDsa87,
    Algorithm::X25519MlKem768,
    Algorithm::XWing,
    Algorithm::SlhDsaSha2_128f,
    Algorithm::FnDsa512,
    Algorithm::FnDsa1024,
    Algorithm::HqcKem128,
    Algorithm::HqcKem192,
    Algorithm::HqcKem256,
    Algorithm::HssSha256L1H5W4,
    Algorithm::Rsa2048,
    Algorithm::EcdsaP256,
    Algorithm::EcdhP256,
    Algorithm::X25519,
    Algorithm::Ed25519,
    Algorithm::Aes128Gcm,
    Algorithm::Sha256,
];

/// What a browser run can measure: (key, label). `wasm` is the suite
/// itself; the others are measured by the peers' worker on the ML-KEM and
/// ML-DSA levels of the chosen suite. All are chosen at first.
pub const IMPLEMENTATIONS: &[(&str, &str)] = &[
    ("wasm", "pqbench (wasm)"),
    ("webcrypto", "this browser's WebCrypto"),
    ("noble", "@noble/post-quantum"),
    ("liboqs", "@oqs/liboqs-js"),
];

/// Time given to each operation: (ms, label). The first is the default,
/// the suite's own, so figures settle.
pub const BROWSER_TIMES: &[(u32, &str)] = &[(1000, "1 s per operation"), (200, "0.2 s per operation")];

/// A browser run in flight and its settings. Kept in context above the
/// routes: the worker goes on while its user reads another page, and the
/// page shows its progress again on their return.
#[derive(Clone, Copy)]
pub struct BrowserRunState {
    /// A key of [`BROWSER_SUITES`].
    pub suite: RwSignal<String>,
    pub time_ms: RwSignal<u32>,
    pub status: RwSignal<String>,
    pub step: RwSignal<Option<worker::Step>>,
    pub busy: RwSignal<bool>,
    pub cancel: StoredValue<Option<oneshot::Sender<()>>>,
    /// Keys of [`IMPLEMENTATIONS`], in its order.
    pub chosen: RwSignal<Vec<&'static str>>,
}

impl BrowserRunState {
    pub fn new() -> Self {
        BrowserRunState {
            suite: RwSignal::new(BROWSER_SUITES[0].0.to_owned()),
            time_ms: RwSignal::new(BROWSER_TIMES[0].0),
            status: RwSignal::new(String::new()),
            step: RwSignal::new(None),
            busy: RwSignal::new(false),
            cancel: StoredValue::new(None),
            chosen: RwSignal::new(IMPLEMENTATIONS.iter().map(|(key, _)| *key).collect()),
        }
    }
}

// What a page shows.

/// What a page shows, shared through context by its sections: the view
/// (which runs, filters, order, chart scale, history, matrix), the run
/// whose results are open, and whether the view can change at all. A
/// page's route keeps the view in the address bar (a run's id in its
/// path); a shared report's route takes it from the report, and nothing
/// changes it there.
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
                alert.show(message.to_string());
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
