//! NUCLEO-F446ZE: STM32F446ZET6 (Cortex-M4F) at 180 MHz from the ST-LINK's 8 MHz
//! clock; the ST-LINK virtual COM port on USART3 (PD8/PD9); the DWT cycle
//! counter as the clock.

use pqbench_types::TickUnit;

use super::stm32f4::{self, Usart};

pub const ID: &str = "nucleo-f446ze";
pub const MCU: &str = "STM32F446ZET6";
pub const CORE: &str = "cortex-m4f";
pub const CLOCK_HZ: u64 = 180_000_000;
pub const TICKS_PER_SECOND: u64 = 180_000_000;
pub const TICK_UNIT: TickUnit = TickUnit::Cycles;
pub const HEAP_BYTES: usize = 40 * 1024;

/// APB1, which clocks USART3: 180 MHz / 4.
const APB1_HZ: u32 = 45_000_000;

pub type Ticks = super::dwt::CycleCounter;
pub type Uart = Usart;

pub fn init_clocks() {
    stm32f4::clocks_180mhz_from_hse_bypass();
}

pub fn uart() -> Uart {
    stm32f4::usart3_on_pd8_pd9(APB1_HZ, 115_200)
}

pub fn steal_uart() -> Uart {
    Usart::steal(stm32f4::USART3)
}
