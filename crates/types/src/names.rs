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

// Algorithms have a file of their own: the suite's names, and those of
// every published table pqbench imports.
mod algorithm;
mod kinds;
pub use algorithm::Algorithm;

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
        // A stateful signer's private key made ready to sign again from its
        // stored form (wolfCrypt's `wc_LmsKey_Reload`, which rebuilds the
        // cached trees): the cost a board pays at every boot before it signs.
        Load => "load",
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
    /// The groups the dashboard filters by. The first four split every
    /// algorithm (`Algorithm::family`); the rest split `pqc` by what a
    /// scheme does (`Algorithm::pqc_kind`): a KEM, a signature whose
    /// security rests on hash functions alone (SPHINCS+, XMSS), another
    /// signature, or a KEM that combines a post-quantum and a classical one.
    /// Appended, so that a link's `family=pqc` keeps its meaning.
    Family {
        PostQuantum => "pqc",
        Classical => "classical",
        Symmetric => "symmetric",
        Hash => "hash",
        Kem => "kem",
        Signature => "signature",
        HashBasedSignature => "hash-based-signature",
        HybridKem => "hybrid-kem",
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
        // The last place of a run command's first word, and the first of its second.
        assert_eq!(Algorithm::ALL[63], Algorithm::SphincsPlus128f);
        assert_eq!(Algorithm::ALL[64], Algorithm::SphincsPlus128s);
    }

    #[test]
    fn post_quantum_schemes_are_in_pqc_and_in_their_kind() {
        use Family::*;
        let cases = [
            (Algorithm::MlKem768, Kem),
            (Algorithm::Hqc128, Kem),
            (Algorithm::MlDsa65, Signature),
            (Algorithm::Falcon512, Signature),
            (Algorithm::SphincsPlus128f, HashBasedSignature),
            (Algorithm::SphincsSha2_128fSimple, HashBasedSignature),
            (Algorithm::XmssMtSha2_20_2_256, HashBasedSignature),
            (Algorithm::X25519MlKem768, HybridKem),
            (Algorithm::XWing, HybridKem),
            (Algorithm::SlhDsaSha2_128f, HashBasedSignature),
            (Algorithm::FnDsa512, Signature),
            (Algorithm::FnDsa1024, Signature),
        ];
        for (algorithm, kind) in cases {
            assert_eq!(algorithm.pqc_kind(), Some(kind), "{algorithm}");
            assert!(algorithm.is_in(PostQuantum) && algorithm.is_in(kind), "{algorithm}");
            assert!(!algorithm.is_in(Classical), "{algorithm}");
        }
        for algorithm in Algorithm::ALL {
            // Every post-quantum algorithm has one kind, and no other one.
            assert_eq!(algorithm.family() == PostQuantum, algorithm.pqc_kind().is_some(), "{algorithm}");
        }
        assert_eq!(Algorithm::X25519.pqc_kind(), None);
        assert!(Algorithm::X25519.is_in(Classical) && !Algorithm::X25519.is_in(Kem));
        assert_eq!(Family::from_name("pqc"), Ok(PostQuantum), "links of before keep their meaning");
    }

    #[test]
    fn the_key_encapsulation_mechanisms_are_told_from_the_signatures() {
        for kem in [
            Algorithm::MlKem768,
            Algorithm::Kyber512,
            Algorithm::Hqc128,
            Algorithm::Sntrup4591761,
            Algorithm::XWing,
        ] {
            assert!(kem.is_kem(), "{kem}");
        }
        for other in [Algorithm::MlDsa65, Algorithm::Falcon512, Algorithm::Mayo1, Algorithm::X25519] {
            assert!(!other.is_kem(), "{other}");
        }
        // pqm4's own spelling for round 4; the selected HQC has the standard's name.
        assert_eq!(Algorithm::from_name("hqc-128"), Ok(Algorithm::Hqc128));
        assert_eq!(Algorithm::from_name("HQC-128"), Ok(Algorithm::HqcKem128));
        assert_eq!(Algorithm::from_name("qTesla-I"), Ok(Algorithm::QTeslaI));
        assert_eq!(Algorithm::Hqc128.family(), Family::PostQuantum);
    }

    #[test]
    fn names_for_imports_only_read_back_and_are_post_quantum() {
        assert_eq!(Algorithm::from_name("SPHINCS+-128f"), Ok(Algorithm::SphincsPlus128f));
        assert_eq!(Algorithm::from_name("XMSSMT-SHA2_20/2_256"), Ok(Algorithm::XmssMtSha2_20_2_256));
        // FIPS 205's names are the suite's own, never SPHINCS+ round 3's.
        assert_eq!(Algorithm::from_name("SLH-DSA-SHA2-128f"), Ok(Algorithm::SlhDsaSha2_128f));
        assert_ne!(Algorithm::SlhDsaSha2_128f, Algorithm::SphincsSha2_128fSimple);
        assert_eq!(Algorithm::from_name("SLH-DSA-SHAKE-256s"), Ok(Algorithm::SlhDsaShake256s));
        assert_eq!(Algorithm::from_name("SLH-DSA-SHAKE-256"), Err(UnknownName));
        assert_eq!(Algorithm::XmssSha2_10_256.family(), Family::PostQuantum);
    }

    #[test]
    fn wolfcrypt_legacy_names_are_appended_with_their_families() {
        // Appended after XMSS: every earlier place keeps its meaning.
        let first = Algorithm::ALL.iter().position(|&a| a == Algorithm::Md5).unwrap();
        assert_eq!(Algorithm::ALL[first - 1], Algorithm::XmssMtSha2_60_12_256);
        let after = Algorithm::ALL.iter().position(|&a| a == Algorithm::AesSivCmac512).unwrap();
        // The mupq tables' names follow them, appended in turn.
        assert_eq!(Algorithm::ALL[after + 1], Algorithm::Aimer128f);
        let after = Algorithm::ALL.iter().position(|&a| a == Algorithm::SphincsShake256_128fSimple).unwrap();
        // The suite's hybrids, SLH-DSA and FN-DSA (issue 38) come after every imported name.
        assert_eq!(
            Algorithm::ALL[after + 1..after + 6],
            [
                Algorithm::X25519MlKem768,
                Algorithm::XWing,
                Algorithm::SlhDsaSha2_128f,
                Algorithm::FnDsa512,
                Algorithm::FnDsa1024
            ]
        );
        // wolfCrypt's further SLH-DSA, FrodoKEM and LMS/HSS sets follow them.
        assert_eq!(Algorithm::ALL[after + 6], Algorithm::SlhDsaSha2_128s);
        // Then the suite's HQC, as selected (not round 4's `hqc-128`), and
        // the suite's HSS set.
        let hss = Algorithm::ALL.iter().position(|&a| a == Algorithm::HssSha256_192L4H5W8).unwrap();
        assert_eq!(
            Algorithm::ALL[hss + 1..],
            [Algorithm::HqcKem128, Algorithm::HqcKem192, Algorithm::HqcKem256, Algorithm::HssSha256L1H5W4]
        );
        assert_eq!(Algorithm::HssSha256L1H5W4.pqc_kind(), Some(Family::HashBasedSignature));
        assert_eq!(Algorithm::HqcKem128.pqc_kind(), Some(Family::Kem));
        assert_ne!(Algorithm::from_name("HQC-128"), Algorithm::from_name("hqc-128"));
        assert!(Algorithm::EFrodoKem640Aes.is_kem());
        assert_ne!(Algorithm::FrodoKem640Aes, Algorithm::Frodokem640aes);
        assert_eq!(Algorithm::HssSha256L2H10W2.pqc_kind(), Some(Family::HashBasedSignature));
        assert_eq!(Algorithm::SlhDsaShake128f.pqc_kind(), Some(Family::HashBasedSignature));
        assert_eq!(Algorithm::from_name("HSS-SHA256/192-L3-H5-W8"), Ok(Algorithm::HssSha256_192L3H5W8));
        // FN-DSA is not round 3 Falcon, whose name imports keep.
        assert_eq!(Algorithm::from_name("FN-DSA-512"), Ok(Algorithm::FnDsa512));
        assert_ne!(Algorithm::FnDsa512, Algorithm::Falcon512);
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
