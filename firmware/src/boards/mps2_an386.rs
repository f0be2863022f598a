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
pub fn init_clocks() {}

/// CMSDK APB UART0.
const UART0: usize = 0x4000_4000;
const DATA: usize = UART0;
const STATE: usize = UART0 + 0x4;
const CTRL: usize = UART0 + 0x8;
const BAUDDIV: usize = UART0 + 0x10;
const STATE_TX_FULL: u32 = 1 << 0;
const STATE_RX_FULL: u32 = 1 << 1;
const CTRL_TX_ENABLE: u32 = 1 << 0;
const CTRL_RX_ENABLE: u32 = 1 << 1;

pub struct Uart(());

pub fn uart() -> Uart {
    Uart::init()
}

pub fn steal_uart() -> Uart {
    Uart(())
}

impl Uart {
    fn init() -> Self {
        // SAFETY: the UART's documented registers; this runs once at boot.
        // The divider must be set before TX is enabled, or QEMU keeps TX
        // full and drops every later byte.
        unsafe {
            write_volatile(BAUDDIV as *mut u32, 16);
            write_volatile(CTRL as *mut u32, CTRL_TX_ENABLE | CTRL_RX_ENABLE);
        }
        Uart(())
    }
}

impl super::Uart for Uart {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: reads and writes of the UART's own registers.
        unsafe {
            while read_volatile(STATE as *const u32) & STATE_TX_FULL != 0 {}
            write_volatile(DATA as *mut u32, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: reads of the UART's own registers.
        unsafe {
            (read_volatile(STATE as *const u32) & STATE_RX_FULL != 0)
                .then(|| read_volatile(DATA as *const u32) as u8)
        }
    }
}
