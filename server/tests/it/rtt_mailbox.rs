//! The probe path without a probe: the firmware's `defmt-rtt` build runs on
//! QEMU's mps2-an386, and QEMU's gdbstub stands in for the debug probe. The
//! test does what `pqbench_collect::probe::execute` does with probe-rs (find the RTT
//! control block, set the up channel to block when full, write the command
//! into `PQBENCH_MAILBOX` bytes first and length last, drain the up channel)
//! and feeds the bytes to the same collector and defmt decoder as a probe
//! run. What it proves: the RTT block and the mailbox sit where the ELF's
//! symbols say, with the layout the server assumes; the board answers a
//! mailbox command with a run the server stores as complete; and with the
//! channel set to block, a host that falls behind loses nothing.
//!
//! Needs `test/mps2-an386-defmt-rtt.elf`: `cargo xtask test` builds it.
// The contract's constants live in the probe module, which only a server
// built with probe support has.
#![cfg(feature = "probe-rs")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pqbench_collect::collector::{Collector, Link, Outcome, Progress};
use pqbench_collect::frames::DefmtDecoder;
use pqbench_collect::image::FirmwareImage;
use pqbench_collect::probe::{MAILBOX_CAPACITY, MAILBOX_SYMBOL};
use pqbench_store::{NewRun, Store};
use pqbench_types::{Algorithm, Operation, RunStatus, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common;
use pqbench::record::StoreRecorder;

const IMAGE: &str = "test/mps2-an386-defmt-rtt.elf";

/// The SEGGER RTT control block, as defmt-rtt lays it out on a 32-bit
/// target: a 16-byte id, the up and down channel counts, then up channel 0
/// (name, buffer, size, write, read, flags; one u32 each).
const RTT_ID: &[u8] = b"SEGGER RTT\0";
const UP0: u64 = 24;
const UP0_BUFFER: u64 = UP0 + 4; // buffer, size, write, read: 16 bytes from here
const UP0_READ: u64 = UP0 + 16;
const UP0_FLAGS: u64 = UP0 + 20;
/// The mode bits of `flags`, and probe-rs's `ChannelMode::BlockIfFull`.
const MODE_MASK: u32 = 0b11;
const MODE_NON_BLOCKING_TRIM: u32 = 1;
const MODE_BLOCK_IF_FULL: u32 = 2;

/// A GDB remote-serial-protocol client, just enough of it to act as a
/// probe: read and write memory, halt and resume. All-stop mode: QEMU
/// answers packets only while the guest is halted.
struct Gdb {
    stream: TcpStream,
    received: Vec<u8>,
}

/// How long any one reply may take before the test says so.
const REPLY_WAIT: Duration = Duration::from_secs(10);

impl Gdb {
    async fn connect(port: u16) -> Gdb {
        // QEMU opens the port a moment after it starts.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match TcpStream::connect(("127.0.0.1", port)).await {
                Ok(stream) => {
                    // Without it, the `+` acknowledging a reply holds back
                    // the `c` after it (Nagle) until the host's delayed ACK,
                    // some 40 ms later, and a halt sent within that time
                    // arrives with it: the guest would never run.
                    stream.set_nodelay(true).unwrap();
                    return Gdb { stream, received: Vec::new() };
                }
                Err(e) if Instant::now() > deadline => panic!("QEMU's gdbstub on port {port}: {e}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    /// Sends `$data#checksum`. QEMU's `+` acknowledgements are skipped by
    /// `reply` (TCP does not lose packets, so none is ever sent again).
    async fn send(&mut self, data: &str) {
        let checksum = data.bytes().fold(0u8, u8::wrapping_add);
        let packet = format!("${data}#{checksum:02x}");
        self.stream.write_all(packet.as_bytes()).await.expect("writing to the gdbstub");
    }

    /// The next packet from QEMU, acknowledged.
    async fn reply(&mut self) -> String {
        tokio::time::timeout(REPLY_WAIT, async {
            loop {
                // A whole packet is `$`, data, `#` and two checksum digits.
                if let Some(start) = self.received.iter().position(|&b| b == b'$')
                    && let Some(hash) = self.received[start..].iter().position(|&b| b == b'#')
                    && self.received.len() >= start + hash + 3
                {
                    let end = start + hash;
                    let data = String::from_utf8(self.received[start + 1..end].to_vec()).unwrap();
                    let said = std::str::from_utf8(&self.received[end + 1..end + 3]).unwrap();
                    let sum = data.bytes().fold(0u8, u8::wrapping_add);
                    assert_eq!(u8::from_str_radix(said, 16), Ok(sum), "checksum of the packet {data:?}");
                    self.received.drain(..end + 3);
                    self.stream.write_all(b"+").await.expect("acknowledging a packet");
                    return data;
                }
                let mut buf = [0u8; 4096];
                let n = self.stream.read(&mut buf).await.expect("reading the gdbstub");
                assert!(n > 0, "QEMU closed the gdbstub connection");
                self.received.extend_from_slice(&buf[..n]);
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no reply from QEMU's gdbstub within {REPLY_WAIT:?}"))
    }

    async fn request(&mut self, data: &str) -> String {
        self.send(data).await;
        self.reply().await
    }

    async fn read(&mut self, address: u64, len: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(len);
        // QEMU refuses reads whose hex would not fit its 4 KiB packet.
        for offset in (0..len).step_by(1024) {
            let (at, chunk) = (address + offset as u64, (len - offset).min(1024));
            let hex = self.request(&format!("m{at:x},{chunk:x}")).await;
            assert_eq!(hex.len(), 2 * chunk, "reading {chunk} bytes at {at:#x}: {hex}");
            bytes.extend((0..chunk).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()));
        }
        bytes
    }

    async fn write(&mut self, address: u64, bytes: &[u8]) {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let answer = self.request(&format!("M{address:x},{:x}:{hex}", bytes.len())).await;
        assert_eq!(answer, "OK", "writing {} bytes at {address:#x}", bytes.len());
    }

    async fn read_u32(&mut self, address: u64) -> u32 {
        u32::from_le_bytes(self.read(address, 4).await.try_into().unwrap())
    }

    async fn write_u32(&mut self, address: u64, value: u32) {
        self.write(address, &value.to_le_bytes()).await;
    }

    /// Lets the guest run; QEMU answers only when it stops again.
    async fn resume(&mut self) {
        self.send("c").await;
    }

    /// Interrupts the guest (a bare 0x03 byte, not a packet) and waits for
    /// its stop reply.
    async fn halt(&mut self) {
        self.stream.write_all(&[0x03]).await.expect("interrupting the guest");
        let stop = self.reply().await;
        assert!(stop.starts_with('T') || stop.starts_with('S'), "expected a stop reply, got {stop:?}");
    }
}

/// QEMU, killed when the test ends however it ends.
struct Qemu(Child);

impl Drop for Qemu {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A board on the stand-in probe: booted, its RTT up channel set to block
/// when full, halted, waiting for a command in its mailbox.
struct Board {
    gdb: Gdb,
    rtt: u64,
    mailbox: u64,
    _qemu: Qemu,
}

impl Board {
    async fn boot(image: &FirmwareImage) -> Board {
        let rtt = image.symbol("_SEGGER_RTT", "RTT").unwrap();
        let mailbox = image.symbol(MAILBOX_SYMBOL, "the command mailbox").unwrap();
        let port = common::free_port();
        // -S: held at reset until the gdbstub says continue, as a probe's
        // reset-and-halt leaves a chip. -icount: as the emulated boards run.
        let qemu = Command::new("qemu-system-arm")
            .args(["-machine", "mps2-an386", "-cpu", "cortex-m4", "-nographic", "-monitor", "none"])
            .args(["-icount", "shift=0", "-serial", "null", "-S"])
            .args(["-gdb", &format!("tcp:127.0.0.1:{port}"), "-kernel"])
            .arg(&image.path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("starting qemu-system-arm");
        let qemu = Qemu(qemu);
        let mut gdb = Gdb::connect(port).await;

        // QEMU loads .data at its flash address, so the control block
        // appears in RAM only once the reset handler has copied it, as on a
        // chip: poll for its id, as probe-rs's `Rtt::attach_at` does.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            gdb.resume().await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            gdb.halt().await;
            if gdb.read(rtt, RTT_ID.len()).await == RTT_ID {
                break;
            }
            assert!(Instant::now() < deadline, "no RTT control block at {rtt:#x} within 5 s of reset");
        }
        // defmt-rtt starts in its non-blocking mode: finding it there shows
        // `flags` is where the server's layout says.
        let flags = gdb.read_u32(rtt + UP0_FLAGS).await;
        assert_eq!(flags & MODE_MASK, MODE_NON_BLOCKING_TRIM, "up channel 0's flags: {flags:#x}");
        gdb.write_u32(rtt + UP0_FLAGS, (flags & !MODE_MASK) | MODE_BLOCK_IF_FULL).await;
        Board { gdb, rtt, mailbox, _qemu: qemu }
    }

    /// What `probe::execute` does: the bytes at offset 4 in whole words,
    /// then the length at offset 0, so a non-zero length means a whole
    /// command is there.
    async fn send_command(&mut self, command: &str) {
        let mut bytes = command.as_bytes().to_vec();
        assert!(bytes.len() <= MAILBOX_CAPACITY);
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        self.gdb.write(self.mailbox + 4, &bytes).await;
        self.gdb.write_u32(self.mailbox, command.len() as u32).await;
    }

    async fn mailbox_len(&mut self) -> u32 {
        self.gdb.halt().await;
        let len = self.gdb.read_u32(self.mailbox).await;
        self.gdb.resume().await;
        len
    }

    /// Up channel 0's ring (halted): its buffer's address and size, and
    /// the write and read offsets.
    async fn ring(&mut self) -> (u64, u32, u32, u32) {
        let header = self.gdb.read(self.rtt + UP0_BUFFER, 16).await;
        let word = |i: usize| u32::from_le_bytes(header[4 * i..4 * i + 4].try_into().unwrap());
        (u64::from(word(0)), word(1), word(2), word(3))
    }

    /// Takes what the up channel holds and frees its room (halted).
    async fn drain(&mut self) -> Vec<u8> {
        let (buffer, size, write, read) = self.ring().await;
        if write == read {
            return Vec::new();
        }
        let mut bytes = Vec::new();
        if write < read {
            // The ring wrapped: its end first, then its start.
            bytes.extend(self.gdb.read(buffer + u64::from(read), (size - read) as usize).await);
            bytes.extend(self.gdb.read(buffer, write as usize).await);
        } else {
            bytes.extend(self.gdb.read(buffer + u64::from(read), (write - read) as usize).await);
        }
        self.gdb.write_u32(self.rtt + UP0_READ, write).await;
        bytes
    }
}

/// The up channel as a collector's link: each call halts the board, drains
/// the channel and lets the board run on, until there is something.
impl Link for Board {
    async fn receive(&mut self) -> Result<Vec<u8>, String> {
        loop {
            self.gdb.halt().await;
            let bytes = self.drain().await;
            self.gdb.resume().await;
            if !bytes.is_empty() {
                return Ok(bytes);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn image() -> FirmwareImage {
    let path = common::dist().join(IMAGE);
    assert!(
        path.is_file(),
        "no image at {}: run the tests with `cargo xtask test`, which builds it",
        path.display()
    );
    FirmwareImage::load(&path).unwrap()
}

/// A board booted on the stand-in probe and a store with a run for it.
async fn start() -> (FirmwareImage, Board, Store, i64, tempfile::TempDir) {
    let image = image();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("rtt.db")).await.unwrap();
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let board = Board::boot(&image).await;
    (image, board, store, id, dir)
}

/// Collects the board's run as a probe run is collected (`runner.rs`):
/// the outcome, and the free text the board sent.
async fn collect(board: &mut Board, image: &FirmwareImage, store: &Store, id: i64) -> (Outcome, Vec<String>) {
    let mut collector = Collector::to(StoreRecorder::for_run(store, id));
    collector.silence = Duration::from_secs(20);
    collector.image = Some(image.into());
    let mut decoder = DefmtDecoder::new(image).unwrap();
    let mut texts = Vec::new();
    let outcome = collector
        .collect_link(board, &mut decoder, |progress| {
            if let Progress::Text(text) = progress {
                texts.push(text);
            }
        })
        .await
        .unwrap();
    (outcome, texts)
}

#[tokio::test]
async fn a_command_in_the_mailbox_runs_and_its_records_come_back_over_rtt() {
    let (image, mut board, store, id, _dir) = start().await;
    board.send_command("run min_iterations=1 min_time_ms=0 algorithms=SHA-256,ML-KEM-512").await;
    board.gdb.resume().await;
    let (outcome, texts) = collect(&mut board, &image, &store, id).await;

    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    assert_eq!(outcome.rejected, 0, "{outcome:?}");
    // The banner the board wrote as it booted, before the host attached, came too.
    assert!(texts.iter().any(|t| t.starts_with("pqbench firmware on ")), "{texts:?}");

    let mut stored: Vec<_> =
        store.results(id).await.unwrap().into_iter().map(|r| (r.algorithm, r.operation, r.status)).collect();
    stored.sort();
    let mut expected = vec![
        (Algorithm::Sha256, Operation::Hash, Status::Ok),
        (Algorithm::MlKem512, Operation::Keygen, Status::Ok),
        (Algorithm::MlKem512, Operation::Encaps, Status::Ok),
        (Algorithm::MlKem512, Operation::Decaps, Status::Ok),
    ];
    expected.sort();
    assert_eq!(stored, expected);
    let run = store.run(id).await.unwrap().unwrap();
    assert_eq!(run.build.build_id, image.build_id, "the run is tied to the image the board runs");
    assert!(run.build.features.as_deref().is_some_and(|f| f.contains("defmt-rtt")), "{:?}", run.build);

    assert_eq!(board.mailbox_len().await, 0, "the board frees the mailbox once it has taken the command");
}

/// Block-if-full is what keeps a probe run whole: a host that falls behind
/// makes the board wait instead of losing frames. The host here reads
/// nothing until the board has filled the ring, then every record arrives.
#[tokio::test]
async fn a_board_whose_ring_is_full_waits_for_the_host_and_loses_nothing() {
    let (image, mut board, store, id, _dir) = start().await;
    // Cheap algorithms, but more records than the 1 KiB ring holds.
    board
        .send_command(
            "run min_iterations=1 min_time_ms=0 algorithms=SHA-256,SHA-512,SHA3-256,SHAKE128,SHAKE256,\
             HMAC-SHA256,AES-128-GCM,AES-256-GCM,ChaCha20-Poly1305",
        )
        .await;
    board.gdb.resume().await;

    // Read nothing until the ring is full (one byte of it always stays
    // free, so full is one short)...
    let deadline = Instant::now() + Duration::from_secs(10);
    let full = loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        board.gdb.halt().await;
        let (_, size, write, read) = board.ring().await;
        board.gdb.resume().await;
        if (write + 1) % size == read {
            break (write, read);
        }
        assert!(Instant::now() < deadline, "the board never filled the ring: write {write}, read {read}");
    };
    // ...and longer: the board waits for room, writing nothing over the
    // unread bytes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    board.gdb.halt().await;
    let (_, _, write, read) = board.ring().await;
    assert_eq!((write, read), full, "the ring moved while the host read nothing");
    board.gdb.resume().await;

    let (outcome, _) = collect(&mut board, &image, &store, id).await;

    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    assert_eq!(outcome.rejected, 0, "{outcome:?}");
    let stored = store.results(id).await.unwrap();
    assert!(stored.len() >= 9 && stored.iter().all(|r| r.status == Status::Ok), "{stored:?}");
}

#[tokio::test]
async fn a_length_over_the_mailbox_capacity_is_answered_with_an_error_and_cleared() {
    let (image, mut board, store, id, _dir) = start().await;
    // A length alone, past the 252 bytes the box holds.
    board.gdb.write_u32(board.mailbox, 300).await;
    board.gdb.resume().await;
    let (outcome, _) = collect(&mut board, &image, &store, id).await;

    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board said: command longer than 252 bytes"));
    assert_eq!(outcome.rejected, 0, "{outcome:?}");
    assert_eq!(board.mailbox_len().await, 0, "the board clears a length it cannot take");
}
