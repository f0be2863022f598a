//! A 64-bit tick count from two of Arm's CMSDK timers, as QEMU's MPS2
//! machines (mps2-an386, mps2-an505) have them: the clock of the emulated
//! boards, exact across calls of any length.
//!
//! A polled counter's wraps are seen only between readings, so one call
//! longer than a wrap loses whole wraps: SysTick's 24 bits wrap every 671
//! M instructions, and an SLH-DSA `128s` signature runs 220 G. So two
//! counters of the same system clock:
//!
//! - the fine one, an APB timer (TIMER0), counts every tick and wraps every
//!   2^24 ticks;
//! - the coarse one, the dual timer's first counter, is prescaled by 256
//!   and 32 bits wide: it wraps every 2^40 ticks (12 hours of emulated
//!   time at 25 MHz), which the suite's readings around every call see.
//!
//! The coarse count says which fine wrap the count is in
//! (`pqbench_boards::wide_count::widen`), the fine count where within it.
//! The fine counter keeps 24 bits, not the 32 its register has, so that
//! every call longer than 671 M instructions crosses its wraps and the join
//! is exercised by the suite's everyday runs, not only by the longest ones.
//!
//! Polled, never by interrupt: an exception pushes its frame onto whatever
//! stack is in use, the timed operation's painted one included
//! (`systick.rs` says more). Under `-icount` both timers follow the
//! emulated instruction count, so every run of an image counts the same.

use core::ptr::{read_volatile, write_volatile};

use pqbench_boards::wide_count::widen;

/// An APB timer's registers.
const TIMER_CTRL: usize = 0x0;
const TIMER_VALUE: usize = 0x4;
const TIMER_RELOAD: usize = 0x8;
const TIMER_CTRL_ENABLE: u32 = 1 << 0;

/// The dual timer's first counter's registers.
const DUAL_LOAD: usize = 0x00;
const DUAL_VALUE: usize = 0x04;
const DUAL_CONTROL: usize = 0x08;
/// Enabled, free-running (wrapping to all ones, not to LOAD), prescaled by
/// 256, 32 bits, its interrupt off.
const DUAL_CONTROL_RUN: u32 = (1 << 7) | (0b10 << 2) | (1 << 1);

const FINE_BITS: u32 = 24;
/// The fine counter counts down from here to zero and reloads: 2^24 ticks
/// a turn.
const FINE_RELOAD: u32 = (1 << FINE_BITS) - 1;
/// log2 of the coarse counter's prescaler.
const COARSE_SHIFT: u32 = 8;

/// The two timers at `TIMER` (an APB timer) and `DUAL` (a dual timer).
pub struct TimerClock<const TIMER: usize, const DUAL: usize> {
    /// Coarse ticks up to the last reading's wrap of the coarse counter.
    coarse_wrapped: u64,
    /// The last reading of the coarse counter, as coarse ticks since its
    /// last wrap.
    coarse_last: u32,
}

impl<const TIMER: usize, const DUAL: usize> TimerClock<TIMER, DUAL> {
    /// Stops both timers and starts them from zero, one right after the
    /// other: a few instructions apart, far inside a tick.
    fn start_from_zero(&mut self) {
        // SAFETY: the timers' documented registers; this clock is their
        // one user.
        unsafe {
            write_volatile((TIMER + TIMER_CTRL) as *mut u32, 0);
            write_volatile((DUAL + DUAL_CONTROL) as *mut u32, 0);
            write_volatile((TIMER + TIMER_RELOAD) as *mut u32, FINE_RELOAD);
            write_volatile((TIMER + TIMER_VALUE) as *mut u32, FINE_RELOAD);
            write_volatile((DUAL + DUAL_LOAD) as *mut u32, u32::MAX);
            write_volatile((TIMER + TIMER_CTRL) as *mut u32, TIMER_CTRL_ENABLE);
            write_volatile((DUAL + DUAL_CONTROL) as *mut u32, DUAL_CONTROL_RUN);
        }
        self.coarse_wrapped = 0;
        self.coarse_last = 0;
    }
}

impl<const TIMER: usize, const DUAL: usize> super::TickCounter for TimerClock<TIMER, DUAL> {
    /// Needs none of the core's peripherals: the timers are the system's.
    fn start(_core: cortex_m::Peripherals) -> Self {
        let mut clock = TimerClock { coarse_wrapped: 0, coarse_last: 0 };
        clock.start_from_zero();
        clock
    }

    /// Starts counting again from zero. Called when a run begins, so that
    /// the tick boundaries fall at the same instructions on every run.
    fn restart(&mut self) {
        self.start_from_zero();
    }

    fn now(&mut self) -> u64 {
        // SAFETY: reading the timers' counters.
        let (fine, coarse) = unsafe {
            (
                read_volatile((TIMER + TIMER_VALUE) as *const u32),
                read_volatile((DUAL + DUAL_VALUE) as *const u32),
            )
        };
        let fine = FINE_RELOAD - (fine & FINE_RELOAD);
        let coarse = u32::MAX - coarse;
        if coarse < self.coarse_last {
            self.coarse_wrapped += 1 << 32;
        }
        self.coarse_last = coarse;
        // The coarse count floors to its prescaler, so the middle of its
        // step is the best guess; either way it is within a step of the fine
        // count, far inside the half wrap the join allows.
        let estimate =
            ((self.coarse_wrapped + u64::from(coarse)) << COARSE_SHIFT) + (1 << (COARSE_SHIFT - 1));
        widen(u64::from(fine), FINE_BITS, estimate)
    }
}
