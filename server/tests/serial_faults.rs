//! Damaged serial streams, over a real pseudo-terminal pair: the collector
//! refuses and counts bad records, stores nothing wrong, and keeps the
//! intact records that follow.

use std::time::Duration;

use pqbench::collect::Collector;
use pqbench::store::{NewRun, Store};
use pqbench_types::{Algorithm, BenchResult, Clock, Measurement, Operation, RunStatus, Status, TickUnit};
use pqbench_wire::{Decoder, RecordWriter, RunCommand, kind, write_measurement};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio_serial::SerialStream;

const CLOCK: Clock =
    Clock { ticks_per_second: 25_000_000, unit: TickUnit::QemuInstructions { per_tick: 40 } };

fn measurement(algorithm: Algorithm, operation: Operation, base: u64) -> Measurement {
    Measurement {
        iterations: 3,
        total_ticks: base * 3 + 3,
        min_ticks: base,
        median_ticks: base + 1,
        max_ticks: base + 2,
        heap_bytes: Some(4736),
        heap_allocs: Some(15),
        stack_bytes: Some(27_608),
        ..Measurement::untimed(algorithm, operation, Status::Ok)
    }
}

fn record(kind: &str, fields: &[(&str, &str)]) -> String {
    let mut line = String::new();
    let mut r = RecordWriter::begin(&mut line, kind).unwrap();
    for (k, v) in fields {
        r.field(k, v).unwrap();
    }
    r.finish().unwrap();
    line
}

fn result_line(m: &Measurement) -> String {
    let mut line = String::new();
    write_measurement(&mut line, m).unwrap();
    line
}

fn hello() -> String {
    record(
        kind::HELLO,
        &[
            ("board", "qemu-mps2-an386"),
            ("ticks_per_second", "25000000"),
            ("tick_unit", "qemu-instructions/40"),
        ],
    )
}

async fn store_with_run() -> (tempfile::TempDir, Store, i64) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("faults.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    (dir, store, id)
}

/// Plays a board on the far end of the pty: answers `hello`, then sends
/// `stream` as it is when the run command comes.
fn board(port: SerialStream, stream: Vec<u8>) -> tokio::task::JoinHandle<SerialStream> {
    tokio::spawn(async move {
        let mut port = BufReader::new(port);
        loop {
            let mut command = String::new();
            port.read_line(&mut command).await.unwrap();
            if command == "hello\n" {
                port.get_mut().write_all(hello().as_bytes()).await.unwrap();
                continue;
            }
            assert!(command.starts_with("run "), "after hello, a run command; got {command:?}");
            port.get_mut().write_all(&stream).await.unwrap();
            port.get_mut().flush().await.unwrap();
            return port.into_inner();
        }
    })
}

#[tokio::test]
async fn corrupted_and_truncated_records_are_refused_and_later_records_land() {
    let (_dir, store, run_id) = store_with_run().await;
    let keygen_768 = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let encaps_768 = measurement(Algorithm::MlKem768, Operation::Encaps, 64_788);
    let decaps_768 = measurement(Algorithm::MlKem768, Operation::Decaps, 83_614);
    let keygen_512 = measurement(Algorithm::MlKem512, Operation::Keygen, 45_000);

    let mut corrupted = result_line(&encaps_768).into_bytes();
    let at = corrupted.iter().position(|&b| b == b'6').unwrap();
    corrupted[at] = b'9'; // one flipped digit: a plausible figure, a wrong checksum
    let whole_decaps = result_line(&decaps_768);
    let truncated = &whole_decaps.as_bytes()[..whole_decaps.len() / 2]; // cut off, no line end

    let mut stream = Vec::new();
    stream.extend_from_slice(b"pqbench firmware booting\r\n");
    stream.extend_from_slice(hello().as_bytes());
    stream.extend_from_slice(record(kind::BEGIN, &[("operations", "4")]).as_bytes());
    stream.extend_from_slice(result_line(&keygen_768).as_bytes());
    stream.extend_from_slice(&corrupted);
    stream.extend_from_slice(truncated);
    stream.extend_from_slice(result_line(&keygen_512).as_bytes());
    stream.extend_from_slice(record(kind::END, &[("results", "4")]).as_bytes());

    let (mut host, far) = SerialStream::pair().expect("a pseudo-terminal pair");
    let board = board(far, stream);
    let collector = Collector::new(&store, run_id);
    let mut refused = Vec::new();
    let outcome = collector
        .collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |p| {
            if let pqbench::collect::Progress::Rejected(why) = p {
                refused.push(why);
            }
        })
        .await
        .unwrap();
    board.await.unwrap();

    assert_eq!(outcome.rejected, 2, "{refused:?}");
    assert!(refused[0].contains("checksum"), "{refused:?}");
    assert!(refused[1].contains("cut off"), "{refused:?}");
    assert_eq!(outcome.results, 2);
    assert_eq!(outcome.status, RunStatus::Incomplete);

    let stored = store.results(run_id).await.unwrap();
    let expected: Vec<BenchResult> =
        [keygen_768, keygen_512].iter().map(|m| BenchResult::from_measurement(m, &CLOCK)).collect();
    assert_eq!(stored, expected, "exactly the intact records, with the board's figures");
    let run = store.run(run_id).await.unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Incomplete);
    assert_eq!(run.rejected_records, 2);
    assert!(run.error.unwrap().contains("2 records refused"));
}

#[tokio::test]
async fn an_intact_run_is_complete() {
    let (_dir, store, run_id) = store_with_run().await;
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let mut stream = hello().into_bytes();
    stream.extend_from_slice(record(kind::BEGIN, &[("operations", "1")]).as_bytes());
    stream.extend_from_slice(result_line(&keygen).as_bytes());
    stream.extend_from_slice(record(kind::END, &[("results", "1")]).as_bytes());
    let (mut host, far) = SerialStream::pair().unwrap();
    let board = board(far, stream);
    let outcome = Collector::new(&store, run_id)
        .collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    board.await.unwrap();
    assert_eq!((outcome.status, outcome.results, outcome.rejected), (RunStatus::Complete, 1, 0));
    assert_eq!(store.run(run_id).await.unwrap().unwrap().status, RunStatus::Complete);
}

#[tokio::test]
async fn a_silent_board_fails_the_run_and_keeps_what_arrived() {
    let (_dir, store, run_id) = store_with_run().await;
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let mut stream = hello().into_bytes();
    stream.extend_from_slice(result_line(&keygen).as_bytes());
    let (mut host, far) = SerialStream::pair().unwrap();
    let board = board(far, stream);
    let mut collector = Collector::new(&store, run_id);
    collector.silence = Duration::from_millis(500);
    let outcome =
        collector.collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {}).await.unwrap();
    let _port = board.await.unwrap(); // kept open: silent, not gone
    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(outcome.error.unwrap().contains("sent nothing"));
    assert_eq!(store.results(run_id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_board_that_never_answers_hello_fails_the_run_without_a_run_command() {
    let (_dir, store, run_id) = store_with_run().await;
    let (mut host, mut far) = SerialStream::pair().unwrap();
    let heard = tokio::spawn(async move {
        let mut heard = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(12), far.read(&mut buf)).await {
            if n == 0 {
                break;
            }
            heard.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&heard).into_owned()
    });
    let outcome = Collector::new(&store, run_id)
        .collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    drop(host);
    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(outcome.error.unwrap().contains("did not answer hello"));
    let heard = heard.await.unwrap();
    assert!(heard.starts_with("hello\n") && !heard.contains("run"), "{heard:?}");
}

#[tokio::test]
async fn a_board_error_record_fails_the_run_with_its_message() {
    let (_dir, store, run_id) = store_with_run().await;
    let mut stream = hello().into_bytes();
    stream.extend_from_slice(record(kind::ERROR, &[("msg", "panic: out of memory")]).as_bytes());
    let (mut host, far) = SerialStream::pair().unwrap();
    let board = board(far, stream);
    let outcome = Collector::new(&store, run_id)
        .collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    board.await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(
        store.run(run_id).await.unwrap().unwrap().error.as_deref(),
        Some("the board said: panic: out of memory")
    );
}
