//! Board bring-up that cannot hang silently. QEMU's netduinoplus2 is an
//! STM32F405 whose RCC (and PWR, and flash interface) QEMU does not model:
//! every ready bit reads 0, so it is a board whose clocks never come up.
//! The NUCLEO-F446ZE's own image runs there unchanged (same flash and RAM
//! addresses, its console on USART3, QEMU's third `-serial`, as on a
//! NUCLEO-144): its HSE wait must time out, then its PLL wait on the
//! internal oscillator, and the board must still answer on its UART, saying
//! it runs on the 16 MHz HSI, and the board list must say so to a person.
//!
//! Needs `firmware/nucleo-f446ze.elf`: `cargo xtask test` (or `cargo xtask
//! build-image nucleo-f446ze opt-s`) builds it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pqbench_api::Board;
use pqbench_boards::Board as CatalogueBoard;
use pqbench_collect::boards::{Emulator, QemuMachine};
use pqbench_collect::ports::{self, Answer};

use crate::common::{self, ServerOptions};

/// The NUCLEO-F446ZE's image, as a board without its clocks runs it.
fn f446_image() -> Result<PathBuf, pqbench_test_needs::Missing> {
    pqbench_test_needs::firmware_image("nucleo-f446ze.elf")
}

/// QEMU's STM32F405, started as the catalogue starts the netduinoplus2:
/// USART3 on a pty.
fn stm32f405() -> &'static QemuMachine {
    let board = CatalogueBoard::by_firmware("netduinoplus2").expect("the catalogue's netduinoplus2");
    board.qemu().expect("the netduinoplus2 is emulated")
}

/// What the catalogue tells a person of an F446 on its internal oscillator.
fn hsi_note() -> String {
    let f446 = CatalogueBoard::by_firmware("nucleo-f446ze").expect("the catalogue's NUCLEO-F446ZE");
    f446.clock_note("hsi").expect("the HSI is a fallback on a NUCLEO")
}

#[tokio::test]
async fn a_nucleo_whose_clocks_never_come_answers_on_its_internal_oscillator_and_says_so() {
    let image = pqbench_test_needs::require!(f446_image());
    let qemu = Emulator::start(stm32f405(), &image).await.unwrap();
    let asked = Instant::now();
    // Every clock wait gives up after at least 100 ms at 16 MHz, 1.6 M
    // cycles: a few emulated milliseconds under `-icount shift=0`. A board
    // that hung would not answer at all.
    let answer = ports::identify(Path::new(&qemu.console), Duration::from_secs(10)).await;
    let took = asked.elapsed();
    qemu.stop().await;
    let Answer::Firmware(hello) = answer else {
        panic!("the F446 image did not answer hello on QEMU's STM32F405 within 10 s (hung?): {answer:?}")
    };
    eprintln!("answered hello after {took:?}: {:?}", hello.fields);

    assert_eq!(hello.board(), Some("nucleo-f446ze"));
    // Neither the HSE (nothing sets HSERDY) nor the PLL on the HSI (nothing
    // sets PLLRDY): the raw 16 MHz HSI, and every figure follows it.
    assert_eq!(hello.get("clock_source"), Some("hsi"), "{:?}", hello.fields);
    assert_eq!(hello.clock_hz(), Some(16_000_000));
    let clock = hello.clock().unwrap();
    assert_eq!(clock.ticks_per_second, 16_000_000, "the DWT counts the cycles of the clock reached");
    assert_eq!(clock.unit, pqbench_types::TickUnit::Cycles);
    // A run keeps it where the dashboard reads it, with the firmware's own
    // board id, and the catalogue has a sentence for it.
    let build = hello.build();
    assert_eq!(build.extra.get("clock_source").map(String::as_str), Some("hsi"));
    let note = pqbench_boards::clock_note(
        build.extra.get("board").map(String::as_str),
        build.extra.get("clock_source").map(String::as_str),
    )
    .expect("a fallback clock is worth a note");
    assert!(note.contains("running at 16 MHz from the internal oscillator"), "{note}");
    // The flash timing, read back from FLASH_ACR after the fallback: a
    // number of wait states, and the caches, kept in the run as well.
    let wait_states = hello.get("flash_wait_states").expect("hello says its flash wait states");
    assert!(wait_states.parse::<u8>().is_ok(), "flash_wait_states={wait_states}");
    let caches = hello.get("caches").expect("hello says its caches");
    assert!(!caches.is_empty() && caches != "emulated", "caches={caches}");
    assert_eq!(build.extra.get("flash_wait_states").map(String::as_str), Some(wait_states));
    assert_eq!(build.extra.get("caches").map(String::as_str), Some(caches));
}

#[tokio::test]
async fn the_board_list_says_a_serial_board_runs_on_its_internal_oscillator() {
    let image = pqbench_test_needs::require!(f446_image());
    let dir = tempfile::tempdir().unwrap();
    let by_id = dir.path().join("by-id");
    std::fs::create_dir(&by_id).unwrap();
    let by_id_arg = by_id.display().to_string();
    let server = common::start_server_with(ServerOptions {
        extra: &["--serial-by-id", &by_id_arg, "--no-system-ports"],
        ..ServerOptions::default()
    })
    .await;
    let qemu = Emulator::start(stm32f405(), &image).await.unwrap();
    // Plugged in, as udev names a NUCLEO's ST-LINK/V2-1 virtual COM port.
    let link = by_id.join("usb-STMicroelectronics_STM32_STLink_PQB0CLOCK000000000000F446-if02");
    std::os::unix::fs::symlink(&qemu.console, &link).unwrap();
    let id = "serial:PQB0CLOCK000000000000F446";

    let deadline = Instant::now() + Duration::from_secs(20);
    let board = loop {
        let listed: Vec<Board> = server.get("/api/boards").await;
        if let Some(board) = listed.iter().find(|b| b.id == id && b.available) {
            break board.clone();
        }
        assert!(
            Instant::now() < deadline,
            "the F446 answering on its port within 20 s; the boards: {listed:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    qemu.stop().await;
    assert!(board.name.contains("NUCLEO-F446ZE"), "named as its firmware says: {}", board.name);
    // This host's own image (so no "differs"), on a fallback clock: the
    // note is the catalogue's sentence, and only it.
    assert_eq!(board.note, Some(format!("clock: {}", hsi_note())), "{board:#?}");
}
