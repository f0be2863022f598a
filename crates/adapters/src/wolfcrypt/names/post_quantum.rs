//! The post-quantum lines of benchmark.c, whose names follow no one
//! pattern: liboqs-era `_levelN` names, the parameter set as the name
//! (XMSS, LMS/HSS), the name without the set and the set in the strength's
//! place (SLH-DSA, FrodoKEM), the NIST level as the strength (Falcon and
//! round 3 SPHINCS+). Each reads what benchmark.c prints (wolfSSL master
//! 0004fcc unless a function says otherwise) and nothing it does not.

use pqbench_types::{Algorithm, Operation};

use super::super::VARIANT;
use super::super::error::LineError;
use super::Named;

/// `bench_stats_pq_asym_finish`'s names (wolfSSL 4.8–5.5 with liboqs or
/// pqm4): `kyber_levelN` with `kg`/`ed`, `DILITHIUM_levelN` and the
/// others with `sign`/`verify`; round 3, so never a FIPS name.
pub(super) fn post_quantum_name(name: &str, operation: &str) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    let lower = name.to_ascii_lowercase();
    let label = || super::super::asymmetric_label(name, None, operation);
    let Some((family, level)) = lower.rsplit_once("_level") else {
        return Err(LineError::PostQuantumWithoutLevel { label: label() });
    };
    let note = |what: &str| format!("{what} (pre-FIPS) level {level}, printed {name}");
    match (family, level, operation) {
        ("kyber", "1" | "3" | "5", "kg" | "ed") => {
            let algorithm = match level {
                "1" => Kyber512,
                "3" => Kyber768,
                _ => Kyber1024,
            };
            let (op, timed) = match operation {
                "kg" => (Keygen, ""),
                _ => (EncapsDecaps, "; one encapsulation and one decapsulation timed together"),
            };
            Ok((algorithm, op, Some(format!("{}-{operation}{timed}", note("Kyber round 3")))))
        }
        ("dilithium", "2" | "3" | "5", "sign" | "verify") => {
            let algorithm = match level {
                "2" => Dilithium2,
                "3" => Dilithium3,
                _ => Dilithium5,
            };
            let op = if operation == "sign" { Sign } else { Verify };
            Ok((algorithm, op, Some(note("Dilithium round 3"))))
        }
        ("dilithium_aes", ..) => Err(LineError::DilithiumAes { label: label() }),
        // liboqs's falcon_512 and falcon_1024 (`bench_pq_asym_opt`).
        ("falcon", "1" | "5", "sign" | "verify") => {
            let algorithm = if level == "1" { Falcon512 } else { Falcon1024 };
            let op = if operation == "sign" { Sign } else { Verify };
            Ok((algorithm, op, Some(note("Falcon round 3"))))
        }
        // liboqs's SPHINCS+ (round 3, before FIPS 205's SLH-DSA): the level
        // is the security category (1: 128, 3: 192, 5: 256), fast or small.
        ("sphincs_fast" | "sphincs_small", "1" | "3" | "5", "sign" | "verify") => {
            let algorithm = match (family, level) {
                ("sphincs_fast", "1") => SphincsPlus128f,
                ("sphincs_small", "1") => SphincsPlus128s,
                ("sphincs_fast", "3") => SphincsPlus192f,
                ("sphincs_small", "3") => SphincsPlus192s,
                ("sphincs_fast", _) => SphincsPlus256f,
                _ => SphincsPlus256s,
            };
            let op = if operation == "sign" { Sign } else { Verify };
            Ok((algorithm, op, Some(note("SPHINCS+ round 3"))))
        }
        _ => Err(LineError::UnknownPostQuantum { label: label() }),
    }
}

/// `bench_xmss_sign_verify` (wolfSSL 5.7 and later, read at master
/// 0004fcc): the parameter set as the name, a size in bytes where the
/// strength goes (the private key's for `gen`, the signature's for
/// `sign`/`verify`), so the name alone says which key it is.
pub(super) fn xmss_name(
    name: &str,
    operation: &str,
    unnamed: impl Fn() -> LineError,
) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    let algorithm = match name {
        "XMSS-SHA2_10_256" => XmssSha2_10_256,
        "XMSS-SHA2_10_192" => XmssSha2_10_192,
        "XMSSMT-SHA2_20/2_256" => XmssMtSha2_20_2_256,
        "XMSSMT-SHA2_20/4_256" => XmssMtSha2_20_4_256,
        "XMSSMT-SHA2_40/4_256" => XmssMtSha2_40_4_256,
        "XMSSMT-SHA2_40/8_256" => XmssMtSha2_40_8_256,
        "XMSSMT-SHA2_60/6_256" => XmssMtSha2_60_6_256,
        "XMSSMT-SHA2_60/12_256" => XmssMtSha2_60_12_256,
        _ => return Err(unnamed()),
    };
    let op = match operation {
        // One key generation, timed once: the state changes after it.
        "gen" => Keygen,
        "sign" => Sign,
        "verify" => Verify,
        _ => return Err(unnamed()),
    };
    Ok((algorithm, op, None))
}

/// `bench_lms_keygen` and `bench_lms_sign_verify` (wolfSSL 5.7 and later;
/// 5.6 signs and verifies only): `wc_LmsKey_ParmToStr`'s name (`LMS/HSS
/// L2_H10_W2`, `LMS/HSS_L1_H5_W1`, `LMS/HSS_SHA256/192 L3_H5_W4`: its
/// separators vary), and where the strength goes the tree's total height
/// for `keygen`, the private key's bytes for `load`, the signature's bytes
/// for `sign` and `verify`. Those sizes follow from the set, so a line
/// whose size is not the named set's is refused, never filed under it.
pub(super) fn hss_name(
    name: &str,
    strength: Option<u64>,
    operation: &str,
    unnamed: impl Fn() -> LineError,
) -> Result<Named, LineError> {
    use Operation::*;
    let set = HssSet::parse(name).ok_or_else(&unnamed)?;
    let algorithm = set.algorithm().ok_or_else(&unnamed)?;
    let printed = strength.ok_or(LineError::NoStrength)?;
    let (op, expected) = match operation {
        "keygen" | "key gen" => (Keygen, Some((set.levels * set.height, "total tree height"))),
        "load" => (Load, None),
        "sign" => (Sign, Some((set.signature_bytes(), "signature's bytes"))),
        "verify" => (Verify, Some((set.signature_bytes(), "signature's bytes"))),
        _ => return Err(unnamed()),
    };
    if let Some((expected, what)) = expected
        && printed != expected
    {
        return Err(LineError::SizeNotTheSet {
            label: super::super::asymmetric_label(name, strength, operation),
            what,
            expected,
            algorithm,
        });
    }
    let note = match op {
        Keygen => format!("wolfCrypt's {name}: one key of 2^{} signatures per call", set.levels * set.height),
        Load => format!("wolfCrypt's {name}: wc_LmsKey_Reload of a {printed}-byte private key"),
        _ => format!("wolfCrypt's {name}: {printed}-byte signatures"),
    };
    Ok((algorithm, op, Some(note)))
}

/// An HSS parameter set as wolfCrypt names it: one LMS height and LM-OTS
/// Winternitz parameter at every level, over SHA-256 (n = 32) or SHA-256/192
/// (n = 24).
#[derive(Debug, Clone, Copy, PartialEq)]
struct HssSet {
    n: u64,
    levels: u64,
    height: u64,
    winternitz: u64,
}

impl HssSet {
    /// `LMS/HSS`, then `SHA256/192` or nothing, then `L1_H5_W1`, each part
    /// after a space or an underscore.
    fn parse(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("LMS/HSS")?;
        let rest = rest.strip_prefix([' ', '_'])?;
        let (n, rest) = match rest.strip_prefix("SHA256/192") {
            Some(rest) => (24, rest.strip_prefix([' ', '_'])?),
            None => (32, rest),
        };
        let mut parts = rest.split('_');
        let mut number = |prefix: char| parts.next()?.strip_prefix(prefix)?.parse::<u64>().ok();
        let (levels, height, winternitz) = (number('L')?, number('H')?, number('W')?);
        if parts.next().is_some() {
            return None;
        }
        Some(HssSet { n, levels, height, winternitz })
    }

    fn algorithm(self) -> Option<Algorithm> {
        use Algorithm::*;
        Some(match (self.n, self.levels, self.height, self.winternitz) {
            (32, 1, 5, 1) => HssSha256L1H5W1,
            (32, 1, 15, 2) => HssSha256L1H15W2,
            (32, 1, 15, 4) => HssSha256L1H15W4,
            (32, 2, 10, 2) => HssSha256L2H10W2,
            (32, 2, 10, 4) => HssSha256L2H10W4,
            (32, 2, 10, 8) => HssSha256L2H10W8,
            (32, 3, 5, 4) => HssSha256L3H5W4,
            (32, 3, 5, 8) => HssSha256L3H5W8,
            (32, 3, 10, 4) => HssSha256L3H10W4,
            (32, 4, 5, 8) => HssSha256L4H5W8,
            (24, 1, 5, 1) => HssSha256_192L1H5W1,
            (24, 1, 15, 2) => HssSha256_192L1H15W2,
            (24, 1, 15, 4) => HssSha256_192L1H15W4,
            (24, 2, 10, 2) => HssSha256_192L2H10W2,
            (24, 2, 10, 4) => HssSha256_192L2H10W4,
            (24, 2, 10, 8) => HssSha256_192L2H10W8,
            (24, 3, 5, 4) => HssSha256_192L3H5W4,
            (24, 3, 5, 8) => HssSha256_192L3H5W8,
            (24, 3, 10, 4) => HssSha256_192L3H10W4,
            (24, 4, 5, 8) => HssSha256_192L4H5W8,
            _ => return None,
        })
    }

    /// An HSS signature's bytes (RFC 8554 §6.2, §5.4, §4.5): the level
    /// count, a signed public key per level below the top, the bottom LMS
    /// signature. LM-OTS's chain count p is RFC 8554 Table 1's for n = 32
    /// and SP 800-208 §4.1's for n = 24.
    fn signature_bytes(self) -> u64 {
        let p = match (self.n, self.winternitz) {
            (32, 1) => 265,
            (32, 2) => 133,
            (32, 4) => 67,
            (32, _) => 34,
            (_, 1) => 200,
            (_, 2) => 101,
            (_, 4) => 51,
            _ => 26,
        };
        let lm_ots = 4 + self.n + p * self.n;
        let lms = 4 + lm_ots + 4 + self.height * self.n;
        let lms_public_key = 4 + 4 + 16 + self.n;
        4 + (self.levels - 1) * (lms + lms_public_key) + lms
    }
}

/// `bench_slhdsa`: `SLH-DSA-SHAKE-S`, `SLH-DSA-SHA2-F` (`SLH-DSA-S` and
/// `SLH-DSA-F`, SHAKE only, before it named the hash), the security
/// strength (the public key's bytes / 2 × 8: 128, 192, 256) where the set's
/// number belongs. `gen`, `sign` and `verify` are FIPS 205's pure
/// interface; `sign-msg`/`vrfy-msg` (its internal functions) and
/// `sign-pre`/`vrfy-pre` (HashSLH-DSA, pre-hashed) are variants of them.
pub(super) fn slh_dsa_name(
    name: &str,
    strength: Option<u64>,
    operation: &str,
    unnamed: impl Fn() -> LineError,
) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    let (hash, size) = match name {
        "SLH-DSA-SHAKE-S" | "SLH-DSA-S" => ("SHAKE", 's'),
        "SLH-DSA-SHAKE-F" | "SLH-DSA-F" => ("SHAKE", 'f'),
        "SLH-DSA-SHA2-S" => ("SHA2", 's'),
        "SLH-DSA-SHA2-F" => ("SHA2", 'f'),
        _ => return Err(unnamed()),
    };
    let algorithm = match (hash, strength.ok_or(LineError::NoStrength)?, size) {
        ("SHAKE", 128, 's') => SlhDsaShake128s,
        ("SHAKE", 128, 'f') => SlhDsaShake128f,
        ("SHAKE", 192, 's') => SlhDsaShake192s,
        ("SHAKE", 192, 'f') => SlhDsaShake192f,
        ("SHAKE", 256, 's') => SlhDsaShake256s,
        ("SHAKE", 256, 'f') => SlhDsaShake256f,
        ("SHA2", 128, 's') => SlhDsaSha2_128s,
        ("SHA2", 128, 'f') => SlhDsaSha2_128f,
        ("SHA2", 192, 's') => SlhDsaSha2_192s,
        ("SHA2", 192, 'f') => SlhDsaSha2_192f,
        ("SHA2", 256, 's') => SlhDsaSha2_256s,
        ("SHA2", 256, 'f') => SlhDsaSha2_256f,
        _ => return Err(unnamed()),
    };
    let printed = super::super::asymmetric_label(name, strength, operation);
    let variant = |what: &str| Some(format!("{VARIANT} {what} (wolfCrypt's {printed})"));
    let (op, note) = match operation {
        "gen" => (Keygen, None),
        "sign" => (Sign, None),
        "verify" => (Verify, None),
        "sign-msg" => (Sign, variant("FIPS 205's internal slh_sign_internal, deterministic")),
        "vrfy-msg" => (Verify, variant("FIPS 205's internal slh_verify_internal")),
        "sign-pre" => (Sign, variant("HashSLH-DSA, deterministic, of a pre-hashed message")),
        "vrfy-pre" => (Verify, variant("HashSLH-DSA, of a pre-hashed message")),
        _ => return Err(unnamed()),
    };
    Ok((algorithm, op, note))
}

/// `bench_frodokem`: `"%sFRODOKEM %s %s"`, `E` for eFrodoKEM, the matrix
/// dimension, AES or SHAKE (`FRODOKEM 640  SHAKE`, `EFRODOKEM 1344 AES`),
/// with the security strength its dimension stands for (128, 192, 256).
pub(super) fn frodo_kem_name(
    name: &str,
    strength: Option<u64>,
    operation: &str,
    unnamed: impl Fn() -> LineError,
) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    let words: Vec<&str> = name.split_whitespace().collect();
    let algorithm = match words.as_slice() {
        ["FRODOKEM", "640", "AES"] => FrodoKem640Aes,
        ["FRODOKEM", "640", "SHAKE"] => FrodoKem640Shake,
        ["FRODOKEM", "976", "AES"] => FrodoKem976Aes,
        ["FRODOKEM", "976", "SHAKE"] => FrodoKem976Shake,
        ["FRODOKEM", "1344", "AES"] => FrodoKem1344Aes,
        ["FRODOKEM", "1344", "SHAKE"] => FrodoKem1344Shake,
        ["EFRODOKEM", "640", "AES"] => EFrodoKem640Aes,
        ["EFRODOKEM", "640", "SHAKE"] => EFrodoKem640Shake,
        ["EFRODOKEM", "976", "AES"] => EFrodoKem976Aes,
        ["EFRODOKEM", "976", "SHAKE"] => EFrodoKem976Shake,
        ["EFRODOKEM", "1344", "AES"] => EFrodoKem1344Aes,
        ["EFRODOKEM", "1344", "SHAKE"] => EFrodoKem1344Shake,
        _ => return Err(unnamed()),
    };
    let expected = match words[1] {
        "640" => 128,
        "976" => 192,
        _ => 256,
    };
    if strength != Some(expected) {
        return Err(LineError::SizeNotTheSet {
            label: super::super::asymmetric_label(name, strength, operation),
            what: "security strength",
            expected,
            algorithm,
        });
    }
    let op = match operation {
        "key gen" => Keygen,
        "encap" => Encaps,
        "decap" => Decaps,
        _ => return Err(unnamed()),
    };
    Ok((algorithm, op, None))
}

/// `bench_falconKeySign` (`"FALCON"`, the NIST level 1 or 5 as strength)
/// and the liboqs SPHINCS+ of wolfSSL 5.6–5.7 (`"SPHINCS-FAST"`,
/// `"SPHINCS-SMALL"`, levels 1, 3, 5): signing and verifying only, with
/// keys benchmark.c decodes. Both are round 3, never FN-DSA or SLH-DSA.
pub(super) fn round_3_signature_name(
    name: &str,
    level: u64,
    operation: &str,
    unnamed: impl Fn() -> LineError,
) -> Result<Named, LineError> {
    use Algorithm::*;
    let (algorithm, what) = match (name, level) {
        ("FALCON", 1) => (Falcon512, "Falcon round 3 (pre-FN-DSA)"),
        ("FALCON", 5) => (Falcon1024, "Falcon round 3 (pre-FN-DSA)"),
        ("SPHINCS-FAST", 1) => (SphincsPlus128f, "SPHINCS+ round 3 (pre-FIPS 205)"),
        ("SPHINCS-FAST", 3) => (SphincsPlus192f, "SPHINCS+ round 3 (pre-FIPS 205)"),
        ("SPHINCS-FAST", 5) => (SphincsPlus256f, "SPHINCS+ round 3 (pre-FIPS 205)"),
        ("SPHINCS-SMALL", 1) => (SphincsPlus128s, "SPHINCS+ round 3 (pre-FIPS 205)"),
        ("SPHINCS-SMALL", 3) => (SphincsPlus192s, "SPHINCS+ round 3 (pre-FIPS 205)"),
        ("SPHINCS-SMALL", 5) => (SphincsPlus256s, "SPHINCS+ round 3 (pre-FIPS 205)"),
        _ => return Err(unnamed()),
    };
    let op = match operation {
        "sign" => Operation::Sign,
        "verify" => Operation::Verify,
        _ => return Err(unnamed()),
    };
    Ok((algorithm, op, Some(format!("{what} level {level}, printed {name}"))))
}
