//! Serial faults injected into runs on the real emulated board: QEMU killed
//! mid-run, a proxy between the collector and QEMU that damages, drops or
//! drowns the board's bytes, the board reset through QEMU's monitor, and
//! the server itself killed. Each run ends `failed` or `incomplete` with
//! its reason, keeps what arrived intact, and leaves the board free for a
//! next run that completes.
//!
//! Needs the firmware images: `cargo xtask test` builds them and sets PQBENCH_DIST.

use std::time::{Duration, Instant};

use pqbench::record::StoreRecorder;
use pqbench_api::{Board, NewRun};
use pqbench_collect::boards::{Boards, Emulator, ProbeWiring};
use pqbench_collect::collector::{Collector, Outcome};
use pqbench_collect::runner;
use pqbench_store::Store;
use pqbench_types::{Algorithm, BenchResult, Run, RunStatus, Status};
use pqbench_wire::{Decoder, MARKER, RunCommand, kind};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_serial::SerialStream;

use crate::common;

use common::Server;

const BOARD: &str = "qemu-mps2-an386";

/// A run long enough to be caught in the middle: nine operations of at
/// least half a second of board time each, about five seconds in all.
fn long_request() -> Value {
    json!({"board": BOARD, "algorithms": ["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"],
        "min_iterations": 1, "min_time_ms": 500})
}

/// A short run, to show the board usable again.
fn short_request() -> Value {
    json!({"board": BOARD, "algorithms": ["ML-KEM-512"], "min_iterations": 1, "min_time_ms": 0})
}

/// The process id of each QEMU the server runs now.
fn emulators_of(server: &Server) -> Vec<u32> {
    common::children_of(server.pid())
        .iter()
        .filter(|child| child.contains("(qemu-system-arm)"))
        .map(|child| child.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

/// Whether a process has ended: no longer in /proc, or a zombie whose
/// parent has not read its exit status yet.
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with(['Z', 'X'])),
    }
}

fn sigkill(pid: u32) {
    // SAFETY: kill(2) only sends a signal.
    let sent = unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    assert_eq!(sent, 0, "kill -9 {pid}: {}", std::io::Error::last_os_error());
}

/// Starts `request` on the server and waits until it has stored a result
/// (while still running); returns its id and that QEMU's process id.
async fn started_with_a_result(server: &Server, request: &Value) -> (i64, u32) {
    let (status, body) = server.post("/api/runs", request).await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_i64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let results: Vec<BenchResult> = server.get(&format!("/api/runs/{id}/results")).await;
        if !results.is_empty() {
            break;
        }
        let run: Run = server.get(&format!("/api/runs/{id}")).await;
        assert!(!run.status.is_finished(), "run {id} ended before its first result: {run:?}");
        assert!(Instant::now() < deadline, "run {id} stored no result in 60 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let qemu = emulators_of(server);
    assert_eq!(qemu.len(), 1, "one QEMU for the run: {:?}", common::children_of(server.pid()));
    (id, qemu[0])
}

async fn wait_for_end(server: &Server, id: i64, within: Duration) -> (Run, Vec<BenchResult>) {
    let deadline = Instant::now() + within;
    loop {
        let run: Run = server.get(&format!("/api/runs/{id}")).await;
        if run.status.is_finished() {
            return (run, server.get(&format!("/api/runs/{id}/results")).await);
        }
        assert!(Instant::now() < deadline, "run {id} still {:?} after {within:?}", run.status);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Each result a measured one: figures, not a gap.
fn assert_measured(results: &[BenchResult]) {
    for r in results {
        assert_eq!(r.status, Status::Ok, "{r:?}");
        assert!(r.iterations.is_some_and(|n| n >= 1), "{r:?}");
        assert!(r.ticks_per_op.is_some_and(|t| t > 1000.0), "{r:?}");
        assert!(r.ops_per_sec.is_some() && r.stack_bytes.is_some(), "{r:?}");
    }
}

fn kept(results: usize) -> String {
    format!("; {results} result{} kept", if results == 1 { "" } else { "s" })
}

#[tokio::test]
async fn qemu_killed_mid_run_fails_the_run_keeps_its_results_and_frees_the_board() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let (id, qemu) = started_with_a_result(&server, &long_request()).await;
    sigkill(qemu);

    let (run, results) = wait_for_end(&server, id, Duration::from_secs(30)).await;
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    let error = run.error.unwrap();
    assert!(error.starts_with("the serial port closed: the board is gone"), "{error}");
    assert!(!results.is_empty() && results.len() < 9, "{results:?}");
    assert!(error.ends_with(&kept(results.len())), "{error}");
    assert_measured(&results);

    // The board is free, its QEMU reaped, and the next run completes.
    let boards: Vec<Board> = server.get("/api/boards").await;
    assert!(boards.iter().any(|b| b.id == BOARD && b.available), "{boards:?}");
    assert!(emulators_of(&server).is_empty(), "{:?}", common::children_of(server.pid()));
    let (next, next_results) = server.run_to_end(short_request()).await;
    assert_eq!(next.status, RunStatus::Complete, "{next:?}");
    assert_eq!(next_results.len(), 3);
}

/// A server killed outright (SIGKILL: no drop runs) takes its QEMU with it.
#[tokio::test]
async fn qemu_does_not_outlive_a_killed_server() {
    pqbench_test_needs::require!(common::firmware_dist());
    let mut server = common::start_server(&[]).await;
    let (_, qemu) = started_with_a_result(&server, &long_request()).await;
    server.kill_hard();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !ended(qemu) {
        if Instant::now() > deadline {
            sigkill(qemu); // not left behind by a failed test
            panic!("QEMU {qemu} still runs 5 s after its server was killed");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A fresh store in a temporary folder.
async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("faults.db")).await.unwrap();
    (dir, store)
}

async fn new_run(store: &Store) -> i64 {
    store.create_run(&pqbench_store::NewRun::on_board(BOARD, None)).await.unwrap()
}

/// Its callers require the image first.
async fn emulator() -> Emulator {
    let image = common::dist().join("firmware/mps2-an386.elf");
    Emulator::start(common::mps2(), &image).await.unwrap()
}

/// What the proxy turns each line the board sends (with its `\n`) into.
type Tamper = Box<dyn FnMut(Vec<u8>) -> Vec<u8> + Send>;

/// A pseudo-terminal pair between the collector and QEMU's console:
/// what the host writes reaches the board unchanged, and each line the
/// board writes reaches the host as `tamper` makes it.
struct Proxy {
    stop: oneshot::Sender<()>,
    task: JoinHandle<SerialStream>,
}

impl Proxy {
    /// Returns the end the collector reads.
    fn start(mut board: SerialStream, mut tamper: Tamper) -> (SerialStream, Proxy) {
        let (host, mut far) = SerialStream::pair().expect("a pseudo-terminal pair");
        let (stop, mut stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            let (mut from_board, mut from_host) = ([0u8; 1024], [0u8; 256]);
            let mut line = Vec::new();
            let mut host_open = true;
            loop {
                tokio::select! {
                    _ = &mut stopped => return board,
                    read = board.read(&mut from_board) => {
                        let n = read.expect("reading QEMU's console");
                        assert!(n > 0, "QEMU closed its console");
                        for &byte in &from_board[..n] {
                            line.push(byte);
                            if byte == b'\n' {
                                let out = tamper(std::mem::take(&mut line));
                                if host_open && far.write_all(&out).await.is_err() {
                                    host_open = false;
                                }
                            }
                        }
                    }
                    read = far.read(&mut from_host), if host_open => match read {
                        Ok(n) if n > 0 => board.write_all(&from_host[..n]).await.expect("writing to QEMU"),
                        // The collector let go of its end.
                        _ => host_open = false,
                    },
                }
            }
        });
        (host, Proxy { stop, task })
    }

    /// Takes the proxy out; returns QEMU's console for the next run.
    async fn detach(self) -> SerialStream {
        self.stop.send(()).unwrap();
        self.task.await.unwrap()
    }
}

/// The same bytes every time: xorshift32 from a fixed seed.
struct Noise(u32);

impl Noise {
    /// Binary bytes, but never `@`: noise that spelled a record's marker
    /// would be one more refused record, and the counts here are exact.
    fn burst(&mut self, len: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(len);
        while bytes.len() < len {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            let byte = self.0.to_le_bytes()[0];
            if byte != b'@' {
                bytes.push(byte);
            }
        }
        bytes
    }
}

fn is_record(line: &[u8], record_kind: &str) -> bool {
    line.starts_with(format!("{MARKER} {record_kind} ").as_bytes())
}

/// Eight results from quick operations: hashes, X25519, ML-KEM-512.
fn eight_results() -> RunCommand {
    [Algorithm::MlKem512, Algorithm::X25519, Algorithm::Sha256, Algorithm::Sha512, Algorithm::Sha3_256]
        .into_iter()
        .try_fold(RunCommand::new(1, 0), RunCommand::with_algorithm)
        .unwrap()
}

async fn collect(store: &Store, id: i64, port: &mut SerialStream, silence: Duration) -> Outcome {
    collect_run(store, id, port, eight_results(), silence).await
}

async fn collect_run(
    store: &Store,
    id: i64,
    port: &mut SerialStream,
    command: RunCommand,
    silence: Duration,
) -> Outcome {
    let mut collector = Collector::to(StoreRecorder::for_run(store, id));
    collector.silence = silence;
    let mut decoder = Decoder::new();
    let collecting = collector.collect(port, command, &mut decoder, |_| {});
    tokio::time::timeout(Duration::from_secs(60), collecting).await.expect("the run ends").unwrap()
}

#[tokio::test]
async fn bytes_damaged_between_qemu_and_the_host_are_refused_and_the_rest_stored_unchanged() {
    pqbench_test_needs::require!(common::firmware_dist());
    let (_dir, store) = store().await;
    let silence = Duration::from_secs(30);

    // A clean run, to compare with: -icount makes QEMU count the same ticks.
    let clean_id = new_run(&store).await;
    let clean_qemu = emulator().await;
    let mut port = clean_qemu.open_console().unwrap();
    let clean = collect(&store, clean_id, &mut port, silence).await;
    drop(port);
    clean_qemu.stop().await;
    assert_eq!((clean.status, clean.results), (RunStatus::Complete, 8), "{clean:?}");
    let originals = store.results(clean_id).await.unwrap();

    // The same run through the proxy: one byte flipped in the 2nd result,
    // the 4th cut in half with its line end, and noise after every line.
    let qemu = emulator().await;
    let mut noise = Noise(0x9e37_79b9);
    let mut results = 0;
    let tamper: Tamper = Box::new(move |mut line| {
        if is_record(&line, kind::RESULT) {
            results += 1;
            match results {
                2 => {
                    let middle = line.len() / 2;
                    line[middle] ^= 0x01; // printable stays printable: one record damaged, not split
                }
                4 => line.truncate(line.len() / 2),
                _ => {}
            }
        }
        line.extend_from_slice(b"\0\xff\xfe");
        line.extend(noise.burst(48));
        line
    });
    let (mut host, proxy) = Proxy::start(qemu.open_console().unwrap(), tamper);
    let damaged_id = new_run(&store).await;
    let damaged = collect(&store, damaged_id, &mut host, silence).await;
    drop(host);

    assert_eq!((damaged.status, damaged.results, damaged.rejected), (RunStatus::Incomplete, 6, 2));
    let run = store.run(damaged_id).await.unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Incomplete);
    assert_eq!(run.rejected_records, 2);
    assert_eq!(
        run.error.as_deref(),
        Some("the board reported 8 results, 6 arrived intact (2 records refused)")
    );
    let expected: Vec<BenchResult> =
        originals.iter().enumerate().filter(|&(i, _)| i != 1 && i != 3).map(|(_, r)| r.clone()).collect();
    assert_eq!(store.results(damaged_id).await.unwrap(), expected, "the intact results, unchanged");

    // The same board and port, without the proxy: the next run completes.
    let mut port = proxy.detach().await;
    let next_id = new_run(&store).await;
    let next = collect(&store, next_id, &mut port, silence).await;
    drop(port);
    qemu.stop().await;
    assert_eq!((next.status, next.results, next.rejected), (RunStatus::Complete, 8, 0), "{next:?}");
    assert_measured(&store.results(next_id).await.unwrap());
}

/// Lets the board's lines through up to its first `hello`, then `after`
/// makes each of the rest.
fn after_hello(mut after: impl FnMut(Vec<u8>) -> Vec<u8> + Send + 'static) -> Tamper {
    let mut answered = false;
    Box::new(move |line| {
        if answered {
            return after(line);
        }
        answered = is_record(&line, kind::HELLO);
        line
    })
}

/// Runs through a proxy doing `tamper`, allowing 2 s of silence; returns
/// the outcome, how long the run took, and what it stored.
///
/// The board's run lasts over nine seconds (nine operations of a second of
/// board time each), sending a line or two each second: the collector must
/// give up two seconds after the last record it could read, not wait for
/// the board to stop sending bytes.
async fn run_through(tamper: Tamper) -> (Outcome, Duration, Vec<BenchResult>) {
    let (_dir, store) = store().await;
    let qemu = emulator().await;
    let (mut host, proxy) = Proxy::start(qemu.open_console().unwrap(), tamper);
    let id = new_run(&store).await;
    let command = [Algorithm::MlKem512, Algorithm::MlKem768, Algorithm::MlKem1024]
        .into_iter()
        .try_fold(RunCommand::new(1, 1000), RunCommand::with_algorithm)
        .unwrap();
    let started = Instant::now();
    let outcome = collect_run(&store, id, &mut host, command, Duration::from_secs(2)).await;
    let took = started.elapsed();
    drop(host);
    drop(proxy.detach().await);
    qemu.stop().await;
    (outcome, took, store.results(id).await.unwrap())
}

/// Two seconds allowed, after a handshake of a moment: well before the
/// board's nine seconds end.
fn assert_gave_up_after_the_silence(took: Duration) {
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(6), "{took:?}");
}

#[tokio::test]
async fn a_board_gone_silent_after_hello_fails_the_run_after_the_silence_allowed() {
    pqbench_test_needs::require!(common::firmware_dist());
    let (outcome, took, results) = run_through(after_hello(|_| Vec::new())).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing for 2 s"));
    assert!(results.is_empty());
    assert_gave_up_after_the_silence(took);
}

#[tokio::test]
async fn a_board_drowned_in_noise_after_hello_fails_the_run_after_the_silence_allowed() {
    pqbench_test_needs::require!(common::firmware_dist());
    let mut noise = Noise(0x0bad_5eed);
    // Each line replaced by noise of its length: bytes keep coming, none readable.
    let (outcome, took, results) = run_through(after_hello(move |line| noise.burst(line.len()))).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board sent nothing readable for 2 s, only noise"));
    assert!(results.is_empty());
    assert_gave_up_after_the_silence(took);
}

/// Sends a command to QEMU's human monitor.
async fn monitor(socket: &std::path::Path, command: &str) {
    let mut monitor = tokio::net::UnixStream::connect(socket).await.expect("QEMU's monitor");
    // Its greeting, then the command; the answer is the board's reset itself.
    let mut greeting = [0u8; 256];
    let _ = tokio::time::timeout(Duration::from_secs(5), monitor.read(&mut greeting)).await;
    monitor.write_all(format!("{command}\n").as_bytes()).await.unwrap();
    monitor.flush().await.unwrap();
    // Until QEMU echoes a prompt: the command was read before we hang up.
    let mut answer = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&answer).contains(command) {
        match tokio::time::timeout(Duration::from_secs(5), monitor.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
}

/// The board reset mid-run (as a watchdog or the reset button would) on
/// the path a server's run takes: the run ends at once with the reason,
/// keeps what it stored, frees the board, and the next run completes.
#[tokio::test]
async fn a_board_reset_mid_run_ends_the_run_at_once_and_the_next_run_completes() {
    let dist = pqbench_test_needs::require!(common::firmware_dist());
    let (dir, store) = store().await;
    let boards = Boards::new(dist.join("firmware"), ProbeWiring::default())
        .with_qemu_monitors(dir.path().to_path_buf());
    let request: NewRun = serde_json::from_value(long_request()).unwrap();
    let prepared =
        runner::prepare(&boards, &request, |run| StoreRecorder::open(&store, run, None)).await.unwrap();
    let id = prepared.id;
    let running = tokio::spawn(prepared.execute(|_| {}));

    let deadline = Instant::now() + Duration::from_secs(60);
    while store.results(id).await.unwrap().is_empty() {
        assert!(!running.is_finished(), "the run ended before its first result");
        assert!(Instant::now() < deadline, "no result in 60 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    monitor(&dir.path().join(format!("{BOARD}.monitor")), "system_reset").await;
    let reset = Instant::now();
    // The run's silence allowed is 30 s: well within it, or it was not recognised.
    let outcome = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the restart ends the run at once")
        .unwrap()
        .unwrap();
    let took = reset.elapsed();

    let results = store.results(id).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert!(!results.is_empty() && results.len() < 9, "{results:?}");
    assert_eq!(outcome.error, Some(format!("the board restarted mid-run{}", kept(results.len()))));
    assert_measured(&results);
    let run = store.run(id).await.unwrap().unwrap();
    assert_eq!((run.status, run.error), (RunStatus::Failed, outcome.error));
    assert!(took < Duration::from_secs(5), "{took:?}");

    // The board is free again, and the next run on it completes.
    drop(boards.reserve(BOARD, "opt-s").expect("the board is free"));
    let request: NewRun = serde_json::from_value(short_request()).unwrap();
    let next =
        runner::prepare(&boards, &request, |run| StoreRecorder::open(&store, run, None)).await.unwrap();
    let next_id = next.id;
    let outcome = next.execute(|_| {}).await.unwrap();
    assert_eq!((outcome.status, outcome.results), (RunStatus::Complete, 3), "{outcome:?}");
    assert_measured(&store.results(next_id).await.unwrap());
}
