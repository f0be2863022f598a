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

mod clock;
pub mod image_builds;
pub mod wide_count;

pub use clock::{ClockFallback, ClockSource, Clocking};
use clock::{NUCLEO144_CLOCK, QEMU_CLOCK, U585_CLOCK};

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
    /// The chip board (its firmware name) whose core and memory layout
    /// this machine's image mirrors, so the emulator shows what runs and
    /// fits there; none for a core of its own.
    pub stands_in_for: Option<&'static str>,
    /// Whether the Cortex-M4 timing model applies: the core is an M4. Its
    /// costs are the M4's (TRM), so another core's run is not estimated.
    pub m4_timing_model: bool,
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
/// QEMU plugin is: the emulated boards run under it where it is built. This
/// build speaks plugin API 1, which QEMU 7.2 to 8.2 load.
pub const TIMING_MODEL_PLUGIN: &str = "qemu/libpqbench_qemu_m4_plugin.so";
/// The same plugin built for plugin API 2, which QEMU 9.0 and later load
/// (they refuse API 1); it also charges each divide by its operands.
pub const TIMING_MODEL_PLUGIN_API_2: &str = "qemu/plugin-api-2/libpqbench_qemu_m4_plugin.so";
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
/// netduinoplus2, which stands in for it on QEMU, use RustCrypto's. The
/// mps2-an505 stands in for the B-U585I-IOT02A: the U585's Cortex-M33
/// target, implementation and RAM layout on an emulated M33.
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
            stands_in_for: None,
            m4_timing_model: true,
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
            stands_in_for: Some("nucleo-f446ze"),
            m4_timing_model: true,
        }),
        variants: &["opt-s", "opt-z", "opt-3"],
        clock: QEMU_CLOCK,
    },
    Board {
        firmware: "mps2-an505",
        name: "Cortex-M33 on QEMU mps2-an505 (emulated, 768 KiB RAM laid out as the U585's; times are instruction counts)",
        target: "thumbv8m.main-none-eabihf",
        chip: Chip { flash_bytes: 4 * MIB, ram_bytes: 768 * KIB },
        pqc: Pqc::Libcrux,
        reached: Reached::Emulated(QemuMachine {
            id: "qemu-mps2-an505",
            machine: "mps2-an505",
            // The machine has its one core, a Cortex-M33 with the FPU and
            // the Security Extension; the image runs in Secure state.
            cpu: None,
            serials: &["pty"],
            stands_in_for: Some("b-u585i-iot02a"),
            m4_timing_model: false,
        }),
        variants: &["opt-s"],
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
        if clock_source == self.clock.normal.as_str() {
            return None;
        }
        let known = self.clock.fallbacks.iter().find(|f| f.source.as_str() == clock_source);
        Some(match known {
            Some(fallback) => String::from(fallback.note),
            None => {
                format!("clock source {clock_source}, not this board's usual {}", self.clock.normal.as_str())
            }
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

/// Where a column of board `id` goes among others, boards in this order:
/// a stand-in right after the chip it stands for (so the U585's column
/// and its emulated M33's sit side by side), every other board by its id
/// (a board the catalogue does not know, an agent's `host/board`, as
/// itself).
pub fn column_order(id: &str) -> (&str, bool, &str) {
    match Board::emulated(id).and_then(|(_, machine)| machine.stands_in_for) {
        Some(chip) => (chip, true, id),
        None => (id, false, id),
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
mod tests;
