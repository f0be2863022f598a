//! The board record decoder on arbitrary bytes, as a serial port or a
//! damaged link delivers them: it must never panic, and what it makes of a
//! stream must not depend on how the stream was cut into reads.
//!
//! Input: a header byte (bit 0: fix up the checksums; bits 1-4: how many
//! chunk sizes follow), the chunk sizes (one byte each, 1 to 256, used in
//! turn), then the stream. Mutated records almost never carry a right CRC,
//! so without the fix-up the fuzzer would only ever reach the checksum
//! test; with it, every field parser behind it is reached too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pqbench_wire::{
    Command, Decoder, Event, Record, parse_record, parse_rendered, write_measurement, write_measuring,
};

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

fuzz_target!(|data: &[u8]| {
    let Some((&header, rest)) = data.split_first() else { return };
    let sizes = usize::from((header >> 1) & 0xF).min(rest.len());
    let (sizes, stream) = rest.split_at(sizes);
    let stream = if header & 1 == 1 { with_right_checksums(stream) } else { stream.to_vec() };

    let mut whole = Decoder::new();
    let mut once = whole.push(&stream);
    once.extend(whole.finish());

    // No sizes given: a byte at a time, the finest cut there is.
    let sizes: &[u8] = if sizes.is_empty() { &[0] } else { sizes };
    let mut chunked = Decoder::new();
    let mut pieces = Vec::new();
    let mut at = 0;
    for &size in sizes.iter().cycle() {
        if at == stream.len() {
            break;
        }
        let end = (at + usize::from(size) + 1).min(stream.len());
        pieces.extend(chunked.push(&stream[at..end]));
        at = end;
    }
    pieces.extend(chunked.finish());
    assert_eq!(once, pieces, "the same bytes in other reads decoded differently");

    for event in &once {
        if let Event::Record(record) = event {
            check(record);
        }
    }

    // The same lines as rendered defmt text, and as host commands.
    for line in String::from_utf8_lossy(&stream).split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Ok(record) = parse_rendered(line) {
            check(&record);
            // Rendered text is the text line with its values unescaped and
            // its unmeasured fields spelt out: a line both read must be the
            // same record both ways (the CRC covers the rebuilt line).
            if let Ok(text) = parse_record(line.as_bytes()) {
                assert_eq!(text, record, "{line:?} reads differently as text and as rendered defmt");
            }
        }
        if let Ok(command) = Command::parse(line) {
            let again = command.to_string();
            assert_eq!(Command::parse(&again), Ok(command), "{line:?} does not read back from {again:?}");
        }
    }
});

/// What holds for every record the decoder accepts.
fn check(record: &Record) {
    let mut line = String::new();
    match record {
        Record::Result(m) => {
            assert!(m.is_consistent(), "an accepted result contradicts itself: {m:?}");
            write_measurement(&mut line, m).expect("writing to a String");
        }
        Record::Measuring(m) => {
            assert!(m.is_consistent(), "an accepted measuring record contradicts itself: {m:?}");
            write_measuring(&mut line, m).expect("writing to a String");
        }
        _ => return,
    }
    // Encoded again, it reads back as itself.
    let mut decoder = Decoder::new();
    assert_eq!(decoder.push(line.as_bytes()), [Event::Record(record.clone())], "{line:?}");
}

/// The stream with the checksum of every line that looks like a record
/// (`@pqb1 ... *` and eight characters) set to that line's CRC.
fn with_right_checksums(stream: &[u8]) -> Vec<u8> {
    let mut out = stream.to_vec();
    let mut start = 0;
    while start < out.len() {
        let end = out[start..].iter().position(|&b| b == b'\n').map_or(out.len(), |n| start + n);
        let mut line_end = end;
        if line_end > start && out[line_end - 1] == b'\r' {
            line_end -= 1;
        }
        let line = &out[start..line_end];
        if line.starts_with(b"@pqb1")
            && let Some(star) = line.windows(2).rposition(|w| w == b" *")
            && line.len() - star - 2 >= 8
        {
            let sum = format!("{:08x}", CRC.checksum(&line[..star]));
            let at = start + star + 2;
            out[at..at + 8].copy_from_slice(sum.as_bytes());
        }
        start = end + 1;
    }
    out
}
