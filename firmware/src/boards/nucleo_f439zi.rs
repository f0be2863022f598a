//! NUCLEO-F439ZI: STM32F439ZIT6 (Cortex-M4F). Everything but the chip's name and
//! heap size is the NUCLEO-144 STM32F4 setup in `stm32f4::nucleo144`.

pub use super::stm32f4::nucleo144::*;

pub const ID: &str = "nucleo-f439zi";
pub const MCU: &str = "STM32F439ZIT6";
pub const HEAP_BYTES: usize = 96 * 1024;
