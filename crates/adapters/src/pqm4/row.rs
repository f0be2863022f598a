//! One table row, read by the columns its header names: the scheme cell,
//! the combined `AVG/MIN/MAX` cycles cell or the CSV's one-statistic
//! cells, and the memory, hashing and size figures.

use std::collections::BTreeMap;

use pqbench_types::Operation;

use super::error::LineError;
use super::{OperationFigures, Printed, Table};
use crate::number::{decimal, grouped_integer, integer};

/// What a table column holds, from its header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Column {
    Scheme,
    Implementation,
    /// `key generation [cycles]`: "AVG: .. <br /> MIN: .. <br /> MAX: ..";
    /// in the CSV one of mean, min, max.
    Cycles(Operation, Statistic),
    /// Memory Evaluation: the operation's stack, bytes.
    Stack(Operation),
    /// Hashing Evaluation: the share of the operation's cycles spent hashing.
    Hashing(Operation),
    Size(Section),
    Ignored,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Statistic {
    Combined,
    Mean,
    Min,
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Section {
    Text,
    Data,
    Bss,
    Total,
}

/// A table row's figures, read by its columns.
pub(super) struct Row {
    pub(super) scheme: String,
    pub(super) implementation: String,
    pub(super) executions: Option<u64>,
    pub(super) table: Table,
    pub(super) operations: Vec<(Operation, OperationFigures)>,
    pub(super) size: BTreeMap<Section, Printed<u64>>,
}

impl Row {
    pub(super) fn read(columns: &[Column], cells: &[&str]) -> Result<Row, LineError> {
        let mut row = Row {
            scheme: String::new(),
            implementation: String::new(),
            executions: None,
            table: Table::Speed,
            operations: Vec::new(),
            size: BTreeMap::new(),
        };
        let mut tables = Vec::new();
        for (&column, &cell) in columns.iter().zip(cells) {
            let figures = |row: &mut Row, operation| -> usize {
                match row.operations.iter().position(|(o, _)| *o == operation) {
                    Some(at) => at,
                    None => {
                        row.operations.push((operation, OperationFigures::default()));
                        row.operations.len() - 1
                    }
                }
            };
            let count = |cell: &str| {
                grouped_integer(cell)
                    .map(|value| Printed { value, text: cell.to_string() })
                    .ok_or_else(|| LineError::MalformedFigure { cell: cell.to_string() })
            };
            match column {
                Column::Scheme => {
                    let (scheme, executions) = scheme_cell(cell)?;
                    row.scheme = scheme;
                    row.executions = executions;
                }
                Column::Implementation => row.implementation = cell.to_string(),
                Column::Cycles(operation, statistic) => {
                    tables.push(Table::Speed);
                    let at = figures(&mut row, operation);
                    let slot = &mut row.operations[at].1;
                    match statistic {
                        Statistic::Combined => {
                            let (mean, min, max) = combined_cycles(cell)?;
                            (slot.mean, slot.min, slot.max) = (Some(mean), min, max);
                        }
                        Statistic::Mean => slot.mean = Some(count(cell)?),
                        Statistic::Min => slot.min = Some(count(cell)?),
                        Statistic::Max => slot.max = Some(count(cell)?),
                    }
                }
                Column::Stack(operation) => {
                    tables.push(Table::Memory);
                    let at = figures(&mut row, operation);
                    row.operations[at].1.stack = Some(count(cell)?.value);
                }
                Column::Hashing(operation) => {
                    tables.push(Table::Hashing);
                    let share = cell.strip_suffix('%').and_then(decimal).map(|_| cell.to_string());
                    let at = figures(&mut row, operation);
                    row.operations[at].1.hashing = Some(
                        share.ok_or_else(|| LineError::MalformedHashingShare { cell: cell.to_string() })?,
                    );
                }
                Column::Size(section) => {
                    tables.push(Table::Size);
                    row.size.insert(section, count(cell)?);
                }
                Column::Ignored => {}
            }
        }
        if row.scheme.is_empty() || row.implementation.is_empty() {
            return Err(LineError::NoSchemeOrImplementation);
        }
        tables.dedup();
        row.table = match tables.as_slice() {
            [table] => *table,
            [] => return Err(LineError::NoFigureColumns),
            _ => return Err(LineError::MixedTables),
        };
        Ok(row)
    }
}

/// `ml-kem-768 (10 executions)` → ("ml-kem-768", Some(10)); `ml-kem-768` →
/// ("ml-kem-768", None).
fn scheme_cell(cell: &str) -> Result<(String, Option<u64>), LineError> {
    match cell.split_once(" (") {
        Some((scheme, rest)) => {
            let count = rest
                .strip_suffix(" executions)")
                .or_else(|| rest.strip_suffix(" execution)"))
                .and_then(integer)
                .ok_or_else(|| LineError::MalformedScheme { cell: cell.to_string() })?;
            Ok((scheme.trim().to_string(), Some(count)))
        }
        None if !cell.is_empty() => Ok((cell.to_string(), None)),
        None => Err(LineError::EmptyScheme),
    }
}

/// `AVG: 642,096 <br /> MIN: 639,116 <br /> MAX: 651,103`.
type Combined = (Printed<u64>, Option<Printed<u64>>, Option<Printed<u64>>);

fn combined_cycles(cell: &str) -> Result<Combined, LineError> {
    let (mut mean, mut min, mut max) = (None, None, None);
    for part in cell.split("<br />").flat_map(|p| p.split("<br/>")).flat_map(|p| p.split("<br>")) {
        let (label, figure) =
            part.split_once(':').ok_or_else(|| LineError::MalformedCyclesCell { cell: cell.to_string() })?;
        let figure = figure.trim();
        let value = grouped_integer(figure)
            .ok_or_else(|| LineError::MalformedCycleCount { figure: figure.to_string() })?;
        let printed = Some(Printed { value, text: figure.to_string() });
        let (label, slot) = match label.trim() {
            "AVG" => ("AVG", &mut mean),
            "MIN" => ("MIN", &mut min),
            "MAX" => ("MAX", &mut max),
            other => return Err(LineError::UnknownStatistic { label: other.to_string() }),
        };
        if slot.is_some() {
            return Err(LineError::RepeatedStatistic { label });
        }
        *slot = printed;
    }
    let mean = mean.ok_or(LineError::NoAverage)?;
    Ok((mean, min, max))
}

/// The column a header cell names; a column pqbench has no figure for is
/// `Ignored`, so a table with extra columns still reads.
pub(super) fn header_column(cell: &str) -> Column {
    let lower = cell.to_ascii_lowercase();
    if lower == "scheme" {
        return Column::Scheme;
    }
    if lower == "implementation" {
        return Column::Implementation;
    }
    for (prefix, section) in [
        (".text", Section::Text),
        (".data", Section::Data),
        (".bss", Section::Bss),
        ("total", Section::Total),
    ] {
        if lower.starts_with(prefix) && lower.contains("[bytes]") {
            return Column::Size(section);
        }
    }
    let operation = [
        ("key generation", Operation::Keygen),
        ("encapsulation", Operation::Encaps),
        ("decapsulation", Operation::Decaps),
        ("sign", Operation::Sign),
        ("verify", Operation::Verify),
    ]
    .into_iter()
    .find_map(|(prefix, operation)| lower.starts_with(prefix).then_some(operation));
    let Some(operation) = operation else { return Column::Ignored };
    if lower.contains("[cycles]") {
        let statistic = if lower.ends_with("(mean)") {
            Statistic::Mean
        } else if lower.ends_with("(min)") {
            Statistic::Min
        } else if lower.ends_with("(max)") {
            Statistic::Max
        } else {
            Statistic::Combined
        };
        Column::Cycles(operation, statistic)
    } else if lower.contains("[bytes]") {
        Column::Stack(operation)
    } else if lower.contains("[%]") {
        Column::Hashing(operation)
    } else {
        Column::Ignored
    }
}
