//! STM32U5 parts for the B-U585I-IOT02A: the clock tree to 160 MHz from
//! HSI16 (RM0456 §11), or the reset clock when that fails, and USART1
//! (RM0456 §67) on PA9/PA10, the ST-LINK virtual COM port. Non-secure
//! register addresses (TrustZone off, as shipped).

use super::mmio::{TimedOut, cycles_in_ms, modify, read, spin_until, wait_for, write};
use super::stm32_gpio::alternate_function;
use super::{ClockSource, FlashTiming};

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

const CR_PLL1ON: u32 = 1 << 24;
const CR_PLL1RDY: u32 = 1 << 25;
const CFGR1_SW: u32 = 0b11;
const CFGR1_SWS: u32 = 0b11 << 2;
const CFGR2_HPRE: u32 = 0xF;
const ACR_LATENCY: u32 = 0xF;

/// The clock the chip runs on out of reset, MSIS at 4 MHz (RM0456 §11), and
/// whenever the bring-up fails.
pub const MSIS_HZ: u32 = 4_000_000;

/// The PLL's output and the flash wait states for it in voltage range 1
/// (RM0456 §7, the flash's table of wait states by HCLK: 0 WS up to 32 MHz,
/// 4 WS up to 160 MHz). The default is the chip's 160 MHz; `clock-24mhz`
/// gives 24 MHz at no wait state, the clock pqm4-style measurements are
/// taken at. N and R are PLL1DIVR's values (the fields hold value - 1); the
/// VCO is 16 MHz × N, within its 128 to 544 MHz, and R is even.
#[cfg(not(feature = "clock-24mhz"))]
const PLL_HZ: u32 = 160_000_000;
#[cfg(not(feature = "clock-24mhz"))]
const PLL_N_R_LATENCY: (u32, u32, u32) = (20, 2, 4);
#[cfg(feature = "clock-24mhz")]
const PLL_HZ: u32 = 24_000_000;
#[cfg(feature = "clock-24mhz")]
const PLL_N_R_LATENCY: (u32, u32, u32) = (12, 8, 0);

const ICACHE: usize = 0x4003_0400;
const ICACHE_CR: usize = ICACHE;
const ICACHE_SR: usize = ICACHE + 0x04;
const ICACHE_CR_EN: u32 = 1 << 0;
const ICACHE_SR_BUSYF: u32 = 1 << 0;

/// Every clock wait gives up after at least 100 ms at the 4 MHz MSIS the
/// chip runs on while it waits (400 k cycles; about 0.35 s there on a
/// Cortex-M33, see [`wait_for`]),
/// the time ST's HAL gives an oscillator; HSI16 starts, the PLL locks and
/// the regulator and a switch settle well within a millisecond, so only a
/// clock that never comes waits this long. The last wait, for the switch to
/// the PLL, may run at 160 MHz already: still 2.5 ms or more.
const WAIT: u32 = cycles_in_ms(100, MSIS_HZ);

/// The clocks the bring-up reached.
#[derive(Debug, Clone, Copy)]
pub struct Reached {
    pub source: ClockSource,
    /// The core clock (HCLK, SYSCLK undivided).
    pub hclk_hz: u32,
    /// APB2, undivided.
    pub pclk2_hz: u32,
}

/// 160 MHz from HSI16 (24 MHz with `clock-24mhz`), never hanging on the
/// way (`hsi-pll`); when a step times out, back to the reset clock, MSIS at
/// 4 MHz (`msi`). Nothing on the board's side is needed: the HSI16 is
/// inside the chip. The instruction cache is turned on whichever clock is
/// reached.
pub fn clocks_160mhz() -> Reached {
    enable_icache();
    match switch_to_pll() {
        Ok(()) => Reached { source: ClockSource::HsiPll, hclk_hz: PLL_HZ, pclk2_hz: PLL_HZ },
        Err(TimedOut) => {
            back_to_msis();
            Reached { source: ClockSource::Msi, hclk_hz: MSIS_HZ, pclk2_hz: MSIS_HZ }
        }
    }
}

/// HSI16 into PLL1 (M=1, N=20: 320 MHz VCO, R=2; for 24 MHz N=12: 192 MHz,
/// R=8), voltage range 1 with the EPOD booster (needed above 55 MHz,
/// harmless below; its clock is the PLL source, 16 MHz, within its 4 to
/// 16 MHz), 4 flash wait states (0 at 24 MHz), then the switch. The first
/// step that times out ends it, leaving what was done for
/// [`back_to_msis`] to undo.
fn switch_to_pll() -> Result<(), TimedOut> {
    // SAFETY: the documented RCC, PWR and FLASH registers, in the order the
    // reference manual gives for raising the system clock.
    unsafe {
        modify(RCC_AHB3ENR, 0, 1 << 2); // PWREN
        modify(RCC_CR, 0, 1 << 8); // HSION
        wait_for("HSIRDY", RCC_CR, 1 << 10, 1 << 10, WAIT)?;
        // PLL1SRC=HSI16, PLL1RGE=8..16 MHz, PLL1M=1, PLL1MBOOST=/1, R output on.
        write(RCC_PLL1CFGR, (1 << 18) | (0b11 << 2) | 0b10);
        modify(PWR_VOSR, 0b11 << 16, (0b11 << 16) | (1 << 18)); // VOS range 1, BOOSTEN
        wait_for("VOSRDY and BOOSTRDY", PWR_VOSR, (1 << 15) | (1 << 14), (1 << 15) | (1 << 14), WAIT)?;
        let (n, r, latency) = PLL_N_R_LATENCY;
        modify(FLASH_ACR, ACR_LATENCY, (1 << 8) | latency); // PRFTEN, LATENCY
        wait_for("the flash latency", FLASH_ACR, ACR_LATENCY, latency, WAIT)?;
        // N, P=2, Q=2, R (fields hold value - 1).
        write(RCC_PLL1DIVR, ((r - 1) << 24) | (1 << 16) | (1 << 9) | (n - 1));
        modify(RCC_CR, 0, CR_PLL1ON);
        wait_for("PLL1RDY", RCC_CR, CR_PLL1RDY, CR_PLL1RDY, WAIT)?;
        // Step through AHB /2 for 1 µs so the current does not jump at once.
        modify(RCC_CFGR2, CFGR2_HPRE, 0b1000);
        modify(RCC_CFGR1, CFGR1_SW, 0b11); // SW = PLL1
        let switched = wait_for("SWS = PLL1", RCC_CFGR1, CFGR1_SWS, 0b11 << 2, WAIT);
        cortex_m::asm::delay(160);
        modify(RCC_CFGR2, CFGR2_HPRE, 0);
        switched
    }
}

/// Back to MSIS at 4 MHz from wherever a failed bring-up stopped: switch,
/// AHB undivided, then no wait state (the flash's order for lowering the
/// clock, RM0456 §7), then PLL1 off. MSIS has run since reset and nothing
/// turned it off, so the switch back cannot wait on a missing clock. The
/// voltage range may stay raised: a higher range serves a lower clock.
fn back_to_msis() {
    // SAFETY: the documented RCC and FLASH registers.
    unsafe {
        modify(RCC_CFGR1, CFGR1_SW, 0b00);
        // Should even this time out there is nothing better to do: go on,
        // and report MSIS, which is what SW now asks for.
        let _ = wait_for("SWS = MSIS", RCC_CFGR1, CFGR1_SWS, 0, WAIT);
        modify(RCC_CFGR2, CFGR2_HPRE, 0);
        modify(FLASH_ACR, ACR_LATENCY, 0);
        let _ = wait_for("the flash latency", FLASH_ACR, ACR_LATENCY, 0, WAIT);
        modify(RCC_CR, CR_PLL1ON, 0);
    }
}

/// The 8 KiB instruction cache in front of the flash (RM0456, chapter
/// "Instruction cache (ICACHE)"): off out of reset, which leaves every
/// fetch paying the flash's wait states. Out of reset the cache runs its
/// own invalidation (ICACHE_SR BUSYF set until it ends); ICACHE_CR EN is
/// set once it has, its reset configuration (2-way) kept. Should BUSYF
/// never clear the cache stays off and `hello` says so (`caches`): a run
/// without it is still a run, only a slower one.
fn enable_icache() {
    // SAFETY: the ICACHE's documented control and status registers; the
    // cache is transparent to the code that runs from the flash.
    unsafe {
        if wait_for("the ICACHE's invalidation", ICACHE_SR, ICACHE_SR_BUSYF, 0, WAIT).is_ok() {
            modify(ICACHE_CR, 0, ICACHE_CR_EN);
        }
    }
}

/// The flash's wait states and what sits in front of it, read back after
/// the bring-up: FLASH_ACR LATENCY and PRFTEN (RM0456 §7, FLASH_ACR) and
/// ICACHE_CR EN.
pub fn flash_timing() -> FlashTiming {
    // SAFETY: reads of FLASH_ACR and ICACHE_CR.
    let (acr, icache) = unsafe { (read(FLASH_ACR), read(ICACHE_CR)) };
    let caches = match (icache & ICACHE_CR_EN != 0, acr & (1 << 8) != 0) {
        (true, true) => "icache-prefetch",
        (true, false) => "icache",
        (false, true) => "prefetch",
        (false, false) => "none",
    };
    FlashTiming { wait_states: Some((acr & ACR_LATENCY) as u8), caches }
}

const GPIOA: usize = 0x4202_0000;
const USART1: usize = 0x4001_3800;

const CR1: usize = 0x00;
const BRR: usize = 0x0C;
const ISR: usize = 0x1C;
const RDR: usize = 0x24;
const TDR: usize = 0x28;
const ICR: usize = 0x20;
const ISR_TXE: u32 = 1 << 7;
/// The receive errors (RM0456 §67.8.10, USART_ISR): overrun, noise,
/// framing and parity. Each stays set until its clear bit in USART_ICR,
/// at the same position, is written; an overrun left set stops reception
/// for good (no byte moves to RDR again), so they are cleared as they come.
const ISR_RECEIVE_ERRORS: u32 = 0b1111;
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
            spin_until(self.base + ISR, ISR_TXE, ISR_TXE);
            write(self.base + TDR, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: the USART's status, clear and data registers.
        unsafe {
            let isr = read(self.base + ISR);
            if isr & ISR_RECEIVE_ERRORS != 0 {
                // Bytes were lost while the board was busy: the command
                // they belonged to fails to parse and is answered with an
                // error, and the next one is heard.
                write(self.base + ICR, isr & ISR_RECEIVE_ERRORS);
            }
            (isr & ISR_RXNE != 0).then(|| read(self.base + RDR) as u8)
        }
    }
}
