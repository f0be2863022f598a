//! The `-csv` and machine-parseable CSV tables.

use super::*;

// -csv: "Symmetric Ciphers:" / "Asymmetric Ciphers:", then a header and rows
// (normal CSV of 5.x: "%s,%d,%s%s,%.3f,%.3f," after "Algorithm,key size,operation,avg ms,ops/sec,").
#[test]
fn csv_output() {
    let text = "\
wolfCrypt Benchmark (block bytes 1048576, min 1.0 sec each)


Symmetric Ciphers:

Algorithm,MB/s,Cycles per byte,
AES-128-CBC-enc,679.150,3.51,

Asymmetric Ciphers:

Algorithm,key size,operation,avg ms,ops/sec,
RSA,2048,public,0.030,33201.290,
ECC   [      SECP256R1],256,key gen,0.029,34862.768,
ML-KEM 768 ,192,encap,0.021,47619.048,
Benchmark complete
";
    let log = parse(text, None).unwrap();
    assert_eq!(results(&log).len(), 4);
    let rsa = find(&log, Algorithm::Rsa2048, Operation::Public);
    assert_eq!((rsa.avg_ms, rsa.ops_per_sec, rsa.iterations), (Some(0.030), Some(33201.290), None));
    assert_eq!(find(&log, Algorithm::EcdhP256, Operation::Keygen).avg_ms, Some(0.029));
    assert_eq!(find(&log, Algorithm::MlKem768, Operation::Encaps).ops_per_sec, Some(47619.048));
    // The -csv throughput has no fixed unit, so it is not stored; its
    // cycles per byte are, and the row lands with them.
    assert_eq!(log.unread, []);
    let cbc = find(&log, Algorithm::Aes128Cbc, Operation::Encrypt);
    assert_eq!(cbc.bytes_per_sec, None, "no clock given: no throughput");
    let note = cbc.note.as_deref().unwrap();
    assert!(note.contains("3.51 cycles per byte (as printed)"), "{note}");
    assert!(
        note.contains("printed rate 679.150 under \"MB/s\", its unit not fixed by wolfCrypt: not stored"),
        "{note}"
    );
    // banner, 2 titles, 2 headers, "Benchmark complete"
    assert_eq!(log.understood_lines, 6);
    // With the clock given at import, the throughput from them.
    let clocked = parse(text, Some(168_000_000)).unwrap();
    let cbc = find(&clocked, Algorithm::Aes128Cbc, Operation::Encrypt);
    assert_eq!(cbc.bytes_per_sec, Some(168e6 / 3.51));
    assert!(cbc.note.as_deref().unwrap().contains("throughput from 3.51 cycles per byte at 168000000 Hz"));
    // Without cycles per byte, a -csv rate alone is still refused.
    let rate_only = "Symmetric Ciphers:\nAlgorithm,MB/s,\nAES-128-CBC-enc,679.150,\nRSA     2048  public      3486 ops took 1.000 sec, avg 0.287 ms, 3485.063 ops/sec\n";
    let log = parse(rate_only, None).unwrap();
    assert!(log.unread[0].reason.contains("whose unit wolfCrypt does not fix"), "{:?}", log.unread);
}

// Newer -csv with HW/SW, cycles/op and the heap/stack columns
// (",heap_bytes,heap_allocs" ",stack_bytes" and bench_append_memory_info's ",%ld,%ld,%ld").
#[test]
fn csv_with_memory_columns() {
    let text = "\
Asymmetric Ciphers:
Algorithm,key size,operation,ops/sec,cycles/op,heap_bytes,heap_allocs,stack_bytes,
ML-DSA,65,verify,36.574,4374617.000,9128,1,1416
";
    let r = one(text);
    assert_eq!(
        (r.algorithm, r.operation, r.ops_per_sec),
        (Algorithm::MlDsa65, Operation::Verify, Some(36.574))
    );
    assert_eq!((r.cycles_per_op, r.tick_unit.as_deref()), (Some(4374617.0), Some("cycles")));
    assert_eq!((r.heap_bytes, r.heap_allocs, r.stack_bytes), (Some(9128), Some(1), Some(1416)));
}

// GENERATE_MACHINE_PARSEABLE_REPORT with -csv: "\"sym\",Algorithm,HW/SW,bytes_total,seconds_total,MB/s,cycles_total,Cycles per byte,"
// and "sym,%s,%s,%lu,%f,%f,%lu,"; "\"asym\",Algorithm,key size,operation,avg ms,ops/sec,ops,secs,cycles,cycles/op"
// and "asym,%s,%d,%s%s,%.3f,%.3f,%d,%f,%lu,%.6f".
#[test]
fn machine_parseable_rows() {
    let text = "\
\"sym\",Algorithm,HW/SW,bytes_total,seconds_total,MB/s,cycles_total,Cycles per byte,
sym,AES-256-GCM-enc,,52428800,1.002841,49.858368,3156123456,60.197,
\"asym\",Algorithm,key size,operation,avg ms,ops/sec,ops,secs,cycles,cycles/op
asym,ECDSA   [      SECP256R1],256,verify,0.061,16393.443,16400,1.000400,2900123456,176836.796098
asym,ML-KEM 1024 ,256,key gen,0.012,83333.333,83400,1.000800,2800000000,33573.141487
";
    let log = parse(text, None).unwrap();
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    let gcm = find(&log, Algorithm::Aes256Gcm, Operation::Encrypt);
    assert_eq!(gcm.total_seconds, Some(1.002841));
    assert_eq!(gcm.bytes_per_sec, Some(52428800.0 / 1.002841));
    assert!(gcm.note.as_deref().unwrap().contains("60.197 cycles per byte"));
    let verify = find(&log, Algorithm::EcdsaP256, Operation::Verify);
    assert_eq!(
        (verify.iterations, verify.total_seconds, verify.avg_ms, verify.ops_per_sec),
        (Some(16400), Some(1.0004), Some(0.061), Some(16393.443))
    );
    assert_eq!((verify.cycles_per_op, verify.tick_unit.as_deref()), (Some(176836.796098), Some("cycles")));
    assert_eq!(find(&log, Algorithm::MlKem1024, Operation::Keygen).iterations, Some(83400));
}

// MULTI_VALUE_STATISTICS's -csv columns ("max duration", "min duration", in
// seconds, stored in ms): a figure that is a number in seconds but past f64
// in milliseconds once made the row reader panic.
#[test]
fn csv_durations_out_of_range_are_reported() {
    let table = "Asymmetric Ciphers:\nAlgorithm,key size,operation,ops/sec,max duration,min duration,\n";
    let r = one(&format!("{table}ML-DSA,65,sign,79.681,0.045,0.005,\n"));
    assert_eq!((r.max_ms, r.min_ms), (Some(45.0), Some(5.0)));
    let huge = format!("1{}", "0".repeat(307));
    let text = format!(
        "{table}ML-DSA,65,sign,79.681,{huge},0.005,\nML-DSA,65,verify,1.0,0.045,-1,\nML-DSA,65,sign,1.0,0.045,0.005,\n"
    );
    let log = parse(&text, None).unwrap();
    let reasons: Vec<(u64, &str)> = log.unread.iter().map(|u| (u.line, u.reason.as_str())).collect();
    let out_of_range = format!("duration {huge} s in column MaxDuration is out of range");
    assert_eq!(reasons, [(3, out_of_range.as_str()), (4, "malformed number \"-1\" in column MinDuration")]);
}
