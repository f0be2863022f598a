use core::hint::black_box;

use pqbench_types::{Algorithm, Clock, Failure, Measurement, Operation, Status};

/// What a target gives the suite: a clock and memory probes.
pub trait Platform {
    fn clock(&self) -> Clock;

    /// The current tick count; monotonic, in `clock().unit`.
    fn now(&mut self) -> u64;

    /// The smallest step `now` is seen to take, in ticks, or a fifth of
    /// what reading it costs, whichever is larger. Where it is coarser
    /// than a tick (a browser rounds `performance.now()` to microseconds),
    /// or a reading costs many ticks (a host's clock read takes tens of
    /// nanoseconds), a call quicker than a few steps is timed in batches
    /// rather than read as 0 or one step, or as mostly the clock's own cost.
    fn timer_resolution(&self) -> u64 {
        1
    }

    /// Starts watching memory: forget earlier peaks, paint the free stack.
    fn memory_start(&mut self);

    /// The peaks since `memory_start`; `None` for what this target cannot see.
    fn memory_stop(&mut self) -> MemoryUse;

    /// The stack free below the caller's frame and the heap free now, on a
    /// target small enough for this to matter; `None` where RAM is plenty.
    fn memory_budget(&self) -> Option<MemoryBudget> {
        None
    }
}

/// What a target can give an operation, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    pub stack: u32,
    pub heap: u32,
}

/// Peak memory over one operation's timed calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryUse {
    pub heap_bytes: Option<u32>,
    pub heap_allocs: Option<u32>,
    pub stack_bytes: Option<u32>,
}

/// Where results go, as they happen.
pub trait Reporter {
    fn begin(&mut self, operations: u32);
    /// About to measure the `index`-th (1-based) of `total` operations.
    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32);
    fn result(&mut self, measurement: &Measurement);
    fn end(&mut self, results: u32);
}

/// How long each operation is measured: at least this many calls and at
/// least this much time, whichever is more, within the samples' capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub min_iterations: u32,
    pub min_time_ms: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { min_iterations: 10, min_time_ms: 1000 }
    }
}

pub(crate) struct Session<'a, P, R> {
    platform: &'a mut P,
    reporter: &'a mut R,
    settings: Settings,
    samples: &'a mut [u64],
    index: u32,
    total: u32,
}

impl<'a, P: Platform, R: Reporter> Session<'a, P, R> {
    pub(crate) fn new(
        platform: &'a mut P,
        reporter: &'a mut R,
        settings: &Settings,
        samples: &'a mut [u64],
        total: u32,
    ) -> Self {
        Session { platform, reporter, settings: *settings, samples, index: 0, total }
    }

    pub(crate) fn reported(&self) -> u32 {
        self.index
    }

    fn announce(&mut self, algorithm: Algorithm, operation: Operation) {
        self.index += 1;
        self.reporter.progress(algorithm, operation, self.index, self.total);
    }

    /// Reports an operation that was not timed, with why.
    pub(crate) fn untimed(&mut self, algorithm: Algorithm, operation: Operation, status: Status) {
        self.announce(algorithm, operation);
        self.reporter.result(&Measurement::untimed(algorithm, operation, status));
    }

    pub(crate) fn memory_budget(&self) -> Option<MemoryBudget> {
        self.platform.memory_budget()
    }

    /// Reports an operation too large for this target, with what it needs.
    pub(crate) fn does_not_fit(&mut self, algorithm: Algorithm, operation: Operation, needed_bytes: u32) {
        self.announce(algorithm, operation);
        let mut measurement = Measurement::untimed(algorithm, operation, Status::DoesNotFit);
        measurement.needed_bytes = Some(needed_bytes);
        self.reporter.result(&measurement);
    }

    /// Reports every operation of `algorithm` as failed, untimed, with the
    /// self-test that did not pass: no figure of it could be trusted.
    pub(crate) fn failed(&mut self, algorithm: Algorithm, failure: Failure) {
        for &(a, operation) in crate::CATALOGUE {
            if a == algorithm {
                self.announce(algorithm, operation);
                let mut measurement = Measurement::untimed(algorithm, operation, Status::Failed);
                measurement.failure = Some(failure);
                self.reporter.result(&measurement);
            }
        }
    }

    /// Times `call` and reports the measurement.
    pub(crate) fn time<T>(&mut self, algorithm: Algorithm, operation: Operation, call: impl FnMut() -> T) {
        self.measure(algorithm, operation, None, call);
    }

    /// Times `call`, which processes `bytes` of input each time, and
    /// reports the measurement with its throughput size.
    pub(crate) fn throughput<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        bytes: u32,
        call: impl FnMut() -> T,
    ) {
        self.measure(algorithm, operation, Some(bytes), call);
    }

    fn measure<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        bytes_per_op: Option<u32>,
        mut call: impl FnMut() -> T,
    ) {
        self.announce(algorithm, operation);
        let clock = self.platform.clock();
        let min_ticks = u64::from(self.settings.min_time_ms) * clock.ticks_per_second / 1000;
        let min_iterations = self.settings.min_iterations.max(1) as usize;
        let batch = self.calls_per_sample(&mut call);

        self.platform.memory_start();
        let mut done = 0usize;
        let mut total = 0u64;
        // The call count must fit the record's u32.
        let max_samples = self.samples.len().min((u32::MAX / batch) as usize);
        while done < max_samples && (done < min_iterations || total < min_ticks) {
            let elapsed = self.timed_calls(&mut call, batch);
            // A batch's per-call mean, rounded down so that `iterations *
            // min <= total` still holds.
            self.samples[done] = elapsed / u64::from(batch);
            total += elapsed;
            done += 1;
        }
        let memory = self.platform.memory_stop();

        let measurement = if done == 0 {
            // No room for even one sample: the caller gave no buffer.
            Measurement::untimed(algorithm, operation, Status::Skipped)
        } else {
            let taken = &mut self.samples[..done];
            taken.sort_unstable();
            Measurement {
                iterations: done as u32 * batch,
                batch: (batch > 1).then_some(batch),
                total_ticks: total,
                min_ticks: taken[0],
                median_ticks: median(taken),
                max_ticks: taken[done - 1],
                heap_bytes: memory.heap_bytes,
                heap_allocs: memory.heap_allocs,
                stack_bytes: memory.stack_bytes,
                bytes_per_op,
                ..Measurement::untimed(algorithm, operation, Status::Ok)
            }
        };
        self.reporter.result(&measurement);
    }

    /// Times `calls` calls back to back; the ticks they took together.
    fn timed_calls<T>(&mut self, call: &mut impl FnMut() -> T, calls: u32) -> u64 {
        // Hiding the closure (and so everything it captures) from the
        // optimiser keeps a pure call on unchanging inputs (a hash, a
        // verification) from being hoisted out of the loop or its output
        // stores from being dropped.
        let call = black_box(call);
        let start = self.platform.now();
        for _ in 0..calls {
            // Dropping the output inside the timed window is part of the
            // operation's cost (zeroising keys), as it is for a caller.
            drop(black_box(call()));
        }
        self.platform.now().saturating_sub(start)
    }

    /// How many calls each sample times: one where the clock resolves a
    /// call well, else enough for a sample to span more than
    /// [`RESOLUTION_STEPS`] steps of the clock.
    fn calls_per_sample<T>(&mut self, call: &mut impl FnMut() -> T) -> u32 {
        let resolution = self.platform.timer_resolution();
        if resolution <= 1 {
            return 1;
        }
        // Read on the same coarse clock, a span of n steps may truly be
        // just over n - 1: asking for one step more makes the true span of
        // a sample at least RESOLUTION_STEPS steps, so one step of rounding
        // is less than 1/RESOLUTION_STEPS of it.
        let wanted = resolution.saturating_mul(RESOLUTION_STEPS + 1);
        let mut calls = 1u32;
        loop {
            let elapsed = self.timed_calls(call, calls);
            if elapsed >= wanted || calls >= MAX_BATCH {
                return calls;
            }
            // Below one step the time says nothing about the rate: grow fast.
            let next = match elapsed {
                0 => u64::from(calls) * 16,
                _ => u64::from(calls) * wanted / elapsed + 1,
            };
            calls = next.clamp(u64::from(calls) + 1, u64::from(MAX_BATCH)) as u32;
        }
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

/// The median of sorted samples; for an even count, the lower middle, so
/// that the figure is one that was actually measured.
pub(crate) fn median(sorted: &[u64]) -> u64 {
    sorted[(sorted.len() - 1) / 2]
}
