//! QEMU `netduinoplus2`: an emulated STM32F405 (Cortex-M4, 1 MiB flash,
//! 128 KiB RAM as QEMU models it). It runs the real STM32F4 USART code on
//! USART3, as a NUCLEO-144 does. QEMU does not emulate the RCC (its ready
//! bits never set), so the clock is left as QEMU starts it; times are
//! SysTick ticks of QEMU's 168 MHz core clock under `-icount shift=0`
//! (one instruction per emulated nanosecond): neither cycles nor real time.

use pqbench_types::TickUnit;

use super::Clocks;
use super::stm32f4::{self, Usart};

pub const ID: &str = "qemu-netduinoplus2";
pub const MCU: &str = "STM32F405RG (QEMU netduinoplus2)";
pub const CORE: &str = "cortex-m4";
pub const CLOCK_HZ: u64 = 168_000_000;
pub const TICK_UNIT: TickUnit = TickUnit::QemuTicks;
/// As on the NUCLEO-F446ZE, whose 128 KiB this board's memory map mirrors,
/// so the emulator shows what fits the F446.
pub const HEAP_BYTES: usize = 40 * 1024;

pub type Ticks = super::systick::SysTickClock;
pub type Uart = Usart;

/// Left as QEMU starts it: the NUCLEO's bring-up would only time out
/// here (see `nucleo-f446ze.elf` on this machine in the tests). The UART's
/// clock is the reset clock's (16 MHz HSI on APB1), so the divider is the
/// one a chip would need; the baud rate means nothing to QEMU.
pub fn init_clocks() -> Clocks {
    Clocks::qemu(CLOCK_HZ, stm32f4::HSI_HZ)
}

pub fn uart(clocks: &Clocks) -> Uart {
    stm32f4::usart3_on_pd8_pd9(clocks.uart_hz, 115_200)
}

pub fn steal_uart() -> Uart {
    Usart::steal(stm32f4::USART3)
}
