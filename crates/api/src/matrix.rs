//! The matrix: operations as rows, boards x builds as columns. `GET
//! /api/matrix` takes [`ResultQuery`](crate::ResultQuery)'s query
//! (board, source, build, algorithm, operation, run) and answers which runs
//! are its columns and their results.
//!
//! Without `run`, a column is the latest complete run of each (board,
//! build label) the filters keep; with `run`, the columns are those runs,
//! whatever their status (a report pins its columns so that it shows the
//! same figures tomorrow).

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use pqbench_types::{ResultRow, Run, Source};

/// Most columns one matrix shows: the newest (board, build) pairs are kept.
/// Beyond this a table cannot be read anyway; the filters narrow it.
pub const MAX_MATRIX_COLUMNS: usize = 48;

/// The answer to `GET /api/matrix`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    /// The columns, in the order to show them: by board, then build label
    /// (or, for chosen runs, in the order they were asked for).
    pub columns: Vec<MatrixColumn>,
    /// Every result of the columns' runs (narrowed by `algorithm` and
    /// `operation` when given), each run's in the order it was measured.
    pub results: Vec<ResultRow>,
    /// Every (board, build) with a complete run, whether the filters keep
    /// it or not: what a filter can offer.
    pub available: Vec<MatrixKey>,
    /// More columns matched than [`MAX_MATRIX_COLUMNS`]; the oldest were
    /// left out.
    pub truncated: bool,
}

/// One column: a run, with its build's label as the table heads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixColumn {
    pub run: Run,
    pub build_label: String,
}

/// A (board, build) pair and its latest complete run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixKey {
    pub board: String,
    pub source: Source,
    pub build_label: String,
    pub latest_run: i64,
}
