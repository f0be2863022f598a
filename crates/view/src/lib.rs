//! What a dashboard view shows of the results: which rows (filters), in
//! which order (a column and a direction), and how the chart draws them.
//! The same value is a deep link's query and a shared report's body, so a
//! report opened later shows the very rows in the very order.
//!
//! Rows with no figure in the sort column (failed, does not fit, skipped,
//! or a figure the board could not measure) go last in both directions:
//! they have no place on the scale, and showing them as 0 would be a lie.
//!
//! [`query`] is the other half: which results a request asks the server
//! for, in the one codec the server and the dashboard share; [`csv`]
//! writes rows as `pqbench export` does; [`timing`] says what memory a
//! run's cycles were counted with; [`field`] sets a browser run's
//! implementations side by side.
#![no_std]

extern crate alloc;

pub mod charts;
mod column;
mod compare;
pub mod csv;
mod describe;
pub mod estimate;
pub mod field;
pub mod format;
pub mod key_format;
mod link;
pub mod matrix;
pub mod regressions;
mod requests;
mod rows;
pub mod timing;
pub mod work;

pub use column::{Column, Sort};
pub use compare::{Compared, changed, compare};
pub use link::{LinkError, percent_decode, percent_encode};
pub use matrix::MatrixView;
pub use rows::Filter;
pub use timing::{MemoryTiming, mixed_timing_warning};
pub use work::WorkPerOp;

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use pqbench_types::{Algorithm, Operation};

/// A whole view of the results: filters, order, chart scale and, for a
/// comparison or a report, the runs it shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct View {
    pub runs: Vec<i64>,
    pub filter: Filter,
    pub sort: Option<Sort>,
    /// Draw the chart on a logarithmic scale (ops/s span six decades
    /// between RSA on a board and SHA-256 on a host).
    pub log_scale: bool,
    /// Free text a report's author gives it.
    pub title: Option<String>,
    /// The operation whose history on a board is shown, if one is.
    pub history: Option<HistoryOf>,
    /// A matrix's columns, figure, order and comparisons: set for a view of
    /// the matrix or of runs compared (whose columns are `runs`), none for
    /// one run's results. Left out of the JSON when none, so a view saved
    /// before the matrix reads back as it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix: Option<MatrixView>,
}

/// One operation on one board, over its runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryOf {
    pub board: String,
    pub algorithm: Algorithm,
    pub operation: Operation,
}

#[cfg(test)]
mod tests;
