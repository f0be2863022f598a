//! The board's memory probes: its heap and stack bounds, fed to the
//! suite's shared counter and painter.

use core::alloc::{GlobalAlloc, Layout};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicUsize, Ordering};

use embedded_alloc::LlffHeap;
use pqbench_suite::probe::{self, HeapCounter};
use pqbench_suite::{MemoryBudget, MemoryUse};

use crate::boards::board;

#[global_allocator]
static HEAP: CountingHeap = CountingHeap { inner: LlffHeap::empty(), counter: HeapCounter::new() };

struct CountingHeap {
    inner: LlffHeap,
    counter: HeapCounter,
}

unsafe impl GlobalAlloc for CountingHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let block = unsafe { self.inner.alloc(layout) };
        if !block.is_null() {
            self.counter.allocated(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.dealloc(block, layout) };
        self.counter.freed(layout.size());
    }
}

pub fn init_heap() {
    static mut ARENA: [MaybeUninit<u8>; board::HEAP_BYTES] = [MaybeUninit::uninit(); board::HEAP_BYTES];
    // SAFETY: called once, before the first allocation; nothing else names ARENA.
    unsafe { HEAP.inner.init(&raw mut ARENA as usize, board::HEAP_BYTES) }
}

/// The top of the painted stack.
static PAINT_TOP: AtomicUsize = AtomicUsize::new(0);

/// The stack pointer where the window's calls are made
/// ([`stack_reference`]), 0 until told: an operation's stack is measured
/// from here down to the deepest word it wrote. The paint's top lies a few
/// frames and [`PAINT_MARGIN`] below the window's opener, so measuring from
/// it left out the calls' first 50 to 100 bytes.
static CALLS_TOP: AtomicUsize = AtomicUsize::new(0);

/// The suite's calls begin at `stack_pointer`.
pub fn stack_reference(stack_pointer: usize) {
    CALLS_TOP.store(stack_pointer, Ordering::Relaxed);
}

/// Left unpainted below the stack pointer, so painting never writes over
/// the painter's own frame.
const PAINT_MARGIN: usize = 64;

unsafe extern "C" {
    /// Lowest address of the stack (cortex-m-rt), from the board's memory map.
    static _stack_end: u32;
}

fn stack_bottom() -> usize {
    &raw const _stack_end as usize
}

/// Where the algorithm now running began, below the run loop's frame (0:
/// none yet), and the lowest address its stack has reached since: every
/// repaint of a window first folds in what the paint below it shows, so
/// nothing the algorithm used is painted over unseen.
static ALGORITHM_TOP: AtomicUsize = AtomicUsize::new(0);
static ALGORITHM_DEEPEST: AtomicUsize = AtomicUsize::new(0);

/// Called from the suite's run loop before an algorithm runs: paints the
/// free stack, so that its frame, self-test and operations all show.
pub fn algorithm_start() {
    let top = (cortex_m::register::msp::read() as usize - PAINT_MARGIN) & !3;
    ALGORITHM_TOP.store(top, Ordering::Relaxed);
    ALGORITHM_DEEPEST.store(top, Ordering::Relaxed);
    // SAFETY: as in `start`: below every live frame.
    unsafe { probe::paint_stack(stack_bottom(), top) };
}

/// Folds the lowest address the paint shows used into the algorithm's
/// deepest; `None` once the paint is gone at the bottom (an overflow).
fn fold_algorithm_depth() -> Option<u32> {
    let top = ALGORITHM_TOP.load(Ordering::Relaxed);
    if top == 0 {
        return None;
    }
    // SAFETY: [bottom, top) was painted by `algorithm_start`, and each
    // repaint since by `start` lay within it; the words above a window's
    // top are live frames, which read as used, as they are.
    let used = unsafe { probe::stack_used(stack_bottom(), top) }?;
    let deepest = ALGORITHM_DEEPEST.load(Ordering::Relaxed).min(top - used as usize);
    ALGORITHM_DEEPEST.store(deepest, Ordering::Relaxed);
    u32::try_from(top - deepest).ok()
}

pub fn start() {
    HEAP.counter.open_window();
    let _ = fold_algorithm_depth();
    let top = (cortex_m::register::msp::read() as usize - PAINT_MARGIN) & !3;
    PAINT_TOP.store(top, Ordering::Relaxed);
    CALLS_TOP.store(0, Ordering::Relaxed);
    // SAFETY: [stack bottom, top) lies below every live frame, and nothing
    // else runs on this stack: the emulated boards' SysTick is polled, and
    // a chip's cycle counter needs no interrupt.
    unsafe { probe::paint_stack(stack_bottom(), top) };
}

pub fn stop() -> MemoryUse {
    let (heap_bytes, heap_allocs) = HEAP.counter.close_window();
    let paint_top = PAINT_TOP.load(Ordering::Relaxed);
    // SAFETY: the range `start` painted.
    let painted = unsafe { probe::stack_used(stack_bottom(), paint_top) };
    // From the calls' own top where it is known, to the deepest word
    // written. A call that reached no deeper than the paint's top used at
    // most the gap between the two: the figure is then that bound.
    let stack_bytes = match CALLS_TOP.load(Ordering::Relaxed) {
        0 => painted,
        calls_top => {
            painted.and_then(|used| u32::try_from(calls_top.checked_sub(paint_top - used as usize)?).ok())
        }
    };
    let stack_depth_bytes = fold_algorithm_depth();
    MemoryUse { heap_bytes, heap_allocs, stack_bytes, stack_depth_bytes }
}

/// The stack free below the caller and the heap not in use.
pub fn budget() -> MemoryBudget {
    let stack = (cortex_m::register::msp::read() as usize).saturating_sub(stack_bottom());
    let heap = board::HEAP_BYTES.saturating_sub(HEAP.counter.in_use());
    MemoryBudget { stack: stack as u32, heap: heap as u32 }
}
