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
    platform.stack_reference();
    fill_stack_buffer();
    let stack = platform.memory_stop();
    platform.memory_start();
    allocate_heap_buffer();
    let heap = platform.memory_stop();
    Calibration { stack, heap }
}

/// Takes exactly [`STACK_BUFFER`] bytes below the caller's stack pointer
/// and writes the deepest word: a frame whose size is known to the byte,
/// with nothing of a compiler's layout (saved registers, padding, a
/// callee such as `memclr`) around it, so the probe's figure must be
/// exactly it. Inline, in the frame [`Platform::stack_reference`] was read
/// in.
#[cfg(target_arch = "arm")]
#[inline(always)]
fn fill_stack_buffer() {
    // SAFETY: the stack pointer is lowered and restored within the block,
    // and the word written lies in the space it lowered it over (below
    // every live frame, and above the stack's end: the suite runs with far
    // more than 4 KiB free, as the memory budget checks before each run).
    unsafe {
        core::arch::asm!(
            "sub sp, sp, #{bytes}",
            "str {zero}, [sp]",
            "add sp, sp, #{bytes}",
            bytes = const STACK_BUFFER,
            zero = in(reg) 0u32,
        );
    }
}

/// Writes every byte of a stack array, so all of it is really used.
#[cfg(not(target_arch = "arm"))]
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
