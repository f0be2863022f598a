//! The text lines' forms: column alignment, throughput units, the
//! heap/stack suffix and the clauses that may follow a rate.

use super::*;

// The brief's line: ML-KEM with one space between the fields and " [heap".
#[test]
fn the_ml_kem_line_of_the_brief() {
    let r = one(
        "ML-KEM 768 key gen 154 ops took 1.004 sec, avg 6.519 ms, 153.386 ops/sec [heap 2042 bytes (2 allocs), stack 1096 bytes]",
    );
    assert_eq!(r.algorithm, Algorithm::MlKem768);
    assert_eq!(r.operation, Operation::Keygen);
    assert_eq!(
        (r.iterations, r.total_seconds, r.avg_ms, r.ops_per_sec),
        (Some(154), Some(1.004), Some(6.519), Some(153.386))
    );
    assert_eq!((r.heap_bytes, r.heap_allocs, r.stack_bytes), (Some(2042), Some(2), Some(1096)));
}

// bench_stats_sym_finish: "%-24s%s %5.0f %s %s %5.3f %s, %8.3f %s/s" (5.6+),
// column-aligned as printed, with CRLF and tabs.
#[test]
fn column_aligned_symmetric_lines() {
    let text = "AES-128-GCM-enc             40 MiB took 1.078 seconds,   37.123 MiB/s\r\n\tSHA-256                    570 MiB took 1.009 seconds,  564.919 MiB/s   \r\n";
    let log = parse(text, None).unwrap();
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    let gcm = find(&log, Algorithm::Aes128Gcm, Operation::Encrypt);
    assert_eq!((gcm.total_seconds, gcm.bytes_per_sec), (Some(1.078), Some(37.123 * 1048576.0)));
    assert_eq!(find(&log, Algorithm::Sha256, Operation::Hash).bytes_per_sec, Some(564.919 * 1048576.0));
}

// bench_stats_asym_finish_ex: "%-6s %5d %8s%-2s %s %6d %s %5.3f %s, %s %5.3f ms, %.3f %s\n"
// (operation right-aligned in 8, the empty HW/SW name leaving two spaces).
#[test]
fn column_aligned_asymmetric_lines_with_right_aligned_operations() {
    let text = "\
RSA     2048   public      222 ops took 1.007 sec, avg 4.536 ms, 220.457 ops/sec
RSA     2048  private        6 ops took 1.195 sec, avg 199.167 ms, 5.021 ops/sec
DH      2048  key gen       30 ops took 1.021 sec, avg 34.033 ms, 29.383 ops/sec
ECC   [      SECP256R1]   256  key gen    1434 ops took 1.000 sec, avg 0.697 ms, 1433.881 ops/sec
ECDSA [      SECP384R1]   384     sign      600 ops took 1.117 sec, avg 1.862 ms, 537.218 ops/sec
ECDHE [      SECP521R1]   528    agree      200 ops took 1.283 sec, avg 6.415 ms, 155.888 ops/sec
CURVE  25519  key gen    46940 ops took 1.000 sec, avg 0.021 ms, 46939.906 ops/sec
ED     25519   verify    14700 ops took 1.003 sec, avg 0.068 ms, 14656.032 ops/sec
CURVE    448    agree     5300 ops took 1.009 sec, avg 0.190 ms, 5252.726 ops/sec
ED       448     sign     8500 ops took 1.007 sec, avg 0.118 ms, 8440.932 ops/sec
";
    let log = parse(text, None).unwrap();
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    assert_eq!(results(&log).len(), 10);
    let public = find(&log, Algorithm::Rsa2048, Operation::Public);
    assert_eq!(
        (public.iterations, public.avg_ms, public.ops_per_sec),
        (Some(222), Some(4.536), Some(220.457))
    );
    assert_eq!(find(&log, Algorithm::EcdhP256, Operation::Keygen).ops_per_sec, Some(1433.881));
    assert_eq!(find(&log, Algorithm::EcdsaP384, Operation::Sign).avg_ms, Some(1.862));
    // P-521's strength is its 66 key bytes × 8.
    assert_eq!(find(&log, Algorithm::EcdhP521, Operation::Agree).iterations, Some(200));
    assert_eq!(find(&log, Algorithm::X25519, Operation::Keygen).ops_per_sec, Some(46939.906));
    assert_eq!(find(&log, Algorithm::Ed25519, Operation::Verify).avg_ms, Some(0.068));
    assert_eq!(find(&log, Algorithm::X448, Operation::Agree).total_seconds, Some(1.009));
    assert_eq!(find(&log, Algorithm::Ed448, Operation::Sign).iterations, Some(8500));
    assert!(results(&log).iter().all(|r| r.note.is_none()), "{:#?}", results(&log));
}

// Older releases: bench_stats_asym_finish("ECC", keySize * 8, ...) without the curve.
#[test]
fn older_ecc_lines_without_the_curve() {
    let r = one("ECC      256 key gen      4 ops took 1.148 sec, avg 287.000 ms, 3.484 ops/sec");
    assert_eq!((r.algorithm, r.operation, r.avg_ms), (Algorithm::EcdhP256, Operation::Keygen, Some(287.0)));
    assert!(r.note.as_deref().unwrap().contains("NIST P-256"));
    let r = one("ECDSA    256 verify       2 ops took 1.195 sec, avg 597.500 ms, 1.674 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::EcdsaP256, Operation::Verify));
}

// The liboqs-era form (wolfSSL 4.x to 5.5): the curve's name where the
// strength would be, unbracketed; read as its bracketed form is.
#[test]
fn ecc_lines_with_the_curve_and_no_key_size() {
    let r = one("ECC   SECP256R1 key gen    2 ops took 1.011 sec, avg 505.500 ms, 1.978 ops/sec");
    assert_eq!((r.algorithm, r.operation, r.iterations), (Algorithm::EcdhP256, Operation::Keygen, Some(2)));
    assert_eq!((r.avg_ms, r.ops_per_sec), (Some(505.5), Some(1.978)));
    let bracketed = one("ECC   [SECP256R1] key gen    2 ops took 1.011 sec, avg 505.500 ms, 1.978 ops/sec");
    assert_eq!(r, bracketed, "the same line, either way");
    let r = one("ECDSA SECP384R1 sign     200 ops took 1.002 sec, avg 5.010 ms, 199.601 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::EcdsaP384, Operation::Sign));
    let r = one("ECDHE SECP521R1 agree     100 ops took 1.003 sec, avg 10.030 ms, 99.701 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::EcdhP521, Operation::Agree));
    // A word that is not a curve's name is not taken for one.
    let reason = unread_reason("ECC   fast key gen    2 ops took 1.011 sec, avg 505.500 ms, 1.978 ops/sec");
    assert_eq!(reason, "no key size or strength before the operation");
}

// A log whose every line carries one tag (an RTOS's or logger's) is read
// without it; the tag is taken off only when the log as it is gives nothing.
#[test]
fn a_log_whose_every_line_is_tagged() {
    let text = "\
[WOLFCRYPT]: ------------------------------------------------------------------------------
[WOLFCRYPT]:  wolfSSL version 5.7.2
[WOLFCRYPT]: ------------------------------------------------------------------------------
[WOLFCRYPT]: wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)
[WOLFCRYPT]: SHA-256                      2 MiB took 1.004 seconds,    2.213 MiB/s
[WOLFCRYPT]: RSA     2048  public       162 ops took 1.004 sec, avg 6.198 ms, 161.354 ops/sec
[WOLFCRYPT]: Benchmark complete
";
    let log = parse(text, None).unwrap();
    assert_eq!(log.unread, []);
    assert_eq!(log.version.as_deref(), Some("5.7.2"));
    assert_eq!(find(&log, Algorithm::Rsa2048, Operation::Public).avg_ms, Some(6.198));
    assert_eq!(find(&log, Algorithm::Sha256, Operation::Hash).total_seconds, Some(1.004));
    let untagged: String = text.lines().map(|l| format!("{}\n", &l["[WOLFCRYPT]: ".len()..])).collect();
    assert_eq!(parse(&untagged, None).unwrap().groups, log.groups, "the same figures as the untagged log");
    // Lines that merely start alike keep their start: "RSA     2048  " is
    // no tag (it ends in no tag mark), and the log reads as it is.
    let alike = "RSA     2048  public       162 ops took 1.004 sec, avg 6.198 ms, 161.354 ops/sec\nRSA     2048  private        6 ops took 1.170 sec, avg 195.000 ms, 5.128 ops/sec\n";
    assert_eq!(parse(alike, None).unwrap().results().count(), 2);
    // Tags that differ line by line (a timestamp) are not one tag.
    let stamped = "[0.001] RSA     2048  public       162 ops took 1.004 sec, avg 6.198 ms, 161.354 ops/sec\n[1.005] RSA     2048  private        6 ops took 1.170 sec, avg 195.000 ms, 5.128 ops/sec\n";
    assert!(parse(stamped, None).is_err());
}

// Every throughput unit of get_blocktype (base 2) and get_blocktype_base10,
// and the older base-10 "kB"/"mB", with the bytes they stand for.
#[test]
fn every_throughput_unit() {
    let rate = |line: &str| one(line).bytes_per_sec.unwrap();
    // base 2 (5.6+): KiB, MiB, GiB (WOLFSSL_BENCHMARK_FIXED_UNITS_GB), bytes.
    assert_eq!(rate("RNG 425 KiB took 1.039 seconds, 409.047 KiB/s"), 409.047 * 1024.0);
    assert_eq!(rate("RNG 9 MiB took 1.000 seconds, 8.521 MiB/s"), 8.521 * 1048576.0);
    assert_eq!(rate("AES-128-GCM-enc 2 GiB took 1.000 seconds, 2.125 GiB/s"), 2.125 * 1073741824.0);
    assert_eq!(rate("RNG 1000 bytes took 1.000 seconds, 1000.000 bytes/s"), 1000.0);
    // base 10 (-base10, 5.6+, told by a KiB/MiB line in the same log).
    let log = parse(
        "SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s\n\
         SHA-512 15 MB took 1.000 seconds, 15.130 MB/s\n\
         SHA-384 975 KB took 1.016 seconds, 959.646 KB/s\n\
         SHA3-256 2 GB took 1.000 seconds, 2.000 GB/s\n",
        None,
    )
    .unwrap();
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    let sha512 = find(&log, Algorithm::Sha512, Operation::Hash);
    assert_eq!(sha512.bytes_per_sec, Some(15_130_000.0));
    assert!(sha512.note.as_deref().unwrap().contains("MB = 10^6 bytes"), "{:?}", sha512.note);
    assert_eq!(find(&log, Algorithm::Sha384, Operation::Hash).bytes_per_sec, Some(959_646.0));
    assert_eq!(find(&log, Algorithm::Sha3_256, Operation::Hash).bytes_per_sec, Some(2e9));
    // base 10 by version: wolfSSL 5.6 and later print MB only with -base10.
    let log = parse(" wolfSSL version 5.7.2\nSHA-512 15 MB took 1.000 seconds, 15.130 MB/s\n", None).unwrap();
    assert_eq!(log.version.as_deref(), Some("5.7.2"));
    assert_eq!(results(&log)[0].bytes_per_sec, Some(15_130_000.0));
    // Older releases: "MB"/"KB" are base 2 (the RT1060 4.5.0 log: RNG 100 KB of 1024-byte blocks).
    let log = parse(
        "------------------------------------------------------------------------------\n\
          wolfSSL version 4.5.0\n\
         ------------------------------------------------------------------------------\n\
         wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)\n\
         RNG                100 KB took 1.167 seconds,   85.690 KB/s\n\
         AES-128-CBC-enc     10 MB took 1.002 seconds,    9.819 MB/s\n",
        None,
    )
    .unwrap();
    assert_eq!(log.version.as_deref(), Some("4.5.0"));
    assert_eq!(log.understood_lines, 4);
    let rng = find(&log, Algorithm::Rng, Operation::Generate);
    assert_eq!(rng.bytes_per_sec, Some(85.690 * 1024.0));
    assert!(rng.note.as_deref().unwrap().contains("KB = 2^10 bytes (wolfSSL before 5.6"), "{:?}", rng.note);
    assert_eq!(find(&log, Algorithm::Aes128Cbc, Operation::Encrypt).bytes_per_sec, Some(9.819 * 1048576.0));
    // No version, no KiB: the older meaning too.
    assert_eq!(rate("RNG 20 MB took 1.053 seconds, 18.988 MB/s"), 18.988 * 1048576.0);
    // Releases before 5.6 with -base10: "kB", "mB".
    assert_eq!(rate("RNG 100 kB took 1.000 seconds, 85.690 kB/s"), 85_690.0);
    assert_eq!(rate("RNG 20 mB took 1.000 seconds, 18.988 mB/s"), 18_988_000.0);
}

// The heap/stack suffix of bench_append_memory_info, its older spellings,
// and lines without it.
#[test]
fn heap_and_stack_suffixes() {
    let r = one(
        "ECC   [      SECP256R1]   256  key gen   12 ops took 1.008 sec, avg 84.000 ms, 11.905 ops/sec [heap 4628 bytes (6 allocs), stack 1080 bytes]",
    );
    assert_eq!((r.heap_bytes, r.heap_allocs, r.stack_bytes), (Some(4628), Some(6), Some(1080)));
    let r = one(
        "ML-KEM 512 128 key gen 290 ops took 1.004 sec, avg 3.462 ms, 288.845 ops/sec[heap 1530 bytes (2 allocs), stack 1096 bytes]",
    );
    assert_eq!((r.heap_bytes, r.stack_bytes), (Some(1530), Some(1096)));
    let r =
        one("GMAC Small 14 MiB took 1.000 seconds, 14.154 MiB/s [heap 0 bytes (0allocs), stack 1536 bytes]");
    assert_eq!((r.heap_bytes, r.heap_allocs), (Some(0), Some(0)));
    let r = one("SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s [heap 344 bytes (2 allocs)]");
    assert_eq!((r.heap_bytes, r.stack_bytes), (Some(344), None));
    let r = one("SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s [stack 624 bytes]");
    assert_eq!((r.heap_bytes, r.stack_bytes), (None, Some(624)));
    let r = one("SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s");
    assert_eq!((r.heap_bytes, r.heap_allocs, r.stack_bytes), (None, None, None));
}

// GENERATE_MACHINE_PARSEABLE_REPORT (text) and HAVE_GET_CYCLES:
// "..., %8.3f %s/s, %lu cycles," / " %s = %6.2f" and "... %s, %lu cycles".
#[test]
fn cycle_columns() {
    let r =
        one("RNG                        126 MB took 1.022 seconds,  123.089 MB/s Cycles per byte =  24.37");
    assert!(r.note.as_deref().unwrap().contains("24.37 cycles per byte"), "{:?}", r.note);
    assert_eq!(r.cycles_per_op, None, "per byte, not per operation");
    let r = one("AES-128-CBC-enc             55 MiB took 1.090 seconds,   50.476 MiB/s, 3456789012 cycles,");
    assert!(r.note.as_deref().unwrap().contains("3456789012 cycles in total"), "{:?}", r.note);
    let r = one(
        "RSA     2048   public      200 ops took 1.000 sec, avg 5.000 ms, 200.000 ops/sec, 3000000000 cycles",
    );
    assert_eq!(r.cycles_per_op, Some(15_000_000.0));
    assert_eq!(r.ticks_per_op, Some(15_000_000.0));
    assert_eq!(r.tick_unit.as_deref(), Some("cycles"));
    // A printed count wins over the clock.
    let log = parse(
        "RSA 2048 public 200 ops took 1.000 sec, avg 5.000 ms, 200.000 ops/sec, 3000000000 cycles",
        Some(1),
    )
    .unwrap();
    assert_eq!(results(&log)[0].cycles_per_op, Some(15_000_000.0));
}

// MULTI_VALUE_STATISTICS: no "avg .. ms", and bench_multi_value_stats's
// ", %s %3.3f s, ..." on the same line (STATS_CLAUSE_SEPARATOR "").
#[test]
fn multi_value_statistics() {
    let r = one(
        "ML-DSA    65     sign     80 ops took 1.004 sec, 79.681 ops/sec, max duration 0.045 s, min duration 0.005 s, mean duration 0.012 s, sd 0.008 s",
    );
    assert_eq!(
        (r.iterations, r.total_seconds, r.avg_ms, r.ops_per_sec),
        (Some(80), Some(1.004), None, Some(79.681))
    );
    assert_eq!((r.min_ms, r.max_ms), (Some(5.0), Some(45.0)));
    assert!(r.note.as_deref().unwrap().contains("mean call 0.012 s"), "{:?}", r.note);
}

// BENCH_DEVID: "%-24s%s" / "%8s%-2s %s" with "SW"/"HW".
#[test]
fn device_markers() {
    let r = one("AES-128-CBC-enc         SW    50 MiB took 1.000 seconds,   50.000 MiB/s");
    assert_eq!(r.algorithm, Algorithm::Aes128Cbc);
    let r = one("RSA     2048   public  SW    222 ops took 1.007 sec, avg 4.536 ms, 220.457 ops/sec");
    assert_eq!(r.algorithm, Algorithm::Rsa2048);
    // A hardware device's line is a variant of the software one, stored
    // after it under the same names.
    let text = "\
AES-128-CBC-enc         SW    50 MiB took 1.000 seconds,   50.000 MiB/s
AES-128-CBC-enc         HW   150 MiB took 1.000 seconds,  150.000 MiB/s
RSA     2048   public  HW    999 ops took 1.001 sec, avg 1.002 ms, 998.002 ops/sec
";
    let log = parse(text, None).unwrap();
    assert_eq!(log.unread, []);
    let [sw, hw, rsa] = results(&log) else { panic!("{:#?}", results(&log)) };
    assert_eq!((sw.algorithm, hw.algorithm), (Algorithm::Aes128Cbc, Algorithm::Aes128Cbc));
    assert_eq!((sw.bytes_per_sec, hw.bytes_per_sec), (Some(50.0 * 1048576.0), Some(150.0 * 1048576.0)));
    assert!(!sw.note.as_deref().unwrap().contains("variant"), "{:?}", sw.note);
    assert!(hw.note.as_deref().unwrap().starts_with("variant: HW"), "{:?}", hw.note);
    assert_eq!(
        (rsa.algorithm, rsa.operation, rsa.iterations),
        (Algorithm::Rsa2048, Operation::Public, Some(999))
    );
    assert!(rsa.note.as_deref().unwrap().starts_with("variant: HW"), "{:?}", rsa.note);
}
