//! Why a line of pqm4's benchmarks gave no result. The messages are the
//! `reason` of an [`UnreadLine`](crate::UnreadLine), which the import
//! preview shows beside the line, so each names the cell or row at fault as
//! printed.

use pqbench_types::{Algorithm, Operation};

use super::Table;

#[derive(Debug, thiserror::Error, PartialEq)]
pub(super) enum LineError {
    #[error("not a line of pqm4's benchmarks (markdown or CSV)")]
    NotBenchmarks,
    #[error("a table row without a header row before it")]
    RowWithoutHeader,
    #[error("{cells} cells where the table's header has {columns}")]
    CellCount { cells: usize, columns: usize },
    #[error("a row without its scheme or implementation")]
    NoSchemeOrImplementation,
    #[error("a row with no figure columns")]
    NoFigureColumns,
    #[error("a table whose columns mix speed, memory, hashing and size")]
    MixedTables,
    #[error("an empty scheme cell")]
    EmptyScheme,
    #[error("malformed scheme cell {cell:?}")]
    MalformedScheme { cell: String },
    #[error("malformed figure {cell:?}")]
    MalformedFigure { cell: String },
    #[error("malformed hashing share {cell:?}")]
    MalformedHashingShare { cell: String },
    #[error("malformed cycles cell {cell:?}")]
    MalformedCyclesCell { cell: String },
    #[error("malformed cycle count {figure:?}")]
    MalformedCycleCount { figure: String },
    #[error("unknown statistic {label:?} in a cycles cell")]
    UnknownStatistic { label: String },
    #[error("{label} twice in a cycles cell")]
    RepeatedStatistic { label: &'static str },
    #[error("a cycles cell without its AVG")]
    NoAverage,
    #[error("{scheme} under a \"{operation}\" column: a KEM's row in a signature table or the reverse")]
    WrongTableKind { scheme: String, operation: Operation },
    /// Two of pqm4's names for one pqbench algorithm and implementation:
    /// merging them would mix two schemes' figures.
    #[error("pqm4's {scheme} is {algorithm}, which its {first} row already gave for {implementation}")]
    AlgorithmNamedTwice { scheme: String, algorithm: Algorithm, first: String, implementation: String },
    #[error("second {} row for {scheme} {implementation}; the first is kept", .table.name())]
    RepeatedRow { table: Table, scheme: String, implementation: String },
    #[error(
        "no pqbench name for pqm4's {scheme}: a round-2 Dilithium parameter set, neither ML-DSA nor round 3's"
    )]
    RoundTwoDilithium { scheme: String },
    #[error(
        "no pqbench name for pqm4's {scheme}: Kyber's 90s variant (AES/SHA-2), neither ML-KEM nor round 3's Kyber"
    )]
    Kyber90s { scheme: String },
    #[error("no pqbench name for pqm4's scheme {scheme}")]
    UnknownScheme { scheme: String },
}
