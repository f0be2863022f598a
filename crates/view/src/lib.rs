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
pub mod csv;
pub mod estimate;
pub mod field;
pub mod format;
pub mod matrix;
pub mod query;
pub mod regressions;
pub mod timing;
pub mod work;

pub use matrix::MatrixView;
pub use query::{QueryError, ResultQuery};
pub use timing::{MemoryTiming, mixed_timing_warning};
pub use work::WorkPerOp;

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use serde::{Deserialize, Serialize};

use pqbench_types::{Algorithm, BenchResult, Family, Operation, ResultRow, Source};

/// A column a table can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    OpsPerSec,
    AvgMs,
    CyclesPerOp,
    /// The emulator's Cortex-M4 timing model's estimate: a column of its
    /// own, so that no estimate sits among counted cycles.
    ModelCycles,
    MinMs,
    MedianMs,
    MaxMs,
    HeapBytes,
    HeapAllocs,
    StackBytes,
    BytesPerSec,
    CodeBytes,
}

impl Column {
    pub const ALL: &'static [Column] = &[
        Column::OpsPerSec,
        Column::AvgMs,
        Column::CyclesPerOp,
        Column::ModelCycles,
        Column::MinMs,
        Column::MedianMs,
        Column::MaxMs,
        Column::HeapBytes,
        Column::HeapAllocs,
        Column::StackBytes,
        Column::BytesPerSec,
        Column::CodeBytes,
    ];

    /// The result field's name in the API (and the table's `data-field`).
    pub const fn key(self) -> &'static str {
        match self {
            Column::OpsPerSec => "ops_per_sec",
            Column::AvgMs => "avg_ms",
            Column::CyclesPerOp => "cycles_per_op",
            Column::ModelCycles => "model_cycles_per_op",
            Column::MinMs => "min_ms",
            Column::MedianMs => "median_ms",
            Column::MaxMs => "max_ms",
            Column::HeapBytes => "heap_bytes",
            Column::HeapAllocs => "heap_allocs",
            Column::StackBytes => "stack_bytes",
            Column::BytesPerSec => "bytes_per_sec",
            Column::CodeBytes => "code_bytes",
        }
    }

    pub fn from_key(key: &str) -> Option<Column> {
        Column::ALL.iter().copied().find(|c| c.key() == key)
    }

    pub const fn label(self) -> &'static str {
        match self {
            Column::OpsPerSec => "ops/s",
            Column::AvgMs => "Average",
            // Each cell names its unit: cycles on a chip, instructions on
            // an emulator; a clock of time has none.
            Column::CyclesPerOp => "Cycles or instr./op",
            Column::ModelCycles => "Cycles/op, estimated (M4 model)",
            Column::MinMs => "Min",
            Column::MedianMs => "Median",
            Column::MaxMs => "Max",
            Column::HeapBytes => "Heap",
            Column::HeapAllocs => "Allocs",
            Column::StackBytes => "Stack",
            Column::BytesPerSec => "Throughput",
            Column::CodeBytes => "Code",
        }
    }

    /// The row's figure in this column, if it has one.
    pub fn value(self, r: &BenchResult) -> Option<f64> {
        let integer = |v: Option<u64>| v.map(|v| v as f64);
        match self {
            Column::OpsPerSec => r.ops_per_sec,
            Column::AvgMs => r.avg_ms,
            Column::CyclesPerOp => r.cycles_per_op,
            Column::ModelCycles => r.model.as_ref().map(|model| model.cycles_per_op),
            Column::MinMs => r.min_ms,
            Column::MedianMs => r.median_ms,
            Column::MaxMs => r.max_ms,
            Column::HeapBytes => integer(r.heap_bytes),
            Column::HeapAllocs => integer(r.heap_allocs),
            Column::StackBytes => integer(r.stack_bytes),
            Column::BytesPerSec => r.bytes_per_sec,
            Column::CodeBytes => integer(r.code_bytes),
        }
    }
}

/// A table's order: `None` in a [`View`] keeps the suite's own order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}

/// Which rows a view keeps; an empty list keeps every value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Filter {
    pub families: Vec<Family>,
    pub algorithms: Vec<Algorithm>,
    pub operations: Vec<Operation>,
}

impl Filter {
    pub fn keeps(&self, r: &BenchResult) -> bool {
        fn keeps<T: PartialEq>(chosen: &[T], value: T) -> bool {
            chosen.is_empty() || chosen.contains(&value)
        }
        keeps(&self.families, r.algorithm.family())
            && keeps(&self.algorithms, r.algorithm)
            && keeps(&self.operations, r.operation)
    }
}

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

impl HistoryOf {
    /// The request for this history: its board's results of the one
    /// operation, the newest `limit` runs.
    pub fn query(&self, limit: u32) -> ResultQuery {
        ResultQuery {
            boards: alloc::vec![self.board.clone()],
            algorithms: alloc::vec![self.algorithm],
            operations: alloc::vec![self.operation],
            limit,
            ..ResultQuery::default()
        }
    }

    /// The query of `GET /api/regressions` for this history: the board's
    /// newest `limit` complete runs, judged on the one operation.
    pub fn regressions_query(&self, limit: u32) -> String {
        alloc::format!(
            "board={}&algorithm={}&operation={}&limit={limit}",
            percent_encode(&self.board),
            self.algorithm.as_str(),
            self.operation.as_str()
        )
    }
}

impl View {
    /// The rows this view keeps, in its order. The sort is stable, so rows
    /// with equal figures keep the suite's order, and a row without a figure
    /// in the sort column goes last whichever the direction.
    pub fn apply<'r>(&self, rows: &'r [BenchResult]) -> Vec<&'r BenchResult> {
        let mut kept: Vec<&BenchResult> = rows.iter().filter(|r| self.filter.keeps(r)).collect();
        if let Some(Sort { column, descending }) = self.sort {
            kept.sort_by(|a, b| match (column.value(a), column.value(b)) {
                (Some(x), Some(y)) => {
                    let order = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
                    if descending { order.reverse() } else { order }
                }
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            });
        }
        kept
    }

    /// The matrix request this view makes (`GET /api/matrix`): its boards,
    /// sources and builds, its runs (Compare's), its algorithm and
    /// operation filters, as many results as one page holds.
    pub fn matrix_query(&self) -> ResultQuery {
        let matrix = self.matrix.clone().unwrap_or_default();
        ResultQuery {
            boards: matrix.boards,
            sources: matrix.sources,
            builds: matrix.builds,
            runs: self.runs.clone(),
            algorithms: self.filter.algorithms.clone(),
            operations: self.filter.operations.clone(),
            limit: query::MAX_RESULTS_PAGE,
        }
    }
}

impl View {
    /// The view as a URL query (without `?`), for a deep link: only what
    /// differs from the default. Every name is letters, digits and `-`, so
    /// nothing needs escaping.
    pub fn to_query(&self) -> String {
        fn list<T>(items: &[T], name: impl Fn(&T) -> String) -> String {
            items.iter().map(name).collect::<Vec<_>>().join(",")
        }
        let mut pairs: Vec<String> = Vec::new();
        let mut add = |key: &str, value: String| pairs.push(alloc::format!("{key}={value}"));
        if !self.runs.is_empty() {
            add("runs", list(&self.runs, |id| alloc::format!("{id}")));
        }
        if !self.filter.families.is_empty() {
            add("family", list(&self.filter.families, |f| f.as_str().into()));
        }
        if !self.filter.algorithms.is_empty() {
            add("algorithm", list(&self.filter.algorithms, |a| a.as_str().into()));
        }
        if !self.filter.operations.is_empty() {
            add("operation", list(&self.filter.operations, |o| o.as_str().into()));
        }
        if let Some(sort) = self.sort {
            add("sort", sort.column.key().into());
            add("dir", if sort.descending { "desc" } else { "asc" }.into());
        }
        if self.log_scale {
            add("scale", "log".into());
        }
        if let Some(h) = &self.history {
            let board = percent_encode(&h.board);
            add("history", alloc::format!("{},{},{board}", h.algorithm.as_str(), h.operation.as_str()));
        }
        if let Some(m) = &self.matrix {
            // Board ids and build labels are free text: one pair each.
            for board in &m.boards {
                add("board", percent_encode(board));
            }
            if !m.sources.is_empty() {
                add("source", list(&m.sources, |s| s.as_str().into()));
            }
            for build in &m.builds {
                add("build", percent_encode(build));
            }
            if m.figure != Column::OpsPerSec {
                add("figure", m.figure.key().into());
            }
            if let Some(order) = m.order {
                let by = match order.by {
                    matrix::SortBy::Run(id) => alloc::format!("{id}"),
                    matrix::SortBy::Ratio => "ratio".into(),
                };
                add("order", by);
                add("odir", if order.descending { "desc" } else { "asc" }.into());
            }
            if let Some([first, second]) = m.pair {
                add("pair", alloc::format!("{first},{second}"));
            }
            if let Some(chart) = m.chart {
                add("chart", chart.to_query());
            }
            if let Some(baseline) = m.baseline {
                add("baseline", baseline.to_query());
            }
            if let Some(hz) = m.model_clock_hz {
                add("mclock", alloc::format!("{}", hz / 1_000_000));
            }
        }
        pairs.join("&")
    }

    /// A view from a deep link's query (with or without `?`). A value it
    /// does not know is an error naming it, not a silently wider view.
    pub fn from_query(query: &str) -> Result<View, String> {
        fn list<T>(value: &str, parse: impl Fn(&str) -> Option<T>, what: &str) -> Result<Vec<T>, String> {
            value
                .split(',')
                .filter(|item| !item.is_empty())
                .map(|item| parse(item).ok_or_else(|| alloc::format!("unknown {what} {item:?} in the link")))
                .collect()
        }
        let mut view = View::default();
        let mut descending = true;
        let mut column = None;
        let mut matrix = MatrixView::default();
        let mut matrix_order = None;
        let mut matrix_descending = true;
        let named = |value: &str, what: &str| {
            matrix::Named::from_query(value)
                .ok_or_else(|| alloc::format!("a {what} link needs algorithm,operation: {value:?}"))
        };
        for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "runs" => view.runs = list(value, |v| v.parse().ok().filter(|&id: &i64| id > 0), "run")?,
                "family" => view.filter.families = list(value, |v| Family::from_name(v).ok(), "family")?,
                "algorithm" => {
                    view.filter.algorithms = list(value, |v| Algorithm::from_name(v).ok(), "algorithm")?
                }
                "operation" => {
                    view.filter.operations = list(value, |v| Operation::from_name(v).ok(), "operation")?
                }
                "sort" => {
                    column = Some(
                        Column::from_key(value).ok_or_else(|| alloc::format!("unknown column {value:?}"))?,
                    )
                }
                "dir" => descending = value != "asc",
                "scale" => view.log_scale = value == "log",
                "history" => {
                    let mut parts = value.splitn(3, ',');
                    let (Some(algorithm), Some(operation), Some(board)) =
                        (parts.next(), parts.next(), parts.next())
                    else {
                        return Err(alloc::format!(
                            "a history link needs algorithm,operation,board: {value:?}"
                        ));
                    };
                    view.history = Some(HistoryOf {
                        board: percent_decode(board)
                            .ok_or_else(|| alloc::format!("bad board {board:?} in the link"))?,
                        algorithm: Algorithm::from_name(algorithm)
                            .map_err(|_| alloc::format!("unknown algorithm {algorithm:?} in the link"))?,
                        operation: Operation::from_name(operation)
                            .map_err(|_| alloc::format!("unknown operation {operation:?} in the link"))?,
                    });
                }
                "board" => matrix.boards.push(
                    percent_decode(value).ok_or_else(|| alloc::format!("bad board {value:?} in the link"))?,
                ),
                "source" => matrix.sources.extend(list(value, Source::from_name, "source")?),
                "build" => matrix.builds.push(
                    percent_decode(value).ok_or_else(|| alloc::format!("bad build {value:?} in the link"))?,
                ),
                "figure" => {
                    matrix.figure =
                        Column::from_key(value).ok_or_else(|| alloc::format!("unknown figure {value:?}"))?
                }
                "order" => {
                    matrix_order = Some(match value {
                        "ratio" => matrix::SortBy::Ratio,
                        id => matrix::SortBy::Run(
                            id.parse()
                                .ok()
                                .filter(|&id: &i64| id > 0)
                                .ok_or_else(|| alloc::format!("bad column {id:?} to sort by"))?,
                        ),
                    })
                }
                "odir" => matrix_descending = value != "asc",
                "pair" => {
                    let ids = list(value, |v| v.parse().ok().filter(|&id: &i64| id > 0), "run")?;
                    let [first, second] = ids[..] else {
                        return Err(alloc::format!("a pair is two runs: {value:?}"));
                    };
                    matrix.pair = Some([first, second]);
                }
                "chart" => matrix.chart = Some(named(value, "chart")?),
                "baseline" => matrix.baseline = Some(named(value, "baseline")?),
                "mclock" => {
                    let hz = value.parse::<u64>().ok().map(|mhz| mhz * 1_000_000);
                    let known = hz.filter(|hz| pqbench_types::MODEL_CLOCKS_HZ.contains(hz));
                    matrix.model_clock_hz =
                        Some(known.ok_or_else(|| alloc::format!("no model clock of {value:?} MHz"))?);
                }
                // Other parameters belong to the page (e.g. a report id).
                _ => {}
            }
        }
        view.sort = column.map(|column| Sort { column, descending });
        matrix.order = matrix_order.map(|by| matrix::MatrixOrder { by, descending: matrix_descending });
        if matrix != MatrixView::default() {
            view.matrix = Some(matrix);
        }
        Ok(view)
    }
}

impl View {
    /// What the view shows, in a sentence: a report says so under its
    /// title. "The matrix of runs 3, 7 and 9: peak stack of each
    /// operation; post-quantum only; sorted by run 7, descending."
    pub fn describe(&self) -> String {
        use alloc::format;
        fn names<T>(items: &[T], name: impl Fn(&T) -> String) -> String {
            let names: Vec<String> = items.iter().map(name).collect();
            match names.split_last() {
                None => String::new(),
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            }
        }
        let runs = |runs: &[i64]| names(runs, |id| format!("{id}"));
        let mut parts: Vec<String> = Vec::new();
        match (&self.matrix, &self.runs[..]) {
            (None, [id]) => parts.push(format!("The results of run {id}")),
            (None, []) => parts.push("The latest run of every board and build".into()),
            (None, runs_shown) => parts.push(format!("Runs {} compared", runs(runs_shown))),
            (Some(matrix), runs_shown) => {
                let columns = if runs_shown.is_empty() {
                    String::from("the latest run of every board and build")
                } else {
                    format!("runs {}", runs(runs_shown))
                };
                parts.push(format!("The matrix of {columns}: {} of each operation", matrix.figure.label()));
                if let Some([first, second]) = matrix.pair {
                    parts.push(format!("run {second} set against run {first}"));
                }
            }
        }
        let filter = &self.filter;
        if !filter.families.is_empty() {
            parts.push(format!("family {}", names(&filter.families, |f| f.as_str().into())));
        }
        if !filter.algorithms.is_empty() {
            parts.push(format!("{} only", names(&filter.algorithms, |a| a.as_str().into())));
        }
        if !filter.operations.is_empty() {
            parts.push(format!("operation {}", names(&filter.operations, |o| o.as_str().into())));
        }
        if let Some(sort) = self.sort.filter(|_| self.matrix.is_none()) {
            let direction = if sort.descending { "descending" } else { "ascending" };
            parts.push(format!("sorted by {}, {direction}", sort.column.label()));
        }
        if let Some(h) = &self.history {
            parts.push(format!(
                "with the history of {} {} on {}",
                h.algorithm.as_str(),
                h.operation.as_str(),
                h.board
            ));
        }
        let mut sentence = parts.join("; ");
        sentence.push('.');
        sentence
    }
}

/// A board id in a query: ids hold `:` and `/` (`serial:/dev/ttyACM0`),
/// so every byte but letters, digits and `-._~:` is escaped.
pub(crate) fn percent_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&alloc::format!("%{b:02X}"));
        }
    }
    out
}

pub(crate) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = core::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// One (algorithm, operation) across compared runs: each run's result, in
/// the order the runs were picked, where that run has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared<'r> {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub by_run: Vec<Option<&'r BenchResult>>,
}

impl Compared<'_> {
    /// How many times the first run's figure in `column` the run at `index`
    /// has (for ops/s: how many times faster). None where either has none.
    pub fn ratio(&self, column: Column, index: usize) -> Option<f64> {
        let base = self.by_run.first().copied().flatten().and_then(|r| column.value(r))?;
        let other = self.by_run.get(index).copied().flatten().and_then(|r| column.value(r))?;
        (base > 0.0).then(|| other / base)
    }
}

/// Rows of several runs side by side: one line per (algorithm, operation)
/// any of `runs` measured, in the order they first appear (runs in the
/// order given, each in its suite order), filtered by `filter`.
pub fn compare<'r>(runs: &[i64], rows: &'r [ResultRow], filter: &Filter) -> Vec<Compared<'r>> {
    let mut lines: Vec<Compared<'r>> = Vec::new();
    for (index, &run) in runs.iter().enumerate() {
        for row in rows.iter().filter(|row| row.run_id == run && filter.keeps(&row.result)) {
            let r = &row.result;
            let at = match lines.iter().position(|l| (l.algorithm, l.operation) == (r.algorithm, r.operation))
            {
                Some(at) => at,
                None => {
                    lines.push(Compared {
                        algorithm: r.algorithm,
                        operation: r.operation,
                        by_run: alloc::vec![None; runs.len()],
                    });
                    lines.len() - 1
                }
            };
            lines[at].by_run[index] = Some(r);
        }
    }
    lines
}

/// Whether a run's figure moved from the run before by more than the two
/// runs' own spread: their ranges of per-call time (min to max) do not
/// overlap. Noise moves a median inside that range; a change of code or
/// build moves the whole range. None where either run has no range.
pub fn changed(before: &BenchResult, after: &BenchResult) -> Option<bool> {
    let range = |r: &BenchResult| Some((r.min_ms?, r.max_ms?));
    let ((low, high), (new_low, new_high)) = (range(before)?, range(after)?);
    Some(new_low > high || new_high < low)
}

#[cfg(test)]
mod tests;
