//! The host half: bytes from a serial port in, checked records out.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pqbench_types::{Algorithm, Build, Clock, Failure, Measurement, Measuring, Operation, Status, TickUnit};

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
        m.bytes_per_op = self.optional("bytes")?;
        m.needed_bytes = self.optional("needs")?;
        m.batch = self.optional("batch")?;
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
mod tests {
    use super::*;
    use crate::{RecordWriter, write_measurement, write_measuring};

    fn sample() -> Measurement {
        Measurement {
            iterations: 12,
            total_ticks: 3_468_123,
            min_ticks: 288_900,
            median_ticks: 289_010,
            max_ticks: 289_400,
            heap_bytes: Some(4736),
            heap_allocs: Some(3),
            stack_bytes: Some(27_712),
            ..Measurement::untimed(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
        }
    }

    fn encoded(m: &Measurement) -> String {
        let mut line = String::new();
        write_measurement(&mut line, m).unwrap();
        line
    }

    #[test]
    fn a_result_reads_back_exactly() {
        let line = encoded(&sample());
        assert!(line.ends_with("\r\n"));
        let events = Decoder::new().push(line.as_bytes());
        assert_eq!(events, [Event::Record(Record::Result(sample()))]);
    }

    #[test]
    fn a_batched_result_reads_back_with_its_batch() {
        let m = Measurement { iterations: 12 * 64, total_ticks: 3_468_123 * 64, batch: Some(64), ..sample() };
        assert_eq!(Decoder::new().push(encoded(&m).as_bytes()), [Event::Record(Record::Result(m))]);
        assert_eq!(parse_rendered(&rendered(&m, crc_of(&m))), Ok(Record::Result(m)));
    }

    #[test]
    fn unmeasured_fields_stay_unmeasured() {
        let mut m = Measurement::untimed(Algorithm::MlDsa65, Operation::Sign, Status::DoesNotFit);
        m.needed_bytes = Some(102_400);
        let events = Decoder::new().push(encoded(&m).as_bytes());
        assert_eq!(events, [Event::Record(Record::Result(m))]);
    }

    #[test]
    fn a_failed_result_reads_back_with_its_reason() {
        let mut m = Measurement::untimed(Algorithm::MlDsa44, Operation::Sign, Status::Failed);
        m.failure = Some(Failure::KnownAnswer);
        let line = encoded(&m);
        assert!(line.contains(" reason=known_answer "), "{line}");
        assert_eq!(Decoder::new().push(line.as_bytes()), [Event::Record(Record::Result(m))]);
        // As the host renders the firmware's defmt message for it.
        let text = alloc::format!(
            "@pqb1 result alg=ML-DSA-44 op=sign status=failed heap=None allocs=None stack=None bytes=None needs=None batch=None reason=known_answer *{:08x}",
            crc_of(&m)
        );
        assert_eq!(parse_rendered(&text), Ok(Record::Result(m)));
        // A reason no host knows is refused, not dropped.
        let body = &line[..line.len() - 12].replace("known_answer", "cosmic_ray");
        let unknown = alloc::format!("{body} *{:08x}\r\n", CRC.checksum(body.as_bytes()));
        assert!(matches!(
            &Decoder::new().push(unknown.as_bytes())[0],
            Event::Rejected(DecodeError::Malformed(_))
        ));
    }

    #[test]
    fn values_with_spaces_are_escaped_and_restored() {
        let mut line = String::new();
        let mut w = RecordWriter::begin(&mut line, "hello").unwrap();
        w.field("rustc", "rustc 1.96.0 (x=y *z) 100%").unwrap();
        w.field("ticks_per_second", 25_000_000).unwrap();
        w.field("tick_unit", "qemu-instructions/40").unwrap();
        w.field("crates", "ml-kem@0.3.4,rand_chacha@0.10.0").unwrap();
        w.finish().unwrap();
        assert!(!line[..line.len() - 2].contains("  "));
        let [Event::Record(Record::Hello(hello))] = &Decoder::new().push(line.as_bytes())[..] else {
            panic!("{line}")
        };
        assert_eq!(hello.get("rustc"), Some("rustc 1.96.0 (x=y *z) 100%"));
        assert_eq!(hello.clock().unwrap().unit, TickUnit::QemuInstructions { per_tick: 40 });
        assert_eq!(hello.build().crates["ml-kem"], "0.3.4");
    }

    #[test]
    fn a_flipped_byte_is_rejected_and_the_next_record_lands() {
        let mut stream = encoded(&sample()).into_bytes();
        let digit = stream.iter().position(|&b| b == b'3').unwrap();
        stream[digit] = b'4';
        stream.extend_from_slice(encoded(&sample()).as_bytes());
        let events = Decoder::new().push(&stream);
        assert!(matches!(events[0], Event::Rejected(DecodeError::BadChecksum { .. })), "{events:?}");
        assert_eq!(events[1], Event::Record(Record::Result(sample())));
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn a_cut_off_record_is_rejected_and_the_next_record_lands() {
        let whole = encoded(&sample());
        let mut stream = whole.as_bytes()[..40].to_vec();
        stream.extend_from_slice(whole.as_bytes());
        let events = Decoder::new().push(&stream);
        assert!(matches!(events[0], Event::Rejected(DecodeError::Truncated(_))), "{events:?}");
        assert_eq!(events[1], Event::Record(Record::Result(sample())));
    }

    #[test]
    fn a_record_split_across_reads_is_whole() {
        let whole = encoded(&sample());
        let mut decoder = Decoder::new();
        let mut events = Vec::new();
        for chunk in whole.as_bytes().chunks(7) {
            events.extend(decoder.push(chunk));
        }
        assert_eq!(events, [Event::Record(Record::Result(sample()))]);
    }

    #[test]
    fn free_text_is_kept_as_text() {
        let events = Decoder::new().push(b"pqbench firmware booting\r\n");
        assert_eq!(events, [Event::Text("pqbench firmware booting".into())]);
    }

    #[test]
    fn a_newer_format_is_refused_by_name() {
        let events = Decoder::new().push(b"@pqb2 result x=1 *00000000\r\n");
        assert!(matches!(&events[0], Event::Rejected(DecodeError::UnsupportedVersion(v)) if v == "@pqb2"));
    }

    #[test]
    fn impossible_figures_are_refused_even_with_a_good_checksum() {
        let mut m = sample();
        m.min_ticks = m.max_ticks + 1;
        let events = Decoder::new().push(encoded(&m).as_bytes());
        assert!(matches!(events[0], Event::Rejected(DecodeError::Malformed(_))), "{events:?}");
    }

    #[test]
    fn an_endless_line_is_dropped_not_buffered() {
        let mut decoder = Decoder::new();
        let events = decoder.push(&[b'x'; MAX_LINE + 10]);
        assert_eq!(events, [Event::Rejected(DecodeError::TooLong(MAX_LINE))]);
        assert!(decoder.pending.len() < MAX_LINE);
    }

    /// What the host renders from the firmware's defmt result message.
    fn rendered(m: &Measurement, crc: u32) -> String {
        let opt = |v: Option<u32>| v.map_or("None".into(), |v| alloc::format!("Some({v})"));
        alloc::format!(
            "@pqb1 result alg={} op={} status={} iters={} total={} min={} median={} max={} heap={} allocs={} stack={} bytes={} needs={} batch={} *{crc:08x}",
            m.algorithm,
            m.operation,
            m.status,
            m.iterations,
            m.total_ticks,
            m.min_ticks,
            m.median_ticks,
            m.max_ticks,
            opt(m.heap_bytes),
            opt(m.heap_allocs),
            opt(m.stack_bytes),
            opt(m.bytes_per_op),
            opt(m.needed_bytes),
            opt(m.batch),
        )
    }

    fn crc_of(m: &Measurement) -> u32 {
        let line = encoded(m);
        u32::from_str_radix(&line[line.len() - 10..line.len() - 2], 16).unwrap()
    }

    #[test]
    fn a_rendered_record_reads_back_as_its_line_does() {
        let text = rendered(&sample(), crc_of(&sample()));
        assert_eq!(parse_rendered(&text), Ok(Record::Result(sample())));
    }

    #[test]
    fn a_rendered_record_with_a_changed_value_is_refused() {
        let text = rendered(&sample(), crc_of(&sample())).replace("iters=12", "iters=13");
        assert!(matches!(parse_rendered(&text), Err(DecodeError::BadChecksum { .. })), "{text}");
    }

    #[test]
    fn rendered_text_values_may_hold_spaces_and_an_error_any_text() {
        let mut line = String::new();
        let mut w = RecordWriter::begin(&mut line, "hello").unwrap();
        w.field("rustc", "rustc 1.96.0 (x *z) 100%").unwrap();
        w.field("ticks_per_second", 25_000_000).unwrap();
        let crc = w.checksum();
        let text =
            alloc::format!("@pqb1 hello rustc=rustc 1.96.0 (x *z) 100% ticks_per_second=25000000 *{crc:08x}");
        let Ok(Record::Hello(hello)) = parse_rendered(&text) else { panic!("{text}") };
        assert_eq!(hello.get("rustc"), Some("rustc 1.96.0 (x *z) 100%"));

        let message = "panic: index=3 len=2 at src/x.rs:1";
        let mut line = String::new();
        let mut w = RecordWriter::begin(&mut line, "error").unwrap();
        w.field("msg", message).unwrap();
        let text = alloc::format!("@pqb1 error msg={message} *{:08x}", w.checksum());
        assert_eq!(parse_rendered(&text), Ok(Record::Error { message: message.into() }));
    }

    #[test]
    fn rendered_text_of_another_version_or_without_a_sum_is_refused() {
        assert!(matches!(
            parse_rendered("@pqb2 end results=1 *00000000"),
            Err(DecodeError::UnsupportedVersion(_))
        ));
        assert!(matches!(parse_rendered("@pqb1 end results=1"), Err(DecodeError::Truncated(_))));
    }

    fn measuring() -> Measuring {
        Measuring {
            algorithm: Algorithm::Rsa2048,
            operation: Operation::Private,
            min_time_ms: 60_000,
            beat_ms: 1000,
            calls: 12,
            elapsed_ticks: 26_611_308,
            slowest_ticks: 2_218_096,
        }
    }

    fn encoded_measuring(m: &Measuring) -> String {
        let mut line = String::new();
        write_measuring(&mut line, m).unwrap();
        line
    }

    #[test]
    fn a_measuring_record_reads_back_exactly() {
        let line = encoded_measuring(&measuring());
        assert!(
            line.starts_with(
                "@pqb1 measuring alg=RSA-2048 op=private min_ms=60000 beat_ms=1000 calls=12 elapsed=26611308 slowest=2218096 *"
            ),
            "{line}"
        );
        assert_eq!(Decoder::new().push(line.as_bytes()), [Event::Record(Record::Measuring(measuring()))]);
        // The one before the first call: nothing timed yet.
        let before = Measuring { calls: 0, elapsed_ticks: 0, slowest_ticks: 0, ..measuring() };
        let line = encoded_measuring(&before);
        assert_eq!(Decoder::new().push(line.as_bytes()), [Event::Record(Record::Measuring(before))]);
    }

    #[test]
    fn a_rendered_measuring_record_reads_back_as_its_line_does() {
        // The firmware's defmt message, as the host renders it.
        let m = measuring();
        let line = encoded_measuring(&m);
        let crc = &line[line.len() - 10..line.len() - 2];
        let text = alloc::format!(
            "@pqb1 measuring alg={} op={} min_ms={} beat_ms={} calls={} elapsed={} slowest={} *{crc}",
            m.algorithm,
            m.operation,
            m.min_time_ms,
            m.beat_ms,
            m.calls,
            m.elapsed_ticks,
            m.slowest_ticks
        );
        assert_eq!(parse_rendered(&text), Ok(Record::Measuring(m)));
        let changed = text.replace("calls=12", "calls=13");
        assert!(matches!(parse_rendered(&changed), Err(DecodeError::BadChecksum { .. })), "{changed}");
    }

    #[test]
    fn a_measuring_record_that_contradicts_itself_or_lacks_a_field_is_refused() {
        let contradictions = [
            Measuring { slowest_ticks: 26_611_309, ..measuring() },
            Measuring { calls: 0, ..measuring() },
            Measuring { beat_ms: 0, ..measuring() },
        ];
        for m in contradictions {
            let events = Decoder::new().push(encoded_measuring(&m).as_bytes());
            assert!(matches!(events[..], [Event::Rejected(DecodeError::Malformed(_))]), "{m:?}: {events:?}");
        }
        // A good checksum over a record without `slowest`.
        let mut line = String::new();
        let mut w = RecordWriter::begin(&mut line, "measuring").unwrap();
        for (key, value) in [("alg", "RSA-2048"), ("op", "private"), ("min_ms", "0"), ("beat_ms", "1000")] {
            w.field(key, value).unwrap();
        }
        w.field("calls", 1).unwrap();
        w.field("elapsed", 5).unwrap();
        w.finish().unwrap();
        let events = Decoder::new().push(line.as_bytes());
        assert!(
            matches!(&events[..], [Event::Rejected(DecodeError::Malformed(why))] if why.contains("slowest")),
            "{events:?}"
        );
    }
}
