//! The whole path, for real: `pqbench serve` on a temporary SQLite file
//! starts QEMU's mps2-an386 running the bundled firmware, talks to it over
//! a pseudo-terminal, and stores what the firmware measured.
//!
//! Needs the firmware image: `cargo xtask test` builds it and sets PQBENCH_DIST.

use std::time::{Duration, Instant};

use pqbench_types::{BenchResult, Operation, Run, RunStatus, Status};
use serde_json::{Value, json};

mod common;

use common::Server;

/// Starts an ML-KEM-768 run and waits (120 s at most) for it to end.
async fn run_ml_kem_768(server: &Server) -> (Run, Vec<BenchResult>) {
    run_ml_kem_768_on(server, "qemu-mps2-an386").await
}

async fn run_ml_kem_768_on(server: &Server, board: &str) -> (Run, Vec<BenchResult>) {
    let request =
        json!({"board": board, "algorithms": ["ML-KEM-768"], "min_iterations": 3, "min_time_ms": 0});
    let (status, body) = server.post("/api/runs", &request).await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_i64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let run: Run = server.get(&format!("/api/runs/{id}")).await;
        if run.status.is_finished() {
            let results = server.get(&format!("/api/runs/{id}/results")).await;
            return (run, results);
        }
        assert!(Instant::now() < deadline, "run {id} still {:?} after 120 s", run.status);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_run_on_the_emulated_board_stores_what_the_firmware_measured() {
    let server = common::start_server(&[]).await;
    common::firmware_dist();
    let boards: Value = server.get("/api/boards").await;
    assert_eq!(boards[0]["id"], "qemu-mps2-an386", "{boards}");

    let (run, results) = run_ml_kem_768(&server).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.board, "qemu-mps2-an386");
    assert_eq!(run.rejected_records, 0);
    assert!(run.build.revision.is_some() && run.build.rustc.is_some(), "{:?}", run.build);
    assert_eq!(run.build.crates.get("ml-kem").map(String::as_str), Some("0.3.4"));

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
    // ml-kem's `alloc` feature boxes key material during key generation.
    assert!(results[0].heap_bytes.unwrap() > 0 && results[0].heap_allocs.unwrap() > 0);

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
    common::firmware_dist();
    let server = common::start_server(&[]).await;
    let (run, results) = run_ml_kem_768_on(&server, "qemu-netduinoplus2").await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    assert_eq!(run.clock_hz, Some(168_000_000));
    assert_eq!(run.build.extra.get("mcu").map(String::as_str), Some("STM32F405RG (QEMU netduinoplus2)"));
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
    common::firmware_dist();
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
    use pqbench::boards::{EMULATED, Emulator};
    use pqbench_wire::{Decoder, Event, Record};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let dist = common::firmware_dist();
    for board in EMULATED {
        let emulator = Emulator::start(board, &dist.join("firmware").join(board.image)).await.unwrap();
        let mut port = emulator.open_console().unwrap();
        port.write_all(b"calibrate\n").await.unwrap();
        let mut decoder = Decoder::new();
        let mut buf = [0u8; 512];
        let record = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let n = port.read(&mut buf).await.unwrap();
                assert!(n > 0, "{}: the port closed", board.id);
                for event in decoder.push(&buf[..n]) {
                    if let Event::Record(record @ Record::Calibration { .. }) = event {
                        return record;
                    }
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{}: no calibration record", board.id));
        drop(port);
        emulator.stop().await;

        let Record::Calibration { stack_buffer, stack, heap_buffer, heap, allocs } = record else {
            unreachable!()
        };
        let stack = stack.expect("stack measured");
        assert!(
            stack.abs_diff(stack_buffer) <= 128,
            "{}: {stack} bytes for a {stack_buffer}-byte buffer",
            board.id
        );
        assert_eq!((heap, allocs), (Some(heap_buffer), Some(1)), "{}", board.id);
    }
}
