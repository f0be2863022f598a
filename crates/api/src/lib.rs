//! The messages of pqbench's HTTP API, one module per resource, each with
//! what is sent to create it and what the server answers (`NewReport` is
//! posted, `Report` read back): the server and the dashboard both speak
//! through these types, so neither can drift from the other.
//!
//! The vocabulary they carry (names, results, runs) is `pqbench-types`; a
//! shared view is `pqbench-view`'s. `uploads` also holds the bounds every
//! figure from outside is checked against, shared with the fuzz target.
#![no_std]

extern crate alloc;

pub mod agents;
pub mod boards;
pub mod imports;
pub mod matrix;
pub mod regressions;
pub mod reports;
pub mod results;
pub mod runs;
pub mod sessions;
pub mod uploads;
pub mod verdicts;

pub use boards::{Board, BoardKind, Flash, ImageBuildProgress, NewFlash};
pub use imports::{ImportCreated, ImportPreview, ImportedRun, LogFormat, NewImport, UnreadLine};
pub use matrix::{MAX_MATRIX_COLUMNS, Matrix, MatrixColumn, MatrixKey};
pub use pqbench_valid::{
    BoardId, BoardIdError, Forbidden, HostName, HostNameError, LabelError, MAX_BOARD_ID_LEN, MAX_HOST_LEN,
    check_characters, check_label, forbidden,
};
pub use regressions::RunRegressions;
pub use reports::{
    MAX_REPORT_TITLE, NewReport, REPORT_ID_ALPHABET, REPORT_ID_LEN, Report, ReportCreated, ReportError,
    is_report_id,
};
pub use results::{HISTORY_RUNS, QueryError, ResultQuery};
pub use runs::{NewRun, RunCreated, RunEnd, RunProgress};
pub use sessions::{NewSession, Session};
pub use uploads::{MeasurementError, Upload, UploadError, UploadNote};
