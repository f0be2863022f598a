//! An emulated Cortex-M4's estimated cycles: QEMU runs the board with the
//! timing model's plugin (`pqbench-qemu-m4-plugin`), which appends a block
//! of counts to a file at the end of each operation the board measures
//! (`pqbench_m4_model::counts`). As each of the board's result records
//! arrives, [`TimingModel::estimate`] reads the block of its operation and
//! makes its [`ModelEstimate`]: the same statistics over the same samples
//! as the board's own figures, and where the cycles went by function.

use std::collections::VecDeque;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use object::{Object, ObjectSymbol, SymbolKind};
use pqbench_m4_model::counts::{Malformed, OperationCounts, Reader};
use pqbench_types::{BenchResult, FunctionCycles, HarnessCycles, Measurement, ModelEstimate, Status};

/// The model's parameters pqbench runs it with: the manual's typical
/// refill and divide, and no wait states, as pqm4 measures.
pub const PARAMETERS: &str = "refill=2,divide=7,wait_states=0";
/// How an estimate names them where the plugin read each divide's operands
/// (QEMU 9 and later) and charged it by them rather than the fixed 7.
pub const PARAMETERS_DIVIDES_SEEN: &str = "refill=2,divide=by-operands,wait_states=0";

/// How many functions an estimate names.
const FUNCTIONS: usize = 12;

/// QEMU's `-plugin` for a run: the plugin and the file it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimingModelPlugin {
    pub plugin: PathBuf,
    pub counts: PathBuf,
    /// Its parameters, as each estimate names them.
    pub parameters: &'static str,
    /// The image's hashing code as address ranges (the plugin's
    /// `hashing=` file, written by [`TimingModelPlugin::write_ranges`] as
    /// QEMU starts), for the plugin to count each sample's cycles there (a
    /// share per call, as pqm4's); `None` where the image has no symbols.
    pub hashing: Option<(PathBuf, String)>,
}

impl TimingModelPlugin {
    /// The plugin beside `firmware_dir` (`<dist>/qemu/`) in the build the
    /// QEMU that will run loads, if it is built, with a counts file of this
    /// run's own in the system's temporary folder, and beside it the
    /// hashing code's ranges in `image` (none where it has no symbols).
    pub fn beside(firmware_dir: &Path, image: &Path) -> Option<TimingModelPlugin> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let version = crate::qemu::program().and_then(|qemu| crate::qemu::version(&qemu));
        let build = crate::qemu::plugin_for(version);
        let plugin = firmware_dir.parent()?.join(build);
        let parameters = if build == pqbench_boards::TIMING_MODEL_PLUGIN_API_2 {
            PARAMETERS_DIVIDES_SEEN
        } else {
            PARAMETERS
        };
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let counts = std::env::temp_dir().join(format!("pqbench-m4-model-{}-{run}.txt", std::process::id()));
        if !plugin.is_file() {
            return None;
        }
        let ranges = std::fs::read(image).ok().map(|bytes| Symbols::of(&bytes).hashing_ranges());
        let hashing =
            ranges.filter(|ranges| !ranges.is_empty()).map(|r| (counts.with_extension("hashing"), r));
        Some(TimingModelPlugin { plugin, counts, parameters, hashing })
    }

    /// Writes the `hashing=` file, if any, for QEMU about to start: a run
    /// refused before that leaves nothing behind. The runner removes it
    /// with the counts.
    pub fn write_ranges(&self) -> std::io::Result<()> {
        match &self.hashing {
            Some((path, ranges)) => std::fs::write(path, ranges),
            None => Ok(()),
        }
    }

    /// A guard that removes this run's counts and ranges files when
    /// dropped, however the run ends.
    pub fn files(&self) -> RunFiles<'_> {
        RunFiles(self)
    }

    /// QEMU's `-plugin` argument.
    pub fn argument(&self) -> String {
        let mut argument = format!("{},out={},{PARAMETERS}", self.plugin.display(), self.counts.display());
        if let Some((hashing, _)) = &self.hashing {
            argument.push_str(&format!(",hashing={}", hashing.display()));
        }
        argument
    }
}

/// See [`TimingModelPlugin::files`].
pub struct RunFiles<'a>(&'a TimingModelPlugin);

impl Drop for RunFiles<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0.counts);
        if let Some((hashing, _)) = &self.0.hashing {
            let _ = std::fs::remove_file(hashing);
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TimingModelError {
    #[error("reading the timing model's counts ({path}): {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Malformed(#[from] Malformed),
    #[error("the timing model saw {seen} samples of {what}, the board reported {reported}")]
    Samples { what: String, seen: usize, reported: u32 },
    #[error("the timing model saw no measurement of {0}")]
    Missing(String),
}

/// One run's counts, read as they grow.
pub struct TimingModel {
    counts: PathBuf,
    parameters: &'static str,
    read: u64,
    reader: Reader,
    pending: VecDeque<OperationCounts>,
    symbols: Symbols,
}

impl TimingModel {
    /// For a run of `image`, whose plugin writes `counts` and runs with
    /// `parameters`.
    pub fn new(counts: PathBuf, parameters: &'static str, image: &[u8]) -> TimingModel {
        TimingModel {
            counts,
            parameters,
            read: 0,
            reader: Reader::new(),
            pending: VecDeque::new(),
            symbols: Symbols::of(image),
        }
    }

    /// The estimate of `measurement`, whose record has just arrived: the
    /// next block of counts, which the board completed before sending it.
    /// `None` for a record of an operation the board did not measure.
    pub fn estimate(&mut self, measurement: &Measurement) -> Result<Option<ModelEstimate>, TimingModelError> {
        self.read_more()?;
        let what = format!("{} {}", measurement.algorithm, measurement.operation);
        let counts = match measurement.status {
            Status::Ok => self.pending.pop_front().ok_or(TimingModelError::Missing(what.clone()))?,
            // Measured, but no sample fit: its block, if any, is empty.
            Status::Skipped if self.pending.front().is_some_and(|c| c.samples.is_empty()) => {
                self.pending.pop_front();
                return Ok(None);
            }
            _ => return Ok(None),
        };
        let batch = measurement.batch.unwrap_or(1).max(1);
        let reported = measurement.iterations / batch;
        if counts.samples.len() != reported as usize {
            return Err(TimingModelError::Samples { what, seen: counts.samples.len(), reported });
        }
        Ok(Some(self.summarise(measurement, &counts, batch)))
    }

    fn read_more(&mut self) -> Result<(), TimingModelError> {
        let error = |source| TimingModelError::Read { path: self.counts.clone(), source };
        let mut file = std::fs::File::open(&self.counts).map_err(error)?;
        file.seek(SeekFrom::Start(self.read)).map_err(error)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(error)?;
        self.read += bytes.len() as u64;
        // The plugin writes ASCII; a lossy read cannot split a character.
        let blocks = self.reader.feed(&String::from_utf8_lossy(&bytes))?;
        self.pending.extend(blocks);
        Ok(())
    }

    fn summarise(&self, measurement: &Measurement, counts: &OperationCounts, batch: u32) -> ModelEstimate {
        let mut per_call: Vec<u64> = counts.samples.iter().map(|s| s.cycles / u64::from(batch)).collect();
        let total: u64 = counts.samples.iter().map(|s| s.cycles).sum();
        // The suite's own statistics, so the estimate's min, median and
        // spread are taken as the board's figures are.
        let figures = pqbench_suite::summarise(
            measurement.algorithm,
            measurement.operation,
            &mut per_call,
            batch,
            total,
        );
        let calls = f64::from(figures.iterations.max(1));
        let placed: u64 = counts.at.iter().map(|(_, cycles)| cycles).sum();
        let mut by_function = self.symbols.attribute(&counts.at);
        by_function.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let hashing: u64 = by_function.iter().filter(|(name, _)| is_hashing(name)).map(|(_, c)| c).sum();
        let harness = Harness::ALL
            .iter()
            .filter_map(|class| {
                let cycles: u64 =
                    by_function.iter().filter(|(name, _)| class.holds(name)).map(|(_, c)| c).sum();
                (cycles > 0).then(|| HarnessCycles {
                    class: class.name().to_string(),
                    cycles_per_op: cycles as f64 / calls,
                })
            })
            .collect();
        ModelEstimate {
            cycles_per_op: total as f64 / calls,
            min_cycles: figures.min_ticks,
            median_cycles: figures.median_ticks,
            max_cycles: figures.max_ticks,
            stdev_cycles: figures.stdev_ticks,
            samples: counts.samples.len() as u64,
            hashing_share: (!self.symbols.is_empty() && placed > 0).then(|| hashing as f64 / placed as f64),
            hashing_share_per_call: per_call_share(&counts.samples),
            harness,
            functions: by_function
                .into_iter()
                .take(FUNCTIONS)
                .map(|(name, cycles)| FunctionCycles {
                    hashing: is_hashing(&name),
                    name,
                    cycles_per_op: cycles as f64 / calls,
                })
                .collect(),
            parameters: self.parameters.to_string(),
        }
    }
}

/// Puts `model`'s estimate of `measurement` on `result`. Where the model
/// cannot give one, the result keeps the board's own figures and its note
/// says why: a board's measurement is never lost for its estimate.
pub(crate) fn add_estimate(model: &Mutex<TimingModel>, result: &mut BenchResult, measurement: &Measurement) {
    let mut model = model.lock().unwrap_or_else(PoisonError::into_inner);
    match model.estimate(measurement) {
        Ok(estimate) => result.model = estimate,
        Err(error) => {
            tracing::warn!("{error}");
            let why = format!("no M4 model estimate: {error}");
            result.note = Some(match result.note.take() {
                Some(note) => format!("{note}; {why}"),
                None => why,
            });
        }
    }
}

/// The mean of each sample's hashing share (of a batch's where calls were
/// batched), as pqm4's profiling build takes it; `None` unless every
/// sample says its hashing cycles.
fn per_call_share(samples: &[pqbench_m4_model::counts::Sample]) -> Option<f64> {
    let shares: Option<Vec<f64>> =
        samples.iter().filter(|s| s.cycles > 0).map(|s| Some(s.hashing? as f64 / s.cycles as f64)).collect();
    shares.filter(|s| !s.is_empty()).map(|s| s.iter().sum::<f64>() / s.len() as f64)
}

/// Work inside the timed window that is the harness's, not the
/// implementation's: pqm4 runs none of it, so a comparison with pqm4
/// outside hashing takes it out. Found by function name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Harness {
    /// The global allocator and the heap counter, which PQClean's
    /// `fips202.c` reaches through `malloc` for every SHAKE context.
    Allocator,
    /// `memcpy`/`memset` and kin: returned keys and ciphertexts zeroed and
    /// copied.
    Copies,
    /// The random generator the suite lends a call, behind its lock.
    Randomness,
    /// The suite's timed loop: its marks and clock reads, and whatever of
    /// the operation the compiler inlined into it (nothing of a C
    /// implementation, which it calls across FFI).
    TimedLoop,
}

impl Harness {
    pub const ALL: [Harness; 4] =
        [Harness::Allocator, Harness::Copies, Harness::Randomness, Harness::TimedLoop];

    pub fn name(self) -> &'static str {
        match self {
            Harness::Allocator => "allocator",
            Harness::Copies => "copies",
            Harness::Randomness => "randomness",
            Harness::TimedLoop => "timed loop",
        }
    }

    /// Whether `function` (demangled) is this harness work.
    pub fn holds(self, function: &str) -> bool {
        let is = |names: &[&str]| names.contains(&function);
        let has = |parts: &[&str]| parts.iter().any(|p| function.contains(p));
        match self {
            Harness::Allocator => {
                is(&[
                    "malloc",
                    "free",
                    "calloc",
                    "realloc",
                    "__rust_alloc",
                    "__rust_dealloc",
                    "__rust_realloc",
                ]) || has(&["GlobalAlloc>::", "pqclean_malloc", "pqclean_free", "embedded_alloc::", "__rdl_"])
            }
            Harness::Copies => {
                is(&["memcpy", "memset", "memmove", "memclr"])
                    || has(&["__aeabi_mem", "compiler_builtins::mem::"])
            }
            Harness::Randomness => {
                has(&["randombytes", "rand_core::", "rand_chacha::", "seeded_rng", "spin::"])
            }
            Harness::TimedLoop => has(&["::timed_calls"]),
        }
    }
}

/// Keccak and the SHA-3/SHAKE code around it, by the names every
/// implementation pqbench builds gives them: PQClean's fips202.c
/// (`KeccakF1600_StatePermute`, `shake128_absorb`, `sha3_256`) and its
/// schemes' wrappers (`..._kyber_shake256_prf`), libcrux's `libcrux_sha3`,
/// RustCrypto's `keccak`, `sha3` and `shake` crates.
pub fn is_hashing(function: &str) -> bool {
    let name = function.to_ascii_lowercase();
    ["keccak", "shake", "sha3"].iter().any(|part| name.contains(part))
}

/// An image's functions by address.
struct Symbols(Vec<(u32, u32, String)>);

impl Symbols {
    fn of(image: &[u8]) -> Symbols {
        let Ok(file) = object::File::parse(image) else { return Symbols(Vec::new()) };
        let mut functions: Vec<(u32, u32, String)> = file
            .symbols()
            .filter(|symbol| symbol.kind() == SymbolKind::Text && symbol.size() > 0)
            .filter_map(|symbol| {
                // A Thumb function's address has its low bit set.
                let start = (symbol.address() as u32) & !1;
                let name = symbol.name().ok()?;
                Some((start, start.saturating_add(symbol.size() as u32), demangled(name)))
            })
            .collect();
        functions.sort();
        Symbols(functions)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The hashing functions' address ranges, as the plugin's `hashing=`
    /// file holds them: `start end` in hexadecimal, a line each.
    fn hashing_ranges(&self) -> String {
        self.0
            .iter()
            .filter(|(_, _, name)| is_hashing(name))
            .map(|(start, end, _)| format!("{start:x} {end:x}\n"))
            .collect()
    }

    /// Cycles by function name; what no function holds is `(no symbol)`.
    fn attribute(&self, at: &[(u32, u64)]) -> Vec<(String, u64)> {
        let mut by_name: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
        for &(address, cycles) in at {
            let index = self.0.partition_point(|(start, _, _)| *start <= address);
            let name = index
                .checked_sub(1)
                .map(|i| &self.0[i])
                .filter(|(_, end, _)| address < *end)
                .map_or("(no symbol)", |(_, _, name)| name.as_str());
            *by_name.entry(name).or_insert(0) += cycles;
        }
        by_name.into_iter().map(|(name, cycles)| (name.to_string(), cycles)).collect()
    }
}

/// A Rust symbol without its hash; a C one as it is.
pub(crate) fn demangled(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

#[cfg(test)]
mod tests {
    use pqbench_m4_model::counts::Sample;
    use pqbench_types::{Algorithm, Operation};

    use super::*;

    #[test]
    fn hashing_is_keccak_and_sha3_by_any_implementation_s_names() {
        for name in [
            "KeccakF1600_StatePermute",
            "shake128_absorb",
            "sha3_256",
            "PQCLEAN_MLKEM768_CLEAN_kyber_shake256_prf",
            "libcrux_sha3::portable::keccak::keccakf1600",
            "keccak::p1600",
            "sha3::Sha3_256Core::finalize",
        ] {
            assert!(is_hashing(name), "{name}");
        }
        for name in ["PQCLEAN_MLKEM768_CLEAN_poly_ntt", "libcrux_ml_kem::ntt::ntt_at_layer_1", "memcpy"] {
            assert!(!is_hashing(name), "{name}");
        }
    }

    fn measurement(status: Status, iterations: u32) -> Measurement {
        Measurement { iterations, ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, status) }
    }

    fn model_with(blocks: &[OperationCounts]) -> (TimingModel, PathBuf) {
        let path =
            std::env::temp_dir().join(format!("pqbench-model-test-{}-{}", std::process::id(), blocks.len()));
        let text: String = blocks.iter().map(OperationCounts::render).collect();
        std::fs::write(&path, text).unwrap();
        (TimingModel::new(path.clone(), PARAMETERS, &[]), path)
    }

    #[test]
    fn each_result_takes_its_operation_s_block_and_the_suite_s_statistics() {
        let block = OperationCounts {
            samples: [300, 100, 200]
                .map(|cycles| Sample { cycles, instructions: cycles / 2, hashing: None })
                .to_vec(),
            at: vec![(0x100, 600)],
        };
        let skipped = OperationCounts::default();
        let (mut model, path) = model_with(&[block.clone(), skipped, block]);
        let estimate = model.estimate(&measurement(Status::Ok, 3)).unwrap().unwrap();
        assert_eq!(estimate.cycles_per_op, 200.0);
        assert_eq!((estimate.min_cycles, estimate.median_cycles, estimate.max_cycles), (100, 200, 300));
        assert_eq!((estimate.stdev_cycles, estimate.samples), (Some(100), 3));
        assert_eq!(estimate.functions[0].name, "(no symbol)");
        assert_eq!(estimate.hashing_share, None, "no symbols to tell");
        assert_eq!(estimate.hashing_share_per_call, None, "no sample says its hashing");
        // Not measured: no block of its own, the next is left for the next.
        assert_eq!(model.estimate(&measurement(Status::Failed, 0)).unwrap(), None);
        assert_eq!(model.estimate(&measurement(Status::Skipped, 0)).unwrap(), None);
        // A result whose samples are not the block's is refused, not guessed.
        let error = model.estimate(&measurement(Status::Ok, 4)).unwrap_err();
        assert!(
            error.to_string().contains("3 samples of ML-KEM-768 keygen, the board reported 4"),
            "{error}"
        );
        assert!(matches!(model.estimate(&measurement(Status::Ok, 3)), Err(TimingModelError::Missing(_))));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_rejection_loop_s_share_per_call_differs_from_its_share_of_the_whole() {
        // Two calls: a short one of 100 cycles, 60 hashing; a long one (more
        // rounds) of 300, 60 hashing. Of the whole, 120 / 400 = 30%; per
        // call, (60% + 20%) / 2 = 40%, as pqm4 takes it.
        let sample = |cycles, hashing| Sample { cycles, instructions: 1, hashing: Some(hashing) };
        assert_eq!(per_call_share(&[sample(100, 60), sample(300, 60)]), Some(0.4));
        assert_eq!(per_call_share(&[sample(100, 60), Sample { hashing: None, ..sample(300, 60) }]), None);
        assert_eq!(per_call_share(&[]), None);
    }

    #[test]
    fn harness_work_is_found_by_the_names_every_image_gives_it() {
        let class = |name: &str| Harness::ALL.into_iter().find(|h| h.holds(name)).map(Harness::name);
        for (name, expected) in [
            ("pqbench_pqclean_malloc", Some("allocator")),
            (
                "<pqbench_firmware::memory::CountingHeap as core::alloc::global::GlobalAlloc>::alloc",
                Some("allocator"),
            ),
            ("<embedded_alloc::llff::Heap as core::alloc::global::GlobalAlloc>::dealloc", Some("allocator")),
            ("__aeabi_memcpy4", Some("copies")),
            ("memset", Some("copies")),
            ("pqbench_pqclean_randombytes", Some("randomness")),
            ("<rand_chacha::chacha::ChaCha20Rng as rand_core::RngCore>::fill_bytes", Some("randomness")),
            ("<pqbench_suite::measure::Session<B, R>>::timed_calls::<[u8; 32], F>", Some("timed loop")),
            ("PQCLEAN_MLKEM768_CLEAN_poly_ntt", None),
            ("KeccakF1600_StatePermute", None),
            ("chacha20::backends::soft::Backend::gen_ks_block", None),
            ("free_list_walk", None),
        ] {
            assert_eq!(class(name), expected, "{name}");
        }
    }

    #[test]
    fn the_plugin_is_told_the_image_s_hashing_code_by_address() {
        let symbols = Symbols(vec![
            (0x100, 0x180, "KeccakF1600_StatePermute".into()),
            (0x180, 0x200, "PQCLEAN_MLKEM768_CLEAN_poly_ntt".into()),
            (0x200, 0x240, "shake128_absorb".into()),
        ]);
        assert_eq!(symbols.hashing_ranges(), "100 180\n200 240\n");
    }
}
