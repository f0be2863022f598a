//! pqbench firmware: waits for a command on the board's serial port, runs
//! the shared suite, and answers in `pqbench-wire` records.
//!
//! The board is chosen by a cargo feature; everything board-specific lives
//! in `boards/` (clock, UART, identity) and `memory/` (the memory map).
#![no_std]
#![no_main]

mod boards;
mod memory;
mod report;

use core::fmt::Write as _;

use cortex_m_rt::{ExceptionFrame, entry, exception};
use pqbench_suite::Settings;
use pqbench_wire::Command;

use boards::{Board, board};

/// Per-call samples of one operation; bounds its iterations.
const MAX_SAMPLES: usize = 1024;

#[entry]
fn main() -> ! {
    let core = cortex_m::Peripherals::take().expect("core peripherals are taken once");
    let mut board = Board::init(core);
    memory::init_heap();
    let samples =
        cortex_m::singleton!(: [u64; MAX_SAMPLES] = [0; MAX_SAMPLES]).expect("samples are taken once");

    let _ = writeln!(board.serial(), "pqbench firmware on {}: send 'hello' or 'run'\r", board::ID);
    let mut line = [0u8; 128];
    loop {
        let len = board.serial().read_line(&mut line);
        let Ok(text) = core::str::from_utf8(&line[..len]) else {
            report::error(board.serial(), "command is not UTF-8");
            continue;
        };
        match Command::parse(text) {
            Ok(Command::Hello) => report::hello(board.serial()),
            Ok(Command::Calibrate) => {
                let (platform, serial) = board.start_run();
                let calibration = pqbench_suite::calibrate::calibrate(platform);
                report::calibration(serial, &calibration);
            }
            Ok(Command::Run(run)) => {
                report::hello(board.serial());
                let settings = Settings { min_iterations: run.min_iterations, min_time_ms: run.min_time_ms };
                let (platform, serial) = board.start_run();
                let mut reporter = report::SerialReporter(serial);
                pqbench_suite::run(platform, &mut reporter, &settings, |a| run.includes(a), samples);
            }
            Err(_) if text.trim().is_empty() => {}
            Err(error) => report::error(board.serial(), error.as_str()),
        }
    }
}

/// A panic is reported as an `error` record, so the host marks the run
/// failed with the reason instead of waiting for records that never come.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    let mut serial = boards::Serial::steal();
    let mut message = heapless_message::Message::new();
    let _ = write!(message, "panic: {}", info.message());
    if let Some(location) = info.location() {
        let _ = write!(message, " at {}:{}", location.file(), location.line());
    }
    report::error(&mut serial, message.as_str());
    loop {
        cortex_m::asm::wfi();
    }
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    let mut serial = boards::Serial::steal();
    let mut message = heapless_message::Message::new();
    let _ = write!(message, "hard fault at pc {:#010x}", frame.pc());
    report::error(&mut serial, message.as_str());
    loop {
        cortex_m::asm::wfi();
    }
}

/// A fixed buffer to format a fault message without the heap, which may be
/// what failed.
mod heapless_message {
    pub struct Message {
        bytes: [u8; 160],
        len: usize,
    }

    impl Message {
        pub const fn new() -> Self {
            Message { bytes: [0; 160], len: 0 }
        }

        pub fn as_str(&self) -> &str {
            core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("unprintable message")
        }
    }

    impl core::fmt::Write for Message {
        fn write_str(&mut self, text: &str) -> core::fmt::Result {
            // Cut at a character boundary when full rather than fail.
            for c in text.chars() {
                let mut utf8 = [0; 4];
                let encoded = c.encode_utf8(&mut utf8).as_bytes();
                if self.len + encoded.len() > self.bytes.len() {
                    break;
                }
                self.bytes[self.len..self.len + encoded.len()].copy_from_slice(encoded);
                self.len += encoded.len();
            }
            Ok(())
        }
    }
}
