//! The record format a board uses to report to the host, version 1.
//!
//! One record is one line of printable ASCII:
//!
//! ```text
//! @pqb1 result alg=ML-KEM-768 op=keygen status=ok iters=12 total=3468123 min=288900 median=289010 max=289400 heap=4736 allocs=3 stack=27712 *5d2c8e01
//! ```
//!
//! - `@pqb1` marks a record and names the format version. Lines that do not
//!   start with it are a board's free text, shown to a person and never parsed.
//! - then the record kind, then `key=value` fields in any order. Values are
//!   percent-encoded: any byte outside `[A-Za-z0-9._:/,+@-]` is written `%XX`.
//!   A missing key means "not measured", never zero.
//! - ` *` and eight lowercase hex digits: the CRC-32 (ISO-HDLC, as zlib's)
//!   of every byte before the ` *`. Then `\r\n`.
//!
//! Kinds, in the order a run sends them: `hello` (who the board and build
//! are), `begin` (how many operations follow), `op` (the operation about to
//! be timed: progress), `measuring` (before an operation's first timed call
//! and then between calls about every second of board time: the board is
//! alive), `result` (one measurement), `end`, and `error` at any time. The host starts a run by sending a command line, see [`Command`].
//!
//! The encoder ([`RecordWriter`]) needs no allocator, for firmware; the
//! decoder ([`Decoder`], feature `decode`) resynchronises on the next `@pqb`
//! after any damage, so one bad record never costs the ones after it.
#![no_std]

#[cfg(feature = "decode")]
extern crate alloc;

mod command;
mod encode;
pub use command::{Command, CommandError, MAX_COMMAND_LINE, RunCommand};
pub use encode::{
    Discard, RecordWriter, measurement_fields, measuring_fields, write_measurement, write_measuring,
};

#[cfg(feature = "decode")]
mod decode;
#[cfg(feature = "decode")]
pub use decode::{DecodeError, Decoder, Event, Hello, MAX_LINE, Record, parse_record, parse_rendered};

/// Start of every record of this version.
pub const MARKER: &str = "@pqb1";
/// What every version's marker starts with, so a newer board is recognised
/// (and refused clearly) rather than taken for free text.
pub const MARKER_FAMILY: &str = "@pqb";

pub(crate) const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// Bytes that are written as they are inside a value.
pub(crate) fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"._:/,+@-".contains(&byte)
}

/// Record kinds, spelt as on the wire.
pub mod kind {
    pub const HELLO: &str = "hello";
    pub const BEGIN: &str = "begin";
    pub const OP: &str = "op";
    pub const RESULT: &str = "result";
    pub const END: &str = "end";
    pub const ERROR: &str = "error";
    pub const CALIBRATION: &str = "calibration";
    pub const MEASURING: &str = "measuring";
}
