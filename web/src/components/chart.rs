//! A `pqbench-plot` chart on the page, with its SVG to download; the
//! charts themselves are `pqbench_view::charts`, which the server draws too.

use leptos::prelude::*;
use pqbench_plot::BarChart;

pub use pqbench_view::charts::{memory, speed};

/// Anything `pqbench-plot` draws.
pub trait Svg {
    fn to_svg(&self) -> String;
}

impl Svg for BarChart {
    fn to_svg(&self) -> String {
        BarChart::to_svg(self)
    }
}

impl Svg for pqbench_plot::LineChart {
    fn to_svg(&self) -> String {
        pqbench_plot::LineChart::to_svg(self)
    }
}

/// A chart drawn inline, with a link that downloads the same SVG.
pub fn figure(id: &'static str, file: &'static str, chart: impl Svg) -> impl IntoView {
    let svg = chart.to_svg();
    let href = format!("data:image/svg+xml;charset=utf-8,{}", js_sys::encode_uri_component(&svg));
    view! {
        <figure class="chart" id=id>
            <div class="svg" inner_html=svg />
            <figcaption>
                <a class="download" href=href download=file>
                    "Download SVG"
                </a>
            </figcaption>
        </figure>
    }
}
