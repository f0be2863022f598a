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
        assert_eq!(board.clock_note(board.clock.normal.as_str()), None, "{}", board.firmware);
        let mut sources = BTreeSet::from([board.clock.normal]);
        for fallback in board.clock.fallbacks {
            assert!(sources.insert(fallback.source), "{}: {:?} twice", board.firmware, fallback.source);
            assert_eq!(board.clock_note(fallback.source.as_str()).as_deref(), Some(fallback.note));
        }
    }
    // Sent as they are on defmt and percent-encoded on text: short
    // tokens of the characters every transport keeps.
    for source in ClockSource::ALL {
        let token = source.as_str();
        assert!(
            !token.is_empty()
                && token.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{token:?}"
        );
    }
    // Every source the firmware can report is some board's: one no
    // board names would be shown as unknown.
    for source in ClockSource::ALL {
        assert!(
            BOARDS
                .iter()
                .any(|b| b.clock.normal == source || b.clock.fallbacks.iter().any(|f| f.source == source)),
            "no board's catalogue names {source:?}"
        );
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

/// A stand-in shows what runs and fits on the chip it names: the same
/// target and implementation, RAM no larger; the M4 timing model only on
/// an M4's target.
#[test]
fn a_stand_in_mirrors_its_chip() {
    let mut stood_for = BTreeSet::new();
    for board in BOARDS {
        let Some(machine) = board.qemu() else { continue };
        assert_eq!(machine.m4_timing_model, board.target == "thumbv7em-none-eabihf", "{}", board.firmware);
        let Some(chip) = machine.stands_in_for else { continue };
        let chip = Board::by_firmware(chip).unwrap_or_else(|| panic!("{}: no board {chip}", board.firmware));
        assert!(chip.probe_rs_chip().is_some(), "{} stands in for a chip", board.firmware);
        assert_eq!((board.target, board.pqc), (chip.target, chip.pqc), "{}", board.firmware);
        assert!(board.chip.ram_bytes <= chip.chip.ram_bytes, "{}", board.firmware);
        stood_for.insert(chip.firmware);
    }
    // Every core of the catalogue's chips has an emulated board.
    assert!(stood_for.contains("nucleo-f446ze") && stood_for.contains("b-u585i-iot02a"), "{stood_for:?}");
}

#[test]
fn a_stand_ins_column_follows_its_chips() {
    let mut ids = [
        "qemu-mps2-an386",
        "qemu-netduinoplus2",
        "b-u585i-iot02a",
        "qemu-mps2-an505",
        "nucleo-f446ze",
        "lab/x",
    ];
    ids.sort_by_key(|id| column_order(id));
    assert_eq!(
        ids,
        [
            "b-u585i-iot02a",
            "qemu-mps2-an505",
            "lab/x",
            "nucleo-f446ze",
            "qemu-netduinoplus2",
            "qemu-mps2-an386"
        ]
    );
}
