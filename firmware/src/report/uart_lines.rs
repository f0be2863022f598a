//! Commands as text lines on the serial port.

use crate::boards::{Clocks, Serial};

/// A longer line is cut, and then fails to parse as a command. As long as
/// the probe's mailbox holds: a command naming the suite's post-quantum
/// algorithms and a hash (the fault test's own) is 139 bytes since the
/// hybrids' names, past the 128 this was. The buffer is in `main`'s frame,
/// above the run loop, so no operation's stack depth changes.
pub const MAX_LINE: usize = pqbench_wire::MAX_COMMAND_LINE;

/// Waits for the next line; its text, or why it is no command. The UART
/// itself waits for bytes: the clock does not matter here.
pub fn next_line<'l>(
    port: &mut Serial,
    _clocks: &Clocks,
    line: &'l mut [u8; MAX_LINE],
) -> Result<&'l str, &'static str> {
    let len = port.read_line(line);
    core::str::from_utf8(&line[..len]).map_err(|_| "command is not UTF-8")
}
