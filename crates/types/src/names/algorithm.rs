//! Every algorithm pqbench has a name for: the suite's, and those of the
//! published tables it imports (wolfCrypt, pqm4, pqm3).

use core::fmt;

use super::UnknownName;

names! {
    /// An algorithm at one parameter set, named as in the public contract.
    Algorithm {
        MlKem512 => "ML-KEM-512",
        MlKem768 => "ML-KEM-768",
        MlKem1024 => "ML-KEM-1024",
        MlDsa44 => "ML-DSA-44",
        MlDsa65 => "ML-DSA-65",
        MlDsa87 => "ML-DSA-87",
        Rsa2048 => "RSA-2048",
        Dh2048 => "DH-2048",
        EcdsaP256 => "ECDSA-P256",
        EcdhP256 => "ECDH-P256",
        X25519 => "X25519",
        Ed25519 => "Ed25519",
        Aes128Gcm => "AES-128-GCM",
        Aes256Gcm => "AES-256-GCM",
        Aes128Cbc => "AES-128-CBC",
        Aes256Cbc => "AES-256-CBC",
        ChaCha20Poly1305 => "ChaCha20-Poly1305",
        Sha256 => "SHA-256",
        Sha512 => "SHA-512",
        Sha3_256 => "SHA3-256",
        Shake128 => "SHAKE128",
        Shake256 => "SHAKE256",
        HmacSha256 => "HMAC-SHA256",
        // Beyond the suite's own: what published logs (wolfCrypt, pqm4)
        // measure, so their lines land under names of the same style.
        // Appended, not sorted in: a run command selects algorithms by
        // their place in `ALL`.
        Sha224 => "SHA-224",
        Sha384 => "SHA-384",
        Sha512_224 => "SHA-512/224",
        Sha512_256 => "SHA-512/256",
        Sha3_224 => "SHA3-224",
        Sha3_384 => "SHA3-384",
        Sha3_512 => "SHA3-512",
        HmacSha224 => "HMAC-SHA224",
        HmacSha384 => "HMAC-SHA384",
        HmacSha512 => "HMAC-SHA512",
        Poly1305 => "Poly1305",
        Gmac => "GMAC",
        AesCmac => "AES-CMAC",
        ChaCha20 => "ChaCha20",
        Aes128Ctr => "AES-128-CTR",
        Aes256Ctr => "AES-256-CTR",
        Rng => "RNG",
        Rsa3072 => "RSA-3072",
        Rsa4096 => "RSA-4096",
        Dh3072 => "DH-3072",
        EcdsaP384 => "ECDSA-P384",
        EcdhP384 => "ECDH-P384",
        EcdsaP521 => "ECDSA-P521",
        EcdhP521 => "ECDH-P521",
        X448 => "X448",
        Ed448 => "Ed448",
        // wolfCrypt's further lines (issue 24). Pre-FIPS Kyber and
        // Dilithium (round 3) are their own algorithms, never ML-KEM or
        // ML-DSA: their outputs differ from the standards'. The set is
        // spelled as the contract spells ML-KEM's, hyphenated, and names
        // the parameter set (Kyber's level 1 is Kyber-512). A run command
        // selects by place (`pqbench_wire::RunCommand`), a bit each.
        Aes192Cbc => "AES-192-CBC",
        Aes192Gcm => "AES-192-GCM",
        Aes192Ctr => "AES-192-CTR",
        Sha1 => "SHA-1",
        HmacSha1 => "HMAC-SHA1",
        Pbkdf2 => "PBKDF2",
        Kyber512 => "Kyber-512",
        Kyber768 => "Kyber-768",
        Kyber1024 => "Kyber-1024",
        Dilithium2 => "Dilithium-2",
        Dilithium3 => "Dilithium-3",
        Dilithium5 => "Dilithium-5",
        // Falcon round 3 (before FN-DSA), by its parameter set.
        Falcon512 => "Falcon-512",
        Falcon1024 => "Falcon-1024",
        // Names for imports only, never run on a board: the host and the
        // board refuse them as not the suite's. SPHINCS+
        // round 3 (liboqs, before FIPS 205's SLH-DSA) by its security
        // category and its fast (f) or small (s) set.
        SphincsPlus128f => "SPHINCS+-128f",
        SphincsPlus128s => "SPHINCS+-128s",
        SphincsPlus192f => "SPHINCS+-192f",
        SphincsPlus192s => "SPHINCS+-192s",
        SphincsPlus256f => "SPHINCS+-256f",
        SphincsPlus256s => "SPHINCS+-256s",
        // XMSS and XMSS^MT (RFC 8391, SP 800-208), stateful hash-based
        // signatures, spelled as their parameter sets are: height (and
        // layers), and the hash's output bits.
        XmssSha2_10_256 => "XMSS-SHA2_10_256",
        XmssSha2_10_192 => "XMSS-SHA2_10_192",
        XmssMtSha2_20_2_256 => "XMSSMT-SHA2_20/2_256",
        XmssMtSha2_20_4_256 => "XMSSMT-SHA2_20/4_256",
        XmssMtSha2_40_4_256 => "XMSSMT-SHA2_40/4_256",
        XmssMtSha2_40_8_256 => "XMSSMT-SHA2_40/8_256",
        XmssMtSha2_60_6_256 => "XMSSMT-SHA2_60/6_256",
        XmssMtSha2_60_12_256 => "XMSSMT-SHA2_60/12_256",
        // wolfCrypt's remaining symmetric, hash and MAC lines (issue 24),
        // for imports only: legacy and regional ciphers and hashes, the
        // further AES modes by key size, and the curves and RSA size
        // beyond the suite's. 3DES is three-key Triple DES; SipHash is
        // SipHash-2-4 by its tag's bits; a brainpool curve keeps its RFC
        // 5639 name.
        Md5 => "MD5",
        HmacMd5 => "HMAC-MD5",
        Ripemd160 => "RIPEMD-160",
        Blake2b512 => "BLAKE2b-512",
        Blake2s256 => "BLAKE2s-256",
        Sm3 => "SM3",
        HmacSha3_256 => "HMAC-SHA3-256",
        HmacSha3_384 => "HMAC-SHA3-384",
        HmacSha3_512 => "HMAC-SHA3-512",
        SipHash64 => "SipHash-2-4-64",
        SipHash128 => "SipHash-2-4-128",
        TripleDes => "3DES",
        Arc4 => "ARC4",
        Camellia128Cbc => "Camellia-128-CBC",
        Sm4Cbc => "SM4-CBC",
        Sm4Gcm => "SM4-GCM",
        Sm4Ccm => "SM4-CCM",
        Aes128Ecb => "AES-128-ECB",
        Aes192Ecb => "AES-192-ECB",
        Aes256Ecb => "AES-256-ECB",
        Aes128Cfb => "AES-128-CFB",
        Aes192Cfb => "AES-192-CFB",
        Aes256Cfb => "AES-256-CFB",
        Aes128Ofb => "AES-128-OFB",
        Aes192Ofb => "AES-192-OFB",
        Aes256Ofb => "AES-256-OFB",
        Aes128Xts => "AES-128-XTS",
        Aes128Ccm => "AES-128-CCM",
        Rsa1024 => "RSA-1024",
        EcdsaP192 => "ECDSA-P192",
        EcdhP192 => "ECDH-P192",
        EcdsaP224 => "ECDSA-P224",
        EcdhP224 => "ECDH-P224",
        EcdsaBrainpoolP256r1 => "ECDSA-brainpoolP256r1",
        EcdhBrainpoolP256r1 => "ECDH-brainpoolP256r1",
        EcdsaBrainpoolP384r1 => "ECDSA-brainpoolP384r1",
        EcdhBrainpoolP384r1 => "ECDH-brainpoolP384r1",
        EcdsaBrainpoolP512r1 => "ECDSA-brainpoolP512r1",
        EcdhBrainpoolP512r1 => "ECDH-brainpoolP512r1",
        // The password-based key derivation (RFC 7914).
        Scrypt => "scrypt",
        // AES-GCM-SIV (RFC 8452) by key size, and AES-SIV by RFC 5297's
        // names, which count both keys (AES-SIV-CMAC-256: two 128-bit keys).
        Aes128GcmSiv => "AES-128-GCM-SIV",
        Aes256GcmSiv => "AES-256-GCM-SIV",
        AesSivCmac256 => "AES-SIV-CMAC-256",
        AesSivCmac384 => "AES-SIV-CMAC-384",
        AesSivCmac512 => "AES-SIV-CMAC-512",
        // For imports only: the schemes of pqm4's final tables (2026) and
        // pqm3's that no standard has named, so that every row of them
        // lands. Each is spelled exactly as the table prints it, never
        // under a standard's name it is not: `hqc-128` is the round 4
        // submission pqm4 ran, `fndsa_provisional-512` the provisional
        // FN-DSA code, `sphincs-sha2-128f-simple` round 3 SPHINCS+ (not
        // FIPS 205's SLH-DSA). The ML-KEM, ML-DSA, Kyber and Dilithium rows
        // keep the names above. Decision 0034.
        Aimer128f => "aimer128f",
        Aimer128s => "aimer128s",
        Aimer192f => "aimer192f",
        Aimer192s => "aimer192s",
        Aimer256f => "aimer256f",
        Aimer256s => "aimer256s",
        Bikel1 => "bikel1",
        Bikel3 => "bikel3",
        CrossSha2RSdp1Fast => "cross-sha2-r-sdp-1-fast",
        CrossSha2RSdp3Fast => "cross-sha2-r-sdp-3-fast",
        CrossSha2RSdpg1Fast => "cross-sha2-r-sdpg-1-fast",
        CrossSha2RSdpg1Small => "cross-sha2-r-sdpg-1-small",
        CrossSha2RSdpg3Fast => "cross-sha2-r-sdpg-3-fast",
        CrossSha2RSdpg5Fast => "cross-sha2-r-sdpg-5-fast",
        CrossSha3RSdp1Fast => "cross-sha3-r-sdp-1-fast",
        CrossSha3RSdp3Fast => "cross-sha3-r-sdp-3-fast",
        CrossSha3RSdpg1Fast => "cross-sha3-r-sdpg-1-fast",
        CrossSha3RSdpg1Small => "cross-sha3-r-sdpg-1-small",
        CrossSha3RSdpg3Fast => "cross-sha3-r-sdpg-3-fast",
        CrossSha3RSdpg5Fast => "cross-sha3-r-sdpg-5-fast",
        FndsaProvisional1024 => "fndsa_provisional-1024",
        FndsaProvisional512 => "fndsa_provisional-512",
        Haetae2 => "haetae2",
        Haetae3 => "haetae3",
        Haetae5 => "haetae5",
        Hawk1024 => "hawk1024",
        Hawk256 => "hawk256",
        Hawk512 => "hawk512",
        Hqc128 => "hqc-128",
        Hqc192 => "hqc-192",
        Hqc256 => "hqc-256",
        Mayo1 => "mayo1",
        Mayo2 => "mayo2",
        Mayo3 => "mayo3",
        MirithIIIaFast => "mirith_IIIa_fast",
        MirithIIIbFast => "mirith_IIIb_fast",
        MirithIaFast => "mirith_Ia_fast",
        MirithIbFast => "mirith_Ib_fast",
        MirithVaFast => "mirith_Va_fast",
        MirithVbFast => "mirith_Vb_fast",
        MirithHypercubeIIIaFast => "mirith_hypercube_IIIa_fast",
        MirithHypercubeIIIaShort => "mirith_hypercube_IIIa_short",
        MirithHypercubeIIIbFast => "mirith_hypercube_IIIb_fast",
        MirithHypercubeIIIbShort => "mirith_hypercube_IIIb_short",
        MirithHypercubeIaFast => "mirith_hypercube_Ia_fast",
        MirithHypercubeIaShort => "mirith_hypercube_Ia_short",
        MirithHypercubeIbFast => "mirith_hypercube_Ib_fast",
        MirithHypercubeIbShort => "mirith_hypercube_Ib_short",
        MirithHypercubeVaFast => "mirith_hypercube_Va_fast",
        MirithHypercubeVbFast => "mirith_hypercube_Vb_fast",
        MqomCat1Gf251Fast => "mqom_cat1_gf251_fast",
        MqomCat1Gf31Fast => "mqom_cat1_gf31_fast",
        OvIp => "ov-Ip",
        OvIpPkc => "ov-Ip-pkc",
        OvIpPkcSkc => "ov-Ip-pkc-skc",
        Perk128Fast3 => "perk-128-fast-3",
        Perk128Fast5 => "perk-128-fast-5",
        Perk128Short3 => "perk-128-short-3",
        Perk128Short5 => "perk-128-short-5",
        Perk192Fast3 => "perk-192-fast-3",
        Perk192Fast5 => "perk-192-fast-5",
        Perk192Short3 => "perk-192-short-3",
        Perk192Short5 => "perk-192-short-5",
        Perk256Fast3 => "perk-256-fast-3",
        Perk256Fast5 => "perk-256-fast-5",
        Perk256Short3 => "perk-256-short-3",
        Perk256Short5 => "perk-256-short-5",
        Snova24_5_16_4Esk => "snova-24-5-16-4-esk",
        Snova24_5_16_4Ssk => "snova-24-5-16-4-ssk",
        Snova25_8_16_3Esk => "snova-25-8-16-3-esk",
        Snova25_8_16_3Ssk => "snova-25-8-16-3-ssk",
        Snova28_17_16_2Esk => "snova-28-17-16-2-esk",
        Snova28_17_16_2Ssk => "snova-28-17-16-2-ssk",
        Snova37_8_16_4Ssk => "snova-37-8-16-4-ssk",
        SphincsSha2_128fSimple => "sphincs-sha2-128f-simple",
        SphincsSha2_128sSimple => "sphincs-sha2-128s-simple",
        SphincsSha2_192fSimple => "sphincs-sha2-192f-simple",
        SphincsSha2_192sSimple => "sphincs-sha2-192s-simple",
        SphincsSha2_256fSimple => "sphincs-sha2-256f-simple",
        SphincsSha2_256sSimple => "sphincs-sha2-256s-simple",
        SphincsShake128fSimple => "sphincs-shake-128f-simple",
        SphincsShake128sSimple => "sphincs-shake-128s-simple",
        SphincsShake192fSimple => "sphincs-shake-192f-simple",
        SphincsShake192sSimple => "sphincs-shake-192s-simple",
        SphincsShake256fSimple => "sphincs-shake-256f-simple",
        SphincsShake256sSimple => "sphincs-shake-256s-simple",
        Firesaber => "firesaber",
        Lightsaber => "lightsaber",
        Saber => "saber",
        Dilithium2aes => "dilithium2aes",
        Dilithium3aes => "dilithium3aes",
        Picnic3l1 => "picnic3l1",
        Picnicl1fs => "picnicl1fs",
        Picnicl1full => "picnicl1full",
        // pqm4's first table (2019): NIST's second round and before.
        Frodokem640aes => "frodokem640aes",
        Frodokem640shake => "frodokem640shake",
        Newhope1024cca => "newhope1024cca",
        Ntruhps2048509 => "ntruhps2048509",
        Ntruhps2048677 => "ntruhps2048677",
        Ntruhps4096821 => "ntruhps4096821",
        Ntruhrss701 => "ntruhrss701",
        Sikep751 => "sikep751",
        Sntrup4591761 => "sntrup4591761",
        Dilithium => "dilithium",
        QTeslaI => "qTesla-I",
        QTeslaIIISize => "qTesla-III-size",
        QTeslaIIISpeed => "qTesla-III-speed",
        SphincsShake256_128fSimple => "sphincs-shake256-128f-simple",
        // The suite's hybrid KEMs (issue 38), appended after every imported
        // name. X25519MLKEM768 is TLS's (draft-ietf-tls-ecdhe-mlkem), spelled
        // as its IANA codepoint is; X-Wing the general-purpose one
        // (draft-connolly-cfrg-xwing-kem).
        X25519MlKem768 => "X25519MLKEM768",
        XWing => "X-Wing",
        // SLH-DSA (FIPS 205) as the suite runs it, named as FIPS 205 §11
        // names its sets.
        SlhDsaSha2_128f => "SLH-DSA-SHA2-128f",
        // FN-DSA (FIPS 206, not yet published) as the suite runs it: the
        // draft's names, never round 3 Falcon's (`Falcon-512` above), whose
        // bytes differ.
        FnDsa512 => "FN-DSA-512",
        FnDsa1024 => "FN-DSA-1024",
        // FIPS 205's other eleven sets: wolfCrypt's `bench_slhdsa` prints
        // all twelve; the suite runs SHA2-128f (above).
        SlhDsaSha2_128s => "SLH-DSA-SHA2-128s",
        SlhDsaSha2_192s => "SLH-DSA-SHA2-192s",
        SlhDsaSha2_192f => "SLH-DSA-SHA2-192f",
        SlhDsaSha2_256s => "SLH-DSA-SHA2-256s",
        SlhDsaSha2_256f => "SLH-DSA-SHA2-256f",
        SlhDsaShake128s => "SLH-DSA-SHAKE-128s",
        SlhDsaShake128f => "SLH-DSA-SHAKE-128f",
        SlhDsaShake192s => "SLH-DSA-SHAKE-192s",
        SlhDsaShake192f => "SLH-DSA-SHAKE-192f",
        SlhDsaShake256s => "SLH-DSA-SHAKE-256s",
        SlhDsaShake256f => "SLH-DSA-SHAKE-256f",
        // FrodoKEM as proposed for ISO/IEC 18033-2 (wolfCrypt's native
        // `wc_frodokem`), with its ephemeral eFrodoKEM: not pqm4 2019's round
        // 2 `frodokem640aes` (above), whose encapsulation has no salt, so
        // its ciphertexts differ.
        FrodoKem640Aes => "FrodoKEM-640-AES",
        FrodoKem640Shake => "FrodoKEM-640-SHAKE",
        FrodoKem976Aes => "FrodoKEM-976-AES",
        FrodoKem976Shake => "FrodoKEM-976-SHAKE",
        FrodoKem1344Aes => "FrodoKEM-1344-AES",
        FrodoKem1344Shake => "FrodoKEM-1344-SHAKE",
        EFrodoKem640Aes => "eFrodoKEM-640-AES",
        EFrodoKem640Shake => "eFrodoKEM-640-SHAKE",
        EFrodoKem976Aes => "eFrodoKEM-976-AES",
        EFrodoKem976Shake => "eFrodoKEM-976-SHAKE",
        EFrodoKem1344Aes => "eFrodoKEM-1344-AES",
        EFrodoKem1344Shake => "eFrodoKEM-1344-SHAKE",
        // HSS (RFC 8554, SP 800-208) with the same LMS tree (height H) and
        // LM-OTS (Winternitz W) at each of L levels, over SHA-256 or SHA-256/192:
        // the sets wolfCrypt's `bench_lms` signs with.
        HssSha256L1H5W1 => "HSS-SHA256-L1-H5-W1",
        HssSha256L1H15W2 => "HSS-SHA256-L1-H15-W2",
        HssSha256L1H15W4 => "HSS-SHA256-L1-H15-W4",
        HssSha256L2H10W2 => "HSS-SHA256-L2-H10-W2",
        HssSha256L2H10W4 => "HSS-SHA256-L2-H10-W4",
        HssSha256L2H10W8 => "HSS-SHA256-L2-H10-W8",
        HssSha256L3H5W4 => "HSS-SHA256-L3-H5-W4",
        HssSha256L3H5W8 => "HSS-SHA256-L3-H5-W8",
        HssSha256L3H10W4 => "HSS-SHA256-L3-H10-W4",
        HssSha256L4H5W8 => "HSS-SHA256-L4-H5-W8",
        HssSha256_192L1H5W1 => "HSS-SHA256/192-L1-H5-W1",
        HssSha256_192L1H15W2 => "HSS-SHA256/192-L1-H15-W2",
        HssSha256_192L1H15W4 => "HSS-SHA256/192-L1-H15-W4",
        HssSha256_192L2H10W2 => "HSS-SHA256/192-L2-H10-W2",
        HssSha256_192L2H10W4 => "HSS-SHA256/192-L2-H10-W4",
        HssSha256_192L2H10W8 => "HSS-SHA256/192-L2-H10-W8",
        HssSha256_192L3H5W4 => "HSS-SHA256/192-L3-H5-W4",
        HssSha256_192L3H5W8 => "HSS-SHA256/192-L3-H5-W8",
        HssSha256_192L3H10W4 => "HSS-SHA256/192-L3-H10-W4",
        HssSha256_192L4H5W8 => "HSS-SHA256/192-L4-H5-W8",
        // HQC as NIST selected it (the 2025-08-22 specification, FIPS 207's
        // draft), as the suite runs it: its keys and shared secret differ
        // from round 4's, which pqm4's tables name `hqc-128` (above).
        HqcKem128 => "HQC-128",
        HqcKem192 => "HQC-192",
        HqcKem256 => "HQC-256",
        // HSS with one LMS tree of height 5 and Winternitz 4: LMS alone, as
        // a boot loader checks it, and the set the suite signs with (every
        // call well inside the emulated boards' clock; 32 signatures).
        HssSha256L1H5W4 => "HSS-SHA256-L1-H5-W4",
    }
}
