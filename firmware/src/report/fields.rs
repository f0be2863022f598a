//! What each record says, in order. The text transport writes these
//! fields; the defmt one sums them, to send the CRC of the very line the
//! text transport would have written. A defmt message must carry the same
//! fields in the same order, or the host refuses its records.
//!
//! `result` and `measuring` are not here: both transports write them with
//! the wire crate's `measurement_fields` and `measuring_fields`.

use core::fmt::{self, Write};

use pqbench_suite::calibrate::{self, Calibration};
use pqbench_types::{Algorithm, Operation};
use pqbench_wire::RecordWriter;

use crate::boards::{Clocks, board};

pub const FW: &str = concat!("pqbench-firmware/", env!("CARGO_PKG_VERSION"));

/// `clocks` are those the board's bring-up reached, which may be a
/// fallback: `clock_source` says which, and the host tells a person what
/// that means (`pqbench_boards::Board::clock_note`).
pub fn hello<W: Write>(r: &mut RecordWriter<'_, W>, build_id: &str, clocks: &Clocks) -> fmt::Result {
    r.field("fw", FW)?;
    r.field("board", board::ID)?;
    r.field("mcu", board::MCU)?;
    r.field("core", board::CORE)?;
    r.field("clock_hz", clocks.clock_hz)?;
    r.field("clock_source", clocks.source.as_str())?;
    r.field("flash_wait_states", clocks.flash.wait_states_str())?;
    r.field("caches", clocks.flash.caches)?;
    r.field("ticks_per_second", clocks.ticks_per_second)?;
    r.field("tick_unit", board::TICK_UNIT)?;
    r.field("heap_bytes", board::HEAP_BYTES)?;
    r.field("build_id", build_id)?;
    r.field("rev", env!("PQBENCH_REVISION"))?;
    r.field("rustc", env!("PQBENCH_RUSTC"))?;
    r.field("target", env!("PQBENCH_TARGET"))?;
    r.field("profile", env!("PQBENCH_PROFILE"))?;
    r.field("opt", env!("PQBENCH_OPT_LEVEL"))?;
    r.field("lto", env!("PQBENCH_LTO"))?;
    r.field("features", env!("PQBENCH_FEATURES"))?;
    r.field("crates", env!("PQBENCH_CRATES"))
}

pub fn calibration<W: Write>(r: &mut RecordWriter<'_, W>, calibration: &Calibration) -> fmt::Result {
    r.field("stack_buffer", calibrate::STACK_BUFFER)?;
    r.optional("stack", calibration.stack.stack_bytes)?;
    r.field("heap_buffer", calibrate::HEAP_BUFFER)?;
    r.optional("heap", calibration.heap.heap_bytes)?;
    r.optional("allocs", calibration.heap.heap_allocs)
}

/// The error's text is its last field: on defmt, the host reads it up to
/// the checksum, so it may hold spaces and `=`.
pub fn error<W: Write>(r: &mut RecordWriter<'_, W>, message: &str) -> fmt::Result {
    r.field("msg", message)
}

pub fn begin<W: Write>(r: &mut RecordWriter<'_, W>, operations: u32) -> fmt::Result {
    r.field("operations", operations)
}

pub fn progress<W: Write>(
    r: &mut RecordWriter<'_, W>,
    algorithm: Algorithm,
    operation: Operation,
    index: u32,
    total: u32,
) -> fmt::Result {
    r.field("alg", algorithm)?;
    r.field("op", operation)?;
    r.field("n", index)?;
    r.field("of", total)
}

pub fn end<W: Write>(r: &mut RecordWriter<'_, W>, results: u32) -> fmt::Result {
    r.field("results", results)
}
