//! Results as CSV text, the columns and spelling of `pqbench export
//! --format csv`, so a table downloaded from the dashboard and one exported
//! on the command line read the same.

use alloc::format;
use alloc::string::{String, ToString};

use pqbench_types::BenchResult;

/// The columns, in `BenchResult`'s field order (as the server's CSV writer
/// names them).
pub const CSV_FIELDS: &[&str] = &[
    "algorithm",
    "operation",
    "status",
    "iterations",
    "total_seconds",
    "avg_ms",
    "ops_per_sec",
    "min_ms",
    "median_ms",
    "max_ms",
    "cycles_per_op",
    "ticks_per_op",
    "tick_unit",
    "bytes_per_sec",
    "heap_bytes",
    "heap_allocs",
    "stack_bytes",
    "note",
    "code_bytes",
    "stack_depth_bytes",
    "p10_ms",
    "p90_ms",
    "p99_ms",
    "key_format",
];

/// A header line and a line per row. A figure not measured is an empty
/// field, never 0.
pub fn csv<'r>(rows: impl IntoIterator<Item = &'r BenchResult>) -> String {
    let mut out = CSV_FIELDS.join(",");
    out.push('\n');
    for r in rows {
        let number = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let integer = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        let fields = [
            quoted(r.algorithm.as_str()),
            quoted(r.operation.as_str()),
            quoted(r.status.as_str()),
            integer(r.iterations),
            number(r.total_seconds),
            number(r.avg_ms),
            number(r.ops_per_sec),
            number(r.min_ms),
            number(r.median_ms),
            number(r.max_ms),
            number(r.cycles_per_op),
            number(r.ticks_per_op),
            r.tick_unit.as_deref().map(quoted).unwrap_or_default(),
            number(r.bytes_per_sec),
            integer(r.heap_bytes),
            integer(r.heap_allocs),
            integer(r.stack_bytes),
            r.note.as_deref().map(quoted).unwrap_or_default(),
            integer(r.code_bytes),
            integer(r.stack_depth_bytes),
            number(r.p10_ms),
            number(r.p90_ms),
            number(r.p99_ms),
            r.key_format.map(|k| k.as_str().to_string()).unwrap_or_default(),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// What a spreadsheet takes a cell to be a formula for when it begins with
/// it (OWASP's "CSV injection"): `=HYPERLINK(...)` in a note would be a
/// live link in whoever opens the download.
const FORMULA_STARTS: &[char] = &['=', '+', '-', '@', '\t', '\r'];

/// A text cell: one a spreadsheet would run as a formula gets a leading
/// `'` (shown by no spreadsheet, and read back as the text it was), and
/// then RFC 4180: a field with a comma, quote or line break, or one so
/// neutralised, is quoted, with quotes doubled. Every text column passes
/// through here; figures are numbers the CSV writes itself.
fn quoted(text: &str) -> String {
    let formula = text.starts_with(FORMULA_STARTS);
    if formula || text.contains([',', '"', '\n', '\r']) {
        let apostrophe = if formula { "'" } else { "" };
        format!("\"{apostrophe}{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use pqbench_types::{Algorithm, Operation, Status};

    #[test]
    fn columns_follow_the_fields_and_missing_figures_stay_empty() {
        let result = BenchResult {
            note: Some("does not fit (needs 72,876 bytes), \"stack\"".into()),
            ..BenchResult::unmeasured(Algorithm::MlDsa44, Operation::Sign, Status::DoesNotFit)
        };
        // The fields serde names, in order, are the columns.
        let json = serde_json::to_string(&result).unwrap();
        let mut at = 0;
        for field in CSV_FIELDS {
            let found = json[at..].find(&format!("\"{field}\":")).expect(field);
            at += found;
        }
        let mut ok = result.clone();
        ok.status = Status::Ok;
        ok.ops_per_sec = Some(208.5);
        ok.stack_bytes = Some(0);
        ok.note = None;
        let text = csv(vec![&result, &ok]);
        let lines: vec::Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], CSV_FIELDS.join(","));
        assert_eq!(
            lines[1],
            "ML-DSA-44,sign,does_not_fit,,,,,,,,,,,,,,,\"does not fit (needs 72,876 bytes), \"\"stack\"\"\",,,,,,"
        );
        assert_eq!(lines[2], "ML-DSA-44,sign,ok,,,,208.5,,,,,,,,,,0,,,,,,,");
        ok.code_bytes = Some(10_872);
        assert!(csv(vec![&ok]).ends_with(",0,,10872,,,,,\n"));
        ok.stack_depth_bytes = Some(30_104);
        assert!(csv(vec![&ok]).ends_with(",0,,10872,30104,,,,\n"));
        ok.p90_ms = Some(4.8);
        ok.key_format = Some(pqbench_types::KeyFormat::Encoded);
        assert!(csv(vec![&ok]).ends_with(",10872,30104,,4.8,,encoded\n"));
    }

    #[test]
    fn a_cell_a_spreadsheet_would_run_as_a_formula_is_neutralised() {
        for (note, cell) in [
            (
                "=HYPERLINK(\"http://x.example\",\"open\")",
                "\"'=HYPERLINK(\"\"http://x.example\"\",\"\"open\"\")\"",
            ),
            ("+1+1", "\"'+1+1\""),
            ("-2+3", "\"'-2+3\""),
            ("@SUM(A1)", "\"'@SUM(A1)\""),
            ("\t=1", "\"'\t=1\""),
            ("\r=1", "\"'\r=1\""),
            ("a = b", "a = b"),
        ] {
            let result = BenchResult {
                note: Some(note.into()),
                ..BenchResult::unmeasured(Algorithm::MlKem768, Operation::Keygen, Status::Failed)
            };
            let text = csv(vec![&result]);
            let row = text.lines().nth(1).unwrap_or_default();
            assert!(text.ends_with(&format!(",{cell},,,,,,\n")), "{note:?}: {row}");
        }
    }
}
