use core::hint::black_box;

use pqbench_types::{Algorithm, Clock, Failure, KeyFormat, Measurement, Measuring, Operation, Status};

use crate::rule::{Rule, Sizing};
use crate::summary::summarise;

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

    /// An algorithm is about to begin, called from the suite's run loop:
    /// a target that can (a board) watches from here how deep the stack
    /// goes until the next call, across the algorithm's benchmark frame,
    /// self-test and operations, and says so in each window's
    /// [`MemoryUse::stack_depth_bytes`]. That depth, not the operation's
    /// own stack, is what a board must have free for the algorithm.
    fn algorithm_start(&mut self) {}

    /// Where the suite stands in an operation's measurement, for a target
    /// watched from outside the program: the emulated boards' Cortex-M4
    /// timing model (`pqbench-qemu-m4-plugin`) charges each sample's
    /// instructions its estimated cycles and attributes them to functions.
    /// Nothing, and no cost, on any other target.
    fn mark(&mut self, _mark: Mark) {}

    /// The calls a memory window measures begin at this depth: called,
    /// inlined, in the frame that makes them, just before it does, so a
    /// target may take the stack pointer here as the top of their stack
    /// (what a call uses below its caller's frame, as pqm4 counts it).
    /// Nothing on a target that does not see its stack.
    #[inline(always)]
    fn stack_reference(&mut self) {}

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

/// The points of a measurement [`Platform::mark`] is told of. One
/// operation's reported samples are exactly those between its
/// `OperationStart` and `OperationEnd`, in order, each between a
/// `SampleStart` and a `SampleEnd` that enclose its two clock readings; the
/// calls that size a batch come before `OperationStart`. Every operation
/// the suite measures is marked, whatever its record's status, and its
/// `OperationEnd` comes before its record is sent; one it does not measure
/// (skipped, failed, too large) is not marked at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Mark {
    OperationStart = 1,
    SampleStart = 2,
    SampleEnd = 3,
    OperationEnd = 4,
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
    /// How far below the run loop the stack had reached since the
    /// algorithm began ([`Platform::algorithm_start`]); `None` where the
    /// target does not watch it.
    pub stack_depth_bytes: Option<u32>,
}

/// Where results go, as they happen.
pub trait Reporter {
    fn begin(&mut self, operations: u32);
    /// About to measure the `index`-th (1-based) of `total` operations.
    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32);
    /// Where the operation being measured stands: once before anything of
    /// it runs, then between two calls each time another [`BEAT_MS`] of
    /// board time has been timed since the last. Never inside a timed call,
    /// and in none of the figures: see `Session::measure`.
    ///
    /// A board sends it so that its host, which gives up on a board silent
    /// for too long, can tell a long measurement from a dead board. A
    /// reporter read by nothing with a silence limit may ignore it.
    fn measuring(&mut self, status: &Measuring);
    fn result(&mut self, measurement: &Measurement);
    fn end(&mut self, results: u32);
}

/// The most board time timed between two [`Reporter::measuring`] calls of
/// one operation (the call that crosses it ends first).
///
/// One second: a host's silence limit is tens of seconds, and an emulated
/// board runs several times slower than its clock says (QEMU under
/// `-icount shift=0` counts a nanosecond per instruction and runs 100 to
/// 400 million a second), so a beat every board second is still a record
/// every few host seconds there. On a real board it costs one short record
/// a second, outside the timed calls.
pub const BEAT_MS: u32 = 1000;

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

    /// Reports each of the algorithm's operations `does_not_fit` with no
    /// byte count: its code is not in this build, left out for the flash
    /// ([`crate::in_this_build`]).
    pub(crate) fn not_in_this_build(&mut self, algorithm: Algorithm) {
        for &(a, operation) in crate::CATALOGUE {
            if a == algorithm {
                self.untimed(algorithm, operation, Status::DoesNotFit);
            }
        }
    }

    /// Reports an operation that was not timed, with why.
    pub(crate) fn untimed(&mut self, algorithm: Algorithm, operation: Operation, status: Status) {
        self.announce(algorithm, operation);
        self.reporter.result(&Measurement::untimed(algorithm, operation, status));
    }

    pub(crate) fn memory_budget(&self) -> Option<MemoryBudget> {
        self.platform.memory_budget()
    }

    /// `algorithm` is about to run: see [`Platform::algorithm_start`].
    pub(crate) fn algorithm_start(&mut self) {
        self.platform.algorithm_start();
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

    /// Times `call`, which is given its key in the form `keys` (for a key
    /// generation, gives its keys back so), and reports the measurement.
    pub(crate) fn time<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        keys: KeyFormat,
        call: impl FnMut() -> T,
    ) {
        self.measure(algorithm, operation, Some(keys), None, call);
    }

    /// Times `call`, a stateful signer's signature (given its key in the
    /// form `keys`), which may be called at most `states` times: each call
    /// spends one of the key's states, and one spent twice gives the key
    /// away. The calls that size a batch are counted too; once fewer than a
    /// batch are left, no more samples are taken, even short of the
    /// settings' minimums (the record's iterations say how many were).
    pub(crate) fn time_stateful<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        keys: KeyFormat,
        states: u64,
        mut call: impl FnMut() -> T,
    ) {
        let spent = core::cell::Cell::new(0u64);
        let counted = || {
            spent.set(spent.get() + 1);
            call()
        };
        self.measure_within(algorithm, operation, Some(keys), None, Some((states, &spent)), counted);
    }

    /// Times `call`, which processes `bytes` of input each time with a key
    /// in the form `keys` (`None`: it takes none, as a hash), and reports
    /// the measurement with its throughput size.
    pub(crate) fn throughput<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        keys: Option<KeyFormat>,
        bytes: u32,
        call: impl FnMut() -> T,
    ) {
        self.measure(algorithm, operation, keys, Some(bytes), call);
    }

    fn measure<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        keys: Option<KeyFormat>,
        bytes_per_op: Option<u32>,
        call: impl FnMut() -> T,
    ) {
        self.measure_within(algorithm, operation, keys, bytes_per_op, None, call);
    }

    /// `measure`, with at most `limit.0` calls in all where there is a
    /// limit, `limit.1` counting those made so far.
    fn measure_within<T>(
        &mut self,
        algorithm: Algorithm,
        operation: Operation,
        keys: Option<KeyFormat>,
        bytes_per_op: Option<u32>,
        limit: Option<(u64, &core::cell::Cell<u64>)>,
        mut call: impl FnMut() -> T,
    ) {
        self.announce(algorithm, operation);
        let clock = self.platform.clock();
        let rule = Rule::new(&self.settings, &clock, self.platform.timer_resolution());
        let beat_ticks = (u64::from(BEAT_MS) * clock.ticks_per_second / 1000).max(1);
        let mut status = Measuring {
            algorithm,
            operation,
            min_time_ms: self.settings.min_time_ms,
            beat_ms: BEAT_MS,
            calls: 0,
            elapsed_ticks: 0,
            slowest_ticks: 0,
        };
        // Before anything of the operation runs, batch sizing included: how
        // long it will measure at least, and how often it will say so.
        self.say_measuring(&status);
        let batch = self.calls_per_sample(&rule, &mut call);

        // Peaks of the memory windows closed so far: each beat is reported
        // between two windows, so its own stack and heap are in neither.
        let mut closed: Option<MemoryUse> = None;
        self.memory_window(None, &mut closed);
        let mut done = 0usize;
        let mut total = 0u64;
        let mut slowest = 0u64;
        // `total` when the last beat was sent. Beats follow the timed ticks
        // alone: the sum of the samples' own readings, so a beat needs no
        // clock reading of its own, inside or outside the timed calls.
        let mut beaten = 0u64;
        // Room for the samples, and within the limit's calls: those left
        // after sizing, a batch to a sample.
        let within = limit.map_or(usize::MAX, |(calls, spent)| {
            usize::try_from(calls.saturating_sub(spent.get()) / u64::from(batch)).unwrap_or(usize::MAX)
        });
        let capacity = self.samples.len().min(within);
        let more = |done: usize, total: u64| rule.more(done, total, batch, capacity);
        self.platform.mark(Mark::OperationStart);
        while more(done, total) {
            // The operation's stack is what the timed calls use below this
            // frame: their loop's frame (out of line, below) with the
            // outputs it holds, and the calls under it.
            self.platform.stack_reference();
            let elapsed = self.timed_calls(&mut call, batch);
            // A batch's per-call mean, rounded down so that `iterations *
            // min <= total` still holds.
            self.samples[done] = elapsed / u64::from(batch);
            total += elapsed;
            slowest = slowest.max(elapsed);
            done += 1;
            // Only between two calls, and not after the last: its result
            // follows at once.
            if total - beaten >= beat_ticks && more(done, total) {
                // `done * batch` fits: `max_samples` is bounded for it.
                status.calls = done as u32 * batch;
                status.elapsed_ticks = total;
                status.slowest_ticks = slowest;
                self.memory_window(Some(&status), &mut closed);
                beaten = total;
            }
        }
        self.platform.mark(Mark::OperationEnd);
        let memory = self.last_memory_window(closed);

        let mut measurement = summarise(algorithm, operation, &mut self.samples[..done], batch, total);
        if measurement.status == Status::Ok {
            measurement.heap_bytes = memory.heap_bytes;
            measurement.heap_allocs = memory.heap_allocs;
            measurement.stack_bytes = memory.stack_bytes;
            measurement.stack_depth_bytes = memory.stack_depth_bytes;
            measurement.bytes_per_op = bytes_per_op;
            measurement.key_format = keys;
        }
        self.reporter.result(&measurement);
    }

    /// The reporter's `measuring`, out of line: `measure` has a copy for
    /// every operation's call, and the record's formatting in each would
    /// cost a small board's flash.
    #[inline(never)]
    fn say_measuring(&mut self, status: &Measuring) {
        self.reporter.measuring(status);
    }

    /// Opens the next memory window of an operation: first closes the open
    /// one, if any, keeping its peaks in `closed`, and says where measuring
    /// stands (`beat`), between the two windows so that the record's own
    /// stack and heap are in neither.
    ///
    /// Every window of an operation is opened here, called from
    /// `measure`'s frame: a target paints the stack below its caller, so
    /// all of them start at one depth and their peaks compare. This frame
    /// is kept small (the work is in `say_between_windows`), as the stack
    /// it takes is below the painted stack's top, in no figure. Out of line
    /// also because `measure` has a copy for every operation's call, and
    /// this code in each would cost a small board's flash.
    #[inline(never)]
    fn memory_window(&mut self, beat: Option<&Measuring>, closed: &mut Option<MemoryUse>) {
        if let Some(status) = beat {
            self.say_between_windows(status, closed);
        }
        self.platform.memory_start();
    }

    #[inline(never)]
    fn say_between_windows(&mut self, status: &Measuring, closed: &mut Option<MemoryUse>) {
        *closed = Some(peaks(*closed, self.platform.memory_stop()));
        self.reporter.measuring(status);
    }

    /// Closes the operation's last memory window: its peaks and those of
    /// the windows before it.
    #[inline(never)]
    fn last_memory_window(&mut self, closed: Option<MemoryUse>) -> MemoryUse {
        peaks(closed, self.platform.memory_stop())
    }

    /// Times `calls` calls back to back; the ticks they took together.
    /// Out of line, so that what it holds (a call's outputs, whatever of
    /// the call the compiler inlines) is always in its own frame, below
    /// the stack reference `measure` takes: inlined, some of it would sit
    /// above the reference in one build and below it in another.
    #[inline(never)]
    fn timed_calls<T>(&mut self, call: &mut impl FnMut() -> T, calls: u32) -> u64 {
        // Hiding the closure (and so everything it captures) from the
        // optimiser keeps a pure call on unchanging inputs (a hash, a
        // verification) from being hoisted out of the loop or its output
        // stores from being dropped.
        let call = black_box(call);
        self.platform.mark(Mark::SampleStart);
        let start = self.platform.now();
        for _ in 0..calls {
            // Dropping the output inside the timed window is part of the
            // operation's cost (zeroising keys), as it is for a caller.
            drop(black_box(call()));
        }
        let elapsed = self.platform.now().saturating_sub(start);
        self.platform.mark(Mark::SampleEnd);
        elapsed
    }

    /// How many calls each sample times: one where the clock resolves a
    /// call well, else enough for a sample to span more than
    /// [`RESOLUTION_STEPS`] steps of the clock.
    fn calls_per_sample<T>(&mut self, rule: &Rule, call: &mut impl FnMut() -> T) -> u32 {
        let mut step = rule.start_sizing();
        loop {
            step = match step {
                Sizing::WarmUp => {
                    black_box(call());
                    rule.after(step, 0)
                }
                Sizing::Time(calls) => {
                    let elapsed = self.timed_calls(call, calls);
                    rule.after(step, elapsed)
                }
                Sizing::Batch(calls) => return calls,
            }
        }
    }
}

/// The peaks of two memory windows of one operation: the higher of each,
/// and unknown where either is (a target that cannot see it, or a stack
/// that overflowed its paint). Each window's heap is counted above what was
/// held when it opened, which between two calls is what was held before
/// the first: their outputs are dropped inside the timed calls.
pub(crate) fn peaks(earlier: Option<MemoryUse>, later: MemoryUse) -> MemoryUse {
    let Some(earlier) = earlier else { return later };
    let higher = |a: Option<u32>, b: Option<u32>| Some(a?.max(b?));
    MemoryUse {
        heap_bytes: higher(earlier.heap_bytes, later.heap_bytes),
        heap_allocs: higher(earlier.heap_allocs, later.heap_allocs),
        stack_bytes: higher(earlier.stack_bytes, later.stack_bytes),
        stack_depth_bytes: higher(earlier.stack_depth_bytes, later.stack_depth_bytes),
    }
}
