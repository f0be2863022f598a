//! The `-csv` and machine-parseable CSV tables: a header line names the
//! columns, and each row after it is read by those names.

use super::error::LineError;
use super::names::ecc_name;
use super::{Figures, Identity, Kind, Measured};
use crate::number::{decimal, decimal_shifted, integer};

/// A `-csv` or machine-parseable CSV table, read by its header's names.
pub(super) struct CsvTable {
    kind: Kind,
    /// Rows start with `sym,`/`asym,` (machine-parseable).
    machine: bool,
    columns: Vec<Column>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Column {
    Tag,
    Name,
    Device,
    Strength,
    Operation,
    AvgMs,
    OpsPerSec,
    Ops,
    Seconds,
    TotalCycles,
    CyclesPerOp,
    CyclesPerByte,
    BytesTotal,
    /// A throughput in the header's unit, e.g. "MB/s".
    Rate(String),
    HeapBytes,
    HeapAllocs,
    StackBytes,
    MaxDuration,
    MinDuration,
    MeanDuration,
    Sd,
    Other(String),
}

impl CsvTable {
    pub(super) fn from_header(line: &str, announced: Option<Kind>) -> Option<CsvTable> {
        let (kind, machine) = if line.starts_with("\"sym\",") {
            (Kind::Symmetric, true)
        } else if line.starts_with("\"asym\",") {
            (Kind::Asymmetric, true)
        } else if line.starts_with("Algorithm,") {
            let asymmetric = line.split(',').any(|c| c.trim() == "key size");
            (announced.unwrap_or(if asymmetric { Kind::Asymmetric } else { Kind::Symmetric }), false)
        } else {
            return None;
        };
        let columns = cells(line)
            .into_iter()
            .map(|name| match name.to_ascii_lowercase().as_str() {
                "\"sym\"" | "\"asym\"" => Column::Tag,
                "algorithm" => Column::Name,
                "hw/sw" => Column::Device,
                "key size" => Column::Strength,
                "operation" => Column::Operation,
                "avg ms" => Column::AvgMs,
                "ops/sec" => Column::OpsPerSec,
                "ops" => Column::Ops,
                "secs" | "seconds_total" => Column::Seconds,
                "cycles" | "cycles_total" => Column::TotalCycles,
                "cycles/op" => Column::CyclesPerOp,
                "cycles per byte" => Column::CyclesPerByte,
                "bytes_total" => Column::BytesTotal,
                "heap_bytes" => Column::HeapBytes,
                "heap_allocs" => Column::HeapAllocs,
                "stack_bytes" => Column::StackBytes,
                "max duration" => Column::MaxDuration,
                "min duration" => Column::MinDuration,
                "mean duration" => Column::MeanDuration,
                "sd" => Column::Sd,
                lower if lower.ends_with("/s") => Column::Rate(name.trim_end_matches("/s").to_string()),
                _ => Column::Other(name.to_string()),
            })
            .collect();
        Some(CsvTable { kind, machine, columns })
    }

    /// None when the line is not a row of this table.
    pub(super) fn row(&self, line: &str) -> Option<Result<Measured, LineError>> {
        let tag = match self.kind {
            Kind::Symmetric => "sym,",
            Kind::Asymmetric => "asym,",
        };
        if self.machine && !line.starts_with(tag) {
            return None;
        }
        Some(self.read_row(&cells(line)))
    }

    fn read_row(&self, cells: &[&str]) -> Result<Measured, LineError> {
        if cells.len() != self.columns.len() {
            return Err(LineError::FieldCount { fields: cells.len(), columns: self.columns.len() });
        }
        let mut figures = Figures::default();
        let (mut name, mut strength, mut operation, mut variant) = (None, None, None, None);
        let (mut bytes_total, mut rate, mut total_cycles) = (None, None, None);
        for (column, &cell) in self.columns.iter().zip(cells) {
            let malformed = || LineError::MalformedCell { text: cell.to_string(), column: column.clone() };
            let number = || decimal(cell).ok_or_else(malformed);
            let whole = || {
                integer(cell).ok_or_else(|| LineError::MalformedCount {
                    text: cell.to_string(),
                    column: column.clone(),
                })
            };
            // A duration too large for milliseconds is still a number in seconds.
            let milliseconds = || {
                decimal_shifted(cell, 3).ok_or_else(|| match decimal(cell) {
                    Some(_) => {
                        LineError::DurationOutOfRange { text: cell.to_string(), column: column.clone() }
                    }
                    None => malformed(),
                })
            };
            match column {
                Column::Tag | Column::Other(_) => {}
                Column::Name => name = Some(cell),
                Column::Device if cell == "HW" => variant = Some(super::hardware_variant()),
                Column::Device => {}
                Column::Strength => strength = Some(whole()?),
                Column::Operation => operation = Some(cell),
                Column::AvgMs => figures.avg_ms = Some(number()?),
                Column::OpsPerSec => figures.ops_per_sec = Some(number()?),
                Column::Ops => figures.iterations = Some(whole()?),
                Column::Seconds => figures.total_seconds = Some(number()?),
                Column::TotalCycles => total_cycles = Some(whole()?),
                Column::CyclesPerOp => figures.cycles_per_op = Some(number()?),
                Column::CyclesPerByte => {
                    figures.cycles_per_byte = Some(number()?);
                    figures.notes.push(format!("{cell} cycles per byte (as printed)"));
                }
                Column::BytesTotal => bytes_total = Some(whole()?),
                Column::Rate(unit) => {
                    number()?;
                    rate = Some((cell, unit.as_str()));
                }
                Column::HeapBytes => figures.heap_bytes = Some(whole()?),
                Column::HeapAllocs => figures.heap_allocs = Some(whole()?),
                Column::StackBytes => figures.stack_bytes = Some(whole()?),
                Column::MaxDuration => figures.max_ms = Some(milliseconds()?),
                Column::MinDuration => figures.min_ms = Some(milliseconds()?),
                Column::MeanDuration => {
                    number()?;
                    figures.notes.push(format!("mean call {cell} s"));
                }
                Column::Sd => {
                    number()?;
                    figures.notes.push(format!("sd {cell} s"));
                }
            }
        }
        let name = name.filter(|n| !n.is_empty()).ok_or(LineError::NoNameInRow)?;
        if let (Some(total), None, Some(ops)) = (total_cycles, figures.cycles_per_op, figures.iterations)
            && ops > 0
        {
            figures.cycles_per_op = Some(total as f64 / ops as f64);
            figures.notes.push(format!("cycles per op = {total} cycles / {ops} ops, as printed"));
        }
        match self.kind {
            Kind::Asymmetric => {
                let strength = Some(strength.ok_or(LineError::NoKeySizeInRow)?);
                let operation = operation.ok_or(LineError::NoOperationInRow)?.to_string();
                let name = ecc_name(name);
                let label = super::asymmetric_label(&name, strength, &operation);
                Ok(Measured {
                    label,
                    identity: Identity::Asymmetric { name, strength, operation },
                    variant,
                    figures,
                })
            }
            Kind::Symmetric => {
                match (bytes_total, figures.total_seconds) {
                    (Some(bytes), Some(seconds)) if seconds > 0.0 => {
                        figures.bytes_per_sec = Some(bytes as f64 / seconds);
                        figures.notes.push(format!(
                            "{bytes} bytes in {seconds} s (bytes_total / seconds_total as printed)"
                        ));
                    }
                    // `-csv` prints the rate under a fixed "MB/s" header,
                    // but wolfSSL 5.6 and later scale each row to its own
                    // unit (KiB, MiB, ...) and earlier ones to MB of either
                    // base: the figure's unit is not known, and a guess
                    // could be off by 1024. Its cycles per byte are not
                    // ambiguous: the row lands with them (a throughput from
                    // them where the import gives a clock), the printed
                    // rate in its note.
                    _ if figures.cycles_per_byte.is_some_and(|c| c > 0.0) => {
                        if let Some((rate, unit)) = rate {
                            figures.notes.push(format!(
                                "printed rate {rate} under \"{unit}/s\", its unit not fixed by wolfCrypt: not stored"
                            ));
                        }
                        let description = name.to_string();
                        return Ok(Measured {
                            label: description.clone(),
                            identity: Identity::Symmetric { description },
                            variant,
                            figures,
                        });
                    }
                    _ => {
                        let (rate, unit) = rate.unwrap_or(("?", "?"));
                        return Err(LineError::CsvRateUnitUnknown {
                            rate: rate.to_string(),
                            unit: unit.to_string(),
                        });
                    }
                }
                if let Some((rate, unit)) = rate {
                    figures.notes.push(format!("printed rate {rate} {unit}/s"));
                }
                let description = name.to_string();
                Ok(Measured {
                    label: description.clone(),
                    identity: Identity::Symmetric { description },
                    variant,
                    figures,
                })
            }
        }
    }
}

/// A CSV line's fields, trimmed, without the empty one its trailing comma makes.
fn cells(line: &str) -> Vec<&str> {
    let mut cells: Vec<&str> = line.split(',').map(str::trim).collect();
    while cells.last() == Some(&"") {
        cells.pop();
    }
    cells
}
