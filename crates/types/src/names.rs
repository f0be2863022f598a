use core::fmt;

/// A name that is not one of the contract's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownName;

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown name")
    }
}

/// Declares a closed set of names with their one spelling, used both ways:
/// `as_str` for writing, `from_name` for reading (boards, imports, API).
macro_rules! names {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn from_name(text: &str) -> Result<Self, UnknownName> {
                match text { $($text => Ok($name::$variant),)+ _ => Err(UnknownName) }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl core::str::FromStr for $name {
            type Err = UnknownName;
            fn from_str(text: &str) -> Result<Self, UnknownName> {
                Self::from_name(text)
            }
        }

        #[cfg(feature = "alloc")]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        #[cfg(feature = "alloc")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <alloc::borrow::Cow<'de, str>>::deserialize(d)?;
                Self::from_name(&text).map_err(|_| {
                    serde::de::Error::custom(alloc::format!(
                        "unknown {} {:?}",
                        stringify!($name).to_ascii_lowercase(),
                        text
                    ))
                })
            }
        }
    };
}

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
        // selects by the first 64 places (`pqbench_wire::RunCommand`), which
        // hold every suite algorithm; names past them are for imports only.
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
        // Names for imports only, never run on a board: the host refuses
        // them as not the suite's, and from place 64 on a run command has
        // no bit for one and is refused. SPHINCS+
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
    }
}

names! {
    /// What was done with an algorithm.
    Operation {
        Keygen => "keygen",
        Encaps => "encaps",
        Decaps => "decaps",
        Sign => "sign",
        Verify => "verify",
        Agree => "agree",
        Public => "public",
        Private => "private",
        Encrypt => "encrypt",
        Decrypt => "decrypt",
        Hash => "hash",
        Mac => "mac",
        Generate => "generate",
        // A key derivation (PBKDF2).
        Derive => "derive",
        // One encapsulation and one decapsulation timed together, as
        // wolfSSL's pqm4 Kyber benchmark (`kyber_level1-ed`) times them.
        EncapsDecaps => "encaps_decaps",
    }
}

names! {
    /// How one measurement ended. Anything but `Ok` carries no timing.
    Status {
        Ok => "ok",
        Failed => "failed",
        DoesNotFit => "does_not_fit",
        Skipped => "skipped",
    }
}

names! {
    /// Why a `failed` result failed: which of its algorithm's self-tests,
    /// run before any timing, did not pass. `known_answer`: an output
    /// differs from the known answer of an independent implementation or
    /// of the standard's examples, so the code computes something else,
    /// even where it agrees with itself. `round_trip`: a round trip did not
    /// agree (a shared secret, a signature that does not verify), or a
    /// tampered input was accepted.
    Failure {
        KnownAnswer => "known_answer",
        RoundTrip => "round_trip",
    }
}

names! {
    /// The form of the key a timed call was given (for `keygen`, the form
    /// it gave its keys back in): what a call's time holds besides the
    /// arithmetic, and so what two implementations' figures may be compared
    /// as. OpenSSL's ML-KEM and ML-DSA key formats ask the same question.
    /// `seed`: the private key as the seed it is generated from (FIPS 203's
    /// d || z, FIPS 204's xi, RFC 8032's 32 bytes); each call expands it.
    /// `encoded`: the standard's bytes (FIPS 203's ek and dk, FIPS 204's pk
    /// and sk, a curve's point or scalar bytes); each call decodes them, and
    /// an ML-KEM or ML-DSA call expands the matrix A from its seed.
    /// `decoded`: the library's own in-memory form, decoded and any tables
    /// (A, NTT forms, a key schedule) computed before the clock starts.
    /// `opaque`: a platform's handle (WebCrypto's `CryptoKey`) whose form the
    /// platform does not say.
    KeyFormat {
        Seed => "seed",
        Encoded => "encoded",
        Decoded => "decoded",
        Opaque => "opaque",
    }
}

names! {
    /// The groups the dashboard filters by.
    Family {
        PostQuantum => "pqc",
        Classical => "classical",
        Symmetric => "symmetric",
        Hash => "hash",
    }
}

impl Algorithm {
    pub const fn family(self) -> Family {
        use Algorithm::*;
        match self {
            MlKem512 | MlKem768 | MlKem1024 | MlDsa44 | MlDsa65 | MlDsa87 | Kyber512 | Kyber768
            | Kyber1024 | Dilithium2 | Dilithium3 | Dilithium5 | Falcon512 | Falcon1024 | SphincsPlus128f
            | SphincsPlus128s | SphincsPlus192f | SphincsPlus192s | SphincsPlus256f | SphincsPlus256s
            | XmssSha2_10_256 | XmssSha2_10_192 | XmssMtSha2_20_2_256 | XmssMtSha2_20_4_256
            | XmssMtSha2_40_4_256 | XmssMtSha2_40_8_256 | XmssMtSha2_60_6_256 | XmssMtSha2_60_12_256 => {
                Family::PostQuantum
            }
            Rsa2048 | Rsa3072 | Rsa4096 | Dh2048 | Dh3072 | EcdsaP256 | EcdhP256 | EcdsaP384 | EcdhP384
            | EcdsaP521 | EcdhP521 | X25519 | Ed25519 | X448 | Ed448 | Rsa1024 | EcdsaP192 | EcdhP192
            | EcdsaP224 | EcdhP224 | EcdsaBrainpoolP256r1 | EcdhBrainpoolP256r1 | EcdsaBrainpoolP384r1
            | EcdhBrainpoolP384r1 | EcdsaBrainpoolP512r1 | EcdhBrainpoolP512r1 => Family::Classical,
            Aes128Gcm | Aes192Gcm | Aes256Gcm | Aes128Cbc | Aes192Cbc | Aes256Cbc | Aes128Ctr | Aes192Ctr
            | Aes256Ctr | ChaCha20Poly1305 | ChaCha20 | Rng | TripleDes | Arc4 | Camellia128Cbc | Sm4Cbc
            | Sm4Gcm | Sm4Ccm | Aes128Ecb | Aes192Ecb | Aes256Ecb | Aes128Cfb | Aes192Cfb | Aes256Cfb
            | Aes128Ofb | Aes192Ofb | Aes256Ofb | Aes128Xts | Aes128Ccm | Aes128GcmSiv | Aes256GcmSiv
            | AesSivCmac256 | AesSivCmac384 | AesSivCmac512 => Family::Symmetric,
            // Hashes, the MACs built on them or beside them, and the key
            // derivation built on an HMAC.
            Sha1 | HmacSha1 | Pbkdf2 | Sha224 | Sha256 | Sha384 | Sha512 | Sha512_224 | Sha512_256
            | Sha3_224 | Sha3_256 | Sha3_384 | Sha3_512 | Shake128 | Shake256 | HmacSha224 | HmacSha256
            | HmacSha384 | HmacSha512 | Poly1305 | Gmac | AesCmac | Md5 | HmacMd5 | Ripemd160
            | Blake2b512 | Blake2s256 | Sm3 | HmacSha3_256 | HmacSha3_384 | HmacSha3_512 | SipHash64
            | SipHash128 | Scrypt => Family::Hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_itself() {
        for &a in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(a.as_str()), Ok(a));
        }
        for &o in Operation::ALL {
            assert_eq!(Operation::from_name(o.as_str()), Ok(o));
        }
        for &s in Status::ALL {
            assert_eq!(Status::from_name(s.as_str()), Ok(s));
        }
        for &k in KeyFormat::ALL {
            assert_eq!(KeyFormat::from_name(k.as_str()), Ok(k));
        }
    }

    #[test]
    fn names_are_exact() {
        assert_eq!(Algorithm::from_name("ml-kem-768"), Err(UnknownName));
        assert_eq!(Algorithm::from_name("ML-KEM-768 "), Err(UnknownName));
        assert_eq!(Operation::from_name("KeyGen"), Err(UnknownName));
    }

    #[test]
    fn pre_fips_names_are_their_own() {
        // Kyber and Dilithium (round 3) are not ML-KEM and ML-DSA; the
        // unhyphenated spellings stay unknown (other tests use them so).
        assert_eq!(Algorithm::from_name("Kyber-512"), Ok(Algorithm::Kyber512));
        assert_eq!(Algorithm::from_name("Dilithium-3"), Ok(Algorithm::Dilithium3));
        assert_eq!(Algorithm::from_name("Kyber768"), Err(UnknownName));
        assert_eq!(Algorithm::from_name("Dilithium3"), Err(UnknownName));
        assert_eq!(Algorithm::Kyber512.family(), Family::PostQuantum);
        assert_eq!(Operation::from_name("encaps_decaps"), Ok(Operation::EncapsDecaps));
    }

    #[test]
    fn the_first_names_keep_their_places() {
        // A run command's algorithm bits are places in `ALL`; appending
        // keeps the contract's first names where they were.
        assert_eq!(Algorithm::ALL[0], Algorithm::MlKem512);
        assert_eq!(Algorithm::ALL[22], Algorithm::HmacSha256);
        assert_eq!(Algorithm::ALL[48], Algorithm::Ed448);
        assert_eq!(Algorithm::ALL[49], Algorithm::Aes192Cbc);
        assert_eq!(Algorithm::ALL[62], Algorithm::Falcon1024);
        // The last place with a run command bit, and the first without.
        assert_eq!(Algorithm::ALL[63], Algorithm::SphincsPlus128f);
        assert_eq!(Algorithm::ALL[64], Algorithm::SphincsPlus128s);
    }

    #[test]
    fn names_for_imports_only_read_back_and_are_post_quantum() {
        assert_eq!(Algorithm::from_name("SPHINCS+-128f"), Ok(Algorithm::SphincsPlus128f));
        assert_eq!(Algorithm::from_name("XMSSMT-SHA2_20/2_256"), Ok(Algorithm::XmssMtSha2_20_2_256));
        assert_eq!(Algorithm::from_name("SLH-DSA-SHA2-128f"), Err(UnknownName));
        assert_eq!(Algorithm::XmssSha2_10_256.family(), Family::PostQuantum);
    }

    #[test]
    fn wolfcrypt_legacy_names_are_appended_with_their_families() {
        // Appended after XMSS: every earlier place keeps its meaning.
        let first = Algorithm::ALL.iter().position(|&a| a == Algorithm::Md5).unwrap();
        assert_eq!(Algorithm::ALL[first - 1], Algorithm::XmssMtSha2_60_12_256);
        assert_eq!(Algorithm::ALL.last(), Some(&Algorithm::AesSivCmac512));
        assert_eq!(Algorithm::from_name("3DES"), Ok(Algorithm::TripleDes));
        assert_eq!(Algorithm::from_name("AES-128-XTS"), Ok(Algorithm::Aes128Xts));
        assert_eq!(Algorithm::from_name("ECDH-brainpoolP256r1"), Ok(Algorithm::EcdhBrainpoolP256r1));
        assert_eq!(Algorithm::from_name("RIPEMD160"), Err(UnknownName));
        assert_eq!(Algorithm::Md5.family(), Family::Hash);
        assert_eq!(Algorithm::SipHash128.family(), Family::Hash);
        assert_eq!(Algorithm::Aes256Ofb.family(), Family::Symmetric);
        assert_eq!(Algorithm::Rsa1024.family(), Family::Classical);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn serde_uses_contract_names_and_rejects_others() {
        let json = serde_json::to_string(&Algorithm::MlKem768).unwrap();
        assert_eq!(json, "\"ML-KEM-768\"");
        let back: Algorithm = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Algorithm::MlKem768);
        let err = serde_json::from_str::<Algorithm>("\"Kyber768\"").unwrap_err();
        assert!(alloc::format!("{err}").contains("unknown algorithm"), "{err}");
    }
}
