//! Memory probes, as in the firmware: a counting global allocator for heap
//! peaks, and stack painting for stack peaks.
//!
//! The stack seen here is wasm's shadow stack in linear memory: the frames'
//! address-taken locals and large aggregates. Scalars live in wasm locals on
//! the engine's own stack, which no program can see, so the figure is what
//! the module needs in linear memory, a lower bound of the machine's stack.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use pqbench_suite::MemoryUse;

#[global_allocator]
static HEAP: CountingHeap =
    CountingHeap { in_use: AtomicUsize::new(0), peak: AtomicUsize::new(0), allocations: AtomicUsize::new(0) };

/// Wraps the allocator to keep what the suite reports: bytes in use, their
/// peak, and how many allocations were made. `realloc` is left to the
/// default (alloc, copy, free), as in the firmware, so both count alike.
struct CountingHeap {
    in_use: AtomicUsize,
    peak: AtomicUsize,
    allocations: AtomicUsize,
}

unsafe impl GlobalAlloc for CountingHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            let now = self.in_use.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            self.peak.fetch_max(now, Ordering::Relaxed);
            self.allocations.fetch_add(1, Ordering::Relaxed);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(block, layout) };
        self.in_use.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

/// The heap in use when the window opened: the operation's peak is above it.
static HEAP_BASELINE: AtomicUsize = AtomicUsize::new(0);
/// The top of the painted stack: the operation's stack is measured from here.
static PAINT_TOP: AtomicUsize = AtomicUsize::new(0);

const PAINT: u32 = 0xCCCC_CCCC;
/// Left unpainted below the address `stack_pointer` saw. Its frame has
/// returned and the painter's own frame lies above it, so none is strictly
/// needed; kept, as in the firmware, against a compiler placing frames
/// otherwise. Measured, the figures come out this plus the probes' frames
/// (~70 bytes in all) below the operation's true use.
const PAINT_MARGIN: usize = 64;

/// The lowest address of the shadow stack, if the stack pointer lies in
/// the stack as expected.
#[cfg(target_arch = "wasm32")]
fn stack_bottom() -> Option<usize> {
    unsafe extern "C" {
        // From wasm-ld. Rust's wasm32 targets link with `--stack-first`: the
        // stack is [0, 1 MiB) below the data, so `__data_end`..`__heap_base`
        // (the stack under wasm-ld's default layout) is empty there; these
        // two symbols are right under either layout.
        static __stack_low: u8;
        static __stack_high: u8;
    }
    // Address 0 may be the stack's bottom word; it is never written unless
    // the stack overflows, and writing through a null pointer is undefined.
    let bottom = (&raw const __stack_low as usize).max(16).next_multiple_of(4);
    let top = &raw const __stack_high as usize;
    let sp = stack_pointer();
    (bottom < sp && sp <= top).then_some(bottom)
}

/// Only wasm-ld says where the stack is; elsewhere (host tests) it is not measured.
#[cfg(not(target_arch = "wasm32"))]
fn stack_bottom() -> Option<usize> {
    None
}

/// The stack pointer, near enough: a local's address, in a frame just below the caller's.
#[inline(never)]
fn stack_pointer() -> usize {
    let local = 0u8;
    core::hint::black_box(&raw const local) as usize
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
    let Some(bottom) = stack_bottom() else {
        PAINT_TOP.store(0, Ordering::Relaxed);
        return;
    };
    let top = (stack_pointer().saturating_sub(PAINT_MARGIN)) & !3;
    PAINT_TOP.store(top, Ordering::Relaxed);
    let mut word = bottom;
    while word < top {
        // SAFETY: [bottom, top) is shadow stack below every live frame; a
        // wasm module has one thread and no interrupts that could use it.
        unsafe { core::ptr::write_volatile(word as *mut u32, PAINT) };
        word += 4;
    }
}

pub fn stop() -> MemoryUse {
    let heap_peak = HEAP.peak.load(Ordering::Relaxed) - HEAP_BASELINE.load(Ordering::Relaxed);
    MemoryUse {
        heap_bytes: u32::try_from(heap_peak).ok(),
        heap_allocs: u32::try_from(HEAP.allocations.load(Ordering::Relaxed)).ok(),
        stack_bytes: stack_peak(),
    }
}

fn stack_peak() -> Option<u32> {
    let top = PAINT_TOP.load(Ordering::Relaxed);
    let bottom = stack_bottom().filter(|_| top != 0)?;
    let mut word = bottom;
    while word < top {
        // SAFETY: reading the stack region painted by `start`.
        if unsafe { core::ptr::read_volatile(word as *const u32) } != PAINT {
            break;
        }
        word += 4;
    }
    // Paint gone down to the bottom: the stack reached its end, and how
    // much further it would have gone is unknown.
    if word == bottom {
        return None;
    }
    u32::try_from(top - word).ok()
}
