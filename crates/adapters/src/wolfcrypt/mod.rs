//! wolfCrypt's benchmark (`wolfcrypt/benchmark/benchmark.c` in wolfSSL).
//!
//! The format strings this reads, from the versions of benchmark.c read
//! for it (wolfSSL 3.x's, 4.x–5.5's with liboqs, 5.6–5.7's and the 2026
//! master's, which adds the heap/stack suffix):
//!
//! - symmetric, `bench_stats_sym_finish`:
//!   `"%-24s%s %5.0f %s %s %5.3f %s, %8.3f %s/s"` — description, `HW`/`SW`
//!   or nothing (`BENCH_DEVID_GET_NAME`), amount, unit, "took", seconds,
//!   "seconds", rate, unit; older releases pad the description to 16 or 8.
//!   Then optionally `", %lu cycles,"` (`GENERATE_MACHINE_PARSEABLE_REPORT`
//!   with `HAVE_GET_CYCLES`) and `" Cycles per byte = %6.2f"`
//!   (`SHOW_INTEL_CYCLES`).
//! - asymmetric, `bench_stats_asym_finish_ex`:
//!   `"%-6s %5d %8s%-2s %s %6d %s %5.3f %s, %s %5.3f ms, %.3f %s"` — name,
//!   strength, operation (right-aligned), extra, `HW`/`SW`, count, "ops
//!   took", seconds, "sec", "avg", ms, ops/s, "ops/sec"; optionally
//!   `", %lu cycles"`, and after it on 5.7 and later SHOW_CYCLES_OPS's
//!   `" %10.1f Cycles/op"` (checked against the count, not stored twice). With `MULTI_VALUE_STATISTICS` the "avg .. ms" clause
//!   is left out and `", max duration %.3f s, min duration .., mean duration
//!   .., sd .."` follows on the same line.
//! - both, `bench_append_memory_info` (heap and stack tracking):
//!   `" [heap %ld bytes (%ld allocs), stack %ld bytes]"`. Builds before it
//!   print the bracket without the space (`ops/sec[heap`) and `(0allocs)`.
//! - `-csv` (`csv_format`): a header after "Symmetric Ciphers:" /
//!   "Asymmetric Ciphers:" (`Algorithm,MB/s,Cycles per byte,` /
//!   `Algorithm,key size,operation,avg ms,ops/sec,`, with `HW/SW`,
//!   `cycles/op`, `heap_bytes,heap_allocs`, `stack_bytes` and the
//!   `MULTI_VALUE_STATISTICS` columns where built in), then rows in its
//!   columns. Rows are read by the header's column names.
//! - machine-parseable CSV (`GENERATE_MACHINE_PARSEABLE_REPORT` with
//!   `-csv`): `"sym",Algorithm,HW/SW,bytes_total,seconds_total,MB/s,...`
//!   and `sym,%s,%s,%lu,%f,%f,...` rows; `"asym",Algorithm,key size,
//!   operation,avg ms,ops/sec,ops,secs,cycles,cycles/op` and `asym,...` rows.
//! - the banner: `" wolfSSL version %s"` between rules of dashes, `"Math:
//!   ..."`, `"wolfCrypt Benchmark (block bytes %d, min %.1f sec each)"`,
//!   and the application's `"Benchmark complete"`.
//!
//! - post-quantum, `bench_stats_pq_asym_finish` (4.8–5.5 with liboqs or
//!   pqm4): `"%-18s %s %6d %s %5.3f %s, %s %5.3f ms, %.3f %s"` — a
//!   `_levelN` name with its operation (`kyber_level1-kg`, `-ed`;
//!   `DILITHIUM_level2 sign`, `FALCON_level1 verify`), no strength.
//!
//! Names as benchmark.c prints them: `"ECC   [%15s]"`, `"ECDHE [%15s]"`,
//! `"ECDSA [%15s]"` with `wc_ecc_get_name()` and strength = key bytes × 8
//! (so P-521 is 528); older releases print plain `ECC`/`ECDHE`/`ECDSA`, and
//! the NUCLEO logs of 5.7 the bracket with no strength (`ECDH  [SECP256R1]
//! agree`), the curve naming the key. `"ML-KEM 512 "` with strength
//! 128/192/256 (the brief's newer line `ML-KEM 768 key gen` has the set as
//! strength) and operations "key gen"/"encap"/"decap"; `"KYBER512 "` is
//! round 3 Kyber (`Kyber-512`, never ML-KEM); `"ML-DSA"` with the parameter
//! set (44/65/87, or in 5.7 the level 2/3/5), older `"DILITHIUM"` with the
//! level (round 3 Dilithium, `Dilithium-2`...); `"CURVE"`, `"ED"` with
//! 25519/448; `"RSA"`, `"DH"` with the modulus size. The parameter set as
//! the name: XMSS (`XMSS-SHA2_10_256`) and LMS/HSS (`wc_LmsKey_ParmToStr`'s
//! `LMS/HSS L2_H10_W2`, `LMS/HSS_SHA256/192 L3_H5_W4`), with a size in the
//! strength's place (the LMS ones checked against the set); `SLH-DSA-SHAKE-S`
//! and `SLH-DSA-SHA2-F` with the security strength (128/192/256) and the
//! internal (`sign-msg`) and pre-hash (`sign-pre`) interfaces as variants;
//! `"%sFRODOKEM %s %s"` (`EFRODOKEM 1344 AES`); `FALCON` and liboqs's
//! `SPHINCS-FAST`/`-SMALL` with the NIST level (names/post_quantum.rs). A
//! pre-FIPS algorithm is stored under its own name, never a FIPS one.
//!
//! A variant of a row (a `-no_AAD` label, a `HW` line, a further line for
//! a pair already read such as a second GMAC table) is stored as its own
//! result under the same names, its note starting with `variant:` and
//! saying which; the first plain line of a pair stays first.
//!
//! Laid out as: `mod.rs` holds [`parse`] and the walk over the log's
//! lines, which hands each line to its reader (`text` for the text lines
//! with figures, `csv` for the CSV tables, `banner` for the banner and what
//! it implies) and stores what `names` names; `units` turns throughput units
//! into bytes; `error` says why a line gave no result.

mod banner;
mod csv;
mod error;
mod names;
mod text;
mod units;

use self::banner::{Context, is_banner};
use self::csv::CsvTable;
use self::error::LineError;
use self::names::{asymmetric_name, symmetric_name};
use self::text::text_line;
use crate::number::decimal;
use crate::{Format, Group, Leftovers, Log, Notes, ParseError, Seen, bare_result, numbered_lines};

/// Parses a wolfCrypt benchmark log. See the module documentation for the
/// forms read; `clock_hz` lets asymmetric results carry cycles per operation.
pub fn parse(text: &str, clock_hz: Option<u64>) -> Result<Log, ParseError> {
    let lines = numbered_lines(text)?;
    match parse_lines(&lines, clock_hz) {
        // A log whose every line carries one tag (an RTOS's or a logger's,
        // `[WOLFCRYPT]: `) is read without it: only when the log as it is
        // gives nothing, so a tag can never hide a line that reads as it is.
        Err(ParseError::NothingRecognized { .. }) if let Some(tag) = line_tag(&lines) => {
            let untagged: Vec<(usize, &str)> = lines
                .iter()
                .map(|&(number, line)| (number, line.strip_prefix(tag).unwrap_or(line)))
                .collect();
            parse_lines(&untagged, clock_hz)
        }
        parsed => parsed,
    }
}

/// The tag every non-blank line begins with, if there is one: their common
/// start, cut back to its last `:`, `]`, `>` or `|` and the spaces after it
/// (`[WOLFCRYPT]: `, `bench> `, `<6>wolf| `).
fn line_tag<'a>(lines: &[(usize, &'a str)]) -> Option<&'a str> {
    let mut texts = lines.iter().map(|&(_, line)| line).filter(|line| !line.trim().is_empty());
    let first = texts.next()?;
    let mut common = texts.fold(first.len(), |common, line| {
        first.bytes().zip(line.bytes()).take(common).take_while(|(a, b)| a == b).count()
    });
    while !first.is_char_boundary(common) {
        common -= 1;
    }
    let start = &first[..common];
    let end = start.rfind([':', ']', '>', '|'])? + 1;
    let spaces = start[end..].len() - start[end..].trim_start().len();
    Some(&first[..end + spaces])
}

fn parse_lines(lines: &[(usize, &str)], clock_hz: Option<u64>) -> Result<Log, ParseError> {
    let context = Context::scan(lines);
    let mut parser = Parser {
        context,
        clock_hz,
        results: Vec::new(),
        seen: Seen::default(),
        leftovers: Leftovers::default(),
        csv: None,
        pending_csv_kind: None,
    };
    for &(number, line) in lines {
        parser.line(number, line);
    }
    if parser.results.is_empty() {
        return Err(ParseError::NothingRecognized { format: Format::Wolfcrypt });
    }
    Ok(Log {
        format: Format::Wolfcrypt,
        version: parser.context.version.clone(),
        groups: vec![Group { implementation: None, results: parser.results }],
        unread: parser.leftovers.unread,
        understood_lines: parser.leftovers.understood_lines,
    })
}

struct Parser {
    context: Context,
    clock_hz: Option<u64>,
    results: Vec<pqbench_types::BenchResult>,
    seen: Seen,
    leftovers: Leftovers,
    /// The CSV table whose header came last.
    csv: Option<CsvTable>,
    /// "Symmetric Ciphers:" / "Asymmetric Ciphers:" just before a header.
    pending_csv_kind: Option<Kind>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Symmetric,
    Asymmetric,
}

/// How a line was read.
enum Reading {
    /// Understood, no result: banners, headers, rules.
    Understood,
    Measured(Box<Measured>),
    Unread(LineError),
}

/// A line's figures before they are named.
struct Measured {
    /// wolfCrypt's name for what was measured, as printed (for reasons).
    label: String,
    identity: Identity,
    /// Which variant of its row the line is, when its marker says so
    /// (`HW`), as the note's first words.
    variant: Option<String>,
    figures: Figures,
}

enum Identity {
    Symmetric {
        description: String,
    },
    /// `strength` is None where the line prints none: the bracketed ECC
    /// form of the NUCLEO logs and the post-quantum `*_levelN` forms.
    Asymmetric {
        name: String,
        strength: Option<u64>,
        operation: String,
    },
}

/// wolfCrypt's name for an asymmetric line, for reasons and notes.
fn asymmetric_label(name: &str, strength: Option<u64>, operation: &str) -> String {
    match strength {
        Some(strength) => format!("{name} {strength} {operation}"),
        None => format!("{name} {operation}"),
    }
}

/// How a variant's note begins, so that a reader (or a filter) can tell a
/// variant row from the main one.
const VARIANT: &str = "variant:";

/// The note of a line measured on wolfCrypt's hardware device.
fn hardware_variant() -> String {
    format!("{VARIANT} HW, measured through wolfCrypt's crypto device (BENCH_DEVID), not in software")
}

#[derive(Default)]
struct Figures {
    iterations: Option<u64>,
    total_seconds: Option<f64>,
    avg_ms: Option<f64>,
    ops_per_sec: Option<f64>,
    min_ms: Option<f64>,
    max_ms: Option<f64>,
    /// Printed (or, from a total, divided) cycle counts: tick_unit "cycles".
    cycles_per_op: Option<f64>,
    bytes_per_sec: Option<f64>,
    /// Printed cycles per byte (`-csv`, `SHOW_INTEL_CYCLES`): with the
    /// clock given at import, the throughput where no other says it.
    cycles_per_byte: Option<f64>,
    heap_bytes: Option<u64>,
    heap_allocs: Option<u64>,
    stack_bytes: Option<u64>,
    notes: Notes,
}

impl Parser {
    fn line(&mut self, number: usize, raw: &str) {
        match self.read(raw.trim()) {
            Reading::Understood => self.leftovers.understood_lines += 1,
            Reading::Unread(reason) => self.leftovers.unread(number, raw, reason),
            Reading::Measured(measured) => self.store(number, raw, *measured),
        }
    }

    fn read(&mut self, line: &str) -> Reading {
        if is_banner(line) {
            return Reading::Understood;
        }
        if line.eq_ignore_ascii_case("Symmetric Ciphers:") {
            self.pending_csv_kind = Some(Kind::Symmetric);
            return Reading::Understood;
        }
        if line.eq_ignore_ascii_case("Asymmetric Ciphers:") {
            self.pending_csv_kind = Some(Kind::Asymmetric);
            return Reading::Understood;
        }
        if let Some(reason) = failure(line) {
            return Reading::Unread(reason);
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.contains(&"took") {
            return match text_line(line, &self.context) {
                Ok(measured) => Reading::Measured(Box::new(measured)),
                Err(reason) => Reading::Unread(reason),
            };
        }
        if let Some(table) = CsvTable::from_header(line, self.pending_csv_kind.take()) {
            self.csv = Some(table);
            return Reading::Understood;
        }
        if line.contains(',') {
            return match &self.csv {
                Some(table) => match table.row(line) {
                    Some(Ok(measured)) => Reading::Measured(Box::new(measured)),
                    Some(Err(reason)) => Reading::Unread(reason),
                    None => Reading::Unread(LineError::NotInCsvTable),
                },
                None if line.starts_with("sym,") || line.starts_with("asym,") => {
                    Reading::Unread(LineError::MachineRowWithoutHeader)
                }
                None => Reading::Unread(LineError::CsvRowWithoutHeader),
            };
        }
        if is_summary(&tokens) {
            return Reading::Unread(LineError::SummaryLine);
        }
        Reading::Unread(LineError::NotBenchmarkOutput)
    }

    fn store(&mut self, number: usize, raw: &str, measured: Measured) {
        let Measured { label, identity, variant, mut figures } = measured;
        let named = match &identity {
            Identity::Symmetric { description } => symmetric_name(description),
            Identity::Asymmetric { name, strength, operation } => asymmetric_name(name, *strength, operation),
        };
        let (algorithm, operation, name_note) = match named {
            Ok(named) => named,
            Err(reason) => return self.leftovers.unread(number, raw, reason),
        };
        let mut notes = Notes::default();
        // A variant of a row (GCM without AAD, a hardware device's line, a
        // second GMAC table) is stored as its own row under the same names,
        // its note saying which variant it is; the first line read of a
        // pair stays first, so whatever shows one row per pair shows it.
        let marked = variant.is_some() || name_note.as_deref().is_some_and(|n| n.starts_with(VARIANT));
        if let Some(variant) = variant {
            notes.push(variant);
        }
        if !marked && !self.seen.insert(algorithm, operation) {
            notes.push(format!(
                "{VARIANT} a further line for {algorithm} {operation} (wolfCrypt's {label}); the first is the main row"
            ));
        }
        let mut result = bare_result(algorithm, operation);
        if let Some(note) = name_note {
            notes.push(note);
        }
        notes.0.append(&mut figures.notes.0);
        if let Some(cycles) = figures.cycles_per_op {
            result.cycles_per_op = Some(cycles);
            result.ticks_per_op = Some(cycles);
            result.tick_unit = Some("cycles".into());
        } else if let (Some(avg_ms), Some(clock)) = (figures.avg_ms, self.clock_hz) {
            // Whole cycles: the printed average's last digit (1 µs) is
            // already hundreds of cycles, so a fraction would be noise.
            result.cycles_per_op = Some((avg_ms * clock as f64 / 1000.0).round());
            notes.push(format!(
                "cycles per op derived from avg {avg_ms} ms × {clock} Hz (the clock given at import)"
            ));
        }
        result.iterations = figures.iterations;
        result.total_seconds = figures.total_seconds;
        result.avg_ms = figures.avg_ms;
        result.ops_per_sec = figures.ops_per_sec;
        result.min_ms = figures.min_ms;
        result.max_ms = figures.max_ms;
        result.bytes_per_sec = figures.bytes_per_sec;
        if let (None, Some(per_byte), Some(clock)) =
            (result.bytes_per_sec, figures.cycles_per_byte, self.clock_hz)
            && per_byte > 0.0
        {
            result.bytes_per_sec = Some(clock as f64 / per_byte);
            notes.push(format!(
                "throughput from {per_byte} cycles per byte at {clock} Hz (the clock given at import)"
            ));
        }
        result.heap_bytes = figures.heap_bytes;
        result.heap_allocs = figures.heap_allocs;
        result.stack_bytes = figures.stack_bytes;
        result.note = notes.finish();
        self.results.push(result);
    }
}

/// `"%sBenchmark %s failed: %d\n"` and `"%sBenchmark %s %s %d failed: %d\n"`.
fn failure(line: &str) -> Option<LineError> {
    let start = line.find("Benchmark ")?;
    let rest = &line[start + "Benchmark ".len()..];
    let (what, code) = rest.rsplit_once(" failed: ")?;
    Some(LineError::BenchmarkFailed { what: what.to_string(), code: code.to_string() })
}

/// The `-print` summary (`bench_stats_print`): `"%-16s%s %8.3f %s/s"` and
/// `"%-5s %4d %-9s %s %.3f ops/sec"`, each repeating a line above.
fn is_summary(tokens: &[&str]) -> bool {
    match tokens {
        [.., rate, unit] if unit.ends_with("/s") && decimal(rate).is_some() => tokens.len() >= 3,
        [.., rate, "ops/sec"] => decimal(rate).is_some() && tokens.len() >= 4,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
