//! Damaged serial streams, over a real pseudo-terminal pair: the collector
//! refuses and counts bad records, stores nothing wrong, and keeps the
//! intact records that follow.

use std::time::Duration;

use pqbench::record::StoreRecorder;
use pqbench_collect::collector::Collector;
use pqbench_store::{NewRun, Store};
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

/// Collects a run from a fake board that sends `stream` and then closes
/// its port, with the default settings.
async fn collect_all(store: &Store, run_id: i64, stream: Vec<u8>) -> pqbench_collect::collector::Outcome {
    let (mut host, far) = SerialStream::pair().unwrap();
    let board = board(far, stream);
    let outcome = Collector::to(StoreRecorder::for_run(store, run_id))
        .collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    board.await.unwrap();
    outcome
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
    let collector = Collector::to(StoreRecorder::for_run(&store, run_id));
    let mut refused = Vec::new();
    let outcome = collector
        .collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |p| {
            if let pqbench_collect::collector::Progress::Rejected(why) = p {
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
    let outcome = collect_all(&store, run_id, stream).await;
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
    let mut collector = Collector::to(StoreRecorder::for_run(&store, run_id));
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
    let outcome = Collector::to(StoreRecorder::for_run(&store, run_id))
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
    let outcome = collect_all(&store, run_id, stream).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(
        store.run(run_id).await.unwrap().unwrap().error.as_deref(),
        Some("the board said: panic: out of memory")
    );
}

/// What the bundled firmware writes when it boots (firmware/src/report/text.rs).
const BANNER: &str = "pqbench firmware on qemu-mps2-an386: send 'hello' or 'run'\r\n";

/// Collects a run from a fake board that sends `stream` and then keeps its
/// port open and says nothing more. The silence allowed is a minute, so
/// only recognising the restart can end the run within the 10 s given.
async fn collect_until_restart(
    stream: Vec<u8>,
) -> (Store, i64, pqbench_collect::collector::Outcome, tempfile::TempDir) {
    let (dir, store, run_id) = store_with_run().await;
    let (mut host, far) = SerialStream::pair().unwrap();
    let board = board(far, stream);
    let mut collector = Collector::to(StoreRecorder::for_run(&store, run_id));
    collector.silence = Duration::from_secs(60);
    let mut decoder = Decoder::new();
    let collecting = collector.collect(&mut host, RunCommand::new(3, 0), &mut decoder, |_| {});
    let outcome = tokio::time::timeout(Duration::from_secs(10), collecting)
        .await
        .expect("a restart ends the run at once, not after the silence")
        .unwrap();
    let _port = board.await.unwrap(); // still open: the board restarted, it is not gone
    (store, run_id, outcome, dir)
}

#[tokio::test]
async fn a_board_that_restarts_mid_run_fails_the_run_at_once_and_keeps_its_results() {
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let encaps = measurement(Algorithm::MlKem768, Operation::Encaps, 64_788);
    let mut stream = hello().into_bytes();
    stream.extend_from_slice(record(kind::BEGIN, &[("operations", "3")]).as_bytes());
    stream.extend_from_slice(result_line(&keygen).as_bytes());
    stream.extend_from_slice(result_line(&encaps).as_bytes());
    stream.extend_from_slice(BANNER.as_bytes()); // reset: it boots again, and waits for a command

    let (store, run_id, outcome, _dir) = collect_until_restart(stream).await;
    assert_eq!((outcome.status, outcome.results, outcome.rejected), (RunStatus::Failed, 2, 0));
    let run = store.run(run_id).await.unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.as_deref(), Some("the board restarted mid-run; 2 results kept"));
    let expected: Vec<BenchResult> =
        [keygen, encaps].iter().map(|m| BenchResult::from_measurement(m, &CLOCK)).collect();
    assert_eq!(store.results(run_id).await.unwrap(), expected, "what arrived before the reset is kept");
}

/// A reset while the board writes a record: the record is cut, and the
/// banner follows on the same line. The cut record is refused, and the
/// banner in it still ends the run.
#[tokio::test]
async fn a_reset_in_the_middle_of_a_record_is_recognised_by_the_banner_after_it() {
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let encaps = result_line(&measurement(Algorithm::MlKem768, Operation::Encaps, 64_788));
    let mut stream = hello().into_bytes();
    stream.extend_from_slice(record(kind::BEGIN, &[("operations", "3")]).as_bytes());
    stream.extend_from_slice(result_line(&keygen).as_bytes());
    stream.extend_from_slice(&encaps.as_bytes()[..encaps.len() / 2]);
    stream.extend_from_slice(BANNER.as_bytes());

    let (store, run_id, outcome, _dir) = collect_until_restart(stream).await;
    assert_eq!((outcome.status, outcome.results, outcome.rejected), (RunStatus::Failed, 1, 1));
    let run = store.run(run_id).await.unwrap().unwrap();
    assert_eq!(run.error.as_deref(), Some("the board restarted mid-run; 1 result kept, 1 record refused"));
    assert_eq!(run.rejected_records, 1);
    assert_eq!(store.results(run_id).await.unwrap(), [BenchResult::from_measurement(&keygen, &CLOCK)]);
}

/// A board that restarted and answered a `hello` (its banner lost, say):
/// a `hello` once the run's records began is a restart too.
#[tokio::test]
async fn a_second_hello_after_the_run_began_is_a_restart() {
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let mut stream = hello().into_bytes();
    stream.extend_from_slice(record(kind::BEGIN, &[("operations", "3")]).as_bytes());
    stream.extend_from_slice(result_line(&keygen).as_bytes());
    stream.extend_from_slice(hello().as_bytes());

    let (store, run_id, outcome, _dir) = collect_until_restart(stream).await;
    assert_eq!((outcome.status, outcome.results), (RunStatus::Failed, 1));
    assert_eq!(outcome.error.as_deref(), Some("the board restarted mid-run; 1 result kept"));
    assert_eq!(store.results(run_id).await.unwrap().len(), 1);
}

/// What is no restart: `hello` answers left over from the handshake before
/// the run's own `hello`, and a banner before any `hello` on a link (a
/// probe's board boots after the host attaches).
#[tokio::test]
async fn extra_hellos_before_the_run_and_a_banner_before_the_first_hello_are_no_restart() {
    let (_dir, store, run_id) = store_with_run().await;
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let mut run = hello().into_bytes(); // the run's own hello
    run.extend_from_slice(record(kind::BEGIN, &[("operations", "1")]).as_bytes());
    run.extend_from_slice(result_line(&keygen).as_bytes());
    run.extend_from_slice(record(kind::END, &[("results", "1")]).as_bytes());

    // Over a port: two hellos answered late, after the handshake ended.
    let mut stream = hello().repeat(2).into_bytes();
    stream.extend_from_slice(&run);
    let outcome = collect_all(&store, run_id, stream).await;
    assert_eq!((outcome.status, outcome.error, outcome.results), (RunStatus::Complete, None, 1));

    // Over a link, from the board's boot.
    let run_id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let mut stream = BANNER.as_bytes().to_vec();
    stream.extend_from_slice(&run);
    let outcome = Collector::to(StoreRecorder::for_run(&store, run_id))
        .collect_link(&mut Chunks(vec![stream].into_iter()), &mut Decoder::new(), |_| {})
        .await
        .unwrap();
    assert_eq!((outcome.status, outcome.error, outcome.results), (RunStatus::Complete, None, 1));
}

/// Bytes handed over as they are, then the link ends.
struct Chunks(std::vec::IntoIter<Vec<u8>>);

impl pqbench_collect::collector::Link for Chunks {
    type Error = String;
    async fn receive(&mut self) -> Result<Vec<u8>, String> {
        self.0.next().ok_or_else(|| "the recording ended".into())
    }
}

/// A board whose line carries only noise after `hello` (a wrong baud rate,
/// a loose wire) sends bytes all the time, but nothing readable: the run
/// fails after the silence allowed, as a silent board's does.
#[tokio::test]
async fn a_board_sending_only_noise_fails_the_run_after_the_silence_allowed() {
    let (_dir, store, run_id) = store_with_run().await;
    let (mut host, far) = SerialStream::pair().unwrap();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let board = tokio::spawn(async move {
        let mut port = BufReader::new(far);
        let mut line = String::new();
        port.read_line(&mut line).await.unwrap();
        assert_eq!(line, "hello\n");
        port.get_mut().write_all(hello().as_bytes()).await.unwrap();
        line.clear();
        port.read_line(&mut line).await.unwrap();
        assert!(line.starts_with("run "), "{line:?}");
        // Noise, lines of it and not, every 50 ms until the host gives up.
        let mut noise: u32 = 0x1234_5678;
        loop {
            let burst: Vec<u8> = (0..40)
                .map(|_| {
                    noise ^= noise << 13;
                    noise ^= noise >> 17;
                    noise ^= noise << 5;
                    (noise & 0xff) as u8
                })
                .filter(|&b| b != b'@') // never a record's marker
                .collect();
            port.get_mut().write_all(&burst).await.unwrap();
            tokio::select! {
                _ = &mut stopped => return port.into_inner(),
                () = tokio::time::sleep(Duration::from_millis(50)) => {}
            }
        }
    });
    let mut collector = Collector::to(StoreRecorder::for_run(&store, run_id));
    collector.silence = Duration::from_secs(1);
    let started = std::time::Instant::now();
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        collector.collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {}),
    )
    .await
    .expect("noise does not hold the run open")
    .unwrap();
    let waited = started.elapsed();
    stop.send(()).unwrap();
    let _port = board.await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing readable for 1 s, only noise"));
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert!(store.results(run_id).await.unwrap().is_empty());
}

/// An emulator has no cycle counter: a hello from an emulated board that
/// claims one fails the run before any figure is stored as cycles.
#[tokio::test]
async fn an_emulated_board_that_claims_cycles_is_refused() {
    let (_dir, store, run_id) = store_with_run().await;
    let cycles_hello = record(
        kind::HELLO,
        &[("board", "qemu-mps2-an386"), ("ticks_per_second", "25000000"), ("tick_unit", "cycles")],
    );
    let keygen = measurement(Algorithm::MlKem768, Operation::Keygen, 70_546);
    let mut stream = cycles_hello.into_bytes();
    stream.extend_from_slice(result_line(&keygen).as_bytes());
    let (mut host, far) = SerialStream::pair().unwrap();
    let board = board(far, stream);
    let mut collector = Collector::to(StoreRecorder::for_run(&store, run_id));
    collector.emulated = true;
    let outcome =
        collector.collect(&mut host, RunCommand::new(3, 0), &mut Decoder::new(), |_| {}).await.unwrap();
    board.await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(outcome.error.as_deref().unwrap_or_default().contains("never cycles"), "{outcome:?}");
    assert!(store.results(run_id).await.unwrap().is_empty());
}
