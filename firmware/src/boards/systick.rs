//! A 64-bit tick count from the 24-bit SysTick, polled: the clock of the
//! emulated board without a cycle counter or the MPS2 machines' timers
//! (the netduinoplus2; `cmsdk_timer.rs` is the MPS2 machines').
//!
//! SysTick counts down from `RELOAD` and wraps every 2^24 ticks (0.1 s of
//! emulated time at 168 MHz, 100 M instructions). A wrap is seen by
//! comparing with the previous reading, as the cycle counter's is
//! (`dwt.rs`), so the count stays right as long as the suite reads the
//! clock more often than that: it reads it around every call, and the
//! slowest call this board's image holds (RSA-2048 private) is some 89 M
//! instructions.
//!
//! Polled rather than counted by its exception, because an exception
//! pushes its frame (32 bytes, 104 with the FPU's registers) and its
//! handler's onto whatever stack is in use: onto a timed operation's
//! painted stack, where it would be counted as the operation's whenever it
//! landed at the operation's deepest point. With no interrupt enabled,
//! nothing but the operation ever runs on its stack.
//!
//! On QEMU under `-icount`, SysTick follows the emulated instruction count
//! exactly, so every run of the same image gives the same counts.

use cortex_m::peripheral::SYST;

use cortex_m::peripheral::syst::SystClkSource;

const RELOAD: u32 = 0x00FF_FFFF;
const WRAP: u64 = 1 << 24;

/// SysTick on the core clock, its exception off.
pub struct SysTickClock {
    syst: SYST,
    /// Ticks counted up to the last reading's wrap.
    wrapped: u64,
    /// The last reading, as ticks since the last wrap.
    last: u32,
}

impl super::TickCounter for SysTickClock {
    fn start(core: cortex_m::Peripherals) -> Self {
        let mut syst = core.SYST;
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        syst.disable_interrupt();
        syst.enable_counter();
        SysTickClock { syst, wrapped: 0, last: 0 }
    }

    /// Starts counting again from zero. Called when a run begins, so that
    /// the tick boundaries fall at the same instructions on every run: the
    /// time the host took to send its command no longer shifts them.
    fn restart(&mut self) {
        self.syst.disable_counter();
        self.syst.clear_current();
        self.wrapped = 0;
        self.last = 0;
        self.syst.enable_counter();
    }

    fn now(&mut self) -> u64 {
        let since_wrap = RELOAD - SYST::get_current();
        if since_wrap < self.last {
            self.wrapped += WRAP;
        }
        self.last = since_wrap;
        self.wrapped + u64::from(since_wrap)
    }
}
