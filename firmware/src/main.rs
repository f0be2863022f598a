//! pqbench firmware: waits for a command from the host, runs the shared
//! suite, and answers in `pqbench-wire` records.
//!
//! The board is chosen by a cargo feature; everything board-specific lives
//! in `boards/` (clock, UART, identity) and `memory/` (the memory map). The
//! transport (text lines on the UART, or defmt frames over RTT or the UART)
//! is chosen by another, and lives in `report/`.
#![no_std]
#![no_main]

mod boards;
mod build_id;
mod fixed_text;
mod memory;
mod report;

use core::fmt::Write as _;

use cortex_m_rt::{ExceptionFrame, entry, exception};
use pqbench_suite::Settings;
use pqbench_wire::{Command, CommandError};

use boards::Board;
use fixed_text::FixedText;
use report::Records;

/// Per-call samples of one operation; bounds its iterations.
const MAX_SAMPLES: usize = 1024;

#[entry]
fn main() -> ! {
    let core = cortex_m::Peripherals::take().expect("core peripherals are taken once");
    let mut board = Board::init(core);
    memory::init_heap();
    let samples =
        cortex_m::singleton!(: [u64; MAX_SAMPLES] = [0; MAX_SAMPLES]).expect("samples are taken once");

    // Set once by the bring-up: what `hello` says for the rest of the boot.
    let clocks = board.clocks();
    Records::new(board.serial()).banner();
    let mut line = [0u8; report::MAX_LINE];
    loop {
        let text = match report::next_line(board.serial(), &clocks, &mut line) {
            Ok(text) => text,
            Err(reason) => {
                Records::new(board.serial()).error(reason);
                continue;
            }
        };
        match Command::parse(text) {
            Ok(Command::Hello) => Records::new(board.serial()).hello(&clocks),
            Ok(Command::Calibrate) => {
                let (platform, serial) = board.start_run();
                let calibration = pqbench_suite::calibrate::calibrate(platform);
                Records::new(serial).calibration(&calibration);
            }
            // A name this suite has no code for is refused before anything
            // runs: a run that quietly left it out would look complete.
            Ok(Command::Run(run)) if run.named().any(|a| !pqbench_suite::supports(a)) => {
                Records::new(board.serial()).error(CommandError::NotRunnable.as_str())
            }
            Ok(Command::Run(run)) => {
                Records::new(board.serial()).hello(&clocks);
                let settings = Settings { min_iterations: run.min_iterations, min_time_ms: run.min_time_ms };
                let (platform, serial) = board.start_run();
                let mut records = Records::new(serial);
                pqbench_suite::run(platform, &mut records, &settings, |a| run.includes(a), samples);
            }
            Err(_) if text.trim().is_empty() => {}
            Err(error) => Records::new(board.serial()).error(error.as_str()),
        }
    }
}

/// A panic is reported as an `error` record, so the host marks the run
/// failed with the reason instead of waiting for records that never come.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    let mut message = FixedText::<160>::new();
    let _ = write!(message, "panic: {}", info.message());
    if let Some(location) = info.location() {
        let _ = write!(message, " at {}:{}", location.file(), location.line());
    }
    report::fault(message.as_str());
    loop {
        cortex_m::asm::wfi();
    }
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    let mut message = FixedText::<160>::new();
    let _ = write!(message, "hard fault at pc {:#010x}", frame.pc());
    report::fault(message.as_str());
    loop {
        cortex_m::asm::wfi();
    }
}
