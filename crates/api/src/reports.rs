//! Shared reports: a dashboard view saved under an unguessable id.

use alloc::string::String;

use pqbench_valid::{LabelError, MAX_BOARD_ID_LEN, check_characters, check_label};
use serde::{Deserialize, Serialize};

use pqbench_view::View;

/// The longest title a report may have: a heading, not a document.
pub const MAX_REPORT_TITLE: usize = 200;

/// Why a report's view was refused: a text in it that is no label.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} {why}")]
pub struct ReportError {
    /// Where in the view, as its JSON names it (`view.title`).
    pub field: &'static str,
    pub why: LabelError,
}

impl NewReport {
    /// Every text of the view is label text (no controls, bidirectional
    /// overrides or invisible characters), as whoever opens the link reads
    /// it: the title, at most [`MAX_REPORT_TITLE`] bytes, the boards it
    /// names, as board ids are, and its builds (bounded by the request's
    /// size).
    pub fn check(&self) -> Result<(), ReportError> {
        let view = &self.view;
        let refused = |field| move |why| ReportError { field, why };
        if let Some(title) = &view.title {
            check_label(title, MAX_REPORT_TITLE).map_err(refused("view.title"))?;
        }
        if let Some(history) = &view.history {
            check_label(&history.board, MAX_BOARD_ID_LEN).map_err(refused("view.history.board"))?;
        }
        if let Some(matrix) = &view.matrix {
            for board in &matrix.boards {
                check_label(board, MAX_BOARD_ID_LEN).map_err(refused("view.matrix.boards"))?;
            }
            for build in &matrix.builds {
                check_characters(build).map_err(refused("view.matrix.builds"))?;
            }
        }
        Ok(())
    }
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
