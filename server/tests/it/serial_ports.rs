//! Boards on serial ports, as a person plugs them in: pseudo-terminals with
//! QEMU behind them stand in for ST-LINK virtual COM ports, and a folder of
//! links named as udev names them stands in for `/dev/serial/by-id/`.
//! Making a link is plugging a board in; removing it is unplugging it.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pqbench_api::Board;
use pqbench_collect::boards::Emulator;
use pqbench_collect::image::FirmwareImage;
use pqbench_types::RunStatus;
use serde_json::json;

use crate::common::{self, Server, ServerOptions};

/// As udev names a NUCLEO's ST-LINK/V2-1 virtual COM port, with a serial
/// number of the test's.
fn stlink_link(serial: &str) -> String {
    format!("usb-STMicroelectronics_STM32_STLink_{serial}-if02")
}

/// A folder of udev-style links, and a server that watches it (and only it).
async fn server_watching(by_id: &Path, more: &[&str]) -> Server {
    let by_id = by_id.display().to_string();
    let mut extra = vec!["--serial-by-id", by_id.as_str(), "--no-system-ports"];
    extra.extend_from_slice(more);
    common::start_server_with(ServerOptions { extra: &extra, ..ServerOptions::default() }).await
}

async fn boards(server: &Server) -> Vec<Board> {
    server.get("/api/boards").await
}

/// Waits up to `within` for `check` to hold of the board list; how long it took.
async fn until(server: &Server, within: Duration, what: &str, check: impl Fn(&[Board]) -> bool) -> Duration {
    let started = Instant::now();
    loop {
        let listed = boards(server).await;
        if check(&listed) {
            return started.elapsed();
        }
        assert!(started.elapsed() < within, "{what} within {within:?}; the boards: {listed:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn find<'b>(listed: &'b [Board], id: &str) -> Option<&'b Board> {
    listed.iter().find(|b| b.id == id)
}

/// Its callers require the image first.
async fn mps2_on_a_pty() -> Emulator {
    let image = common::dist().join("firmware/mps2-an386.elf");
    Emulator::start(common::mps2(), &image).await.unwrap()
}

#[tokio::test]
async fn two_boards_on_two_ports_run_at_once_and_an_unplugged_one_fails_keeping_its_results() {
    pqbench_test_needs::require!(common::firmware_dist());
    let dir = tempfile::tempdir().unwrap();
    let by_id = dir.path().join("by-id");
    std::fs::create_dir(&by_id).unwrap();
    let server = server_watching(&by_id, &[]).await;
    let (a, b) = (mps2_on_a_pty().await, mps2_on_a_pty().await);
    let link_a = by_id.join(stlink_link("PQB0TEST0000000000000A01"));
    let link_b = by_id.join(stlink_link("PQB0TEST0000000000000B02"));
    std::os::unix::fs::symlink(&a.console, &link_a).unwrap();
    std::os::unix::fs::symlink(&b.console, &link_b).unwrap();
    let (id_a, id_b) = ("serial:PQB0TEST0000000000000A01", "serial:PQB0TEST0000000000000B02");

    until(&server, Duration::from_secs(15), "both boards plugged in and answering", |listed| {
        [id_a, id_b].iter().all(|id| find(listed, id).is_some_and(|b| b.available))
    })
    .await;
    let listed = boards(&server).await;
    let board_a = find(&listed, id_a).unwrap();
    assert_eq!(board_a.kind, pqbench_api::BoardKind::Serial);
    assert_eq!(board_a.port.as_deref(), Some(link_a.to_str().unwrap()), "the stable by-id path");
    assert!(board_a.name.contains("mps2-an386"), "named as its firmware says: {}", board_a.name);
    assert_eq!(board_a.note, None, "this host's own image: nothing to say");

    // Both at once, each under its own id, each with the build it measured.
    let request = |board: &str| json!({"board": board, "algorithms": ["ML-KEM-512"], "min_iterations": 2, "min_time_ms": 0});
    let (run_a, run_b) = (server.start_run(&request(id_a)).await, server.start_run(&request(id_b)).await);
    let image = FirmwareImage::load(
        &pqbench_test_needs::require!(common::firmware_dist()).join("firmware/mps2-an386.elf"),
    )
    .unwrap();
    for (id, board) in [(run_a, id_a), (run_b, id_b)] {
        let (run, results) = server.wait_for_end(id).await;
        assert_eq!(run.status, RunStatus::Complete, "{run:?}");
        assert_eq!(run.board, board);
        assert_eq!(run.source, pqbench_types::Source::Serial);
        assert_eq!(run.build.build_id, image.build_id, "the build the board said it runs");
        assert_eq!(results.len(), 3, "ML-KEM-512 keygen, encaps, decaps");
    }

    // Unplugged mid-run: that run fails, keeping what it stored; the other
    // board's run completes. The long run measures each operation for a
    // second of board time (a billion emulated instructions, seconds of
    // host time): with `min_time_ms=0` it was over in 1.3 s, before the
    // next scan of the ports could see its board gone.
    let long = json!({"board": id_a, "algorithms": ["ML-KEM-512", "ML-DSA-87", "RSA-2048"], "min_iterations": 3, "min_time_ms": 1000});
    let short = json!({"board": id_b, "algorithms": ["ML-KEM-768"], "min_iterations": 3, "min_time_ms": 0});
    let (run_a, run_b) = (server.start_run(&long).await, server.start_run(&short).await);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let results: Vec<serde_json::Value> = server.get(&format!("/api/runs/{run_a}/results")).await;
        if !results.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "run {run_a} stored nothing in 120 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    std::fs::remove_file(&link_a).unwrap();
    let gone = until(&server, Duration::from_secs(3), "the unplugged board gone", |listed| {
        find(listed, id_a).is_none()
    })
    .await;
    eprintln!("unplugged: gone from /api/boards after {gone:?}");
    let (run, results) = server.wait_for_end(run_a).await;
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    let error = run.error.unwrap_or_default();
    assert!(error.starts_with("unplugged"), "{error}");
    assert!(
        !results.is_empty() && error.contains(&format!("{} result", results.len())),
        "{error} / {}",
        results.len()
    );
    let (run, _) = server.wait_for_end(run_b).await;
    assert_eq!(run.status, RunStatus::Complete, "the other board is untouched: {run:?}");

    // Plugged back: listed again, and runs. A real board loses its USB
    // power when unplugged and boots afresh; QEMU would still be measuring
    // the old run, so the board comes back as a new emulator.
    a.stop().await;
    let a = mps2_on_a_pty().await;
    std::os::unix::fs::symlink(&a.console, &link_a).unwrap();
    until(&server, Duration::from_secs(10), "the board back", |listed| {
        find(listed, id_a).is_some_and(|b| b.available)
    })
    .await;
    let (run, _) = server.run_to_end(request(id_a)).await;
    assert_eq!(run.status, RunStatus::Complete, "{run:?}");
    a.stop().await;
    b.stop().await;
}

/// A pseudo-terminal with a test's device behind its master side.
struct FakeDevice {
    path: PathBuf,
    master: OwnedFd,
}

fn pty() -> FakeDevice {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors it opened; the name, termios and
    // window size are optional and null.
    let opened = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // openpty's descriptors are inherited by default: the server and QEMU
    // this test starts must not hold them.
    for fd in [master, slave] {
        // SAFETY: fcntl on descriptors this process owns.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    // SAFETY: both descriptors were just opened for this process alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let path = std::fs::read_link(format!("/proc/self/fd/{}", slave.as_raw_fd())).unwrap();
    // The slave side is opened by whoever asks; keeping it open here would
    // make this test the program holding it.
    drop(slave);
    FakeDevice { path, master }
}

/// Behind the master: what the device does with what the host sends.
fn behave(device: &FakeDevice, behaviour: &'static str) {
    let mut file = std::fs::File::from(device.master.try_clone().unwrap());
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let mut buf = [0u8; 256];
        let mut noise: u32 = 0x1234_5678;
        loop {
            match behaviour {
                // Every byte straight back, as a loopback plug would.
                "echo" => match file.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        let _ = file.write_all(&buf[..n]);
                    }
                    _ => std::thread::sleep(Duration::from_millis(20)),
                },
                // A stream of bytes that are no records, now and then a
                // `@pqb1` that never checks out.
                "noise" => {
                    for byte in &mut buf {
                        noise ^= noise << 13;
                        noise ^= noise >> 17;
                        noise ^= noise << 5;
                        *byte = noise as u8;
                    }
                    let _ = file.write_all(&buf);
                    let _ = file.write_all(b"\r\n@pqb1 hello board=x *00000000\r\n");
                    std::thread::sleep(Duration::from_millis(50));
                }
                _ => return,
            }
        }
    });
}

#[tokio::test]
async fn ports_where_no_firmware_answers_are_listed_with_why_and_refuse_runs() {
    let dir = tempfile::tempdir().unwrap();
    let by_id = dir.path().join("by-id");
    std::fs::create_dir(&by_id).unwrap();
    let (echo, noise, silent, held) = (pty(), pty(), pty(), pty());
    behave(&echo, "echo");
    behave(&noise, "noise");
    // Another program with the port open, as a terminal left running would.
    let holder: Child = Command::new("sleep")
        .arg("60")
        .stdin(std::fs::File::open(&held.path).unwrap())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let named: Vec<String> =
        [&echo, &noise, &silent, &held].iter().map(|d| d.path.display().to_string()).collect();
    let mut args = Vec::new();
    for path in &named {
        args.extend(["--serial", path.as_str()]);
    }
    let server = server_watching(&by_id, &args).await;
    let id = |device: &FakeDevice| format!("serial:{}", device.path.display());

    until(&server, Duration::from_secs(20), "every port asked", |listed| {
        [&echo, &noise, &silent, &held].iter().all(|d| {
            find(listed, &id(d)).and_then(|b| b.note.as_deref()).is_some_and(|n| !n.starts_with("asking"))
        })
    })
    .await;
    let listed = boards(&server).await;
    for device in [&echo, &noise, &silent] {
        let board = find(&listed, &id(device)).unwrap();
        let expected = format!("no pqbench firmware answered on {}", device.path.display());
        assert_eq!(board.note.as_deref(), Some(expected.as_str()), "{board:?}");
        assert!(!board.available);
        let (status, body) = server.post("/api/runs", &json!({"board": id(device)})).await;
        assert_eq!(status, 409, "{body}");
        assert!(body["error"].as_str().unwrap().contains(&expected), "{body}");
    }
    let busy = find(&listed, &id(&held)).unwrap();
    let note = busy.note.as_deref().unwrap_or_default();
    assert!(note.starts_with("busy: held by another program (sleep, pid"), "{note}");
    let (status, body) = server.post("/api/runs", &json!({"board": id(&held)})).await;
    assert_eq!(status, 409, "{body}");
    let mut holder = holder;
    let _ = holder.kill();
    let _ = holder.wait();
}

#[tokio::test]
async fn the_board_list_answers_while_ports_are_being_asked() {
    let dir = tempfile::tempdir().unwrap();
    let by_id = dir.path().join("by-id");
    std::fs::create_dir(&by_id).unwrap();
    // Eight silent ports: each is asked for four seconds, four at a time.
    let devices: Vec<FakeDevice> = (0..8).map(|_| pty()).collect();
    let named: Vec<String> = devices.iter().map(|d| d.path.display().to_string()).collect();
    let mut args = Vec::new();
    for path in &named {
        args.extend(["--serial", path.as_str()]);
    }
    let server = server_watching(&by_id, &args).await;
    let mut slowest = Duration::ZERO;
    let mut seen_asking = false;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(6) {
        let asked = Instant::now();
        let listed = boards(&server).await;
        slowest = slowest.max(asked.elapsed());
        seen_asking |= listed.iter().any(|b| b.note.as_deref().is_some_and(|n| n.starts_with("asking")));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen_asking, "the list was read while ports were being asked");
    // Asking a silent port takes four seconds: an answer that waited on one
    // would take that long. (The p99 under load is in BENCHMARKS.md.)
    assert!(slowest < Duration::from_secs(1), "the slowest /api/boards took {slowest:?}");
}

#[tokio::test]
async fn a_flash_is_confirmed_by_the_build_id_the_board_says_after_restarting() {
    use pqbench_collect::flash::confirm;
    let opt_s = pqbench_test_needs::require!(common::image_path("firmware/mps2-an386.elf"));
    let opt_3 = pqbench_test_needs::require!(common::image_path("firmware/mps2-an386-opt-3.elf"));
    let (opt_s, opt_3) = (FirmwareImage::load(&opt_s).unwrap(), FirmwareImage::load(&opt_3).unwrap());
    assert_ne!(opt_s.build_id, opt_3.build_id);
    let dir = tempfile::tempdir().unwrap();
    let port = dir.path().join(stlink_link("PQB0TEST0000000000000C03"));

    // The board still runs the old build: not confirmed, and the error says both.
    let old = Emulator::start(common::mps2(), &opt_s.path).await.unwrap();
    std::os::unix::fs::symlink(&old.console, &port).unwrap();
    let refused =
        confirm(&port, opt_3.build_id.as_deref(), Duration::from_secs(8)).await.unwrap_err().to_string();
    assert!(refused.contains(opt_s.build_id.as_deref().unwrap()), "{refused}");
    assert!(refused.contains(opt_3.build_id.as_deref().unwrap()), "{refused}");
    old.stop().await;

    // Restarted with the new image (as after a flash and a reset): confirmed.
    let new = Emulator::start(common::mps2(), &opt_3.path).await.unwrap();
    std::fs::remove_file(&port).unwrap();
    std::os::unix::fs::symlink(&new.console, &port).unwrap();
    let hello = confirm(&port, opt_3.build_id.as_deref(), Duration::from_secs(10)).await.unwrap();
    assert_eq!(hello.get("build_id"), opt_3.build_id.as_deref());
    assert_eq!(hello.get("opt"), Some("3"));
    new.stop().await;
}
