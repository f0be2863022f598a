//! Asymmetric lines' names: RSA, DH, the curves, the post-quantum forms
//! of each release, and the ones pqbench has no name for.

use super::*;

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

// Issue 24's four lines, with every figure as printed. The bracketed ECC
// form without a strength is as the NUCLEO-F439ZI log prints it (wolfSSL
// 5.7 and later name the curve, `"ECC   [%15s]"` with `wc_ecc_get_name`);
// the Kyber lines are `bench_stats_pq_asym_finish`'s `"%-18s %s %6d %s
// %5.3f %s, %s %5.3f ms, %.3f %s"` with pqm4's `kyber_level1-kg`/`-ed`
// (wolfSSL 5.5's benchmark.c, `bench_pq_asym_opt`), as wolfSSL's STM32
// pqm4 example prints them.
const ISSUE_LINES: &str = include_str!("../../../../../tests/samples/wolfcrypt-issue24-lines.txt");

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
