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

pub struct Clock(());

impl Clock {
    pub fn start(syst: &mut SYST) -> Self {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        syst.enable_interrupt();
        syst.enable_counter();
        Clock(())
    }

    pub fn now(&self) -> u64 {
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
