//! One filter over a closed set of names (families, algorithms,
//! operations): a `<select>` of "All" and every name, editing the view's
//! list of that name. A list holds one name or none from here; a link may
//! hold more, and then the first is the one the list shows. And the three
//! of them together, as a run's results and the matrix filter their rows.

use leptos::prelude::*;
use pqbench_types::{Algorithm, Family, Operation};

use crate::context::Shown;

/// A closed set of names: every value, in its order, each with its one
/// spelling (links, the API) and what a person reads for it.
pub trait Name: Copy + PartialEq + Send + Sync + 'static {
    const ALL: &'static [Self];
    fn as_str(self) -> &'static str;
    fn label(self) -> &'static str {
        self.as_str()
    }
}

impl Name for Algorithm {
    const ALL: &'static [Self] = Algorithm::ALL;
    fn as_str(self) -> &'static str {
        Algorithm::as_str(self)
    }
}

impl Name for Operation {
    const ALL: &'static [Self] = Operation::ALL;
    fn as_str(self) -> &'static str {
        Operation::as_str(self)
    }
}

impl Name for Family {
    // Post-quantum's kinds right after it, as its parts.
    const ALL: &'static [Self] = &[
        Family::PostQuantum,
        Family::Kem,
        Family::Signature,
        Family::HashBasedSignature,
        Family::HybridKem,
        Family::Classical,
        Family::Symmetric,
        Family::Hash,
    ];
    fn as_str(self) -> &'static str {
        Family::as_str(self)
    }
    fn label(self) -> &'static str {
        match self {
            Family::PostQuantum => "Post-quantum (all)",
            Family::Kem => "Post-quantum KEM",
            Family::Signature => "Post-quantum signature",
            Family::HashBasedSignature => "Hash-based signature",
            Family::HybridKem => "Hybrid KEM",
            Family::Classical => "Classical public-key",
            Family::Symmetric => "Symmetric",
            Family::Hash => "Hashes",
        }
    }
}

#[component]
pub fn FilterSelect<T: Name>(
    /// The `<select>`'s id.
    id: &'static str,
    /// What the filter chooses ("Family").
    label: &'static str,
    /// The view's list of this name; empty keeps every value.
    #[prop(into)]
    chosen: Signal<Vec<T>>,
    /// Called with the new list: empty for "All", else the one name.
    #[prop(into)]
    on_choose: Callback<Vec<T>>,
    #[prop(optional)] disabled: bool,
) -> impl IntoView {
    let value = move || chosen.with(|names| names.first().map_or("", |name| name.as_str()));
    let choose = move |event| {
        let text = event_target_value(&event);
        on_choose.run(T::ALL.iter().copied().filter(|name| name.as_str() == text).collect());
    };
    view! {
        <label>
            {format!("{label} ")}
            <select id=id disabled=disabled prop:value=value on:change=choose>
                <option value="">"All"</option>
                {T::ALL
                    .iter()
                    .map(|name| view! { <option value=name.as_str()>{name.label()}</option> })
                    .collect_view()}
            </select>
        </label>
    }
}

/// The filters over the results and a comparison: family, algorithm,
/// operation.
#[component]
pub fn Filters() -> impl IntoView {
    let shown = expect_context::<Shown>();
    let disabled = shown.read_only();
    let families = Signal::derive(move || shown.view.with(|view| view.filter.families.clone()));
    let algorithms = Signal::derive(move || shown.view.with(|view| view.filter.algorithms.clone()));
    let operations = Signal::derive(move || shown.view.with(|view| view.filter.operations.clone()));
    let choose_families = move |chosen: Vec<Family>| shown.edit(|view| view.filter.families = chosen);
    let choose_algorithms = move |chosen: Vec<Algorithm>| shown.edit(|view| view.filter.algorithms = chosen);
    let choose_operations = move |chosen: Vec<Operation>| shown.edit(|view| view.filter.operations = chosen);
    view! {
        <div class="filters">
            <FilterSelect
                id="filter-family"
                label="Family"
                chosen=families
                on_choose=choose_families
                disabled
            />
            <FilterSelect
                id="filter-algorithm"
                label="Algorithm"
                chosen=algorithms
                on_choose=choose_algorithms
                disabled
            />
            <FilterSelect
                id="filter-operation"
                label="Operation"
                chosen=operations
                on_choose=choose_operations
                disabled
            />
        </div>
    }
}
