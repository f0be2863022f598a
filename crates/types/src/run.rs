//! A run and what it is made of: where its figures came from, how it
//! ended, and the build that produced them.

use alloc::collections::BTreeMap;
use alloc::string::String;

use serde::{Deserialize, Serialize};

use crate::BenchResult;

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
    pub const ALL: &'static [Source] =
        &[Source::Serial, Source::ProbeRs, Source::Browser, Source::Native, Source::Import];

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
        Source::ALL.iter().copied().find(|s| s.as_str() == text)
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

/// The `extra` key a browser run's build names its implementation by when
/// it is not pqbench's own wasm: `webcrypto`, `noble-post-quantum@0.7.1`,
/// `liboqs-js@0.15.1`. It is the build's label.
pub const IMPLEMENTATION: &str = "implementation";

/// The `extra` key every build stored by one press of "Run in this
/// browser" shares (a token the page draws), so that its implementations
/// are found and shown side by side.
pub const BROWSER_RUN: &str = "browser_run";

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
            // Beside pqbench's wasm a browser run measures other
            // implementations (its WebCrypto, JavaScript libraries), each a
            // build of its own that names itself.
            let named = self.extra.get(IMPLEMENTATION).or_else(|| self.extra.get("browser"));
            return named.cloned().unwrap_or_else(|| String::from("browser"));
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
    /// What happened on the way that the results do not say, a line each
    /// (a probe's transient errors it recovered from, ...); null when
    /// nothing did.
    #[serde(default)]
    pub notes: Option<String>,
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
    use crate::{Algorithm, Clock, Measurement, Operation, Status, TickUnit};

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
        let mut webcrypto = browser.clone();
        webcrypto.extra.insert(IMPLEMENTATION.into(), "webcrypto".into());
        assert_eq!(webcrypto.label(Source::Browser), "webcrypto");
        assert_eq!(Build::default().label(Source::Import), "import");
        let mut imported = Build::default();
        imported.extra.insert(IMPORTED_FROM.into(), "pqm4 m4fspeed".into());
        assert_eq!(imported.label(Source::Import), "pqm4 m4fspeed");
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
}
