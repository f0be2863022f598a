//! The sequence against probe-rs's own test double, as far as it goes:
//! a probe with a mocked Cortex-M core whose memory serves an ELF's
//! loadable bytes. It attaches to a chip and checks an image against
//! that chip's flash map (a dry run: the mock cannot run a flash
//! algorithm). It cannot reset (its DHCSR never reports a reset), so the
//! sequence stops there, with the reason; RTT and the mailbox need a
//! board.
use probe_rs::probe::fake_probe::FakeProbe;

use super::*;

fn image(name: &str) -> Result<Arc<FirmwareImage>, pqbench_test_needs::Missing> {
    pqbench_test_needs::firmware_image(name).map(|path| Arc::new(FirmwareImage::load(&path).unwrap()))
}

fn plan(image: Arc<FirmwareImage>, chip: &str) -> ProbePlan {
    ProbePlan {
        probe: "fake".into(),
        chip: chip.into(),
        image,
        command: "run min_iterations=1 min_time_ms=0".into(),
        flash: Flash::DryRun,
        connection: ProbeConnection::default(),
    }
}

fn fake_probe(image: &FirmwareImage) -> Probe {
    FakeProbe::with_mocked_core_and_binary(&image.path).into_probe()
}

fn execute_on_fake(plan: &ProbePlan) -> Result<(), ProbeError> {
    let (sender, _receiver) = mpsc::channel(4);
    run_on_probe(fake_probe(&plan.image), plan, &sender, &AtomicBool::new(false), &SessionStats::default())
}

/// Every board the catalogue reaches through a probe: its chip is one of
/// probe-rs's built-in targets, its probe image (and its serial image) fit
/// that chip's flash map, and the sequence goes on to the reset.
#[test]
fn every_probe_board_s_images_are_checked_against_its_chip_in_probe_rs_s_registry() {
    let boards: Vec<_> =
        pqbench_boards::BOARDS.iter().filter_map(|b| Some((b, b.probe_rs_chip()?))).collect();
    let names: Vec<_> = boards.iter().map(|(b, _)| b.firmware).collect();
    assert_eq!(names, ["nucleo-f446ze", "nucleo-f439zi", "b-u585i-iot02a"], "the real boards");
    let probe_variant = pqbench_boards::Variant::named(pqbench_boards::PROBE_VARIANT).unwrap();
    let serial_variant = pqbench_boards::Variant::named(pqbench_boards::DEFAULT_VARIANT).unwrap();
    for (board, chip) in boards {
        probe_rs::config::Registry::from_builtin_families()
            .get_target_by_name(chip)
            .unwrap_or_else(|e| panic!("{chip} ({}) is not in probe-rs's registry: {e}", board.firmware));
        let plan = plan(pqbench_test_needs::require!(image(&board.image_file(probe_variant))), chip);
        match execute_on_fake(&plan) {
            Err(ProbeError::Reset { chip: said, why }) => {
                assert_eq!(said, chip);
                assert!(why.contains("timeout"), "the double never completes a reset: {why}");
            }
            other => panic!("{chip}: attach and flash pass, reset is where the double stops; got {other:?}"),
        }
        let serial_image = pqbench_test_needs::require!(image(&board.image_file(serial_variant)));
        let written = write_image(
            fake_probe(&serial_image),
            "fake",
            chip,
            serial_image.clone(),
            Flash::DryRun,
            ProbeConnection::default(),
        );
        assert!(written.is_ok(), "{chip}: {written:?}");
    }
}

#[tokio::test]
async fn the_connection_s_speed_and_reset_reach_probe_rs() {
    let image = pqbench_test_needs::require!(image("nucleo-f446ze-defmt-rtt.elf"));
    let mut plan = plan(image.clone(), "STM32F446ZETx");
    plan.connection = ProbeConnection { speed_khz: Some(480), under_reset: false };
    // The double takes any speed; the sequence goes on as before.
    assert!(matches!(execute_on_fake(&plan), Err(ProbeError::Reset { .. })));
    // Under reset, probe-rs asserts the reset pin first, which the double
    // has not implemented (it panics): the attach took that way.
    plan.connection = ProbeConnection { speed_khz: Some(480), under_reset: true };
    let probe_image = image.clone();
    let mut session = spawn(move || Ok(fake_probe(&probe_image)), plan);
    let why = session.link.receive().await.expect_err("the session fails").to_string();
    assert_eq!(why, "probe-rs failed: not implemented");
    session.thread.await.unwrap();
}

#[test]
fn an_st_link_with_old_firmware_is_told_how_to_update_it() {
    use probe_rs::probe::stlink::StlinkError;
    let error = open_error("066DFF", DebugProbeError::from(StlinkError::ProbeFirmwareOutdated(26)));
    let said = error.to_string();
    assert!(said.starts_with("opening probe 066DFF: "), "{said}");
    assert!(said.contains("minimum supported firmware version is 26"), "probe-rs's words, whole: {said}");
    assert!(said.contains("STSW-LINK007") && said.contains("J26"), "what to do: {said}");
}

#[test]
fn an_image_for_another_chip_is_refused_before_anything_is_written() {
    // An nRF51's flash starts at 0, where the STM32 image is not.
    let plan = plan(pqbench_test_needs::require!(image("nucleo-f446ze-defmt-rtt.elf")), "nRF51822_xxAC");
    match execute_on_fake(&plan) {
        Err(e @ ProbeError::Flash { .. }) => {
            let message = e.to_string();
            assert!(message.contains("nRF51822_xxAC") && message.contains("nucleo-f446ze-defmt-rtt.elf"));
        }
        other => panic!("expected a flash failure, got {other:?}"),
    }
}

#[test]
fn an_image_without_rtt_is_refused_before_the_probe_is_touched() {
    let plan = plan(pqbench_test_needs::require!(image("mps2-an386.elf")), "STM32F446ZETx");
    match execute_on_fake(&plan) {
        Err(ProbeError::Image(ImageError::MissingSymbol { symbol, .. })) => {
            assert_eq!(symbol, RTT_SYMBOL)
        }
        other => panic!("an image without RTT is refused first, got {other:?}"),
    }
}

#[tokio::test]
async fn a_failed_session_ends_the_link_with_its_reason_and_the_runtime_lives_on() {
    let image = pqbench_test_needs::require!(image("nucleo-f446ze-defmt-rtt.elf"));
    let probe_image = image.clone();
    let mut session = spawn(move || Ok(fake_probe(&probe_image)), plan(image, "STM32F446ZETx"));
    let why =
        session.link.receive().await.expect_err("no bytes come from a board that never resets").to_string();
    assert!(why.starts_with("resetting the STM32F446ZETx"), "{why}");
    session.thread.await.unwrap();
    assert_eq!(
        session.link.receive().await.map_err(|e| e.to_string()),
        Err("the probe session ended".into())
    );
}

#[tokio::test]
async fn a_panic_in_probe_rs_fails_the_run_and_not_the_server() {
    // The double panics on debug-port traffic it was not told to expect,
    // as an nRF52's attach sequence makes.
    let image = pqbench_test_needs::require!(image("nucleo-f446ze-defmt-rtt.elf"));
    let probe_image = image.clone();
    let mut session = spawn(move || Ok(fake_probe(&probe_image)), plan(image, "nRF52840_xxAA"));
    let why = session.link.receive().await.expect_err("the session fails").to_string();
    assert!(why.starts_with("probe-rs failed: "), "{why}");
    session.thread.await.unwrap();
}

#[test]
fn a_serial_board_s_image_is_written_checked_against_the_chip_then_reset() {
    // The text-records image a board on its serial port runs: no RTT
    // and no halt needed, so the whole sequence runs on the double:
    // attach, the image checked against the chip's flash map (a dry
    // run: the mock runs no flash algorithm), and a reset that lets the
    // core run (the double does not wait on DHCSR for it, as it does
    // for a reset-and-halt).
    let image = pqbench_test_needs::require!(image("nucleo-f446ze.elf"));
    let written = write_image(
        fake_probe(&image),
        "fake",
        "STM32F446ZETx",
        image.clone(),
        Flash::DryRun,
        ProbeConnection::default(),
    );
    assert!(written.is_ok(), "{written:?}");
    match write_image(
        fake_probe(&image),
        "fake",
        "nRF51822_xxAC",
        image.clone(),
        Flash::DryRun,
        ProbeConnection::default(),
    ) {
        Err(e @ ProbeError::Flash { .. }) => assert!(e.to_string().contains("nucleo-f446ze.elf")),
        other => panic!("an image for another chip is refused, got {other:?}"),
    }
}

#[test]
fn no_probe_attached_is_a_clear_error() {
    match open("0000-no-such-probe") {
        Err(e @ ProbeError::NotAttached(_)) => assert!(e.to_string().contains("0000-no-such-probe")),
        other => panic!("expected NotAttached, got {:?}", other.map(|_| "a probe")),
    }
}
