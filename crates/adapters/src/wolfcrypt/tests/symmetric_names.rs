//! Symmetric lines' descriptions beyond the sample's: further ciphers,
//! modes, hashes and MACs of benchmark.c.

use super::*;

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
