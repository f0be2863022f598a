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
}

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
}

impl Pqc {
    pub const fn name(self) -> &'static str {
        match self {
            Pqc::Libcrux => "libcrux",
            Pqc::RustCrypto => "rustcrypto",
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
}

pub const DEFAULT_VARIANT: &str = "opt-s";
/// The image a board on a debug probe is flashed with; a probe run of any
/// board runs it, whatever variant the request names.
pub const PROBE_VARIANT: &str = "opt-s-defmt-rtt";

pub const VARIANTS: &[Variant] = &[
    Variant { name: "opt-s", profile: "firmware", transport: Transport::Text, pqc: None, optional: false },
    Variant { name: "opt-z", profile: "firmware-z", transport: Transport::Text, pqc: None, optional: true },
    Variant { name: "opt-3", profile: "firmware-3", transport: Transport::Text, pqc: None, optional: true },
    Variant {
        name: "opt-s-defmt",
        profile: "firmware",
        transport: Transport::DefmtSerial,
        pqc: None,
        optional: false,
    },
    Variant {
        name: PROBE_VARIANT,
        profile: "firmware",
        transport: Transport::DefmtRtt,
        pqc: None,
        optional: false,
    },
    Variant {
        name: "opt-s-rustcrypto",
        profile: "firmware",
        transport: Transport::Text,
        pqc: Some(Pqc::RustCrypto),
        optional: false,
    },
];

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// The variants every real board is built in: its own, the other
/// optimisation levels where they fit, and its probe image.
const CHIP_VARIANTS: &[&str] = &["opt-s", "opt-z", "opt-3", PROBE_VARIANT];

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
        variants: &["opt-s", "opt-z", "opt-3", "opt-s-defmt", "opt-s-rustcrypto"],
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
    },
    Board {
        firmware: "nucleo-f446ze",
        name: "NUCLEO-F446ZE (STM32F446ZE, Cortex-M4F, 180 MHz, 128 KiB RAM)",
        target: "thumbv7em-none-eabihf",
        chip: Chip { flash_bytes: 512 * KIB, ram_bytes: 128 * KIB },
        pqc: Pqc::RustCrypto,
        reached: Reached::Chip { probe_rs_chip: "STM32F446ZETx" },
        variants: CHIP_VARIANTS,
    },
    Board {
        firmware: "nucleo-f439zi",
        name: "NUCLEO-F439ZI (STM32F439ZI, Cortex-M4F, 180 MHz, 192 KiB RAM)",
        target: "thumbv7em-none-eabihf",
        chip: Chip { flash_bytes: 2 * MIB, ram_bytes: 192 * KIB },
        pqc: Pqc::Libcrux,
        reached: Reached::Chip { probe_rs_chip: "STM32F439ZITx" },
        variants: CHIP_VARIANTS,
    },
    Board {
        firmware: "b-u585i-iot02a",
        name: "B-U585I-IOT02A (STM32U585AI, Cortex-M33, 160 MHz, 768 KiB RAM)",
        target: "thumbv8m.main-none-eabihf",
        chip: Chip { flash_bytes: 2 * MIB, ram_bytes: 768 * KIB },
        pqc: Pqc::Libcrux,
        reached: Reached::Chip { probe_rs_chip: "STM32U585AIIx" },
        variants: CHIP_VARIANTS,
    },
];

/// The firmware features that are not boards: an image has exactly one
/// board feature and any of these.
pub const OTHER_FIRMWARE_FEATURES: &[&str] =
    &["pqc-libcrux", "pqc-rustcrypto", "defmt-rtt", "defmt-serial", "inject-self-test-fault", "text-mirror"];

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
        assert_eq!(Board::emulated("qemu-netduinoplus2").map(|(b, _)| b.firmware), Some("netduinoplus2"));
    }
}
