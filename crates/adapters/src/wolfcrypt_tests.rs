//! Acceptance tests of the wolfCrypt parser. Each variant is written from a
//! format string of benchmark.c, cited beside it.

use pqbench_types::{Algorithm, Operation};

use super::*;
use crate::BenchResult;

const SAMPLE: &str = include_str!("../../../tests/samples/wolfcrypt-stm32u585-memory.txt");

fn results(log: &Log) -> &[BenchResult] {
    &log.groups[0].results
}

fn find(log: &Log, algorithm: Algorithm, operation: Operation) -> &BenchResult {
    results(log)
        .iter()
        .find(|r| r.algorithm == algorithm && r.operation == operation)
        .unwrap_or_else(|| panic!("no {algorithm} {operation} in {:#?}", log))
}

fn one(text: &str) -> BenchResult {
    let log = parse(text, None).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    assert_eq!(results(&log).len(), 1, "{:#?}", results(&log));
    results(&log)[0].clone()
}

fn unread_reason(text: &str) -> String {
    // A valid line keeps the log from being "nothing recognized".
    let text = format!("RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec\n{text}");
    let log = parse(&text, None).unwrap();
    assert_eq!(results(&log).len(), 1, "{:#?}", results(&log));
    assert_eq!(log.unread.len(), 1, "{:#?}", log.unread);
    assert_eq!(log.unread[0].line, 2);
    log.unread[0].reason.clone()
}

#[test]
fn the_sample_is_read_whole() {
    let log = parse(SAMPLE, None).unwrap();
    assert_eq!(log.format, Format::Wolfcrypt);
    assert_eq!(log.version, None, "the sample prints no wolfSSL version banner");
    assert_eq!(log.groups.len(), 1);
    assert_eq!(log.groups[0].implementation, None);
    // 31 symmetric (four of them the -no_AAD variants) + 31 asymmetric
    // lines; the banner and "Benchmark complete" understood.
    assert_eq!(results(&log).len(), 62);
    assert_eq!(log.understood_lines, 2);
    assert_eq!(log.unread, []);
    // AES-128-GCM-enc-no_AAD 8 MiB took 1.000 seconds, 7.983 MiB/s [heap 344 bytes (3 allocs), stack 976 bytes]
    let no_aad = &results(&log)[9];
    assert_eq!((no_aad.algorithm, no_aad.operation), (Algorithm::Aes128Gcm, Operation::Encrypt));
    assert_eq!(no_aad.bytes_per_sec, Some(7.983 * 1048576.0));
    assert!(
        no_aad
            .note
            .as_deref()
            .unwrap()
            .starts_with("variant: without AAD (wolfCrypt's AES-128-GCM-enc-no_AAD)"),
        "{:?}",
        no_aad.note
    );
    // The row with AAD stays the first of its pair.
    assert_eq!(find(&log, Algorithm::Aes128Gcm, Operation::Encrypt).bytes_per_sec, Some(7.935 * 1048576.0));
    let non_blank = SAMPLE.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(results(&log).len() + log.unread.len() + log.understood_lines, non_blank);
    for r in results(&log) {
        assert_eq!(r.status, pqbench_types::Status::Ok);
        assert!(r.heap_bytes.is_some() && r.heap_allocs.is_some() && r.stack_bytes.is_some(), "{r:?}");
        assert_eq!(r.tick_unit, None, "the sample prints no cycles");
        assert_eq!(r.code_bytes, None);
    }
}

#[test]
fn sample_symmetric_figures_are_the_files() {
    let log = parse(SAMPLE, None).unwrap();
    // RNG 425 KiB took 1.039 seconds, 409.047 KiB/s [heap 494 bytes (8 allocs), stack 1448 bytes]
    let rng = find(&log, Algorithm::Rng, Operation::Generate);
    let expected = BenchResult {
        total_seconds: Some(1.039),
        bytes_per_sec: Some(409.047 * 1024.0),
        heap_bytes: Some(494),
        heap_allocs: Some(8),
        stack_bytes: Some(1448),
        note: Some("425 KiB in 1.039 s; KiB = 2^10 bytes".into()),
        ..bare_result(Algorithm::Rng, Operation::Generate)
    };
    assert_eq!(rng, &expected);
    // AES-128-CBC-enc 9 MiB took 1.000 seconds, 8.521 MiB/s [heap 312 bytes (1 allocs), stack 736 bytes]
    let cbc = find(&log, Algorithm::Aes128Cbc, Operation::Encrypt);
    assert_eq!(cbc.bytes_per_sec, Some(8.521 * 1048576.0));
    assert_eq!(cbc.total_seconds, Some(1.0));
    assert_eq!((cbc.heap_bytes, cbc.heap_allocs, cbc.stack_bytes), (Some(312), Some(1), Some(736)));
    assert_eq!(cbc.note.as_deref(), Some("9 MiB in 1.000 s; MiB = 2^20 bytes"));
    assert_eq!((cbc.iterations, cbc.avg_ms, cbc.ops_per_sec), (None, None, None));
    // GMAC Small 14 MiB took 1.000 seconds, 14.154 MiB/s [heap 0 bytes (0allocs), stack 1536 bytes]
    let gmac = find(&log, Algorithm::Gmac, Operation::Mac);
    assert_eq!(gmac.bytes_per_sec, Some(14.154 * 1048576.0));
    assert_eq!((gmac.heap_bytes, gmac.heap_allocs, gmac.stack_bytes), (Some(0), Some(0), Some(1536)));
    assert!(gmac.note.as_deref().unwrap().starts_with("wolfCrypt's GMAC Small"));
    // CHA-POLY 4 MiB took 1.004 seconds, 3.623 MiB/s [heap 232 bytes (4 allocs), stack 672 bytes]
    let aead = find(&log, Algorithm::ChaCha20Poly1305, Operation::Encrypt);
    assert_eq!((aead.total_seconds, aead.bytes_per_sec), (Some(1.004), Some(3.623 * 1048576.0)));
    // SHA3-384 975 KiB took 1.016 seconds, 959.646 KiB/s [heap 456 bytes (2 allocs), stack 656 bytes]
    let sha3 = find(&log, Algorithm::Sha3_384, Operation::Hash);
    assert_eq!((sha3.total_seconds, sha3.bytes_per_sec), (Some(1.016), Some(959.646 * 1024.0)));
    assert_eq!((sha3.heap_bytes, sha3.heap_allocs, sha3.stack_bytes), (Some(456), Some(2), Some(656)));
    assert_eq!(find(&log, Algorithm::Sha512_256, Operation::Hash).bytes_per_sec, Some(1.158 * 1048576.0));
    assert_eq!(find(&log, Algorithm::HmacSha384, Operation::Mac).stack_bytes, Some(840));
    assert_eq!(find(&log, Algorithm::ChaCha20, Operation::Encrypt).heap_bytes, Some(68));
    assert_eq!(find(&log, Algorithm::Poly1305, Operation::Mac).heap_bytes, Some(40));
}

#[test]
fn sample_asymmetric_figures_are_the_files() {
    let log = parse(SAMPLE, None).unwrap();
    // RSA 2048 private 2 ops took 2.047 sec, avg 1023.500 ms, 0.977 ops/sec [heap 2860 bytes (4 allocs), stack 1096 bytes]
    let rsa = find(&log, Algorithm::Rsa2048, Operation::Private);
    let expected = BenchResult {
        iterations: Some(2),
        total_seconds: Some(2.047),
        avg_ms: Some(1023.5),
        ops_per_sec: Some(0.977),
        heap_bytes: Some(2860),
        heap_allocs: Some(4),
        stack_bytes: Some(1096),
        ..bare_result(Algorithm::Rsa2048, Operation::Private)
    };
    assert_eq!(rsa, &expected);
    // ML-KEM 768 192 encap 164 ops took 1.008 sec, avg 6.146 ms, 162.698 ops/sec[heap 5114 bytes (2 allocs), stack 1792 bytes]
    let encaps = find(&log, Algorithm::MlKem768, Operation::Encaps);
    let expected = BenchResult {
        iterations: Some(164),
        total_seconds: Some(1.008),
        avg_ms: Some(6.146),
        ops_per_sec: Some(162.698),
        heap_bytes: Some(5114),
        heap_allocs: Some(2),
        stack_bytes: Some(1792),
        ..bare_result(Algorithm::MlKem768, Operation::Encaps)
    };
    assert_eq!(encaps, &expected);
    // ECDHE [ SECP256R1] 256 agree 12 ops took 1.004 sec, avg 83.667 ms, 11.952 ops/sec [heap 9393 bytes (15 allocs), stack 1416 bytes]
    let agree = find(&log, Algorithm::EcdhP256, Operation::Agree);
    assert_eq!(
        (agree.iterations, agree.total_seconds, agree.avg_ms, agree.ops_per_sec),
        (Some(12), Some(1.004), Some(83.667), Some(11.952))
    );
    assert_eq!((agree.heap_bytes, agree.heap_allocs, agree.stack_bytes), (Some(9393), Some(15), Some(1416)));
    // ECC [ SECP256R1] 256 key gen → ECDH-P256 keygen (the suite's place for it).
    assert_eq!(find(&log, Algorithm::EcdhP256, Operation::Keygen).avg_ms, Some(84.0));
    assert_eq!(find(&log, Algorithm::EcdsaP256, Operation::Verify).ops_per_sec, Some(54.0));
    assert_eq!(find(&log, Algorithm::X25519, Operation::Agree).avg_ms, Some(361.75));
    assert_eq!(find(&log, Algorithm::Ed25519, Operation::Sign).stack_bytes, Some(1792));
    // ML-DSA 87 verify 22 ops took 1.024 sec, avg 46.545 ms, 21.484 ops/sec [heap 11432 bytes (1 allocs), stack 1416 bytes]
    let verify = find(&log, Algorithm::MlDsa87, Operation::Verify);
    assert_eq!(
        (verify.iterations, verify.total_seconds, verify.avg_ms, verify.ops_per_sec, verify.heap_bytes),
        (Some(22), Some(1.024), Some(46.545), Some(21.484), Some(11432))
    );
    assert_eq!(find(&log, Algorithm::Dh2048, Operation::Keygen).iterations, Some(3));
    assert_eq!(find(&log, Algorithm::MlKem1024, Operation::Decaps).total_seconds, Some(1.019));
    // Order of the file.
    assert_eq!(results(&log)[0].algorithm, Algorithm::Rng);
    assert_eq!(results(&log)[61].algorithm, Algorithm::MlDsa87);
}

#[test]
fn a_clock_gives_asymmetric_lines_cycles() {
    let log = parse(SAMPLE, Some(160_000_000)).unwrap();
    let keygen = find(&log, Algorithm::MlKem768, Operation::Keygen);
    assert_eq!(keygen.cycles_per_op, Some(909_120.0));
    assert_eq!(keygen.tick_unit, None, "derived, not counted");
    assert!(keygen.note.as_deref().unwrap().contains("derived from avg 5.682 ms × 160000000 Hz"));
    assert_eq!(find(&log, Algorithm::Rng, Operation::Generate).cycles_per_op, None);
}

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

// Names of older releases: bench_kyber's "KYBER512 " (wolfSSL 5.6–5.7,
// round 3 Kyber) and the Dilithium levels of bench_dilithiumKeySign before
// ML-DSA: their own names, never the FIPS ones.
#[test]
fn older_kyber_and_dilithium_names() {
    let r = one("KYBER768   192  key gen   1200 ops took 1.000 sec, avg 0.833 ms, 1200.000 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::Kyber768, Operation::Keygen));
    assert!(
        r.note.as_deref().unwrap().contains("Kyber round 3 (pre-FIPS 203), printed KYBER768"),
        "{:?}",
        r.note
    );
    let r = one("KYBER1024  256    decap    800 ops took 1.000 sec, avg 1.250 ms, 800.000 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::Kyber1024, Operation::Decaps));
    let r = one("DILITHIUM     3     sign    100 ops took 1.002 sec, avg 10.020 ms, 99.800 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::Dilithium3, Operation::Sign));
    assert!(r.note.as_deref().unwrap().contains("Dilithium round 3 (pre-FIPS 204) level 3"), "{:?}", r.note);
    let r = one("DILITHIUM     5   verify    300 ops took 1.002 sec, avg 3.340 ms, 299.401 ops/sec");
    assert_eq!(r.algorithm, Algorithm::Dilithium5);
    let r = one("ML-DSA    44  key gen    500 ops took 1.000 sec, avg 2.000 ms, 500.000 ops/sec");
    assert_eq!((r.algorithm, r.note), (Algorithm::MlDsa44, None));
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
    assert_eq!(results(&log).len(), 3);
    let rsa = find(&log, Algorithm::Rsa2048, Operation::Public);
    assert_eq!((rsa.avg_ms, rsa.ops_per_sec, rsa.iterations), (Some(0.030), Some(33201.290), None));
    assert_eq!(find(&log, Algorithm::EcdhP256, Operation::Keygen).avg_ms, Some(0.029));
    assert_eq!(find(&log, Algorithm::MlKem768, Operation::Encaps).ops_per_sec, Some(47619.048));
    // The -csv throughput has no fixed unit: reported, not stored.
    assert_eq!(log.unread.len(), 1, "{:#?}", log.unread);
    assert_eq!(log.unread[0].line, 7);
    assert!(log.unread[0].reason.contains("whose unit wolfCrypt does not fix"), "{}", log.unread[0].reason);
    // banner, 2 titles, 2 headers, "Benchmark complete"
    assert_eq!(log.understood_lines, 6);
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

#[test]
fn banners_and_the_end_are_understood() {
    let text = "\
------------------------------------------------------------------------------
 wolfSSL version 5.6.6 with AESNI with SP-MATH
------------------------------------------------------------------------------
Math:   Single Precision: ecc 256 384 521 rsa/dh 2048 3072 4096 asm sp_x86_64.c
wolfCrypt Benchmark (block bytes 1048576, min 1.0 sec each)
RNG                         30 MiB took 1.031 seconds,   29.103 MiB/s
Benchmark complete
";
    let log = parse(text, None).unwrap();
    assert_eq!(log.version.as_deref(), Some("5.6.6"));
    assert_eq!(log.understood_lines, 6);
    assert!(log.unread.is_empty());
}

#[test]
fn unknown_lines_are_reported_with_numbers_and_reasons() {
    let text = "\
wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)
AES-128-XTS-enc 5 MiB took 1.000 seconds, 5.000 MiB/s
AES-128-KW-wrap 1 MiB took 1.000 seconds, 1.000 MiB/s
ASCON-AEAD 5 MiB took 1.000 seconds, 5.000 MiB/s
ECC   [BRAINPOOLP256R1]   384  key gen   10 ops took 1.000 sec, avg 100.000 ms, 10.000 ops/sec
FALCON     1  sign   20 ops took 1.000 sec, avg 50.000 ms, 20.000 ops/sec
ECC   [      SECP256R1]   256  encrypt   10 ops took 1.000 sec, avg 100.000 ms, 10.000 ops/sec
RSA 8192 public 58 ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec
hello from the board
Benchmark AES-256-GCM-enc failed: -173
RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec
AES-128-CBC-enc   8.521 MB/s
";
    let log = parse(text, None).unwrap();
    assert_eq!(results(&log).len(), 1);
    let reasons: Vec<(usize, &str)> = log.unread.iter().map(|u| (u.line, u.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            (2, "no pqbench name for wolfCrypt's AES-128-XTS-enc"),
            (3, "no pqbench name for wolfCrypt's AES-128-KW-wrap"),
            (4, "no pqbench name for wolfCrypt's ASCON-AEAD"),
            (5, "no pqbench name for wolfCrypt's ECC [BRAINPOOLP256R1] 384 key gen"),
            (6, "no pqbench name for wolfCrypt's FALCON 1 sign"),
            (7, "no pqbench name for wolfCrypt's ECC [SECP256R1] 256 encrypt"),
            (8, "no pqbench name for wolfCrypt's RSA 8192 public"),
            (9, "not a line of wolfCrypt's benchmark output"),
            (10, "wolfCrypt reported that AES-256-GCM-enc failed (error -173); no figure is stored"),
            (12, "a -print summary line: it repeats a figure printed above (rounded), so it is not stored"),
        ]
    );
    assert_eq!(log.unread[0].text, "AES-128-XTS-enc 5 MiB took 1.000 seconds, 5.000 MiB/s");
}

#[test]
fn malformed_numbers_are_refused() {
    for (line, expected) in [
        (
            "RSA 2048 public 58 ops took 1.0.0 sec, avg 17.241 ms, 58.000 ops/sec",
            "malformed number \"1.0.0\"",
        ),
        ("RSA 2048 public 5x ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec", "malformed operation count"),
        (
            "RSA 2048 public 58 ops took 1.000 sec, avg -17.241 ms, 58.000 ops/sec",
            "malformed number \"-17.241\"",
        ),
        ("RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms, 5e1 ops/sec", "malformed number \"5e1\""),
        ("RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms, nan ops/sec", "malformed number \"nan\""),
        ("RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms", "no \"ms,\" after the average"),
        ("RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms,", "the operations per second is missing"),
        ("SHA-256 14 MiB took 1.000 seconds, 14,429 MiB/s", "malformed rate"),
        ("SHA-256 14 MiB took 1.000 seconds, 14.429 KiB/s", "is not the amount's"),
        ("SHA-256 1x MiB took 1.000 seconds, 14.429 MiB/s", "malformed amount"),
        ("SHA-256 14 PiB took 1.000 seconds, 14.429 PiB/s", "unknown throughput unit"),
        (
            "SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s [heap 34x bytes (2 allocs), stack 624 bytes]",
            "malformed heap/stack",
        ),
        (
            "SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s [heap 344 bytes (2 allocs), stack 624 bytes",
            "no closing",
        ),
        (
            "SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s [heap 344 bytes (2 allocs), stack -624 bytes]",
            "malformed heap/stack",
        ),
    ] {
        let reason = unread_reason(line);
        assert!(reason.contains(expected), "{line}: {reason}");
    }
}

// A further line for a pair already read (a second GMAC table, the same
// operation printed twice) is its own row, its note naming it a variant.
#[test]
fn further_lines_of_a_pair_are_variant_rows() {
    let text = "\
GMAC Table 4-bit  2300 MiB took 1.000 seconds, 2299.513 MiB/s
GMAC Small 14 MiB took 1.000 seconds, 14.154 MiB/s
RSA 2048 public 58 ops took 1.000 sec, avg 17.241 ms, 58.000 ops/sec
RSA 2048 public 60 ops took 1.000 sec, avg 16.667 ms, 60.000 ops/sec
";
    let log = parse(text, None).unwrap();
    assert_eq!(log.unread, []);
    let [table, small, first, second] = results(&log) else { panic!("{:#?}", results(&log)) };
    assert_eq!(find(&log, Algorithm::Gmac, Operation::Mac).bytes_per_sec, Some(2299.513 * 1048576.0));
    assert_eq!(
        table.note.as_deref(),
        Some("wolfCrypt's GMAC Table 4-bit (its GHASH table); 2300 MiB in 1.000 s; MiB = 2^20 bytes")
    );
    assert_eq!(small.bytes_per_sec, Some(14.154 * 1048576.0));
    assert!(
        small.note.as_deref().unwrap().starts_with(
            "variant: a further line for GMAC mac (wolfCrypt's GMAC Small); the first is the main row"
        ),
        "{:?}",
        small.note
    );
    assert_eq!((first.iterations, second.iterations), (Some(58), Some(60)));
    assert_eq!(first.note, None);
    assert_eq!(
        second.note.as_deref(),
        Some(
            "variant: a further line for RSA-2048 public (wolfCrypt's RSA 2048 public); the first is the main row"
        )
    );
}

#[test]
fn nothing_recognized_is_an_error() {
    assert_eq!(parse("", None), Err(ParseError::NothingRecognized { format: Format::Wolfcrypt }));
    assert_eq!(
        parse("wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)\nBenchmark complete\n", None),
        Err(ParseError::NothingRecognized { format: Format::Wolfcrypt })
    );
    let pqm4 = "| ml-kem-768 | clean | 10,248 | 13,384 | 14,480 |";
    assert_eq!(parse(pqm4, None), Err(ParseError::NothingRecognized { format: Format::Wolfcrypt }));
}

/// A small deterministic generator (xorshift), so the property runs the
/// same inputs everywhere without a dependency.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn never_panics_on_arbitrary_or_mangled_input() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let alphabet: Vec<char> =
        " \t\r\n,.[]()|:-/0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ%<>μé"
            .chars()
            .collect();
    for round in 0..3000 {
        let text: String = if round % 2 == 0 {
            // Random characters from the formats' own alphabet.
            let len = (xorshift(&mut state) % 300) as usize;
            (0..len).map(|_| alphabet[(xorshift(&mut state) % alphabet.len() as u64) as usize]).collect()
        } else {
            // The sample with bytes replaced, deleted or duplicated.
            let mut chars: Vec<char> = SAMPLE.chars().collect();
            for _ in 0..(1 + xorshift(&mut state) % 20) {
                let at = (xorshift(&mut state) % chars.len() as u64) as usize;
                match xorshift(&mut state) % 3 {
                    0 => chars[at] = alphabet[(xorshift(&mut state) % alphabet.len() as u64) as usize],
                    1 => {
                        chars.remove(at);
                    }
                    _ => chars.insert(at, chars[at]),
                }
            }
            chars.into_iter().collect()
        };
        for clock in [None, Some(0), Some(u64::MAX)] {
            let _ = parse(&text, clock);
            let _ = crate::pqm4::parse(&text, clock);
        }
    }
}

// Issue 24's four lines, with every figure as printed. The bracketed ECC
// form without a strength is as the NUCLEO-F439ZI log prints it (wolfSSL
// 5.7 and later name the curve, `"ECC   [%15s]"` with `wc_ecc_get_name`);
// the Kyber lines are `bench_stats_pq_asym_finish`'s `"%-18s %s %6d %s
// %5.3f %s, %s %5.3f ms, %.3f %s"` with pqm4's `kyber_level1-kg`/`-ed`
// (wolfSSL 5.5's benchmark.c, `bench_pq_asym_opt`), as wolfSSL's STM32
// pqm4 example prints them.
const ISSUE_LINES: &str = include_str!("../../../tests/samples/wolfcrypt-issue24-lines.txt");

#[test]
fn the_issue_lines_are_read_with_every_figure() {
    let log = parse(ISSUE_LINES, None).unwrap();
    assert_eq!(log.unread, []);
    let [ecc, kg, ed, gcm] = results(&log) else { panic!("{:#?}", results(&log)) };
    let asym = |r: &BenchResult| (r.iterations, r.total_seconds, r.avg_ms, r.ops_per_sec, r.bytes_per_sec);
    assert_eq!((ecc.algorithm, ecc.operation), (Algorithm::EcdhP256, Operation::Keygen));
    assert_eq!(asym(ecc), (Some(180), Some(1.007), Some(5.594), Some(178.749), None));
    assert_eq!(ecc.note, None, "the curve is printed, so nothing is assumed");
    assert_eq!((kg.algorithm, kg.operation), (Algorithm::Kyber512, Operation::Keygen));
    assert_eq!(asym(kg), (Some(62), Some(1.004), Some(16.194), Some(61.753), None));
    assert_eq!(kg.note.as_deref(), Some("Kyber round 3 (pre-FIPS) level 1, printed kyber_level1-kg"));
    assert_eq!((ed.algorithm, ed.operation), (Algorithm::Kyber512, Operation::EncapsDecaps));
    assert_eq!(asym(ed), (Some(28), Some(1.043), Some(37.250), Some(26.846), None));
    assert!(ed.note.as_deref().unwrap().contains("one encapsulation and one decapsulation timed together"));
    assert_eq!((gcm.algorithm, gcm.operation), (Algorithm::Aes128Gcm, Operation::Encrypt));
    assert_eq!(asym(gcm), (None, Some(1.000), None, None, Some(7.983 * 1048576.0)));
    assert!(gcm.note.as_deref().unwrap().starts_with("variant: without AAD"), "{:?}", gcm.note);
}

// The bracketed ECC forms: with the strength (`"%-6s %5d %8s%-2s"` after
// `"ECC   [%15s]"`/`"ECDHE [%15s]"`/`"ECDSA [%15s]"`, wolfSSL 5.6–master)
// and without it (the issue's NUCLEO log, `ECDH  [SECP256R1] agree`).
#[test]
fn bracketed_ecc_forms() {
    for (line, algorithm, operation) in [
        (
            "ECDH  [SECP256R1] agree  170 ops took 1.002 sec, avg   5.894 ms, 169.661 ops/sec",
            Algorithm::EcdhP256,
            Operation::Agree,
        ),
        (
            "ECDSA [SECP256R1] sign   160 ops took 1.005 sec, avg   6.281 ms, 159.204 ops/sec",
            Algorithm::EcdsaP256,
            Operation::Sign,
        ),
        (
            "ECDSA [SECP256R1] verify 150 ops took 1.001 sec, avg   6.673 ms, 149.850 ops/sec",
            Algorithm::EcdsaP256,
            Operation::Verify,
        ),
        (
            "ECC   [      SECP384R1]   384  key gen     40 ops took 1.010 sec, avg 25.250 ms, 39.604 ops/sec",
            Algorithm::EcdhP384,
            Operation::Keygen,
        ),
        (
            "ECDHE [      SECP521R1]   528    agree     10 ops took 1.050 sec, avg 105.000 ms, 9.524 ops/sec",
            Algorithm::EcdhP521,
            Operation::Agree,
        ),
    ] {
        let r = one(line);
        assert_eq!((r.algorithm, r.operation, r.note), (algorithm, operation, None), "{line}");
        assert!(r.iterations.is_some() && r.avg_ms.is_some() && r.ops_per_sec.is_some(), "{line}");
    }
    assert_eq!(
        unread_reason("ECC   [SECP256K1] key gen  180 ops took 1.007 sec, avg   5.594 ms, 178.749 ops/sec"),
        "no pqbench name for wolfCrypt's ECC [SECP256K1] key gen"
    );
    // A curve that contradicts its strength is not guessed at.
    assert!(
        unread_reason(
            "ECC   [      SECP256R1]   384  key gen  1 ops took 1.000 sec, avg 1.000 ms, 1.000 ops/sec"
        )
        .starts_with("no pqbench name")
    );
}

// `bench_stats_pq_asym_finish` (wolfSSL 4.8–5.5 with liboqs or pqm4):
// `kyber_levelN-kg`/`-ed` at levels 1, 3, 5, `DILITHIUM_levelN sign`, and
// the families pqbench has no names for, listed with why.
#[test]
fn liboqs_and_pqm4_forms() {
    for (line, algorithm, operation) in [
        (
            "kyber_level3-kg        89790 ops took 1.000 sec, avg 0.011 ms, 89789.550 ops/sec",
            Algorithm::Kyber768,
            Operation::Keygen,
        ),
        (
            "kyber_level3-ed        42200 ops took 1.000 sec, avg 0.024 ms, 42199.000 ops/sec",
            Algorithm::Kyber768,
            Operation::EncapsDecaps,
        ),
        (
            "kyber_level5-kg        60000 ops took 1.000 sec, avg 0.017 ms, 60000.000 ops/sec",
            Algorithm::Kyber1024,
            Operation::Keygen,
        ),
        (
            "kyber_level5-ed        30000 ops took 1.000 sec, avg 0.033 ms, 30000.000 ops/sec",
            Algorithm::Kyber1024,
            Operation::EncapsDecaps,
        ),
        (
            "DILITHIUM_level2 sign      12000 ops took 1.002 sec, avg 0.084 ms, 11976.048 ops/sec",
            Algorithm::Dilithium2,
            Operation::Sign,
        ),
        (
            "DILITHIUM_level3 verify    27100 ops took 1.003 sec, avg 0.037 ms, 27017.485 ops/sec",
            Algorithm::Dilithium3,
            Operation::Verify,
        ),
        (
            "DILITHIUM_level5 sign       8400 ops took 1.009 sec, avg 0.120 ms, 8321.684 ops/sec",
            Algorithm::Dilithium5,
            Operation::Sign,
        ),
        (
            "FALCON_level1   sign     4900 ops took 1.008 sec, avg 0.202 ms, 4961.637 ops/sec",
            Algorithm::Falcon512,
            Operation::Sign,
        ),
        (
            "FALCON_level5   verify  14400 ops took 1.002 sec, avg 0.070 ms, 14376.179 ops/sec",
            Algorithm::Falcon1024,
            Operation::Verify,
        ),
    ] {
        let r = one(line);
        assert_eq!((r.algorithm, r.operation), (algorithm, operation), "{line}");
        assert!(r.note.as_deref().unwrap().contains("round 3 (pre-FIPS)"), "{line}: {:?}", r.note);
    }
    let r = one("DILITHIUM_level3 verify    27100 ops took 1.003 sec, avg 0.037 ms, 27017.485 ops/sec");
    assert_eq!(
        (r.iterations, r.total_seconds, r.avg_ms, r.ops_per_sec),
        (Some(27100), Some(1.003), Some(0.037), Some(27017.485))
    );
    for (line, why) in [
        (
            "DILITHIUM_AES_level3 verify 3900 ops took 1.012 sec, avg 0.260 ms, 3851.921 ops/sec",
            "AES variant",
        ),
        ("kyber_level2-kg 1 ops took 1.000 sec, avg 1.000 ms, 1.000 ops/sec", "not a post-quantum name"),
    ] {
        let reason = unread_reason(line);
        assert!(
            reason.starts_with("no pqbench name for wolfCrypt's") && reason.contains(why),
            "{line}: {reason}"
        );
    }
}

// `bench_stats_sym_finish`'s descriptions beyond AES-128/256 (wolfSSL
// 4.x–master): AES-192 in CBC, GCM and CTR, `bench_sha`'s "SHA",
// `bench_hmac_sha`'s "HMAC-SHA", `bench_pbkdf2`'s "PBKDF2".
#[test]
fn aes_192_sha_1_and_pbkdf2() {
    for (line, algorithm, operation) in [
        (
            "AES-192-CBC-enc       9 MiB took 1.000 seconds,    8.730 MiB/s",
            Algorithm::Aes192Cbc,
            Operation::Encrypt,
        ),
        (
            "AES-192-CBC-dec       9 MiB took 1.000 seconds,    8.681 MiB/s",
            Algorithm::Aes192Cbc,
            Operation::Decrypt,
        ),
        (
            "AES-192-GCM-enc       7 MiB took 1.000 seconds,    7.661 MiB/s",
            Algorithm::Aes192Gcm,
            Operation::Encrypt,
        ),
        (
            "AES-192-GCM-dec       7 MiB took 1.000 seconds,    7.612 MiB/s",
            Algorithm::Aes192Gcm,
            Operation::Decrypt,
        ),
        (
            "AES-192-CTR           9 MiB took 1.000 seconds,    8.900 MiB/s",
            Algorithm::Aes192Ctr,
            Operation::Encrypt,
        ),
        ("SHA                  25 MiB took 1.000 seconds,   24.512 MiB/s", Algorithm::Sha1, Operation::Hash),
        (
            "HMAC-SHA             24 MiB took 1.000 seconds,   23.911 MiB/s",
            Algorithm::HmacSha1,
            Operation::Mac,
        ),
        (
            "PBKDF2               32 bytes took 1.024 seconds,   31.250 bytes/s",
            Algorithm::Pbkdf2,
            Operation::Derive,
        ),
    ] {
        let r = one(line);
        assert_eq!((r.algorithm, r.operation), (algorithm, operation), "{line}");
    }
    let r = one("PBKDF2               32 bytes took 1.024 seconds,   31.250 bytes/s");
    assert_eq!((r.total_seconds, r.bytes_per_sec), (Some(1.024), Some(31.25)));
    assert!(r.note.as_deref().unwrap().contains("1000 iterations of HMAC-SHA256"), "{:?}", r.note);
    let r = one("AES-192-GCM-dec-no_AAD 7 MiB took 1.000 seconds, 7.700 MiB/s");
    assert_eq!((r.algorithm, r.operation), (Algorithm::Aes192Gcm, Operation::Decrypt));
    assert!(r.note.as_deref().unwrap().starts_with("variant: without AAD"));
    assert!(unread_reason("AES-CBC 9 MiB took 1.000 seconds, 8.521 MiB/s").contains("prints no key size"));
}

// `bench_xmss_sign_verify`'s lines (wolfSSL master 0004fcc's benchmark.c,
// `bench_stats_asym_finish(params, (int)skSz, "gen", ...)` and the same with
// `sigSz` for "sign"/"verify"): the parameter set names the key, the number
// before the operation is a size in bytes, not a strength.
#[test]
fn xmss_forms() {
    for (line, algorithm, operation) in [
        (
            "XMSS-SHA2_10_256  1373      gen      1 ops took 1.270 sec, avg 1270.000 ms, 0.787 ops/sec",
            Algorithm::XmssSha2_10_256,
            Operation::Keygen,
        ),
        (
            "XMSS-SHA2_10_256  2500     sign    300 ops took 1.003 sec, avg 3.343 ms, 299.103 ops/sec",
            Algorithm::XmssSha2_10_256,
            Operation::Sign,
        ),
        (
            "XMSSMT-SHA2_20/2_256  4963   verify   3600 ops took 1.000 sec, avg 0.278 ms, 3600.000 ops/sec",
            Algorithm::XmssMtSha2_20_2_256,
            Operation::Verify,
        ),
        (
            "XMSSMT-SHA2_60/12_256 15252     sign    120 ops took 1.010 sec, avg 8.417 ms, 118.812 ops/sec",
            Algorithm::XmssMtSha2_60_12_256,
            Operation::Sign,
        ),
    ] {
        let r = one(line);
        assert_eq!((r.algorithm, r.operation), (algorithm, operation), "{line}");
        assert!(r.iterations.is_some() && r.avg_ms.is_some(), "{line}");
    }
    // BENCH_XMSS_SLOW_KEYGEN's sets have no pqbench name yet.
    assert_eq!(
        unread_reason(
            "XMSS-SHA2_16_256  2000      gen      1 ops took 9.000 sec, avg 9000.000 ms, 0.111 ops/sec"
        ),
        "no pqbench name for wolfCrypt's XMSS-SHA2_16_256 2000 gen"
    );
}

// `bench_stats_pq_asym_finish`'s SPHINCS+ lines (liboqs, the
// `SPHINCS_FAST_levelN`/`SPHINCS_SMALL_levelN` names of wolfSSL 5.x's
// `bench_pq_asym_opt`): round 3 SPHINCS+, never SLH-DSA.
#[test]
fn sphincs_plus_forms() {
    for (line, algorithm, operation) in [
        (
            "SPHINCS_FAST_level1 sign   20 ops took 1.000 sec, avg 50.000 ms, 20.000 ops/sec",
            Algorithm::SphincsPlus128f,
            Operation::Sign,
        ),
        (
            "SPHINCS_SMALL_level3 verify   900 ops took 1.001 sec, avg 1.112 ms, 899.101 ops/sec",
            Algorithm::SphincsPlus192s,
            Operation::Verify,
        ),
        (
            "SPHINCS_FAST_level5 verify   300 ops took 1.002 sec, avg 3.340 ms, 299.401 ops/sec",
            Algorithm::SphincsPlus256f,
            Operation::Verify,
        ),
    ] {
        let r = one(line);
        assert_eq!((r.algorithm, r.operation), (algorithm, operation), "{line}");
        assert!(r.note.as_deref().unwrap().starts_with("SPHINCS+ round 3 (pre-FIPS)"), "{:?}", r.note);
    }
}

/// A symmetric line read whole: its names, its seconds and its rate (MiB/s
/// as printed, stored in bytes per second), the amount in the note and no
/// asymmetric figure.
fn symmetric_line(line: &str, algorithm: Algorithm, operation: Operation, seconds: f64, mib_per_sec: f64) {
    let r = one(line);
    assert_eq!((r.algorithm, r.operation), (algorithm, operation), "{line}");
    assert_eq!(r.total_seconds, Some(seconds), "{line}");
    assert_eq!(r.bytes_per_sec, Some(mib_per_sec * 1048576.0), "{line}");
    assert_eq!((r.iterations, r.avg_ms, r.ops_per_sec), (None, None, None), "{line}");
    let amount = line.split_whitespace().nth(1).unwrap();
    assert!(
        r.note.as_deref().unwrap_or("").contains(&format!("{amount} MiB in {seconds:.3} s")),
        "{line}: {:?}",
        r.note
    );
}

/// An asymmetric line read whole: its names, count, seconds, average and
/// rate as printed.
fn asymmetric_line(line: &str, algorithm: Algorithm, operation: Operation, figures: (u64, f64, f64, f64)) {
    let r = one(line);
    assert_eq!((r.algorithm, r.operation), (algorithm, operation), "{line}");
    let (iterations, seconds, avg_ms, ops_per_sec) = figures;
    assert_eq!(
        (r.iterations, r.total_seconds, r.avg_ms, r.ops_per_sec, r.bytes_per_sec),
        (Some(iterations), Some(seconds), Some(avg_ms), Some(ops_per_sec), None),
        "{line}"
    );
}

// `bench_md5` ("MD5"), `bench_ripemd` ("RIPEMD"), `bench_blake2b`/`2s`
// ("BLAKE2b"/"BLAKE2s", 64- and 32-byte digests) and `bench_sm3` ("SM3"),
// all through `bench_stats_sym_finish` (wolfSSL master 0004fcc's
// benchmark.c; MD5, RIPEMD and BLAKE2b print the same since 3.x).
#[test]
fn legacy_and_regional_hash_forms() {
    use Algorithm::*;
    let hash = Operation::Hash;
    symmetric_line("MD5                 45 MiB took 1.000 seconds,   44.736 MiB/s", Md5, hash, 1.0, 44.736);
    symmetric_line(
        "RIPEMD              20 MiB took 1.004 seconds,   19.920 MiB/s",
        Ripemd160,
        hash,
        1.004,
        19.92,
    );
    symmetric_line(
        "BLAKE2b             35 MiB took 1.000 seconds,   34.863 MiB/s",
        Blake2b512,
        hash,
        1.0,
        34.863,
    );
    symmetric_line(
        "BLAKE2s             25 MiB took 1.001 seconds,   24.975 MiB/s",
        Blake2s256,
        hash,
        1.001,
        24.975,
    );
    symmetric_line("SM3                 15 MiB took 1.002 seconds,   14.970 MiB/s", Sm3, hash, 1.002, 14.97);
    assert!(one("BLAKE2b 35 MiB took 1.000 seconds, 34.863 MiB/s").note.unwrap().contains("64-byte digest"));
}

// `bench_hmac_md5` ("HMAC-MD5"), `bench_hmac_sha3_256/384/512`
// ("HMAC-SHA3-256"...) through `bench_hmac`, and `bench_siphash`
// ("SipHash-8"/"SipHash-16": wc_SipHash's 8- and 16-byte tags), wolfSSL
// master 0004fcc.
#[test]
fn further_mac_forms() {
    use Algorithm::*;
    let mac = Operation::Mac;
    symmetric_line(
        "HMAC-MD5            44 MiB took 1.000 seconds,   43.812 MiB/s",
        HmacMd5,
        mac,
        1.0,
        43.812,
    );
    symmetric_line(
        "HMAC-SHA3-256       12 MiB took 1.001 seconds,   11.988 MiB/s",
        HmacSha3_256,
        mac,
        1.001,
        11.988,
    );
    symmetric_line(
        "HMAC-SHA3-384        9 MiB took 1.002 seconds,    8.982 MiB/s",
        HmacSha3_384,
        mac,
        1.002,
        8.982,
    );
    symmetric_line(
        "HMAC-SHA3-512        6 MiB took 1.000 seconds,    6.250 MiB/s",
        HmacSha3_512,
        mac,
        1.0,
        6.25,
    );
    symmetric_line(
        "SipHash-8          110 MiB took 1.000 seconds,  109.863 MiB/s",
        SipHash64,
        mac,
        1.0,
        109.863,
    );
    symmetric_line(
        "SipHash-16         105 MiB took 1.000 seconds,  104.980 MiB/s",
        SipHash128,
        mac,
        1.0,
        104.98,
    );
    assert!(
        one("SipHash-16 105 MiB took 1.000 seconds, 104.980 MiB/s").note.unwrap().contains("16-byte tag")
    );
}

// `bench_des` ("3DES", CBC encryption), `bench_arc4` ("ARC4"),
// `bench_camellia` ("Camellia", CBC encryption, 16-byte key) and
// `bench_sm4_cbc`/`_gcm`/`_ccm` ("SM4-CBC-enc"...), wolfSSL master 0004fcc.
#[test]
fn legacy_and_regional_cipher_forms() {
    use Algorithm::*;
    use Operation::*;
    symmetric_line(
        "3DES                 3 MiB took 1.005 seconds,    2.985 MiB/s",
        TripleDes,
        Encrypt,
        1.005,
        2.985,
    );
    symmetric_line(
        "ARC4                40 MiB took 1.000 seconds,   39.810 MiB/s",
        Arc4,
        Encrypt,
        1.0,
        39.81,
    );
    symmetric_line(
        "Camellia            10 MiB took 1.000 seconds,    9.766 MiB/s",
        Camellia128Cbc,
        Encrypt,
        1.0,
        9.766,
    );
    symmetric_line(
        "SM4-CBC-enc          8 MiB took 1.000 seconds,    7.813 MiB/s",
        Sm4Cbc,
        Encrypt,
        1.0,
        7.813,
    );
    symmetric_line(
        "SM4-CBC-dec          8 MiB took 1.002 seconds,    7.797 MiB/s",
        Sm4Cbc,
        Decrypt,
        1.002,
        7.797,
    );
    symmetric_line(
        "SM4-GCM-enc          6 MiB took 1.000 seconds,    5.859 MiB/s",
        Sm4Gcm,
        Encrypt,
        1.0,
        5.859,
    );
    symmetric_line(
        "SM4-GCM-dec          6 MiB took 1.001 seconds,    5.853 MiB/s",
        Sm4Gcm,
        Decrypt,
        1.001,
        5.853,
    );
    symmetric_line(
        "SM4-CCM-enc          5 MiB took 1.000 seconds,    4.883 MiB/s",
        Sm4Ccm,
        Encrypt,
        1.0,
        4.883,
    );
    symmetric_line(
        "SM4-CCM-dec          5 MiB took 1.003 seconds,    4.868 MiB/s",
        Sm4Ccm,
        Decrypt,
        1.003,
        4.868,
    );
    let des = one("3DES 3 MiB took 1.005 seconds, 2.985 MiB/s");
    assert!(des.note.unwrap().starts_with("wolfCrypt's 3DES: CBC encryption"));
    let camellia = one("Camellia 10 MiB took 1.000 seconds, 9.766 MiB/s");
    assert!(camellia.note.unwrap().contains("128-bit key"));
}

// `bench_aesecb`, `bench_aescfb`, `bench_aesofb` ("AES-128-ECB-enc" ... for
// 128, 192 and 256-bit keys), wolfSSL master 0004fcc.
#[test]
fn aes_ecb_cfb_ofb_forms() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation, seconds, rate) in [
        ("AES-128-ECB-enc     30 MiB took 1.000 seconds,   29.541 MiB/s", Aes128Ecb, Encrypt, 1.0, 29.541),
        ("AES-128-ECB-dec     29 MiB took 1.000 seconds,   28.705 MiB/s", Aes128Ecb, Decrypt, 1.0, 28.705),
        ("AES-192-ECB-enc     26 MiB took 1.001 seconds,   25.974 MiB/s", Aes192Ecb, Encrypt, 1.001, 25.974),
        ("AES-192-ECB-dec     25 MiB took 1.000 seconds,   24.811 MiB/s", Aes192Ecb, Decrypt, 1.0, 24.811),
        ("AES-256-ECB-enc     22 MiB took 1.000 seconds,   21.973 MiB/s", Aes256Ecb, Encrypt, 1.0, 21.973),
        ("AES-256-ECB-dec     21 MiB took 1.002 seconds,   20.958 MiB/s", Aes256Ecb, Decrypt, 1.002, 20.958),
        ("AES-128-CFB-enc      9 MiB took 1.000 seconds,    8.789 MiB/s", Aes128Cfb, Encrypt, 1.0, 8.789),
        ("AES-128-CFB-dec      9 MiB took 1.000 seconds,    8.800 MiB/s", Aes128Cfb, Decrypt, 1.0, 8.8),
        ("AES-192-CFB-enc      8 MiB took 1.003 seconds,    7.976 MiB/s", Aes192Cfb, Encrypt, 1.003, 7.976),
        ("AES-192-CFB-dec      8 MiB took 1.000 seconds,    7.999 MiB/s", Aes192Cfb, Decrypt, 1.0, 7.999),
        ("AES-256-CFB-enc      7 MiB took 1.000 seconds,    7.031 MiB/s", Aes256Cfb, Encrypt, 1.0, 7.031),
        ("AES-256-CFB-dec      7 MiB took 1.001 seconds,    7.024 MiB/s", Aes256Cfb, Decrypt, 1.001, 7.024),
        ("AES-128-OFB-enc      9 MiB took 1.000 seconds,    8.691 MiB/s", Aes128Ofb, Encrypt, 1.0, 8.691),
        ("AES-128-OFB-dec      9 MiB took 1.000 seconds,    8.682 MiB/s", Aes128Ofb, Decrypt, 1.0, 8.682),
        ("AES-192-OFB-enc      8 MiB took 1.002 seconds,    7.859 MiB/s", Aes192Ofb, Encrypt, 1.002, 7.859),
        ("AES-192-OFB-dec      8 MiB took 1.000 seconds,    7.861 MiB/s", Aes192Ofb, Decrypt, 1.0, 7.861),
        ("AES-256-OFB-enc      7 MiB took 1.000 seconds,    6.934 MiB/s", Aes256Ofb, Encrypt, 1.0, 6.934),
        ("AES-256-OFB-dec      7 MiB took 1.004 seconds,    6.907 MiB/s", Aes256Ofb, Decrypt, 1.004, 6.907),
    ] {
        symmetric_line(line, algorithm, operation, seconds, rate);
    }
}

// `bench_aesxts` ("AES-XTS-enc"/"-dec", and with WOLFSSL_AESXTS_STREAM
// "AES-XTS-stream-enc"/"-dec"): no key size printed, a 32-byte XTS key
// (two AES-128 keys) only; `bench_aesccm` ("AES-CCM-enc"/"-dec" through
// AES_AAD_STRING): no key size printed, keyed with 16 bytes. wolfSSL
// master 0004fcc; "AES-XTS-enc" reads the same in 4.x.
#[test]
fn aes_xts_and_ccm_forms() {
    use Algorithm::*;
    use Operation::*;
    symmetric_line(
        "AES-XTS-enc         12 MiB took 1.000 seconds,   11.719 MiB/s",
        Aes128Xts,
        Encrypt,
        1.0,
        11.719,
    );
    symmetric_line(
        "AES-XTS-dec         12 MiB took 1.001 seconds,   11.707 MiB/s",
        Aes128Xts,
        Decrypt,
        1.001,
        11.707,
    );
    symmetric_line(
        "AES-CCM-enc          6 MiB took 1.000 seconds,    5.762 MiB/s",
        Aes128Ccm,
        Encrypt,
        1.0,
        5.762,
    );
    symmetric_line(
        "AES-CCM-dec          6 MiB took 1.002 seconds,    5.750 MiB/s",
        Aes128Ccm,
        Decrypt,
        1.002,
        5.75,
    );
    let xts = one("AES-XTS-enc 12 MiB took 1.000 seconds, 11.719 MiB/s");
    assert!(xts.note.unwrap().contains("two AES-128 keys"));
    let ccm = one("AES-CCM-dec 6 MiB took 1.002 seconds, 5.750 MiB/s");
    assert!(ccm.note.unwrap().contains("16-byte key"));
    // The streaming lines are variant rows of the one-shot ones.
    let log = parse(
        "AES-XTS-enc         12 MiB took 1.000 seconds,   11.719 MiB/s\n\
         AES-XTS-stream-enc  11 MiB took 1.000 seconds,   11.230 MiB/s\n\
         AES-XTS-stream-dec  11 MiB took 1.003 seconds,   11.196 MiB/s\n",
        None,
    )
    .unwrap();
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    let rows = results(&log);
    assert_eq!(rows.len(), 3);
    assert_eq!((rows[0].algorithm, rows[0].operation), (Aes128Xts, Encrypt));
    assert!(!rows[0].note.as_deref().unwrap().starts_with("variant:"), "{:?}", rows[0].note);
    assert_eq!((rows[1].algorithm, rows[1].operation), (Aes128Xts, Encrypt));
    assert_eq!((rows[1].total_seconds, rows[1].bytes_per_sec), (Some(1.0), Some(11.23 * 1048576.0)));
    assert!(rows[1].note.as_deref().unwrap().starts_with("variant: streaming"), "{:?}", rows[1].note);
    assert_eq!((rows[2].algorithm, rows[2].operation), (Aes128Xts, Decrypt));
    assert_eq!((rows[2].total_seconds, rows[2].bytes_per_sec), (Some(1.003), Some(11.196 * 1048576.0)));
    assert!(rows[2].note.as_deref().unwrap().starts_with("variant: streaming"), "{:?}", rows[2].note);
    // A -no_AAD CCM line is a variant of the CCM row.
    let r = one("AES-CCM-enc-no_AAD   6 MiB took 1.000 seconds,    5.801 MiB/s");
    assert_eq!((r.algorithm, r.operation, r.bytes_per_sec), (Aes128Ccm, Encrypt, Some(5.801 * 1048576.0)));
    assert!(r.note.unwrap().starts_with("variant: without AAD"));
}

// `bench_rsa_helper`/`bench_rsaKeyGen_helper` at 1024 bits (`"RSA"`,
// keySizes {1024, ...} where RSA_MIN_SIZE <= 1024), and the bracketed
// ECC lines (`"ECC   [%15s]"`...) for SECP192R1, SECP224R1 and the
// brainpool curves, wolfSSL master 0004fcc.
#[test]
fn rsa_1024_and_further_curves() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation, figures) in [
        (
            "RSA     1024   public      3900 ops took 1.000 sec, avg 0.256 ms, 3900.000 ops/sec",
            Rsa1024,
            Public,
            (3900, 1.0, 0.256, 3900.0),
        ),
        (
            "RSA     1024  private       600 ops took 1.001 sec, avg 1.668 ms, 599.401 ops/sec",
            Rsa1024,
            Private,
            (600, 1.001, 1.668, 599.401),
        ),
        (
            "RSA     1024  key gen        20 ops took 1.046 sec, avg 52.300 ms, 19.120 ops/sec",
            Rsa1024,
            Keygen,
            (20, 1.046, 52.3, 19.12),
        ),
        (
            "ECC   [      SECP192R1]   192  key gen   1200 ops took 1.000 sec, avg 0.833 ms, 1200.000 ops/sec",
            EcdhP192,
            Keygen,
            (1200, 1.0, 0.833, 1200.0),
        ),
        (
            "ECDHE [      SECP224R1]   224    agree    900 ops took 1.001 sec, avg 1.112 ms, 899.101 ops/sec",
            EcdhP224,
            Agree,
            (900, 1.001, 1.112, 899.101),
        ),
        (
            "ECDSA [      SECP224R1]   224     sign   1000 ops took 1.000 sec, avg 1.000 ms, 1000.000 ops/sec",
            EcdsaP224,
            Sign,
            (1000, 1.0, 1.0, 1000.0),
        ),
        (
            "ECC   [BRAINPOOLP256R1]   256  key gen    300 ops took 1.002 sec, avg 3.340 ms, 299.401 ops/sec",
            EcdhBrainpoolP256r1,
            Keygen,
            (300, 1.002, 3.34, 299.401),
        ),
        (
            "ECDSA [BRAINPOOLP384R1]   384   verify     80 ops took 1.010 sec, avg 12.625 ms, 79.208 ops/sec",
            EcdsaBrainpoolP384r1,
            Verify,
            (80, 1.01, 12.625, 79.208),
        ),
        (
            "ECDHE [BRAINPOOLP512R1]   512    agree     40 ops took 1.020 sec, avg 25.500 ms, 39.216 ops/sec",
            EcdhBrainpoolP512r1,
            Agree,
            (40, 1.02, 25.5, 39.216),
        ),
    ] {
        asymmetric_line(line, algorithm, operation, figures);
    }
    // Without the curve a 224-bit key is NIST's, as for P-256.
    let r = one("ECDSA  224 sign 1000 ops took 1.000 sec, avg 1.000 ms, 1000.000 ops/sec");
    assert_eq!((r.algorithm, r.operation), (EcdsaP224, Sign));
    assert!(r.note.unwrap().contains("NIST P-224"));
}

// `bench_scrypt` (`bench_stats_asym_finish("scrypt", 17, "", ...)` in
// wolfSSL master 0004fcc, `("scrypt", 0, "", ...)` in 4.x): a placeholder
// number and no operation; one derivation per op.
#[test]
fn scrypt_form() {
    asymmetric_line(
        "scrypt     17              20 ops took 1.013 sec, avg 50.650 ms, 19.743 ops/sec",
        Algorithm::Scrypt,
        Operation::Derive,
        (20, 1.013, 50.65, 19.743),
    );
    let r = one("scrypt 0 20 ops took 1.013 sec, avg 50.650 ms, 19.743 ops/sec");
    assert_eq!((r.algorithm, r.operation), (Algorithm::Scrypt, Operation::Derive));
    assert!(r.note.unwrap().contains("N = 2^14"));
    // Another name with a number and no operation stays unnamed.
    assert!(
        unread_reason("argon2     17              2 ops took 1.013 sec, avg 506.500 ms, 1.974 ops/sec")
            .starts_with("no pqbench name")
    );
}

// `bench_aesgcmsiv` ("AES-128-GCM-SIV-enc"/"-dec", "AES-256-..."; 16- and
// 32-byte keys) and `bench_aessiv` ("AES-256-SIV-enc" ... "AES-512-SIV-dec";
// 32-, 48- and 64-byte keys, RFC 5297's AES-SIV-CMAC-256/384/512), wolfSSL
// master 0004fcc.
#[test]
fn aes_gcm_siv_and_siv_forms() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation, seconds, rate) in [
        ("AES-128-GCM-SIV-enc  5 MiB took 1.000 seconds,    4.932 MiB/s", Aes128GcmSiv, Encrypt, 1.0, 4.932),
        ("AES-128-GCM-SIV-dec  5 MiB took 1.002 seconds,    4.920 MiB/s", Aes128GcmSiv, Decrypt, 1.002, 4.92),
        ("AES-256-GCM-SIV-enc  4 MiB took 1.000 seconds,    4.102 MiB/s", Aes256GcmSiv, Encrypt, 1.0, 4.102),
        (
            "AES-256-GCM-SIV-dec  4 MiB took 1.001 seconds,    4.095 MiB/s",
            Aes256GcmSiv,
            Decrypt,
            1.001,
            4.095,
        ),
        ("AES-256-SIV-enc      3 MiB took 1.000 seconds,    3.418 MiB/s", AesSivCmac256, Encrypt, 1.0, 3.418),
        (
            "AES-256-SIV-dec      3 MiB took 1.003 seconds,    3.408 MiB/s",
            AesSivCmac256,
            Decrypt,
            1.003,
            3.408,
        ),
        ("AES-384-SIV-enc      3 MiB took 1.000 seconds,    2.930 MiB/s", AesSivCmac384, Encrypt, 1.0, 2.93),
        ("AES-384-SIV-dec      3 MiB took 1.000 seconds,    2.925 MiB/s", AesSivCmac384, Decrypt, 1.0, 2.925),
        (
            "AES-512-SIV-enc      2 MiB took 1.001 seconds,    2.585 MiB/s",
            AesSivCmac512,
            Encrypt,
            1.001,
            2.585,
        ),
        ("AES-512-SIV-dec      2 MiB took 1.000 seconds,    2.583 MiB/s", AesSivCmac512, Decrypt, 1.0, 2.583),
    ] {
        symmetric_line(line, algorithm, operation, seconds, rate);
    }
}
