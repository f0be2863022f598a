//! An upload (a run measured in a browser or on a host, sent whole) and
//! the bounds on what pqbench takes from outside (an upload, a clock a
//! user types in), checked before anything is stored.
//!
//! The store keeps counts as signed 64-bit integers and figures as finite
//! doubles, and the dashboard divides by them: each bound here keeps one of
//! those from overflowing, turning into infinity or NaN, or holding a
//! request's worth of memory. They are shared so that the server and the
//! fuzz target check the very same rules.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::{Algorithm, BenchResult, Build, Clock, Measurement, Operation, Source, TickUnit};
use pqbench_valid::{BoardId, LabelError, MAX_BOARD_ID_LEN, check_characters};
use serde::{Deserialize, Serialize};

/// A run measured elsewhere (a browser, a native host) and sent whole to
/// `POST /api/uploads`: raw measurements and the clock they were taken
/// with, so the server derives the shown figures exactly as for a board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Upload {
    pub source: Source,
    /// `browser:<hash>` or `native:<host>`.
    pub board: String,
    pub ticks_per_second: u64,
    /// As [`TickUnit`]'s text: `ns` for a browser's or host's clock.
    pub tick_unit: TickUnit,
    pub clock_hz: Option<u64>,
    pub build: Build,
    pub measurements: Vec<Measurement>,
    /// What the producer says of a measurement that its counts cannot:
    /// why an operation was skipped or failed (a browser's WebCrypto that
    /// lacks an algorithm, a JavaScript library that disagrees with
    /// pqbench's own outputs), or what a time includes (a promise's round
    /// trip). Stored after the note the server derives, never instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<UploadNote>,
}

/// A note on one measurement of an upload, by its algorithm and operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadNote {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub note: String,
}

impl Upload {
    /// The producer's note on `(algorithm, operation)`, if it gave one.
    pub fn note_of(&self, algorithm: Algorithm, operation: Operation) -> Option<&str> {
        self.notes
            .iter()
            .find(|n| n.algorithm == algorithm && n.operation == operation)
            .map(|n| n.note.as_str())
    }
}

/// Above any real CPU's clock, well below where a cycle count derived from
/// it would lose precision.
pub const MAX_CLOCK_HZ: u64 = 100_000_000_000;
/// A picosecond tick: finer than any timer a browser or host offers, and
/// it keeps `ops/s = iterations * ticks_per_second / total` finite.
pub const MAX_TICKS_PER_SECOND: u64 = 1_000_000_000_000;
/// The store keeps tick counts as signed 64-bit integers.
pub const MAX_TICKS: u64 = i64::MAX as u64;
/// One upload is one run of the suite in a browser or on a host: every
/// (algorithm, operation) at most once, and only the suite's pairs (40
/// today; `pqbench-collect` holds the suite under a tenth of this). Not
/// every name × every operation: the vocabulary also names what published
/// logs measure, which an import stores and no upload carries, so it grows
/// without moving this bound. It keeps one request's rows, written in one
/// transaction, small.
pub const MAX_MEASUREMENTS: usize = 1000;
/// Calls of one operation in one measurement.
pub const MAX_ITERATIONS: u32 = 100_000_000;
/// Heap and stack in one operation: more than any machine pqbench runs on.
/// The wire and upload types hold them in 32 bits, so this holds by
/// construction today; it is stated so that a wider type keeps the bound.
pub const MAX_MEMORY_BYTES: u64 = 1 << 40;
/// The build description as JSON; it is stored and sent with every run.
pub const MAX_BUILD_JSON: usize = 16 * 1024;
/// Any one text of a build (a field, a crate's name or version, an extra
/// key or value): a browser's user agent fits many times over.
pub const MAX_BUILD_TEXT: usize = 1024;
/// One producer's note: a sentence or two, shown in a table cell.
pub const MAX_NOTE_LEN: usize = 400;
/// How much of a build field's name (a map's key) a refusal quotes.
const MAX_FIELD_NAME_SHOWN: usize = 80;

/// Why an upload was refused: a sentence for the person who sent it (the
/// server's 422 says it as is), naming the field and the bound.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UploadError {
    #[error("uploads come from a browser or a native run, not {:?}", .0.as_str())]
    Source(Source),
    #[error("a {} upload's board starts with {prefix:?}", from.as_str())]
    BoardPrefix { from: Source, prefix: &'static str },
    #[error("board must be {prefix}<name>, printable, at most {MAX_BOARD_ID_LEN} bytes")]
    BoardName { prefix: &'static str },
    #[error(
        "a {} upload's clock is in nanoseconds (tick_unit \"ns\"), not \"{tick_unit}\": only a board with a \
         cycle counter reports cycles",
        from.as_str()
    )]
    NotNanoseconds { from: Source, tick_unit: TickUnit },
    #[error("ticks_per_second must be positive")]
    NoTicks,
    #[error("ticks_per_second is {0}, above {MAX_TICKS_PER_SECOND} (a picosecond tick)")]
    TicksPerSecond(u64),
    #[error("clock_hz must be 1 to {MAX_CLOCK_HZ} Hz, not {0}")]
    ClockHz(u64),
    #[error("an upload carries 1 to {MAX_MEASUREMENTS} measurements")]
    MeasurementCount,
    #[error("measurement {n} ({algorithm} {operation}) is measured twice in one upload")]
    MeasuredTwice { n: usize, algorithm: Algorithm, operation: Operation },
    #[error("measurement {n} ({algorithm} {operation}): {why}")]
    Measurement { n: usize, algorithm: Algorithm, operation: Operation, why: MeasurementError },
    #[error("build.{field} is longer than {MAX_BUILD_TEXT} bytes")]
    BuildTextLength { field: String },
    #[error("build.{field} {why}")]
    BuildText { field: String, why: LabelError },
    #[error("build description is larger than {MAX_BUILD_JSON} bytes")]
    BuildJson,
    #[error("the note on {algorithm} {operation} names no measurement of this upload")]
    NoteOnNothing { algorithm: Algorithm, operation: Operation },
    #[error("the note on {algorithm} {operation} is given twice")]
    NoteTwice { algorithm: Algorithm, operation: Operation },
    #[error("the note on {algorithm} {operation} must be 1 to {MAX_NOTE_LEN} bytes of text on one line")]
    NoteLength { algorithm: Algorithm, operation: Operation },
    #[error("the note on {algorithm} {operation} {why}")]
    NoteText { algorithm: Algorithm, operation: Operation, why: LabelError },
}

/// What is wrong with one measurement of an upload.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasurementError {
    #[error("{0} iterations, above {MAX_ITERATIONS}")]
    Iterations(u32),
    #[error("{field} is {count}, above {MAX_TICKS}")]
    Ticks { field: &'static str, count: u64 },
    #[error(
        "impossible figures (a timed result needs iterations, min <= median <= max \
         and a total between iterations x min and iterations x max; an untimed one none)"
    )]
    Impossible,
    #[error("{field} is {bytes:?}, above {MAX_MEMORY_BYTES}")]
    Memory { field: &'static str, bytes: Option<u32> },
    #[error("its {0} would not be a finite, non-negative number")]
    Unsound(&'static str),
}

impl Upload {
    /// Checks everything about an upload that needs no server (names,
    /// bounds, consistency, derived figures) and returns its clock, or
    /// says, for the person who sent it, what is wrong.
    pub fn check(&self) -> Result<Clock, UploadError> {
        let prefix = match self.source {
            Source::Browser => "browser:",
            Source::Native => "native:",
            other => return Err(UploadError::Source(other)),
        };
        let name =
            self.board.strip_prefix(prefix).ok_or(UploadError::BoardPrefix { from: self.source, prefix })?;
        if name.is_empty()
            || BoardId::new(self.board.as_str()).is_err()
            || !name.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(UploadError::BoardName { prefix });
        }
        let unit = self.tick_unit;
        // A browser's and a host's clock count time. Cycles come only from a
        // board's cycle counter (the host derives them for a chip whose
        // clock it knows); a figure shown as cycles must be cycles.
        if unit != TickUnit::Nanoseconds {
            return Err(UploadError::NotNanoseconds { from: self.source, tick_unit: unit });
        }
        if self.ticks_per_second == 0 {
            return Err(UploadError::NoTicks);
        }
        if self.ticks_per_second > MAX_TICKS_PER_SECOND {
            return Err(UploadError::TicksPerSecond(self.ticks_per_second));
        }
        if let Some(hz) = self.clock_hz
            && !(1..=MAX_CLOCK_HZ).contains(&hz)
        {
            return Err(UploadError::ClockHz(hz));
        }
        if self.measurements.is_empty() || self.measurements.len() > MAX_MEASUREMENTS {
            return Err(UploadError::MeasurementCount);
        }
        let clock = Clock { ticks_per_second: self.ticks_per_second, unit };
        let mut seen = BTreeSet::<(Algorithm, Operation)>::new();
        for (n, m) in (1..).zip(&self.measurements) {
            let (algorithm, operation) = (m.algorithm, m.operation);
            if !seen.insert((algorithm, operation)) {
                return Err(UploadError::MeasuredTwice { n, algorithm, operation });
            }
            check_measurement(m, &clock).map_err(|why| UploadError::Measurement {
                n,
                algorithm,
                operation,
                why,
            })?;
        }
        check_build(&self.build)?;
        self.check_notes(&seen)?;
        Ok(clock)
    }

    /// Each note names a measurement of this upload, once, in a short line
    /// of printable text (it is shown as is).
    fn check_notes(&self, measured: &BTreeSet<(Algorithm, Operation)>) -> Result<(), UploadError> {
        let mut noted = BTreeSet::new();
        for note in &self.notes {
            let (algorithm, operation) = (note.algorithm, note.operation);
            if !measured.contains(&(algorithm, operation)) {
                return Err(UploadError::NoteOnNothing { algorithm, operation });
            }
            if !noted.insert((algorithm, operation)) {
                return Err(UploadError::NoteTwice { algorithm, operation });
            }
            if note.note.trim().is_empty() || note.note.len() > MAX_NOTE_LEN {
                return Err(UploadError::NoteLength { algorithm, operation });
            }
            check_characters(&note.note).map_err(|why| UploadError::NoteText {
                algorithm,
                operation,
                why,
            })?;
        }
        Ok(())
    }
}

/// The bounds and consistency of one measurement timed by `clock`: what an
/// upload's measurements pass, and an agent's results too.
pub fn check_measurement(m: &Measurement, clock: &Clock) -> Result<(), MeasurementError> {
    if m.iterations > MAX_ITERATIONS {
        return Err(MeasurementError::Iterations(m.iterations));
    }
    let ticks = [
        ("total_ticks", m.total_ticks),
        ("min_ticks", m.min_ticks),
        ("median_ticks", m.median_ticks),
        ("max_ticks", m.max_ticks),
        ("stdev_ticks", m.stdev_ticks.unwrap_or(0)),
        ("p10_ticks", m.p10_ticks.unwrap_or(0)),
        ("p90_ticks", m.p90_ticks.unwrap_or(0)),
        ("p99_ticks", m.p99_ticks.unwrap_or(0)),
    ];
    if let Some(&(field, count)) = ticks.iter().find(|(_, count)| *count > MAX_TICKS) {
        return Err(MeasurementError::Ticks { field, count });
    }
    if !m.is_consistent() {
        return Err(MeasurementError::Impossible);
    }
    let memory = [("heap_bytes", m.heap_bytes), ("stack_bytes", m.stack_bytes)];
    if let Some(&(field, bytes)) =
        memory.iter().find(|(_, b)| b.is_some_and(|b| u64::from(b) > MAX_MEMORY_BYTES))
    {
        return Err(MeasurementError::Memory { field, bytes });
    }
    let result = BenchResult::from_measurement(m, clock);
    if let Some(figure) = result.unsound_figure() {
        return Err(MeasurementError::Unsound(figure));
    }
    Ok(())
}

/// Every text of a build bounded and a label (`pqbench_valid::check_label`),
/// and the whole bounded: an upload's build, and an agent's board's too.
pub fn check_build(build: &Build) -> Result<(), UploadError> {
    let fields = [
        ("revision", &build.revision),
        ("rustc", &build.rustc),
        ("target", &build.target),
        ("profile", &build.profile),
        ("opt_level", &build.opt_level),
        ("lto", &build.lto),
        ("features", &build.features),
        ("build_id", &build.build_id),
        ("elf_sha256", &build.elf_sha256),
    ];
    let named = fields.into_iter().filter_map(|(name, text)| Some((String::from(name), text.as_deref()?)));
    // A map's key is named as itself, its value by its key.
    let maps = [("crates", &build.crates), ("extra", &build.extra)].into_iter().flat_map(|(map, entries)| {
        entries.iter().flat_map(move |(key, value)| {
            [(format!("{map} key {key:?}"), key.as_str()), (format!("{map}.{key}"), value.as_str())]
        })
    });
    for (field, text) in named.chain(maps) {
        // Bounded first, so that a refusal never quotes a megabyte.
        let field = || field.chars().take(MAX_FIELD_NAME_SHOWN).collect::<String>();
        if text.len() > MAX_BUILD_TEXT {
            return Err(UploadError::BuildTextLength { field: field() });
        }
        check_characters(text).map_err(|why| UploadError::BuildText { field: field(), why })?;
    }
    // A serialisation failure cannot happen for these types; were it to,
    // the build is refused rather than stored unmeasured.
    let size = serde_json::to_string(build).map(|s| s.len()).unwrap_or(usize::MAX);
    if size > MAX_BUILD_JSON {
        return Err(UploadError::BuildJson);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec;
    use pqbench_types::Status;

    fn measured(algorithm: Algorithm, operation: Operation) -> Measurement {
        Measurement {
            iterations: 2,
            total_ticks: 200,
            min_ticks: 90,
            median_ticks: 90,
            max_ticks: 110,
            heap_bytes: Some(4736),
            stack_bytes: Some(30_000),
            ..Measurement::untimed(algorithm, operation, Status::Ok)
        }
    }

    fn upload() -> Upload {
        Upload {
            source: Source::Browser,
            board: "browser:1a2b3c4d".into(),
            ticks_per_second: 1_000_000_000,
            tick_unit: TickUnit::Nanoseconds,
            clock_hz: None,
            build: Build::default(),
            measurements: vec![
                measured(Algorithm::MlKem768, Operation::Keygen),
                measured(Algorithm::MlKem768, Operation::Encaps),
            ],
            notes: vec![],
        }
    }

    /// The error `change` makes `check` give.
    fn refused(change: impl FnOnce(&mut Upload)) -> String {
        let mut u = upload();
        change(&mut u);
        u.check().expect_err("refused").to_string()
    }

    #[test]
    fn a_sound_upload_passes_with_its_clock() {
        assert_eq!(
            upload().check(),
            Ok(Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds })
        );
    }

    #[test]
    fn names_and_sources_are_checked() {
        assert!(refused(|u| u.board = "qemu-mps2-an386".into()).contains("starts with"));
        assert!(refused(|u| u.board = "browser:".into()).contains("printable"));
        assert!(refused(|u| u.board = "browser:a b".into()).contains("printable"));
        assert!(
            refused(|u| u.board = format!("browser:{}", "x".repeat(MAX_BOARD_ID_LEN)))
                .contains(&MAX_BOARD_ID_LEN.to_string())
        );
        assert!(refused(|u| u.source = Source::Serial).contains("\"serial\""));
    }

    #[test]
    fn an_unknown_tick_unit_is_refused_as_the_upload_is_read() {
        let mut json = serde_json::to_value(upload()).unwrap();
        json["tick_unit"] = "furlongs".into();
        let refused = serde_json::from_value::<Upload>(json).unwrap_err().to_string();
        assert!(refused.contains("unknown tick_unit \"furlongs\""), "{refused}");
    }

    #[test]
    fn a_browser_or_a_host_cannot_claim_cycles() {
        for unit in ["cycles", "qemu-instructions/40", "qemu-ticks"] {
            let refused = refused(|u| u.tick_unit = TickUnit::parse(unit).unwrap());
            assert!(refused.contains("nanoseconds") && refused.contains(unit), "{refused}");
            let native = refused_native(unit);
            assert!(native.contains("native upload"), "{native}");
        }
    }

    fn refused_native(unit: &str) -> String {
        refused(|u| {
            u.source = Source::Native;
            u.board = "native:lab".into();
            u.tick_unit = TickUnit::parse(unit).unwrap();
        })
    }

    #[test]
    fn the_clock_is_bounded() {
        assert!(refused(|u| u.ticks_per_second = 0).contains("positive"));
        assert!(refused(|u| u.ticks_per_second = MAX_TICKS_PER_SECOND + 1).contains("picosecond"));
        let mut u = upload();
        u.ticks_per_second = MAX_TICKS_PER_SECOND;
        assert!(u.check().is_ok(), "the bound itself is allowed");

        assert!(refused(|u| u.clock_hz = Some(0)).contains("clock_hz"));
        assert!(refused(|u| u.clock_hz = Some(MAX_CLOCK_HZ + 1)).contains("100000000000"));
        let mut u = upload();
        u.clock_hz = Some(MAX_CLOCK_HZ);
        assert!(u.check().is_ok());
    }

    #[test]
    fn measurement_counts_are_bounded_and_each_pair_is_measured_once() {
        assert!(refused(|u| u.measurements.clear()).contains("1 to 1000"));
        let many = refused(|u| {
            u.measurements =
                (0..=MAX_MEASUREMENTS).map(|_| measured(Algorithm::Sha256, Operation::Hash)).collect()
        });
        assert!(many.contains("1 to 1000"), "{many}");
        let twice = refused(|u| u.measurements.push(measured(Algorithm::MlKem768, Operation::Keygen)));
        assert_eq!(twice, "measurement 3 (ML-KEM-768 keygen) is measured twice in one upload");
        // As many distinct pairs as the bound, once each, fit; one more
        // does not. The vocabulary has more pairs than that (names for
        // published logs), so the bound does not follow it.
        let pairs: Vec<Measurement> = Algorithm::ALL
            .iter()
            .flat_map(|&a| Operation::ALL.iter().map(move |&o| measured(a, o)))
            .collect();
        assert!(pairs.len() > MAX_MEASUREMENTS, "{} pairs", pairs.len());
        let mut u = upload();
        u.measurements = pairs[..MAX_MEASUREMENTS].to_vec();
        assert!(u.check().is_ok());
        u.measurements = pairs[..=MAX_MEASUREMENTS].to_vec();
        assert!(u.check().is_err_and(|why| why.to_string().contains("1 to 1000")));
    }

    #[test]
    fn ticks_fit_the_store_and_iterations_are_bounded() {
        let huge = refused(|u| {
            let m = &mut u.measurements[0];
            m.iterations = 1;
            m.total_ticks = MAX_TICKS + 1;
            m.max_ticks = MAX_TICKS + 1;
            m.median_ticks = MAX_TICKS + 1;
        });
        assert!(huge.contains("total_ticks is 9223372036854775808"), "{huge}");
        // Untimed measurements carry no timing, but their counts are stored
        // as given, so they are bounded too.
        let untimed = refused(|u| {
            u.measurements[0] = Measurement::untimed(Algorithm::MlDsa87, Operation::Sign, Status::Skipped);
            u.measurements[0].min_ticks = u64::MAX;
        });
        assert!(untimed.contains("min_ticks"), "{untimed}");
        let mut u = upload();
        let m = &mut u.measurements[0];
        (m.iterations, m.total_ticks, m.min_ticks, m.median_ticks, m.max_ticks) =
            (1, MAX_TICKS, MAX_TICKS, MAX_TICKS, MAX_TICKS);
        assert!(u.check().is_ok(), "i64::MAX itself fits");

        let iterations = refused(|u| {
            let m = &mut u.measurements[0];
            m.iterations = MAX_ITERATIONS + 1;
            m.total_ticks = u64::from(MAX_ITERATIONS + 1) * 100;
            (m.min_ticks, m.median_ticks, m.max_ticks) = (100, 100, 100);
        });
        assert!(iterations.contains("iterations, above 100000000"), "{iterations}");
    }

    #[test]
    fn impossible_figures_are_refused() {
        assert!(refused(|u| u.measurements[0].min_ticks = 500).contains("impossible"));
        assert!(refused(|u| u.measurements[1].iterations = 0).contains("measurement 2 (ML-KEM-768 encaps)"));
    }

    #[test]
    fn memory_is_bounded_by_its_type_and_the_bound() {
        // 32 bits cannot say more than 4 GiB, below the bound: the largest
        // value passes, and a larger one does not deserialize at all.
        let mut u = upload();
        u.measurements[0].heap_bytes = Some(u32::MAX);
        u.measurements[0].stack_bytes = Some(u32::MAX);
        assert!(u.check().is_ok());
        assert!(u64::from(u32::MAX) < MAX_MEMORY_BYTES);
        let mut json = serde_json::to_value(upload()).unwrap();
        json["measurements"][0]["stack_bytes"] = serde_json::json!(MAX_MEMORY_BYTES + 1);
        // Refused whatever the wording (serde_json's `arbitrary_precision`,
        // which a crate elsewhere in a build may turn on, words it otherwise).
        assert!(serde_json::from_value::<Upload>(json).is_err());
    }

    #[test]
    fn notes_name_a_measurement_once_in_a_short_line() {
        let note = |operation, text: &str| UploadNote {
            algorithm: Algorithm::MlKem768,
            operation,
            note: text.into(),
        };
        let mut u = upload();
        u.notes = vec![note(Operation::Encaps, "each call includes the promise round trip")];
        assert!(u.check().is_ok());
        assert_eq!(
            u.note_of(Algorithm::MlKem768, Operation::Encaps),
            Some("each call includes the promise round trip")
        );
        assert_eq!(u.note_of(Algorithm::MlKem768, Operation::Keygen), None);

        let stray = refused(|u| u.notes = vec![note(Operation::Decaps, "x")]);
        assert_eq!(stray, "the note on ML-KEM-768 decaps names no measurement of this upload");
        let twice = refused(|u| u.notes = vec![note(Operation::Keygen, "a"), note(Operation::Keygen, "b")]);
        assert!(twice.contains("twice"), "{twice}");
        for bad in [String::new(), " ".into(), "x".repeat(MAX_NOTE_LEN + 1)] {
            let refused = refused(|u| u.notes = vec![note(Operation::Keygen, &bad)]);
            assert!(refused.contains("1 to 400 bytes"), "{bad:?}: {refused}");
        }
        for (bad, why) in [
            ("a\nb", "holds a control character (U+000A) at byte 1"),
            ("fast\u{202E}wols", "holds a bidirectional control (U+202E) at byte 4"),
            ("in\u{200B}visible", "holds an invisible character (U+200B) at byte 2"),
        ] {
            let refused = refused(|u| u.notes = vec![note(Operation::Keygen, bad)]);
            assert_eq!(refused, format!("the note on ML-KEM-768 keygen {why}"), "{bad:?}");
        }
        // An upload without notes says nothing of them, as before they existed.
        let json = serde_json::to_value(upload()).unwrap();
        assert!(json.get("notes").is_none());
        let read: Upload = serde_json::from_value(json).unwrap();
        assert!(read.notes.is_empty());
    }

    #[test]
    fn build_texts_are_bounded_labels_and_a_refusal_names_the_field() {
        let long = refused(|u| u.build.rustc = Some("x".repeat(MAX_BUILD_TEXT + 1)));
        assert_eq!(long, "build.rustc is longer than 1024 bytes");
        let control = refused(|u| u.build.profile = Some("release\u{1b}[2J".into()));
        assert_eq!(control, "build.profile holds a control character (U+001B) at byte 7");
        let bidi = refused(|u| {
            u.build.crates.insert("ml-kem".into(), "0.3\u{2066}.4".into());
        });
        assert_eq!(bidi, "build.crates.ml-kem holds a bidirectional control (U+2066) at byte 3");
        let key = refused(|u| {
            u.build.extra.insert("browser\u{200D}".into(), "Chromium".into());
        });
        assert!(key.starts_with("build.extra key \"browser"), "{key}");
        assert!(key.ends_with("holds an invisible character (U+200D) at byte 7"), "{key}");
        let key = refused(|u| {
            u.build.extra.insert("k".repeat(MAX_BUILD_TEXT + 1), "v".into());
        });
        assert!(key.contains("longer than 1024"), "{key}");
        let large = refused(|u| {
            for n in 0..20 {
                u.build.extra.insert(format!("key{n}"), "v".repeat(MAX_BUILD_TEXT));
            }
        });
        assert!(large.contains("larger than 16384"), "{large}");
    }

    #[test]
    fn every_derived_figure_of_an_accepted_upload_is_sound() {
        // The extremes the bounds allow: the slowest and the fastest clock,
        // the largest counts, a single tick.
        for ticks_per_second in [1, MAX_TICKS_PER_SECOND] {
            let most = MAX_TICKS / u64::from(MAX_ITERATIONS);
            for (iterations, per_call) in
                [(1, 1), (MAX_ITERATIONS, 1), (1, MAX_TICKS), (MAX_ITERATIONS, most)]
            {
                let m = Measurement {
                    iterations,
                    total_ticks: u64::from(iterations) * per_call,
                    min_ticks: per_call,
                    median_ticks: per_call,
                    max_ticks: per_call,
                    bytes_per_op: Some(u32::MAX),
                    ..Measurement::untimed(Algorithm::Sha256, Operation::Hash, Status::Ok)
                };
                let mut u = upload();
                u.ticks_per_second = ticks_per_second;
                u.measurements = vec![m];
                let clock = u.check().unwrap_or_else(|e| panic!("{m:?} at {ticks_per_second}: {e}"));
                let result = BenchResult::from_measurement(&m, &clock);
                assert_eq!(result.unsound_figure(), None, "{result:?}");
                // The same counts from a board's cycle counter, which also
                // derive cycles per operation.
                let cycles = Clock { ticks_per_second, unit: TickUnit::Cycles };
                let result = BenchResult::from_measurement(&m, &cycles);
                assert_eq!(result.unsound_figure(), None, "{result:?}");
            }
        }
    }

    /// The fuzz target's seeds (`fuzz/seeds/upload_json`) are uploads it
    /// accepts, so that fuzzing starts past the checks, not at them.
    #[test]
    fn the_fuzzer_s_seed_uploads_pass() {
        for seed in [
            include_str!("../../../fuzz/seeds/upload_json/browser.json"),
            include_str!("../../../fuzz/seeds/upload_json/browser-webcrypto.json"),
            include_str!("../../../fuzz/seeds/upload_json/native.json"),
        ] {
            let upload: Upload = serde_json::from_str(seed).unwrap();
            assert!(upload.check().is_ok(), "{:?}", upload.check());
        }
    }

    #[test]
    fn unsound_figures_are_named() {
        let mut r = BenchResult::unmeasured(Algorithm::Sha256, Operation::Hash, Status::Ok);
        assert_eq!(r.unsound_figure(), None);
        r.ops_per_sec = Some(f64::INFINITY);
        assert_eq!(r.unsound_figure(), Some("ops_per_sec"));
        r.ops_per_sec = Some(1.0);
        r.min_ms = Some(-0.5);
        assert_eq!(r.unsound_figure(), Some("min_ms"));
        r.min_ms = Some(f64::NAN);
        assert_eq!(r.unsound_figure(), Some("min_ms"));
    }
}
