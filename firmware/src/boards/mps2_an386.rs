//! QEMU `mps2-an386`: an emulated Cortex-M4 with 4 MiB of RAM and a CMSDK
//! APB UART. Times are emulated: QEMU runs with `-icount shift=0` (one
//! instruction per virtual nanosecond) and the 25 MHz SysTick advances once
//! per 40 instructions. These are instruction counts, never cycles.

use core::ptr::{read_volatile, write_volatile};

use pqbench_types::TickUnit;

pub const ID: &str = "qemu-mps2-an386";
pub const MCU: &str = "QEMU MPS2 AN386";
pub const CORE: &str = "cortex-m4";
pub const CLOCK_HZ: u64 = 25_000_000;
pub const TICKS_PER_SECOND: u64 = 25_000_000;
pub const TICK_UNIT: TickUnit = TickUnit::QemuInstructions { per_tick: 40 };
/// What the heap may take; the rest of RAM holds the stack and statics.
pub const HEAP_BYTES: usize = 2 * 1024 * 1024;

pub type Ticks = super::systick::SysTickClock;

/// QEMU's clocks need no setting up.
pub fn init_clocks() -> super::Clocks {
    super::Clocks {
        source: super::ClockSource::Qemu,
        clock_hz: CLOCK_HZ,
        ticks_per_second: TICKS_PER_SECOND,
        // The APB the UART is on runs at the system clock; the UART's
        // divider is fixed all the same (`Uart::init`): QEMU ignores it.
        uart_hz: CLOCK_HZ as u32,
        flash: super::FlashTiming::EMULATED,
    }
}

/// CMSDK APB UARTs: UART0 is the console; UART1 carries a `text-mirror`
/// test image's second copy of each record.
const UART0: usize = 0x4000_4000;
#[cfg(feature = "text-mirror")]
const UART1: usize = 0x4000_5000;
const DATA: usize = 0x0;
const STATE: usize = 0x4;
const CTRL: usize = 0x8;
const BAUDDIV: usize = 0x10;
const STATE_TX_FULL: u32 = 1 << 0;
const STATE_RX_FULL: u32 = 1 << 1;
const CTRL_TX_ENABLE: u32 = 1 << 0;
const CTRL_RX_ENABLE: u32 = 1 << 1;

pub struct Uart {
    base: usize,
}

pub fn uart(_clocks: &super::Clocks) -> Uart {
    Uart::init(UART0)
}

pub fn steal_uart() -> Uart {
    Uart { base: UART0 }
}

/// Enabled on every call: it is only ever taken the way a fault handler
/// takes the console, and enabling is idempotent.
#[cfg(feature = "text-mirror")]
pub fn mirror_uart() -> Uart {
    Uart::init(UART1)
}

impl Uart {
    fn init(base: usize) -> Self {
        // SAFETY: the UART's documented registers; this runs once at boot.
        // The divider must be set before TX is enabled, or QEMU keeps TX
        // full and drops every later byte.
        unsafe {
            write_volatile((base + BAUDDIV) as *mut u32, 16);
            write_volatile((base + CTRL) as *mut u32, CTRL_TX_ENABLE | CTRL_RX_ENABLE);
        }
        Uart { base }
    }
}

impl super::Uart for Uart {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: reads and writes of the UART's own registers.
        unsafe {
            while read_volatile((self.base + STATE) as *const u32) & STATE_TX_FULL != 0 {}
            write_volatile((self.base + DATA) as *mut u32, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: reads of the UART's own registers.
        unsafe {
            (read_volatile((self.base + STATE) as *const u32) & STATE_RX_FULL != 0)
                .then(|| read_volatile((self.base + DATA) as *const u32) as u8)
        }
    }
}
