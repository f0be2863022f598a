//! pqm4's published results: `benchmarks.md` and `benchmarks.csv`, which
//! `convert_benchmarks.py md|csv` writes (mupq's `MarkdownConverter` and
//! `CsvConverter`).
//!
//! The markdown has four sections ("# Speed Evaluation", "# Memory
//! Evaluation", "# Hashing Evaluation", "# Size Evaluation"), each with a
//! table for "## Key Encapsulation Schemes" and one for "## Signature
//! Schemes":
//!
//! ```text
//! | scheme | implementation | key generation [cycles] | encapsulation [cycles] | decapsulation [cycles] |
//! | ml-kem-768 (10 executions) | m4fspeed | AVG: 642,096 <br /> MIN: 639,116 <br /> MAX: 651,103 | ... |
//! | Scheme | Implementation | Key Generation [bytes] | Encapsulation [bytes] | Decapsulation [bytes] |
//! | ml-kem-768 | m4fspeed | 5,396 | 6,468 | 6,452 |
//! | Scheme | Implementation | Key Generation [%] | ... |          (share of cycles spent hashing)
//! | Scheme | Implementation | .text [bytes] | .data [bytes] | .bss [bytes] | Total [bytes] |
//! ```
//!
//! The CSV has the same tables, titles as `Speed Evaluation,,,,` lines,
//! plain integers, and the speed figures in three columns each
//! (`Key Generation [cycles] (mean)`, `(min)`, `(max)`). Columns are read
//! by their header's names, so either form and either table kind parse the
//! same way. A (scheme, implementation) row becomes one result per
//! operation, its figures merged across the four tables.
//!
//! Laid out as: this file holds [`parse`], the walk over the lines and the
//! merging of a (scheme, implementation)'s rows into results; `row` reads
//! one row by its header's columns, `names` gives pqbench's name for a
//! scheme, and `error` says why a line gave no result.

mod error;
mod names;
mod row;

use std::collections::{BTreeMap, HashMap};

use pqbench_types::{Algorithm, Operation};

use self::error::LineError;
use self::names::scheme_name;
use self::row::{Column, Row, Section, header_column};
use crate::{Format, Group, Leftovers, Log, Notes, ParseError, bare_result, numbered_lines};

/// Parses pqm4's benchmarks.md or benchmarks.csv. pqm4 counts cycles; with
/// `clock_hz` the results also carry times (avg/min/max ms, ops/s).
pub fn parse(text: &str, clock_hz: Option<u64>) -> Result<Log, ParseError> {
    let lines = numbered_lines(text)?;
    let mut reader = Reader::default();
    for &(number, line) in &lines {
        reader.line(number, line);
    }
    let groups = reader.groups(clock_hz);
    if groups.is_empty() {
        return Err(ParseError::NothingRecognized { format: Format::Pqm4 });
    }
    Ok(Log {
        format: Format::Pqm4,
        version: None,
        groups,
        unread: reader.leftovers.unread,
        understood_lines: reader.leftovers.understood_lines,
    })
}

/// Which table a row came from, to refuse a second row for the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Speed,
    Memory,
    Hashing,
    Size,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Speed => "speed",
            Table::Memory => "memory",
            Table::Hashing => "hashing",
            Table::Size => "size",
        }
    }
}

/// A figure with the text it was read from, for notes.
#[derive(Debug, Clone)]
struct Printed<T> {
    value: T,
    text: String,
}

#[derive(Debug, Default, Clone)]
struct OperationFigures {
    mean: Option<Printed<u64>>,
    min: Option<Printed<u64>>,
    max: Option<Printed<u64>>,
    stack: Option<u64>,
    hashing: Option<String>,
}

/// One (algorithm, implementation): every table's figures for it.
#[derive(Debug)]
struct Entry {
    scheme: String,
    implementation: String,
    algorithm: Algorithm,
    name_note: Option<String>,
    executions: Option<u64>,
    operations: Vec<(Operation, OperationFigures)>,
    size: BTreeMap<Section, Printed<u64>>,
    tables: Vec<Table>,
}

impl Entry {
    fn operation(&mut self, operation: Operation) -> &mut OperationFigures {
        let at = match self.operations.iter().position(|(o, _)| *o == operation) {
            Some(at) => at,
            None => {
                self.operations.push((operation, OperationFigures::default()));
                self.operations.len() - 1
            }
        };
        &mut self.operations[at].1
    }
}

#[derive(Default)]
struct Reader {
    columns: Option<Vec<Column>>,
    entries: Vec<Entry>,
    /// Where each (algorithm, implementation) is in `entries`: a file of
    /// 100,000 rows must not cost a search of all the others per row.
    index: HashMap<(Algorithm, String), usize>,
    leftovers: Leftovers,
}

/// The section and table titles, which carry no figures.
const TITLES: [&str; 6] = [
    "Speed Evaluation",
    "Memory Evaluation",
    "Hashing Evaluation",
    "Size Evaluation",
    "Key Encapsulation Schemes",
    "Signature Schemes",
];

impl Reader {
    fn line(&mut self, number: usize, raw: &str) {
        match self.read(raw.trim()) {
            Ok(true) => {}
            Ok(false) => self.leftovers.understood_lines += 1,
            Err(reason) => self.leftovers.unread(number, raw, reason),
        }
    }

    /// Ok(true): the line gave figures; Ok(false): understood, no figures.
    fn read(&mut self, line: &str) -> Result<bool, LineError> {
        if line.starts_with('#') {
            return Ok(false);
        }
        let cells: Vec<&str> = if let Some(row) = line.strip_prefix('|') {
            let row = row.strip_suffix('|').unwrap_or(row);
            row.split('|').map(str::trim).collect()
        } else if line.contains(',') {
            let mut cells: Vec<&str> = line.split(',').map(str::trim).collect();
            // The CSV pads every line to its widest table.
            while cells.last() == Some(&"") {
                cells.pop();
            }
            cells
        } else {
            vec![line]
        };
        match cells.as_slice() {
            [title] if TITLES.iter().any(|t| t.eq_ignore_ascii_case(title)) => return Ok(false),
            [first, ..] if first.eq_ignore_ascii_case("scheme") => {
                self.columns = Some(cells.iter().map(|c| header_column(c)).collect());
                return Ok(false);
            }
            _ => {}
        }
        let rule = cells.iter().all(|c| !c.is_empty() && c.bytes().all(|b| matches!(b, b'-' | b':')));
        if rule {
            return Ok(false);
        }
        if cells.len() < 3 {
            return Err(LineError::NotBenchmarks);
        }
        let columns = self.columns.as_ref().ok_or(LineError::RowWithoutHeader)?;
        if cells.len() != columns.len() {
            return Err(LineError::CellCount { cells: cells.len(), columns: columns.len() });
        }
        let row = Row::read(columns, &cells)?;
        self.merge(row)?;
        Ok(true)
    }

    fn merge(&mut self, row: Row) -> Result<(), LineError> {
        let (algorithm, name_note) = scheme_name(&row.scheme)?;
        let allowed: &[Operation] = if algorithm.is_kem() {
            &[Operation::Keygen, Operation::Encaps, Operation::Decaps]
        } else {
            &[Operation::Keygen, Operation::Sign, Operation::Verify]
        };
        if let Some(operation) = row.operations.iter().map(|(o, _)| *o).find(|o| !allowed.contains(o)) {
            return Err(LineError::WrongTableKind { scheme: row.scheme, operation });
        }
        let key = (algorithm, row.implementation.clone());
        let entry = match self.index.get(&key) {
            Some(&at) => &mut self.entries[at],
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push(Entry {
                    scheme: row.scheme.clone(),
                    implementation: row.implementation.clone(),
                    algorithm,
                    name_note,
                    executions: None,
                    operations: Vec::new(),
                    size: BTreeMap::new(),
                    tables: Vec::new(),
                });
                self.entries.last_mut().expect("just pushed")
            }
        };
        if entry.scheme != row.scheme {
            return Err(LineError::AlgorithmNamedTwice {
                scheme: row.scheme,
                algorithm,
                first: entry.scheme.clone(),
                implementation: row.implementation,
            });
        }
        if entry.tables.contains(&row.table) {
            return Err(LineError::RepeatedRow {
                table: row.table,
                scheme: row.scheme,
                implementation: row.implementation,
            });
        }
        entry.tables.push(row.table);
        if row.executions.is_some() {
            entry.executions = row.executions;
        }
        for (operation, figures) in row.operations {
            let slot = entry.operation(operation);
            slot.mean = figures.mean.or(slot.mean.take());
            slot.min = figures.min.or(slot.min.take());
            slot.max = figures.max.or(slot.max.take());
            slot.stack = figures.stack.or(slot.stack);
            slot.hashing = figures.hashing.or(slot.hashing.take());
        }
        entry.size.extend(row.size);
        Ok(())
    }

    /// One group per implementation in order of first appearance; within
    /// it, the schemes in order of first appearance, each operation in its
    /// table's column order.
    fn groups(&self, clock_hz: Option<u64>) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        let mut group_of: HashMap<&str, usize> = HashMap::new();
        for entry in &self.entries {
            let at = *group_of.entry(&entry.implementation).or_insert_with(|| {
                groups
                    .push(Group { implementation: Some(entry.implementation.clone()), results: Vec::new() });
                groups.len() - 1
            });
            for (operation, figures) in &entry.operations {
                groups[at].results.push(result(entry, *operation, figures, clock_hz));
            }
        }
        groups.retain(|g| !g.results.is_empty());
        groups
    }
}

fn result(
    entry: &Entry,
    operation: Operation,
    figures: &OperationFigures,
    clock_hz: Option<u64>,
) -> pqbench_types::BenchResult {
    let mut result = bare_result(entry.algorithm, operation);
    // pqm4 times the NIST API (`crypto_kem_dec(ss, ct, sk)`, `crypto_sign`
    // and the rest), whose keys are the schemes' encoded bytes.
    result.key_format = Some(pqbench_types::KeyFormat::Encoded);
    let mut notes = Notes::default();
    if let Some(note) = &entry.name_note {
        notes.push(note.clone());
    }
    result.iterations = entry.executions;
    if let Some(mean) = &figures.mean {
        result.cycles_per_op = Some(mean.value as f64);
        result.ticks_per_op = Some(mean.value as f64);
        result.tick_unit = Some("cycles".into());
    }
    let to_ms = |cycles: u64, clock: u64| cycles as f64 * 1000.0 / clock as f64;
    match clock_hz.filter(|&c| c > 0) {
        Some(clock) => {
            result.avg_ms = figures.mean.as_ref().map(|m| to_ms(m.value, clock));
            result.ops_per_sec =
                figures.mean.as_ref().filter(|m| m.value > 0).map(|m| clock as f64 / m.value as f64);
            result.min_ms = figures.min.as_ref().map(|m| to_ms(m.value, clock));
            result.max_ms = figures.max.as_ref().map(|m| to_ms(m.value, clock));
            if figures.mean.is_some() || figures.min.is_some() || figures.max.is_some() {
                notes.push(format!("times from cycles at {clock} Hz (the clock given at import)"));
            }
        }
        None => match (&figures.min, &figures.max) {
            (Some(min), Some(max)) => notes.push(format!("cycles min {}, max {}", min.text, max.text)),
            (Some(min), None) => notes.push(format!("cycles min {}", min.text)),
            (None, Some(max)) => notes.push(format!("cycles max {}", max.text)),
            (None, None) => {}
        },
    }
    result.stack_bytes = figures.stack;
    if let Some(share) = &figures.hashing {
        notes.push(format!("hashing {share} of cycles"));
    }
    if let Some(total) = entry.size.get(&Section::Total) {
        result.code_bytes = Some(total.value);
    }
    let sections: Vec<String> = [(Section::Text, ".text"), (Section::Data, ".data"), (Section::Bss, ".bss")]
        .into_iter()
        .filter_map(|(section, name)| entry.size.get(&section).map(|p| format!("{name} {} B", p.text)))
        .collect();
    if !sections.is_empty() {
        notes.push(sections.join(", "));
    }
    result.note = notes.finish();
    result
}

#[cfg(test)]
mod tests;
