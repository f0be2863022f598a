//! The platform layer: what differs between boards is a memory map, a
//! clock and a UART. Everything else (suite, records, memory probes) is shared.

use core::fmt;

use pqbench_suite::{Mark, MemoryBudget, MemoryUse, Platform};
use pqbench_types::Clock;

use crate::memory;

// Emulated boards count ticks of their timers (the MPS2 machines' CMSDK
// timers, the netduinoplus2's SysTick); chips count cycles.
#[cfg(any(feature = "mps2-an386", feature = "mps2-an505"))]
mod cmsdk_timer;
#[cfg(any(feature = "mps2-an386", feature = "mps2-an505"))]
mod cmsdk_uart;
#[cfg(any(feature = "nucleo-f446ze", feature = "nucleo-f439zi", feature = "b-u585i-iot02a"))]
mod dwt;
#[cfg(any(
    feature = "netduinoplus2",
    feature = "nucleo-f446ze",
    feature = "nucleo-f439zi",
    feature = "b-u585i-iot02a"
))]
mod stm32_gpio;
#[cfg(any(feature = "netduinoplus2", feature = "nucleo-f446ze", feature = "nucleo-f439zi"))]
mod stm32f4;
#[cfg(feature = "b-u585i-iot02a")]
mod stm32u5;
#[cfg(feature = "netduinoplus2")]
mod systick;

#[cfg(feature = "mps2-an386")]
#[path = "mps2_an386.rs"]
pub mod board;
#[cfg(feature = "netduinoplus2")]
#[path = "netduinoplus2.rs"]
pub mod board;
#[cfg(feature = "mps2-an505")]
#[path = "mps2_an505.rs"]
pub mod board;
#[cfg(feature = "nucleo-f446ze")]
#[path = "nucleo_f446ze.rs"]
pub mod board;
#[cfg(feature = "nucleo-f439zi")]
#[path = "nucleo_f439zi.rs"]
pub mod board;
#[cfg(feature = "b-u585i-iot02a")]
#[path = "b_u585i_iot02a.rs"]
pub mod board;

/// A board's tick counter: a timer's ticks on emulated boards, DWT CYCCNT on chips.
pub trait TickCounter {
    /// Takes what it needs of the core peripherals (nothing else uses them).
    fn start(core: cortex_m::Peripherals) -> Self;
    /// Counts from zero again, at the start of a run.
    fn restart(&mut self);
    fn now(&mut self) -> u64;
}

/// Memory-mapped registers, by address as the reference manuals give them.
#[cfg(any(
    feature = "netduinoplus2",
    feature = "nucleo-f446ze",
    feature = "nucleo-f439zi",
    feature = "b-u585i-iot02a"
))]
pub mod mmio {
    /// # Safety
    /// `address` is a readable register of this chip.
    pub unsafe fn read(address: usize) -> u32 {
        // SAFETY: per the caller.
        unsafe { core::ptr::read_volatile(address as *const u32) }
    }

    /// # Safety
    /// `address` is a writable register of this chip and `value` is valid for it.
    pub unsafe fn write(address: usize, value: u32) {
        // SAFETY: per the caller.
        unsafe { core::ptr::write_volatile(address as *mut u32, value) }
    }

    /// Clears `clear` and sets `set` in a register, leaving its other bits.
    ///
    /// # Safety
    /// As for [`write`].
    pub unsafe fn modify(address: usize, clear: u32, set: u32) {
        // SAFETY: per the caller.
        unsafe { write(address, (read(address) & !clear) | set) }
    }

    /// At least this many core cycles pass between two reads of a register
    /// [`wait_for`] waits on: `cortex_m::asm::delay` waits at least as many
    /// whatever the compiler makes of the loop around it (its loop of
    /// `subs`/`bne` takes about three cycles a turn on a Cortex-M4 or M33,
    /// so about three times as many).
    const POLL_SPACING_CYCLES: u32 = 32;

    /// A wait that gave up: the bit never came.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct TimedOut;

    /// What the bring-up waits for now, for the host to read through the
    /// debug probe when the board does not take its command: the address
    /// and length of a string in flash, or zeros when it waits for nothing.
    /// Without it a hung board is only a program counter in [`wait_for`].
    #[unsafe(no_mangle)]
    pub static PQBENCH_WAITING_FOR: [core::sync::atomic::AtomicUsize; 2] =
        [core::sync::atomic::AtomicUsize::new(0), core::sync::atomic::AtomicUsize::new(0)];

    fn waiting_for(what: &'static str) {
        use core::sync::atomic::Ordering;
        PQBENCH_WAITING_FOR[1].store(what.len(), Ordering::Relaxed);
        PQBENCH_WAITING_FOR[0].store(what.as_ptr() as usize, Ordering::Relaxed);
    }

    /// Waits for all of `mask` to read as `expected`, giving up after at
    /// least `cycles` core cycles (on a Cortex-M4 or M33 about three and a
    /// half times as many: the delay's loop and the register read). There
    /// is no timer this early in a boot, so the time is counted in polls;
    /// each caller says what its bound is in time at the clock it runs on,
    /// and `what` names the bit waited for (`HSERDY`), for a debugger.
    ///
    /// The test images' `test-clock-waits-forever` never gives up: a board
    /// whose bring-up hangs, as one without these bounds would.
    ///
    /// # Safety
    /// As for [`read`].
    #[must_use = "a time-out means the clock did not come: fall back"]
    pub unsafe fn wait_for(
        what: &'static str,
        address: usize,
        mask: u32,
        expected: u32,
        cycles: u32,
    ) -> Result<(), TimedOut> {
        waiting_for(what);
        let mut polls = 0..=cycles / POLL_SPACING_CYCLES;
        let reached = loop {
            // SAFETY: per the caller.
            if unsafe { read(address) } & mask == expected {
                break Ok(());
            }
            if polls.next().is_none() && cfg!(not(feature = "test-clock-waits-forever")) {
                break Err(TimedOut);
            }
            cortex_m::asm::delay(POLL_SPACING_CYCLES);
        };
        waiting_for("");
        reached
    }

    /// Waits for all of `mask` to read as `expected`, however long that
    /// takes: only for a peripheral's own flags (a USART's TXE), which come
    /// as long as the peripheral is clocked; never for a clock.
    ///
    /// # Safety
    /// As for [`read`].
    pub unsafe fn spin_until(address: usize, mask: u32, expected: u32) {
        // SAFETY: per the caller.
        while unsafe { read(address) } & mask != expected {}
    }

    /// Core cycles in `ms` milliseconds at `hz`.
    pub const fn cycles_in_ms(ms: u32, hz: u32) -> u32 {
        hz / 1000 * ms
    }
}

// Where a board's clock comes from: the catalogue's enum, so the tokens
// `hello` sends are the ones the host knows.
pub use pqbench_boards::ClockSource;

/// The clocks a board's bring-up actually reached: what `hello` reports,
/// what the tick counter counts, and what the console UART's baud divisor
/// is worked out from. Set once by `init_clocks`, before the UART is.
#[derive(Debug, Clone, Copy)]
pub struct Clocks {
    pub source: ClockSource,
    /// The core clock (HCLK).
    pub clock_hz: u64,
    /// Ticks of the board's tick counter in a second: the core clock where
    /// the DWT counts cycles; an emulator's own figure.
    pub ticks_per_second: u64,
    /// The console UART's peripheral clock (its APB bus).
    // The MPS2 machines' UART takes a fixed divider, which QEMU ignores.
    #[cfg_attr(any(feature = "mps2-an386", feature = "mps2-an505"), allow(dead_code))]
    pub uart_hz: u32,
    pub flash: FlashTiming,
}

#[cfg(any(feature = "mps2-an386", feature = "netduinoplus2", feature = "mps2-an505"))]
impl Clocks {
    /// An emulator's clocks, left as QEMU starts them (there is nothing to
    /// set up): the core at `clock_hz`, which SysTick counts, and the
    /// console UART's bus at `uart_hz`.
    pub const fn qemu(clock_hz: u64, uart_hz: u32) -> Clocks {
        Clocks {
            source: ClockSource::Qemu,
            clock_hz,
            ticks_per_second: clock_hz,
            uart_hz,
            flash: FlashTiming::EMULATED,
        }
    }
}

/// How the core's fetches from the flash were timed: the wait states and
/// the caches in front of it, read back from the chip's registers after
/// the clock bring-up (`hello`'s `flash_wait_states` and `caches`). An
/// emulator models no flash timing: it says so rather than a number.
#[derive(Debug, Clone, Copy)]
pub struct FlashTiming {
    /// FLASH_ACR LATENCY; `None` on an emulator.
    pub wait_states: Option<u8>,
    /// `art` (an F4's prefetch and both caches), `icache-prefetch` (a
    /// U5's), the parts that are on when only some are, `none`, or
    /// `emulated`.
    pub caches: &'static str,
}

impl FlashTiming {
    // Only the emulated boards use it.
    #[allow(dead_code)]
    pub const EMULATED: FlashTiming = FlashTiming { wait_states: None, caches: "emulated" };

    /// `flash_wait_states` as it is sent: the number, or `emulated`. A
    /// string either way, so the text line and the defmt frame carry one
    /// format whatever the board.
    pub fn wait_states_str(&self) -> &'static str {
        const NUMBERS: [&str; 16] =
            ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"];
        match self.wait_states {
            Some(n) => NUMBERS.get(usize::from(n)).copied().unwrap_or("many"),
            None => "emulated",
        }
    }
}

/// A board's serial port, byte at a time.
pub trait Uart {
    fn write_byte(&mut self, byte: u8);
    fn read_byte(&mut self) -> Option<u8>;
}

/// The serial port the host talks to.
pub struct Serial(board::Uart);

impl Serial {
    /// The port without its owner, for fault handlers that must still speak
    /// and a logger that cannot be handed it. Not every transport speaks on
    /// the port.
    #[allow(dead_code)]
    pub fn steal() -> Self {
        Serial(board::steal_uart())
    }

    /// Blocks until a whole line has arrived; returns its length without
    /// the end of line. A line longer than `buf` is cut, never overrun.
    /// Not every transport takes its commands from the port.
    #[allow(dead_code)]
    pub fn read_line(&mut self, buf: &mut [u8]) -> usize {
        let mut len = 0;
        loop {
            let Some(byte) = self.0.read_byte() else {
                continue;
            };
            match byte {
                b'\n' | b'\r' if len > 0 => return len,
                b'\n' | b'\r' => {}
                _ if len < buf.len() => {
                    buf[len] = byte;
                    len += 1;
                }
                _ => {}
            }
        }
    }

    /// Blocks until the UART has taken every byte.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.0.write_byte(b));
    }
}

impl fmt::Write for Serial {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.write_bytes(text.as_bytes());
        Ok(())
    }
}

#[cfg(all(feature = "text-mirror", not(feature = "mps2-an386")))]
compile_error!("`text-mirror` is a test image feature of `mps2-an386`, whose second UART it uses");

/// A `text-mirror` test image's second serial port, which carries each
/// record as its text line while the first carries it as a defmt frame.
#[cfg(feature = "text-mirror")]
pub struct MirrorSerial(board::Uart);

#[cfg(feature = "text-mirror")]
impl MirrorSerial {
    pub fn steal() -> Self {
        MirrorSerial(board::mirror_uart())
    }
}

#[cfg(feature = "text-mirror")]
impl fmt::Write for MirrorSerial {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        text.bytes().for_each(|b| self.0.write_byte(b));
        Ok(())
    }
}

/// The suite's view of the board: its clock and the memory probes.
pub struct BoardPlatform {
    ticks: board::Ticks,
    ticks_per_second: u64,
}

impl Platform for BoardPlatform {
    fn clock(&self) -> Clock {
        Clock { ticks_per_second: self.ticks_per_second, unit: board::TICK_UNIT }
    }

    fn now(&mut self) -> u64 {
        TickCounter::now(&mut self.ticks)
    }

    fn algorithm_start(&mut self) {
        memory::algorithm_start();
    }

    /// On QEMU, a `DBG #n` hint per mark: a no-op to the emulated core
    /// (and one cycle in the timing model), seen by the timing model's
    /// plugin when it translates the instruction. The plugin API shows it
    /// neither registers nor memory, so a mark must be an instruction.
    /// Nothing on a real board, where the debug hint would be the chip's
    /// to interpret, and none on the Cortex-M33 stand-in, which the M4's
    /// model does not time.
    #[inline(always)]
    fn mark(&mut self, mark: Mark) {
        #[cfg(any(feature = "mps2-an386", feature = "netduinoplus2"))]
        // SAFETY: DBG is a hint with no effect on registers, memory or
        // flags. Not `nomem`: the marks must stay where they are between
        // the timed calls, so the compiler may move no memory access across.
        unsafe {
            match mark {
                Mark::OperationStart => core::arch::asm!("dbg #1", options(nostack, preserves_flags)),
                Mark::SampleStart => core::arch::asm!("dbg #2", options(nostack, preserves_flags)),
                Mark::SampleEnd => core::arch::asm!("dbg #3", options(nostack, preserves_flags)),
                Mark::OperationEnd => core::arch::asm!("dbg #4", options(nostack, preserves_flags)),
            }
        }
        #[cfg(not(any(feature = "mps2-an386", feature = "netduinoplus2")))]
        let _ = mark;
    }

    /// The stack pointer where the measured calls are made, read in that
    /// frame (inlined into it).
    #[inline(always)]
    fn stack_reference(&mut self) {
        memory::stack_reference(cortex_m::register::msp::read() as usize);
    }

    fn memory_start(&mut self) {
        memory::start();
    }

    fn memory_stop(&mut self) -> MemoryUse {
        memory::stop()
    }

    fn memory_budget(&self) -> Option<MemoryBudget> {
        Some(memory::budget())
    }
}

pub struct Board {
    serial: Serial,
    platform: BoardPlatform,
    clocks: Clocks,
}

impl Board {
    /// Brings the clocks up (or falls back: it never hangs), then the UART
    /// at the clock reached, then the tick counter.
    pub fn init(core: cortex_m::Peripherals) -> Self {
        let clocks = board::init_clocks();
        let uart = board::uart(&clocks);
        let ticks = <board::Ticks as TickCounter>::start(core);
        let platform = BoardPlatform { ticks, ticks_per_second: clocks.ticks_per_second };
        Board { serial: Serial(uart), platform, clocks }
    }

    /// The clocks the board runs at, for its `hello`.
    pub fn clocks(&self) -> Clocks {
        self.clocks
    }

    pub fn serial(&mut self) -> &mut Serial {
        &mut self.serial
    }

    /// The platform and port for one run, with the clock restarted.
    pub fn start_run(&mut self) -> (&mut BoardPlatform, &mut Serial) {
        TickCounter::restart(&mut self.platform.ticks);
        (&mut self.platform, &mut self.serial)
    }
}
