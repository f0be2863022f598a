//! The platform layer: what differs between boards is a memory map, a
//! clock and a UART. Everything else (suite, records, memory probes) is shared.

use core::fmt;

use pqbench_suite::{MemoryUse, Platform};
use pqbench_types::Clock;

use crate::memory;

mod systick;

#[cfg(feature = "mps2-an386")]
#[path = "mps2_an386.rs"]
pub mod board;

/// A board's serial port, byte at a time.
pub trait Uart {
    fn write_byte(&mut self, byte: u8);
    fn read_byte(&mut self) -> Option<u8>;
}

/// The serial port the host talks to.
pub struct Serial(board::Uart);

impl Serial {
    /// The port without its owner, for fault handlers that must still speak.
    pub fn steal() -> Self {
        Serial(board::Uart::steal())
    }

    /// Blocks until a whole line has arrived; returns its length without
    /// the end of line. A line longer than `buf` is cut, never overrun.
    pub fn read_line(&mut self, buf: &mut [u8]) -> usize {
        let mut len = 0;
        loop {
            let Some(byte) = self.0.read_byte() else {
                continue;
            };
            match byte {
                b'\n' | b'\r' if len > 0 => return len,
                b'\n' | b'\r' => {}
                _ if len < buf.len() => {
                    buf[len] = byte;
                    len += 1;
                }
                _ => {}
            }
        }
    }
}

impl fmt::Write for Serial {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        text.bytes().for_each(|b| self.0.write_byte(b));
        Ok(())
    }
}

/// The suite's view of the board: its clock and the memory probes.
pub struct BoardPlatform {
    clock: systick::Clock,
}

impl Platform for BoardPlatform {
    fn clock(&self) -> Clock {
        Clock {
            ticks_per_second: board::TICKS_PER_SECOND,
            unit: board::TICK_UNIT,
        }
    }

    fn now(&mut self) -> u64 {
        self.clock.now()
    }

    fn memory_start(&mut self) {
        memory::start();
    }

    fn memory_stop(&mut self) -> MemoryUse {
        memory::stop()
    }
}

pub struct Board {
    serial: Serial,
    platform: BoardPlatform,
}

impl Board {
    pub fn init(core: cortex_m::Peripherals) -> Self {
        let uart = board::Uart::init();
        let clock = systick::Clock::start(core.SYST);
        Board {
            serial: Serial(uart),
            platform: BoardPlatform { clock },
        }
    }

    pub fn serial(&mut self) -> &mut Serial {
        &mut self.serial
    }

    /// The platform and port for one run, with the clock restarted.
    pub fn start_run(&mut self) -> (&mut BoardPlatform, &mut Serial) {
        self.platform.clock.restart();
        (&mut self.platform, &mut self.serial)
    }
}
