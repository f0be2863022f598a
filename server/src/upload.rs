//! Checks a browser's or host's upload before anything is stored.

use pqbench_types::{Clock, RunStatus, Source, TickUnit, Upload};

use crate::store::NewRun;

/// Bounds on what one upload may carry.
pub const MAX_MEASUREMENTS: usize = 1000;
pub const MAX_BOARD_LEN: usize = 128;
pub const MAX_BUILD_JSON: usize = 16 * 1024;
pub const MAX_ITERATIONS: u32 = 100_000_000;

/// Turns an upload into a run and its clock, or says what is wrong with it.
pub fn validate(upload: &Upload) -> Result<(NewRun, Clock), String> {
    let prefix = match upload.source {
        Source::Browser => "browser:",
        Source::Native => "native:",
        other => {
            return Err(format!("uploads come from a browser or a native run, not {:?}", other.as_str()));
        }
    };
    let name = upload
        .board
        .strip_prefix(prefix)
        .ok_or_else(|| format!("a {} upload's board starts with {prefix:?}", upload.source.as_str()))?;
    if name.is_empty() || upload.board.len() > MAX_BOARD_LEN || !name.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!("board must be {prefix}<name>, printable, at most {MAX_BOARD_LEN} bytes"));
    }
    let unit = TickUnit::parse(&upload.tick_unit)
        .map_err(|_| format!("unknown tick_unit {:?}", upload.tick_unit))?;
    if upload.ticks_per_second == 0 {
        return Err("ticks_per_second must be positive".into());
    }
    if upload.measurements.is_empty() || upload.measurements.len() > MAX_MEASUREMENTS {
        return Err(format!("an upload carries 1 to {MAX_MEASUREMENTS} measurements"));
    }
    for (n, m) in upload.measurements.iter().enumerate() {
        if !m.is_consistent() || m.iterations > MAX_ITERATIONS {
            return Err(format!(
                "measurement {} ({} {}) has impossible figures",
                n + 1,
                m.algorithm,
                m.operation
            ));
        }
    }
    let build_size = serde_json::to_string(&upload.build).map(|s| s.len()).unwrap_or(usize::MAX);
    if build_size > MAX_BUILD_JSON {
        return Err(format!("build description is larger than {MAX_BUILD_JSON} bytes"));
    }
    let run = NewRun {
        status: RunStatus::Complete,
        source: upload.source,
        board: upload.board.clone(),
        clock_hz: upload.clock_hz,
        build: upload.build.clone(),
        settings: None,
    };
    Ok((run, Clock { ticks_per_second: upload.ticks_per_second, unit }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pqbench_types::{Algorithm, Build, Measurement, Operation, Status};

    fn upload() -> Upload {
        Upload {
            source: Source::Browser,
            board: "browser:1a2b3c4d".into(),
            ticks_per_second: 1_000_000_000,
            tick_unit: "ns".into(),
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
        }
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
        assert!(validate(&u).unwrap_err().contains("starts with"));
        let mut u = upload();
        u.source = Source::Serial;
        assert!(validate(&u).is_err());
        let mut u = upload();
        u.tick_unit = "furlongs".into();
        assert!(validate(&u).unwrap_err().contains("tick_unit"));
        let mut u = upload();
        u.measurements[0].min_ticks = 500;
        assert!(validate(&u).unwrap_err().contains("impossible"));
        let mut u = upload();
        u.measurements.clear();
        assert!(validate(&u).is_err());
        let mut u = upload();
        u.board = format!("browser:{}", "x".repeat(200));
        assert!(validate(&u).is_err());
    }
}
