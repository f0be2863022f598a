//! The firmware's side of the probe contract, byte by byte: its `defmt-rtt`
//! build runs on QEMU's mps2-an386, QEMU's gdbstub stands in for the debug
//! probe, and the test reads and writes the RTT block and the mailbox by
//! the layout docs/record-format.md gives, independently of the host's own
//! reader (`probe_execute.rs` runs that one, `probe::execute`, on the same
//! board). What it proves: the RTT block and the mailbox sit where the
//! ELF's symbols say, with that layout; the board answers a mailbox command
//! with a run the server stores as complete; with the channel set to
//! block, a host that falls behind loses nothing; and an oversized length
//! is refused and cleared.
//!
//! Needs `test/mps2-an386-defmt-rtt.elf`: `cargo xtask test` builds it.
// The contract's constants live in the probe module, which only a server
// built with probe support has.
#![cfg(feature = "probe-rs")]

use std::time::{Duration, Instant};

use pqbench_collect::collector::{Collector, Link, Outcome, Progress};
use pqbench_collect::frames::DefmtDecoder;
use pqbench_collect::image::FirmwareImage;
use pqbench_collect::probe::{DebugTarget, MAILBOX_CAPACITY, MAILBOX_SYMBOL};
use pqbench_store::{NewRun, Store};
use pqbench_types::{Algorithm, Operation, RunStatus, Status};

use crate::common;
use crate::gdb_remote::{GdbRemote, HeldQemu};
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

/// The stand-in probe (`gdb_remote.rs`), with a test's manners: a
/// failed request fails the test, saying what failed.
struct Gdb(GdbRemote);

impl Gdb {
    fn read(&mut self, address: u64, len: usize) -> Vec<u8> {
        let mut bytes = vec![0; len];
        self.0
            .read(address, &mut bytes)
            .unwrap_or_else(|e| panic!("reading {len} bytes at {address:#x}: {e}"));
        bytes
    }

    fn write(&mut self, address: u64, bytes: &[u8]) {
        self.0
            .write(address, bytes)
            .unwrap_or_else(|e| panic!("writing {} bytes at {address:#x}: {e}", bytes.len()));
    }

    fn read_u32(&mut self, address: u64) -> u32 {
        u32::from_le_bytes(self.read(address, 4).try_into().unwrap())
    }

    fn write_u32(&mut self, address: u64, value: u32) {
        self.write(address, &value.to_le_bytes());
    }

    fn resume(&mut self) {
        self.0.run().expect("letting the guest run");
    }

    fn halt(&mut self) {
        self.0.halt().expect("halting the guest");
    }
}

/// A board on the stand-in probe: booted, its RTT up channel set to block
/// when full, halted, waiting for a command in its mailbox.
struct Board {
    gdb: Gdb,
    rtt: u64,
    mailbox: u64,
    _qemu: HeldQemu,
}

impl Board {
    async fn boot(image: &FirmwareImage) -> Board {
        let rtt = image.symbol("_SEGGER_RTT", "RTT").unwrap();
        let mailbox = image.symbol(MAILBOX_SYMBOL, "the command mailbox").unwrap();
        // Held at reset until the gdbstub says continue, as a probe's
        // reset-and-halt leaves a chip.
        let qemu = HeldQemu::start(&["-machine", "mps2-an386", "-cpu", "cortex-m4"], &image.path);
        let mut gdb = Gdb(GdbRemote::connect(qemu.port));

        // QEMU loads .data at its flash address, so the control block
        // appears in RAM only once the reset handler has copied it, as on a
        // chip: poll for its id, as probe-rs's `Rtt::attach_at` does.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            gdb.resume();
            tokio::time::sleep(Duration::from_millis(20)).await;
            gdb.halt();
            if gdb.read(rtt, RTT_ID.len()) == RTT_ID {
                break;
            }
            assert!(Instant::now() < deadline, "no RTT control block at {rtt:#x} within 5 s of reset");
        }
        // defmt-rtt starts in its non-blocking mode: finding it there shows
        // `flags` is where the server's layout says.
        let flags = gdb.read_u32(rtt + UP0_FLAGS);
        assert_eq!(flags & MODE_MASK, MODE_NON_BLOCKING_TRIM, "up channel 0's flags: {flags:#x}");
        gdb.write_u32(rtt + UP0_FLAGS, (flags & !MODE_MASK) | MODE_BLOCK_IF_FULL);
        Board { gdb, rtt, mailbox, _qemu: qemu }
    }

    /// What `probe::execute` does: the bytes at offset 4 in whole words,
    /// then the length at offset 0, so a non-zero length means a whole
    /// command is there.
    async fn send_command(&mut self, command: &str) {
        let mut bytes = command.as_bytes().to_vec();
        assert!(bytes.len() <= MAILBOX_CAPACITY);
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        self.gdb.write(self.mailbox + 4, &bytes);
        self.gdb.write_u32(self.mailbox, command.len() as u32);
    }

    async fn mailbox_len(&mut self) -> u32 {
        self.gdb.halt();
        let len = self.gdb.read_u32(self.mailbox);
        self.gdb.resume();
        len
    }

    /// Up channel 0's ring (halted): its buffer's address and size, and
    /// the write and read offsets.
    async fn ring(&mut self) -> (u64, u32, u32, u32) {
        let header = self.gdb.read(self.rtt + UP0_BUFFER, 16);
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
            bytes.extend(self.gdb.read(buffer + u64::from(read), (size - read) as usize));
            bytes.extend(self.gdb.read(buffer, write as usize));
        } else {
            bytes.extend(self.gdb.read(buffer + u64::from(read), (write - read) as usize));
        }
        self.gdb.write_u32(self.rtt + UP0_READ, write);
        bytes
    }
}

/// The up channel as a collector's link: each call halts the board, drains
/// the channel and lets the board run on, until there is something.
impl Link for Board {
    type Error = String;
    async fn receive(&mut self) -> Result<Vec<u8>, String> {
        loop {
            self.gdb.halt();
            let bytes = self.drain().await;
            self.gdb.resume();
            if !bytes.is_empty() {
                return Ok(bytes);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn image() -> Result<FirmwareImage, pqbench_test_needs::Missing> {
    common::image_path(IMAGE).map(|path| FirmwareImage::load(&path).unwrap())
}

/// A board booted on the stand-in probe and a store with a run for it.
/// Its callers require the image first.
async fn start() -> (FirmwareImage, Board, Store, i64, tempfile::TempDir) {
    let image = image().expect("the test required the image");
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
    pqbench_test_needs::require!(image());
    let (image, mut board, store, id, _dir) = start().await;
    board.send_command("run min_iterations=1 min_time_ms=0 algorithms=SHA-256,ML-KEM-512").await;
    board.gdb.resume();
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
    pqbench_test_needs::require!(image());
    let (image, mut board, store, id, _dir) = start().await;
    // Cheap algorithms, but more records than the 1 KiB ring holds. Only
    // names the suite runs: a board refuses a command naming any other.
    board
        .send_command(
            "run min_iterations=1 min_time_ms=0 algorithms=SHA-256,SHA-512,SHA3-256,SHAKE128,SHAKE256,\
             AES-128-GCM,AES-256-GCM,ChaCha20-Poly1305",
        )
        .await;
    board.gdb.resume();

    // Read nothing until the ring is full (one byte of it always stays
    // free, so full is one short)...
    let deadline = Instant::now() + Duration::from_secs(10);
    let full = loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        board.gdb.halt();
        let (_, size, write, read) = board.ring().await;
        board.gdb.resume();
        if (write + 1) % size == read {
            break (write, read);
        }
        assert!(Instant::now() < deadline, "the board never filled the ring: write {write}, read {read}");
    };
    // ...and longer: the board waits for room, writing nothing over the
    // unread bytes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    board.gdb.halt();
    let (_, _, write, read) = board.ring().await;
    assert_eq!((write, read), full, "the ring moved while the host read nothing");
    board.gdb.resume();

    let (outcome, _) = collect(&mut board, &image, &store, id).await;

    assert_eq!(outcome.status, RunStatus::Complete, "{outcome:?}");
    assert_eq!(outcome.rejected, 0, "{outcome:?}");
    let stored = store.results(id).await.unwrap();
    // Five hashes, and three ciphers each encrypting and decrypting.
    assert_eq!(stored.len(), 11, "{stored:?}");
    assert!(stored.iter().all(|r| r.status == Status::Ok), "{stored:?}");
}

#[tokio::test]
async fn a_length_over_the_mailbox_capacity_is_answered_with_an_error_and_cleared() {
    pqbench_test_needs::require!(image());
    let (image, mut board, store, id, _dir) = start().await;
    // A length alone, past the 252 bytes the box holds.
    board.gdb.write_u32(board.mailbox, 300);
    board.gdb.resume();
    let (outcome, _) = collect(&mut board, &image, &store, id).await;

    assert_eq!(outcome.status, RunStatus::Failed, "{outcome:?}");
    assert_eq!(outcome.error.as_deref(), Some("the board said: command longer than 252 bytes"));
    assert_eq!(outcome.rejected, 0, "{outcome:?}");
    assert_eq!(board.mailbox_len().await, 0, "the board clears a length it cannot take");
}
