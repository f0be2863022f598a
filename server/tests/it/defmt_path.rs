//! The defmt path without hardware: the firmware's defmt build runs on
//! QEMU's mps2-an386 and sends its records as defmt frames over the
//! emulated UART; the server decodes them with the image's own ELF, exactly
//! as it decodes a probe's RTT bytes.
//!
//! Needs the firmware images: `cargo xtask test` builds them and sets PQBENCH_DIST.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use pqbench_collect::boards::{Emulator, QemuMachine};
use pqbench_collect::collector::{Collector, ImageIdentity, Link};
use pqbench_collect::frames::{DefmtDecoder, FrameDecoder};
use pqbench_collect::image::{FirmwareImage, ImageError};
use pqbench_store::{NewRun, Store};
use pqbench_types::{Algorithm, BenchResult, Measurement, Measuring, Operation, RunStatus};
use pqbench_wire::{Decoder, Event, Record, RunCommand};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::common;
use pqbench::record::StoreRecorder;

const DEFMT_IMAGE: &str = "firmware/mps2-an386-defmt-serial.elf";

fn image(relative: &str) -> Result<FirmwareImage, pqbench_test_needs::Missing> {
    common::image_path(relative).map(|path| FirmwareImage::load(&path).unwrap())
}

/// One measurement, reported by one image both as defmt frames (console
/// UART, through the server's defmt path) and as text lines (second UART):
/// the records are equal in every field, and so are the stored results.
#[tokio::test]
async fn one_measurement_through_both_transports_gives_records_equal_in_every_field() {
    pqbench_test_needs::require!(image("test/mps2-an386-defmt-text-mirror.elf"));
    let command =
        [Algorithm::MlKem512, Algorithm::MlDsa44, Algorithm::X25519, Algorithm::Aes128Gcm, Algorithm::Sha256]
            .into_iter()
            .try_fold(RunCommand::new(2, 0), RunCommand::with_algorithm)
            .unwrap();
    let mirrored = through_both_transports(command).await;
    let text_records = &mirrored.text;

    let measurements: Vec<&Measurement> =
        text_records.iter().filter_map(|r| if let Record::Result(m) = r { Some(m) } else { None }).collect();
    assert_eq!(measurements.len(), 11, "{text_records:?}");
    assert_eq!(&mirrored.defmt, text_records, "the defmt frames carry every field of every record unchanged");

    let Some(Record::Hello(hello)) = text_records.first() else { panic!("no hello: {text_records:?}") };
    let clock = hello.clock().unwrap();
    let expected: Vec<BenchResult> =
        measurements.iter().map(|m| BenchResult::from_measurement(m, &clock)).collect();
    assert_eq!(mirrored.store.results(mirrored.id).await.unwrap(), expected);
}

/// A measurement long enough for `measuring` records between its calls:
/// through both transports, they are equal in every field too.
#[tokio::test]
async fn measuring_records_through_both_transports_are_equal_in_every_field() {
    pqbench_test_needs::require!(image("test/mps2-an386-defmt-text-mirror.elf"));
    // 2.5 s of board time each (public stops a little short, at the
    // firmware's 1024 samples): the record before the first call, and
    // beats after 1 s and 2 s.
    let command = RunCommand::new(1, 2500).with_algorithm(Algorithm::Rsa2048).unwrap();
    let mirrored = through_both_transports(command).await;
    let beats: Vec<&Measuring> = mirrored
        .text
        .iter()
        .filter_map(|r| if let Record::Measuring(m) = r { Some(m) } else { None })
        .collect();
    for operation in [Operation::Public, Operation::Private] {
        let of: Vec<_> = beats.iter().filter(|m| m.operation == operation).collect();
        assert_eq!(of.len(), 3, "{operation}: {beats:?}");
        assert_eq!((of[0].calls, of[0].elapsed_ticks), (0, 0), "{beats:?}");
        // 25 million ticks a second.
        assert!(of[1].calls > 0 && of[1].elapsed_ticks >= 25_000_000, "{beats:?}");
        assert!(of[2].elapsed_ticks >= 50_000_000 && of[2].slowest_ticks > 0, "{beats:?}");
    }
    assert_eq!(mirrored.defmt, mirrored.text, "the defmt frames carry every field of every record unchanged");
}

/// What one run of the `text-mirror` image sent, read from each transport.
struct Mirrored {
    defmt: Vec<Record>,
    text: Vec<Record>,
    store: Store,
    id: i64,
    _dir: tempfile::TempDir,
}

/// Runs `command` on the `text-mirror` image, which sends each record as
/// defmt frames on its console UART (collected through the defmt path)
/// and as a text line on its second UART (into a file).
/// Its callers require the image first.
async fn through_both_transports(command: RunCommand) -> Mirrored {
    let mirror = image("test/mps2-an386-defmt-text-mirror.elf").expect("the test required the image");
    let dir = tempfile::tempdir().unwrap();
    let text_file = dir.path().join("uart1.txt");
    let second_uart: &'static str = Box::leak(format!("file:{}", text_file.display()).into_boxed_str());
    let board =
        QemuMachine { serials: Box::leak(vec!["pty", second_uart].into_boxed_slice()), ..*common::mps2() };

    let store = Store::open(&dir.path().join("mirror.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let emulator = Emulator::start(&board, &mirror.path).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut port = Tee { inner: emulator.open_console().unwrap(), seen: seen.clone() };
    let mut collector = Collector::to(StoreRecorder::for_run(&store, id));
    collector.image = Some((&mirror).into());
    let mut decoder = DefmtDecoder::new(&mirror).unwrap();
    let outcome = collector.collect(&mut port, command, &mut decoder, |_| {}).await.unwrap();
    drop(port);
    emulator.stop().await;
    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");

    let records = |events: Vec<Event>| -> Vec<Record> {
        events
            .into_iter()
            .filter_map(|event| match event {
                Event::Record(record) => Some(record),
                Event::Text(_) => None,
                Event::Rejected(why) => panic!("a record was refused: {why}"),
            })
            .collect()
    };
    let defmt = records(DefmtDecoder::new(&mirror).unwrap().push(&seen.lock().unwrap()));
    let mut text = Decoder::new();
    let mut text_events = text.push(&std::fs::read(&text_file).unwrap());
    text_events.extend(text.finish());
    Mirrored { defmt, text: records(text_events), store, id, _dir: dir }
}

/// The same request through `pqbench serve` on the text build and on the
/// defmt build of one source. Two images execute a different number of
/// instructions between the clock's restart and each measurement, so
/// a 40-instruction tick boundary can fall one tick either way: times
/// agree within one tick per call, everything else exactly.
#[tokio::test]
async fn a_defmt_build_run_through_the_server_measures_as_the_text_build_does() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let boards: Vec<pqbench_api::Board> = server.get("/api/boards").await;
    let mps2 = boards.iter().find(|b| b.id == "qemu-mps2-an386").unwrap();
    assert!(mps2.variants.iter().any(|v| v == "opt-s-defmt"), "{:?}", mps2.variants);

    let request = |variant: &str| {
        json!({"board": "qemu-mps2-an386", "variant": variant, "min_iterations": 2, "min_time_ms": 0,
               "algorithms": ["ML-KEM-512", "ML-DSA-44", "X25519", "AES-128-GCM", "SHA-256"]})
    };
    let (text_run, text_results) = server.run_to_end(request("opt-s")).await;
    let (defmt_run, defmt_results) = server.run_to_end(request("opt-s-defmt")).await;

    assert_eq!(text_run.status, RunStatus::Complete, "{text_run:?}");
    assert_eq!(defmt_run.status, RunStatus::Complete, "{defmt_run:?}");
    assert_eq!(defmt_run.rejected_records, 0);
    assert_eq!(text_results.len(), 11, "{text_results:?}");
    assert_eq!(defmt_results.len(), text_results.len());
    let one_tick_ms = 1e3 / 25e6;
    for (defmt, text) in defmt_results.iter().zip(&text_results) {
        let timeless = |r: &BenchResult| BenchResult {
            total_seconds: None,
            avg_ms: None,
            ops_per_sec: None,
            min_ms: None,
            median_ms: None,
            max_ms: None,
            ticks_per_op: None,
            bytes_per_sec: None,
            stdev_ms: None,
            // The depth from the run loop includes the records' own
            // formatting between operations, which is the transport's:
            // compared below within a margin, not exactly.
            stack_depth_bytes: None,
            // Two images: the timed code is the same, its placement not;
            // compared below within a margin.
            model: None,
            ..r.clone()
        };
        assert_eq!(timeless(defmt), timeless(text));
        let (defmt_model, text_model) = (defmt.model.as_ref().unwrap(), text.model.as_ref().unwrap());
        let cycles = text_model.cycles_per_op;
        assert!((defmt_model.cycles_per_op - cycles).abs() <= cycles * 0.001 + 100.0, "{defmt:?}\n{text:?}");
        let (defmt_depth, text_depth) = (defmt.stack_depth_bytes.unwrap(), text.stack_depth_bytes.unwrap());
        assert!(defmt_depth.abs_diff(text_depth) <= 256, "{defmt:?}\n{text:?}");
        let close =
            |a: Option<f64>, b: Option<f64>, within: f64| (a.unwrap() - b.unwrap()).abs() <= within + 1e-9;
        assert!(close(defmt.ticks_per_op, text.ticks_per_op, 1.0), "{defmt:?}\n{text:?}");
        for (a, b) in
            [(defmt.min_ms, text.min_ms), (defmt.median_ms, text.median_ms), (defmt.max_ms, text.max_ms)]
        {
            assert!(close(a, b, one_tick_ms), "{defmt:?}\n{text:?}");
        }
        // Each sample may round by a tick either way. Moving n samples by
        // at most a tick each moves their sample deviation by at most
        // sqrt(n / (n - 1)) ticks (1.41 for two), and the wire carries it
        // rounded to whole ticks: one more. Seen: 120 ticks against 118.
        let n = text.samples.unwrap() as f64;
        let spread_ticks = (n / (n - 1.0)).sqrt() + 1.0;
        assert!(close(defmt.stdev_ms, text.stdev_ms, spread_ticks * one_tick_ms), "{defmt:?}\n{text:?}");
    }

    // Each run is tied to the very file it ran.
    let defmt_image = pqbench_test_needs::require!(image(DEFMT_IMAGE));
    assert_eq!(defmt_run.build.build_id, defmt_image.build_id);
    assert_eq!(defmt_run.build.elf_sha256.as_deref(), Some(defmt_image.sha256.as_str()));
    assert!(defmt_run.build.features.as_deref().is_some_and(|f| f.contains("defmt-serial")));
    // hello's fields, clock_source among them, arrive the same either way:
    // its defmt message lists exactly the text record's.
    for run in [&text_run, &defmt_run] {
        assert_eq!(run.build.extra.get("clock_source").map(String::as_str), Some("qemu"), "{:?}", run.build);
    }
    let text_image = pqbench_test_needs::require!(image("firmware/mps2-an386.elf"));
    assert_eq!(text_run.build.build_id, text_image.build_id);
    assert_ne!(text_run.build.build_id, defmt_run.build.build_id);
}

/// Runs the defmt image on QEMU, reading its bytes with `decoder` and
/// holding the given image identity; returns the outcome and what it stored.
async fn run_decoded_with(
    decoder: &mut dyn FrameDecoder,
    identity: ImageIdentity,
) -> (pqbench_collect::collector::Outcome, Vec<BenchResult>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("wrong-elf.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let image = image(DEFMT_IMAGE).expect("the test required the image");
    let emulator = Emulator::start(common::mps2(), &image.path).await.unwrap();
    let mut port = emulator.open_console().unwrap();
    let mut collector = Collector::to(StoreRecorder::for_run(&store, id));
    collector.silence = Duration::from_secs(10);
    collector.image = Some(identity);
    let command = RunCommand::new(1, 0).with_algorithm(Algorithm::MlKem512).unwrap();
    let outcome = collector.collect(&mut port, command, decoder, |_| {}).await.unwrap();
    drop(port);
    emulator.stop().await;
    (outcome, store.results(id).await.unwrap())
}

#[tokio::test]
async fn bytes_decoded_with_another_builds_elf_are_refused_and_never_stored() {
    pqbench_test_needs::require!(image(DEFMT_IMAGE));
    pqbench_test_needs::require!(common::firmware_dist());
    // Another build of the same suite and messages: an STM32F446's RTT image.
    let other = pqbench_test_needs::require!(image("firmware/nucleo-f446ze-defmt-rtt.elf"));
    let mut decoder = DefmtDecoder::new(&other).unwrap();
    let (outcome, stored) = run_decoded_with(&mut decoder, (&other).into()).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert!(stored.is_empty(), "nothing decoded with the wrong ELF is stored: {stored:?}");
    let why = outcome.error.unwrap();
    assert!(why.contains("build") || why.contains("could be read"), "{why}");

    // An ELF without a defmt table cannot be used to decode at all.
    let text = pqbench_test_needs::require!(image("firmware/mps2-an386.elf"));
    assert!(matches!(DefmtDecoder::new(&text), Err(ImageError::NoDefmtTable { .. })));
}

/// Keeps a copy of every byte read through it.
struct Tee<P> {
    inner: P,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<P: AsyncRead + Unpin> AsyncRead for Tee<P> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let fresh = buf.filled()[before..].to_vec();
        self.seen.lock().unwrap().extend_from_slice(&fresh);
        polled
    }
}

impl<P: AsyncWrite + Unpin> AsyncWrite for Tee<P> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Bytes recorded earlier, handed over in small chunks as a port would.
struct Replay(std::vec::IntoIter<Vec<u8>>);

impl Link for Replay {
    type Error = String;
    async fn receive(&mut self) -> Result<Vec<u8>, String> {
        self.0.next().ok_or_else(|| "the recording ended".into())
    }
}

#[tokio::test]
async fn corrupt_frames_are_skipped_and_later_results_still_decode() {
    pqbench_test_needs::require!(common::firmware_dist());
    let defmt = pqbench_test_needs::require!(image(DEFMT_IMAGE));
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("corrupt.db")).await.unwrap();

    // A clean run, recording the bytes as they arrive.
    let clean_id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let emulator = Emulator::start(common::mps2(), &defmt.path).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut port = Tee { inner: emulator.open_console().unwrap(), seen: seen.clone() };
    let command = [Algorithm::Sha256, Algorithm::Sha512, Algorithm::Sha3_256, Algorithm::X25519]
        .into_iter()
        .try_fold(RunCommand::new(1, 0), RunCommand::with_algorithm)
        .unwrap();
    let mut decoder = DefmtDecoder::new(&defmt).unwrap();
    let clean = Collector::to(StoreRecorder::for_run(&store, clean_id))
        .collect(&mut port, command, &mut decoder, |_| {})
        .await
        .unwrap();
    drop(port);
    emulator.stop().await;
    assert_eq!(clean.status, RunStatus::Complete, "{clean:?}");
    let originals = store.results(clean_id).await.unwrap();
    assert_eq!(originals.len(), 5, "{originals:?}");

    // Which frames of the recording are results.
    let recording = seen.lock().unwrap().clone();
    let mut frames: Vec<Vec<u8>> = recording.split_inclusive(|&b| b == 0).map(<[u8]>::to_vec).collect();
    let mut probe = DefmtDecoder::new(&defmt).unwrap();
    let result_frames: Vec<usize> = (0..frames.len())
        .filter(|&i| matches!(probe.push(&frames[i])[..], [Event::Record(Record::Result(_))]))
        .collect();
    assert_eq!(result_frames.len(), 5);

    // Damage: one byte flipped inside the 2nd result, the 4th cut short,
    // and noise with a frame end of its own before the 5th.
    let flipped = &mut frames[result_frames[1]];
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x5a;
    let cut = &mut frames[result_frames[3]];
    let len = cut.len();
    cut.drain(len / 2..len - 1);
    frames.insert(result_frames[4], vec![0x13, 0x37, 0xff, 0x42, 0x00]);

    let damaged: Vec<u8> = frames.concat();
    let chunks: Vec<Vec<u8>> = damaged.chunks(7).map(<[u8]>::to_vec).collect();
    let damaged_id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let mut decoder = DefmtDecoder::new(&defmt).unwrap();
    let outcome = Collector::to(StoreRecorder::for_run(&store, damaged_id))
        .collect_link(&mut Replay(chunks.into_iter()), &mut decoder, |_| {})
        .await
        .unwrap();

    assert_eq!(outcome.status, RunStatus::Incomplete, "{outcome:?}");
    assert_eq!(outcome.rejected, 3, "{outcome:?}");
    let kept = store.results(damaged_id).await.unwrap();
    let expected: Vec<BenchResult> =
        originals.iter().enumerate().filter(|(i, _)| *i != 1 && *i != 3).map(|(_, r)| r.clone()).collect();
    assert_eq!(kept, expected, "the intact results land unchanged, the damaged ones not at all");
}
