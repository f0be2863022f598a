//! The suite on this host's CPU, measured as a board is: a nanosecond
//! clock, a counting allocator, and stack painting on the thread that runs it.
//!
//! The third of the suite's targets, beside `firmware/` (a board) and
//! `wasm-bench/` (a browser). Its figures leave as an [`Upload`], as a
//! browser's do. Heap is counted only by a binary whose global allocator is
//! [`CountingAllocator`]: `pqbench-native` (the `pqbench` package's second
//! binary), which `pqbench bench --native` runs as a process of its own, so
//! the server itself allocates through the system's allocator untouched.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Instant;

use pqbench_api::Upload;
use pqbench_suite::probe::{self, HeapCounter};
use pqbench_suite::{MemoryUse, Platform, Reporter, Settings};
use pqbench_types::{Algorithm, Build, Clock, Measurement, Measuring, Operation, Source, TickUnit};

/// The allocator of the `pqbench-native` binary: the system's, counting what
/// the benchmark thread allocates (and nothing of the other threads).
pub struct CountingAllocator;

static HEAP: HeapCounter = HeapCounter::new();

thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn counted() -> bool {
    COUNTED.try_with(Cell::get).unwrap_or(false)
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() && counted() {
            HEAP.allocated(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(block, layout) };
        if counted() {
            HEAP.freed(layout.size());
        }
    }
}

const CLOCK: Clock = Clock { ticks_per_second: 1_000_000_000, unit: TickUnit::Nanoseconds };

/// The benchmark thread's stack; it is painted below the running frame.
const STACK_BYTES: usize = 16 << 20;
/// Kept clear of the stack's end: the guard page, and what the runtime
/// puts at the thread's start.
const STACK_RESERVE: usize = 256 << 10;
/// Left unpainted below the painter's own frame.
const PAINT_MARGIN: usize = 64;
/// Per-call samples of one operation; bounds its iterations.
const MAX_SAMPLES: usize = 1 << 16;

struct Host {
    epoch: Instant,
    /// What one reading of the clock costs, in nanoseconds.
    read_cost_ns: u64,
    /// The lowest stack address that may be painted.
    stack_bottom: usize,
    paint_top: usize,
    /// Whether the global allocator is this binary's counting one.
    heap_counted: bool,
}

#[inline(never)]
fn stack_pointer() -> usize {
    let local = 0u8;
    std::hint::black_box(&raw const local) as usize
}

impl Platform for Host {
    fn clock(&self) -> Clock {
        CLOCK
    }

    fn now(&mut self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// The clock counts nanoseconds, but a reading costs tens of them: a
    /// call shorter than about 100 readings is timed in batches (a sample
    /// spans 25 of these steps, so 100 readings), as in a browser, so that
    /// what is measured is the call and not the clock.
    fn timer_resolution(&self) -> u64 {
        self.read_cost_ns.saturating_mul(4).max(1)
    }

    fn memory_start(&mut self) {
        HEAP.open_window();
        self.paint_top = (stack_pointer() - PAINT_MARGIN) & !3;
        // SAFETY: [bottom, top) is this thread's stack below every live
        // frame, above its guard page; no other thread uses it.
        unsafe { probe::paint_stack(self.stack_bottom, self.paint_top) };
    }

    fn memory_stop(&mut self) -> MemoryUse {
        let (heap_bytes, heap_allocs) = HEAP.close_window();
        // SAFETY: the range `memory_start` painted.
        let stack_bytes = unsafe { probe::stack_used(self.stack_bottom, self.paint_top) };
        let (heap_bytes, heap_allocs) =
            if self.heap_counted { (heap_bytes, heap_allocs) } else { (None, None) };
        MemoryUse { heap_bytes, heap_allocs, stack_bytes, stack_depth_bytes: None }
    }
}

/// Progress as the suite reports it, for a progress bar.
pub struct Progress<'a>(pub &'a mut dyn FnMut(Algorithm, Operation, u32, u32));

struct Collect<'a> {
    progress: Progress<'a>,
    measurements: Vec<Measurement>,
}

impl Reporter for Collect<'_> {
    fn begin(&mut self, _operations: u32) {}
    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32) {
        (self.progress.0)(algorithm, operation, index, total);
    }
    /// Ignored: the suite runs in this process, which waits for it without
    /// a silence limit, and the progress bar moves per operation.
    fn measuring(&mut self, _status: &Measuring) {}
    fn result(&mut self, measurement: &Measurement) {
        self.measurements.push(*measurement);
    }
    fn end(&mut self, _results: u32) {}
}

/// Runs the suite on this host and returns it as an upload.
///
/// `heap_counted` says whether the binary's global allocator is
/// [`CountingAllocator`]; without it, heap figures are left unmeasured.
pub fn run(
    settings: Settings,
    algorithms: Option<Vec<Algorithm>>,
    heap_counted: bool,
    // Not generic: the suite's code is then compiled here, in this crate,
    // at the opt-level Cargo.toml gives it in debug builds, not at the
    // caller's.
    progress: &mut (dyn FnMut(Algorithm, Operation, u32, u32) + Send),
) -> std::io::Result<Upload> {
    let measurements = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("pqbench-native".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || {
                COUNTED.with(|c| c.set(true));
                let top = stack_pointer();
                let mut host = Host {
                    epoch: Instant::now(),
                    read_cost_ns: clock_read_cost_ns(),
                    stack_bottom: (top - (STACK_BYTES - STACK_RESERVE)).next_multiple_of(4),
                    paint_top: 0,
                    heap_counted,
                };
                let mut reporter = Collect { progress: Progress(&mut *progress), measurements: Vec::new() };
                let mut samples = vec![0u64; MAX_SAMPLES];
                let selected = |a: Algorithm| algorithms.as_ref().is_none_or(|list| list.contains(&a));
                pqbench_suite::run(&mut host, &mut reporter, &settings, selected, &mut samples);
                COUNTED.with(|c| c.set(false));
                reporter.measurements
            })
            .map(|thread| thread.join())
    })?
    .map_err(|_| std::io::Error::other("the benchmark thread panicked"))?;

    Ok(Upload {
        source: Source::Native,
        board: format!("native:{}", host_name()),
        ticks_per_second: CLOCK.ticks_per_second,
        tick_unit: CLOCK.unit,
        clock_hz: None,
        build: build(),
        measurements,
        notes: Vec::new(),
    })
}

/// What one reading of the clock costs: the quickest of a few rounds of
/// 10,000 readings, each round's mean (the quickest is the one least
/// interrupted by the rest of the machine).
fn clock_read_cost_ns() -> u64 {
    const READS: u32 = 10_000;
    let round = || {
        let start = Instant::now();
        for _ in 0..READS {
            std::hint::black_box(Instant::now());
        }
        start.elapsed().as_nanos() as u64 / u64::from(READS)
    };
    (0..5).map(|_| round()).min().unwrap_or(1).max(1)
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or_else(|| "localhost".into())
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn build() -> Build {
    let mut build = pqbench_types::compiled_build!();
    if let Some(cpu) = cpu_model() {
        build.extra.insert("cpu".to_owned(), cpu);
    }
    if let Ok(cores) = std::thread::available_parallelism() {
        build.extra.insert("cores".to_owned(), cores.to_string());
    }
    build.extra.insert("clock_read_ns".to_owned(), clock_read_cost_ns().to_string());
    build
}
