//! A board's clock as its firmware reports it: the sources a `hello`
//! names, and per board which is normal and what to tell a person of the
//! others.

/// Where a board's clock comes from, as its firmware's `hello` says it
/// (`clock_source`, by [`ClockSource::as_str`]). One enum for both sides:
/// the firmware sends these tokens and the catalogue below knows them, so
/// the two cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClockSource {
    /// The PLL on an external clock fed in with the HSE oscillator bypassed
    /// (a NUCLEO-144's ST-LINK MCO, 8 MHz).
    HseBypass,
    /// The PLL on the internal 16 MHz oscillator (HSI, HSI16).
    HsiPll,
    /// The internal 16 MHz oscillator itself, no PLL.
    Hsi,
    /// The STM32U5's reset clock, MSIS at 4 MHz, no PLL.
    Msi,
    /// Whatever QEMU gives: it models no clock tree.
    Qemu,
}

impl ClockSource {
    pub const ALL: [ClockSource; 5] =
        [ClockSource::HseBypass, ClockSource::HsiPll, ClockSource::Hsi, ClockSource::Msi, ClockSource::Qemu];

    /// The token a `hello` carries: short, of the characters every
    /// transport keeps (sent as they are on defmt, percent-encoded on text).
    pub const fn as_str(self) -> &'static str {
        match self {
            ClockSource::HseBypass => "hse-bypass",
            ClockSource::HsiPll => "hsi-pll",
            ClockSource::Hsi => "hsi",
            ClockSource::Msi => "msi",
            ClockSource::Qemu => "qemu",
        }
    }
}

/// The clock sources a board's firmware reports (`clock_source` in its
/// `hello`): the one its bring-up aims for, and those it falls back to
/// when that fails, each with what a person should be told.
#[derive(Debug)]
pub struct Clocking {
    /// The clock of a board whose clocks came up as planned.
    pub normal: ClockSource,
    pub fallbacks: &'static [ClockFallback],
}

/// A clock the firmware settled for, and why it matters.
#[derive(Debug)]
pub struct ClockFallback {
    pub source: ClockSource,
    /// A sentence for the dashboard and the board list: what happened and
    /// what it does to the figures.
    pub note: &'static str,
}

/// The NUCLEO-144 STM32F4 boards (`firmware/src/boards/stm32f4.rs`): 180
/// MHz from the PLL on the ST-LINK's 8 MHz clock (HSE bypass); without that
/// clock, the same 180 MHz from the PLL on the internal 16 MHz oscillator
/// (HSI); failing that, the HSI itself. The HSI is factory-trimmed to about
/// 1% at room temperature (the F4 datasheets' HSI accuracy), the
/// ST-LINK's crystal to a few parts per million.
pub(crate) const NUCLEO144_CLOCK: Clocking = Clocking {
    normal: ClockSource::HseBypass,
    fallbacks: &[
        ClockFallback {
            source: ClockSource::HsiPll,
            note: "no 8 MHz clock from the ST-LINK (HSE did not start): running at 180 MHz from the \
                   internal 16 MHz oscillator; cycle counts hold, times are only as exact as that \
                   oscillator (about 1%)",
        },
        ClockFallback {
            source: ClockSource::Hsi,
            note: "clock bring-up failed (no 8 MHz clock from the ST-LINK, or the PLL did not lock): \
                   running at 16 MHz from the internal oscillator, not 180 MHz",
        },
    ],
};

/// The B-U585I-IOT02A (`firmware/src/boards/stm32u5.rs`): 160 MHz from the
/// PLL on the internal 16 MHz oscillator (HSI16), needing nothing from the
/// ST-LINK; failing that, the chip's reset clock, MSIS at 4 MHz.
pub(crate) const U585_CLOCK: Clocking = Clocking {
    normal: ClockSource::HsiPll,
    fallbacks: &[ClockFallback {
        source: ClockSource::Msi,
        note: "clock bring-up failed (the PLL did not lock): running at 4 MHz from the reset \
               oscillator (MSIS), not 160 MHz",
    }],
};

/// QEMU models no clock tree: the firmware leaves the clock as QEMU
/// starts it.
pub(crate) const QEMU_CLOCK: Clocking = Clocking { normal: ClockSource::Qemu, fallbacks: &[] };
