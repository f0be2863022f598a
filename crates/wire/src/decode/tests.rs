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
        stack_depth_bytes: Some(30_104),
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
fn a_result_reads_back_with_its_spread_and_without_it_from_older_firmware() {
    let m = Measurement { stdev_ticks: Some(151), ..sample() };
    assert!(encoded(&m).contains(" sd=151 "));
    assert_eq!(Decoder::new().push(encoded(&m).as_bytes()), [Event::Record(Record::Result(m))]);
    assert_eq!(parse_rendered(&rendered(&m, crc_of(&m))), Ok(Record::Result(m)));
    // Firmware from before `sd`: the same record, its spread unknown.
    assert!(!encoded(&sample()).contains(" sd="));
    assert_eq!(Decoder::new().push(encoded(&sample()).as_bytes()), [Event::Record(Record::Result(sample()))]);
}

#[test]
fn a_result_reads_back_with_its_percentiles_and_key_format_and_without_them_from_older_firmware() {
    let m = Measurement {
        p10_ticks: Some(288_950),
        p90_ticks: Some(289_200),
        p99_ticks: Some(289_390),
        key_format: Some(KeyFormat::Encoded),
        ..sample()
    };
    let line = encoded(&m);
    assert!(line.contains(" p10=288950 p90=289200 p99=289390 keys=encoded "), "{line}");
    assert_eq!(Decoder::new().push(line.as_bytes()), [Event::Record(Record::Result(m))]);
    assert_eq!(parse_rendered(&rendered(&m, crc_of(&m))), Ok(Record::Result(m)));
    // Each on its own, as a board says what it has.
    for key_format in KeyFormat::ALL {
        let m = Measurement { key_format: Some(*key_format), ..sample() };
        assert_eq!(parse_rendered(&rendered(&m, crc_of(&m))), Ok(Record::Result(m)));
    }
    // Firmware from before them: the same record, none of them said.
    assert!(!encoded(&sample()).contains(" p10=") && !encoded(&sample()).contains(" keys="));
    // A key format pqbench does not know, or a percentile outside the
    // samples, is refused as the record is read.
    let body = &line[..line.len() - 12].replace("keys=encoded", "keys=compressed");
    let unknown = alloc::format!("{body} *{:08x}\r\n", CRC.checksum(body.as_bytes()));
    let events = Decoder::new().push(unknown.as_bytes());
    assert!(
        matches!(&events[0], Event::Rejected(DecodeError::Malformed(why)) if why.contains("keys")),
        "{events:?}"
    );
    let outside = Measurement { p99_ticks: Some(289_401), ..m };
    let events = Decoder::new().push(encoded(&outside).as_bytes());
    assert!(matches!(events[0], Event::Rejected(DecodeError::Malformed(_))), "{events:?}");
}

#[test]
fn a_spread_wider_than_the_samples_is_refused() {
    // min 288,900 and max 289,400: no sample lies 502 ticks from the mean.
    let m = Measurement { stdev_ticks: Some(502), ..sample() };
    let events = Decoder::new().push(encoded(&m).as_bytes());
    assert!(matches!(events[0], Event::Rejected(DecodeError::Malformed(_))), "{events:?}");
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
    let opt64 = |v: Option<u64>| v.map_or("None".into(), |v| alloc::format!("Some({v})"));
    alloc::format!(
        "@pqb1 result alg={} op={} status={} iters={} total={} min={} median={} max={} heap={} allocs={} stack={} depth={} bytes={} needs={} batch={} sd={} p10={} p90={} p99={} keys={} *{crc:08x}",
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
        opt(m.stack_depth_bytes),
        opt(m.bytes_per_op),
        opt(m.needed_bytes),
        opt(m.batch),
        opt64(m.stdev_ticks),
        opt64(m.p10_ticks),
        opt64(m.p90_ticks),
        opt64(m.p99_ticks),
        m.key_format.map_or("None", KeyFormat::as_str),
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
