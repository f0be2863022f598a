//! The vocabulary every part of pqbench shares: algorithm and operation
//! names, a board's raw [`Measurement`], and the derived [`BenchResult`]
//! that the API, the store and the dashboard show.
//!
//! The names are those of the public contract (`ML-KEM-768`, `keygen`, ...),
//! so that a wolfCrypt log, a board and a browser land in the same rows.
//! Boards send integers (ticks); floats are derived on the host, once, in
//! [`BenchResult::from_measurement`], so every figure can be traced back to
//! what a board counted.
#![no_std]

#[cfg(feature = "alloc")]
extern crate alloc;

mod names;
pub use names::{Algorithm, Family, Operation, Status, UnknownName};

mod measurement;
pub use measurement::{Clock, Measurement, TickUnit};

#[cfg(feature = "alloc")]
mod result;
#[cfg(feature = "alloc")]
pub use result::{
    BenchResult, Board, BoardKind, Build, Created, IMPORTED_FROM, Run, RunRequest, RunStatus, Source, Upload,
};

#[cfg(feature = "alloc")]
mod dashboard;
#[cfg(feature = "alloc")]
pub use dashboard::{
    NewReport, REPORT_ID_ALPHABET, REPORT_ID_LEN, Report, ReportCreated, ResultRow, RunEnd, RunProgress,
    is_report_id,
};

#[cfg(feature = "alloc")]
mod import;
#[cfg(feature = "alloc")]
pub use import::{ImportPreview, ImportRequest, ImportStored, ImportedRun, LogFormat, UnreadLine};

#[cfg(feature = "alloc")]
pub mod limits;

#[cfg(feature = "alloc")]
pub mod view;

#[cfg(feature = "alloc")]
pub mod export;
