//! Two columns of the matrix set against each other (a board and a
//! browser, or any two): the figures that say what each operation costs
//! (ops/s, cycles or instructions per op, heap, stack), side by side with
//! their ratio; and what post-quantum costs against classical on a column,
//! as sentences a person can quote. All from the stored figures, through
//! `pqbench_view::matrix`, which also says when two figures are unlike (an
//! emulated time against a real one) so the page never shows such a ratio
//! as if it were alike.

use leptos::prelude::*;
use pqbench_api::MatrixColumn;
use pqbench_view::Column;
use pqbench_view::matrix::{self, Cost, Likeness, MatrixRow, MatrixView};

use super::matrix::{cell_view, column_label, figure_label, is_emulated_column};
use crate::components::Table;
use crate::format;

/// The figures set side by side: what an operation costs in time, in work
/// and in memory.
const FIGURES: [Column; 4] = [Column::OpsPerSec, Column::CyclesPerOp, Column::HeapBytes, Column::StackBytes];

/// A figure in a header of the pair's table, short enough that twelve
/// columns fit a screen.
fn short_label(figure: Column) -> &'static str {
    match figure {
        Column::CyclesPerOp => "cycles or instr./op",
        figure => figure_label(figure),
    }
}

/// Why a pair's ratio may not mean what it says, in a sentence above the
/// table: an emulated column set against a real one.
pub fn emulated_note(
    columns: &[MatrixColumn],
    rows: &[MatrixRow<'_>],
    pair: Option<[usize; 2]>,
) -> Option<impl IntoView + use<>> {
    let [first, second] = pair?;
    let (a, b) = (is_emulated_column(rows, first), is_emulated_column(rows, second));
    (a != b).then(|| {
        let emulated = &columns[if a { first } else { second }];
        view! {
            <p class="warning emulated-note" role="note">
                {format!(
                    "{} is an emulated board: its times are QEMU's (one instruction per emulated nanosecond) and its counts are instructions, not a chip's time or cycles. A ratio of its time against a real board's or a browser's is marked as unlike; sizes in bytes compare as they are.",
                    emulated.run.board
                )}
            </p>
        }
    })
}

/// The pair, figure by figure: each operation's ops/s, work per op, heap
/// and stack on both columns, and the second's over the first's.
pub fn figures(
    columns: &[MatrixColumn],
    rows: &[MatrixRow<'_>],
    [first, second]: [usize; 2],
) -> impl IntoView + use<> {
    let (a, b) = (&columns[first], &columns[second]);
    let head = view! {
        <th>"Algorithm"</th>
        <th>"Operation"</th>
        {FIGURES
            .iter()
            .map(|&figure| {
                view! {
                    <th class="num">{short_label(figure)} " first"</th>
                    <th class="num">"second"</th>
                    <th class="num ratio">"÷"</th>
                }
            })
            .collect_view()}
    };
    let body = rows
        .iter()
        .map(|row| {
            let (x, y) = (row.cells[first], row.cells[second]);
            let cell = |figure: Column, cell: Option<&pqbench_types::BenchResult>, run: i64| {
                let value = cell.and_then(|r| matrix::value(figure, r));
                view! {
                    <td class="num" data-run=run.to_string() data-field=figure.key() data-value=value.map(|v| v.to_string())>
                        {cell_view(figure, cell)}
                    </td>
                }
            };
            let cells = FIGURES
                .iter()
                .map(|&figure| {
                    let both = x.zip(y);
                    let ratio = both.and_then(|(x, y)| matrix::ratio(figure, x, y));
                    let unlike = both.and_then(|(x, y)| match matrix::likeness(figure, x, y) {
                        Likeness::Unlike(why) => Some(why),
                        Likeness::Alike => None,
                    });
                    view! {
                        {cell(figure, x, a.run.id)}
                        {cell(figure, y, b.run.id)}
                        <td class="num ratio" data-ratio-field=figure.key() data-value=ratio.map(|v| v.to_string())>
                            {ratio.map_or_else(|| format::MISSING.to_string(), |r| format!("{r:.3}×"))}
                            {ratio.and(unlike).map(|why| view! { <span class="note unlike" title=why>"unlike"</span> })}
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr data-algorithm=row.named.algorithm.as_str() data-operation=row.named.operation.as_str()>
                    <td>{row.named.algorithm.as_str()}</td>
                    <td>{row.named.operation.as_str()}</td>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div id="pair" class="pair">
            <h3>"The pair, figure by figure"</h3>
            <p class="muted">
                "First: " {column_label(a)} " (run " {a.run.id} "). Second: " {column_label(b)} " (run " {b.run.id}
                "). ÷ is the second's figure over the first's; \"unlike\" marks a ratio of figures that do not measure the same thing."
            </p>
            <Table class="pair-table" head>{body}</Table>
        </div>
    }
}

/// Post-quantum against classical, as sentences: on the pair's columns, or
/// on the first column when none is chosen.
pub fn costs(
    columns: &[MatrixColumn],
    rows: &[MatrixRow<'_>],
    settings: &MatrixView,
    pair: Option<[usize; 2]>,
) -> Option<impl IntoView + use<>> {
    let chosen: Vec<usize> = match pair {
        Some([first, second]) => vec![first, second],
        None => vec![0],
    };
    let costs: Vec<(i64, Cost)> = chosen
        .into_iter()
        .flat_map(|index| {
            let column = &columns[index];
            matrix::costs(&column.run.board, index, rows, settings.baseline)
                .into_iter()
                .map(move |cost| (column.run.id, cost))
                .collect::<Vec<_>>()
        })
        .collect();
    (!costs.is_empty()).then(|| {
        view! {
            <div class="costs">
                <h3>"Post-quantum against classical"</h3>
                <ul id="costs">
                    {costs
                        .into_iter()
                        .map(|(run, cost)| {
                            view! {
                                <li
                                    data-run=run.to_string()
                                    data-pqc=cost.pqc.to_query()
                                    data-baseline=cost.baseline.to_query()
                                    data-value=cost.times.to_string()
                                >
                                    {cost.sentence}
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
                <p class="note">"From each run's stored average times: the ratio of the two, on the same board and build."</p>
            </div>
        }
    })
}
