//! wolfCrypt's names for what it measured, and pqbench's for the same:
//! the [`Algorithm`] and [`Operation`] that a symmetric line's description,
//! or an asymmetric line's name, strength and operation, stands for.

use pqbench_types::{Algorithm, Operation};

use super::VARIANT;
use super::error::LineError;

mod post_quantum;
use post_quantum::{
    frodo_kem_name, hss_name, post_quantum_name, round_3_signature_name, slh_dsa_name, xmss_name,
};

/// `ECC [      SECP256R1]` with its padding → `ECC [SECP256R1]`.
pub(super) fn ecc_name(name: &str) -> String {
    match (name.find('['), name.rfind(']')) {
        (Some(open), Some(close)) if open < close => {
            format!("{} [{}]", name[..open].trim_end(), name[open + 1..close].trim())
        }
        _ => name.to_string(),
    }
}

type Named = (Algorithm, Operation, Option<String>);

/// pqbench's names for a symmetric line's description.
pub(super) fn symmetric_name(description: &str) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    // `bench_aes_aad_options_wrap` (`-no_aad`, `-aad_size`, `-all_aad`)
    // appends the AAD it used to the label: `AES-128-GCM-enc-no_AAD`.
    if let Some((base, aad)) = description.rsplit_once('-')
        && aad.contains("AAD")
        && let Ok((algorithm, operation, _)) = symmetric_name(base)
    {
        let what = if aad == "no_AAD" { "without AAD".to_string() } else { format!("AAD {aad}") };
        return Ok((algorithm, operation, Some(format!("{VARIANT} {what} (wolfCrypt's {description})"))));
    }
    if let Some(table) = description.strip_prefix("GMAC") {
        // `bench_gmac` prints one line per GHASH table it is built with;
        // the first is the row, any further one a variant of it.
        let note = (!table.trim().is_empty()).then(|| format!("wolfCrypt's {description} (its GHASH table)"));
        return Ok((Gmac, Mac, note));
    }
    let named = |a, o| Ok((a, o, None));
    match description {
        "RNG" => named(Rng, Generate),
        "AES-128-CBC-enc" => named(Aes128Cbc, Encrypt),
        "AES-128-CBC-dec" => named(Aes128Cbc, Decrypt),
        "AES-192-CBC-enc" => named(Aes192Cbc, Encrypt),
        "AES-192-CBC-dec" => named(Aes192Cbc, Decrypt),
        "AES-256-CBC-enc" => named(Aes256Cbc, Encrypt),
        "AES-256-CBC-dec" => named(Aes256Cbc, Decrypt),
        "AES-128-GCM-enc" => named(Aes128Gcm, Encrypt),
        "AES-128-GCM-dec" => named(Aes128Gcm, Decrypt),
        "AES-192-GCM-enc" => named(Aes192Gcm, Encrypt),
        "AES-192-GCM-dec" => named(Aes192Gcm, Decrypt),
        "AES-256-GCM-enc" => named(Aes256Gcm, Encrypt),
        "AES-256-GCM-dec" => named(Aes256Gcm, Decrypt),
        // CTR is its own inverse; wolfCrypt times one direction.
        "AES-128-CTR" | "AES-128-CTR-enc" => named(Aes128Ctr, Encrypt),
        "AES-192-CTR" | "AES-192-CTR-enc" => named(Aes192Ctr, Encrypt),
        "AES-256-CTR" | "AES-256-CTR-enc" => named(Aes256Ctr, Encrypt),
        "CHACHA" => named(ChaCha20, Encrypt),
        "CHA-POLY" => Ok((
            ChaCha20Poly1305,
            Encrypt,
            Some("wolfCrypt's CHA-POLY times the AEAD's encryption only".into()),
        )),
        "POLY1305" => named(Poly1305, Mac),
        // benchmark.c's `bench_sha` and `bench_hmac_sha` name SHA-1 "SHA".
        "SHA" | "SHA-1" => named(Sha1, Hash),
        "SHA-224" => named(Sha224, Hash),
        "SHA-256" => named(Sha256, Hash),
        "SHA-384" => named(Sha384, Hash),
        "SHA-512" => named(Sha512, Hash),
        "SHA-512/224" => named(Sha512_224, Hash),
        "SHA-512/256" => named(Sha512_256, Hash),
        "SHA3-224" => named(Sha3_224, Hash),
        "SHA3-256" => named(Sha3_256, Hash),
        "SHA3-384" => named(Sha3_384, Hash),
        "SHA3-512" => named(Sha3_512, Hash),
        "SHAKE128" => named(Shake128, Hash),
        "SHAKE256" => named(Shake256, Hash),
        "HMAC-SHA" | "HMAC-SHA1" => named(HmacSha1, Mac),
        "HMAC-SHA224" => named(HmacSha224, Mac),
        "HMAC-SHA256" => named(HmacSha256, Mac),
        "HMAC-SHA384" => named(HmacSha384, Mac),
        "HMAC-SHA512" => named(HmacSha512, Mac),
        "AES-CMAC" => named(AesCmac, Mac),
        // `bench_pbkdf2`: 1000 iterations of HMAC-SHA256 deriving 32 bytes,
        // printed as a throughput of derived bytes.
        "PBKDF2" => Ok((
            Pbkdf2,
            Derive,
            Some("wolfCrypt's PBKDF2: 1000 iterations of HMAC-SHA256 per 32 derived bytes".into()),
        )),
        // wolfSSL master 0004fcc's benchmark.c prints these with the names
        // below (bench_md5, bench_ripemd, bench_blake2b/2s, bench_sm3,
        // bench_hmac_md5, bench_hmac_sha3_*, bench_siphash).
        "MD5" => named(Md5, Hash),
        "HMAC-MD5" => named(HmacMd5, Mac),
        "RIPEMD" => named(Ripemd160, Hash),
        "BLAKE2b" => Ok((Blake2b512, Hash, Some("wolfCrypt's BLAKE2b with a 64-byte digest".into()))),
        "BLAKE2s" => Ok((Blake2s256, Hash, Some("wolfCrypt's BLAKE2s with a 32-byte digest".into()))),
        "SM3" => named(Sm3, Hash),
        "HMAC-SHA3-256" => named(HmacSha3_256, Mac),
        "HMAC-SHA3-384" => named(HmacSha3_384, Mac),
        "HMAC-SHA3-512" => named(HmacSha3_512, Mac),
        // `bench_siphash`: wc_SipHash (SipHash-2-4) with an 8- or 16-byte tag.
        "SipHash-8" => Ok((SipHash64, Mac, Some("wolfCrypt's SipHash-8: an 8-byte tag".into()))),
        "SipHash-16" => Ok((SipHash128, Mac, Some("wolfCrypt's SipHash-16: a 16-byte tag".into()))),
        // `bench_des`, `bench_arc4`, `bench_camellia` time encryption only;
        // 3DES and Camellia in CBC, Camellia with a 128-bit key.
        "3DES" => Ok((TripleDes, Encrypt, Some("wolfCrypt's 3DES: CBC encryption".into()))),
        "ARC4" => named(Arc4, Encrypt),
        "Camellia" => Ok((
            Camellia128Cbc,
            Encrypt,
            Some("wolfCrypt's Camellia: CBC encryption with a 128-bit key".into()),
        )),
        "SM4-CBC-enc" => named(Sm4Cbc, Encrypt),
        "SM4-CBC-dec" => named(Sm4Cbc, Decrypt),
        "SM4-GCM-enc" => named(Sm4Gcm, Encrypt),
        "SM4-GCM-dec" => named(Sm4Gcm, Decrypt),
        "SM4-CCM-enc" => named(Sm4Ccm, Encrypt),
        "SM4-CCM-dec" => named(Sm4Ccm, Decrypt),
        "AES-128-ECB-enc" => named(Aes128Ecb, Encrypt),
        "AES-128-ECB-dec" => named(Aes128Ecb, Decrypt),
        "AES-192-ECB-enc" => named(Aes192Ecb, Encrypt),
        "AES-192-ECB-dec" => named(Aes192Ecb, Decrypt),
        "AES-256-ECB-enc" => named(Aes256Ecb, Encrypt),
        "AES-256-ECB-dec" => named(Aes256Ecb, Decrypt),
        "AES-128-CFB-enc" => named(Aes128Cfb, Encrypt),
        "AES-128-CFB-dec" => named(Aes128Cfb, Decrypt),
        "AES-192-CFB-enc" => named(Aes192Cfb, Encrypt),
        "AES-192-CFB-dec" => named(Aes192Cfb, Decrypt),
        "AES-256-CFB-enc" => named(Aes256Cfb, Encrypt),
        "AES-256-CFB-dec" => named(Aes256Cfb, Decrypt),
        "AES-128-OFB-enc" => named(Aes128Ofb, Encrypt),
        "AES-128-OFB-dec" => named(Aes128Ofb, Decrypt),
        "AES-192-OFB-enc" => named(Aes192Ofb, Encrypt),
        "AES-192-OFB-dec" => named(Aes192Ofb, Decrypt),
        "AES-256-OFB-enc" => named(Aes256Ofb, Encrypt),
        "AES-256-OFB-dec" => named(Aes256Ofb, Decrypt),
        // `bench_aesxts` prints no key size but runs with 128-bit keys only
        // (a 32-byte XTS key, two AES-128 keys; "AES-XTS benchmark is with
        // 128-bit keys only" otherwise); its stream lines are variants.
        "AES-XTS-enc" | "AES-XTS-dec" => Ok((
            Aes128Xts,
            if description.ends_with("enc") { Encrypt } else { Decrypt },
            Some(format!("wolfCrypt's {description}: a 32-byte key, two AES-128 keys")),
        )),
        "AES-XTS-stream-enc" | "AES-XTS-stream-dec" => Ok((
            Aes128Xts,
            if description.ends_with("enc") { Encrypt } else { Decrypt },
            Some(format!("{VARIANT} streaming, Init/Update/Final (wolfCrypt's {description})")),
        )),
        // `bench_aesccm` prints no key size but keys with 16 bytes.
        "AES-CCM-enc" | "AES-CCM-dec" => Ok((
            Aes128Ccm,
            if description.ends_with("enc") { Encrypt } else { Decrypt },
            Some(format!("wolfCrypt's {description}: a 16-byte key (wc_AesCcmSetKey)")),
        )),
        "AES-128-GCM-SIV-enc" => named(Aes128GcmSiv, Encrypt),
        "AES-128-GCM-SIV-dec" => named(Aes128GcmSiv, Decrypt),
        "AES-256-GCM-SIV-enc" => named(Aes256GcmSiv, Encrypt),
        "AES-256-GCM-SIV-dec" => named(Aes256GcmSiv, Decrypt),
        // `bench_aessiv` names AES-SIV by its whole key (32, 48, 64 bytes),
        // as RFC 5297's AES-SIV-CMAC-256/384/512 do.
        "AES-256-SIV-enc" => named(AesSivCmac256, Encrypt),
        "AES-256-SIV-dec" => named(AesSivCmac256, Decrypt),
        "AES-384-SIV-enc" => named(AesSivCmac384, Encrypt),
        "AES-384-SIV-dec" => named(AesSivCmac384, Decrypt),
        "AES-512-SIV-enc" => named(AesSivCmac512, Encrypt),
        "AES-512-SIV-dec" => named(AesSivCmac512, Decrypt),
        "AES-CBC" | "AES-CBC-enc" | "AES-CBC-dec" => {
            Err(LineError::AesWithoutKeySize { description: description.to_string() })
        }
        "AES-128-CMAC" | "AES-256-CMAC" => Ok((AesCmac, Mac, Some(format!("wolfCrypt's {description}")))),
        other => Err(LineError::Unnamed { label: other.to_string() }),
    }
}

/// pqbench's names for an asymmetric line's name, strength and operation.
pub(super) fn asymmetric_name(
    name: &str,
    strength: Option<u64>,
    operation: &str,
) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    let unnamed = || LineError::Unnamed { label: super::asymmetric_label(name, strength, operation) };
    if strength.is_none() && name.to_ascii_lowercase().contains("_level") {
        return post_quantum_name(name, operation);
    }
    if name.starts_with("XMSS") {
        return xmss_name(name, operation, unnamed);
    }
    if name.starts_with("LMS/HSS") {
        return hss_name(name, strength, operation, unnamed);
    }
    if name.starts_with("SLH-DSA") {
        return slh_dsa_name(name, strength, operation, unnamed);
    }
    if name.starts_with("FRODOKEM") || name.starts_with("EFRODOKEM") {
        return frodo_kem_name(name, strength, operation, unnamed);
    }
    if let ("FALCON" | "SPHINCS-FAST" | "SPHINCS-SMALL", Some(level)) = (name, strength) {
        return round_3_signature_name(name, level, operation, unnamed);
    }
    if name == "scrypt" && operation.is_empty() {
        // `bench_scrypt`: one wc_scrypt of 64 bytes at N = 2^14, r = 8,
        // p = 1; the number printed is a placeholder, not a strength.
        return Ok((
            Scrypt,
            Derive,
            Some("wolfCrypt's scrypt: 64 derived bytes at N = 2^14, r = 8, p = 1".into()),
        ));
    }
    let op = match operation {
        "key gen" => Keygen,
        "agree" => Agree,
        "sign" => Sign,
        "verify" => Verify,
        "public" => Public,
        "private" => Private,
        "encap" => Encaps,
        "decap" => Decaps,
        _ => return Err(unnamed()),
    };
    let pick = |allowed: &[Operation], algorithm: Algorithm, note: Option<String>| {
        if allowed.contains(&op) { Ok((algorithm, op, note)) } else { Err(unnamed()) }
    };
    let kem = [Keygen, Encaps, Decaps];
    let signature = [Keygen, Sign, Verify];
    let (family, curve) = match name.split_once(" [") {
        Some((family, curve)) => (family, Some(curve.trim_end_matches(']'))),
        None => (name, None),
    };
    let Some(strength) = strength else {
        // Only a curve in brackets names its key without a strength.
        return match (family, curve) {
            ("ECC" | "ECDHE" | "ECDH" | "ECDSA", Some(_)) => ecc(family, curve, None, op, unnamed),
            _ => Err(LineError::NoStrength),
        };
    };
    match (family, strength) {
        ("RSA", 1024) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa1024, None),
        ("RSA", 2048) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa2048, None),
        ("RSA", 3072) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa3072, None),
        ("RSA", 4096) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa4096, None),
        ("DH", 2048) => pick(&[Keygen, Agree], Dh2048, None),
        ("DH", 3072) => pick(&[Keygen, Agree], Dh3072, None),
        ("ECC" | "ECDHE" | "ECDH" | "ECDSA", _) => ecc(family, curve, Some(strength), op, unnamed),
        ("CURVE", 25519) => pick(&[Keygen, Agree], X25519, None),
        ("CURVE", 448) => pick(&[Keygen, Agree], X448, None),
        ("ED", 25519) => pick(&signature, Ed25519, None),
        ("ED", 448) => pick(&signature, Ed448, None),
        // Newer releases print the parameter set as the strength
        // (`ML-KEM 768 key gen`), earlier ones the name with the set and
        // the security strength (`ML-KEM 768 192 key gen`).
        ("ML-KEM", 512) => pick(&kem, MlKem512, None),
        ("ML-KEM", 768) => pick(&kem, MlKem768, None),
        ("ML-KEM", 1024) => pick(&kem, MlKem1024, None),
        ("ML-KEM 512", _) => pick(&kem, MlKem512, None),
        ("ML-KEM 768", _) => pick(&kem, MlKem768, None),
        ("ML-KEM 1024", _) => pick(&kem, MlKem1024, None),
        // wolfSSL's own Kyber before FIPS 203 (5.6–5.7): round 3 Kyber,
        // whose keys and ciphertexts differ from ML-KEM's.
        ("KYBER512", _) => {
            pick(&kem, Kyber512, Some(format!("Kyber round 3 (pre-FIPS 203), printed {family}")))
        }
        ("KYBER768", _) => {
            pick(&kem, Kyber768, Some(format!("Kyber round 3 (pre-FIPS 203), printed {family}")))
        }
        ("KYBER1024", _) => {
            pick(&kem, Kyber1024, Some(format!("Kyber round 3 (pre-FIPS 203), printed {family}")))
        }
        ("ML-DSA", 44) => pick(&signature, MlDsa44, None),
        ("ML-DSA", 65) => pick(&signature, MlDsa65, None),
        ("ML-DSA", 87) => pick(&signature, MlDsa87, None),
        // wolfSSL 5.7's `ML-DSA` with a level is its FIPS 204 code named by
        // the level it replaces.
        ("ML-DSA", 2 | 3 | 5) => {
            let algorithm = match strength {
                2 => MlDsa44,
                3 => MlDsa65,
                _ => MlDsa87,
            };
            pick(
                &signature,
                algorithm,
                Some(format!("ML-DSA level {strength}, as printed; stored under {algorithm}")),
            )
        }
        ("DILITHIUM", 2 | 3 | 5) => {
            let algorithm = match strength {
                2 => Dilithium2,
                3 => Dilithium3,
                _ => Dilithium5,
            };
            pick(
                &signature,
                algorithm,
                Some(format!("Dilithium round 3 (pre-FIPS 204) level {strength}, as printed")),
            )
        }
        _ => Err(unnamed()),
    }
}

/// ECC lines: `ECC` (key generation), `ECDHE`/`ECDH` (agreement), `ECDSA`,
/// named by the curve in brackets where printed, else by the strength
/// (the key's bytes × 8: P-521 is 528).
fn ecc(
    family: &str,
    curve: Option<&str>,
    strength: Option<u64>,
    op: Operation,
    unnamed: impl Fn() -> LineError,
) -> Result<Named, LineError> {
    use Algorithm::*;
    use Operation::*;
    let what = unnamed;
    let (ecdh, ecdsa, nist) = match (curve, strength) {
        (Some("SECP256R1"), None | Some(256)) | (None, Some(256)) => (EcdhP256, EcdsaP256, "P-256"),
        (Some("SECP384R1"), None | Some(384)) | (None, Some(384)) => (EcdhP384, EcdsaP384, "P-384"),
        (Some("SECP521R1"), None | Some(521 | 528)) | (None, Some(521 | 528)) => {
            (EcdhP521, EcdsaP521, "P-521")
        }
        (Some("SECP192R1"), None | Some(192)) | (None, Some(192)) => (EcdhP192, EcdsaP192, "P-192"),
        (Some("SECP224R1"), None | Some(224)) | (None, Some(224)) => (EcdhP224, EcdsaP224, "P-224"),
        // Brainpool is only ever named by its curve, never by the strength.
        (Some("BRAINPOOLP256R1"), None | Some(256)) => (EcdhBrainpoolP256r1, EcdsaBrainpoolP256r1, ""),
        (Some("BRAINPOOLP384R1"), None | Some(384)) => (EcdhBrainpoolP384r1, EcdsaBrainpoolP384r1, ""),
        (Some("BRAINPOOLP512R1"), None | Some(512)) => (EcdhBrainpoolP512r1, EcdsaBrainpoolP512r1, ""),
        _ => return Err(what()),
    };
    let note = match (curve, strength) {
        (None, Some(strength)) => {
            Some(format!("curve not printed; NIST {nist}, wolfCrypt's default for {strength}-bit keys"))
        }
        _ => None,
    };
    let (algorithm, allowed): (Algorithm, &[Operation]) = match family {
        // pqbench measures a curve's key generation under ECDH.
        "ECC" => (ecdh, &[Keygen]),
        "ECDHE" | "ECDH" => (ecdh, &[Agree]),
        _ => (ecdsa, &[Sign, Verify]),
    };
    if allowed.contains(&op) { Ok((algorithm, op, note)) } else { Err(what()) }
}
