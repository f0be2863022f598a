//! Memory probes every target shares; a target only says where its stack
//! is and forwards its allocator's calls.
//!
//! - Heap: a [`HeapCounter`] fed by a counting `#[global_allocator]`. Within
//!   a window it keeps the peak bytes and the peak number of allocations
//!   alive at once, both above what was alive when the window opened (the
//!   operation's own use, not its inputs'). The allocation figure is
//!   wolfCrypt's "(N allocs)": concurrent, so it does not grow with the
//!   number of iterations.
//! - Stack: painting, as pqm4 does it. Fill the free stack with a pattern,
//!   run, and find the lowest word the pattern no longer holds.

use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct HeapCounter {
    in_use: AtomicUsize,
    live: AtomicUsize,
    peak_bytes: AtomicUsize,
    peak_live: AtomicUsize,
    base_bytes: AtomicUsize,
    base_live: AtomicUsize,
}

impl HeapCounter {
    pub const fn new() -> Self {
        HeapCounter {
            in_use: AtomicUsize::new(0),
            live: AtomicUsize::new(0),
            peak_bytes: AtomicUsize::new(0),
            peak_live: AtomicUsize::new(0),
            base_bytes: AtomicUsize::new(0),
            base_live: AtomicUsize::new(0),
        }
    }

    /// An allocation of `bytes` succeeded.
    pub fn allocated(&self, bytes: usize) {
        let in_use = self.in_use.fetch_add(bytes, Relaxed) + bytes;
        self.peak_bytes.fetch_max(in_use, Relaxed);
        let live = self.live.fetch_add(1, Relaxed) + 1;
        self.peak_live.fetch_max(live, Relaxed);
    }

    /// An allocation of `bytes` was freed.
    pub fn freed(&self, bytes: usize) {
        self.in_use.fetch_sub(bytes, Relaxed);
        self.live.fetch_sub(1, Relaxed);
    }

    /// Bytes allocated and not yet freed.
    pub fn in_use(&self) -> usize {
        self.in_use.load(Relaxed)
    }

    pub fn open_window(&self) {
        let in_use = self.in_use.load(Relaxed);
        let live = self.live.load(Relaxed);
        self.base_bytes.store(in_use, Relaxed);
        self.base_live.store(live, Relaxed);
        self.peak_bytes.store(in_use, Relaxed);
        self.peak_live.store(live, Relaxed);
    }

    /// Peak bytes and peak live allocations since `open_window`, above its baseline.
    pub fn close_window(&self) -> (Option<u32>, Option<u32>) {
        let bytes = self.peak_bytes.load(Relaxed).saturating_sub(self.base_bytes.load(Relaxed));
        let allocs = self.peak_live.load(Relaxed).saturating_sub(self.base_live.load(Relaxed));
        (u32::try_from(bytes).ok(), u32::try_from(allocs).ok())
    }
}

impl Default for HeapCounter {
    fn default() -> Self {
        Self::new()
    }
}

const PAINT: u32 = 0xCCCC_CCCC;

/// Fills `[bottom, top)` with the paint.
///
/// # Safety
/// The range is word-aligned stack that no live frame uses: below the
/// current stack pointer, with nothing else (interrupts, threads) on it.
#[inline(never)]
pub unsafe fn paint_stack(bottom: usize, top: usize) {
    let mut word = bottom;
    while word < top {
        // SAFETY: the caller vouches for the range.
        unsafe { core::ptr::write_volatile(word as *mut u32, PAINT) };
        word += 4;
    }
}

/// Bytes of `[bottom, top)` used since it was painted: from `top` down to
/// the lowest word that lost its paint. `None` when the paint is gone at the
/// bottom: the stack overflowed it, by how much is unknown.
///
/// # Safety
/// The range is readable, word-aligned memory painted by [`paint_stack`].
pub unsafe fn stack_used(bottom: usize, top: usize) -> Option<u32> {
    let mut word = bottom;
    while word < top {
        // SAFETY: the caller vouches for the range.
        if unsafe { core::ptr::read_volatile(word as *const u32) } != PAINT {
            break;
        }
        word += 4;
    }
    if word == bottom && top > bottom {
        return None;
    }
    u32::try_from(top - word).ok()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn allocations_count_at_once_not_in_total() {
        let heap = HeapCounter::new();
        heap.allocated(100); // held before the window: not the operation's
        heap.open_window();
        for _ in 0..1000 {
            heap.allocated(64);
            heap.allocated(32);
            heap.freed(32);
            heap.freed(64);
        }
        assert_eq!(heap.close_window(), (Some(96), Some(2)));
    }

    #[test]
    fn painted_stack_reports_what_was_overwritten() {
        let mut region = std::vec![0u32; 256];
        let bottom = region.as_mut_ptr() as usize;
        let top = bottom + 256 * 4;
        // SAFETY: the region is ours and aligned.
        unsafe { paint_stack(bottom, top) };
        for word in &mut region[200..] {
            *word = 1;
        }
        // SAFETY: as above.
        assert_eq!(unsafe { stack_used(bottom, top) }, Some(56 * 4));
        region[0] = 7;
        // SAFETY: as above.
        assert_eq!(unsafe { stack_used(bottom, top) }, None, "overflowed to the bottom");
    }
}
