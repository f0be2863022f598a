//! The host half: bytes from a serial port in, checked records out.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pqbench_types::{
    Algorithm, Build, Clock, Failure, KeyFormat, Measurement, Measuring, Operation, Status, TickUnit,
};

use crate::{CRC, MARKER, MARKER_FAMILY, kind};

/// Why a record was refused. A refused record is counted and reported,
/// never stored, and never costs the records after it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("record cut off before its checksum: {0:?}")]
    Truncated(String),
    #[error("record checksum mismatch (sent {sent:08x}, computed {computed:08x})")]
    BadChecksum { sent: u32, computed: u32 },
    #[error("record format {0:?} is not supported by this host (it reads @pqb1)")]
    UnsupportedVersion(String),
    #[error("malformed record: {0}")]
    Malformed(String),
    #[error("line longer than {0} bytes without an end")]
    TooLong(usize),
}

/// A checked record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Hello(Hello),
    Begin {
        operations: u32,
    },
    Progress {
        algorithm: Algorithm,
        operation: Operation,
        index: u32,
        total: u32,
    },
    /// An operation being measured: the board is busy, not gone. Sent
    /// before its first timed call and between calls at each beat; a board
    /// older than this record never sends it.
    Measuring(Measuring),
    Result(Measurement),
    End {
        results: u32,
    },
    Error {
        message: String,
    },
    /// The board's memory probes measuring buffers of known size.
    Calibration {
        stack_buffer: u32,
        stack: Option<u32>,
        heap_buffer: u32,
        heap: Option<u32>,
        allocs: Option<u32>,
    },
}

/// What a board says of itself: its fields as sent, read through accessors.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hello {
    pub fields: BTreeMap<String, String>,
}

impl Hello {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    pub fn board(&self) -> Option<&str> {
        self.get("board")
    }

    pub fn clock_hz(&self) -> Option<u64> {
        self.get("clock_hz")?.parse().ok()
    }

    /// The clock the board times with; a board that does not say cannot be read.
    pub fn clock(&self) -> Result<Clock, DecodeError> {
        let ticks_per_second = self
            .get("ticks_per_second")
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|&t| t > 0)
            .ok_or_else(|| malformed("hello without a valid ticks_per_second"))?;
        let unit = self
            .get("tick_unit")
            .and_then(|u| TickUnit::parse(u).ok())
            .ok_or_else(|| malformed("hello without a valid tick_unit"))?;
        Ok(Clock { ticks_per_second, unit })
    }

    /// The build identity: known keys into their fields, the rest into `extra`.
    pub fn build(&self) -> Build {
        let mut build = Build::default();
        for (key, value) in &self.fields {
            let value = value.clone();
            match key.as_str() {
                "rev" => build.revision = Some(value),
                "rustc" => build.rustc = Some(value),
                "target" => build.target = Some(value),
                "profile" => build.profile = Some(value),
                "opt" => build.opt_level = Some(value),
                "lto" => build.lto = Some(value),
                "features" => build.features = Some(value),
                "build_id" => build.build_id = Some(value),
                "crates" => {
                    for entry in value.split(',') {
                        if let Some((name, version)) = entry.split_once('@') {
                            build.crates.insert(name.to_owned(), version.to_owned());
                        }
                    }
                }
                _ => {
                    build.extra.insert(key.clone(), value);
                }
            }
        }
        build
    }
}

/// What the decoder found in the byte stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Record(Record),
    /// A line of the board's free text (boot banners, a person's notes).
    Text(String),
    Rejected(DecodeError),
}

/// Splits a byte stream into lines and checks each record.
///
/// Damage is contained: a `@pqb` inside a line starts a new record, so a
/// record cut off by a reset or lost bytes is refused on its own.
#[derive(Debug, Default)]
pub struct Decoder {
    pending: Vec<u8>,
}

/// Longer than any record a board sends; past it, a line is noise.
pub const MAX_LINE: usize = 4096;

impl Decoder {
    pub fn new() -> Self {
        Decoder::default()
    }

    /// Takes the next bytes and returns what they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte == b'\n' {
                let line = core::mem::take(&mut self.pending);
                split_line(&line, &mut events);
            } else if self.pending.len() < MAX_LINE {
                self.pending.push(byte);
            } else {
                self.pending.clear();
                events.push(Event::Rejected(DecodeError::TooLong(MAX_LINE)));
            }
        }
        events
    }

    /// The stream ended: whatever is left is a cut-off line.
    pub fn finish(&mut self) -> Vec<Event> {
        let line = core::mem::take(&mut self.pending);
        let mut events = Vec::new();
        split_line(&line, &mut events);
        events
    }
}

fn split_line(line: &[u8], events: &mut Vec<Event>) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let marker = MARKER_FAMILY.as_bytes();
    let mut starts: Vec<usize> =
        line.windows(marker.len()).enumerate().filter(|(_, w)| *w == marker).map(|(i, _)| i).collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(line.len());
        let piece = &line[start..end];
        if piece.is_empty() {
            continue;
        }
        if !piece.starts_with(marker) {
            let text = String::from_utf8_lossy(piece).trim_end().to_string();
            if !text.is_empty() {
                events.push(Event::Text(text));
            }
            continue;
        }
        events.push(match parse_record(piece) {
            Ok(record) => Event::Record(record),
            Err(error) => Event::Rejected(error),
        });
    }
}

fn malformed(what: impl Into<String>) -> DecodeError {
    DecodeError::Malformed(what.into())
}

fn shorten(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.chars().take(80).collect()
}

/// Checks and parses one record (without its line end).
pub fn parse_record(line: &[u8]) -> Result<Record, DecodeError> {
    let version_end = line.iter().position(|&b| b == b' ').unwrap_or(line.len());
    if &line[..version_end] != MARKER.as_bytes() {
        return Err(DecodeError::UnsupportedVersion(shorten(&line[..version_end])));
    }
    let star =
        line.windows(2).rposition(|w| w == b" *").ok_or_else(|| DecodeError::Truncated(shorten(line)))?;
    let (body, sent) = (&line[..star], &line[star + 2..]);
    if sent.len() != 8 {
        return Err(DecodeError::Truncated(shorten(line)));
    }
    let sent = core::str::from_utf8(sent)
        .ok()
        .filter(|s| s.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .ok_or_else(|| DecodeError::Truncated(shorten(line)))?;
    let computed = CRC.checksum(body);
    if sent != computed {
        return Err(DecodeError::BadChecksum { sent, computed });
    }
    // The checksum held, so the body is what the board wrote: printable ASCII.
    let body = core::str::from_utf8(body).map_err(|_| malformed("record is not ASCII"))?;
    let mut words = body.split(' ').skip(1);
    let kind = words.next().ok_or_else(|| malformed("record without a kind"))?;
    let mut fields = BTreeMap::new();
    for word in words {
        let (key, value) =
            word.split_once('=').ok_or_else(|| malformed(alloc::format!("field {word:?} has no '='")))?;
        if fields.insert(key.to_owned(), percent_decode(value)?).is_some() {
            return Err(malformed(alloc::format!("field {key:?} given twice")));
        }
    }
    let fields = Fields { kind, fields };
    match kind {
        kind::HELLO => Ok(Record::Hello(Hello { fields: fields.fields })),
        kind::BEGIN => Ok(Record::Begin { operations: fields.number("operations")? }),
        kind::OP => Ok(Record::Progress {
            algorithm: fields.name("alg", Algorithm::from_name)?,
            operation: fields.name("op", Operation::from_name)?,
            index: fields.number("n")?,
            total: fields.number("of")?,
        }),
        kind::MEASURING => fields.measuring().map(Record::Measuring),
        kind::RESULT => fields.measurement().map(Record::Result),
        kind::END => Ok(Record::End { results: fields.number("results")? }),
        kind::ERROR => Ok(Record::Error { message: fields.text("msg")?.to_owned() }),
        kind::CALIBRATION => Ok(Record::Calibration {
            stack_buffer: fields.number("stack_buffer")?,
            stack: fields.optional("stack")?,
            heap_buffer: fields.number("heap_buffer")?,
            heap: fields.optional("heap")?,
            allocs: fields.optional("allocs")?,
        }),
        other => Err(malformed(alloc::format!("unknown record kind {other:?}"))),
    }
}

/// Checks and parses a record that arrived as a rendered defmt message.
///
/// A board on defmt sends a record's fields as typed arguments of a fixed
/// message, rendered on the host as `@pqb1 <kind> key=value ... *<crc>`
/// with values as they are (not percent-encoded), optional fields as
/// `None` or `Some(value)`, and the CRC the board computed over the record's
/// text line. The line is rebuilt here and its CRC checked, so a record on
/// defmt is refused or accepted exactly as the same record on a serial line.
///
/// A value runs to the next ` key=`; the `msg` of an error record, always
/// its last field, runs to the checksum, so it may hold any text.
pub fn parse_rendered(text: &str) -> Result<Record, DecodeError> {
    let (marker, rest) = text.split_once(' ').unwrap_or((text, ""));
    if marker != MARKER {
        return Err(DecodeError::UnsupportedVersion(shorten(marker.as_bytes())));
    }
    let (body, sent) =
        rest.rsplit_once(" *").ok_or_else(|| DecodeError::Truncated(shorten(text.as_bytes())))?;
    let sent = Some(sent)
        .filter(|s| s.len() == 8 && s.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .ok_or_else(|| DecodeError::Truncated(shorten(text.as_bytes())))?;
    let (kind, mut fields) = body.split_once(' ').unwrap_or((body, ""));

    let mut line = String::new();
    let mut record =
        crate::RecordWriter::begin(&mut line, kind).map_err(|_| malformed("record kind is not writable"))?;
    while !fields.is_empty() {
        let (key, value) =
            fields.split_once('=').ok_or_else(|| malformed(alloc::format!("field {fields:?} has no '='")))?;
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
            return Err(malformed(alloc::format!("bad field name {key:?}")));
        }
        let end = if key == "msg" { value.len() } else { next_field(value).unwrap_or(value.len()) };
        let (value, rest) = value.split_at(end);
        fields = rest.strip_prefix(' ').unwrap_or(rest);
        let value = match value {
            "None" => continue,
            _ => value.strip_prefix("Some(").and_then(|v| v.strip_suffix(')')).unwrap_or(value),
        };
        record.field(key, value).map_err(|_| malformed("field is not writable"))?;
    }
    let computed = record.checksum();
    if sent != computed {
        return Err(DecodeError::BadChecksum { sent, computed });
    }
    line.push_str(&alloc::format!(" *{computed:08x}"));
    parse_record(line.as_bytes())
}

/// Where the next ` key=` starts in a rendered value, if anywhere.
fn next_field(value: &str) -> Option<usize> {
    let bytes = value.as_bytes();
    bytes.iter().enumerate().filter(|&(_, &b)| b == b' ').map(|(i, _)| i).find(|&space| {
        let name = &bytes[space + 1..];
        let len =
            name.iter().take_while(|&&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_').count();
        len > 0 && name.get(len) == Some(&b'=') && !name[0].is_ascii_digit()
    })
}

fn percent_decode(value: &str) -> Result<String, DecodeError> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| core::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| malformed("bad percent escape"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| malformed("value is not UTF-8"))
}

struct Fields<'a> {
    kind: &'a str,
    fields: BTreeMap<String, String>,
}

impl Fields<'_> {
    fn text(&self, key: &str) -> Result<&str, DecodeError> {
        self.fields
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| malformed(alloc::format!("{} record without {key}", self.kind)))
    }

    fn number<N: core::str::FromStr>(&self, key: &str) -> Result<N, DecodeError> {
        let text = self.text(key)?;
        text.parse().map_err(|_| malformed(alloc::format!("{key}={text:?} is not a number")))
    }

    fn optional<N: core::str::FromStr>(&self, key: &str) -> Result<Option<N>, DecodeError> {
        match self.fields.get(key) {
            None => Ok(None),
            Some(_) => self.number(key).map(Some),
        }
    }

    fn name<T, E>(&self, key: &str, parse: impl Fn(&str) -> Result<T, E>) -> Result<T, DecodeError> {
        let text = self.text(key)?;
        parse(text).map_err(|_| malformed(alloc::format!("unknown {key} {text:?}")))
    }

    fn measuring(&self) -> Result<Measuring, DecodeError> {
        let m = Measuring {
            algorithm: self.name("alg", Algorithm::from_name)?,
            operation: self.name("op", Operation::from_name)?,
            min_time_ms: self.number("min_ms")?,
            beat_ms: self.number("beat_ms")?,
            calls: self.number("calls")?,
            elapsed_ticks: self.number("elapsed")?,
            slowest_ticks: self.number("slowest")?,
        };
        if !m.is_consistent() {
            return Err(malformed("measuring figures contradict each other"));
        }
        Ok(m)
    }

    fn measurement(&self) -> Result<Measurement, DecodeError> {
        let status = self.name("status", Status::from_name)?;
        let mut m = Measurement::untimed(
            self.name("alg", Algorithm::from_name)?,
            self.name("op", Operation::from_name)?,
            status,
        );
        if status == Status::Ok {
            m.iterations = self.number("iters")?;
            m.total_ticks = self.number("total")?;
            m.min_ticks = self.number("min")?;
            m.median_ticks = self.number("median")?;
            m.max_ticks = self.number("max")?;
        }
        m.heap_bytes = self.optional("heap")?;
        m.heap_allocs = self.optional("allocs")?;
        m.stack_bytes = self.optional("stack")?;
        m.stack_depth_bytes = self.optional("depth")?;
        m.bytes_per_op = self.optional("bytes")?;
        m.needed_bytes = self.optional("needs")?;
        m.batch = self.optional("batch")?;
        m.stdev_ticks = self.optional("sd")?;
        m.p10_ticks = self.optional("p10")?;
        m.p90_ticks = self.optional("p90")?;
        m.p99_ticks = self.optional("p99")?;
        if self.fields.contains_key("keys") {
            m.key_format = Some(self.name("keys", KeyFormat::from_name)?);
        }
        if self.fields.contains_key("reason") {
            m.failure = Some(self.name("reason", Failure::from_name)?);
        }
        if !m.is_consistent() {
            return Err(malformed("result figures contradict each other"));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests;
