//! The text lines that carry figures, read token by token: symmetric
//! (`... 9 MiB took 1.000 seconds, 8.521 MiB/s`) and asymmetric (`... 58
//! ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec`), with the clauses
//! that may follow (cycles, duration statistics, the heap/stack suffix).

use super::banner::Context;
use super::names::ecc_name;
use super::units::unit_scale;
use super::{Figures, Identity, Measured};
use crate::number::{decimal, decimal_shifted, integer};

/// Splits off the heap/stack suffix: `[heap 494 bytes (8 allocs), stack
/// 1448 bytes]`, with or without the space before it, `(0allocs)` as well.
fn split_memory(line: &str) -> Result<(&str, Figures), String> {
    let mut figures = Figures::default();
    let Some(open) = line.rfind('[') else { return Ok((line, figures)) };
    let inner = &line[open + 1..];
    let keyword = inner.trim_start();
    if !(keyword.starts_with("heap") || keyword.starts_with("stack")) {
        return Ok((line, figures));
    }
    let Some(inner) = inner.trim_end().strip_suffix(']') else {
        return Err("the heap/stack suffix has no closing ']'".into());
    };
    for part in inner.split(',') {
        let cleaned = part.replace(['(', ')'], " ");
        let words: Vec<&str> = cleaned.split_whitespace().collect();
        let bad = || format!("malformed heap/stack figure {:?}", part.trim());
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
pub(super) fn text_line(line: &str, context: &Context) -> Result<Measured, String> {
    let (body, mut figures) = split_memory(line)?;
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let took = tokens.iter().position(|&t| t == "took").ok_or("no \"took\" before the heap/stack suffix")?;
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
fn symmetric_label(head: &[&str]) -> Result<(String, Option<String>), String> {
    let Some(name) = head.len().checked_sub(2).map(|end| &head[..end]) else {
        return Err("no amount and unit before \"took\"".into());
    };
    let (name, variant) = device_marker(name);
    if name.is_empty() {
        return Err("no algorithm name before the figures".into());
    }
    Ok((name.join(" "), variant))
}

/// An asymmetric line's name, strength and operation, in the three forms
/// benchmark.c prints: `RSA 2048 public` and `ECC [ SECP256R1] 256 key
/// gen` (a strength between them), `ECC [SECP256R1] key gen` (the curve's
/// bracket closes the name), and `kyber_level1-kg` / `FALCON_level1 sign`
/// (`bench_stats_pq_asym_finish`, a `_levelN` name and no strength).
fn asymmetric_identity(words: &[&str]) -> Result<(String, Option<u64>, String), String> {
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
    if let [name, rest @ ..] = words
        && name.to_ascii_lowercase().contains("_level")
    {
        // `kyber_level1-kg`: the operation is the name's own suffix.
        return Ok(match (rest, name.rsplit_once('-')) {
            ([], Some((base, operation))) => (base.to_string(), None, operation.to_string()),
            _ => (name.to_string(), None, rest.join(" ")),
        });
    }
    Err("no key size or strength before the operation".into())
}

fn symmetric_text(
    head: &[&str],
    tail: &[&str],
    context: &Context,
    figures: &mut Figures,
) -> Result<(), String> {
    let [.., amount, unit] = head else { return Err("no amount and unit before \"took\"".into()) };
    let mut cursor = Cursor(tail);
    let seconds = cursor.number("the seconds after \"took\"")?;
    match cursor.next() {
        Some("seconds,") => {}
        Some("microseconds,") => {
            return Err("printed in microseconds (BENCH_MICROSECOND), which pqbench does not read".into());
        }
        _ => return Err("no \"seconds,\" after the time".into()),
    }
    let rate_text = cursor.next().ok_or("no rate after \"seconds,\"")?;
    decimal(rate_text).ok_or_else(|| format!("malformed rate {rate_text:?}"))?;
    let rate_unit = cursor.next().ok_or("no unit after the rate")?;
    let rate_unit = rate_unit.trim_end_matches(',');
    if rate_unit != format!("{unit}/s") {
        return Err(format!("the rate's unit {rate_unit:?} is not the amount's {unit:?} per second"));
    }
    decimal(amount).ok_or_else(|| format!("malformed amount {amount:?}"))?;
    let scale = unit_scale(unit, context)?;
    figures.total_seconds = Some(seconds);
    figures.bytes_per_sec =
        Some(scale.bytes(rate_text).ok_or_else(|| format!("rate {rate_text} {unit}/s is out of range"))?);
    figures.notes.push(format!("{amount} {unit} in {} s; {}", tail[0], scale.describe));
    symmetric_extras(&mut cursor, figures)?;
    Ok(())
}

/// What follows a symmetric line's rate: `N cycles,`, `Cycles per byte =
/// X`, the multi-value statistics.
fn symmetric_extras(cursor: &mut Cursor, figures: &mut Figures) -> Result<(), String> {
    while let Some(token) = cursor.peek() {
        match token {
            "Cycles" => {
                for word in ["Cycles", "per", "byte", "="] {
                    if cursor.next() != Some(word) {
                        return Err("malformed \"Cycles per byte =\" clause".into());
                    }
                }
                let text = cursor.next().ok_or("no figure after \"Cycles per byte =\"")?;
                decimal(text).ok_or_else(|| format!("malformed cycles per byte {text:?}"))?;
                figures.notes.push(format!("{text} cycles per byte (as printed)"));
            }
            "max" => multi_value_statistics(cursor, figures)?,
            _ => {
                let text = cursor.next().unwrap_or_default();
                let total = integer(text).ok_or_else(|| format!("unexpected {text:?} after the rate"))?;
                if cursor.next().map(|t| t.trim_end_matches(',')) != Some("cycles") {
                    return Err("a number after the rate that is not followed by \"cycles\"".into());
                }
                figures.notes.push(format!("{total} cycles in total (as printed)"));
            }
        }
    }
    Ok(())
}

fn asymmetric_text(head: &[&str], tail: &[&str], mut figures: Figures) -> Result<Measured, String> {
    let [name_and_operation @ .., count] = head else {
        return Err("no operation count before \"ops took\"".into());
    };
    let iterations = integer(count).ok_or_else(|| format!("malformed operation count {count:?}"))?;
    let (name_and_operation, variant) = device_marker(name_and_operation);
    let (name, strength, operation) = asymmetric_identity(name_and_operation)?;

    let mut cursor = Cursor(tail);
    figures.total_seconds = Some(cursor.number("the seconds after \"took\"")?);
    match cursor.next() {
        Some("sec,") => {}
        Some("μsec,") => {
            return Err("printed in microseconds (BENCH_MICROSECOND), which pqbench does not read".into());
        }
        _ => return Err("no \"sec,\" after the time".into()),
    }
    if cursor.peek() == Some("avg") {
        cursor.next();
        figures.avg_ms = Some(cursor.number("the average after \"avg\"")?);
        if cursor.next() != Some("ms,") {
            return Err("no \"ms,\" after the average".into());
        }
    }
    figures.ops_per_sec = Some(cursor.number("the operations per second")?);
    if cursor.next().map(|t| t.trim_end_matches(',')) != Some("ops/sec") {
        return Err("no \"ops/sec\" after the rate".into());
    }
    figures.iterations = Some(iterations);
    while let Some(token) = cursor.peek() {
        if token == "max" {
            multi_value_statistics(&mut cursor, &mut figures)?;
            continue;
        }
        let text = cursor.next().unwrap_or_default();
        let total = integer(text).ok_or_else(|| format!("unexpected {text:?} after ops/sec"))?;
        if cursor.next().map(|t| t.trim_end_matches(',')) != Some("cycles") {
            return Err("a number after ops/sec that is not followed by \"cycles\"".into());
        }
        if iterations > 0 {
            figures.cycles_per_op = Some(total as f64 / iterations as f64);
            figures.notes.push(format!("cycles per op = {total} cycles / {iterations} ops, as printed"));
        }
    }
    let label = super::asymmetric_label(&name, strength, &operation);
    Ok(Measured { label, identity: Identity::Asymmetric { name, strength, operation }, variant, figures })
}

/// `", max duration %.3f s, min duration %.3f s, mean duration %.3f s, sd
/// %.3f s"` (`bench_multi_value_stats`): the per-call spread, in seconds.
fn multi_value_statistics(cursor: &mut Cursor, figures: &mut Figures) -> Result<(), String> {
    for (word, field) in [("max", 0), ("min", 1), ("mean", 2), ("sd", 3)] {
        if cursor.next() != Some(word) {
            return Err(format!("malformed duration statistics: no {word:?}"));
        }
        if word != "sd" && cursor.next() != Some("duration") {
            return Err("malformed duration statistics: no \"duration\"".into());
        }
        let text = cursor.next().ok_or("malformed duration statistics: no figure")?;
        let ms = decimal_shifted(text, 3).ok_or_else(|| format!("malformed duration {text:?}"))?;
        if cursor.next().map(|t| t.trim_end_matches(',')) != Some("s") {
            return Err("malformed duration statistics: no unit \"s\"".into());
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

    fn number(&mut self, what: &str) -> Result<f64, String> {
        let text = self.next().ok_or_else(|| format!("{what} is missing"))?;
        decimal(text).ok_or_else(|| format!("malformed number {text:?} for {what}"))
    }
}
