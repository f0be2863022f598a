//! The browser's memory probes: its heap and shadow-stack bounds, fed to
//! the suite's shared counter and painter.
//!
//! The stack seen here is wasm's shadow stack in linear memory: the frames'
//! address-taken locals and large aggregates. Scalars live in wasm locals on
//! the engine's own stack, which no program can see, so the figure is what
//! the module needs in linear memory, a lower bound of the machine's stack.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use pqbench_suite::MemoryUse;
use pqbench_suite::probe::{self, HeapCounter};

#[global_allocator]
static HEAP: CountingHeap = CountingHeap { counter: HeapCounter::new() };

/// `realloc` is left to the default (alloc, copy, free), as in the
/// firmware, so both count alike.
struct CountingHeap {
    counter: HeapCounter,
}

unsafe impl GlobalAlloc for CountingHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            self.counter.allocated(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(block, layout) };
        self.counter.freed(layout.size());
    }
}

/// The top of the painted stack: the operation's stack is measured from
/// here. Zero when the stack could not be located.
static PAINT_TOP: AtomicUsize = AtomicUsize::new(0);

/// Left unpainted below the address `stack_pointer` saw. Measured with
/// known stack buffers, figures come out this plus the probes' frames
/// (~70 bytes in all) below the operation's true use.
const PAINT_MARGIN: usize = 64;

unsafe extern "C" {
    // The shadow stack's bounds, from wasm-ld. Rust's wasm32 targets link
    // with `--stack-first`: the stack is [0, 1 MiB) below the data, so
    // `__data_end`..`__heap_base` (the stack under the default layout) is
    // empty there; these two symbols are right under either layout.
    static __stack_low: u8;
    static __stack_high: u8;
}

/// The shadow stack's bottom, if the current stack pointer lies within it.
fn stack_bottom() -> Option<usize> {
    // Address 0 may be the stack's bottom word; it is never written unless
    // the stack overflows, and writing through a null pointer is undefined.
    let bottom = (&raw const __stack_low as usize).max(16).next_multiple_of(4);
    let top = &raw const __stack_high as usize;
    let sp = stack_pointer();
    (bottom < sp && sp <= top).then_some(bottom)
}

/// An address in the caller's frame: the stack pointer, give or take the frame.
#[inline(never)]
fn stack_pointer() -> usize {
    let local = 0u8;
    core::hint::black_box(&raw const local) as usize
}

pub fn start() {
    HEAP.counter.open_window();
    let Some(bottom) = stack_bottom() else {
        PAINT_TOP.store(0, Ordering::Relaxed);
        return;
    };
    let top = stack_pointer().saturating_sub(PAINT_MARGIN) & !3;
    PAINT_TOP.store(top, Ordering::Relaxed);
    // SAFETY: [bottom, top) is shadow stack below every live frame; a wasm
    // module has one thread and no interrupts that could use it.
    unsafe { probe::paint_stack(bottom, top) };
}

pub fn stop() -> MemoryUse {
    let (heap_bytes, heap_allocs) = HEAP.counter.close_window();
    let top = PAINT_TOP.load(Ordering::Relaxed);
    // SAFETY: the range `start` painted.
    let stack_bytes =
        stack_bottom().filter(|_| top != 0).and_then(|bottom| unsafe { probe::stack_used(bottom, top) });
    MemoryUse { heap_bytes, heap_allocs, stack_bytes, stack_depth_bytes: None }
}
