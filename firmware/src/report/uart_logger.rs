//! defmt's global logger for the defmt-serial transport: frames (rzcobs,
//! defmt's default encoding, each ended by a 0x00) written to the board's
//! UART with blocking writes. Made as defmt-rtt makes its own: a critical
//! section from `acquire` to `release`, so a frame is never interleaved
//! with another, and one `defmt::Encoder`.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::boards::Serial;

#[defmt::global_logger]
struct UartLogger;

struct Frame {
    /// Set between `acquire` and `release`.
    taken: AtomicBool,
    /// Interrupt state to restore when the frame is done.
    restore: UnsafeCell<critical_section::RestoreState>,
    encoder: UnsafeCell<defmt::Encoder>,
}

// SAFETY: the cells are touched only inside the critical section that
// `acquire` enters and `release` leaves, by the one context holding it.
unsafe impl Sync for Frame {}

static FRAME: Frame = Frame {
    taken: AtomicBool::new(false),
    restore: UnsafeCell::new(critical_section::RestoreState::invalid()),
    encoder: UnsafeCell::new(defmt::Encoder::new()),
};

/// The port is the board's, lent to main; frames only go out while main
/// holds it in `Records`, or from a fault handler after main has stopped.
fn write_to_port(bytes: &[u8]) {
    Serial::steal().write_bytes(bytes);
}

// SAFETY: acquire and release pair up as defmt requires, and a second
// acquire before release is refused.
unsafe impl defmt::Logger for UartLogger {
    fn acquire() {
        // SAFETY: paired with the release in `release`.
        let restore = unsafe { critical_section::acquire() };
        if FRAME.taken.load(Ordering::Relaxed) {
            panic!("defmt logger taken reentrantly");
        }
        FRAME.taken.store(true, Ordering::Relaxed);
        // SAFETY: inside the critical section, which makes this the only user.
        unsafe {
            FRAME.restore.get().write(restore);
            (*FRAME.encoder.get()).start_frame(write_to_port);
        }
    }

    /// Every write already waited for the UART to take its bytes.
    unsafe fn flush() {}

    unsafe fn release() {
        if !FRAME.taken.load(Ordering::Relaxed) {
            panic!("defmt release out of context");
        }
        // SAFETY: defmt calls this after `acquire`, inside its critical section.
        unsafe {
            (*FRAME.encoder.get()).end_frame(write_to_port);
            let restore = FRAME.restore.get().read();
            FRAME.taken.store(false, Ordering::Relaxed);
            critical_section::release(restore);
        }
    }

    unsafe fn write(bytes: &[u8]) {
        // SAFETY: defmt calls this between `acquire` and `release`.
        unsafe { (*FRAME.encoder.get()).write(bytes, write_to_port) };
    }
}
