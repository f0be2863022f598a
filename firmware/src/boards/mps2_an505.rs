//! QEMU `mps2-an505`: an emulated Cortex-M33 (Armv8-M Mainline, FPU,
//! Security Extension) standing in for the B-U585I-IOT02A: the U585's
//! target and implementation, its RAM laid out as the U585's
//! (`memory/mps2-an505.x`). The image runs in Secure state, as it is at
//! reset, and reaches memory, the timers and the UART through their Secure
//! aliases, which the machine's protection controllers let Secure accesses
//! through as they are at reset. Times are emulated: QEMU runs with `-icount
//! shift=0` (one instruction per virtual nanosecond) and the timers on the
//! 20 MHz main clock advance once per 50 instructions. These are
//! instruction counts, never cycles, and the Cortex-M4 timing model does
//! not apply to this core.

use pqbench_types::TickUnit;

pub const ID: &str = "qemu-mps2-an505";
pub const MCU: &str = "QEMU MPS2 AN505";
pub const CORE: &str = "cortex-m33";
pub const CLOCK_HZ: u64 = 20_000_000;
pub const TICK_UNIT: TickUnit = TickUnit::QemuInstructions { per_tick: 50 };
/// As on the U585, whose layout this board's memory map mirrors.
pub const HEAP_BYTES: usize = 384 * 1024;

/// TIMER0 and the dual timer through their Secure aliases (0x4000_0000 and
/// 0x4000_2000 are their Non-secure ones).
pub type Ticks = super::cmsdk_timer::TimerClock<0x5000_0000, 0x5000_2000>;

/// QEMU's clocks need no setting up; the UART's divider is fixed
/// (`cmsdk_uart::Uart::init`), which QEMU ignores.
pub fn init_clocks() -> super::Clocks {
    super::Clocks::qemu(CLOCK_HZ, CLOCK_HZ as u32)
}

/// UART0 (the console) through its Secure alias: at 0x4020_0000 a Secure
/// core's access is Non-secure, which the UARTs' protection controller
/// refuses until it is configured to let it through.
const UART0: usize = 0x5020_0000;

pub type Uart = super::cmsdk_uart::Uart;

pub fn uart(_clocks: &super::Clocks) -> Uart {
    Uart::init(UART0)
}

pub fn steal_uart() -> Uart {
    Uart::steal(UART0)
}
