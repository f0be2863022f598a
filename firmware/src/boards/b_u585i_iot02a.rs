//! B-U585I-IOT02A: STM32U585AII6Q (Cortex-M33) at 160 MHz; the ST-LINK
//! virtual COM port on USART1 (PA9/PA10); the DWT cycle counter as the clock.

use pqbench_types::TickUnit;

use super::stm32u5::{self, Usart};

pub const ID: &str = "b-u585i-iot02a";
pub const MCU: &str = "STM32U585AII6Q";
pub const CORE: &str = "cortex-m33";
pub const CLOCK_HZ: u64 = 160_000_000;
pub const TICKS_PER_SECOND: u64 = 160_000_000;
pub const TICK_UNIT: TickUnit = TickUnit::Cycles;
pub const HEAP_BYTES: usize = 384 * 1024;

/// APB2, which clocks USART1: the system clock, undivided.
const APB2_HZ: u32 = 160_000_000;

pub type Ticks = super::dwt::CycleCounter;
pub type Uart = Usart;

pub fn init_clocks() {
    stm32u5::clocks_160mhz_from_hsi16();
}

pub fn uart() -> Uart {
    stm32u5::usart1_on_pa9_pa10(APB2_HZ, 115_200)
}

pub fn steal_uart() -> Uart {
    Usart::steal()
}
