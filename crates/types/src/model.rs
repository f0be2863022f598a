//! What the emulator's Cortex-M4 timing model estimates of an operation
//! (the QEMU plugin `pqbench-qemu-m4-plugin`). Estimated cycles are their
//! own unit, [`MODEL_CYCLES_UNIT`], and never `cycles`: no board counted
//! them.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// The unit of [`ModelEstimate`]'s cycles.
pub const MODEL_CYCLES_UNIT: &str = "m4-model-cycles";

/// The clocks a user may set estimated cycles at to compare them with a
/// board's or a browser's time: the boards an emulated Cortex-M4 stands
/// for (an STM32F4 at 168 MHz, a NUCLEO-F446ZE or F439ZI at 180 MHz).
pub const MODEL_CLOCKS_HZ: &[u64] = &[168_000_000, 180_000_000];

/// One operation's estimate, over the same samples as the board's own
/// figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEstimate {
    /// Mean estimated cycles per call.
    pub cycles_per_op: f64,
    pub min_cycles: u64,
    pub median_cycles: u64,
    pub max_cycles: u64,
    /// The samples' standard deviation (Bessel's correction); `None` for
    /// one sample.
    pub stdev_cycles: Option<u64>,
    pub samples: u64,
    /// The share of the cycles spent in Keccak and the SHA-3/SHAKE code
    /// around it (0 to 1), as pqm4's "hashing %" counts; `None` where the
    /// image has no symbols to tell.
    pub hashing_share: Option<f64>,
    /// The same share taken per call and then averaged, as pqm4's profiling
    /// build takes it: for a rejection loop (signing) the two differ.
    /// `None` where the plugin was not told the hashing code's addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hashing_share_per_call: Option<f64>,
    /// Work in the timed window that is the harness's rather than the
    /// implementation's (allocator, copies, randomness, the timed loop), by
    /// function: what pqm4 never runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub harness: Vec<HarnessCycles>,
    /// The functions that took the most cycles, most first, with their
    /// cycles per call.
    pub functions: Vec<FunctionCycles>,
    /// The model's parameters, as the plugin was given them
    /// (`refill=2,divide=7,wait_states=0`).
    pub parameters: String,
}

/// A class of harness work and its cycles per call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessCycles {
    /// `allocator`, `copies`, `randomness` or `timed loop`.
    pub class: String,
    pub cycles_per_op: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCycles {
    /// The symbol, demangled where it is Rust's.
    pub name: String,
    pub cycles_per_op: f64,
    /// Keccak or SHA-3/SHAKE code, counted in [`ModelEstimate::hashing_share`].
    pub hashing: bool,
}

impl ModelEstimate {
    /// The estimated time of a call at `clock_hz`, in milliseconds: how an
    /// emulated run is set beside a board or a browser, as an estimate.
    pub fn ms_at(&self, clock_hz: u64) -> f64 {
        self.cycles_per_op / clock_hz as f64 * 1000.0
    }
}
