//! A 64-bit tick count from the 24-bit SysTick: the counter wraps every
//! 2^24 ticks and its exception counts the wraps.
//!
//! This is the clock of boards without a cycle counter. On QEMU under
//! `-icount`, SysTick follows the emulated instruction count exactly, so
//! every run of the same image gives the same counts.

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::SYST;

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::exception;

const RELOAD: u32 = 0x00FF_FFFF;

static WRAPS: AtomicU32 = AtomicU32::new(0);

/// SysTick on the core clock.
pub struct SysTickClock(SYST);

impl super::TickCounter for SysTickClock {
    fn start(core: cortex_m::Peripherals) -> Self {
        let mut syst = core.SYST;
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        syst.enable_interrupt();
        syst.enable_counter();
        SysTickClock(syst)
    }

    /// Starts counting again from zero. Called when a run begins, so that
    /// the tick boundaries fall at the same instructions on every run: the
    /// time the host took to send its command no longer shifts them.
    fn restart(&mut self) {
        self.0.disable_counter();
        self.0.clear_current();
        WRAPS.store(0, Ordering::Release);
        self.0.enable_counter();
    }

    fn now(&mut self) -> u64 {
        loop {
            let before = WRAPS.load(Ordering::Acquire);
            let current = SYST::get_current();
            // A wrap between the two loads would pair an old wrap count with
            // a new counter value; read again rather than guess.
            if WRAPS.load(Ordering::Acquire) == before {
                return (u64::from(before) << 24) + u64::from(RELOAD - current);
            }
        }
    }
}

#[exception]
fn SysTick() {
    WRAPS.fetch_add(1, Ordering::Release);
}
