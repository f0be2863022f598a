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

/// The top of the painted stack: the operation's stack is measured from here.
static PAINT_TOP: AtomicUsize = AtomicUsize::new(0);

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

pub fn start() {
    HEAP.counter.open_window();
    let top = (cortex_m::register::msp::read() as usize - PAINT_MARGIN) & !3;
    PAINT_TOP.store(top, Ordering::Relaxed);
    // SAFETY: [stack bottom, top) lies below every live frame, and nothing
    // else runs on this stack but the SysTick handler, whose frame pushes
    // land below the stack pointer and are counted as the operation's.
    unsafe { probe::paint_stack(stack_bottom(), top) };
}

pub fn stop() -> MemoryUse {
    let (heap_bytes, heap_allocs) = HEAP.counter.close_window();
    // SAFETY: the range `start` painted.
    let stack_bytes = unsafe { probe::stack_used(stack_bottom(), PAINT_TOP.load(Ordering::Relaxed)) };
    MemoryUse { heap_bytes, heap_allocs, stack_bytes }
}

/// The stack free below the caller and the heap not in use.
pub fn budget() -> MemoryBudget {
    let stack = (cortex_m::register::msp::read() as usize).saturating_sub(stack_bottom());
    let heap = board::HEAP_BYTES.saturating_sub(HEAP.counter.in_use());
    MemoryBudget { stack: stack as u32, heap: heap as u32 }
}
