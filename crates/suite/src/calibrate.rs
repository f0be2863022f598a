//! The memory probes measured against buffers of known size, so that a
//! target's heap and stack figures can be checked, not just believed.

use core::hint::black_box;

use crate::measure::{MemoryUse, Platform};

/// The stack buffer and the allocation the probes are checked against.
pub const STACK_BUFFER: usize = 4096;
pub const HEAP_BUFFER: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// What the probes saw of a call that holds a `STACK_BUFFER`-byte array.
    pub stack: MemoryUse,
    /// What the probes saw of one `HEAP_BUFFER`-byte allocation.
    pub heap: MemoryUse,
}

pub fn calibrate<P: Platform>(platform: &mut P) -> Calibration {
    platform.memory_start();
    fill_stack_buffer();
    let stack = platform.memory_stop();
    platform.memory_start();
    allocate_heap_buffer();
    let heap = platform.memory_stop();
    Calibration { stack, heap }
}

/// Writes every byte of a stack array, so all of it is really used.
#[inline(never)]
fn fill_stack_buffer() {
    let mut buffer = [0u8; STACK_BUFFER];
    for (i, byte) in buffer.iter_mut().enumerate() {
        // SAFETY: a byte of a live local array.
        unsafe { core::ptr::write_volatile(byte, i as u8) };
    }
    black_box(&buffer);
}

#[inline(never)]
fn allocate_heap_buffer() {
    let buffer = alloc::vec![1u8; HEAP_BUFFER];
    black_box(&buffer);
}
