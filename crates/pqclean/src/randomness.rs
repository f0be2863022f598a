//! PQClean's `randombytes()`, answered from the generator of the call in
//! progress.

use core::cell::UnsafeCell;
use core::ffi::c_int;
use core::sync::atomic::{AtomicBool, Ordering};

type Fill = dyn FnMut(&mut [u8]);

/// Where a call's randomness comes from: any function that fills a buffer
/// (a seeded ChaCha20 in the suite, a fixed seed for known answers).
pub struct Random<'a> {
    fill: &'a mut (dyn FnMut(&mut [u8]) + 'a),
}

impl<'a> Random<'a> {
    pub fn new(fill: &'a mut (dyn FnMut(&mut [u8]) + 'a)) -> Self {
        Random { fill }
    }

    /// Runs `call` with this generator answering `randombytes()`.
    pub(crate) fn lend<R>(&mut self, call: impl FnOnce() -> R) -> R {
        while LENT.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            core::hint::spin_loop();
        }
        let fill: *mut (dyn FnMut(&mut [u8]) + '_) = &mut *self.fill;
        // SAFETY: only the lifetime is erased. The slot holds the pointer
        // while `call` runs and is emptied by `Returned` before this borrow
        // of `self.fill` ends, even if `call` unwinds.
        let fill: *mut Fill = unsafe { core::mem::transmute(fill) };
        // SAFETY: `LENT` is ours, so no one else touches the slot.
        unsafe { *SLOT.0.get() = Some(fill) };
        let _returned = Returned;
        call()
    }
}

/// Empties the slot and lets the next caller in.
struct Returned;

impl Drop for Returned {
    fn drop(&mut self) {
        // SAFETY: `LENT` is still ours.
        unsafe { *SLOT.0.get() = None };
        LENT.store(false, Ordering::Release);
    }
}

struct Slot(UnsafeCell<Option<*mut Fill>>);

// SAFETY: the slot is read and written only by the holder of `LENT`.
unsafe impl Sync for Slot {}

static LENT: AtomicBool = AtomicBool::new(false);
static SLOT: Slot = Slot(UnsafeCell::new(None));

/// The C's `randombytes(output, n)` (see c/common/randombytes.h).
#[unsafe(no_mangle)]
extern "C" fn pqbench_pqclean_randombytes(output: *mut u8, n: usize) -> c_int {
    // SAFETY: the C calls this only from within `Random::lend`'s `call`,
    // on the thread that holds `LENT`.
    let fill = unsafe { *SLOT.0.get() };
    let Some(fill) = fill else {
        // A call that draws randomness without a generator lent: a bug in
        // this crate's wrappers, never an input.
        panic!("PQClean asked for randomness outside a call given a generator");
    };
    if n == 0 {
        return 0;
    }
    // SAFETY: the C passes a buffer of `n` bytes; `fill` is alive (above).
    unsafe { (*fill)(core::slice::from_raw_parts_mut(output, n)) };
    0
}
