//! QEMU `mps2-an386`: an emulated Cortex-M4 with 4 MiB of RAM and a CMSDK
//! APB UART. Times are emulated: QEMU runs with `-icount shift=0` (one
//! instruction per virtual nanosecond) and the timers of the 25 MHz system
//! clock advance once per 40 instructions. These are instruction counts,
//! never cycles.

use pqbench_types::TickUnit;

pub const ID: &str = "qemu-mps2-an386";
pub const MCU: &str = "QEMU MPS2 AN386";
pub const CORE: &str = "cortex-m4";
pub const CLOCK_HZ: u64 = 25_000_000;
pub const TICK_UNIT: TickUnit = TickUnit::QemuInstructions { per_tick: 40 };
/// What the heap may take; the rest of RAM holds the stack and statics.
pub const HEAP_BYTES: usize = 2 * 1024 * 1024;

/// TIMER0 and the dual timer, on the APB at their CMSDK addresses.
pub type Ticks = super::cmsdk_timer::TimerClock<0x4000_0000, 0x4000_2000>;

/// QEMU's clocks need no setting up. The APB the UART is on runs at the
/// system clock; the UART's divider is fixed all the same
/// (`cmsdk_uart::Uart::init`): QEMU ignores it.
pub fn init_clocks() -> super::Clocks {
    super::Clocks::qemu(CLOCK_HZ, CLOCK_HZ as u32)
}

/// CMSDK APB UARTs: UART0 is the console; UART1 carries a `text-mirror`
/// test image's second copy of each record.
const UART0: usize = 0x4000_4000;
#[cfg(feature = "text-mirror")]
const UART1: usize = 0x4000_5000;

pub type Uart = super::cmsdk_uart::Uart;

pub fn uart(_clocks: &super::Clocks) -> Uart {
    Uart::init(UART0)
}

pub fn steal_uart() -> Uart {
    Uart::steal(UART0)
}

/// Enabled on every call: it is only ever taken the way a fault handler
/// takes the console, and enabling is idempotent.
#[cfg(feature = "text-mirror")]
pub fn mirror_uart() -> Uart {
    Uart::init(UART1)
}
