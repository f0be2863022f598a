//! `pqbench_collect::probe::execute`, the very sequence a probe run makes
//! after flashing, driven through QEMU's gdbstub ([`GdbRemote`]) on a
//! running board: a whole run; a run whose probe fails now and then (a
//! fault-injecting wrapper of the target), recovered and noted; one whose
//! probe fails for good, halted and located; and a board that hangs in its
//! clock set-up, found out within seconds and said where it waits.
//!
//! Needs `test/mps2-an386-defmt-rtt.elf` and
//! `test/nucleo-f446ze-defmt-rtt-clock-hang.elf`: `cargo xtask test`
//! builds them.
#![cfg(feature = "probe-rs")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use pqbench::record::StoreRecorder;
use pqbench_collect::collector::{Collector, Outcome};
use pqbench_collect::frames::DefmtDecoder;
use pqbench_collect::image::FirmwareImage;
use pqbench_collect::probe::{self, DebugTarget, MAX_ERRORS_IN_A_ROW, ProbeError, SessionStats, TargetError};
use pqbench_collect::runner::probe_notes;
use pqbench_store::{NewRun, Store};
use pqbench_types::{RunStatus, Status};
use tokio::sync::mpsc;

use crate::gdb_remote::{GdbRemote, HeldQemu};

const MPS2: &[&str] = &["-machine", "mps2-an386", "-cpu", "cortex-m4"];
const RUN: &str = "run min_iterations=1 min_time_ms=0 algorithms=SHA-256,ML-KEM-512,AES-128-GCM";

fn image(file: &str) -> Result<Arc<FirmwareImage>, pqbench_test_needs::Missing> {
    pqbench_test_needs::test_image(file).map(|path| Arc::new(FirmwareImage::load(&path).unwrap()))
}

/// A board held at reset on QEMU, reached through its gdbstub.
fn held(machine: &[&str], image: &FirmwareImage) -> (HeldQemu, GdbRemote) {
    let qemu = HeldQemu::start(machine, &image.path);
    let gdb = GdbRemote::connect(qemu.port);
    (qemu, gdb)
}

/// Runs `RUN` through `target` as a probe run does, into a fresh store:
/// the outcome, the store and the run's id, the session's counts noted.
async fn collect_run(
    target: impl DebugTarget + Send + 'static,
    image: Arc<FirmwareImage>,
) -> (Outcome, Store, i64, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("probe.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let recorder = StoreRecorder::for_run(&store, id);
    let mut session = probe::spawn_execute("gdbstub".into(), target, image.clone(), RUN.into());
    let mut collector = Collector::to(recorder.clone());
    collector.silence = Duration::from_secs(30);
    collector.image = Some((&*image).into());
    let mut decoder = DefmtDecoder::new(&image).unwrap();
    let outcome = collector.collect_link(&mut session.link, &mut decoder, |_| {}).await.unwrap();
    session.stop.store(true, Ordering::Relaxed);
    drop(session.link);
    session.thread.await.unwrap();
    probe_notes(&*recorder, &session.stats).await.unwrap();
    (outcome, store, id, dir)
}

fn assert_whole(outcome: &Outcome, results: &[pqbench_types::BenchResult]) {
    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    assert_eq!(outcome.rejected, 0, "{outcome:?}");
    assert_eq!(results.len(), 6, "SHA-256, ML-KEM-512's three operations, AES-128-GCM's two: {results:?}");
    assert!(results.iter().all(|r| r.status == Status::Ok), "{results:?}");
}

#[tokio::test]
async fn the_probe_sequence_itself_runs_a_board_through_the_gdbstub_while_it_runs() {
    let image = pqbench_test_needs::require!(image("mps2-an386-defmt-rtt.elf"));
    let (_qemu, gdb) = held(MPS2, &image);
    let (outcome, store, id, _dir) = collect_run(gdb, image.clone()).await;
    assert_whole(&outcome, &store.results(id).await.unwrap());
    let run = store.run(id).await.unwrap().unwrap();
    assert_eq!(run.build.build_id, image.build_id);
    assert_eq!(run.notes, None, "a probe that never failed leaves no note");
}

/// What the wrapper does to a memory request.
#[derive(Clone, Copy)]
enum Fault {
    /// Every `n`th fails, half of them before and half after the request
    /// was carried out (a write that landed though the probe said not).
    EveryNth(u32),
    /// All fail from the `n`th on: a probe pulled out. Halting and the
    /// program counter still work, as on a probe whose memory port wedged.
    AllFrom(u32),
}

/// A target that fails memory requests as `fault` says, counting them.
struct Faulty<T> {
    inner: T,
    fault: Fault,
    requests: u32,
    injected: Arc<AtomicU32>,
}

impl<T: DebugTarget> Faulty<T> {
    fn new(inner: T, fault: Fault) -> (Self, Arc<AtomicU32>) {
        let injected = Arc::new(AtomicU32::new(0));
        (Faulty { inner, fault, requests: 0, injected: injected.clone() }, injected)
    }

    /// Whether this request fails, and whether it is carried out first.
    fn fails(&mut self) -> Option<bool> {
        self.requests += 1;
        let fails = match self.fault {
            Fault::EveryNth(n) => self.requests.is_multiple_of(n),
            Fault::AllFrom(n) => self.requests >= n,
        };
        fails.then(|| {
            let injected = self.injected.fetch_add(1, Ordering::Relaxed) + 1;
            injected.is_multiple_of(2)
        })
    }
}

const INJECTED: &str = "injected: the probe's USB transfer timed out";

impl<T: DebugTarget> DebugTarget for Faulty<T> {
    fn read(&mut self, address: u64, bytes: &mut [u8]) -> Result<(), TargetError> {
        match self.fails() {
            None => self.inner.read(address, bytes),
            Some(carried_out) => {
                if carried_out {
                    self.inner.read(address, bytes)?;
                }
                Err(TargetError(INJECTED.into()))
            }
        }
    }
    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), TargetError> {
        match self.fails() {
            None => self.inner.write(address, bytes),
            Some(carried_out) => {
                if carried_out {
                    self.inner.write(address, bytes)?;
                }
                Err(TargetError(INJECTED.into()))
            }
        }
    }
    fn run(&mut self) -> Result<(), TargetError> {
        self.inner.run()
    }
    fn halt(&mut self) -> Result<(), TargetError> {
        self.inner.halt()
    }
    fn pc(&mut self) -> Result<u64, TargetError> {
        self.inner.pc()
    }
}

#[tokio::test]
async fn transient_probe_errors_are_retried_and_the_run_is_whole_and_says_how_many() {
    let image = pqbench_test_needs::require!(image("mps2-an386-defmt-rtt.elf"));
    let (_qemu, gdb) = held(MPS2, &image);
    let (faulty, injected) = Faulty::new(gdb, Fault::EveryNth(4));
    let (outcome, store, id, _dir) = collect_run(faulty, image).await;

    assert_whole(&outcome, &store.results(id).await.unwrap());
    let injected = injected.load(Ordering::Relaxed);
    assert!(injected >= 10, "a run makes about a hundred requests: only {injected} failed");
    let notes = store.run(id).await.unwrap().unwrap().notes.expect("the run's notes");
    eprintln!("{notes}");
    assert_eq!(
        notes,
        format!(
            "the probe failed {injected} requests on the way and each succeeded when tried again \
             (at most {MAX_ERRORS_IN_A_ROW} in a row are tried)"
        )
    );
}

/// Runs `execute` on its own thread, the board's bytes thrown away, for
/// how it ends.
async fn execute(
    target: impl DebugTarget + Send + 'static,
    image: Arc<FirmwareImage>,
) -> Result<(), ProbeError> {
    let (sender, mut receiver) = mpsc::channel(64);
    let draining = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let ended = tokio::task::spawn_blocking(move || {
        probe::execute(target, &image, RUN, &sender, &AtomicBool::new(false), &SessionStats::default())
    })
    .await
    .unwrap();
    draining.await.unwrap();
    ended
}

#[tokio::test]
async fn a_probe_that_keeps_failing_ends_the_run_with_the_core_halted_and_located() {
    let image = pqbench_test_needs::require!(image("mps2-an386-defmt-rtt.elf"));
    let (_qemu, gdb) = held(MPS2, &image);
    // Past the set-up's few dozen requests: the board is measuring.
    let (faulty, _) = Faulty::new(gdb, Fault::AllFrom(400));
    let started = Instant::now();
    let ended = execute(faulty, image).await;
    match &ended {
        Err(ProbeError::GaveUp { errors, last, at: Some(at) }) => {
            assert_eq!(*errors, MAX_ERRORS_IN_A_ROW);
            assert_eq!(last, INJECTED);
            assert!(at.function.is_some(), "a running board is in one of its functions: {at:?}");
        }
        other => panic!("expected the run given up with the core located, got {other:?}"),
    }
    let said = ended.unwrap_err().to_string();
    eprintln!("{said}");
    assert!(said.starts_with(&format!("the probe failed {MAX_ERRORS_IN_A_ROW} requests in a row")), "{said}");
    assert!(said.contains("; the core is halted in ") && said.contains("(pc 0x"), "{said}");
    // The retries' waits, 10 + 20 + 40 + 80 ms, and not much more.
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}

/// QEMU's STM32F405 does not model the RCC: no ready bit ever sets, so an
/// F446 image whose clock waits never give up hangs for good in its first,
/// for the HSE.
#[tokio::test]
async fn a_board_that_hangs_in_its_clock_set_up_is_halted_and_said_where_it_waits() {
    let image = pqbench_test_needs::require!(image("nucleo-f446ze-defmt-rtt-clock-hang.elf"));
    let (_qemu, gdb) = held(&["-machine", "netduinoplus2"], &image);
    let started = Instant::now();
    let ended = execute(gdb, image).await;
    let took = started.elapsed();
    match &ended {
        Err(ProbeError::Stuck { waited_ms, at: Some(at) }) => {
            assert!(*waited_ms >= probe::ANSWER_WAIT.as_millis(), "{waited_ms}");
            assert_eq!(at.waiting_for.as_deref(), Some("HSERDY"), "{at:?}");
            assert!(
                at.function.as_deref().is_some_and(|f| f.ends_with("::init_clocks")),
                "the board is found in its clock set-up: {at:?}"
            );
        }
        other => panic!("expected the board found stuck, got {other:?}"),
    }
    let said = ended.unwrap_err().to_string();
    eprintln!("{said} (after {took:?})");
    assert!(
        said.starts_with("the board did not take the run command within ")
            && said.contains("; the core is halted waiting for HSERDY, ")
            && said.contains("(pc 0x"),
        "{said}"
    );
    assert!(took < probe::ANSWER_WAIT + Duration::from_secs(8), "found out in {took:?}, not in seconds");
}
