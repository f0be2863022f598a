//! A board's UART flooded while it measures. A chip's USART that receives
//! a byte while the last is unread flags an overrun, and some USARTs (the
//! U585's) receive nothing more until the firmware clears it; the board
//! must still hear the next command. QEMU has no U5, and its STM32F4 USART
//! holds bytes back rather than overrun, so this floods the netduinoplus2's
//! USART3, the real F4 driver, through a real pseudo-terminal: the bytes
//! pile up while the board measures and all arrive at once after. The run
//! must be whole, the junk answered with errors, and the next command
//! answered.
//!
//! Needs `firmware/netduinoplus2.elf`: `cargo xtask test` builds it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pqbench_boards::Board as CatalogueBoard;
use pqbench_collect::boards::Emulator;
use pqbench_collect::ports;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const RUN: &str = "run min_iterations=1 min_time_ms=0 algorithms=ML-KEM-512,ML-DSA-44,SHA-256\n";
/// Records a run of those sends: three ML-KEM operations, three ML-DSA
/// ones, one hash.
const RESULTS: usize = 7;

/// Junk as a line noise or a terminal pasting into the port makes it:
/// every byte value, a line end now and then, lines longer than the
/// board's line buffer among them. No run command can come out of it.
fn junk(seed: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            // xorshift64: the same junk every run.
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            match *seed % 97 {
                0 => b'\n',
                _ => (*seed >> 24) as u8,
            }
        })
        .collect()
}

/// The board's next line, before `deadline`, or the test fails saying
/// what it waited for.
async fn next_line(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio_serial::SerialStream>>>,
    deadline: Instant,
    waiting_for: &str,
) -> String {
    let line = tokio::time::timeout_at(deadline.into(), lines.next_line()).await;
    line.unwrap_or_else(|_| panic!("{waiting_for}")).unwrap().expect("the port stays open")
}

#[tokio::test]
async fn a_board_flooded_while_it_measures_completes_the_run_and_answers_the_next_command() {
    let image = pqbench_test_needs::require!(pqbench_test_needs::firmware_image("netduinoplus2.elf"));
    let netduino = CatalogueBoard::by_firmware("netduinoplus2").and_then(|b| b.qemu()).expect("emulated");
    let qemu = Emulator::start(netduino, &image).await.unwrap();
    let port = ports::open(&qemu.console).expect("opening the board's pty");
    let (reader, mut writer) = tokio::io::split(port);
    let mut lines = BufReader::new(reader).lines();

    let deadline = Instant::now() + Duration::from_secs(120);
    // Bytes sent before the firmware has set up its USART are lost, on
    // QEMU as on a chip: the command goes once its banner is out.
    loop {
        let line = next_line(&mut lines, deadline, "the banner within 120 s").await;
        if line.starts_with("pqbench firmware on ") {
            break;
        }
    }
    writer.write_all(RUN.as_bytes()).await.unwrap();
    // The flood starts once the board measures (its first record of the
    // run), and goes on until the run ends.
    let measuring = Arc::new(AtomicBool::new(false));
    let ended = Arc::new(AtomicBool::new(false));
    let flooded = Arc::new(AtomicUsize::new(0));
    let flood = {
        let (measuring, ended, flooded) = (measuring.clone(), ended.clone(), flooded.clone());
        tokio::spawn(async move {
            let mut seed = 0x9E37_79B9_7F4A_7C15;
            while !measuring.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            while !ended.load(Ordering::Relaxed) {
                // A write waits while the pty's buffer is full, as the board
                // reads nothing while it measures: bounded, so the flood
                // ends with the run.
                let chunk = junk(&mut seed, 256);
                match tokio::time::timeout(Duration::from_millis(50), writer.write_all(&chunk)).await {
                    Ok(written) => {
                        written.unwrap();
                        flooded.fetch_add(chunk.len(), Ordering::Relaxed);
                    }
                    Err(_) => continue,
                }
            }
            writer
        })
    };

    let mut results = 0;
    loop {
        let line = next_line(&mut lines, deadline, "the run ends within 120 s").await;
        if line.starts_with("@pqb1 result") {
            measuring.store(true, Ordering::Relaxed);
            results += 1;
        } else if ["@pqb1 begin", "@pqb1 op", "@pqb1 measuring"].iter().any(|k| line.starts_with(k)) {
            measuring.store(true, Ordering::Relaxed);
        } else if line.starts_with("@pqb1 error") {
            panic!("the board answered junk while it measured: {line}");
        } else if line.starts_with("@pqb1 end") {
            break;
        }
    }
    ended.store(true, Ordering::Relaxed);
    let mut writer = flood.await.unwrap();
    assert_eq!(results, RESULTS, "the run is whole");
    let flooded = flooded.load(Ordering::Relaxed);
    assert!(flooded >= 2048, "the flood filled the line while the board measured: {flooded} bytes");

    // The junk is read now: answered with errors, and then the command.
    writer.write_all(b"\nhello\n").await.unwrap();
    let mut errors = 0;
    let answered = loop {
        let line = next_line(&mut lines, deadline, "hello answered within 120 s of the start").await;
        if line.starts_with("@pqb1 error") {
            errors += 1;
        } else if line.starts_with("@pqb1 hello") {
            break line;
        }
    };
    drop((lines, writer));
    qemu.stop().await;
    assert!(answered.contains("board=qemu-netduinoplus2"), "{answered}");
    assert!(errors > 0, "the junk lines are each answered with an error");
    eprintln!("{flooded} bytes of junk while measuring; {errors} error records before hello's answer");
}
