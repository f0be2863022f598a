//! Why a line of wolfCrypt's benchmark output gave no result. The messages
//! are the `reason` of an [`UnreadLine`](crate::UnreadLine), shown beside the
//! line in the import preview, so each quotes the token at fault as printed
//! and, for a clause benchmark.c appends, which clause it is.

use super::csv::Column;

#[derive(Debug, thiserror::Error, PartialEq)]
pub(super) enum LineError {
    #[error("not a line of wolfCrypt's benchmark output")]
    NotBenchmarkOutput,
    /// `-print` repeats the figures rounded, so storing them too would
    /// give a second, less precise row for each.
    #[error("a -print summary line: it repeats a figure printed above (rounded), so it is not stored")]
    SummaryLine,
    #[error("wolfCrypt reported that {what} failed (error {code}); no figure is stored")]
    BenchmarkFailed { what: String, code: String },

    #[error("the heap/stack suffix has no closing ']'")]
    UnclosedMemorySuffix,
    #[error("malformed heap/stack figure {text:?}")]
    MalformedMemoryFigure { text: String },
    #[error("no \"took\" before the heap/stack suffix")]
    NoTookBeforeMemory,
    #[error("no amount and unit before \"took\"")]
    NoAmount,
    #[error("no algorithm name before the figures")]
    NoAlgorithmName,
    #[error("no operation count before \"ops took\"")]
    NoOperationCount,
    #[error("malformed operation count {text:?}")]
    MalformedOperationCount { text: String },
    #[error("no key size or strength before the operation")]
    NoStrength,
    #[error("{figure} is missing")]
    MissingFigure { figure: Figure },
    #[error("malformed number {text:?} for {figure}")]
    MalformedNumber { text: String, figure: Figure },
    #[error("printed in microseconds (BENCH_MICROSECOND), which pqbench does not read")]
    Microseconds,
    /// `expected` as printed: "seconds," (symmetric) or "sec," (asymmetric).
    #[error("no {expected:?} after the time")]
    NoTimeUnit { expected: &'static str },
    #[error("no rate after \"seconds,\"")]
    NoRate,
    #[error("malformed rate {text:?}")]
    MalformedRate { text: String },
    #[error("no unit after the rate")]
    NoRateUnit,
    #[error("the rate's unit {rate_unit:?} is not the amount's {amount_unit:?} per second")]
    RateUnitMismatch { rate_unit: String, amount_unit: String },
    #[error("malformed amount {text:?}")]
    MalformedAmount { text: String },
    #[error("unknown throughput unit {unit:?}")]
    UnknownUnit { unit: String },
    #[error("rate {rate} {unit}/s is out of range")]
    RateOutOfRange { rate: String, unit: String },
    #[error("no \"ms,\" after the average")]
    NoAverageUnit,
    #[error("no \"ops/sec\" after the rate")]
    NoOpsPerSec,
    #[error("malformed \"Cycles per byte =\" clause")]
    MalformedCyclesPerByteClause,
    #[error("no figure after \"Cycles per byte =\"")]
    NoCyclesPerByte,
    #[error("malformed cycles per byte {text:?}")]
    MalformedCyclesPerByte { text: String },
    #[error("malformed cycles per operation {text:?} before \"Cycles/op\"")]
    MalformedCyclesPerOp { text: String },
    #[error("{text} Cycles/op is not the {total} cycles printed over {iterations} ops")]
    CyclesPerOpMismatch { text: String, total: u64, iterations: u64 },
    #[error("unexpected {text:?} after {rate}")]
    UnexpectedAfterRate { text: String, rate: Rate },
    /// Only a cycle count (`, %lu cycles`) follows the rate as a bare number.
    #[error("a number after {rate} that is not followed by \"cycles\"")]
    CountWithoutCycles { rate: Rate },
    /// `word` is the one of "max", "min", "mean", "sd", "duration" that
    /// `bench_multi_value_stats` prints where the line has something else.
    #[error("malformed duration statistics: no {word:?}")]
    StatisticsWord { word: &'static str },
    #[error("malformed duration statistics: no figure")]
    StatisticsFigure,
    #[error("malformed duration statistics: no unit \"s\"")]
    StatisticsUnit,
    #[error("malformed duration {text:?}")]
    MalformedDuration { text: String },

    #[error("a CSV row without a header line before it")]
    CsvRowWithoutHeader,
    #[error("a machine-parseable CSV row without its \"sym\"/\"asym\" header line")]
    MachineRowWithoutHeader,
    #[error("not a row of the CSV table above it")]
    NotInCsvTable,
    #[error("{fields} fields where the CSV header above has {columns}")]
    FieldCount { fields: usize, columns: usize },
    #[error("malformed number {text:?} in column {column:?}")]
    MalformedCell { text: String, column: Column },
    #[error("malformed count {text:?} in column {column:?}")]
    MalformedCount { text: String, column: Column },
    /// A duration in seconds that is a number but too large to be one in ms.
    #[error("duration {text} s in column {column:?} is out of range")]
    DurationOutOfRange { text: String, column: Column },
    #[error("no algorithm name in the row")]
    NoNameInRow,
    #[error("no key size in the row")]
    NoKeySizeInRow,
    #[error("no operation in the row")]
    NoOperationInRow,
    #[error("a -csv throughput ({rate} under \"{unit}/s\") whose unit wolfCrypt does not fix: not stored")]
    CsvRateUnitUnknown { rate: String, unit: String },

    #[error("no pqbench name for wolfCrypt's {label}")]
    Unnamed { label: String },
    #[error("wolfCrypt's {description} prints no key size, so it has no AES-128/192/256 name")]
    AesWithoutKeySize { description: String },
    #[error("no pqbench name for wolfCrypt's {label}: no level")]
    PostQuantumWithoutLevel { label: String },
    #[error(
        "no pqbench name for wolfCrypt's {label}: Dilithium's AES variant, which is neither ML-DSA nor the Dilithium pqbench names"
    )]
    DilithiumAes { label: String },
    #[error("no pqbench name for wolfCrypt's {label}: not a post-quantum name benchmark.c prints")]
    UnknownPostQuantum { label: String },
    /// A size benchmark.c prints in the strength's place follows from the
    /// parameter set (an LMS/HSS signature's bytes, FrodoKEM's strength),
    /// so one that does not is a set the name does not say.
    #[error(
        "wolfCrypt's {label}: {algorithm}'s {what} is {expected}, not the number printed, so it is not stored as {algorithm}"
    )]
    SizeNotTheSet { label: String, what: &'static str, expected: u64, algorithm: pqbench_types::Algorithm },
}

/// A figure of an asymmetric or symmetric text line, for a reason that it
/// is missing or malformed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Figure {
    Seconds,
    Average,
    OpsPerSec,
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Figure::Seconds => "the seconds after \"took\"",
            Figure::Average => "the average after \"avg\"",
            Figure::OpsPerSec => "the operations per second",
        })
    }
}

/// The rate a clause follows: a symmetric line's throughput or an
/// asymmetric line's operations per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Rate {
    Throughput,
    Operations,
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rate::Throughput => "the rate",
            Rate::Operations => "ops/sec",
        })
    }
}
