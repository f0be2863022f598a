use core::fmt::{self, Write};

use pqbench_types::{Measurement, Measuring, Status};

use crate::{CRC, MARKER, is_plain, kind};

/// Writes one record to `out`, checksumming as it goes.
///
/// ```
/// # use pqbench_wire::RecordWriter;
/// let mut line = String::new();
/// let mut record = RecordWriter::begin(&mut line, "end").unwrap();
/// record.field("results", 3).unwrap();
/// record.finish().unwrap();
/// assert!(line.starts_with("@pqb1 end results=3 *"));
/// ```
pub struct RecordWriter<'a, W: Write> {
    out: &'a mut W,
    digest: crc::Digest<'static, u32>,
}

impl<'a, W: Write> RecordWriter<'a, W> {
    pub fn begin(out: &'a mut W, kind: &str) -> Result<Self, fmt::Error> {
        let mut writer = RecordWriter { out, digest: CRC.digest() };
        writer.raw(MARKER)?;
        writer.raw(" ")?;
        writer.raw(kind)?;
        Ok(writer)
    }

    fn raw(&mut self, text: &str) -> fmt::Result {
        self.digest.update(text.as_bytes());
        self.out.write_str(text)
    }

    /// Adds ` key=value`; the value is formatted with `Display` and percent-encoded.
    pub fn field(&mut self, key: &str, value: impl fmt::Display) -> fmt::Result {
        debug_assert!(key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        self.raw(" ")?;
        self.raw(key)?;
        self.raw("=")?;
        write!(Escaped(self), "{value}")
    }

    /// Adds the field only when there is a value: absent means "not measured".
    pub fn optional(&mut self, key: &str, value: Option<impl fmt::Display>) -> fmt::Result {
        match value {
            Some(value) => self.field(key, value),
            None => Ok(()),
        }
    }

    pub fn finish(self) -> fmt::Result {
        let crc = self.digest.finalize();
        write!(self.out, " *{crc:08x}\r\n")
    }

    /// Ends the record like [`finish`](Self::finish) and returns its CRC.
    pub fn finish_with_crc(self) -> Result<u32, fmt::Error> {
        let crc = self.digest.finalize();
        write!(self.out, " *{crc:08x}\r\n")?;
        Ok(crc)
    }

    /// The record's CRC, without writing it: for a transport that carries
    /// the fields in its own encoding (defmt) and the sum beside them, so
    /// the host can rebuild the line and check it as it checks a text one.
    pub fn checksum(self) -> u32 {
        self.digest.finalize()
    }
}

/// Takes a record's text and keeps none of it: with
/// [`RecordWriter::checksum`], computes a record's CRC without a buffer.
pub struct Discard;

impl Write for Discard {
    fn write_str(&mut self, _: &str) -> fmt::Result {
        Ok(())
    }
}

/// Percent-encodes what is written through it into the record.
struct Escaped<'r, 'a, W: Write>(&'r mut RecordWriter<'a, W>);

impl<W: Write> Write for Escaped<'_, '_, W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        for &byte in text.as_bytes() {
            if is_plain(byte) {
                let one = [byte];
                // Plain bytes are ASCII, so this is valid UTF-8.
                self.0.raw(core::str::from_utf8(&one).map_err(|_| fmt::Error)?)?;
            } else {
                let escaped = [b'%', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xF)]];
                self.0.raw(core::str::from_utf8(&escaped).map_err(|_| fmt::Error)?)?;
            }
        }
        Ok(())
    }
}

/// Writes a `result` record for one measurement.
pub fn write_measurement<W: Write>(out: &mut W, m: &Measurement) -> fmt::Result {
    let mut record = RecordWriter::begin(out, kind::RESULT)?;
    measurement_fields(&mut record, m)?;
    record.finish()
}

/// A `result` record's fields, in order: timings only for a measurement
/// that ran, and an unmeasured figure left out.
pub fn measurement_fields<W: Write>(record: &mut RecordWriter<'_, W>, m: &Measurement) -> fmt::Result {
    record.field("alg", m.algorithm)?;
    record.field("op", m.operation)?;
    record.field("status", m.status)?;
    if m.status == Status::Ok {
        record.field("iters", m.iterations)?;
        record.field("total", m.total_ticks)?;
        record.field("min", m.min_ticks)?;
        record.field("median", m.median_ticks)?;
        record.field("max", m.max_ticks)?;
    }
    record.optional("heap", m.heap_bytes)?;
    record.optional("allocs", m.heap_allocs)?;
    record.optional("stack", m.stack_bytes)?;
    record.optional("depth", m.stack_depth_bytes)?;
    record.optional("bytes", m.bytes_per_op)?;
    record.optional("needs", m.needed_bytes)?;
    record.optional("batch", m.batch)?;
    record.optional("sd", m.stdev_ticks)?;
    record.optional("p10", m.p10_ticks)?;
    record.optional("p90", m.p90_ticks)?;
    record.optional("p99", m.p99_ticks)?;
    record.optional("keys", m.key_format)?;
    match m.failure {
        Some(failure) => record.field("reason", failure),
        None => Ok(()),
    }
}

/// A `measuring` record's fields, in order: the operation, how long it is
/// measured at least and how often it says so, then where it stands.
pub fn measuring_fields<W: Write>(record: &mut RecordWriter<'_, W>, m: &Measuring) -> fmt::Result {
    record.field("alg", m.algorithm)?;
    record.field("op", m.operation)?;
    record.field("min_ms", m.min_time_ms)?;
    record.field("beat_ms", m.beat_ms)?;
    record.field("calls", m.calls)?;
    record.field("elapsed", m.elapsed_ticks)?;
    record.field("slowest", m.slowest_ticks)
}

/// Writes a `measuring` record.
pub fn write_measuring<W: Write>(out: &mut W, m: &Measuring) -> fmt::Result {
    let mut record = RecordWriter::begin(out, kind::MEASURING)?;
    measuring_fields(&mut record, m)?;
    record.finish()
}
