//! The post-quantum lines of wolfSSL master 0004fcc's benchmark.c that name
//! the parameter set in pieces: LMS/HSS (`bench_lms_keygen`,
//! `bench_lms_sign_verify`), SLH-DSA (`bench_slhdsa`), FrodoKEM
//! (`bench_frodokem`), and the round 3 signatures named by level (`FALCON`,
//! liboqs's `SPHINCS-FAST`/`-SMALL` of 5.6–5.7). Each line is the
//! default build's `"%-6s %5d %8s%-2s %s %6d ops took %5.3f sec, avg %5.3f
//! ms, %9.3f ops/sec"` (`bench_stats_asym_finish_ex`) with figures of our own.

use super::*;

fn named(line: &str) -> (Algorithm, Operation, Option<String>) {
    let r = one(line);
    assert!(r.iterations.is_some() && r.avg_ms.is_some(), "{line}");
    (r.algorithm, r.operation, r.note)
}

// `wc_LmsKey_ParmToStr`'s names, with a space or an underscore between
// their parts as its table has them; the number before the operation is
// the total tree height (keygen), the private key's bytes (load) or the
// signature's (sign, verify).
#[test]
fn lms_hss_forms() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation) in [
        (
            "LMS/HSS L2_H10_W2    20   keygen         1 ops took 2.345 sec, avg 2345.000 ms,     0.426 ops/sec",
            HssSha256L2H10W2,
            Keygen,
        ),
        (
            "LMS/HSS L2_H10_W2    64     load       300 ops took 1.000 sec, avg 3.333 ms,   300.000 ops/sec",
            HssSha256L2H10W2,
            Load,
        ),
        (
            "LMS/HSS L2_H10_W2  9300     sign      1200 ops took 1.001 sec, avg 0.834 ms,  1198.801 ops/sec",
            HssSha256L2H10W2,
            Sign,
        ),
        (
            "LMS/HSS L2_H10_W2  9300   verify     15000 ops took 1.000 sec, avg 0.067 ms, 15000.000 ops/sec",
            HssSha256L2H10W2,
            Verify,
        ),
        (
            "LMS/HSS_L1_H5_W1  8688     sign       900 ops took 1.000 sec, avg 1.111 ms,   900.000 ops/sec",
            HssSha256L1H5W1,
            Sign,
        ),
        (
            "LMS/HSS L4_H5_W8  5340   verify      4000 ops took 1.000 sec, avg 0.250 ms,  4000.000 ops/sec",
            HssSha256L4H5W8,
            Verify,
        ),
        (
            "LMS/HSS L3_H10_W4  7640     sign       800 ops took 1.000 sec, avg 1.250 ms,   800.000 ops/sec",
            HssSha256L3H10W4,
            Sign,
        ),
        (
            "LMS/HSS_SHA256/192 L3_H5_W4  4240   verify      9000 ops took 1.000 sec, avg 0.111 ms,  9000.000 ops/sec",
            HssSha256_192L3H5W4,
            Verify,
        ),
        (
            "LMS/HSS SHA256/192 L2_H10_W2  5452     sign       700 ops took 1.000 sec, avg 1.429 ms,   700.000 ops/sec",
            HssSha256_192L2H10W2,
            Sign,
        ),
        (
            "LMS/HSS_SHA256/192_L1_H5_W1  4960   verify      7000 ops took 1.000 sec, avg 0.143 ms,  7000.000 ops/sec",
            HssSha256_192L1H5W1,
            Verify,
        ),
    ] {
        let (a, o, note) = named(line);
        assert_eq!((a, o), (algorithm, operation), "{line}");
        assert!(note.as_deref().is_some_and(|n| n.starts_with("wolfCrypt's LMS/HSS")), "{note:?}");
    }
    let (_, _, note) = named(
        "LMS/HSS L2_H10_W2    64     load       300 ops took 1.000 sec, avg 3.333 ms,   300.000 ops/sec",
    );
    assert!(note.unwrap().contains("wc_LmsKey_Reload of a 64-byte private key"));
}

// The sizes benchmark.c prints follow from the set (RFC 8554's HSS
// signature: 9300 bytes for L2_H10_W2 over SHA-256); a line with another
// is a set the name does not say, and is refused rather than filed under it.
#[test]
fn an_lms_size_that_is_not_the_sets_is_refused() {
    let reason = unread_reason(
        "LMS/HSS L2_H10_W2  9301     sign      1200 ops took 1.001 sec, avg 0.834 ms,  1198.801 ops/sec",
    );
    assert!(
        reason.contains("HSS-SHA256-L2-H10-W2's signature's bytes is 9300, not the number printed"),
        "{reason}"
    );
    let reason = unread_reason(
        "LMS/HSS L3_H5_W8    20   keygen         1 ops took 2.345 sec, avg 2345.000 ms,     0.426 ops/sec",
    );
    assert!(reason.contains("total tree height is 15"), "{reason}");
    // A set benchmark.c does not sign with has no name, and says so.
    for line in [
        "LMS/HSS_L1_H20_W8  1000     sign       1 ops took 1.000 sec, avg 1000.000 ms, 1.000 ops/sec",
        "LMS/HSS L2_H10 9300 sign 1 ops took 1.000 sec, avg 1000.000 ms, 1.000 ops/sec",
        "LMS/HSS L2_H10_W2 9300 rotate 1 ops took 1.000 sec, avg 1000.000 ms, 1.000 ops/sec",
    ] {
        assert!(unread_reason(line).starts_with("no pqbench name for wolfCrypt's LMS/HSS"), "{line}");
    }
}

// `bench_slhdsa`: the hash and s/f in the name, the security strength (the
// public key's bytes / 2 × 8) where the set's number goes; before it named
// the hash, `SLH-DSA-S`/`-F` were SHAKE's. The internal and pre-hash
// interfaces' lines are variants of the pure ones.
#[test]
fn slh_dsa_forms() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation, variant) in [
        (
            "SLH-DSA-SHAKE-S   128      gen        20 ops took 1.050 sec, avg 52.500 ms,    19.048 ops/sec",
            SlhDsaShake128s,
            Keygen,
            false,
        ),
        (
            "SLH-DSA-SHAKE-F   256     sign        30 ops took 1.050 sec, avg 35.000 ms,    28.571 ops/sec",
            SlhDsaShake256f,
            Sign,
            false,
        ),
        (
            "SLH-DSA-SHA2-S   192   verify       900 ops took 1.000 sec, avg 1.111 ms,   900.000 ops/sec",
            SlhDsaSha2_192s,
            Verify,
            false,
        ),
        (
            "SLH-DSA-SHA2-F   128 sign-msg        30 ops took 1.000 sec, avg 33.333 ms,    30.000 ops/sec",
            SlhDsaSha2_128f,
            Sign,
            true,
        ),
        (
            "SLH-DSA-SHA2-F   128 vrfy-pre       300 ops took 1.000 sec, avg 3.333 ms,   300.000 ops/sec",
            SlhDsaSha2_128f,
            Verify,
            true,
        ),
        (
            "SLH-DSA-S   128     sign         3 ops took 1.200 sec, avg 400.000 ms,     2.500 ops/sec",
            SlhDsaShake128s,
            Sign,
            false,
        ),
    ] {
        let (a, o, note) = named(line);
        assert_eq!((a, o), (algorithm, operation), "{line}");
        assert_eq!(note.as_deref().is_some_and(|n| n.starts_with("variant:")), variant, "{line}: {note:?}");
    }
    // The pure line and its variants in one log: one main row, the rest
    // marked, none lost.
    let log = parse(
        "SLH-DSA-SHA2-F   128     sign        30 ops took 1.000 sec, avg 33.333 ms,    30.000 ops/sec\n\
         SLH-DSA-SHA2-F   128 sign-msg        31 ops took 1.000 sec, avg 32.258 ms,    31.000 ops/sec\n\
         SLH-DSA-SHA2-F   128 sign-pre        29 ops took 1.000 sec, avg 34.483 ms,    29.000 ops/sec\n",
        None,
    )
    .unwrap();
    let rows = results(&log);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let marked = rows.iter().filter(|r| r.note.as_deref().is_some_and(|n| n.starts_with("variant:")));
    assert_eq!(marked.count(), 2);
    assert!(rows[2].note.as_deref().unwrap().contains("HashSLH-DSA"), "{:?}", rows[2].note);
    // A strength that is no FIPS 205 set, or an operation it does not print.
    for line in [
        "SLH-DSA-SHAKE-S   160      gen        20 ops took 1.050 sec, avg 52.500 ms,    19.048 ops/sec",
        "SLH-DSA-SHAKE-S   128     wrap        20 ops took 1.050 sec, avg 52.500 ms,    19.048 ops/sec",
        "SLH-DSA-SHAKE-X   128      gen        20 ops took 1.050 sec, avg 52.500 ms,    19.048 ops/sec",
    ] {
        assert!(unread_reason(line).starts_with("no pqbench name for wolfCrypt's SLH-DSA"), "{line}");
    }
}

// `bench_frodokem`'s `"%sFRODOKEM %s %s"`: eFrodoKEM's `E`, the dimension
// (with the trailing space of `"640 "` and `"976 "`), AES or SHAKE, then
// the strength the dimension stands for. FrodoKEM as proposed for ISO is
// never pqm4 2019's round 2 `frodokem640aes`.
#[test]
fn frodo_kem_forms() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation) in [
        (
            "FRODOKEM 640  SHAKE   128  key gen       800 ops took 1.000 sec, avg 1.250 ms,   800.000 ops/sec",
            FrodoKem640Shake,
            Keygen,
        ),
        (
            "EFRODOKEM 1344 AES   256    decap       200 ops took 1.000 sec, avg 5.000 ms,   200.000 ops/sec",
            EFrodoKem1344Aes,
            Decaps,
        ),
        (
            "FRODOKEM 976  AES   192    encap       400 ops took 1.000 sec, avg 2.500 ms,   400.000 ops/sec",
            FrodoKem976Aes,
            Encaps,
        ),
    ] {
        let (a, o, _) = named(line);
        assert_eq!((a, o), (algorithm, operation), "{line}");
        assert_ne!(a, Frodokem640aes);
    }
    let reason = unread_reason(
        "FRODOKEM 640  SHAKE   192  key gen       800 ops took 1.000 sec, avg 1.250 ms,   800.000 ops/sec",
    );
    assert!(reason.contains("FrodoKEM-640-SHAKE's security strength is 128"), "{reason}");
}

// `bench_falconKeySign` ("FALCON", level 1 or 5) and liboqs's SPHINCS+ in
// wolfSSL 5.6–5.7 ("SPHINCS-FAST"/"SPHINCS-SMALL", levels 1, 3, 5): round
// 3 schemes under their own names, never FN-DSA's or SLH-DSA's.
#[test]
fn round_3_signatures_named_by_level() {
    use Algorithm::*;
    use Operation::*;
    for (line, algorithm, operation) in [
        (
            "FALCON     1     sign      5000 ops took 1.000 sec, avg 0.200 ms,  5000.000 ops/sec",
            Falcon512,
            Sign,
        ),
        (
            "FALCON     5   verify      9000 ops took 1.000 sec, avg 0.111 ms,  9000.000 ops/sec",
            Falcon1024,
            Verify,
        ),
        (
            "SPHINCS-SMALL     3     sign         2 ops took 1.500 sec, avg 750.000 ms,     1.333 ops/sec",
            SphincsPlus192s,
            Sign,
        ),
        (
            "SPHINCS-FAST     1   verify       900 ops took 1.000 sec, avg 1.111 ms,   900.000 ops/sec",
            SphincsPlus128f,
            Verify,
        ),
    ] {
        let (a, o, note) = named(line);
        assert_eq!((a, o), (algorithm, operation), "{line}");
        assert!(note.as_deref().unwrap().contains("round 3"), "{note:?}");
    }
    for line in [
        "FALCON     3     sign      5000 ops took 1.000 sec, avg 0.200 ms,  5000.000 ops/sec",
        "FALCON     1  key gen      5000 ops took 1.000 sec, avg 0.200 ms,  5000.000 ops/sec",
    ] {
        assert!(unread_reason(line).starts_with("no pqbench name for wolfCrypt's FALCON"), "{line}");
    }
}

// Hosts with a cycle counter (x86_64, aarch64, Linux perf, ESP32) end the
// line with `", %lu cycles"` and SHOW_CYCLES_OPS's `" %10.1f Cycles/op"`.
#[test]
fn the_cycles_per_op_clause_after_the_cycle_count_is_read() {
    let r = one(
        "LMS/HSS L2_H10_W2  9300     sign      1200 ops took 1.001 sec, avg 0.834 ms,  1198.801 ops/sec, 12345678 cycles    10288.1 Cycles/op",
    );
    assert_eq!((r.algorithm, r.operation), (Algorithm::HssSha256L2H10W2, Operation::Sign));
    assert_eq!(r.cycles_per_op, Some(12_345_678.0 / 1200.0));
    // A printed figure that is not the count over the operations is not
    // wolfCrypt's clause.
    let reason = unread_reason(
        "RSA 2048 public 200 ops took 1.000 sec, avg 5.000 ms, 200.000 ops/sec, 3000000000 cycles 7.0 Cycles/op",
    );
    assert!(reason.contains("Cycles/op"), "{reason}");
}

// -csv rows (`"%s,%d,%s%s,%.3f,%.3f,"` under `Algorithm,key size,operation,
// avg ms,ops/sec,`) carry the same names.
#[test]
fn csv_rows_carry_the_same_names() {
    let log = parse(
        "Asymmetric Ciphers:\n\nAlgorithm,key size,operation,avg ms,ops/sec,\n\
         LMS/HSS L2_H10_W2,9300,verify,0.067,15000.000,\n\
         SLH-DSA-SHAKE-F,192,sign,35.000,28.571,\n\
         FRODOKEM 976  SHAKE,192,decap,2.500,400.000,\n",
        None,
    )
    .unwrap();
    assert!(log.unread.is_empty(), "{:#?}", log.unread);
    let names: Vec<_> = results(&log).iter().map(|r| (r.algorithm, r.operation)).collect();
    assert_eq!(
        names,
        [
            (Algorithm::HssSha256L2H10W2, Operation::Verify),
            (Algorithm::SlhDsaShake192f, Operation::Sign),
            (Algorithm::FrodoKem976Shake, Operation::Decaps),
        ]
    );
}
