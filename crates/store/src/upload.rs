//! Checks a browser's or host's upload before anything is stored: the
//! rules that need no server are `Upload::check`'s (shared with the fuzz
//! target); this turns a checked upload into the run the store writes.

use pqbench_api::{Upload, UploadError};
use pqbench_types::{Clock, RunStatus};
use sha2::{Digest, Sha256};

use crate::NewRun;

/// Bounds on what one upload may carry, as `Upload::check` applies them.
pub use pqbench_api::uploads::{MAX_BUILD_JSON, MAX_ITERATIONS, MAX_MEASUREMENTS};

/// A result's note: what the server derived from its counts (a batch, a
/// failed self-test), then what its producer said of it.
pub fn with_note(derived: Option<String>, given: &str) -> String {
    match derived {
        Some(derived) => format!("{derived}; {given}"),
        None => given.to_owned(),
    }
}

/// An upload's identity, which the store keeps so that the same upload sent
/// twice is stored once: the SHA-256 of its content as parsed (so neither
/// white space nor the order of its fields makes another), in hex. Two real
/// runs never share one: a browser's or host's ticks are clock readings.
pub fn digest(upload: &Upload) -> String {
    // Serialising a parsed value writes its fields in their declared order.
    let content = serde_json::to_vec(upload).unwrap_or_default();
    Sha256::digest(&content).iter().map(|b| format!("{b:02x}")).collect()
}

/// Turns an upload into a run and its clock, or says what is wrong with it.
pub fn validate(upload: &Upload) -> Result<(NewRun, Clock), UploadError> {
    let clock = upload.check()?;
    let run = NewRun {
        status: RunStatus::Complete,
        source: upload.source,
        board: upload.board.clone(),
        clock_hz: upload.clock_hz,
        build: upload.build.clone(),
        settings: None,
        host: None,
    };
    Ok((run, clock))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pqbench_types::{Algorithm, Build, Measurement, Operation, Source, Status, TickUnit};

    fn upload() -> Upload {
        Upload {
            source: Source::Browser,
            board: "browser:1a2b3c4d".into(),
            ticks_per_second: 1_000_000_000,
            tick_unit: TickUnit::Nanoseconds,
            clock_hz: None,
            build: Build::default(),
            measurements: vec![Measurement {
                iterations: 2,
                total_ticks: 200,
                min_ticks: 90,
                median_ticks: 90,
                max_ticks: 110,
                ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
            }],
            notes: vec![],
        }
    }

    #[test]
    fn a_producer_s_note_follows_the_derived_one() {
        assert_eq!(with_note(None, "awaited"), "awaited");
        assert_eq!(with_note(Some("batched".into()), "awaited"), "batched; awaited");
    }

    #[test]
    fn a_sound_upload_passes() {
        let (run, clock) = validate(&upload()).unwrap();
        assert_eq!(run.board, "browser:1a2b3c4d");
        assert_eq!(clock.unit, TickUnit::Nanoseconds);
    }

    #[test]
    fn bad_uploads_say_what_is_wrong() {
        let mut u = upload();
        u.board = "qemu-mps2-an386".into();
        assert!(validate(&u).unwrap_err().to_string().contains("starts with"));
        let mut u = upload();
        u.source = Source::Serial;
        assert!(validate(&u).is_err());
        let mut u = upload();
        u.tick_unit = TickUnit::Cycles;
        assert!(validate(&u).unwrap_err().to_string().contains("tick_unit"));
        let mut u = upload();
        u.measurements[0].min_ticks = 500;
        assert!(validate(&u).unwrap_err().to_string().contains("impossible"));
        let mut u = upload();
        u.measurements.clear();
        assert!(validate(&u).is_err());
        let mut u = upload();
        u.board = format!("browser:{}", "x".repeat(pqbench_api::MAX_BOARD_ID_LEN));
        assert!(validate(&u).is_err());
    }
}
