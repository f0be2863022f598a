//! The whole path, for real: `pqbench serve` on a temporary SQLite file
//! starts QEMU's mps2-an386 running the bundled firmware, talks to it over
//! a pseudo-terminal, and stores what the firmware measured.
//!
//! Needs the firmware image: `cargo xtask test` builds it and sets PQBENCH_DIST.

use std::time::Duration;

use pqbench_types::{Algorithm, BenchResult, Operation, Run, RunStatus, Status};
use serde_json::{Value, json};

use crate::common;
use pqbench::record::StoreRecorder;

use common::Server;

/// Starts an ML-KEM-768 run and waits (120 s at most) for it to end.
async fn run_ml_kem_768(server: &Server) -> (Run, Vec<BenchResult>) {
    run_ml_kem_768_on(server, "qemu-mps2-an386").await
}

async fn run_ml_kem_768_on(server: &Server, board: &str) -> (Run, Vec<BenchResult>) {
    let request =
        json!({"board": board, "algorithms": ["ML-KEM-768"], "min_iterations": 3, "min_time_ms": 0});
    server.run_to_end(request).await
}

#[tokio::test]
async fn a_run_on_the_emulated_board_stores_what_the_firmware_measured() {
    let server = common::start_server(&[]).await;
    pqbench_test_needs::require!(common::firmware_dist());
    let boards: Value = server.get("/api/boards").await;
    assert_eq!(boards[0]["id"], "qemu-mps2-an386", "{boards}");

    let (run, results) = run_ml_kem_768(&server).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.board, "qemu-mps2-an386");
    assert_eq!(run.rejected_records, 0);
    assert!(run.build.revision.is_some() && run.build.rustc.is_some(), "{:?}", run.build);
    // The board's implementation, and only it, names the build.
    assert_eq!(run.build.crates.get("libcrux-ml-kem").map(String::as_str), Some("0.0.11"));
    assert_eq!(run.build.crates.get("ml-kem"), None, "{:?}", run.build.crates);

    let operations: Vec<Operation> = results.iter().map(|r| r.operation).collect();
    assert_eq!(operations, [Operation::Keygen, Operation::Encaps, Operation::Decaps]);
    for r in &results {
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.iterations, Some(3));
        assert!(r.ticks_per_op.unwrap() > 1000.0, "{r:?}");
        assert_eq!(r.tick_unit.as_deref(), Some("qemu-instructions/40"));
        assert_eq!(r.cycles_per_op, None, "emulated ticks are never cycles");
        // ML-KEM-768 needs tens of KiB of stack on a Cortex-M4.
        assert!(r.stack_bytes.unwrap() > 16 * 1024, "{r:?}");
        assert!(r.heap_bytes.is_some() && r.heap_allocs.is_some(), "heap is measured: {r:?}");
    }
    // libcrux keeps everything on the stack: a heap of 0 here is measured.
    assert_eq!((results[0].heap_bytes, results[0].heap_allocs), (Some(0), Some(0)));

    // Under -icount the emulated board is deterministic: same image, same counts.
    let (again, repeat) = run_ml_kem_768(&server).await;
    assert_eq!(again.status, RunStatus::Complete);
    for (first, second) in results.iter().zip(&repeat) {
        assert_eq!(first.ticks_per_op, second.ticks_per_op, "{:?}", first.operation);
        assert_eq!(
            (first.min_ms, first.median_ms, first.max_ms),
            (second.min_ms, second.median_ms, second.max_ms)
        );
        assert_eq!((first.stack_bytes, first.heap_bytes), (second.stack_bytes, second.heap_bytes));
    }
}

/// The netduinoplus2 runs the STM32F4 USART driver a NUCLEO board runs,
/// reporting on USART3 (QEMU's third serial port).
#[tokio::test]
async fn the_emulated_stm32f405_reports_over_usart3() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let (run, results) = run_ml_kem_768_on(&server, "qemu-netduinoplus2").await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.clock_hz, Some(168_000_000));
    // QEMU's clock, as QEMU starts it: the firmware sets up no clock tree
    // there, and says so.
    assert_eq!(run.build.extra.get("clock_source").map(String::as_str), Some("qemu"));
    assert_eq!(run.build.extra.get("mcu").map(String::as_str), Some("STM32F405RG (QEMU netduinoplus2)"));
    // It stands in for the NUCLEO-F446ZE, whose flash holds only RustCrypto's ML-KEM.
    assert_eq!(run.build.crates.get("ml-kem").map(String::as_str), Some("0.3.4"));
    assert_eq!(run.build.crates.get("libcrux-ml-kem"), None);
    assert_eq!(results.len(), 3);
    for r in &results {
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.tick_unit.as_deref(), Some("qemu-ticks"));
        assert_eq!(r.cycles_per_op, None);
        assert!(r.stack_bytes.unwrap() > 16 * 1024);
    }
}

#[tokio::test]
async fn bad_run_requests_get_clear_json_errors() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let cases = [
        (json!({"board": "nucleo-9000"}), 404, "no board"),
        (json!({"board": "qemu-mps2-an386", "algorithms": ["Kyber768"]}), 422, "unknown algorithm"),
        (json!({"board": "qemu-mps2-an386", "min_iterations": 0}), 400, "min_iterations"),
        (json!({"board": "qemu-mps2-an386", "speed": 11}), 422, "unknown field"),
    ];
    for (request, status, says) in cases {
        let (got, body) = server.post("/api/runs", &request).await;
        assert_eq!(got, status, "{request} -> {body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{request} -> {body}");
    }
    let response = reqwest::get(format!("{}/api/runs/abc", server.base)).await.unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let response = reqwest::get(format!("{}/api/runs/999", server.base)).await.unwrap();
    assert_eq!(response.status().as_u16(), 404);
}

/// The firmware's probes against buffers of known size: a 4 KiB stack
/// array measures 4 KiB within 128 bytes, a 4 KiB allocation exactly.
#[tokio::test]
async fn the_memory_probes_measure_known_buffers() {
    use pqbench_collect::boards::{Emulator, default_image, emulated};
    use pqbench_wire::{Decoder, Event, Record};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let dist = pqbench_test_needs::require!(common::firmware_dist());
    for (board, machine) in emulated() {
        let emulator =
            Emulator::start(machine, &dist.join("firmware").join(default_image(board))).await.unwrap();
        let mut port = emulator.open_console().unwrap();
        let mut decoder = Decoder::new();
        let mut buf = [0u8; 512];
        let record = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                // Again until answered: a UART drops what comes before it is enabled.
                port.write_all(b"calibrate\n").await.unwrap();
                let Ok(read) = tokio::time::timeout(Duration::from_millis(500), port.read(&mut buf)).await
                else {
                    continue;
                };
                let n = read.unwrap();
                assert!(n > 0, "{}: the port closed", machine.id);
                for event in decoder.push(&buf[..n]) {
                    if let Event::Record(record @ Record::Calibration { .. }) = event {
                        return record;
                    }
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{}: no calibration record", machine.id));
        drop(port);
        emulator.stop().await;

        let Record::Calibration { stack_buffer, stack, heap_buffer, heap, allocs } = record else {
            unreachable!()
        };
        let stack = stack.expect("stack measured");
        // The buffer is a frame of exactly its size (`calibrate.rs`): the
        // figure is exact, to the word the paint is read in.
        assert!(
            stack.abs_diff(stack_buffer) <= 8,
            "{}: {stack} bytes for a {stack_buffer}-byte frame",
            machine.id
        );
        assert_eq!((heap, allocs), (Some(heap_buffer), Some(1)), "{}", machine.id);
    }
}

/// A command naming an algorithm the board's suite has no code for (here
/// round 3 Kyber, a name kept for imported logs) is refused with why,
/// before anything runs, not answered with a run that leaves it out.
#[tokio::test]
async fn a_board_refuses_a_run_naming_what_its_suite_does_not_run() {
    use pqbench_collect::boards::{Emulator, default_image, emulated};
    use pqbench_wire::{Decoder, Event, Record};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let dist = pqbench_test_needs::require!(common::firmware_dist());
    let (board, machine) = emulated().next().expect("an emulated board");
    let emulator = Emulator::start(machine, &dist.join("firmware").join(default_image(board))).await.unwrap();
    let mut port = emulator.open_console().unwrap();
    let mut decoder = Decoder::new();
    let mut buf = [0u8; 512];
    let mut seen = Vec::new();
    let message = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            // Again until answered: a UART drops what comes before it is enabled.
            port.write_all(b"run min_iterations=1 algorithms=ML-KEM-512,Kyber-768\n").await.unwrap();
            let Ok(read) = tokio::time::timeout(Duration::from_millis(500), port.read(&mut buf)).await else {
                continue;
            };
            let n = read.unwrap();
            assert!(n > 0, "the port closed");
            for event in decoder.push(&buf[..n]) {
                match event {
                    Event::Record(Record::Error { message }) => return message,
                    Event::Record(record) => seen.push(format!("{record:?}")),
                    _ => {}
                }
            }
        }
    })
    .await
    .expect("an error record");
    drop(port);
    emulator.stop().await;
    assert_eq!(message, "algorithm not run on a board");
    assert!(!seen.iter().any(|r| r.starts_with("Begin") || r.starts_with("Result")), "nothing ran: {seen:?}");
}

fn rows(results: &[BenchResult]) -> Vec<(String, String)> {
    results.iter().map(|r| (r.algorithm.to_string(), r.operation.to_string())).collect()
}

/// The whole suite with default settings, twice, but for the SLH-DSA sets
/// that take billions of instructions a signature (`wide_clock.rs` times
/// them): every operation measured, with the timing model's estimate over
/// the same samples, and the emulated board deterministic down to the last
/// tick and the last estimated cycle. The two runs go at once, on two
/// servers, each with a QEMU of its own: the same ticks from another
/// process, and the test takes one run's time, not two. With HSS (ten key
/// generations and ten signatures of 142 million instructions each) a run
/// outlasted 300 s in the full tier, beside the other tests, so each is
/// given ten minutes.
#[tokio::test]
async fn the_whole_suite_runs_on_the_emulated_board_and_repeats_exactly() {
    pqbench_test_needs::require!(common::firmware_dist());
    let (server, other) = tokio::join!(common::start_server(&[]), common::start_server(&[]));
    let algorithms = common::suite_but(&common::LONG_ON_THE_EMULATOR);
    let request = json!({"board": "qemu-mps2-an386", "algorithms": algorithms});
    let limit = std::time::Duration::from_secs(600);
    let ((run, results), (_, again)) = tokio::join!(
        server.run_to_end_within(request.clone(), limit),
        other.run_to_end_within(request, limit)
    );
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(rows(&results), common::catalogue_of(&algorithms));
    for r in &results {
        assert_eq!(r.status, Status::Ok, "{r:?}");
        assert!(r.iterations.unwrap() >= 10, "{r:?}");
        assert!(r.stack_bytes.is_some() && r.heap_bytes.is_some(), "{r:?}");
        let model = r.model.as_ref().unwrap_or_else(|| panic!("no estimate: {r:?}"));
        assert_eq!(Some(model.samples), r.samples, "{r:?}");
        assert!(
            model.min_cycles as f64 <= model.cycles_per_op && model.cycles_per_op <= model.max_cycles as f64
        );
        // A Cortex-M4 takes at least a cycle an instruction (the board's
        // count is in SysTick steps of 40), and the model charges no more
        // than about three on average to this code.
        let instructions = pqbench_view::WorkPerOp::of(r).unwrap().value();
        assert!((instructions - 80.0..instructions * 3.0).contains(&model.cycles_per_op), "{r:?}");
        assert!(!model.functions.is_empty() && model.parameters == "refill=2,divide=7,wait_states=0");
    }
    // The hashes are all hashing; ML-KEM is largely Keccak (libcrux's).
    let share = |a: &str, o: &str| {
        let r = results.iter().find(|r| r.algorithm.as_str() == a && r.operation.as_str() == o).unwrap();
        r.model.as_ref().and_then(|m| m.hashing_share).unwrap()
    };
    assert!(share("SHA3-256", "hash") > 0.9 && share("SHAKE128", "hash") > 0.9);
    assert!((0.2..0.9).contains(&share("ML-KEM-768", "keygen")));
    assert!(share("SHA-256", "hash") < 0.05 && share("Ed25519", "sign") < 0.05);
    // Every sample says its hashing cycles too (the plugin is told where
    // the image's hashing code is), for a share per call as pqm4 takes it.
    for r in &results {
        let model = r.model.as_ref().unwrap();
        assert_eq!(model.hashing_share.is_some(), model.hashing_share_per_call.is_some(), "{r:?}");
    }
    let throughput: Vec<_> = results.iter().filter(|r| r.bytes_per_sec.is_some()).collect();
    assert_eq!(
        throughput.len(),
        11,
        "AES-GCM x2, ChaCha20-Poly1305 x2, 5 hashes (encrypt and decrypt count apart)"
    );

    assert_eq!(rows(&again), rows(&results));
    for (first, second) in results.iter().zip(&again) {
        assert_eq!(
            (first.ticks_per_op, first.min_ms, first.median_ms, first.max_ms, first.iterations),
            (second.ticks_per_op, second.min_ms, second.median_ms, second.max_ms, second.iterations),
            "{} {}",
            first.algorithm,
            first.operation
        );
        assert_eq!(first.model, second.model, "{} {}", first.algorithm, first.operation);
    }
}

/// The emulated board under QEMU 10, whose plugin API (2) lets the timing
/// model read registers: the board's own ticks (QEMU's instruction count)
/// are those under 7.2, and so are the model's cycles, save where a divide
/// ran, which 10 charges by its operands instead of a fixed 7. ML-KEM
/// (libcrux) divides nowhere; ML-DSA divides a few times per call.
#[tokio::test]
async fn under_qemu_10_the_board_counts_alike_and_the_model_charges_divides_by_their_operands() {
    pqbench_test_needs::require!(common::firmware_dist());
    let qemu_10 = pqbench_test_needs::require!(pqbench_test_needs::qemu_10());
    let env = [("PQBENCH_QEMU", qemu_10.as_os_str())];
    let (old, new) = tokio::join!(
        common::start_server(&[]),
        common::start_server_with(common::ServerOptions { env: &env, ..Default::default() })
    );
    let request = json!({"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768", "ML-DSA-44"],
        "min_iterations": 3, "min_time_ms": 0});
    let ((run_7, on_7), (run_10, on_10)) =
        tokio::join!(old.run_to_end(request.clone()), new.run_to_end(request));
    assert_eq!((run_7.status, run_10.status), (RunStatus::Complete, RunStatus::Complete), "{run_10:?}");
    assert_eq!(rows(&on_7), rows(&on_10));
    for (a, b) in on_7.iter().zip(&on_10) {
        let what = format!("{} {}", a.algorithm, a.operation);
        assert_eq!((a.ticks_per_op, a.min_ms, a.max_ms), (b.ticks_per_op, b.min_ms, b.max_ms), "{what}");
        let (m7, m10) = (a.model.as_ref().unwrap(), b.model.as_ref().unwrap());
        assert_eq!(m7.parameters, "refill=2,divide=7,wait_states=0");
        assert_eq!(m10.parameters, "refill=2,divide=by-operands,wait_states=0");
        if a.algorithm.as_str() == "ML-KEM-768" {
            assert_eq!(m7.cycles_per_op, m10.cycles_per_op, "{what}: no divides");
        } else {
            // A handful of divides, each now 2 to 12 cycles instead of 7.
            let change = (m10.cycles_per_op - m7.cycles_per_op).abs();
            assert!(change > 0.0 && change < 1e-4 * m7.cycles_per_op, "{what}: {m7:?} {m10:?}");
        }
    }
}

/// The tables of needs a small board decides with are what the emulated
/// board measures now, with each ML-KEM/ML-DSA implementation: stale, they
/// would let a board crash or refuse too much. All but SLH-DSA-SHAKE-128s,
/// whose rows take some four minutes a build (the test below).
#[tokio::test]
async fn the_tables_of_needs_are_what_the_emulated_board_measures() {
    needs_are_measured(&common::suite_but(&[Algorithm::SlhDsaShake128s])).await;
}

/// SLH-DSA-SHAKE-128s's rows of the tables of needs: a key generation of 29
/// G instructions and two signatures of 220 G, for each implementation's
/// image (`cargo test -- --ignored`; `cargo xtask needs` writes them).
#[tokio::test]
#[ignore = "some 12 minutes: three builds, each signing twice with SLH-DSA-SHAKE-128s"]
async fn slh_dsa_shake_128s_needs_are_what_the_emulated_board_measures() {
    needs_are_measured(&[Algorithm::SlhDsaShake128s.as_str()]).await;
}

/// Runs `algorithms` once each on every implementation's image, without the
/// timing model (it changes no count, and QEMU runs three times as fast
/// without it), and checks the tables' rows of them.
async fn needs_are_measured(algorithms: &[&str]) {
    pqbench_test_needs::require!(common::firmware_dist());
    let dist = Some(common::dist_without_the_model());
    let server = common::start_server_with(common::ServerOptions { dist, ..Default::default() }).await;
    for (variant, table) in [
        ("opt-s", pqbench_suite::needs::LIBCRUX),
        ("opt-s-rustcrypto", pqbench_suite::needs::RUSTCRYPTO),
        ("opt-s-pqclean", pqbench_suite::needs::PQCLEAN),
    ] {
        let request = json!({"board": "qemu-mps2-an386", "variant": variant, "algorithms": algorithms,
                             "min_iterations": 1, "min_time_ms": 0});
        let (run, results) = server.run_to_end_within(request, Duration::from_secs(1200)).await;
        assert_eq!(run.status, RunStatus::Complete, "{variant}: {run:?}");
        assert!(results.iter().all(|r| r.model.is_none()), "{variant}: measured without the model");
        // The depth a board needs holds more than the operation's own
        // stack: the benchmark's frame with ML-KEM-1024's key pair (1,568 +
        // 3,168 bytes), ciphertext (1,568) and shared secret (32) lies
        // between the run loop and the operation, and is counted.
        for r in results.iter().filter(|r| r.status == Status::Ok) {
            let (stack, depth) = (r.stack_bytes.unwrap(), r.stack_depth_bytes.unwrap());
            assert!(depth >= stack, "{variant}: {r:?}");
            if r.algorithm.as_str() == "ML-KEM-1024" && r.operation == Operation::Decaps {
                assert!(depth - stack >= 1568 + 3168 + 1568 + 32, "{variant}: {r:?}");
            }
        }
        let measured: Vec<(String, String, u32, u32)> = results
            .iter()
            .map(|r| {
                let stack = r.stack_depth_bytes.unwrap() as u32;
                let heap = r.heap_bytes.unwrap() as u32;
                (r.algorithm.to_string(), r.operation.to_string(), stack, heap)
            })
            .collect();
        let table: Vec<(String, String, u32, u32)> = table
            .iter()
            .filter(|(a, _, _, _)| algorithms.contains(a))
            .map(|&(a, o, s, h)| (a.to_string(), o.to_string(), s, h))
            .collect();
        assert_eq!(table, measured, "{variant}: crates/suite/src/needs.rs is stale: run `cargo xtask needs`");
    }
}

/// With the NUCLEO-F446ZE's 128 KiB laid out as on that board, ML-DSA's key
/// generation and signing and every SLH-DSA, HQC and HSS operation are reported
/// as not fitting, with what they need; FN-DSA, whose code that board's image
/// leaves out for its 512 KiB of flash, as not fitting with no byte count;
/// and everything else is measured.
#[tokio::test]
async fn on_the_f446_layout_ml_dsa_does_not_fit_and_the_rest_completes() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let request = json!({"board": "qemu-netduinoplus2", "min_iterations": 1, "min_time_ms": 0});
    let (run, results) = server.run_to_end(request).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(results.len(), pqbench_suite::CATALOGUE.len());
    for r in &results {
        let ml_dsa = r.algorithm.as_str().starts_with("ML-DSA");
        // RustCrypto's SLH-DSA takes 100 KB of stack or more for every
        // operation of the `f` sets (its signature is built in arrays on
        // the stack): none fits the F446's 64 KB. The `128s` sets are not
        // in a chip's build (their signatures outlast its cycle counter).
        let slh_dsa = r.algorithm.as_str().starts_with("SLH-DSA");
        let fn_dsa = r.algorithm.as_str().starts_with("FN-DSA");
        // `hqc-kem` keeps its products on the stack: 90 KB at HQC-128.
        let hqc = r.algorithm.as_str().starts_with("HQC-");
        // `hbs-lms` sizes its arrays for 8 levels: 324 KB below the run loop.
        let hss = r.algorithm.as_str().starts_with("HSS-");
        match (ml_dsa, r.operation) {
            _ if fn_dsa => {
                assert_eq!(r.status, Status::DoesNotFit, "{r:?}");
                assert_eq!(
                    (r.note.as_deref(), r.ops_per_sec, r.iterations),
                    (None, None, None),
                    "never timed"
                );
            }
            _ if slh_dsa || hqc || hss => {
                assert_eq!(r.status, Status::DoesNotFit, "{r:?}");
                assert_eq!((r.ops_per_sec, r.iterations), (None, None), "never timed");
            }
            (true, Operation::Keygen | Operation::Sign) => {
                assert_eq!(r.status, Status::DoesNotFit, "{r:?}");
                let note = r.note.as_deref().unwrap_or_default();
                assert!(note.starts_with("does not fit (needs ") && note.ends_with(" bytes)"), "{r:?}");
                assert_eq!((r.ops_per_sec, r.iterations), (None, None), "never timed");
            }
            (true, _) => assert!(matches!(r.status, Status::Skipped | Status::DoesNotFit), "{r:?}"),
            (false, _) => assert_eq!(r.status, Status::Ok, "{r:?}"),
        }
    }
}

/// The Cortex-M33 stand-in runs the U585's build (thumbv8m.main, libcrux)
/// on the U585's RAM layout: the whole suite, each algorithm after its
/// known answers, and what the U585's 256 KiB of stack cannot hold is
/// reported with the bytes it needs, never tried. Its times are
/// instruction counts in SysTick steps of 50 (the machine's 20 MHz main
/// clock under `-icount shift=0`) with no M4 estimate. The step is checked
/// against the M4's board, whose counts of the same hashing code it matches
/// within 1 % (SHA-256: 41,250 and 41,240 instructions), where a wrong step
/// would be off by a fifth or more. Not every operation is alike: Rust's
/// `thumbv8m.main` target leaves out the DSP extension the U585's core has
/// (and `umaal` with it), so the big-number code takes more instructions
/// than on the M4 (RSA-2048 18 %, P-256 6 %, Curve25519 4 to 5 %). Turning
/// it on takes an unstable target feature (`+dsp`); `target-cpu=cortex-m33`
/// brings it but retunes everything else too (RSA-2048 then 19 % more, not
/// less, and 26 KiB more flash), so the build is left as the target makes it.
#[tokio::test]
async fn the_cortex_m33_stand_in_runs_the_whole_suite_on_the_u585_layout() {
    pqbench_test_needs::require!(common::firmware_dist());
    let (server, other) = tokio::join!(common::start_server(&[]), common::start_server(&[]));
    // All but SLH-DSA-SHAKE-128s, whose one signature takes minutes here
    // (`wide_clock.rs` times it on the M4's board).
    let suite = common::suite_but(&[Algorithm::SlhDsaShake128s]);
    let m33 = json!({"board": "qemu-mps2-an505", "algorithms": suite, "min_iterations": 1, "min_time_ms": 0});
    let alike = [("SHA-256", Operation::Hash), ("SHA-512", Operation::Hash), ("SHA3-256", Operation::Hash)];
    let m4 = json!({"board": "qemu-mps2-an386", "algorithms": alike.map(|(a, _)| a),
                    "min_iterations": 3, "min_time_ms": 0});
    let ((run, results), (m4_run, on_m4)) = tokio::join!(server.run_to_end(m33), other.run_to_end(m4));
    assert_eq!((run.status, m4_run.status), (RunStatus::Complete, RunStatus::Complete), "{run:?}");
    assert_eq!(run.rejected_records, 0, "{run:?}");
    assert_eq!(run.build.extra.get("core").map(String::as_str), Some("cortex-m33"), "{:?}", run.build);
    assert_eq!(run.build.extra.get("mcu").map(String::as_str), Some("QEMU MPS2 AN505"));
    assert_eq!(run.build.target.as_deref(), Some("thumbv8m.main-none-eabihf"), "{:?}", run.build);
    assert_eq!(run.build.crates.get("libcrux-ml-kem").map(String::as_str), Some("0.0.11"));

    assert_eq!(rows(&results), common::catalogue_of(&suite));
    for r in &results {
        // HQC-256 keeps 285 KB of products on the stack, HSS 324 KB (its
        // arrays sized for 8 levels). FN-DSA-1024 fits, at the edge:
        // 255,180 of the 262,144 bytes.
        if r.algorithm.as_str() == "HQC-256" || r.algorithm.as_str().starts_with("HSS-") {
            assert_eq!(r.status, Status::DoesNotFit, "{r:?}");
            let note = r.note.as_deref().unwrap_or_default();
            let needs: u32 = note
                .strip_prefix("does not fit (needs ")
                .and_then(|n| n.strip_suffix(" bytes)"))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{r:?}"));
            assert!(needs > 256 * 1024, "{r:?}");
            assert_eq!((r.ops_per_sec, r.iterations), (None, None), "never timed");
            continue;
        }
        assert_eq!(r.status, Status::Ok, "{r:?}");
        assert_eq!(r.tick_unit.as_deref(), Some("qemu-instructions/50"), "{r:?}");
        assert_eq!((r.cycles_per_op, &r.model), (None, &None), "no cycles, and no M4 estimate: {r:?}");
        assert!(r.stack_bytes.is_some() && r.heap_bytes.is_some(), "{r:?}");
    }

    let instructions = |results: &[BenchResult], algorithm: &str, operation: Operation| {
        let r = results
            .iter()
            .find(|r| r.algorithm.as_str() == algorithm && r.operation == operation)
            .unwrap_or_else(|| panic!("no {algorithm} {operation}"));
        pqbench_view::WorkPerOp::of(r).unwrap().value()
    };
    for (algorithm, operation) in alike {
        let (on_m33, on_m4) =
            (instructions(&results, algorithm, operation), instructions(&on_m4, algorithm, operation));
        let ratio = on_m33 / on_m4;
        eprintln!(
            "{algorithm} {operation}: {on_m33} instructions on the M33, {on_m4} on the M4 ({ratio:.3})"
        );
        assert!(
            (0.99..1.01).contains(&ratio),
            "{algorithm} {operation}: {on_m33} on the M33, {on_m4} on the M4"
        );
    }
}

/// A run on the host names its rows exactly as a board run does.
#[tokio::test]
async fn a_native_run_stores_the_same_rows_as_a_board_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("native.db");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["bench", "--native", "--min-iterations", "1", "--min-time-ms", "0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let id = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let export = std::process::Command::new(env!("CARGO_BIN_EXE_pqbench"))
        .args(["export", "--run", &id, "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let export: Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(export["run"]["source"], "native");
    assert!(export["run"]["board"].as_str().unwrap().starts_with("native:"));
    let results: Vec<BenchResult> = serde_json::from_value(export["results"].clone()).unwrap();
    let catalogue: Vec<(String, String)> =
        pqbench_suite::CATALOGUE.iter().map(|(a, o)| (a.to_string(), o.to_string())).collect();
    assert_eq!(rows(&results), catalogue);
    assert!(results.iter().all(|r| r.status == Status::Ok && r.tick_unit.as_deref() == Some("ns")));
    // The native heap figures come from the same counting allocator design:
    // RSA's public operation takes 6,144 bytes on the board too (needs.rs).
    let public =
        results.iter().find(|r| r.algorithm.as_str() == "RSA-2048" && r.operation == Operation::Public);
    assert_eq!(public.and_then(|r| r.heap_bytes), Some(6144));
}

/// A self-test that fails (a test image gets SHA-256's known answer wrong)
/// is stored as failed, with no timing, and the run goes on.
#[tokio::test]
async fn a_failed_self_test_is_stored_as_failed_and_never_timed() {
    use pqbench_collect::boards::Emulator;
    use pqbench_collect::collector::Collector;
    use pqbench_store::{NewRun, Store};
    use pqbench_types::Algorithm;
    use pqbench_wire::{Decoder, RunCommand};

    let image =
        pqbench_test_needs::require!(pqbench_test_needs::test_image("mps2-an386-self-test-fault.elf"));
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("fault.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let emulator = Emulator::start(common::mps2(), &image).await.unwrap();
    let mut port = emulator.open_console().unwrap();
    let command = [Algorithm::Sha256, Algorithm::Sha512]
        .into_iter()
        .try_fold(RunCommand::new(1, 0), RunCommand::with_algorithm)
        .unwrap();
    let outcome = Collector::to(StoreRecorder::for_run(&store, id))
        .collect(&mut port, command, &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    drop(port);
    emulator.stop().await;

    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    let results = store.results(id).await.unwrap();
    let sha256 = results.iter().find(|r| r.algorithm == Algorithm::Sha256).unwrap();
    assert_eq!(sha256.status, Status::Failed);
    let known_answer = pqbench_types::failure_note(pqbench_types::Failure::KnownAnswer);
    assert_eq!(sha256.note.as_deref(), Some(known_answer), "it says why");
    assert_eq!((sha256.iterations, sha256.avg_ms, sha256.ops_per_sec), (None, None, None));
    assert_eq!((sha256.stack_bytes, sha256.heap_bytes), (None, None));
    let sha512 = results.iter().find(|r| r.algorithm == Algorithm::Sha512).unwrap();
    assert_eq!(sha512.status, Status::Ok, "the algorithms after it are still measured");
}

/// ML-KEM, ML-DSA, the hybrids on ML-KEM, SLH-DSA, FN-DSA, HQC and HSS that are wrong but
/// consistent (the `inject-pqc-fault` test image flips one bit of every
/// key-generation seed on its way to the library, HSS's master seed among them, so keys,
/// ciphertexts and signatures still
/// round-trip) fail their known answers on the board before anything is timed: every operation is
/// stored as failed, with the known-answer reason, and the run goes on.
#[tokio::test]
async fn wrong_but_consistent_ml_kem_and_ml_dsa_fail_their_known_answers_and_are_never_timed() {
    use pqbench_collect::boards::Emulator;
    use pqbench_collect::collector::Collector;
    use pqbench_store::{NewRun, Store};
    use pqbench_types::{Algorithm, Failure, Family, failure_note};
    use pqbench_wire::{Decoder, RunCommand};

    let image = pqbench_test_needs::require!(pqbench_test_needs::test_image("mps2-an386-pqc-fault.elf"));
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("pqc-fault.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let emulator = Emulator::start(common::mps2(), &image).await.unwrap();
    let mut port = emulator.open_console().unwrap();
    // The suite's post-quantum algorithms: the names for imports only
    // (round 3 Kyber, SPHINCS+, XMSS) are none a board runs.
    let pqc: Vec<Algorithm> = Algorithm::ALL
        .iter()
        .copied()
        .filter(|&a| a.family() == Family::PostQuantum && pqbench_suite::supports(a))
        .collect();
    let command = pqc
        .iter()
        .chain([&Algorithm::Sha256])
        .try_fold(RunCommand::new(1, 0), |c, &a| c.with_algorithm(a))
        .unwrap();
    let outcome = Collector::to(StoreRecorder::for_run(&store, id))
        .collect(&mut port, command, &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    drop(port);
    emulator.stop().await;

    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    let results = store.results(id).await.unwrap();
    let failed: Vec<_> = results.iter().filter(|r| pqc.contains(&r.algorithm)).collect();
    assert_eq!(
        failed.len(),
        54,
        "every operation of the nine parameter sets, the two hybrids, SLH-DSA's four sets, FN-DSA's two and HSS-SHA256-L1-H5-W4: {results:?}"
    );
    for r in failed {
        assert_eq!(r.status, Status::Failed, "{r:?}");
        assert_eq!(r.note.as_deref(), Some(failure_note(Failure::KnownAnswer)), "{r:?}");
        assert_eq!(
            (r.iterations, r.avg_ms, r.ops_per_sec, r.ticks_per_op),
            (None, None, None, None),
            "{r:?}"
        );
        assert_eq!((r.stack_bytes, r.heap_bytes), (None, None), "{r:?}");
    }
    let sha256 = results.iter().find(|r| r.algorithm == Algorithm::Sha256).unwrap();
    assert_eq!(sha256.status, Status::Ok, "the algorithms after them are still measured");
}

/// The same suite built at other optimisation levels, chosen per run.
#[tokio::test]
async fn build_variants_are_offered_and_recorded() {
    for variant in ["opt-3", "opt-s-rustcrypto", "opt-s-pqclean"] {
        pqbench_test_needs::require!(common::image_path(&format!("firmware/mps2-an386-{variant}.elf")));
    }
    let dist = pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let boards: Vec<pqbench_api::Board> = server.get("/api/boards").await;
    let mps2 = boards.iter().find(|b| b.id == "qemu-mps2-an386").unwrap();
    // Offered: every variant whose image is built, in the catalogue's order
    // (the test tier builds `opt-z` for no test; a developer's dist may
    // hold it).
    let board = pqbench_boards::Board::by_firmware("mps2-an386").unwrap();
    let built: Vec<&str> = board
        .variants()
        .filter(|v| dist.join("firmware").join(board.image_file(v)).is_file())
        .map(|v| v.name)
        .collect();
    assert_eq!(mps2.variants, built);
    let mut keygen_ticks = Vec::new();
    for (variant, opt_level) in [("opt-s", "s"), ("opt-3", "3")] {
        let request = json!({"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"],
            "min_iterations": 1, "min_time_ms": 0, "variant": variant});
        let (run, results) = server.run_to_end(request).await;
        assert_eq!(run.status, RunStatus::Complete, "{run:?}");
        assert_eq!(run.build.opt_level.as_deref(), Some(opt_level));
        keygen_ticks.push(results[0].ticks_per_op.unwrap());
    }
    assert!(keygen_ticks[1] < keygen_ticks[0], "opt-level 3 is faster than s: {keygen_ticks:?}");

    // The other ML-KEM implementation, named by its build.
    let request = json!({"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"],
        "min_iterations": 1, "min_time_ms": 0, "variant": "opt-s-rustcrypto"});
    let (run, results) = server.run_to_end(request).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.build.crates.get("ml-kem").map(String::as_str), Some("0.3.4"));
    assert_eq!(run.build.crates.get("libcrux-ml-kem"), None);
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r.status == Status::Ok), "{results:?}");

    // PQClean's C, named for the packages its sources came from, its
    // Keccak among the functions the timing model names.
    let request = json!({"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"],
        "min_iterations": 1, "min_time_ms": 0, "variant": "opt-s-pqclean"});
    let (run, results) = server.run_to_end(request).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.build.crates.get("pqclean-ml-kem").map(String::as_str), Some("0.1.1"));
    assert_eq!(run.build.label(run.source), "firmware opt-s, pqclean-ml-kem 0.1.1");
    for r in &results {
        assert_eq!(r.status, Status::Ok, "{r:?}");
        let model = r.model.as_ref().unwrap();
        let keccak = model.functions.iter().find(|f| f.name == "KeccakF1600_StatePermute").unwrap();
        assert!(keccak.hashing && model.hashing_share.unwrap() > 0.3, "{model:?}");
        // One call a sample, the same work each time: the share per call
        // is the share of the whole.
        assert!((model.hashing_share_per_call.unwrap() - model.hashing_share.unwrap()).abs() < 1e-3);
        // PQClean's fips202.c takes each SHAKE context from malloc, which
        // pqm4 never runs: set apart, by function, as the harness's.
        let allocator = model.harness.iter().find(|h| h.class == "allocator").unwrap();
        assert!(allocator.cycles_per_op > 0.0, "{model:?}");
    }
    let (status, body) =
        server.post("/api/runs", &json!({"board": "qemu-mps2-an386", "variant": "opt-9"})).await;
    assert_eq!(status, 400, "{body}");
}
