//! STM32U5 parts for the B-U585I-IOT02A: the clock tree to 160 MHz from
//! HSI16 (RM0456 §11), and USART1 (RM0456 §67) on PA9/PA10, the ST-LINK
//! virtual COM port. Non-secure register addresses (TrustZone off, as
//! shipped).

use super::mmio::{modify, read, wait_for, write};
use super::stm32_gpio::alternate_function;

const RCC: usize = 0x4602_0C00;
const RCC_CR: usize = RCC;
const RCC_CFGR1: usize = RCC + 0x1C;
const RCC_CFGR2: usize = RCC + 0x20;
const RCC_PLL1CFGR: usize = RCC + 0x28;
const RCC_PLL1DIVR: usize = RCC + 0x34;
const RCC_AHB2ENR1: usize = RCC + 0x8C;
const RCC_AHB3ENR: usize = RCC + 0x94;
const RCC_APB2ENR: usize = RCC + 0xA4;
const PWR_VOSR: usize = 0x4602_080C;
const FLASH_ACR: usize = 0x4002_2000;

/// 160 MHz: HSI16 into PLL1 (M=1, N=20: 320 MHz VCO, R=2), voltage range 1
/// with the EPOD booster (needed above 55 MHz; its clock is the PLL source,
/// 16 MHz, within its 4 to 16 MHz), 4 flash wait states.
pub fn clocks_160mhz_from_hsi16() {
    // SAFETY: the documented RCC, PWR and FLASH registers, in the order the
    // reference manual gives for raising the system clock.
    unsafe {
        modify(RCC_AHB3ENR, 0, 1 << 2); // PWREN
        modify(RCC_CR, 0, 1 << 8); // HSION
        wait_for(RCC_CR, 1 << 10, 1 << 10); // HSIRDY
        // PLL1SRC=HSI16, PLL1RGE=8..16 MHz, PLL1M=1, PLL1MBOOST=/1, R output on.
        write(RCC_PLL1CFGR, (1 << 18) | (0b11 << 2) | 0b10);
        modify(PWR_VOSR, 0b11 << 16, (0b11 << 16) | (1 << 18)); // VOS range 1, BOOSTEN
        wait_for(PWR_VOSR, (1 << 15) | (1 << 14), (1 << 15) | (1 << 14)); // VOSRDY, BOOSTRDY
        modify(FLASH_ACR, 0xF, (1 << 8) | 4); // PRFTEN, LATENCY=4
        wait_for(FLASH_ACR, 0xF, 4);
        // N=20, P=2, Q=2, R=2 (fields hold value - 1).
        write(RCC_PLL1DIVR, (1 << 24) | (1 << 16) | (1 << 9) | 19);
        modify(RCC_CR, 0, 1 << 24); // PLL1ON
        wait_for(RCC_CR, 1 << 25, 1 << 25); // PLL1RDY
        // Step through AHB /2 for 1 µs so the current does not jump at once.
        modify(RCC_CFGR2, 0xF, 0b1000);
        modify(RCC_CFGR1, 0b11, 0b11); // SW = PLL1
        wait_for(RCC_CFGR1, 0b11 << 2, 0b11 << 2);
        cortex_m::asm::delay(160);
        modify(RCC_CFGR2, 0xF, 0);
    }
}

const GPIOA: usize = 0x4202_0000;
const USART1: usize = 0x4001_3800;

const CR1: usize = 0x00;
const BRR: usize = 0x0C;
const ISR: usize = 0x1C;
const RDR: usize = 0x24;
const TDR: usize = 0x28;
const ISR_TXE: u32 = 1 << 7;
const ISR_RXNE: u32 = 1 << 5;
const CR1_UE: u32 = 1 << 0;
const CR1_RE: u32 = 1 << 2;
const CR1_TE: u32 = 1 << 3;

/// A USART of the ISR/TDR/RDR layout.
pub struct Usart {
    base: usize,
}

impl Usart {
    pub const fn steal() -> Self {
        Usart { base: USART1 }
    }
}

/// USART1 on PA9 (TX) and PA10 (RX), AF7, 8N1 at `baud` from PCLK2.
pub fn usart1_on_pa9_pa10(pclk2_hz: u32, baud: u32) -> Usart {
    // SAFETY: RCC enable bits, then the USART's documented registers.
    unsafe {
        modify(RCC_AHB2ENR1, 0, 1 << 0); // GPIOAEN
        modify(RCC_APB2ENR, 0, 1 << 14); // USART1EN
    }
    alternate_function(GPIOA, 9, 7);
    alternate_function(GPIOA, 10, 7);
    // SAFETY: as above.
    unsafe {
        write(USART1 + BRR, (pclk2_hz + baud / 2) / baud);
        write(USART1 + CR1, CR1_UE | CR1_TE | CR1_RE);
    }
    Usart { base: USART1 }
}

impl super::Uart for Usart {
    fn write_byte(&mut self, byte: u8) {
        // SAFETY: the USART's status and data registers.
        unsafe {
            wait_for(self.base + ISR, ISR_TXE, ISR_TXE);
            write(self.base + TDR, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: the USART's status and data registers.
        unsafe { (read(self.base + ISR) & ISR_RXNE != 0).then(|| read(self.base + RDR) as u8) }
    }
}
