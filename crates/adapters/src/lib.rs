//! Parsers ("adapters") for benchmark logs that others publish, so that their
//! figures land in pqbench's store beside its own runs.
//!
//! - [`wolfcrypt`]: the output of wolfSSL's `wolfcrypt/benchmark/benchmark.c`
//!   in its text, `-csv` and machine-parseable forms.
//! - [`pqm4`]: pqm4's `benchmarks.md` (and `benchmarks.csv`), written by its
//!   `convert_benchmarks.py`.
//!
//! A parser never drops a line silently: every non-blank line becomes a
//! result, is counted as understood (banners, headers, table rules), or is
//! returned in [`Log::unread`] with its line number and why. Figures are
//! stored as printed (the text is parsed, not recomputed), and a figure
//! whose text is not a well-formed number sends its line to `unread` rather
//! than into the store. No input makes a parser panic (see `fuzz/`).

mod number;
pub mod pqm4;
pub mod wolfcrypt;

use std::collections::BTreeSet;

pub use pqbench_api::LogFormat as Format;
pub use pqbench_types::BenchResult;
use pqbench_types::{Algorithm, Operation, Status};
use sha2::{Digest, Sha256};

/// What a parser read from one log.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Log {
    pub format: Format,
    /// The producer's version where the log prints it (wolfSSL's banner, e.g. "5.7.2").
    pub version: Option<String>,
    /// Runs to store: wolfCrypt gives exactly one group (implementation None);
    /// pqm4 one group per implementation (clean, m4f, m4fspeed, m4fstack, ...), in order of first appearance.
    pub groups: Vec<Group>,
    /// Every non-blank line that did not become a result, in file order — never dropped silently.
    pub unread: Vec<UnreadLine>,
    /// Lines that were understood but carry no result (banners, headers, "Benchmark complete", table rules): count only.
    pub understood_lines: usize,
}

impl Log {
    /// Every result of every group.
    pub fn results(&self) -> impl Iterator<Item = &BenchResult> {
        self.groups.iter().flat_map(|g| g.results.iter())
    }
}

/// The results of one implementation (pqm4) or of the whole log (wolfCrypt).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Group {
    pub implementation: Option<String>,
    pub results: Vec<BenchResult>,
}

/// A line that gave no result, and why, for a person to read: the API's
/// own, so an import's preview shows it as the parser made it. Its `line`
/// is 1-based, counting LF, CRLF and a lone CR each as one line end.
pub use pqbench_api::UnreadLine;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ParseError {
    #[error("not one {} result line in this text: probably the wrong format or file", format.title())]
    NothingRecognized { format: Format },
    #[error("the log is too large: {size} {unit}, more than the {limit} {unit} an import reads")]
    TooLarge { size: usize, limit: usize, unit: &'static str },
}

/// The largest log an import reads. wolfCrypt's full run is about 10 KiB
/// and pqm4's benchmarks.md about 60 KiB; the bounds keep a mistaken upload
/// (a firmware image, a database) from costing the server much.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
pub const MAX_LINES: usize = 100_000;

/// Parses `text` as `format`. `clock_hz`: the CPU clock the user gives.
/// wolfCrypt: with it, derive cycles_per_op = avg seconds × clock (and say so
/// in note). pqm4: its figures are cycles; with a clock, derive
/// avg_ms/min_ms/max_ms/ops_per_sec from them; without, time figures stay None.
pub fn parse(format: Format, text: &str, clock_hz: Option<u64>) -> Result<Log, ParseError> {
    match format {
        Format::Wolfcrypt => wolfcrypt::parse(text, clock_hz),
        Format::Pqm4 => pqm4::parse(text, clock_hz),
    }
}

/// Content identity for duplicate detection: lowercase hex SHA-256 of the
/// text with CRLF/CR → LF, trailing whitespace of each line removed, and
/// leading/trailing blank lines removed. Same content saved differently →
/// same digest.
pub fn digest(text: &str) -> String {
    let lines: Vec<&str> = split_lines(text).map(str::trim_end).collect();
    let first = lines.iter().position(|l| !l.is_empty());
    let last = lines.iter().rposition(|l| !l.is_empty());
    let canonical = match (first, last) {
        (Some(first), Some(last)) => lines[first..=last].join("\n"),
        _ => String::new(),
    };
    Sha256::digest(canonical.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Lines of `text`, each of LF, CRLF and a lone CR ending one (logs copied
/// from a serial terminal often carry CRs, sometimes alone).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\n', '\r']) {
            Some(end) => {
                let skip = if current[end..].starts_with("\r\n") { 2 } else { 1 };
                // A final line end ends the last line; it starts no other.
                rest = Some(&current[end + skip..]).filter(|r| !r.is_empty());
                Some(&current[..end])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// The non-blank lines of a log with their 1-based numbers, after checking
/// its size.
fn numbered_lines(text: &str) -> Result<Vec<(usize, &str)>, ParseError> {
    if text.len() > MAX_BYTES {
        return Err(ParseError::TooLarge { size: text.len(), limit: MAX_BYTES, unit: "bytes" });
    }
    let mut lines = Vec::new();
    for (index, line) in split_lines(text).enumerate() {
        if index >= MAX_LINES {
            let total = split_lines(text).count();
            return Err(ParseError::TooLarge { size: total, limit: MAX_LINES, unit: "lines" });
        }
        if !line.trim().is_empty() {
            lines.push((index + 1, line));
        }
    }
    Ok(lines)
}

/// A result with only its names: every figure None until a parser fills it.
fn bare_result(algorithm: Algorithm, operation: Operation) -> BenchResult {
    BenchResult::unmeasured(algorithm, operation, Status::Ok)
}

/// The notes on a result, joined in the order they were added.
#[derive(Default)]
struct Notes(Vec<String>);

impl Notes {
    fn push(&mut self, note: impl Into<String>) {
        self.0.push(note.into());
    }

    fn finish(self) -> Option<String> {
        (!self.0.is_empty()).then(|| self.0.join("; "))
    }
}

/// Lines a parser did not turn into results, and the count of those it
/// understood without a result.
#[derive(Default)]
struct Leftovers {
    unread: Vec<UnreadLine>,
    understood_lines: usize,
}

impl Leftovers {
    fn unread(&mut self, line: usize, text: &str, reason: impl std::fmt::Display) {
        let line = u64::try_from(line).unwrap_or(u64::MAX);
        self.unread.push(UnreadLine { line, text: text.to_string(), reason: reason.to_string() });
    }
}

/// The (algorithm, operation) pairs a group already holds: the dashboard
/// keys a run's rows by that pair, so a group keeps one row per pair.
#[derive(Default)]
struct Seen(BTreeSet<(Algorithm, Operation)>);

impl Seen {
    /// Records the pair; false when it was there already.
    fn insert(&mut self, algorithm: Algorithm, operation: Operation) -> bool {
        self.0.insert((algorithm, operation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_crlf_and_lone_cr() {
        let lines: Vec<&str> = split_lines("a\r\nb\rc\nd").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        let lines: Vec<&str> = split_lines("a\n").collect();
        assert_eq!(lines, ["a"]);
        let lines: Vec<&str> = split_lines("a\n\n").collect();
        assert_eq!(lines, ["a", ""]);
        assert_eq!(split_lines("").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn digest_ignores_how_the_text_was_saved() {
        let lf = "wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)\nRNG 425 KiB took 1.039 seconds, 409.047 KiB/s\n";
        let crlf = "\r\n\r\nwolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)  \r\nRNG 425 KiB took 1.039 seconds, 409.047 KiB/s\t\r\n\r\n";
        let cr = "wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)\rRNG 425 KiB took 1.039 seconds, 409.047 KiB/s";
        assert_eq!(digest(lf), digest(crlf));
        assert_eq!(digest(lf), digest(cr));
        let changed = lf.replace("409.047", "409.048");
        assert_ne!(digest(lf), digest(&changed));
        // Leading spaces are content (column alignment), unlike trailing ones.
        assert_ne!(digest(lf), digest(&lf.replace("RNG", " RNG")));
        let hex = digest(lf);
        assert_eq!(hex.len(), 64);
        assert!(hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        // The empty text's digest is SHA-256 of nothing.
        assert_eq!(digest("\n \r\n"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn formats_have_names() {
        for &format in Format::ALL {
            assert_eq!(Format::from_name(format.as_str()), Some(format));
        }
        assert_eq!(Format::from_name("WolfCrypt"), None);
        assert_eq!(serde_json::to_string(&Format::Pqm4).unwrap(), "\"pqm4\"");
    }

    #[test]
    fn oversized_logs_are_refused() {
        let big = "x".repeat(MAX_BYTES + 1);
        assert_eq!(
            parse(Format::Wolfcrypt, &big, None),
            Err(ParseError::TooLarge { size: MAX_BYTES + 1, limit: MAX_BYTES, unit: "bytes" })
        );
        let many = "\n".repeat(MAX_LINES + 5);
        assert!(matches!(parse(Format::Pqm4, &many, None), Err(ParseError::TooLarge { unit: "lines", .. })));
    }
}
