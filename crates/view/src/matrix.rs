//! The matrix: operations as rows, runs as columns (the latest complete run
//! of each board and build, or runs chosen by hand), one figure in every
//! cell. Also what the matrix says of two columns (each operation's ratio)
//! and of one column (what a post-quantum operation costs against a
//! classical one), from the stored figures only.
//!
//! Ratios are only as honest as their times are alike: an emulated board's
//! time is QEMU's (one instruction per emulated nanosecond), not a chip's,
//! and its "cycles" are instructions. [`Likeness`] says so wherever such a
//! column is set against another.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use serde::{Deserialize, Serialize};

use pqbench_types::{Algorithm, BenchResult, Family, Operation, ResultRow, Source};

use crate::{Column, Filter, WorkPerOp};

/// What a matrix shows beyond the [`View`](crate::View)'s filter of rows:
/// which columns, which figure, in which order, and what it says of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MatrixView {
    /// Columns of these boards, sources and builds (build labels); empty
    /// keeps every one.
    pub boards: Vec<String>,
    pub sources: Vec<Source>,
    pub builds: Vec<String>,
    /// The figure each cell shows.
    pub figure: Column,
    pub order: Option<MatrixOrder>,
    /// Two columns (run ids) set side by side: the second's figure over
    /// the first's, per operation.
    pub pair: Option<[i64; 2]>,
    /// The operation the chart draws across the columns.
    pub chart: Option<Named>,
    /// The classical operation post-quantum ones are set against; none
    /// takes each operation's usual counterpart ([`baseline_for`]).
    pub baseline: Option<Named>,
    /// Emulated boards' times as the timing model's estimate at this clock
    /// (one of `pqbench_types::MODEL_CLOCKS_HZ`; see [`crate::estimate`]);
    /// none keeps their emulated time.
    #[serde(default)]
    pub model_clock_hz: Option<u64>,
}

impl Default for MatrixView {
    fn default() -> Self {
        MatrixView {
            boards: Vec::new(),
            sources: Vec::new(),
            builds: Vec::new(),
            figure: Column::OpsPerSec,
            order: None,
            pair: None,
            chart: None,
            baseline: None,
            model_clock_hz: None,
        }
    }
}

/// An operation of an algorithm, as a row of the matrix names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Named {
    pub algorithm: Algorithm,
    pub operation: Operation,
}

impl Named {
    pub fn of(r: &BenchResult) -> Named {
        Named { algorithm: r.algorithm, operation: r.operation }
    }

    /// `ML-KEM-768,encaps`, as a link writes it.
    pub fn to_query(self) -> String {
        format!("{},{}", self.algorithm.as_str(), self.operation.as_str())
    }

    pub fn from_query(text: &str) -> Option<Named> {
        let (algorithm, operation) = text.split_once(',')?;
        Some(Named {
            algorithm: Algorithm::from_name(algorithm).ok()?,
            operation: Operation::from_name(operation).ok()?,
        })
    }

    /// "ML-KEM-768 encapsulation".
    pub fn describe(self) -> String {
        format!("{} {}", self.algorithm.as_str(), operation_noun(self.operation))
    }
}

/// Which column the rows are sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortBy {
    /// A column's figure, by its run's id.
    Run(i64),
    /// The pair's ratio.
    Ratio,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixOrder {
    pub by: SortBy,
    pub descending: bool,
}

/// An operation as a sentence names it.
pub const fn operation_noun(operation: Operation) -> &'static str {
    match operation {
        Operation::Keygen => "key generation",
        Operation::Encaps => "encapsulation",
        Operation::Decaps => "decapsulation",
        Operation::Sign => "signing",
        Operation::Verify => "verification",
        Operation::Agree => "key agreement",
        Operation::Public => "public-key operation",
        Operation::Private => "private-key operation",
        Operation::Encrypt => "encryption",
        Operation::Decrypt => "decryption",
        Operation::Hash => "hashing",
        Operation::Mac => "MAC",
        Operation::Generate => "generation",
        Operation::Derive => "key derivation",
        Operation::EncapsDecaps => "encapsulation and decapsulation",
        Operation::Load => "key load",
    }
}

/// One row: an operation, and each column's result where it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixRow<'r> {
    pub named: Named,
    pub cells: Vec<Option<&'r BenchResult>>,
}

impl MatrixRow<'_> {
    /// The figure of the column at `index`.
    pub fn value(&self, figure: Column, index: usize) -> Option<f64> {
        self.cells.get(index).copied().flatten().and_then(|r| value(figure, r))
    }
}

/// The rows of a matrix over `columns` (run ids, in the order shown): one
/// per operation any column measured and `filter` keeps, in the order of
/// the vocabulary (post-quantum first), then sorted by `matrix.order` if
/// it names a column shown, stably, with rows that have no figure there
/// last in either direction.
pub fn rows<'r>(
    columns: &[i64],
    results: &'r [ResultRow],
    filter: &Filter,
    matrix: &MatrixView,
) -> Vec<MatrixRow<'r>> {
    let mut rows: Vec<MatrixRow<'r>> = Vec::new();
    for row in results.iter().filter(|row| filter.keeps(&row.result)) {
        let Some(index) = columns.iter().position(|&id| id == row.run_id) else { continue };
        let named = Named::of(&row.result);
        let at = match rows.binary_search_by(|r| r.named.cmp(&named)) {
            Ok(at) => at,
            Err(at) => {
                rows.insert(at, MatrixRow { named, cells: alloc::vec![None; columns.len()] });
                at
            }
        };
        // A run that measured an operation twice (an import may) shows its
        // first.
        rows[at].cells[index].get_or_insert(&row.result);
    }
    let Some(MatrixOrder { by, descending }) = matrix.order else { return rows };
    let figure = matrix.figure;
    let index = |id: i64| columns.iter().position(|&c| c == id);
    let key = |row: &MatrixRow| match by {
        SortBy::Run(id) => row.value(figure, index(id)?),
        SortBy::Ratio => {
            let [first, second] = matrix.pair?;
            let (first, second) =
                (row.cells.get(index(first)?)?.as_ref()?, row.cells.get(index(second)?)?.as_ref()?);
            ratio(figure, first, second)
        }
    };
    rows.sort_by(|a, b| match (key(a), key(b)) {
        (Some(x), Some(y)) => {
            let order = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
            if descending { order.reverse() } else { order }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    rows
}

/// A result's figure as a matrix cell shows it: a column's own, but for
/// work per operation, which is cycles on a chip and instructions (or
/// emulated ticks) on an emulator, each named for what it is
/// ([`WorkPerOp`]), so an emulated board's column is not empty.
pub fn value(figure: Column, r: &BenchResult) -> Option<f64> {
    match figure {
        Column::CyclesPerOp => WorkPerOp::of(r).map(WorkPerOp::value),
        // The timing model's estimate where there is one, so an emulated
        // board stands beside pqm4's or a chip's counted cycles.
        Column::ModelCycles => r.model.as_ref().map(|model| model.cycles_per_op).or(r.cycles_per_op),
        figure => figure.value(r),
    }
}

/// How many times the figure of `first` the figure of `second` is (for
/// ops/s: how many times as fast; for a time or a size: how many times as
/// long or as large). None where either has none, or `first`'s is 0.
pub fn ratio(figure: Column, first: &BenchResult, second: &BenchResult) -> Option<f64> {
    let base = value(figure, first)?;
    let other = value(figure, second)?;
    (base > 0.0).then(|| other / base)
}

/// Whether a result was timed on an emulator (its ticks are QEMU's).
pub fn is_emulated(r: &BenchResult) -> bool {
    matches!(WorkPerOp::of(r), Some(WorkPerOp::Instructions(_) | WorkPerOp::EmulatedTicks(_)))
}

/// Whether a figure of two results measures the same thing, so that their
/// ratio means what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Likeness {
    Alike,
    /// Not alike, and why, in a few words to print beside the ratio.
    Unlike(&'static str),
}

/// Times of an emulator against a chip's or a browser's are unlike: the
/// emulator's second is QEMU's. Counts of work are unlike unless they are
/// of the same kind (cycles against cycles). Sizes in bytes are alike.
pub fn likeness(figure: Column, first: &BenchResult, second: &BenchResult) -> Likeness {
    let alike = figure_likeness(figure, first, second);
    // A call given an encoded key decodes it (for ML-KEM and ML-DSA,
    // expands A) inside its time; one given a decoded key does not.
    let keys_differ = matches!((first.key_format, second.key_format), (Some(a), Some(b)) if a != b);
    let sized =
        matches!(figure, Column::HeapBytes | Column::HeapAllocs | Column::StackBytes | Column::CodeBytes);
    match alike {
        Likeness::Alike if keys_differ && !sized => Likeness::Unlike("keys given in different forms"),
        alike => alike,
    }
}

fn figure_likeness(figure: Column, first: &BenchResult, second: &BenchResult) -> Likeness {
    match figure {
        Column::OpsPerSec
        | Column::AvgMs
        | Column::MinMs
        | Column::P10Ms
        | Column::MedianMs
        | Column::P90Ms
        | Column::P99Ms
        | Column::MaxMs
        | Column::BytesPerSec => {
            let estimated = crate::estimate::is_estimated;
            if is_emulated(first) != is_emulated(second) && !(estimated(first) || estimated(second)) {
                Likeness::Unlike("emulated time against real time")
            } else if estimated(first) != estimated(second) {
                Likeness::Unlike("estimated time (M4 model) against measured time")
            } else {
                Likeness::Alike
            }
        }
        Column::CyclesPerOp => {
            let kind = |r: &BenchResult| WorkPerOp::of(r).map(WorkPerOp::unit);
            if kind(first) == kind(second) {
                Likeness::Alike
            } else {
                Likeness::Unlike("emulated instructions against cycles")
            }
        }
        Column::ModelCycles => {
            if first.model.is_some() != second.model.is_some() {
                Likeness::Unlike("estimated against counted cycles")
            } else {
                Likeness::Alike
            }
        }
        Column::HeapBytes | Column::HeapAllocs | Column::StackBytes | Column::CodeBytes => Likeness::Alike,
    }
}

/// The classical operation a post-quantum one is usually set against: key
/// agreement for a KEM's operations, the same operation of a classical
/// signature for ML-DSA's; the first of these `available` holds.
pub fn baseline_for(pqc: Named, available: &[Named]) -> Option<Named> {
    use Algorithm::*;
    let candidates: &[(Algorithm, Operation)] = match (pqc.algorithm, pqc.operation) {
        (MlKem512 | MlKem768 | MlKem1024, _) => {
            &[(X25519, Operation::Agree), (EcdhP256, Operation::Agree), (Dh2048, Operation::Agree)]
        }
        (MlDsa44 | MlDsa65 | MlDsa87, Operation::Keygen) => {
            &[(Ed25519, Operation::Keygen), (EcdsaP256, Operation::Keygen), (Rsa2048, Operation::Keygen)]
        }
        (MlDsa44 | MlDsa65 | MlDsa87, Operation::Sign) => {
            &[(Ed25519, Operation::Sign), (EcdsaP256, Operation::Sign), (Rsa2048, Operation::Private)]
        }
        (MlDsa44 | MlDsa65 | MlDsa87, Operation::Verify) => {
            &[(Ed25519, Operation::Verify), (EcdsaP256, Operation::Verify), (Rsa2048, Operation::Public)]
        }
        _ => &[],
    };
    candidates
        .iter()
        .map(|&(algorithm, operation)| Named { algorithm, operation })
        .find(|named| available.contains(named))
}

/// How many times as long `pqc` takes as `baseline` on one column: the
/// ratio of their stored average times.
pub fn times_as_long(pqc: &BenchResult, baseline: &BenchResult) -> Option<f64> {
    let (pqc_ms, baseline_ms) = (pqc.avg_ms?, baseline.avg_ms?);
    (baseline_ms > 0.0).then(|| pqc_ms / baseline_ms)
}

/// What a post-quantum operation costs on one column against a classical
/// one, as a sentence a person can quote.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    pub pqc: Named,
    pub baseline: Named,
    pub times: f64,
    pub sentence: String,
}

/// Each post-quantum row of a column against its baseline (`chosen`, or
/// each one's usual counterpart), where both were timed. `board` names the
/// column in the sentence; an emulated column says its times are emulated
/// (a ratio of two emulated times is still a ratio of like times).
pub fn costs(board: &str, column: usize, rows: &[MatrixRow<'_>], chosen: Option<Named>) -> Vec<Cost> {
    let timed: Vec<Named> =
        rows.iter().filter(|row| row.value(Column::AvgMs, column).is_some()).map(|row| row.named).collect();
    let result = |named: Named| {
        rows.iter().find(|row| row.named == named).and_then(|row| row.cells.get(column).copied().flatten())
    };
    let mut costs = Vec::new();
    for row in rows.iter().filter(|row| row.named.algorithm.family() == Family::PostQuantum) {
        let Some(pqc) = row.cells.get(column).copied().flatten() else { continue };
        let Some(baseline) = chosen.filter(|b| timed.contains(b)).or_else(|| baseline_for(row.named, &timed))
        else {
            continue;
        };
        let Some(base) = result(baseline) else { continue };
        let Some(times) = times_as_long(pqc, base) else { continue };
        let emulated = if is_emulated(pqc) { " (emulated: times are QEMU's, not a chip's)" } else { "" };
        let sentence = format!(
            "On {board}{emulated}, {} takes {} times as long as {}.",
            row.named.describe(),
            significant(times),
            baseline.describe()
        );
        costs.push(Cost { pqc: row.named, baseline, times, sentence });
    }
    costs
}

/// A ratio to three significant figures, as a sentence prints it: `4.21`,
/// `38.4`, `1,260`.
pub fn significant(value: f64) -> String {
    if !value.is_finite() {
        return String::from("?");
    }
    let magnitude = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else if value >= 1.0 {
        2
    } else {
        3
    };
    let text = format!("{value:.magnitude$}");
    // Thousands separated, as the tables print them.
    let (whole, fraction) = text.split_once('.').map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    match fraction {
        Some(fraction) => format!("{grouped}.{fraction}"),
        None => grouped,
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use pqbench_types::{RunStatus, Status};

    fn timed(algorithm: Algorithm, operation: Operation, avg_ms: f64) -> BenchResult {
        BenchResult {
            avg_ms: Some(avg_ms),
            ops_per_sec: Some(1000.0 / avg_ms),
            ..BenchResult::unmeasured(algorithm, operation, Status::Ok)
        }
    }

    fn on(run_id: i64, result: BenchResult) -> ResultRow {
        ResultRow {
            run_id,
            board: String::from("b"),
            source: Source::Serial,
            started_at: String::new(),
            build_label: String::new(),
            run_status: RunStatus::Complete,
            result,
        }
    }

    fn emulated(mut r: BenchResult) -> BenchResult {
        r.ticks_per_op = Some(100.0);
        r.tick_unit = Some("qemu-instructions/40".into());
        r
    }

    fn results() -> Vec<ResultRow> {
        vec![
            on(7, timed(Algorithm::X25519, Operation::Agree, 2.0)),
            on(7, timed(Algorithm::MlKem768, Operation::Encaps, 3.0)),
            on(9, timed(Algorithm::MlKem768, Operation::Keygen, 1.5)),
            on(9, timed(Algorithm::MlKem768, Operation::Encaps, 0.75)),
            on(4, timed(Algorithm::Sha256, Operation::Hash, 0.01)),
        ]
    }

    #[test]
    fn rows_are_operations_in_the_vocabulary_order_and_cells_are_the_stored_results() {
        let results = results();
        let rows = rows(&[9, 7], &results, &Filter::default(), &MatrixView::default());
        let names: Vec<_> = rows.iter().map(|r| r.named.describe()).collect();
        assert_eq!(names, ["ML-KEM-768 key generation", "ML-KEM-768 encapsulation", "X25519 key agreement"]);
        assert_eq!(rows[1].cells, [Some(&results[3].result), Some(&results[1].result)]);
        assert_eq!(rows[0].cells[1], None, "run 7 did not measure keygen");
        let pqc = Filter { families: vec![Family::PostQuantum], ..Filter::default() };
        assert_eq!(super::rows(&[9, 7], &results, &pqc, &MatrixView::default()).len(), 2);
    }

    #[test]
    fn rows_sort_by_any_column_with_rows_without_a_figure_last() {
        let results = results();
        let sorted = |by, descending| {
            let matrix = MatrixView {
                figure: Column::AvgMs,
                order: Some(MatrixOrder { by, descending }),
                pair: Some([9, 7]),
                ..MatrixView::default()
            };
            rows(&[9, 7], &results, &Filter::default(), &matrix)
                .iter()
                .map(|r| r.named.describe())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            sorted(SortBy::Run(7), false),
            ["X25519 key agreement", "ML-KEM-768 encapsulation", "ML-KEM-768 key generation"]
        );
        assert_eq!(
            sorted(SortBy::Run(7), true),
            ["ML-KEM-768 encapsulation", "X25519 key agreement", "ML-KEM-768 key generation"]
        );
        assert_eq!(
            sorted(SortBy::Run(9), true)[..2],
            ["ML-KEM-768 key generation", "ML-KEM-768 encapsulation"]
        );
        // Only encapsulation was timed on both: its ratio (3.0 / 0.75) first.
        assert_eq!(sorted(SortBy::Ratio, false)[0], "ML-KEM-768 encapsulation");
        assert_eq!(sorted(SortBy::Run(12), false)[0], "ML-KEM-768 key generation", "no such column: as is");
    }

    #[test]
    fn ratios_are_the_stored_figures_over_each_other() {
        let (a, b) = (
            timed(Algorithm::MlKem768, Operation::Encaps, 3.0),
            timed(Algorithm::MlKem768, Operation::Encaps, 0.75),
        );
        assert_eq!(ratio(Column::AvgMs, &a, &b), Some(0.25));
        assert_eq!(ratio(Column::OpsPerSec, &a, &b), Some(b.ops_per_sec.unwrap() / a.ops_per_sec.unwrap()));
        assert_eq!(ratio(Column::StackBytes, &a, &b), None, "no figure, no ratio");
    }

    #[test]
    fn an_emulated_time_is_never_set_against_a_real_one_as_if_alike() {
        let chip = timed(Algorithm::MlKem768, Operation::Keygen, 3.0);
        let qemu = emulated(timed(Algorithm::MlKem768, Operation::Keygen, 0.1));
        assert!(is_emulated(&qemu) && !is_emulated(&chip));
        assert_eq!(
            likeness(Column::OpsPerSec, &qemu, &chip),
            Likeness::Unlike("emulated time against real time")
        );
        assert_eq!(likeness(Column::OpsPerSec, &qemu, &qemu), Likeness::Alike);
        assert_eq!(likeness(Column::StackBytes, &qemu, &chip), Likeness::Alike);
        // A decapsulation from encoded keys against one from decoded keys:
        // its time holds the decoding, the other's does not.
        let encoded = BenchResult { key_format: Some(pqbench_types::KeyFormat::Encoded), ..chip.clone() };
        let decoded = BenchResult { key_format: Some(pqbench_types::KeyFormat::Decoded), ..chip.clone() };
        assert_eq!(
            likeness(Column::AvgMs, &encoded, &decoded),
            Likeness::Unlike("keys given in different forms")
        );
        assert_eq!(likeness(Column::P99Ms, &encoded, &encoded), Likeness::Alike);
        assert_eq!(
            likeness(Column::AvgMs, &encoded, &chip),
            Likeness::Alike,
            "a form not said is not a difference"
        );
        assert_eq!(likeness(Column::StackBytes, &encoded, &decoded), Likeness::Alike);
        let mut counted = chip.clone();
        counted.cycles_per_op = Some(1e6);
        assert!(matches!(likeness(Column::CyclesPerOp, &qemu, &counted), Likeness::Unlike(_)));
    }

    /// The timing model's estimate stands beside counted cycles (pqm4's,
    /// a chip's) in the same figure, says it is an estimate in its unit,
    /// and is never called alike to a count.
    #[test]
    fn an_estimate_stands_beside_counted_cycles_and_says_what_it_is() {
        let mut pqm4 = timed(Algorithm::MlKem768, Operation::Keygen, 3.0);
        pqm4.cycles_per_op = Some(988_722.0);
        let mut qemu = emulated(timed(Algorithm::MlKem768, Operation::Keygen, 0.1));
        qemu.model = Some(pqbench_types::ModelEstimate {
            cycles_per_op: 1_234_567.0,
            min_cycles: 1_234_000,
            median_cycles: 1_234_500,
            max_cycles: 1_235_000,
            stdev_cycles: Some(10),
            samples: 10,
            hashing_share: Some(0.5),
            hashing_share_per_call: None,
            harness: Vec::new(),
            functions: vec![],
            parameters: String::from("refill=2,divide=7,wait_states=0"),
        });
        assert_eq!(value(Column::ModelCycles, &qemu), Some(1_234_567.0));
        assert_eq!(value(Column::ModelCycles, &pqm4), Some(988_722.0));
        assert_eq!(
            likeness(Column::ModelCycles, &pqm4, &qemu),
            Likeness::Unlike("estimated against counted cycles")
        );
        assert_eq!(likeness(Column::ModelCycles, &qemu, &qemu), Likeness::Alike);
        assert_eq!(crate::charts::cell_text(Column::ModelCycles, &qemu), "1,234,567 m4-model-cycles");
        assert_eq!(crate::charts::cell_text(Column::ModelCycles, &pqm4), "988,722 cycles");
        assert!(crate::charts::figure_label(Column::ModelCycles).contains("estimated (M4 model)"));
        assert_eq!(Column::ModelCycles.label(), "Cycles/op, estimated (M4 model)");

        // Its time at a board's clock is an estimate, and says so beside a
        // chip's measured time.
        let at_180 = crate::estimate::at_clock(&qemu, 180_000_000).unwrap();
        assert_eq!(
            likeness(Column::AvgMs, &pqm4, &at_180),
            Likeness::Unlike("estimated time (M4 model) against measured time")
        );
        assert_eq!(crate::charts::cell_text(Column::AvgMs, &at_180), "≈6.86 ms (est.)");
    }

    #[test]
    fn the_cost_sentence_is_the_ratio_of_stored_average_times() {
        let mut results = results();
        results.push(on(7, timed(Algorithm::MlKem768, Operation::Keygen, 2.5)));
        results.push(on(7, timed(Algorithm::MlDsa65, Operation::Sign, 7.0)));
        let rows = rows(&[7], &results, &Filter::default(), &MatrixView::default());
        let costs = costs("nucleo-f439zi", 0, &rows, None);
        assert_eq!(costs.len(), 2, "ML-DSA-65 has no classical signature beside it: {costs:?}");
        assert_eq!(costs[1].pqc.describe(), "ML-KEM-768 encapsulation");
        assert_eq!(costs[1].times, 3.0 / 2.0);
        assert_eq!(
            costs[1].sentence,
            "On nucleo-f439zi, ML-KEM-768 encapsulation takes 1.50 times as long as X25519 key agreement."
        );
        let chosen = Named { algorithm: Algorithm::MlKem768, operation: Operation::Keygen };
        let against_keygen = super::costs("b", 0, &rows, Some(chosen));
        assert!(against_keygen.iter().all(|c| c.baseline == chosen));
    }

    #[test]
    fn sentences_print_three_significant_figures() {
        assert_eq!(significant(4.2149), "4.21");
        assert_eq!(significant(38.44), "38.4");
        assert_eq!(significant(1264.4), "1,264");
        assert_eq!(significant(0.41234), "0.412");
        assert_eq!(significant(f64::NAN), "?");
    }
}
