//! Memory probes: a counting global allocator for heap peaks, and stack
//! painting for stack peaks (pqm4's method).

use core::alloc::{GlobalAlloc, Layout};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicUsize, Ordering};

use embedded_alloc::LlffHeap;
use pqbench_suite::MemoryUse;

use crate::boards::board;

#[global_allocator]
static HEAP: CountingHeap = CountingHeap {
    inner: LlffHeap::empty(),
    in_use: AtomicUsize::new(0),
    peak: AtomicUsize::new(0),
    allocations: AtomicUsize::new(0),
};

/// Wraps the allocator to keep what the suite reports: bytes in use, their
/// peak, and how many allocations were made.
struct CountingHeap {
    inner: LlffHeap,
    in_use: AtomicUsize,
    peak: AtomicUsize,
    allocations: AtomicUsize,
}

unsafe impl GlobalAlloc for CountingHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let block = unsafe { self.inner.alloc(layout) };
        if !block.is_null() {
            let now = self.in_use.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            self.peak.fetch_max(now, Ordering::Relaxed);
            self.allocations.fetch_add(1, Ordering::Relaxed);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.dealloc(block, layout) };
        self.in_use.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

pub fn init_heap() {
    static mut ARENA: [MaybeUninit<u8>; board::HEAP_BYTES] = [MaybeUninit::uninit(); board::HEAP_BYTES];
    // SAFETY: called once, before the first allocation; nothing else names ARENA.
    unsafe { HEAP.inner.init(&raw mut ARENA as usize, board::HEAP_BYTES) }
}

/// The heap in use when the window opened: the operation's peak is above it.
static HEAP_BASELINE: AtomicUsize = AtomicUsize::new(0);
/// The top of the painted stack: the operation's stack is measured from here.
static PAINT_TOP: AtomicUsize = AtomicUsize::new(0);

const PAINT: u32 = 0xCCCC_CCCC;
/// Left unpainted below the painter's own frame, so painting never writes
/// over a live frame.
const PAINT_MARGIN: usize = 64;

unsafe extern "C" {
    /// Lowest address of the stack (cortex-m-rt), from the board's memory map.
    static _stack_end: u32;
}

pub fn start() {
    let in_use = HEAP.in_use.load(Ordering::Relaxed);
    HEAP_BASELINE.store(in_use, Ordering::Relaxed);
    HEAP.peak.store(in_use, Ordering::Relaxed);
    HEAP.allocations.store(0, Ordering::Relaxed);
    paint_stack();
}

#[inline(never)]
fn paint_stack() {
    let bottom = &raw const _stack_end as usize;
    let top = (cortex_m::register::msp::read() as usize - PAINT_MARGIN) & !3;
    PAINT_TOP.store(top, Ordering::Relaxed);
    let mut word = bottom;
    while word < top {
        // SAFETY: [bottom, top) is stack below every live frame.
        unsafe { core::ptr::write_volatile(word as *mut u32, PAINT) };
        word += 4;
    }
}

pub fn stop() -> MemoryUse {
    let bottom = &raw const _stack_end as usize;
    let top = PAINT_TOP.load(Ordering::Relaxed);
    let mut lowest_used = top;
    let mut word = bottom;
    while word < top {
        // SAFETY: reading the stack region painted by `start`.
        if unsafe { core::ptr::read_volatile(word as *const u32) } != PAINT {
            lowest_used = word;
            break;
        }
        word += 4;
    }
    let heap_peak = HEAP.peak.load(Ordering::Relaxed) - HEAP_BASELINE.load(Ordering::Relaxed);
    MemoryUse {
        heap_bytes: Some(heap_peak as u32),
        heap_allocs: Some(HEAP.allocations.load(Ordering::Relaxed) as u32),
        stack_bytes: Some((top - lowest_used) as u32),
    }
}
