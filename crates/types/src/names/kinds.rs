//! Which family and kind each algorithm is: what the dashboard groups and
//! filters by, and which of a published table's two (KEMs, signatures) a
//! row belongs in. The names themselves are in `algorithm.rs`.

use super::{Algorithm, Family};

impl Algorithm {
    /// A post-quantum algorithm's kind within `pqc` ([`Family`]'s `kem`,
    /// `signature`, `hash-based-signature`, `hybrid-kem`); `None` for any
    /// other family.
    pub const fn pqc_kind(self) -> Option<Family> {
        use Algorithm::*;
        if !matches!(self.family(), Family::PostQuantum) {
            return None;
        }
        if matches!(self, X25519MlKem768 | XWing) {
            return Some(Family::HybridKem);
        }
        if self.is_kem() {
            return Some(Family::Kem);
        }
        Some(match self {
            SphincsPlus128f
            | SphincsPlus128s
            | SphincsPlus192f
            | SphincsPlus192s
            | SphincsPlus256f
            | SphincsPlus256s
            | XmssSha2_10_256
            | XmssSha2_10_192
            | XmssMtSha2_20_2_256
            | XmssMtSha2_20_4_256
            | XmssMtSha2_40_4_256
            | XmssMtSha2_40_8_256
            | XmssMtSha2_60_6_256
            | XmssMtSha2_60_12_256
            | SphincsSha2_128fSimple
            | SphincsSha2_128sSimple
            | SphincsSha2_192fSimple
            | SphincsSha2_192sSimple
            | SphincsSha2_256fSimple
            | SphincsSha2_256sSimple
            | SphincsShake128fSimple
            | SphincsShake128sSimple
            | SphincsShake192fSimple
            | SphincsShake192sSimple
            | SphincsShake256fSimple
            | SphincsShake256sSimple
            | SphincsShake256_128fSimple
            | SlhDsaSha2_128f
            | SlhDsaSha2_128s
            | SlhDsaSha2_192s
            | SlhDsaSha2_192f
            | SlhDsaSha2_256s
            | SlhDsaSha2_256f
            | SlhDsaShake128s
            | SlhDsaShake128f
            | SlhDsaShake192s
            | SlhDsaShake192f
            | SlhDsaShake256s
            | SlhDsaShake256f
            | HssSha256L1H5W1
            | HssSha256L1H15W2
            | HssSha256L1H15W4
            | HssSha256L2H10W2
            | HssSha256L2H10W4
            | HssSha256L2H10W8
            | HssSha256L3H5W4
            | HssSha256L1H5W4
            | HssSha256L3H5W8
            | HssSha256L3H10W4
            | HssSha256L4H5W8
            | HssSha256_192L1H5W1
            | HssSha256_192L1H15W2
            | HssSha256_192L1H15W4
            | HssSha256_192L2H10W2
            | HssSha256_192L2H10W4
            | HssSha256_192L2H10W8
            | HssSha256_192L3H5W4
            | HssSha256_192L3H5W8
            | HssSha256_192L3H10W4
            | HssSha256_192L4H5W8 => Family::HashBasedSignature,
            _ => Family::Signature,
        })
    }

    /// Whether the algorithm is in `family`: the one it is in
    /// ([`Algorithm::family`]), or for a post-quantum one its kind too.
    pub fn is_in(self, family: Family) -> bool {
        self.family() == family || self.pqc_kind() == Some(family)
    }

    /// Whether the algorithm is a key encapsulation mechanism, measured as
    /// keygen, encaps and decaps (a signature's are keygen, sign and
    /// verify): which of a published table's two a row belongs in.
    pub const fn is_kem(self) -> bool {
        use Algorithm::*;
        matches!(
            self,
            MlKem512
                | MlKem768
                | MlKem1024
                | Kyber512
                | Kyber768
                | Kyber1024
                | Bikel1
                | Bikel3
                | Hqc128
                | Hqc192
                | Hqc256
                | Firesaber
                | Lightsaber
                | Saber
                | Frodokem640aes
                | Frodokem640shake
                | Newhope1024cca
                | Ntruhps2048509
                | Ntruhps2048677
                | Ntruhps4096821
                | Ntruhrss701
                | Sikep751
                | Sntrup4591761
                | X25519MlKem768
                | XWing
                | FrodoKem640Aes
                | FrodoKem640Shake
                | FrodoKem976Aes
                | FrodoKem976Shake
                | FrodoKem1344Aes
                | FrodoKem1344Shake
                | EFrodoKem640Aes
                | EFrodoKem640Shake
                | EFrodoKem976Aes
                | EFrodoKem976Shake
                | EFrodoKem1344Aes
                | EFrodoKem1344Shake
                | HqcKem128
                | HqcKem192
                | HqcKem256
        )
    }

    /// Classical, symmetric and hash algorithms are listed by name;
    /// everything else pqbench names is post-quantum (the suite's, and the
    /// schemes of every table it imports), so a new post-quantum name needs
    /// no line here.
    pub const fn family(self) -> Family {
        use Algorithm::*;
        match self {
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
            _ => Family::PostQuantum,
        }
    }
}
