//! The text lines that carry figures, read token by token: symmetric
//! (`... 9 MiB took 1.000 seconds, 8.521 MiB/s`) and asymmetric (`... 58
//! ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec`), with the clauses
//! that may follow (cycles, duration statistics, the heap/stack suffix).

use super::banner::Context;
use super::error::{Figure, LineError, Rate};
use super::names::ecc_name;
use super::units::unit_scale;
use super::{Figures, Identity, Measured};
use crate::number::{decimal, decimal_shifted, integer};

/// Splits off the heap/stack suffix: `[heap 494 bytes (8 allocs), stack
/// 1448 bytes]`, with or without the space before it, `(0allocs)` as well.
fn split_memory(line: &str) -> Result<(&str, Figures), LineError> {
    let mut figures = Figures::default();
    let Some(open) = line.rfind('[') else { return Ok((line, figures)) };
    let inner = &line[open + 1..];
    let keyword = inner.trim_start();
    if !(keyword.starts_with("heap") || keyword.starts_with("stack")) {
        return Ok((line, figures));
    }
    let Some(inner) = inner.trim_end().strip_suffix(']') else {
        return Err(LineError::UnclosedMemorySuffix);
    };
    for part in inner.split(',') {
        let cleaned = part.replace(['(', ')'], " ");
        let words: Vec<&str> = cleaned.split_whitespace().collect();
        let bad = || LineError::MalformedMemoryFigure { text: part.trim().to_string() };
        match words.as_slice() {
            ["heap", bytes, "bytes", allocs @ ..] => {
                let allocs = match allocs {
                    [count, "allocs"] => *count,
                    [count] => count.strip_suffix("allocs").ok_or_else(bad)?,
                    [] => "",
                    _ => return Err(bad()),
                };
                figures.heap_bytes = Some(integer(bytes).ok_or_else(bad)?);
                if !allocs.is_empty() {
                    figures.heap_allocs = Some(integer(allocs).ok_or_else(bad)?);
                }
            }
            ["stack", bytes, "bytes"] => figures.stack_bytes = Some(integer(bytes).ok_or_else(bad)?),
            _ => return Err(bad()),
        }
    }
    Ok((line[..open].trim_end(), figures))
}

/// A text line: symmetric (`... 9 MiB took 1.000 seconds, 8.521 MiB/s`) or
/// asymmetric (`... 58 ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec`).
pub(super) fn text_line(line: &str, context: &Context) -> Result<Measured, LineError> {
    let (body, mut figures) = split_memory(line)?;
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let took = tokens.iter().position(|&t| t == "took").ok_or(LineError::NoTookBeforeMemory)?;
    let (head, tail) = (&tokens[..took], &tokens[took + 1..]);
    if head.last() == Some(&"ops") {
        asymmetric_text(&head[..head.len() - 1], tail, figures)
    } else {
        symmetric_text(head, tail, context, &mut figures)?;
        let (description, variant) = symmetric_label(head)?;
        Ok(Measured {
            label: description.clone(),
            identity: Identity::Symmetric { description },
            variant,
            figures,
        })
    }
}

/// `HW`/`SW` (`BENCH_DEVID_GET_NAME`) off the end of a line's name: a
/// hardware device's line is a variant of the software one.
fn device_marker<'a>(name: &'a [&'a str]) -> (&'a [&'a str], Option<String>) {
    match name {
        [rest @ .., "SW"] => (rest, None),
        [rest @ .., "HW"] => (rest, Some(super::hardware_variant())),
        name => (name, None),
    }
}

/// The description before `amount unit took`, without its `HW`/`SW` marker.
fn symmetric_label(head: &[&str]) -> Result<(String, Option<String>), LineError> {
    let Some(name) = head.len().checked_sub(2).map(|end| &head[..end]) else {
        return Err(LineError::NoAmount);
    };
    let (name, variant) = device_marker(name);
    if name.is_empty() {
        return Err(LineError::NoAlgorithmName);
    }
    Ok((name.join(" "), variant))
}

/// An asymmetric line's name, strength and operation, in the three forms
/// benchmark.c prints: `RSA 2048 public` and `ECC [ SECP256R1] 256 key
/// gen` (a strength between them), `ECC [SECP256R1] key gen` (the curve's
/// bracket closes the name), and `kyber_level1-kg` / `FALCON_level1 sign`
/// (`bench_stats_pq_asym_finish`, a `_levelN` name and no strength).
fn asymmetric_identity(words: &[&str]) -> Result<(String, Option<u64>, String), LineError> {
    // The strength is the last number with a name before it and the
    // operation ("key gen", "sign", ...) after it.
    if let Some(at) = (1..words.len().saturating_sub(1)).rev().find(|&i| integer(words[i]).is_some()) {
        let operation = words[at + 1..].join(" ");
        return Ok((ecc_name(&words[..at].join(" ")), integer(words[at]), operation));
    }
    // `bench_scrypt`'s `scrypt 17` (`bench_stats_asym_finish("scrypt", 17,
    // "", ...)`): a number and no operation after it.
    if let [name, number] = words
        && let Some(number) = integer(number)
    {
        return Ok((name.to_string(), Some(number), String::new()));
    }
    if let Some(close) = words.iter().position(|w| w.ends_with(']'))
        && close + 1 < words.len()
    {
        return Ok((ecc_name(&words[..=close].join(" ")), None, words[close + 1..].join(" ")));
    }
    // The liboqs-era form (wolfSSL 4.x to 5.5): `ECC   SECP256R1 key gen`,
    // the curve's name where the strength would be, unbracketed; the same
    // line as `ECC [SECP256R1] key gen`.
    if let [name @ ("ECC" | "ECDHE" | "ECDSA" | "ECDH"), curve, operation @ ..] = words
        && !operation.is_empty()
        && is_curve_name(curve)
    {
        return Ok((format!("{name} [{curve}]"), None, operation.join(" ")));
    }
    if let [name, rest @ ..] = words
        && name.to_ascii_lowercase().contains("_level")
    {
        // `kyber_level1-kg`: the operation is the name's own suffix.
        return Ok(match (rest, name.rsplit_once('-')) {
            ([], Some((base, operation))) => (base.to_string(), None, operation.to_string()),
            _ => (name.to_string(), None, rest.join(" ")),
        });
    }
    Err(LineError::NoStrength)
}

/// A curve as `wc_ecc_get_name()` spells it: `SECP256R1`, `BRAINPOOLP256R1`,
/// `SM2P256V1`, `X25519`: upper-case letters and digits, with a digit.
fn is_curve_name(word: &str) -> bool {
    word.len() >= 5
        && word.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.starts_with(|c: char| c.is_ascii_uppercase())
}

fn symmetric_text(
    head: &[&str],
    tail: &[&str],
    context: &Context,
    figures: &mut Figures,
) -> Result<(), LineError> {
    let [.., amount, unit] = head else { return Err(LineError::NoAmount) };
    let mut cursor = Cursor(tail);
    let seconds = cursor.number(Figure::Seconds)?;
    match cursor.next() {
        Some("seconds,") => {}
        Some("microseconds,") => return Err(LineError::Microseconds),
        _ => return Err(LineError::NoTimeUnit { expected: "seconds," }),
    }
    let rate_text = cursor.next().ok_or(LineError::NoRate)?;
    decimal(rate_text).ok_or_else(|| LineError::MalformedRate { text: rate_text.to_string() })?;
    let rate_unit = cursor.next().ok_or(LineError::NoRateUnit)?;
    let rate_unit = rate_unit.trim_end_matches(',');
    if rate_unit != format!("{unit}/s") {
        return Err(LineError::RateUnitMismatch {
            rate_unit: rate_unit.to_string(),
            amount_unit: unit.to_string(),
        });
    }
    decimal(amount).ok_or_else(|| LineError::MalformedAmount { text: amount.to_string() })?;
    let scale = unit_scale(unit, context)?;
    figures.total_seconds = Some(seconds);
    let out_of_range = || LineError::RateOutOfRange { rate: rate_text.to_string(), unit: unit.to_string() };
    figures.bytes_per_sec = Some(scale.bytes(rate_text).ok_or_else(out_of_range)?);
    figures.notes.push(format!("{amount} {unit} in {} s; {}", tail[0], scale.describe));
    symmetric_extras(&mut cursor, figures)?;
    Ok(())
}

/// What follows a symmetric line's rate: `N cycles,`, `Cycles per byte =
/// X`, the multi-value statistics.
fn symmetric_extras(cursor: &mut Cursor, figures: &mut Figures) -> Result<(), LineError> {
    while let Some(token) = cursor.peek() {
        match token {
            "Cycles" => {
                for word in ["Cycles", "per", "byte", "="] {
                    if cursor.next() != Some(word) {
                        return Err(LineError::MalformedCyclesPerByteClause);
                    }
                }
                let text = cursor.next().ok_or(LineError::NoCyclesPerByte)?;
                decimal(text).ok_or_else(|| LineError::MalformedCyclesPerByte { text: text.to_string() })?;
                figures.notes.push(format!("{text} cycles per byte (as printed)"));
            }
            "max" => multi_value_statistics(cursor, figures)?,
            _ => {
                let text = cursor.next().unwrap_or_default();
                let total = integer(text).ok_or_else(|| LineError::UnexpectedAfterRate {
                    text: text.to_string(),
                    rate: Rate::Throughput,
                })?;
                if cursor.next().map(|t| t.trim_end_matches(',')) != Some("cycles") {
                    return Err(LineError::CountWithoutCycles { rate: Rate::Throughput });
                }
                figures.notes.push(format!("{total} cycles in total (as printed)"));
            }
        }
    }
    Ok(())
}

fn asymmetric_text(head: &[&str], tail: &[&str], mut figures: Figures) -> Result<Measured, LineError> {
    let [name_and_operation @ .., count] = head else {
        return Err(LineError::NoOperationCount);
    };
    let iterations =
        integer(count).ok_or_else(|| LineError::MalformedOperationCount { text: count.to_string() })?;
    let (name_and_operation, variant) = device_marker(name_and_operation);
    let (name, strength, operation) = asymmetric_identity(name_and_operation)?;

    let mut cursor = Cursor(tail);
    figures.total_seconds = Some(cursor.number(Figure::Seconds)?);
    match cursor.next() {
        Some("sec,") => {}
        Some("μsec,") => return Err(LineError::Microseconds),
        _ => return Err(LineError::NoTimeUnit { expected: "sec," }),
    }
    if cursor.peek() == Some("avg") {
        cursor.next();
        figures.avg_ms = Some(cursor.number(Figure::Average)?);
        if cursor.next() != Some("ms,") {
            return Err(LineError::NoAverageUnit);
        }
    }
    figures.ops_per_sec = Some(cursor.number(Figure::OpsPerSec)?);
    if cursor.next().map(|t| t.trim_end_matches(',')) != Some("ops/sec") {
        return Err(LineError::NoOpsPerSec);
    }
    figures.iterations = Some(iterations);
    while let Some(token) = cursor.peek() {
        if token == "max" {
            multi_value_statistics(&mut cursor, &mut figures)?;
            continue;
        }
        let text = cursor.next().unwrap_or_default();
        let total = integer(text).ok_or_else(|| LineError::UnexpectedAfterRate {
            text: text.to_string(),
            rate: Rate::Operations,
        })?;
        if cursor.next().map(|t| t.trim_end_matches(',')) != Some("cycles") {
            return Err(LineError::CountWithoutCycles { rate: Rate::Operations });
        }
        if iterations > 0 {
            figures.cycles_per_op = Some(total as f64 / iterations as f64);
            figures.notes.push(format!("cycles per op = {total} cycles / {iterations} ops, as printed"));
        }
        cycles_per_op_clause(&mut cursor, total, iterations)?;
    }
    let label = super::asymmetric_label(&name, strength, &operation);
    Ok(Measured { label, identity: Identity::Asymmetric { name, strength, operation }, variant, figures })
}

/// SHOW_CYCLES_OPS's `" %10.1f Cycles/op"` after the cycle count (hosts
/// with a cycle counter, wolfSSL 5.7 and later): the same count divided by
/// the operations, rounded to a tenth, so it is checked and not stored twice.
fn cycles_per_op_clause(cursor: &mut Cursor, total: u64, iterations: u64) -> Result<(), LineError> {
    let (Some(text), Some("Cycles/op")) = (cursor.peek(), cursor.0.get(1).copied()) else {
        return Ok(());
    };
    let printed = decimal(text).ok_or_else(|| LineError::MalformedCyclesPerOp { text: text.to_string() })?;
    let computed = if iterations == 0 { 0.0 } else { total as f64 / iterations as f64 };
    // Printed with one decimal: within half a tenth, and a little for the
    // double it was printed from.
    if (printed - computed).abs() > 0.05 + computed * 1e-12 {
        return Err(LineError::CyclesPerOpMismatch { text: text.to_string(), total, iterations });
    }
    cursor.next();
    cursor.next();
    Ok(())
}

/// `", max duration %.3f s, min duration %.3f s, mean duration %.3f s, sd
/// %.3f s"` (`bench_multi_value_stats`): the per-call spread, in seconds.
fn multi_value_statistics(cursor: &mut Cursor, figures: &mut Figures) -> Result<(), LineError> {
    for (word, field) in [("max", 0), ("min", 1), ("mean", 2), ("sd", 3)] {
        if cursor.next() != Some(word) {
            return Err(LineError::StatisticsWord { word });
        }
        if word != "sd" && cursor.next() != Some("duration") {
            return Err(LineError::StatisticsWord { word: "duration" });
        }
        let text = cursor.next().ok_or(LineError::StatisticsFigure)?;
        let ms = decimal_shifted(text, 3)
            .ok_or_else(|| LineError::MalformedDuration { text: text.to_string() })?;
        if cursor.next().map(|t| t.trim_end_matches(',')) != Some("s") {
            return Err(LineError::StatisticsUnit);
        }
        match field {
            0 => figures.max_ms = Some(ms),
            1 => figures.min_ms = Some(ms),
            2 => figures.notes.push(format!("mean call {text} s")),
            _ => figures.notes.push(format!("sd {text} s")),
        }
    }
    Ok(())
}

/// Tokens after "took", read in order.
struct Cursor<'a>(&'a [&'a str]);

impl<'a> Cursor<'a> {
    fn next(&mut self) -> Option<&'a str> {
        let (first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    fn peek(&self) -> Option<&'a str> {
        self.0.first().copied()
    }

    fn number(&mut self, figure: Figure) -> Result<f64, LineError> {
        let text = self.next().ok_or(LineError::MissingFigure { figure })?;
        decimal(text).ok_or_else(|| LineError::MalformedNumber { text: text.to_string(), figure })
    }
}
