//! STM32F4 parts shared by the F405 (netduinoplus2), F446 and F439 boards:
//! the USART (RM0090 §30.6, RM0390 §25.6), GPIO alternate functions, and
//! the clock tree to 180 MHz from the ST-LINK's 8 MHz (RM0090 §7, RM0390 §6),
//! or from the internal oscillator when that clock does not come.
// The netduinoplus2 uses the USART but not the clock code (QEMU has no RCC).
#![cfg_attr(feature = "netduinoplus2", allow(dead_code))]

use super::mmio::{TimedOut, cycles_in_ms, modify, read, spin_until, wait_for, write};
use super::stm32_gpio::alternate_function;
use super::{ClockSource, FlashTiming};

pub const RCC: usize = 0x4002_3800;
const RCC_CR: usize = RCC;
const RCC_PLLCFGR: usize = RCC + 0x04;
const RCC_CFGR: usize = RCC + 0x08;
pub const RCC_AHB1ENR: usize = RCC + 0x30;
pub const RCC_APB1ENR: usize = RCC + 0x40;
const PWR_CR: usize = 0x4000_7000;
const PWR_CSR: usize = 0x4000_7004;
const FLASH_ACR: usize = 0x4002_3C00;

// RCC_CR (RM0390 §6.3.1, RM0090 §7.3.1).
const CR_HSEON: u32 = 1 << 16;
const CR_HSERDY: u32 = 1 << 17;
const CR_HSEBYP: u32 = 1 << 18;
const CR_PLLON: u32 = 1 << 24;
const CR_PLLRDY: u32 = 1 << 25;
// RCC_CFGR (§6.3.3, §7.3.3): SW, SWS, and the AHB, APB1, APB2 prescalers.
const CFGR_SW: u32 = 0b11;
const CFGR_SWS: u32 = 0b11 << 2;
const CFGR_PRESCALERS: u32 = (0b111 << 13) | (0b111 << 10) | (0b1111 << 4);
// PWR_CR and PWR_CSR (RM0390 §5.4, RM0090 §5.4): the over-drive.
const PWR_ODEN: u32 = 1 << 16;
const PWR_ODSWEN: u32 = 1 << 17;
// FLASH_ACR (RM0390 §3.8.1, RM0090 §3.9.1): prefetch, instruction and
// data caches, and LATENCY.
const ACR_CACHES: u32 = (1 << 10) | (1 << 9) | (1 << 8);
const ACR_LATENCY: u32 = 0b1111;

/// The internal RC oscillator the chip runs on out of reset (RM0390
/// §6.2.2, RM0090 §7.2.2), and whenever the bring-up fails.
pub const HSI_HZ: u32 = 16_000_000;

/// What the PLL is set up for: the default 180 MHz at 5 wait states, or,
/// with the `clock-24mhz` feature, 24 MHz at none, the zero-wait-state
/// clock pqm4-style measurements are taken at.
struct Target {
    hclk_hz: u32,
    apb1_hz: u32,
    /// PLLN, from the 2 MHz VCO input.
    n: u32,
    /// PLLP's field (00: /2, 01: /4, 10: /6, 11: /8).
    p_bits: u32,
    /// PLLQ (the 48 MHz clock, unused here; kept within its 2..=15).
    q: u32,
    /// FLASH_ACR LATENCY for `hclk_hz` at 2.7 to 3.6 V.
    latency: u32,
    /// Whether `hclk_hz` needs the over-drive (above 168 MHz).
    overdrive: bool,
    /// RCC_CFGR's PPRE2, PPRE1 and HPRE.
    prescalers: u32,
}

/// 360 MHz VCO (N=180), P=2; APB2 /2, APB1 /4 (45 MHz, APB1's maximum);
/// 5 wait states (RM0390 §3.4.1 Table 5, RM0090 §3.5.1 Table 10:
/// 150 < HCLK <= 180 MHz at 2.7 to 3.6 V); the over-drive on.
#[cfg(not(feature = "clock-24mhz"))]
const TARGET: Target = Target {
    hclk_hz: 180_000_000,
    apb1_hz: 45_000_000,
    n: 180,
    p_bits: 0b00,
    q: 7,
    latency: 5,
    overdrive: true,
    prescalers: (0b100 << 13) | (0b101 << 10),
};

/// 192 MHz VCO (N=96, within its 100 to 432 MHz), P=8: 24 MHz, every bus
/// undivided; no wait state (the same tables: 0 WS up to 30 MHz at 2.7 to
/// 3.6 V), no over-drive.
#[cfg(feature = "clock-24mhz")]
const TARGET: Target = Target {
    hclk_hz: 24_000_000,
    apb1_hz: 24_000_000,
    n: 96,
    p_bits: 0b11,
    q: 4,
    latency: 0,
    overdrive: false,
    prescalers: 0,
};

/// Every clock wait gives up after at least 100 ms at the 16 MHz HSI the
/// chip runs on while it waits (1.6 M cycles; about 0.35 s there on a
/// Cortex-M4, see [`wait_for`]). That is the time ST's HAL gives an HSE to
/// start (HSE_STARTUP_TIMEOUT); a PLL locks within about 0.3 ms (the
/// datasheets' PLL lock time) and the over-drive, the flash and a clock
/// switch settle in microseconds, so only a clock that never comes waits
/// this long. The ST-LINK starts its MCO in its own boot, as the board
/// powers up: an MCO later than this is taken for none (the board says
/// `hsi-pll`; a reset, once the ST-LINK is up, finds it). The last wait,
/// for the switch to the PLL, may run at 180 MHz already: still 9 ms or
/// more.
const WAIT: u32 = cycles_in_ms(100, HSI_HZ);

/// The clocks the bring-up reached.
#[derive(Debug, Clone, Copy)]
pub struct Reached {
    pub source: ClockSource,
    /// The core clock (HCLK, SYSCLK undivided).
    pub hclk_hz: u32,
    pub apb1_hz: u32,
}

/// What feeds the PLL: its source bit (PLLSRC) and the divider (PLLM) that
/// brings it to a 2 MHz VCO input, the value RM0390 §6.3.2 and RM0090
/// §7.3.2 recommend within the allowed 1 to 2 MHz to limit jitter.
#[derive(Debug, Clone, Copy)]
enum PllInput {
    /// The ST-LINK's 8 MHz (HSE): M=4.
    Hse8MHz,
    /// The internal 16 MHz (HSI): M=8.
    Hsi16MHz,
}

/// 180 MHz (24 MHz with `clock-24mhz`, see [`TARGET`]), never hanging on
/// the way: AHB 180 MHz, APB1 45 MHz, APB2 90 MHz, 5 flash wait states at
/// 3.3 V, over-drive on (which 180 MHz needs on the F42x/F43x/F446), from
/// the PLL (N=180: 360 MHz VCO, P=2).
///
/// 1. The PLL on the 8 MHz external clock, HSE bypassed: the ST-LINK's MCO
///    on NUCLEO-144 boards. `hse-bypass`.
/// 2. If the HSE is not ready in time (a board whose ST-LINK gives no
///    clock, its solder bridge open, or no ST-LINK), the same PLL on the
///    16 MHz HSI. `hsi-pll`.
/// 3. If the PLL does not lock, the over-drive does not come, or the
///    switch does not happen, back to the HSI itself at 16 MHz, as out of
///    reset. `hsi`.
pub fn clocks_180mhz() -> Reached {
    // SAFETY: the PWR clock and the voltage scale, which may be set only
    // while the PLL is off (RM0390 §5.4.1): the PLL is off out of reset.
    unsafe {
        modify(RCC_APB1ENR, 0, 1 << 28); // PWREN
        modify(PWR_CR, 0, 0b11 << 14); // VOS: scale 1
    }
    let (source, input) = match start_hse_bypass() {
        Ok(()) => (ClockSource::HseBypass, PllInput::Hse8MHz),
        Err(TimedOut) => {
            stop_hse();
            (ClockSource::HsiPll, PllInput::Hsi16MHz)
        }
    };
    match switch_to_pll(input) {
        Ok(()) => Reached { source, hclk_hz: TARGET.hclk_hz, apb1_hz: TARGET.apb1_hz },
        Err(TimedOut) => {
            back_to_hsi();
            Reached { source: ClockSource::Hsi, hclk_hz: HSI_HZ, apb1_hz: HSI_HZ }
        }
    }
}

/// HSE in bypass mode: the bypass is set first, as HSEBYP may be written
/// only while the HSE is off (RM0390 §6.3.1).
fn start_hse_bypass() -> Result<(), TimedOut> {
    // SAFETY: RCC_CR's HSE bits and its ready flag.
    unsafe {
        modify(RCC_CR, 0, CR_HSEBYP);
        modify(RCC_CR, 0, CR_HSEON);
        wait_for("HSERDY", RCC_CR, CR_HSERDY, CR_HSERDY, WAIT)
    }
}

/// HSE off, then its bypass (writable only while the HSE is off).
fn stop_hse() {
    // SAFETY: RCC_CR's HSE bits; nothing runs on the HSE.
    unsafe {
        modify(RCC_CR, CR_HSEON, 0);
        modify(RCC_CR, CR_HSEBYP, 0);
    }
}

/// The PLL to 180 MHz and the system clock onto it, in the order RM0390
/// §5.1.4 gives for entering over-drive; the first step that times out
/// ends it, leaving what was done for [`back_to_hsi`] to undo.
fn switch_to_pll(input: PllInput) -> Result<(), TimedOut> {
    let (source, m) = match input {
        PllInput::Hse8MHz => (1 << 22, 4),
        PllInput::Hsi16MHz => (0, 8),
    };
    // SAFETY: the documented RCC, PWR and FLASH registers, written while
    // the PLL is off (PLLCFGR may be written only then) and the chip runs
    // on the HSI.
    unsafe {
        // PLLR=2 keeps the F446's reset value (and the F439's reserved
        // bits); PLLQ, PLLP and N as the target has them.
        write(
            RCC_PLLCFGR,
            (2 << 28) | (TARGET.q << 24) | source | (TARGET.p_bits << 16) | (TARGET.n << 6) | m,
        );
        modify(RCC_CR, 0, CR_PLLON);
        wait_for("PLLRDY", RCC_CR, CR_PLLRDY, CR_PLLRDY, WAIT)?;
        if TARGET.overdrive {
            modify(PWR_CR, 0, PWR_ODEN);
            wait_for("ODRDY", PWR_CSR, 1 << 16, 1 << 16, WAIT)?;
            modify(PWR_CR, 0, PWR_ODSWEN);
            wait_for("ODSWRDY", PWR_CSR, 1 << 17, 1 << 17, WAIT)?;
        }
        // The target's LATENCY with prefetch and caches (the ART
        // accelerator), read back before the clock rises (RM0390 §3.4.1).
        write(FLASH_ACR, ACR_CACHES | TARGET.latency);
        wait_for("the flash latency", FLASH_ACR, ACR_LATENCY, TARGET.latency, WAIT)?;
        // The bus prescalers, then switch to the PLL.
        modify(RCC_CFGR, CFGR_PRESCALERS, TARGET.prescalers);
        modify(RCC_CFGR, CFGR_SW, 0b10);
        wait_for("SWS = PLL", RCC_CFGR, CFGR_SWS, 0b10 << 2, WAIT)
    }
}

/// Back to the 16 MHz HSI from wherever a failed bring-up stopped, in the
/// order RM0390 §3.4.1 gives for lowering the clock (switch, then fewer
/// wait states); then, running on the HSI, the PLL off, the over-drive
/// left as RM0390 §5.1.4 exits it (ODSWEN, then ODEN), and the HSE off.
/// The HSI has run since reset and nothing turned it off, so the switch
/// back cannot wait on a missing clock.
fn back_to_hsi() {
    // SAFETY: the documented RCC, PWR and FLASH registers.
    unsafe {
        modify(RCC_CFGR, CFGR_SW, 0b00);
        // Should even this time out there is nothing better to do: go on,
        // and report the HSI, which is what SW now asks for.
        let _ = wait_for("SWS = HSI", RCC_CFGR, CFGR_SWS, 0, WAIT);
        // Every bus undivided: 16 MHz is within each one's limit.
        modify(RCC_CFGR, CFGR_PRESCALERS, 0);
        // No wait state up to 30 MHz at 2.7 to 3.6 V (RM0390 §3.4.1's
        // wait-state table); prefetch and caches on, as at 180 MHz.
        write(FLASH_ACR, ACR_CACHES);
        let _ = wait_for("the flash latency", FLASH_ACR, ACR_LATENCY, 0, WAIT);
        modify(RCC_CR, CR_PLLON, 0);
        modify(PWR_CR, PWR_ODSWEN, 0);
        modify(PWR_CR, PWR_ODEN, 0);
    }
    stop_hse();
}

/// The flash's wait states and the ART accelerator's parts, read back from
/// FLASH_ACR (RM0390 §3.8.1, RM0090 §3.9.1) after the bring-up, whichever
/// clock it reached: what the cycles were counted with.
pub fn flash_timing() -> FlashTiming {
    // SAFETY: a read of FLASH_ACR.
    let acr = unsafe { read(FLASH_ACR) };
    let (prften, icen, dcen) = (acr & (1 << 8) != 0, acr & (1 << 9) != 0, acr & (1 << 10) != 0);
    let caches = match (prften, icen, dcen) {
        // The ART accelerator: prefetch, instruction and data caches.
        (true, true, true) => "art",
        (false, false, false) => "none",
        (true, true, false) => "prefetch-icache",
        (true, false, true) => "prefetch-dcache",
        (false, true, true) => "icache-dcache",
        (true, false, false) => "prefetch",
        (false, true, false) => "icache",
        (false, false, true) => "dcache",
    };
    FlashTiming { wait_states: Some((acr & ACR_LATENCY) as u8), caches }
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
/// The receive errors (RM0090 §30.6.1, USART_SR): overrun, noise, framing
/// and parity, each cleared by a read of SR followed by one of DR. An
/// overrun left set stops reception: no byte reaches DR again.
const SR_RECEIVE_ERRORS: u32 = 0b1111;
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
            spin_until(self.base + SR, SR_TXE, SR_TXE);
            write(self.base + DR, u32::from(byte));
        }
    }

    fn read_byte(&mut self) -> Option<u8> {
        // SAFETY: the USART's status and data registers.
        unsafe {
            let sr = read(self.base + SR);
            if sr & SR_RXNE != 0 {
                // The SR-then-DR sequence also clears an overrun flagged
                // with this byte.
                return Some(read(self.base + DR) as u8);
            }
            if sr & SR_RECEIVE_ERRORS != 0 {
                // An overrun with nothing to read (RM0090's note: the last
                // byte was read just as the lost one came): the same
                // sequence clears it, or the USART stays deaf.
                let _ = read(self.base + DR);
            }
            None
        }
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
/// clock (or what [`clocks_180mhz`] falls back to), the ST-LINK virtual COM
/// port on USART3 (PD8/PD9), and the DWT cycle counter as the clock.
#[cfg(any(feature = "nucleo-f446ze", feature = "nucleo-f439zi"))]
pub mod nucleo144 {
    use pqbench_types::TickUnit;

    use super::Usart;
    use crate::boards::Clocks;

    pub const CORE: &str = "cortex-m4f";
    pub const TICK_UNIT: TickUnit = TickUnit::Cycles;

    pub type Ticks = crate::boards::dwt::CycleCounter;
    pub type Uart = Usart;

    /// The clock reached, whichever it is: the DWT counts its cycles, and
    /// USART3 is on APB1.
    ///
    /// Never inlined: a board that hangs in its bring-up is then found, by
    /// the host that halts it, in a function named for what it was doing
    /// (`init_clocks`), not in `main` (see `PQBENCH_WAITING_FOR`).
    #[inline(never)]
    pub fn init_clocks() -> Clocks {
        let reached = super::clocks_180mhz();
        Clocks {
            source: reached.source,
            clock_hz: reached.hclk_hz.into(),
            ticks_per_second: reached.hclk_hz.into(),
            uart_hz: reached.apb1_hz,
            flash: super::flash_timing(),
        }
    }

    pub fn uart(clocks: &Clocks) -> Uart {
        super::usart3_on_pd8_pd9(clocks.uart_hz, 115_200)
    }

    pub fn steal_uart() -> Uart {
        Usart::steal(super::USART3)
    }
}
