//! The one catalogue of boards: every board pqbench has firmware for, as
//! data. The firmware's build script takes its board list from here,
//! `cargo xtask build` the images to build and the chip each must fit, and
//! the board side (`pqbench-collect`) the emulators it can start, the chips
//! a probe is wired to, and the file of each image. What cannot read it (the
//! firmware's cargo features, its memory maps and platform files, the
//! README's table) is held to it by xtask's tidy test.
//!
//! Adding a board: an entry in [`BOARDS`], a feature of its name in
//! `firmware/Cargo.toml`, `firmware/memory/<board>.x`, and its platform
//! layer `firmware/src/boards/<board>.rs` with its `#[path]` line in
//! `firmware/src/boards/mod.rs`; `cargo test -p xtask tidy` says what is
//! missing.
#![no_std]

extern crate alloc;

use alloc::format;
use alloc::string::String;

pub mod image_builds;

/// A board the firmware is built for.
#[derive(Debug)]
pub struct Board {
    /// The firmware's name for it: its cargo feature, its memory map
    /// `firmware/memory/<firmware>.x`, and the stem of its images.
    pub firmware: &'static str,
    /// What a person calls it, with what matters for its figures.
    pub name: &'static str,
    /// The Rust target its firmware is built for.
    pub target: &'static str,
    pub chip: Chip,
    /// Its ML-KEM/ML-DSA implementation: the firmware feature `pqc-<name>`.
    pub pqc: Pqc,
    /// How a host reaches it.
    pub reached: Reached,
    /// The build variants made for it, by name (see [`VARIANTS`]); the
    /// first is the default, `opt-s`.
    pub variants: &'static [&'static str],
    /// What its firmware's `hello` may say as `clock_source`.
    pub clock: Clocking,
}

/// The clock sources a board's firmware reports (`clock_source` in its
/// `hello`): the one its bring-up aims for, and those it falls back to
/// when that fails, each with what a person should be told.
#[derive(Debug)]
pub struct Clocking {
    /// The `clock_source` of a board whose clocks came up as planned.
    pub normal: &'static str,
    pub fallbacks: &'static [ClockFallback],
}

/// A clock the firmware settled for, and why it matters.
#[derive(Debug)]
pub struct ClockFallback {
    /// Its `clock_source` token.
    pub source: &'static str,
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
const NUCLEO144_CLOCK: Clocking = Clocking {
    normal: "hse-bypass",
    fallbacks: &[
        ClockFallback {
            source: "hsi-pll",
            note: "no 8 MHz clock from the ST-LINK (HSE did not start): running at 180 MHz from the \
                   internal 16 MHz oscillator; cycle counts hold, times are only as exact as that \
                   oscillator (about 1%)",
        },
        ClockFallback {
            source: "hsi",
            note: "clock bring-up failed (no 8 MHz clock from the ST-LINK, or the PLL did not lock): \
                   running at 16 MHz from the internal oscillator, not 180 MHz",
        },
    ],
};

/// The B-U585I-IOT02A (`firmware/src/boards/stm32u5.rs`): 160 MHz from the
/// PLL on the internal 16 MHz oscillator (HSI16), needing nothing from the
/// ST-LINK; failing that, the chip's reset clock, MSIS at 4 MHz.
const U585_CLOCK: Clocking = Clocking {
    normal: "hsi-pll",
    fallbacks: &[ClockFallback {
        source: "msi",
        note: "clock bring-up failed (the PLL did not lock): running at 4 MHz from the reset \
               oscillator (MSIS), not 160 MHz",
    }],
};

/// QEMU models no clock tree: the firmware leaves the clock as QEMU
/// starts it.
const QEMU_CLOCK: Clocking = Clocking { normal: "qemu", fallbacks: &[] };

/// The memory a board's images must fit.
#[derive(Debug)]
pub struct Chip {
    pub flash_bytes: u64,
    /// All the RAM the firmware's memory map uses (stack and the rest).
    pub ram_bytes: u64,
}

/// The ML-KEM/ML-DSA implementation an image is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pqc {
    Libcrux,
    RustCrypto,
    /// PQClean's portable C (`clean`), compiled with pqm4's flags.
    PqClean,
}

impl Pqc {
    pub const fn name(self) -> &'static str {
        match self {
            Pqc::Libcrux => "libcrux",
            Pqc::RustCrypto => "rustcrypto",
            Pqc::PqClean => "pqclean",
        }
    }
}

/// How a host reaches a board.
#[derive(Debug)]
pub enum Reached {
    /// A QEMU machine the host starts itself, with the board's console UART
    /// on a pseudo-terminal.
    Emulated(QemuMachine),
    /// A real board, through its debug probe (flashed with the image of
    /// [`PROBE_VARIANT`]) or its virtual COM port.
    Chip {
        /// probe-rs's name for the chip.
        probe_rs_chip: &'static str,
    },
}

/// A QEMU machine standing in for a board.
#[derive(Debug)]
pub struct QemuMachine {
    /// The board's id in pqbench (`qemu-mps2-an386`).
    pub id: &'static str,
    pub machine: &'static str,
    /// `-cpu`, for machines that take one.
    pub cpu: Option<&'static str>,
    /// `-serial` options in UART order; the one given as `pty` is the console.
    pub serials: &'static [&'static str],
}

/// How an image sends its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Text records on the UART.
    Text,
    /// defmt frames on the UART: the defmt path, testable on QEMU.
    DefmtSerial,
    /// defmt frames through RTT, commands through a RAM mailbox: a board on
    /// its debug probe.
    DefmtRtt,
}

impl Transport {
    /// The firmware's cargo feature for it, if it needs one.
    pub const fn feature(self) -> Option<&'static str> {
        match self {
            Transport::Text => None,
            Transport::DefmtSerial => Some("defmt-serial"),
            Transport::DefmtRtt => Some("defmt-rtt"),
        }
    }
}

/// A build of the firmware, beside others of the same board so they can
/// be compared.
#[derive(Debug)]
pub struct Variant {
    pub name: &'static str,
    /// The cargo profile (`firmware` is opt-level s).
    pub profile: &'static str,
    pub transport: Transport,
    /// Another ML-KEM/ML-DSA implementation than the board's own.
    pub pqc: Option<Pqc>,
    /// Offered only where it fits the chip (a larger build may not).
    pub optional: bool,
    /// A firmware feature beside the board's, transport's and
    /// implementation's (see [`OTHER_FIRMWARE_FEATURES`]).
    pub feature: Option<&'static str>,
}

pub const DEFAULT_VARIANT: &str = "opt-s";

/// Where in a dist folder (beside `firmware/`) the Cortex-M4 timing model's
/// QEMU plugin is: the emulated boards run under it where it is built.
pub const TIMING_MODEL_PLUGIN: &str = "qemu/libpqbench_qemu_m4_plugin.so";
/// The image a board on a debug probe is flashed with; a probe run of any
/// board runs it, whatever variant the request names.
pub const PROBE_VARIANT: &str = "opt-s-defmt-rtt";

pub const VARIANTS: &[Variant] = &[
    Variant {
        name: "opt-s",
        profile: "firmware",
        transport: Transport::Text,
        pqc: None,
        optional: false,
        feature: None,
    },
    Variant {
        name: "opt-z",
        profile: "firmware-z",
        transport: Transport::Text,
        pqc: None,
        optional: true,
        feature: None,
    },
    Variant {
        name: "opt-3",
        profile: "firmware-3",
        transport: Transport::Text,
        pqc: None,
        optional: true,
        feature: None,
    },
    Variant {
        name: "opt-s-defmt",
        profile: "firmware",
        transport: Transport::DefmtSerial,
        pqc: None,
        optional: false,
        feature: None,
    },
    Variant {
        name: PROBE_VARIANT,
        profile: "firmware",
        transport: Transport::DefmtRtt,
        pqc: None,
        optional: false,
        feature: None,
    },
    Variant {
        name: "opt-s-rustcrypto",
        profile: "firmware",
        transport: Transport::Text,
        pqc: Some(Pqc::RustCrypto),
        optional: false,
        feature: None,
    },
    // PQClean's C, the code under pqm4's `clean` rows: with the 24 MHz
    // variant, the same code measured as pqm4 measures it.
    Variant {
        name: "opt-s-pqclean",
        profile: "firmware",
        transport: Transport::Text,
        pqc: Some(Pqc::PqClean),
        optional: false,
        feature: None,
    },
    // The chip at 24 MHz with no flash wait state, as pqm4 and libcrux-iot
    // measure (their tables' clocks are chosen for zero wait states): its
    // cycles are comparable with theirs in memory timing, where the full
    // clock's 4 or 5 wait states add some 20 % or more.
    Variant {
        name: "opt-s-24mhz",
        profile: "firmware",
        transport: Transport::Text,
        pqc: None,
        optional: false,
        feature: Some("clock-24mhz"),
    },
];

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// The variants every real board is built in: its own, the other
/// optimisation levels where they fit, and its probe image.
const CHIP_VARIANTS: &[&str] = &["opt-s", "opt-z", "opt-3", PROBE_VARIANT, "opt-s-24mhz", "opt-s-pqclean"];

/// Every board. libcrux where the flash holds it: the NUCLEO-F446ZE's 512
/// KiB does not (the image needs about 650 KiB), so it and the
/// netduinoplus2, which stands in for it on QEMU, use RustCrypto's.
pub const BOARDS: &[Board] = &[
    Board {
        firmware: "mps2-an386",
        name: "Cortex-M4 on QEMU mps2-an386 (emulated; times are instruction counts)",
        target: "thumbv7em-none-eabihf",
        chip: Chip { flash_bytes: 4 * MIB, ram_bytes: 4 * MIB },
        pqc: Pqc::Libcrux,
        reached: Reached::Emulated(QemuMachine {
            id: "qemu-mps2-an386",
            machine: "mps2-an386",
            cpu: Some("cortex-m4"),
            serials: &["pty"],
        }),
        variants: &["opt-s", "opt-z", "opt-3", "opt-s-defmt", "opt-s-rustcrypto", "opt-s-pqclean"],
        clock: QEMU_CLOCK,
    },
    Board {
        firmware: "netduinoplus2",
        name: "STM32F405 on QEMU netduinoplus2 (emulated, 128 KiB RAM; USART3 as on a NUCLEO)",
        target: "thumbv7em-none-eabihf",
        chip: Chip { flash_bytes: MIB, ram_bytes: 128 * KIB },
        pqc: Pqc::RustCrypto,
        reached: Reached::Emulated(QemuMachine {
            id: "qemu-netduinoplus2",
            machine: "netduinoplus2",
            cpu: None,
            // USART3 is the console, as on NUCLEO-144 boards.
            serials: &["null", "null", "pty"],
        }),
        variants: &["opt-s", "opt-z", "opt-3"],
        clock: QEMU_CLOCK,
    },
    Board {
        firmware: "nucleo-f446ze",
        name: "NUCLEO-F446ZE (STM32F446ZE, Cortex-M4F, 180 MHz, 128 KiB RAM)",
        target: "thumbv7em-none-eabihf",
        chip: Chip { flash_bytes: 512 * KIB, ram_bytes: 128 * KIB },
        pqc: Pqc::RustCrypto,
        reached: Reached::Chip { probe_rs_chip: "STM32F446ZETx" },
        variants: CHIP_VARIANTS,
        clock: NUCLEO144_CLOCK,
    },
    Board {
        firmware: "nucleo-f439zi",
        name: "NUCLEO-F439ZI (STM32F439ZI, Cortex-M4F, 180 MHz, 192 KiB RAM)",
        target: "thumbv7em-none-eabihf",
        chip: Chip { flash_bytes: 2 * MIB, ram_bytes: 192 * KIB },
        pqc: Pqc::Libcrux,
        reached: Reached::Chip { probe_rs_chip: "STM32F439ZITx" },
        variants: CHIP_VARIANTS,
        clock: NUCLEO144_CLOCK,
    },
    Board {
        firmware: "b-u585i-iot02a",
        name: "B-U585I-IOT02A (STM32U585AI, Cortex-M33, 160 MHz, 768 KiB RAM)",
        target: "thumbv8m.main-none-eabihf",
        chip: Chip { flash_bytes: 2 * MIB, ram_bytes: 768 * KIB },
        pqc: Pqc::Libcrux,
        reached: Reached::Chip { probe_rs_chip: "STM32U585AIIx" },
        variants: CHIP_VARIANTS,
        clock: U585_CLOCK,
    },
];

/// The firmware features that are not boards: an image has exactly one
/// board feature and any of these.
pub const OTHER_FIRMWARE_FEATURES: &[&str] = &[
    "pqc-libcrux",
    "pqc-rustcrypto",
    "pqc-pqclean",
    "defmt-rtt",
    "defmt-serial",
    "inject-self-test-fault",
    "inject-pqc-fault",
    "text-mirror",
    "test-clock-waits-forever",
    "clock-24mhz",
];

impl Board {
    pub fn by_firmware(firmware: &str) -> Option<&'static Board> {
        BOARDS.iter().find(|b| b.firmware == firmware)
    }

    /// The board's id in pqbench, as its firmware's `hello` says it: its
    /// emulator's id (`qemu-mps2-an386`), or its firmware name for a chip.
    pub fn id(&self) -> &'static str {
        match &self.reached {
            Reached::Emulated(qemu) => qemu.id,
            Reached::Chip { .. } => self.firmware,
        }
    }

    /// The board whose firmware says `board=<id>` in its `hello`.
    pub fn by_id(id: &str) -> Option<&'static Board> {
        BOARDS.iter().find(|b| b.id() == id)
    }

    /// The emulated board with pqbench id `id`.
    pub fn emulated(id: &str) -> Option<(&'static Board, &'static QemuMachine)> {
        BOARDS.iter().find_map(|b| match &b.reached {
            Reached::Emulated(qemu) if qemu.id == id => Some((b, qemu)),
            _ => None,
        })
    }

    pub fn qemu(&self) -> Option<&QemuMachine> {
        match &self.reached {
            Reached::Emulated(qemu) => Some(qemu),
            Reached::Chip { .. } => None,
        }
    }

    pub fn probe_rs_chip(&self) -> Option<&'static str> {
        match self.reached {
            Reached::Chip { probe_rs_chip } => Some(probe_rs_chip),
            Reached::Emulated(_) => None,
        }
    }

    /// What a person should be told of the clock a `hello` of this board
    /// says it runs at (`clock_source`): nothing when it is the one its
    /// firmware aims for, the fallback's sentence when it fell back, and
    /// the plain fact for a source this catalogue does not know (firmware
    /// newer than the host).
    pub fn clock_note(&self, clock_source: &str) -> Option<String> {
        if clock_source == self.clock.normal {
            return None;
        }
        let known = self.clock.fallbacks.iter().find(|f| f.source == clock_source);
        Some(match known {
            Some(fallback) => String::from(fallback.note),
            None => format!("clock source {clock_source}, not this board's usual {}", self.clock.normal),
        })
    }

    /// The variants made for this board.
    pub fn variants(&self) -> impl Iterator<Item = &'static Variant> + '_ {
        self.variants.iter().filter_map(|name| Variant::named(name))
    }

    /// Whether `variant` is made for this board.
    pub fn offers(&self, variant: &str) -> bool {
        self.variants.contains(&variant)
    }

    /// The firmware's cargo features for `variant` of this board.
    pub fn features(&self, variant: &Variant) -> String {
        let pqc = variant.pqc.unwrap_or(self.pqc);
        let mut features = format!("{},pqc-{}", self.firmware, pqc.name());
        if let Some(transport) = variant.transport.feature() {
            features.push(',');
            features.push_str(transport);
        }
        if let Some(feature) = variant.feature {
            features.push(',');
            features.push_str(feature);
        }
        features
    }

    /// The file name of `variant`'s image: `<board>.elf` for the default,
    /// `<board>-defmt-serial.elf` and `<board>-defmt-rtt.elf` for the defmt
    /// transports, `<board>-<variant>.elf` for the others.
    pub fn image_file(&self, variant: &Variant) -> String {
        match (variant.transport, variant.name) {
            (Transport::Text, DEFAULT_VARIANT) => format!("{}.elf", self.firmware),
            (Transport::Text, name) => format!("{}-{name}.elf", self.firmware),
            (Transport::DefmtSerial, _) => format!("{}-defmt-serial.elf", self.firmware),
            (Transport::DefmtRtt, _) => format!("{}-defmt-rtt.elf", self.firmware),
        }
    }
}

/// What a person should be told of a board's clock, from its `hello`: its
/// `board` and `clock_source` fields. Nothing for a board the catalogue
/// does not know, or firmware that does not say its clock source (older
/// than the field).
pub fn clock_note(board_id: Option<&str>, clock_source: Option<&str>) -> Option<String> {
    Board::by_id(board_id?)?.clock_note(clock_source?)
}

impl Variant {
    pub fn named(name: &str) -> Option<&'static Variant> {
        VARIANTS.iter().find(|v| v.name == name)
    }
}

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeSet;
    use alloc::vec::Vec;

    use super::*;

    #[test]
    fn names_ids_and_image_files_are_unique_and_every_variant_is_known() {
        let firmware: BTreeSet<_> = BOARDS.iter().map(|b| b.firmware).collect();
        assert_eq!(firmware.len(), BOARDS.len());
        let emulated: Vec<_> = BOARDS.iter().filter_map(|b| b.qemu()).map(|e| e.id).collect();
        assert_eq!(emulated.iter().collect::<BTreeSet<_>>().len(), emulated.len());
        let mut files = BTreeSet::new();
        for board in BOARDS {
            assert_eq!(board.variants.first(), Some(&DEFAULT_VARIANT), "{}", board.firmware);
            for name in board.variants {
                let variant =
                    Variant::named(name).unwrap_or_else(|| panic!("{}: no variant {name}", board.firmware));
                assert!(files.insert(board.image_file(variant)), "{} {name}", board.firmware);
            }
            // A probe board is flashed with its RTT image; an emulator has none.
            assert_eq!(board.offers(PROBE_VARIANT), board.probe_rs_chip().is_some(), "{}", board.firmware);
            assert_eq!(board.qemu().is_some(), board.probe_rs_chip().is_none());
        }
    }

    #[test]
    fn image_files_and_features_follow_the_variant() {
        let mps2 = Board::by_firmware("mps2-an386").unwrap();
        let named = |name| Variant::named(name).unwrap();
        assert_eq!(mps2.image_file(named("opt-s")), "mps2-an386.elf");
        assert_eq!(mps2.image_file(named("opt-z")), "mps2-an386-opt-z.elf");
        assert_eq!(mps2.image_file(named("opt-s-defmt")), "mps2-an386-defmt-serial.elf");
        assert_eq!(mps2.image_file(named("opt-s-rustcrypto")), "mps2-an386-opt-s-rustcrypto.elf");
        assert_eq!(mps2.features(named("opt-s-rustcrypto")), "mps2-an386,pqc-rustcrypto");
        assert_eq!(mps2.features(named("opt-s-defmt")), "mps2-an386,pqc-libcrux,defmt-serial");
        let f446 = Board::by_firmware("nucleo-f446ze").unwrap();
        assert_eq!(f446.image_file(named(PROBE_VARIANT)), "nucleo-f446ze-defmt-rtt.elf");
        assert_eq!(f446.features(named(PROBE_VARIANT)), "nucleo-f446ze,pqc-rustcrypto,defmt-rtt");
        assert_eq!(f446.image_file(named("opt-s-24mhz")), "nucleo-f446ze-opt-s-24mhz.elf");
        assert_eq!(f446.features(named("opt-s-24mhz")), "nucleo-f446ze,pqc-rustcrypto,clock-24mhz");
        assert!(!mps2.offers("opt-s-24mhz"), "an emulator has no flash timing to compare");
        assert_eq!(Board::emulated("qemu-netduinoplus2").map(|(b, _)| b.firmware), Some("netduinoplus2"));
    }

    #[test]
    fn only_a_fallback_clock_is_worth_a_note() {
        for board in BOARDS {
            assert_eq!(board.clock_note(board.clock.normal), None, "{}", board.firmware);
            let mut tokens = BTreeSet::from([board.clock.normal]);
            for fallback in board.clock.fallbacks {
                assert!(tokens.insert(fallback.source), "{}: {} twice", board.firmware, fallback.source);
                assert_eq!(board.clock_note(fallback.source).as_deref(), Some(fallback.note));
            }
            // Sent as they are on defmt and percent-encoded on text: short
            // tokens of the characters every transport keeps.
            for token in tokens {
                assert!(
                    !token.is_empty()
                        && token.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                    "{}: {token:?}",
                    board.firmware
                );
            }
        }
        // The U5's normal clock is a NUCLEO's fallback: what is worth a
        // note depends on the board.
        assert_eq!(clock_note(Some("b-u585i-iot02a"), Some("hsi-pll")), None);
        let f446 = clock_note(Some("nucleo-f446ze"), Some("hsi-pll")).unwrap();
        assert!(f446.starts_with("no 8 MHz clock from the ST-LINK"), "{f446}");
        assert!(clock_note(Some("nucleo-f439zi"), Some("hsi")).unwrap().contains("16 MHz"));
        assert_eq!(clock_note(Some("qemu-netduinoplus2"), Some("qemu")), None);
        assert_eq!(
            clock_note(Some("nucleo-f446ze"), Some("pll-from-moon")).as_deref(),
            Some("clock source pll-from-moon, not this board's usual hse-bypass")
        );
        assert_eq!(clock_note(Some("nucleo-f446ze"), None), None, "firmware older than the field");
        assert_eq!(clock_note(Some("a-board-of-another-host"), Some("hsi")), None);
        assert_eq!(clock_note(None, Some("hsi")), None);
    }
}
