//! STM32F4 parts shared by the F405 (netduinoplus2), F446 and F439 boards:
//! the USART (RM0090 §30.6, RM0390 §25.6), GPIO alternate functions, and
//! the clock tree to 180 MHz from the ST-LINK's 8 MHz (RM0090 §7, RM0390 §6).
// The netduinoplus2 uses the USART but not the clock code (QEMU has no RCC).
#![cfg_attr(feature = "netduinoplus2", allow(dead_code))]

use super::mmio::{modify, read, wait_for, write};
use super::stm32_gpio::alternate_function;

pub const RCC: usize = 0x4002_3800;
const RCC_CR: usize = RCC;
const RCC_PLLCFGR: usize = RCC + 0x04;
const RCC_CFGR: usize = RCC + 0x08;
pub const RCC_AHB1ENR: usize = RCC + 0x30;
pub const RCC_APB1ENR: usize = RCC + 0x40;
const PWR_CR: usize = 0x4000_7000;
const PWR_CSR: usize = 0x4000_7004;
const FLASH_ACR: usize = 0x4002_3C00;

/// 180 MHz from an 8 MHz external clock (HSE bypass: the ST-LINK's MCO on
/// NUCLEO-144 boards): PLL M=4 (2 MHz in), N=180 (360 MHz VCO), P=2.
/// AHB 180 MHz, APB1 45 MHz, APB2 90 MHz; 5 flash wait states at 3.3 V;
/// over-drive on, which 180 MHz needs on the F42x/F43x/F446.
pub fn clocks_180mhz_from_hse_bypass() {
    // SAFETY: the documented RCC, PWR and FLASH registers, in the order the
    // reference manual gives for raising the system clock.
    unsafe {
        modify(RCC_APB1ENR, 0, 1 << 28); // PWREN
        modify(PWR_CR, 0, 0b11 << 14); // VOS: scale 1
        modify(RCC_CR, 0, (1 << 18) | (1 << 16)); // HSEBYP, HSEON
        wait_for(RCC_CR, 1 << 17, 1 << 17); // HSERDY
        // PLLR=2 keeps the F446's reset value; PLLQ=7; PLLSRC=HSE.
        write(RCC_PLLCFGR, (2 << 28) | (7 << 24) | (1 << 22) | (180 << 6) | 4);
        modify(RCC_CR, 0, 1 << 24); // PLLON
        wait_for(RCC_CR, 1 << 25, 1 << 25); // PLLRDY
        modify(PWR_CR, 0, 1 << 16); // ODEN
        wait_for(PWR_CSR, 1 << 16, 1 << 16); // ODRDY
        modify(PWR_CR, 0, 1 << 17); // ODSWEN
        wait_for(PWR_CSR, 1 << 17, 1 << 17); // ODSWRDY
        // LATENCY=5, prefetch, instruction and data caches.
        write(FLASH_ACR, (1 << 10) | (1 << 9) | (1 << 8) | 5);
        // APB2 /2, APB1 /4, AHB /1, then switch to the PLL.
        modify(RCC_CFGR, (0b111 << 13) | (0b111 << 10) | (0b1111 << 4), (0b100 << 13) | (0b101 << 10));
        modify(RCC_CFGR, 0b11, 0b10);
        wait_for(RCC_CFGR, 0b11 << 2, 0b10 << 2); // SWS = PLL
    }
}

/// An STM32F4 USART (SR/DR/BRR/CR1 layout).
pub struct Usart {
    base: usize,
}

const SR: usize = 0x00;
const DR: usize = 0x04;
const BRR: usize = 0x08;
const CR1: usize = 0x0C;
const SR_TXE: u32 = 1 << 7;
const SR_RXNE: u32 = 1 << 5;
const CR1_UE: u32 = 1 << 13;
const CR1_TE: u32 = 1 << 3;
const CR1_RE: u32 = 1 << 2;

impl Usart {
    /// 8N1 at `baud` from a peripheral clock of `pclk` Hz (16x oversampling).
    pub fn enable(base: usize, pclk: u32, baud: u32) -> Self {
        // BRR holds pclk/baud in 12.4 fixed point, rounded.
        let brr = (pclk + baud / 2) / baud;
        // SAFETY: the USART's documented registers.
        unsafe {
            write(base + BRR, brr);
            write(base + CR1, CR1_UE | CR1_TE | CR1_RE);
        }
        Usart { base }
    }

    pub const fn steal(base: usize) -> Self {
        Usart { base }
    }
}

impl super::Uart for Usart {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: the USART's status and data registers.
        unsafe {
            wait_for(self.base + SR, SR_TXE, SR_TXE);
            write(self.base + DR, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: the USART's status and data registers.
        unsafe { (read(self.base + SR) & SR_RXNE != 0).then(|| read(self.base + DR) as u8) }
    }
}

/// USART3 on PD8 (TX) and PD9 (RX), AF7: the ST-LINK virtual COM port of
/// NUCLEO-144 boards, and QEMU's third `-serial` on the netduinoplus2.
pub const USART3: usize = 0x4000_4800;
pub const GPIOD: usize = 0x4002_0C00;

pub fn usart3_on_pd8_pd9(apb1_hz: u32, baud: u32) -> Usart {
    // SAFETY: RCC enable bits for GPIOD and USART3.
    unsafe {
        modify(RCC_AHB1ENR, 0, 1 << 3);
        modify(RCC_APB1ENR, 0, 1 << 18);
    }
    alternate_function(GPIOD, 8, 7);
    alternate_function(GPIOD, 9, 7);
    Usart::enable(USART3, apb1_hz, baud)
}

/// A NUCLEO-144 board with an STM32F4 at 180 MHz from the ST-LINK's 8 MHz
/// clock, the ST-LINK virtual COM port on USART3 (PD8/PD9), and the DWT
/// cycle counter as the clock.
#[cfg(any(feature = "nucleo-f446ze", feature = "nucleo-f439zi"))]
pub mod nucleo144 {
    use pqbench_types::TickUnit;

    use super::Usart;

    pub const CORE: &str = "cortex-m4f";
    pub const CLOCK_HZ: u64 = 180_000_000;
    pub const TICKS_PER_SECOND: u64 = 180_000_000;
    pub const TICK_UNIT: TickUnit = TickUnit::Cycles;

    /// APB1, which clocks USART3: 180 MHz / 4.
    const APB1_HZ: u32 = 45_000_000;

    pub type Ticks = crate::boards::dwt::CycleCounter;
    pub type Uart = Usart;

    pub fn init_clocks() {
        super::clocks_180mhz_from_hse_bypass();
    }

    pub fn uart() -> Uart {
        super::usart3_on_pd8_pd9(APB1_HZ, 115_200)
    }

    pub fn steal_uart() -> Uart {
        Usart::steal(super::USART3)
    }
}
