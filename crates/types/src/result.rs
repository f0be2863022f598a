use alloc::collections::BTreeMap;
use alloc::string::String;

use serde::{Deserialize, Serialize};

use crate::{Algorithm, Clock, Measurement, Operation, Status, TickUnit};

/// One result row as the API, the store and the dashboard show it.
/// A figure that was not measured is `None` (JSON null), never 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    pub algorithm: Algorithm,
    pub operation: Operation,
    pub status: Status,
    pub iterations: Option<u64>,
    pub total_seconds: Option<f64>,
    pub avg_ms: Option<f64>,
    pub ops_per_sec: Option<f64>,
    pub min_ms: Option<f64>,
    pub median_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub cycles_per_op: Option<f64>,
    pub ticks_per_op: Option<f64>,
    pub tick_unit: Option<String>,
    pub bytes_per_sec: Option<f64>,
    pub heap_bytes: Option<u64>,
    pub heap_allocs: Option<u64>,
    pub stack_bytes: Option<u64>,
    pub note: Option<String>,
    /// The implementation's code and data size, where a log gives it (pqm4).
    /// Last, so the CSV export's columns before it keep their places.
    #[serde(default)]
    pub code_bytes: Option<u64>,
}

impl BenchResult {
    /// A result with its names and status and no figure yet, for a
    /// producer to fill in what it measured.
    pub fn unmeasured(algorithm: Algorithm, operation: Operation, status: Status) -> Self {
        BenchResult {
            algorithm,
            operation,
            status,
            iterations: None,
            total_seconds: None,
            avg_ms: None,
            ops_per_sec: None,
            min_ms: None,
            median_ms: None,
            max_ms: None,
            cycles_per_op: None,
            ticks_per_op: None,
            tick_unit: None,
            bytes_per_sec: None,
            heap_bytes: None,
            heap_allocs: None,
            stack_bytes: None,
            note: None,
            code_bytes: None,
        }
    }

    /// Derives the shown figures from what a board counted, with the board's clock.
    pub fn from_measurement(m: &Measurement, clock: &Clock) -> Self {
        let memory = |v: Option<u32>| v.map(u64::from);
        let mut result = BenchResult {
            heap_bytes: memory(m.heap_bytes),
            heap_allocs: memory(m.heap_allocs),
            stack_bytes: memory(m.stack_bytes),
            ..BenchResult::unmeasured(m.algorithm, m.operation, m.status)
        };
        match m.status {
            Status::Ok if m.iterations > 0 && clock.ticks_per_second > 0 => {}
            Status::DoesNotFit => {
                result.note = m.needed_bytes.map(|n| alloc::format!("does not fit (needs {n} bytes)"));
                return result;
            }
            _ => return result,
        }
        let tps = clock.ticks_per_second as f64;
        let iterations = f64::from(m.iterations);
        let ticks_to_ms = |t: u64| t as f64 * 1000.0 / tps;
        let total_seconds = m.total_ticks as f64 / tps;
        let ticks_per_op = m.total_ticks as f64 / iterations;
        result.iterations = Some(u64::from(m.iterations));
        result.total_seconds = Some(total_seconds);
        result.avg_ms = Some(total_seconds * 1000.0 / iterations);
        result.ops_per_sec = (total_seconds > 0.0).then(|| iterations / total_seconds);
        result.min_ms = Some(ticks_to_ms(m.min_ticks));
        result.median_ms = Some(ticks_to_ms(m.median_ticks));
        result.max_ms = Some(ticks_to_ms(m.max_ticks));
        result.ticks_per_op = Some(ticks_per_op);
        result.tick_unit = Some(alloc::format!("{}", clock.unit));
        result.cycles_per_op = (clock.unit == TickUnit::Cycles).then_some(ticks_per_op);
        result.bytes_per_sec = match (m.bytes_per_op, result.ops_per_sec) {
            (Some(bytes), Some(ops)) => Some(f64::from(bytes) * ops),
            _ => None,
        };
        if let Some(calls) = m.batch.filter(|&calls| calls > 1) {
            result.note =
                Some(alloc::format!("min, median and max are means of {calls}-call batches (coarse timer)"));
        }
        result
    }
}

/// Where a run's figures came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Serial,
    ProbeRs,
    Browser,
    Native,
    Import,
}

impl Source {
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Serial => "serial",
            Source::ProbeRs => "probe-rs",
            Source::Browser => "browser",
            Source::Native => "native",
            Source::Import => "import",
        }
    }

    pub fn from_name(text: &str) -> Option<Self> {
        [Source::Serial, Source::ProbeRs, Source::Browser, Source::Native, Source::Import]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A run's life: `running` until its board says it is done. `incomplete`:
/// the board finished, but some of its records were refused on the way in
/// (the ones that arrived intact are kept). `interrupted`: the run was
/// cancelled from the dashboard, or the server lost it (crash, restart),
/// before it ended; what it stored until then is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Queued,
    Running,
    Complete,
    Incomplete,
    Failed,
    Interrupted,
}

impl RunStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Incomplete => "incomplete",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn from_name(text: &str) -> Option<Self> {
        [
            RunStatus::Queued,
            RunStatus::Running,
            RunStatus::Complete,
            RunStatus::Incomplete,
            RunStatus::Failed,
            RunStatus::Interrupted,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    pub const fn is_finished(self) -> bool {
        !matches!(self, RunStatus::Queued | RunStatus::Running)
    }
}

/// The key of [`Build::extra`] that names what an imported run's figures
/// came from, e.g. `wolfCrypt 5.7.2` or `pqm4 m4fspeed`.
pub const IMPORTED_FROM: &str = "imported_from";

/// What produced the figures: firmware or wasm revision, compiler, profile,
/// and the versions of the crates that do the cryptography.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    pub revision: Option<String>,
    pub rustc: Option<String>,
    pub target: Option<String>,
    pub profile: Option<String>,
    pub opt_level: Option<String>,
    pub lto: Option<String>,
    pub features: Option<String>,
    /// The linker's GNU build id of a firmware image, as the board says it:
    /// names one exact image, so bytes are never read with another's ELF.
    #[serde(default)]
    pub build_id: Option<String>,
    /// SHA-256 of the ELF file the host ran or decoded the board's bytes
    /// with; a board's figures are tied to the very file.
    #[serde(default)]
    pub elf_sha256: Option<String>,
    /// Crate name to version, e.g. `ml-kem` to `0.3.4`.
    #[serde(default)]
    pub crates: BTreeMap<String, String>,
    /// Anything else the producer said about itself (MCU, browser, OS, ...).
    #[serde(default)]
    pub extra: BTreeMap<String, String>,
}

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
    pub tick_unit: String,
    pub clock_hz: Option<u64>,
    pub build: Build,
    pub measurements: alloc::vec::Vec<Measurement>,
}

impl Build {
    /// The build identity `pqbench-build-info` wrote down: its `crates`
    /// are `name@version` pairs separated by commas.
    #[allow(clippy::too_many_arguments)]
    pub fn from_build_info(
        revision: &str,
        rustc: &str,
        target: &str,
        profile: &str,
        opt_level: &str,
        lto: &str,
        features: &str,
        crates: &str,
    ) -> Build {
        let text = |s: &str| (!s.is_empty()).then(|| String::from(s));
        Build {
            revision: text(revision),
            rustc: text(rustc),
            target: text(target),
            profile: text(profile),
            opt_level: text(opt_level),
            lto: text(lto),
            features: text(features),
            build_id: None,
            elf_sha256: None,
            crates: crates
                .split(',')
                .filter_map(|entry| entry.split_once('@'))
                .map(|(name, version)| (String::from(name), String::from(version)))
                .collect(),
            extra: BTreeMap::new(),
        }
    }
}

impl Build {
    /// A short name for what produced a run's figures, to tell builds apart
    /// in a table of many runs: the browser's name and version for a
    /// browser run (what its figures depend on most), the program and its
    /// version or implementation for an imported log, otherwise the profile,
    /// opt-level and ML-KEM crate, e.g. `firmware opt-s, libcrux-ml-kem
    /// 0.0.11`; the source's name when the build says none of these.
    pub fn label(&self, source: Source) -> String {
        use alloc::format;
        if source == Source::Browser {
            return self.extra.get("browser").cloned().unwrap_or_else(|| String::from("browser"));
        }
        if source == Source::Import {
            return self.extra.get(IMPORTED_FROM).cloned().unwrap_or_else(|| String::from("import"));
        }
        let mut parts = alloc::vec::Vec::new();
        match (&self.profile, &self.opt_level) {
            (Some(profile), Some(opt)) => parts.push(format!("{profile} opt-{opt}")),
            (Some(profile), None) => parts.push(profile.clone()),
            (None, Some(opt)) => parts.push(format!("opt-{opt}")),
            (None, None) => {}
        }
        let ml_kem = self.crates.iter().find(|(name, _)| *name == "ml-kem" || name.ends_with("-ml-kem"));
        if let Some((name, version)) = ml_kem {
            parts.push(format!("{name} {version}"));
        }
        if parts.is_empty() {
            return String::from(source.as_str());
        }
        parts.join(", ")
    }
}

/// The [`Build`] of the crate that expands it, from the `PQBENCH_*`
/// variables its build script set with `pqbench-build-info`.
#[macro_export]
macro_rules! compiled_build {
    () => {
        $crate::Build::from_build_info(
            env!("PQBENCH_REVISION"),
            env!("PQBENCH_RUSTC"),
            env!("PQBENCH_TARGET"),
            env!("PQBENCH_PROFILE"),
            env!("PQBENCH_OPT_LEVEL"),
            env!("PQBENCH_LTO"),
            env!("PQBENCH_FEATURES"),
            env!("PQBENCH_CRATES"),
        )
    };
}

/// A run as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: i64,
    pub status: RunStatus,
    pub source: Source,
    pub board: String,
    pub clock_hz: Option<u64>,
    pub build: Build,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub error: Option<String>,
    /// Records the host refused on the way in (bad checksum, cut off, ...).
    #[serde(default)]
    pub rejected_records: u64,
    /// The host of the agent that ran it (`pqbench agent`); null for a run
    /// on the server's own boards, an upload or an import.
    #[serde(default)]
    pub host: Option<String>,
}

/// A board the server can reach now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// A stable slug: `qemu-mps2-an386`, `serial:/dev/ttyACM0`, ...
    pub id: String,
    pub name: String,
    pub kind: BoardKind,
    /// Whether a run can start now (false while one is running).
    pub available: bool,
    /// The firmware builds a run can choose (`opt-s`, the default, `opt-z`,
    /// `opt-3`): the same suite at other optimisation levels.
    #[serde(default)]
    pub variants: alloc::vec::Vec<String>,
    /// The chip a run is asked to use (a probe board: probe-rs's name).
    #[serde(default)]
    pub chip: Option<String>,
    /// Why the board cannot run now, or what to know before it does.
    #[serde(default)]
    pub note: Option<String>,
    /// The agent host the board is attached to (`pqbench agent`); null for
    /// the server's own boards. An agent's board's `id` is `host/board`.
    #[serde(default)]
    pub host: Option<String>,
    /// Whether the board's host is connected now (always, for the server's
    /// own boards). A host that went away keeps its boards listed, not
    /// available, until it comes back.
    #[serde(default = "connected")]
    pub connected: bool,
}

fn connected() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardKind {
    Emulated,
    Serial,
    Probe,
}

impl BoardKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardKind::Emulated => "emulated",
            BoardKind::Serial => "serial",
            BoardKind::Probe => "probe",
        }
    }
}

/// The body of `POST /api/runs`. Left out: every algorithm the suite
/// measures, and the server's default iterations and time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    pub board: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithms: Option<alloc::vec::Vec<Algorithm>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_iterations: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time_ms: Option<u32>,
    /// One of the board's `variants`; left out, `opt-s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// The answer to a request that created a run (or a report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    pub id: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(total: u64, iterations: u32) -> Measurement {
        Measurement {
            iterations,
            total_ticks: total,
            min_ticks: total / u64::from(iterations) - 1,
            median_ticks: total / u64::from(iterations),
            max_ticks: total / u64::from(iterations) + 1,
            heap_bytes: Some(4736),
            heap_allocs: Some(3),
            stack_bytes: Some(27_712),
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        }
    }

    #[test]
    fn qemu_ticks_are_never_cycles() {
        let clock = Clock { ticks_per_second: 25_000_000, unit: TickUnit::QemuInstructions { per_tick: 40 } };
        let r = BenchResult::from_measurement(&measured(2_500_000, 10), &clock);
        assert_eq!(r.cycles_per_op, None);
        assert_eq!(r.ticks_per_op, Some(250_000.0));
        assert_eq!(r.tick_unit.as_deref(), Some("qemu-instructions/40"));
        assert_eq!(r.total_seconds, Some(0.1));
        assert_eq!(r.avg_ms, Some(10.0));
        assert_eq!(r.ops_per_sec, Some(100.0));
        assert_eq!(r.heap_bytes, Some(4736));
    }

    #[test]
    fn cycle_counters_give_cycles_per_op() {
        let clock = Clock { ticks_per_second: 180_000_000, unit: TickUnit::Cycles };
        let r = BenchResult::from_measurement(&measured(1_800_000, 3), &clock);
        assert_eq!(r.cycles_per_op, Some(600_000.0));
        assert_eq!(r.median_ms, Some(600_000.0 * 1000.0 / 180_000_000.0));
    }

    #[test]
    fn batched_results_say_their_spread_is_of_batch_means() {
        let clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };
        let m = Measurement { batch: Some(7), iterations: 21, ..measured(2_100_000, 21) };
        assert!(m.is_consistent());
        let r = BenchResult::from_measurement(&m, &clock);
        assert_eq!(r.iterations, Some(21));
        assert_eq!(r.note.as_deref(), Some("min, median and max are means of 7-call batches (coarse timer)"));
        assert_eq!(BenchResult::from_measurement(&measured(2_100_000, 21), &clock).note, None);
        assert!(!Measurement { batch: Some(4), ..m }.is_consistent(), "21 calls are not whole batches of 4");
    }

    #[test]
    fn untimed_results_have_no_figures() {
        let clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };
        let mut m = Measurement::untimed(Algorithm::MlDsa65, Operation::Sign, Status::DoesNotFit);
        m.needed_bytes = Some(102_912);
        let r = BenchResult::from_measurement(&m, &clock);
        assert_eq!(r.ops_per_sec, None);
        assert_eq!(r.iterations, None);
        assert_eq!(r.note.as_deref(), Some("does not fit (needs 102912 bytes)"));
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["avg_ms"].is_null());
        assert_eq!(json["status"], "does_not_fit");
    }

    #[test]
    fn build_labels_name_what_the_figures_depend_on() {
        let firmware = Build::from_build_info(
            "abc",
            "rustc 1.95",
            "thumbv7em-none-eabi",
            "firmware",
            "s",
            "fat",
            "",
            "libcrux-ml-kem@0.0.11,libcrux-ml-dsa@0.0.11,sha2@0.11.1",
        );
        assert_eq!(firmware.label(Source::Serial), "firmware opt-s, libcrux-ml-kem 0.0.11");
        let rustcrypto = Build { crates: BTreeMap::from([("ml-kem".into(), "0.3.4".into())]), ..firmware };
        assert_eq!(rustcrypto.label(Source::ProbeRs), "firmware opt-s, ml-kem 0.3.4");

        let mut browser = rustcrypto.clone();
        browser.extra.insert("browser".into(), "Chrome 131.0".into());
        assert_eq!(browser.label(Source::Browser), "Chrome 131.0");
        assert_eq!(Build::default().label(Source::Browser), "browser");
        assert_eq!(Build::default().label(Source::Import), "import");
        let mut imported = Build::default();
        imported.extra.insert(IMPORTED_FROM.into(), "pqm4 m4fspeed".into());
        assert_eq!(imported.label(Source::Import), "pqm4 m4fspeed");
    }

    #[test]
    fn tick_units_read_back() {
        for unit in [
            TickUnit::Cycles,
            TickUnit::Nanoseconds,
            TickUnit::QemuInstructions { per_tick: 40 },
            TickUnit::QemuTicks,
        ] {
            assert_eq!(TickUnit::parse(&alloc::format!("{unit}")), Ok(unit));
        }
        assert!(TickUnit::parse("qemu-instructions/0").is_err());
        assert!(TickUnit::parse("qemu-instructions/").is_err());
    }

    #[test]
    fn consistency_catches_impossible_figures() {
        assert!(measured(1000, 10).is_consistent());
        let mut m = measured(1000, 10);
        m.min_ticks = 500;
        assert!(!m.is_consistent());
        let mut m = measured(1000, 10);
        m.iterations = 0;
        assert!(!m.is_consistent());
    }
}
