//! `/reports/<id>`: a shared report, and only the report: its title, what
//! it shows, its table and charts, read-only, and a link that opens the
//! same view in the dashboard to change it.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use pqbench_api::Report;
use pqbench_view::View;

use crate::api;
use crate::components::{History, Matrix, Results, muted};
use crate::context::{Alert, Shown};

#[component]
pub fn ReportPage() -> impl IntoView {
    let alert = expect_context::<Alert>();
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|params| params.get("id").unwrap_or_default()));
    let report = LocalResource::new(move || {
        let id = id.get();
        async move { alert.check(api::report(&id).await) }
    });
    let view = Memo::new(move |_| report.get().flatten().map(|report| report.view).unwrap_or_default());
    provide_context(Shown::report(view.into()));
    view! {
        <Suspense fallback=|| muted("Loading the report…")>
            {move || {
                report.get().map(|report| match report {
                    None => muted("This report could not be loaded."),
                    Some(report) => report_view(report).into_any(),
                })
            }}
        </Suspense>
    }
}

fn report_view(report: Report) -> impl IntoView {
    let view = report.view;
    let title = view.title.clone().unwrap_or_else(|| "Shared report".into());
    let described = view.describe();
    let open = dashboard_link(&view);
    let one_run = view.matrix.is_none() && view.runs.len() == 1;
    let content = if one_run {
        view! {
            <Results />
            <History />
        }
        .into_any()
    } else {
        view! { <Matrix id="matrix" title="The matrix" /> }.into_any()
    };
    view! {
        <section id="report">
            <h2 id="report-title">{title}</h2>
            <p id="report-banner" class="muted">
                "Shared report " <code>{report.id}</code> ", read-only, made " {crate::format::timestamp(&report.created_at)} ". "
                <a id="report-open" href=open>"Open it in the dashboard"</a>
            </p>
            <p id="report-describes">{described}</p>
        </section>
        {content}
    }
}

/// The dashboard page that shows `view` and lets it change.
fn dashboard_link(view: &View) -> String {
    let with = |path: String, query: String| if query.is_empty() { path } else { format!("{path}?{query}") };
    match view.runs[..] {
        [id] if view.matrix.is_none() => {
            with(format!("/runs/{id}"), View { runs: Vec::new(), ..view.clone() }.to_query())
        }
        [] => with("/".into(), view.to_query()),
        _ => with("/compare".into(), view.to_query()),
    }
}
