//! B-U585I-IOT02A: STM32U585AII6Q (Cortex-M33) at 160 MHz (or the 4 MHz
//! reset clock when bring-up fails); the ST-LINK virtual COM port on USART1
//! (PA9/PA10); the DWT cycle counter as the clock.

use pqbench_types::TickUnit;

use super::Clocks;
use super::stm32u5::{self, Usart};

pub const ID: &str = "b-u585i-iot02a";
pub const MCU: &str = "STM32U585AII6Q";
pub const CORE: &str = "cortex-m33";
pub const TICK_UNIT: TickUnit = TickUnit::Cycles;
pub const HEAP_BYTES: usize = 384 * 1024;

pub type Ticks = super::dwt::CycleCounter;
pub type Uart = Usart;

/// The clock reached, whichever it is: the DWT counts its cycles, and
/// USART1 is on APB2.
///
/// Never inlined: a board that hangs in its bring-up is then found, by
/// the host that halts it, in a function named for what it was doing
/// (`init_clocks`), not in `main` (see `PQBENCH_WAITING_FOR`).
#[inline(never)]
pub fn init_clocks() -> Clocks {
    let reached = stm32u5::clocks_160mhz();
    Clocks {
        source: reached.source,
        clock_hz: reached.hclk_hz.into(),
        ticks_per_second: reached.hclk_hz.into(),
        uart_hz: reached.pclk2_hz,
        flash: stm32u5::flash_timing(),
    }
}

pub fn uart(clocks: &Clocks) -> Uart {
    stm32u5::usart1_on_pa9_pa10(clocks.uart_hz, 115_200)
}

pub fn steal_uart() -> Uart {
    Usart::steal()
}
