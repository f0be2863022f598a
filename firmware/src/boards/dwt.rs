//! The Cortex-M cycle counter (DWT CYCCNT), extended to 64 bits.
//!
//! CYCCNT is 32 bits: at 180 MHz it wraps every 23.8 s. A wrap is seen by
//! comparing with the previous reading, so the count stays right as long
//! as the suite reads the clock more often than that; it reads it around
//! every call, and no single call takes seconds.

use cortex_m::peripheral::DWT;

pub struct CycleCounter {
    last: u32,
    high: u64,
}

impl super::TickCounter for CycleCounter {
    fn start(core: cortex_m::Peripherals) -> Self {
        let mut dcb = core.DCB;
        let mut dwt = core.DWT;
        dcb.enable_trace();
        DWT::unlock();
        dwt.set_cycle_count(0);
        dwt.enable_cycle_counter();
        CycleCounter { last: 0, high: 0 }
    }

    fn restart(&mut self) {
        // SAFETY: writing CYCCNT only; this clock is its one user.
        unsafe { (*DWT::PTR).cyccnt.write(0) };
        self.last = 0;
        self.high = 0;
    }

    fn now(&mut self) -> u64 {
        let low = DWT::cycle_count();
        if low < self.last {
            self.high += 1 << 32;
        }
        self.last = low;
        self.high | u64::from(low)
    }
}
