//! What memory a run's cycles were counted with: the core clock, the flash
//! wait states and the caches in front of the flash, as the firmware read
//! them back from the chip after its clock bring-up and said them in its
//! `hello` (`flash_wait_states`, `caches`; a run keeps both in its build's
//! `extra`, docs/record-format.md).
//!
//! Wait states alone move ML-KEM and ML-DSA cycle counts by a fifth or
//! more, so a cycle count says little without them, and two runs' ratio
//! mixes code with memory timing when they differ.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::Run;

/// One run's memory timing, as its firmware said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryTiming {
    pub clock_hz: Option<u64>,
    /// FLASH_ACR LATENCY as sent (`5`), or `emulated`.
    pub wait_states: String,
    /// `art`, `icache-prefetch`, `none`, `emulated`, or the parts that are
    /// on joined by `-`.
    pub caches: String,
}

impl MemoryTiming {
    /// The run's timing; `None` for firmware older than the fields, an
    /// upload or a browser run, which say nothing of flash.
    pub fn of(run: &Run) -> Option<MemoryTiming> {
        let said = |key: &str| run.build.extra.get(key).cloned();
        Some(MemoryTiming {
            clock_hz: run.clock_hz,
            wait_states: said("flash_wait_states")?,
            caches: said("caches")?,
        })
    }

    /// "180 MHz, 5 flash wait states, ART on"; "25 MHz, emulated: no flash
    /// timing".
    pub fn describe(&self) -> String {
        let clock = self.clock_hz.map(|hz| format!("{} MHz, ", hz as f64 / 1e6)).unwrap_or_default();
        if self.wait_states == "emulated" {
            return format!("{clock}emulated: no flash timing");
        }
        let plural = if self.wait_states == "1" { "" } else { "s" };
        let caches = match self.caches.as_str() {
            "art" => String::from("ART on"),
            "none" => String::from("no cache"),
            parts => format!("{} on", parts.replace('-', " + ")),
        };
        format!("{clock}{} flash wait state{plural}, {caches}", self.wait_states)
    }
}

/// A warning when the runs' cycles were counted with different memory
/// timing, naming each; `None` when they agree or fewer than two say.
/// Runs that say nothing (older firmware, uploads) are left out: there is
/// nothing to compare them by.
pub fn mixed_timing_warning(runs: &[(i64, MemoryTiming)]) -> Option<String> {
    let (_, first) = runs.first()?;
    if runs.iter().all(|(_, timing)| timing == first) {
        return None;
    }
    let each = runs
        .iter()
        .map(|(id, timing)| format!("run {id}: {}", timing.describe()))
        .collect::<Vec<_>>()
        .join("; ");
    Some(format!(
        "These runs ran with different flash timing, which moves cycle counts as much as code does: {each}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pqbench_types::{Build, RunStatus, Source};

    fn run(id: i64, clock_hz: u64, fields: &[(&str, &str)]) -> Run {
        let mut build = Build::default();
        for (k, v) in fields {
            build.extra.insert(String::from(*k), String::from(*v));
        }
        Run {
            id,
            status: RunStatus::Complete,
            source: Source::Serial,
            board: String::from("nucleo-f446ze"),
            clock_hz: Some(clock_hz),
            build,
            started_at: String::new(),
            finished_at: None,
            error: None,
            rejected_records: 0,
            notes: None,
            host: None,
        }
    }

    fn timing(r: &Run) -> MemoryTiming {
        MemoryTiming::of(r).expect("the run says its timing")
    }

    #[test]
    fn a_run_is_described_by_its_clock_wait_states_and_caches() {
        let full = run(1, 180_000_000, &[("flash_wait_states", "5"), ("caches", "art")]);
        assert_eq!(timing(&full).describe(), "180 MHz, 5 flash wait states, ART on");
        let u5 = run(2, 160_000_000, &[("flash_wait_states", "4"), ("caches", "icache-prefetch")]);
        assert_eq!(timing(&u5).describe(), "160 MHz, 4 flash wait states, icache + prefetch on");
        let slow = run(3, 24_000_000, &[("flash_wait_states", "0"), ("caches", "none")]);
        assert_eq!(timing(&slow).describe(), "24 MHz, 0 flash wait states, no cache");
        let one = run(4, 30_000_000, &[("flash_wait_states", "1"), ("caches", "art")]);
        assert_eq!(timing(&one).describe(), "30 MHz, 1 flash wait state, ART on");
        let qemu = run(5, 25_000_000, &[("flash_wait_states", "emulated"), ("caches", "emulated")]);
        assert_eq!(timing(&qemu).describe(), "25 MHz, emulated: no flash timing");
        // Older firmware, or only half of the pair: nothing to say.
        assert_eq!(MemoryTiming::of(&run(6, 180_000_000, &[])), None);
        assert_eq!(MemoryTiming::of(&run(7, 180_000_000, &[("caches", "art")])), None);
    }

    #[test]
    fn runs_with_different_wait_states_are_warned_of_and_equal_ones_are_not() {
        let full = run(1, 180_000_000, &[("flash_wait_states", "5"), ("caches", "art")]);
        let again = run(2, 180_000_000, &[("flash_wait_states", "5"), ("caches", "art")]);
        let zero = run(3, 24_000_000, &[("flash_wait_states", "0"), ("caches", "art")]);
        let same = [(1, timing(&full)), (2, timing(&again))];
        assert_eq!(mixed_timing_warning(&same), None);
        assert_eq!(mixed_timing_warning(&same[..1]), None);
        assert_eq!(mixed_timing_warning(&[]), None);
        let mixed = [(1, timing(&full)), (3, timing(&zero))];
        let warning = mixed_timing_warning(&mixed).expect("different wait states are warned of");
        assert!(warning.contains("run 1: 180 MHz, 5 flash wait states, ART on"), "{warning}");
        assert!(warning.contains("run 3: 24 MHz, 0 flash wait states, ART on"), "{warning}");
        // The caches alone differing is a difference too.
        let no_cache = run(4, 180_000_000, &[("flash_wait_states", "5"), ("caches", "none")]);
        assert!(mixed_timing_warning(&[(1, timing(&full)), (4, timing(&no_cache))]).is_some());
    }
}
