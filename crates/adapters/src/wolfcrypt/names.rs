//! wolfCrypt's names for what it measured, and pqbench's for the same:
//! the [`Algorithm`] and [`Operation`] that a symmetric line's description,
//! or an asymmetric line's name, strength and operation, stands for.

use pqbench_types::{Algorithm, Operation};

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
pub(super) fn symmetric_name(description: &str) -> Result<Named, String> {
    use Algorithm::*;
    use Operation::*;
    if let Some(base) = description.strip_suffix("-no_AAD")
        && let Ok((algorithm, operation, _)) = symmetric_name(base)
    {
        return Err(format!(
            "a variant without AAD of {algorithm} {operation}; pqbench's AES-GCM figures are with AAD"
        ));
    }
    if let Some(variant) = description.strip_prefix("GMAC") {
        let note =
            (!variant.trim().is_empty()).then(|| format!("wolfCrypt's {description} (its GHASH variant)"));
        return Ok((Gmac, Mac, note));
    }
    let named = |a, o| Ok((a, o, None));
    match description {
        "RNG" => named(Rng, Generate),
        "AES-128-CBC-enc" => named(Aes128Cbc, Encrypt),
        "AES-128-CBC-dec" => named(Aes128Cbc, Decrypt),
        "AES-256-CBC-enc" => named(Aes256Cbc, Encrypt),
        "AES-256-CBC-dec" => named(Aes256Cbc, Decrypt),
        "AES-128-GCM-enc" => named(Aes128Gcm, Encrypt),
        "AES-128-GCM-dec" => named(Aes128Gcm, Decrypt),
        "AES-256-GCM-enc" => named(Aes256Gcm, Encrypt),
        "AES-256-GCM-dec" => named(Aes256Gcm, Decrypt),
        // CTR is its own inverse; wolfCrypt times one direction.
        "AES-128-CTR" | "AES-128-CTR-enc" => named(Aes128Ctr, Encrypt),
        "AES-256-CTR" | "AES-256-CTR-enc" => named(Aes256Ctr, Encrypt),
        "CHACHA" => named(ChaCha20, Encrypt),
        "CHA-POLY" => Ok((
            ChaCha20Poly1305,
            Encrypt,
            Some("wolfCrypt's CHA-POLY times the AEAD's encryption only".into()),
        )),
        "POLY1305" => named(Poly1305, Mac),
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
        "HMAC-SHA224" => named(HmacSha224, Mac),
        "HMAC-SHA256" => named(HmacSha256, Mac),
        "HMAC-SHA384" => named(HmacSha384, Mac),
        "HMAC-SHA512" => named(HmacSha512, Mac),
        "AES-CMAC" => named(AesCmac, Mac),
        "AES-128-CMAC" | "AES-256-CMAC" => Ok((AesCmac, Mac, Some(format!("wolfCrypt's {description}")))),
        other => Err(format!("no pqbench name for wolfCrypt's {other}")),
    }
}

/// pqbench's names for an asymmetric line's name, strength and operation.
pub(super) fn asymmetric_name(name: &str, strength: u64, operation: &str) -> Result<Named, String> {
    use Algorithm::*;
    use Operation::*;
    let what = format!("{name} {strength} {operation}");
    let unnamed = || format!("no pqbench name for wolfCrypt's {what}");
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
    match (family, strength) {
        ("RSA", 2048) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa2048, None),
        ("RSA", 3072) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa3072, None),
        ("RSA", 4096) => pick(&[Public, Private, Keygen, Sign, Verify], Rsa4096, None),
        ("DH", 2048) => pick(&[Keygen, Agree], Dh2048, None),
        ("DH", 3072) => pick(&[Keygen, Agree], Dh3072, None),
        ("ECC" | "ECDHE" | "ECDSA", _) => {
            // wolfCrypt prints the key's bytes × 8: P-521 is 528.
            let (ecdh, ecdsa, nist) = match (curve, strength) {
                (Some("SECP256R1") | None, 256) => (EcdhP256, EcdsaP256, "P-256"),
                (Some("SECP384R1") | None, 384) => (EcdhP384, EcdsaP384, "P-384"),
                (Some("SECP521R1") | None, 521 | 528) => (EcdhP521, EcdsaP521, "P-521"),
                _ => return Err(unnamed()),
            };
            let note = curve.is_none().then(|| {
                format!("curve not printed; NIST {nist}, wolfCrypt's default for {strength}-bit keys")
            });
            match family {
                // pqbench measures a curve's key generation under ECDH.
                "ECC" => pick(&[Keygen], ecdh, note),
                "ECDHE" => pick(&[Agree], ecdh, note),
                _ => pick(&[Sign, Verify], ecdsa, note),
            }
        }
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
        ("KYBER512" | "KYBER768" | "KYBER1024", _) => {
            let algorithm = match family {
                "KYBER512" => MlKem512,
                "KYBER768" => MlKem768,
                _ => MlKem1024,
            };
            pick(
                &kem,
                algorithm,
                Some(format!("Kyber (pre-FIPS 203) {family}, as printed; stored under {algorithm}")),
            )
        }
        ("ML-DSA", 44) => pick(&signature, MlDsa44, None),
        ("ML-DSA", 65) => pick(&signature, MlDsa65, None),
        ("ML-DSA", 87) => pick(&signature, MlDsa87, None),
        ("ML-DSA" | "DILITHIUM", 2 | 3 | 5) => {
            let algorithm = match strength {
                2 => MlDsa44,
                3 => MlDsa65,
                _ => MlDsa87,
            };
            let was = if family == "DILITHIUM" { "Dilithium (pre-FIPS 204)" } else { "ML-DSA" };
            pick(
                &signature,
                algorithm,
                Some(format!("{was} level {strength}, as printed; stored under {algorithm}")),
            )
        }
        _ => Err(unnamed()),
    }
}
