//! NUCLEO-F446ZE: STM32F446ZET6 (Cortex-M4F). Everything but the chip's name and
//! heap size is the NUCLEO-144 STM32F4 setup in `stm32f4::nucleo144`.

pub use super::stm32f4::nucleo144::*;

pub const ID: &str = "nucleo-f446ze";
pub const MCU: &str = "STM32F446ZET6";
pub const HEAP_BYTES: usize = 40 * 1024;
