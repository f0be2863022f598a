//! The vocabulary every part of pqbench shares: algorithm and operation
//! names, a board's raw [`Measurement`], the derived [`BenchResult`], and
//! the [`Run`] and [`Build`] it belongs to.
//!
//! The names are those of the public contract (`ML-KEM-768`, `keygen`, ...),
//! so that a wolfCrypt log, a board and a browser land in the same rows.
//! Boards send integers (ticks); floats are derived on the host, once, in
//! [`BenchResult::from_measurement`], so every figure can be traced back to
//! what a board counted.
//!
//! What the HTTP API sends is in `pqbench-api`, and which results a page
//! shows (and in which order) in `pqbench-view`; both are built on this.
#![no_std]

#[cfg(feature = "alloc")]
extern crate alloc;

mod names;
pub use names::{Algorithm, Failure, Family, KeyFormat, Operation, Status, UnknownName};

mod measurement;
pub use measurement::{Clock, Measurement, Measuring, TickUnit};

#[cfg(feature = "alloc")]
mod model;
#[cfg(feature = "alloc")]
pub use model::{FunctionCycles, HarnessCycles, MODEL_CLOCKS_HZ, MODEL_CYCLES_UNIT, ModelEstimate};

#[cfg(feature = "alloc")]
mod result;
#[cfg(feature = "alloc")]
pub use result::{BenchResult, failure_note};

#[cfg(feature = "alloc")]
mod run;
#[cfg(feature = "alloc")]
pub use run::{BROWSER_RUN, Build, IMPLEMENTATION, IMPORTED_FROM, ResultRow, Run, RunStatus, Source};
