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

use std::collections::{BTreeMap, HashMap};

use pqbench_types::{Algorithm, Operation};

use crate::number::{decimal, grouped_integer, integer};
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

/// What a table column holds, from its header.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Column {
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
enum Statistic {
    Combined,
    Mean,
    Min,
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Text,
    Data,
    Bss,
    Total,
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
    fn read(&mut self, line: &str) -> Result<bool, String> {
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
            return Err("not a line of pqm4's benchmarks (markdown or CSV)".into());
        }
        let columns = self.columns.as_ref().ok_or("a table row without a header row before it")?;
        if cells.len() != columns.len() {
            return Err(format!("{} cells where the table's header has {}", cells.len(), columns.len()));
        }
        let row = Row::read(columns, &cells)?;
        self.merge(row)?;
        Ok(true)
    }

    fn merge(&mut self, row: Row) -> Result<(), String> {
        let (algorithm, name_note) = scheme_name(&row.scheme)?;
        use Algorithm::*;
        let kem = matches!(algorithm, MlKem512 | MlKem768 | MlKem1024 | Kyber512 | Kyber768 | Kyber1024);
        let allowed: &[Operation] = if kem {
            &[Operation::Keygen, Operation::Encaps, Operation::Decaps]
        } else {
            &[Operation::Keygen, Operation::Sign, Operation::Verify]
        };
        if let Some(other) = row.operations.iter().map(|(o, _)| *o).find(|o| !allowed.contains(o)) {
            return Err(format!(
                "{} under a \"{other}\" column: a KEM's row in a signature table or the reverse",
                row.scheme
            ));
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
            return Err(format!(
                "pqm4's {} is {algorithm}, which its {} row already gave for {}",
                row.scheme, entry.scheme, row.implementation
            ));
        }
        if entry.tables.contains(&row.table) {
            return Err(format!(
                "second {} row for {} {}; the first is kept",
                row.table.name(),
                row.scheme,
                row.implementation
            ));
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

/// A table row's figures, read by its columns.
struct Row {
    scheme: String,
    implementation: String,
    executions: Option<u64>,
    table: Table,
    operations: Vec<(Operation, OperationFigures)>,
    size: BTreeMap<Section, Printed<u64>>,
}

impl Row {
    fn read(columns: &[Column], cells: &[&str]) -> Result<Row, String> {
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
                    .ok_or_else(|| format!("malformed figure {cell:?}"))
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
                    row.operations[at].1.hashing =
                        Some(share.ok_or_else(|| format!("malformed hashing share {cell:?}"))?);
                }
                Column::Size(section) => {
                    tables.push(Table::Size);
                    row.size.insert(section, count(cell)?);
                }
                Column::Ignored => {}
            }
        }
        if row.scheme.is_empty() || row.implementation.is_empty() {
            return Err("a row without its scheme or implementation".into());
        }
        tables.dedup();
        row.table = match tables.as_slice() {
            [table] => *table,
            [] => return Err("a row with no figure columns".into()),
            _ => return Err("a table whose columns mix speed, memory, hashing and size".into()),
        };
        Ok(row)
    }
}

/// `ml-kem-768 (10 executions)` → ("ml-kem-768", Some(10)); `ml-kem-768` →
/// ("ml-kem-768", None).
fn scheme_cell(cell: &str) -> Result<(String, Option<u64>), String> {
    match cell.split_once(" (") {
        Some((scheme, rest)) => {
            let count = rest
                .strip_suffix(" executions)")
                .or_else(|| rest.strip_suffix(" execution)"))
                .and_then(integer)
                .ok_or_else(|| format!("malformed scheme cell {cell:?}"))?;
            Ok((scheme.trim().to_string(), Some(count)))
        }
        None if !cell.is_empty() => Ok((cell.to_string(), None)),
        None => Err("an empty scheme cell".into()),
    }
}

/// `AVG: 642,096 <br /> MIN: 639,116 <br /> MAX: 651,103`.
type Combined = (Printed<u64>, Option<Printed<u64>>, Option<Printed<u64>>);

fn combined_cycles(cell: &str) -> Result<Combined, String> {
    let (mut mean, mut min, mut max) = (None, None, None);
    for part in cell.split("<br />").flat_map(|p| p.split("<br/>")).flat_map(|p| p.split("<br>")) {
        let (label, figure) =
            part.split_once(':').ok_or_else(|| format!("malformed cycles cell {cell:?}"))?;
        let figure = figure.trim();
        let value = grouped_integer(figure).ok_or_else(|| format!("malformed cycle count {figure:?}"))?;
        let printed = Some(Printed { value, text: figure.to_string() });
        let slot = match label.trim() {
            "AVG" => &mut mean,
            "MIN" => &mut min,
            "MAX" => &mut max,
            other => return Err(format!("unknown statistic {other:?} in a cycles cell")),
        };
        if slot.is_some() {
            return Err(format!("{} twice in a cycles cell", label.trim()));
        }
        *slot = printed;
    }
    let mean = mean.ok_or("a cycles cell without its AVG")?;
    Ok((mean, min, max))
}

fn header_column(cell: &str) -> Column {
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

/// pqbench's name for a pqm4 scheme, and a note when pqm4's is an older one.
fn scheme_name(scheme: &str) -> Result<(Algorithm, Option<String>), String> {
    use Algorithm::*;
    // Round 3 Kyber and Dilithium (pqm4 before FIPS 203/204) are their
    // own algorithms, as in the wolfCrypt reader: their outputs differ from
    // ML-KEM's and ML-DSA's, so a pre-FIPS row never lands under a FIPS name.
    let round3 = |algorithm: Algorithm, what: &str| {
        Ok((algorithm, Some(format!("{what} round 3 ({scheme}, as printed), not {}", fips(algorithm)))))
    };
    match scheme {
        "ml-kem-512" => Ok((MlKem512, None)),
        "ml-kem-768" => Ok((MlKem768, None)),
        "ml-kem-1024" => Ok((MlKem1024, None)),
        "ml-dsa-44" => Ok((MlDsa44, None)),
        "ml-dsa-65" => Ok((MlDsa65, None)),
        "ml-dsa-87" => Ok((MlDsa87, None)),
        "kyber512" => round3(Kyber512, "Kyber"),
        "kyber768" => round3(Kyber768, "Kyber"),
        "kyber1024" => round3(Kyber1024, "Kyber"),
        "dilithium2" => round3(Dilithium2, "Dilithium"),
        "dilithium3" => round3(Dilithium3, "Dilithium"),
        "dilithium5" => round3(Dilithium5, "Dilithium"),
        "dilithium4" | "dilithium1" => Err(format!(
            "no pqbench name for pqm4's {scheme}: a round-2 Dilithium parameter set, neither ML-DSA nor round 3's"
        )),
        other if other.starts_with("kyber") && other.ends_with("-90s") => Err(format!(
            "no pqbench name for pqm4's {other}: Kyber's 90s variant (AES/SHA-2), neither ML-KEM nor round 3's Kyber"
        )),
        other => Err(format!("no pqbench name for pqm4's scheme {other}")),
    }
}

/// The standard a round 3 set became, for a note that says it is not it.
fn fips(algorithm: Algorithm) -> Algorithm {
    use Algorithm::*;
    match algorithm {
        Kyber512 => MlKem512,
        Kyber768 => MlKem768,
        Kyber1024 => MlKem1024,
        Dilithium2 => MlDsa44,
        Dilithium3 => MlDsa65,
        Dilithium5 => MlDsa87,
        other => other,
    }
}

#[cfg(test)]
#[path = "pqm4_tests.rs"]
mod tests;
