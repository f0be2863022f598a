//! What the dashboard reads beyond runs and results: a run's live progress,
//! shared reports, and result rows across runs for the explorer.

use alloc::string::String;

use serde::{Deserialize, Serialize};

use crate::view::View;
use crate::{Algorithm, BenchResult, Operation, RunStatus, Source};

/// The data of a `progress` event on `GET /api/runs/{id}/events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunProgress {
    /// Operations finished, of `total` the board planned.
    pub done: u32,
    pub total: u32,
    /// The operation the board is measuring now (or measured last).
    pub algorithm: Algorithm,
    pub operation: Operation,
    /// Since the server started the run, board start-up included.
    pub elapsed_ms: u64,
    /// Time left at the pace so far; null until an operation has finished.
    pub eta_ms: Option<u64>,
}

impl RunProgress {
    /// Time left if the remaining operations take as long on average as the
    /// finished ones did. Operations differ widely (an RSA keygen against a
    /// hash), so this is a guide, and none is given before the first ends.
    pub fn eta_ms(done: u32, total: u32, elapsed_ms: u64) -> Option<u64> {
        if done == 0 {
            return None;
        }
        let left = u128::from(total.saturating_sub(done));
        let eta = u128::from(elapsed_ms) * left / u128::from(done);
        Some(u64::try_from(eta).unwrap_or(u64::MAX))
    }
}

/// The data of the `end` event that closes `GET /api/runs/{id}/events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEnd {
    pub status: RunStatus,
    pub error: Option<String>,
}

/// The body of `POST /api/reports`: a dashboard view to share. A view the
/// dashboard could not open (an unknown field, name or column) is refused
/// here, when it is shared, not when someone opens the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewReport {
    pub view: View,
}

/// A shared report as `GET /api/reports/{id}` answers it. Reports never
/// change once created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub id: String,
    pub view: View,
    /// RFC 3339, UTC.
    pub created_at: String,
}

/// The answer to `POST /api/reports`: the report's id and the dashboard
/// page that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportCreated {
    pub id: String,
    pub url: String,
}

impl ReportCreated {
    pub fn for_id(id: &str) -> Self {
        ReportCreated { id: id.into(), url: alloc::format!("/reports/{id}") }
    }
}

/// A report id is this many characters of [`REPORT_ID_ALPHABET`]: about 95
/// bits from the OS's random generator, so ids cannot be guessed or
/// enumerated, while staying short and URL-safe.
pub const REPORT_ID_LEN: usize = 16;
pub const REPORT_ID_ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Whether `text` has the shape of a report id, checked before any lookup.
pub fn is_report_id(text: &str) -> bool {
    text.len() == REPORT_ID_LEN && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// One result with the run it belongs to, as `GET /api/results` lists them
/// across runs: the result's fields flattened beside the run's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultRow {
    pub run_id: i64,
    pub board: String,
    pub source: Source,
    pub started_at: String,
    /// [`Build::label`](crate::Build::label) of the run's build.
    pub build_label: String,
    /// How the run ended (or that it has not yet): a row of a failed,
    /// incomplete or interrupted run is a figure of a run that did not
    /// finish as planned, and is marked wherever rows of many runs are shown.
    pub run_status: RunStatus,
    #[serde(flatten)]
    pub result: BenchResult,
}

/// Read through a JSON map rather than serde's `flatten`: a flattened
/// struct is buffered in serde's own content type, which cannot hold
/// serde_json's `arbitrary_precision` numbers (a crate anywhere in a build
/// can turn it on; defmt-decoder does in the server's), and every figure
/// would then fail as "invalid type: map, expected f64".
impl<'de> Deserialize<'de> for ResultRow {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        type Fields = serde_json::Map<String, serde_json::Value>;
        fn take<T: serde::de::DeserializeOwned, E: Error>(
            fields: &mut Fields,
            key: &'static str,
        ) -> Result<T, E> {
            let value = fields.remove(key).ok_or_else(|| E::missing_field(key))?;
            serde_json::from_value(value).map_err(E::custom)
        }
        let mut fields = Fields::deserialize(deserializer)?;
        Ok(ResultRow {
            run_id: take(&mut fields, "run_id")?,
            board: take(&mut fields, "board")?,
            source: take(&mut fields, "source")?,
            started_at: take(&mut fields, "started_at")?,
            build_label: take(&mut fields, "build_label")?,
            run_status: take(&mut fields, "run_status")?,
            result: serde_json::from_value(serde_json::Value::Object(fields)).map_err(D::Error::custom)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Clock, Measurement, Status, TickUnit};

    #[test]
    fn eta_follows_the_pace_so_far() {
        assert_eq!(RunProgress::eta_ms(0, 10, 5000), None);
        assert_eq!(RunProgress::eta_ms(2, 10, 1000), Some(4000));
        assert_eq!(RunProgress::eta_ms(10, 10, 1000), Some(0));
        assert_eq!(RunProgress::eta_ms(12, 10, 1000), Some(0), "a board that overcounts");
        assert_eq!(RunProgress::eta_ms(1, u32::MAX, u64::MAX), Some(u64::MAX));
    }

    #[test]
    fn report_ids_are_sixteen_base62_characters() {
        assert!(is_report_id("0aZ9bY8cX7dW6eV5"));
        assert!(!is_report_id("0aZ9bY8cX7dW6eV"), "too short");
        assert!(!is_report_id("0aZ9bY8cX7dW6eV5a"), "too long");
        assert!(!is_report_id("0aZ9bY8cX7dW6e-5"));
        assert!(!is_report_id("0aZ9bY8cX7dW6eé"), "16 bytes, but not ASCII");
        assert!(REPORT_ID_ALPHABET.iter().all(u8::is_ascii_alphanumeric));
    }

    #[test]
    fn a_result_row_is_flat_and_reads_back() {
        let m = Measurement {
            iterations: 2,
            total_ticks: 2000,
            min_ticks: 999,
            median_ticks: 1000,
            max_ticks: 1001,
            ..Measurement::untimed(Algorithm::MlKem512, Operation::Decaps, Status::Ok)
        };
        let result =
            BenchResult::from_measurement(&m, &Clock { ticks_per_second: 1000, unit: TickUnit::Cycles });
        let row = ResultRow {
            run_id: 7,
            board: "qemu-mps2-an386".into(),
            source: Source::Serial,
            started_at: "2025-01-01T00:00:00.000Z".into(),
            build_label: "firmware opt-s, libcrux-ml-kem 0.0.11".into(),
            run_status: RunStatus::Interrupted,
            result,
        };
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json["run_id"], 7);
        // The run's status beside the result's own, which says how one
        // measurement ended.
        assert_eq!(json["run_status"], "interrupted");
        assert_eq!(json["status"], "ok");
        assert_eq!(json["algorithm"], "ML-KEM-512");
        assert_eq!(json["avg_ms"], 1000.0);
        assert!(json["heap_bytes"].is_null());
        assert!(json.get("result").is_none(), "{json}");
        assert_eq!(serde_json::from_value::<ResultRow>(json.clone()).unwrap(), row);
        let text = serde_json::to_string(&row).unwrap();
        assert_eq!(serde_json::from_str::<ResultRow>(&text).unwrap(), row);
        for field in ["build_label", "run_status"] {
            let mut missing = json.clone();
            missing.as_object_mut().unwrap().remove(field);
            let error = alloc::format!("{}", serde_json::from_value::<ResultRow>(missing).unwrap_err());
            assert!(error.contains(field), "{error}");
        }
        for status in [RunStatus::Complete, RunStatus::Incomplete, RunStatus::Failed, RunStatus::Running] {
            let row = ResultRow { run_status: status, ..row.clone() };
            let text = serde_json::to_string(&row).unwrap();
            assert_eq!(serde_json::from_str::<ResultRow>(&text).unwrap(), row);
        }
    }

    #[test]
    fn a_report_view_is_a_view_and_nothing_else() {
        let report: NewReport =
            serde_json::from_str(r#"{"view": {"filter": {"families": ["pqc"]}}}"#).unwrap();
        assert_eq!(report.view.filter.families, [crate::Family::PostQuantum]);
        assert!(serde_json::from_str::<NewReport>(r#"{"view": {}, "id": "x"}"#).is_err());
        assert!(serde_json::from_str::<NewReport>(r#"{"view": {"tab": "explorer"}}"#).is_err());
        assert_eq!(ReportCreated::for_id("abc").url, "/reports/abc");
    }
}
