//! Shared reports: a dashboard view saved under an unguessable id.

use alloc::string::String;

use serde::{Deserialize, Serialize};

use pqbench_view::View;

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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_report_view_is_a_view_and_nothing_else() {
        let report: NewReport =
            serde_json::from_str(r#"{"view": {"filter": {"families": ["pqc"]}}}"#).unwrap();
        assert_eq!(report.view.filter.families, [pqbench_types::Family::PostQuantum]);
        assert!(serde_json::from_str::<NewReport>(r#"{"view": {}, "id": "x"}"#).is_err());
        assert!(serde_json::from_str::<NewReport>(r#"{"view": {"tab": "explorer"}}"#).is_err());
        assert_eq!(ReportCreated::for_id("abc").url, "/reports/abc");
    }
}
