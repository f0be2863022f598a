//! Commands from a RAM mailbox, for the defmt-rtt transport: defmt-rtt has
//! no down channel, so the host writes a command line into
//! `PQBENCH_MAILBOX` through the debug probe and the board polls it.
//!
//! The protocol (docs/record-format.md, "On defmt"): the host writes the
//! line's bytes (UTF-8, no newline, at most 252) at offset 4, then their
//! count as a little-endian u32 at offset 0. The board sees a count of
//! 1..=252, copies the bytes, and stores 0 to say the box is free again.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::boards::{Clocks, Serial};

pub const MAX_LINE: usize = pqbench_wire::MAX_COMMAND_LINE;

#[repr(C)]
pub struct Mailbox {
    /// How many bytes of `bytes` hold a command; 0 when the box is free.
    len: AtomicU32,
    bytes: [UnsafeCell<u8>; MAX_LINE],
}

// SAFETY: nothing on the board writes `bytes`; the host writes them only
// while `len` is 0, and the board reads them only while it is not.
unsafe impl Sync for Mailbox {}

/// The host finds the box by this name in the ELF's symbol table. It is
/// zero-initialised (.bss), so a reset empties it.
#[unsafe(no_mangle)]
pub static PQBENCH_MAILBOX: Mailbox =
    Mailbox { len: AtomicU32::new(0), bytes: [const { UnsafeCell::new(0) }; MAX_LINE] };

/// Waits for the next command; its text, or why it is no command. The
/// serial port is not used: on this transport the host has no UART.
pub fn next_line<'l>(
    _port: &mut Serial,
    clocks: &Clocks,
    line: &'l mut [u8; MAX_LINE],
) -> Result<&'l str, &'static str> {
    // About a millisecond of busy waiting between looks at the box, at the
    // clock the board reached: quick to answer, and the probe's memory
    // accesses are not slowed by a flood of the core's own.
    let poll_cycles = u32::try_from(clocks.clock_hz / 1000).unwrap_or(u32::MAX);
    loop {
        // Acquire: the bytes the host wrote before the count are seen.
        let len = PQBENCH_MAILBOX.len.load(Ordering::Acquire) as usize;
        if len == 0 {
            cortex_m::asm::delay(poll_cycles);
            continue;
        }
        if len > MAX_LINE {
            PQBENCH_MAILBOX.len.store(0, Ordering::Release);
            return Err("command longer than 252 bytes");
        }
        for (to, from) in line.iter_mut().zip(&PQBENCH_MAILBOX.bytes[..len]) {
            // SAFETY: the host leaves the bytes alone until `len` is 0 again;
            // volatile, as the probe writes them behind the compiler's back.
            *to = unsafe { from.get().read_volatile() };
        }
        // Release: the copy is done before the host may write again.
        PQBENCH_MAILBOX.len.store(0, Ordering::Release);
        return core::str::from_utf8(&line[..len]).map_err(|_| "command is not UTF-8");
    }
}
