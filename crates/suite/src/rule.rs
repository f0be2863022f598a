//! How long one operation is measured and how its calls are batched: the
//! suite's rule, which a caller that must time its calls itself (a
//! browser's awaited WebCrypto) steps through too.

use pqbench_types::Clock;

use crate::measure::Settings;

/// A step of sizing a batch (see [`Rule::start_sizing`]): what the caller
/// does next. A state machine rather than a loop so that a caller who must
/// await each call (a browser's WebCrypto) sizes its batches by the same
/// steps as the suite's own synchronous loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizing {
    /// Call once, untimed.
    WarmUp,
    /// Time this many calls back to back, and say how long they took.
    Time(u32),
    /// Done: a sample is this many calls.
    Batch(u32),
}

/// How long one operation is measured and how its calls are batched: the
/// suite's rule, also for a caller that must time calls itself (a browser's
/// promise-returning WebCrypto, which a synchronous loop cannot await), so
/// that its figures are taken exactly as the suite's are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    min_ticks: u64,
    min_iterations: usize,
    /// A sample's span wanted on a coarse clock; 0 where calls are timed alone.
    wanted: u64,
}

impl Rule {
    /// The rule for `settings` on `clock`, whose smallest step is `resolution` ticks.
    pub fn new(settings: &Settings, clock: &Clock, resolution: u64) -> Rule {
        // Read on the same coarse clock, a span of n steps may truly be
        // just over n - 1: asking for one step more makes the true span of
        // a sample at least RESOLUTION_STEPS steps, so one step of rounding
        // is less than 1/RESOLUTION_STEPS of it.
        let wanted = if resolution <= 1 { 0 } else { resolution.saturating_mul(RESOLUTION_STEPS + 1) };
        Rule {
            min_ticks: u64::from(settings.min_time_ms) * clock.ticks_per_second / 1000,
            min_iterations: settings.min_iterations.max(1) as usize,
            wanted,
        }
    }

    /// Whether calls may be timed in batches at all: not on a clock that
    /// resolves a tick.
    fn batches(&self) -> bool {
        self.wanted > 0
    }

    /// The first step of sizing a batch: where the clock resolves a call
    /// well, none (a sample is one call); else one call untimed, then
    /// batches from one call up. The first call of an operation is a cold
    /// one (its code and tables not yet cached, its buffers' pages not yet
    /// touched, a browser's engine not yet past its first tier) and can
    /// take several times a warm call, which made a 0.28 µs call look long
    /// enough to time alone and a batch sized from it up to 7% too small.
    pub fn start_sizing(&self) -> Sizing {
        if self.batches() { Sizing::WarmUp } else { Sizing::Batch(1) }
    }

    /// The step after `step`, which took `elapsed` ticks if it was a
    /// [`Sizing::Time`] (the value is not read otherwise).
    pub fn after(&self, step: Sizing, elapsed: u64) -> Sizing {
        match step {
            Sizing::WarmUp => Sizing::Time(1),
            Sizing::Time(calls) => match self.next_batch(calls, elapsed) {
                Some(next) => Sizing::Time(next),
                None => Sizing::Batch(calls),
            },
            done @ Sizing::Batch(_) => done,
        }
    }

    /// While sizing a batch, from 1 call up: `calls` timed together took
    /// `elapsed` ticks; the next count to try, or `None` when `calls` is
    /// the batch.
    fn next_batch(&self, calls: u32, elapsed: u64) -> Option<u32> {
        if elapsed >= self.wanted || calls >= MAX_BATCH {
            return None;
        }
        // Below one step the time says nothing about the rate: grow fast.
        let next = match elapsed {
            0 => u64::from(calls) * 16,
            _ => u64::from(calls) * self.wanted / elapsed + 1,
        };
        Some(next.clamp(u64::from(calls) + 1, u64::from(MAX_BATCH)) as u32)
    }

    /// Whether to time another sample after `done` samples of `batch` calls
    /// took `total` ticks, with room for `capacity` samples.
    pub fn more(&self, done: usize, total: u64, batch: u32, capacity: usize) -> bool {
        // The call count must fit the record's u32.
        let max_samples = capacity.min((u32::MAX / batch.max(1)) as usize);
        done < max_samples && (done < self.min_iterations || total < self.min_ticks)
    }
}

/// Clock steps a sample spans at least: a step of rounding is then under
/// 4% of a sample, and the batch mean's whole ticks under 1% more for a
/// call of 100 ticks or longer, so batched figures round by less than 5%.
/// A call that long is still timed alone, keeping its min and max those of
/// single calls.
const RESOLUTION_STEPS: u64 = 25;
/// Calls in one batch at most: a hash of 1 KiB at a 100 µs resolution.
const MAX_BATCH: u32 = 1 << 16;
