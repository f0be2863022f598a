//! pqbench's own ML-KEM and ML-DSA (libcrux's portable code, as the suite
//! times it), X-Wing and SLH-DSA's 128-bit sets (RustCrypto's, as the suite
//! runs them) on bytes from elsewhere: keys, ciphertexts and signatures in
//! FIPS 203's, FIPS 204's, the X-Wing draft's and FIPS 205's encodings, as
//! another implementation gives them. A browser run checks each implementation it measures beside ours
//! (WebCrypto, JavaScript libraries) against these before timing it: ours
//! decapsulates their ciphertext to their shared secret and they ours,
//! each verifies the other's signature.
//!
//! Every function returns `None` (or `false`) for an algorithm that is not
//! of its kind or bytes of the wrong length or form, never panics: the
//! bytes come from code pqbench does not control.

use alloc::vec::Vec;

use ml_kem::kem::{Decapsulate, KeyExport};
use pqbench_types::Algorithm;

use crate::dsa::{self, MlDsa};
use crate::kem::{self, MlKem};

/// An encoded key pair: (public, secret), i.e. (ek, dk) or (pk, sk).
pub type KeyPair = (Vec<u8>, Vec<u8>);

macro_rules! kem_by_name {
    ($algorithm:expr, $module:ident, $ops:ident => $body:expr) => {
        match $algorithm {
            Algorithm::MlKem512 => {
                // Not every function needs both the module and the trait.
                #[allow(unused_imports)]
                use libcrux_ml_kem::mlkem512 as $module;
                #[allow(dead_code)]
                type $ops = kem::MlKem512;
                $body
            }
            Algorithm::MlKem768 => {
                // Not every function needs both the module and the trait.
                #[allow(unused_imports)]
                use libcrux_ml_kem::mlkem768 as $module;
                #[allow(dead_code)]
                type $ops = kem::MlKem768;
                $body
            }
            Algorithm::MlKem1024 => {
                // Not every function needs both the module and the trait.
                #[allow(unused_imports)]
                use libcrux_ml_kem::mlkem1024 as $module;
                #[allow(dead_code)]
                type $ops = kem::MlKem1024;
                $body
            }
            _ => None,
        }
    };
}

macro_rules! dsa_by_name {
    ($algorithm:expr, $types:ident, $ops:ident => $body:expr) => {
        match $algorithm {
            Algorithm::MlDsa44 => {
                // Not every function needs both the module and the trait.
                #[allow(unused_imports)]
                use libcrux_ml_dsa::ml_dsa_44 as $types;
                #[allow(dead_code)]
                type $ops = dsa::MlDsa44;
                $body
            }
            Algorithm::MlDsa65 => {
                // Not every function needs both the module and the trait.
                #[allow(unused_imports)]
                use libcrux_ml_dsa::ml_dsa_65 as $types;
                #[allow(dead_code)]
                type $ops = dsa::MlDsa65;
                $body
            }
            Algorithm::MlDsa87 => {
                // Not every function needs both the module and the trait.
                #[allow(unused_imports)]
                use libcrux_ml_dsa::ml_dsa_87 as $types;
                #[allow(dead_code)]
                type $ops = dsa::MlDsa87;
                $body
            }
            _ => None,
        }
    };
}

/// The bytes of randomness each deterministic function takes for
/// `algorithm`: (key pair seed, encapsulation's or signing's randomness).
/// ML-KEM: d || z and m; X-Wing: its seed and eseed; ML-DSA: xi and rnd;
/// SLH-DSA: SK.seed || SK.prf || PK.seed and none (its signature here is
/// the deterministic one).
pub const fn seed_bytes(algorithm: Algorithm) -> Option<(usize, usize)> {
    match algorithm {
        Algorithm::MlKem512 | Algorithm::MlKem768 | Algorithm::MlKem1024 => Some((64, 32)),
        Algorithm::XWing => Some((32, 64)),
        Algorithm::MlDsa44 | Algorithm::MlDsa65 | Algorithm::MlDsa87 => Some((32, 32)),
        _ if is_slh_dsa(algorithm) => Some((48, 0)),
        _ => None,
    }
}

/// Whether `algorithm` is an SLH-DSA set of this build: the 128-bit ones,
/// whose keys are all three 16-byte seeds (n = 16).
const fn is_slh_dsa(algorithm: Algorithm) -> bool {
    matches!(algorithm, Algorithm::SlhDsaSha2_128f | Algorithm::SlhDsaShake128f)
        || (cfg!(feature = "slh-dsa-128s")
            && matches!(algorithm, Algorithm::SlhDsaSha2_128s | Algorithm::SlhDsaShake128s))
}

/// `$body` with `$P` as `algorithm`'s SLH-DSA parameter set (which
/// [`is_slh_dsa`] names); `None` for any other algorithm.
macro_rules! slh_dsa_by_name {
    ($algorithm:expr, $P:ident => $body:block) => {
        match $algorithm {
            Algorithm::SlhDsaSha2_128f => {
                type $P = slh_dsa::Sha2_128f;
                $body
            }
            Algorithm::SlhDsaShake128f => {
                type $P = slh_dsa::Shake128f;
                $body
            }
            #[cfg(feature = "slh-dsa-128s")]
            Algorithm::SlhDsaSha2_128s => {
                type $P = slh_dsa::Sha2_128s;
                $body
            }
            #[cfg(feature = "slh-dsa-128s")]
            Algorithm::SlhDsaShake128s => {
                type $P = slh_dsa::Shake128s;
                $body
            }
            _ => None,
        }
    };
}

/// Whether `algorithm` is a KEM these functions take (else a signature).
pub const fn is_kem(algorithm: Algorithm) -> bool {
    matches!(algorithm, Algorithm::MlKem512 | Algorithm::MlKem768 | Algorithm::MlKem1024 | Algorithm::XWing)
}

/// ML-KEM.KeyGen_internal(d, z) from `seed` (d || z), or X-Wing's key
/// pair from its 32-byte seed: (ek, dk).
pub fn kem_key_pair(algorithm: Algorithm, seed: &[u8]) -> Option<KeyPair> {
    if algorithm == Algorithm::XWing {
        let dk = x_wing::DecapsulationKey::from(<[u8; 32]>::try_from(seed).ok()?);
        let ek = x_wing::Decapsulator::encapsulation_key(&dk).to_bytes();
        return Some((ek.to_vec(), dk.as_bytes().to_vec()));
    }
    let seed: [u8; 64] = seed.try_into().ok()?;
    kem_by_name!(algorithm, _m, K => {
        let keys = K::generate(seed);
        let (ek, dk) = K::encoded_keys(&keys);
        Some((ek.to_vec(), dk.to_vec()))
    })
}

/// ML-KEM.Encaps_internal(ek, m) to someone else's encapsulation key,
/// after FIPS 203's input check on it, or X-Wing's deterministic
/// encapsulation with the 64-byte eseed: (ciphertext, shared secret).
pub fn kem_encapsulate(algorithm: Algorithm, ek: &[u8], m: &[u8]) -> Option<(Vec<u8>, [u8; 32])> {
    if algorithm == Algorithm::XWing {
        let key = x_wing::EncapsulationKey::try_from(ek).ok()?;
        let eseed: [u8; 64] = m.try_into().ok()?;
        let (ciphertext, shared) = key.encapsulate_deterministic(&eseed.into());
        return Some((ciphertext.to_vec(), shared.into()));
    }
    let m: [u8; 32] = m.try_into().ok()?;
    kem_by_name!(algorithm, module, _K => {
        // Each level's types are one generic type at its sizes, which the
        // functions' parameters fix.
        let key = TryFrom::try_from(ek).ok()?;
        if !module::validate_public_key(&key) {
            return None;
        }
        let (ciphertext, shared) = module::portable::encapsulate(&key, m);
        Some((ciphertext.as_slice().to_vec(), shared))
    })
}

/// ML-KEM.Decaps(dk, c) or X-Wing's decapsulation of someone else's
/// ciphertext: the shared secret.
pub fn kem_decapsulate(algorithm: Algorithm, dk: &[u8], ciphertext: &[u8]) -> Option<[u8; 32]> {
    if algorithm == Algorithm::XWing {
        let key = x_wing::DecapsulationKey::from(<[u8; 32]>::try_from(dk).ok()?);
        let ciphertext = x_wing::Ciphertext::try_from(ciphertext).ok()?;
        return Some(key.decapsulate(&ciphertext).into());
    }
    kem_by_name!(algorithm, module, _K => {
        let key = TryFrom::try_from(dk).ok()?;
        let ciphertext = TryFrom::try_from(ciphertext).ok()?;
        Some(module::portable::decapsulate(&key, &ciphertext))
    })
}

/// ML-DSA.KeyGen_internal(xi), or SLH-DSA's slh_keygen_internal of
/// SK.seed || SK.prf || PK.seed: (pk, sk).
pub fn dsa_key_pair(algorithm: Algorithm, xi: &[u8]) -> Option<KeyPair> {
    if is_slh_dsa(algorithm) {
        let [sk_seed, sk_prf, pk_seed] = split_seeds(xi)?;
        return slh_dsa_by_name!(algorithm, P => {
            let key = slh_dsa::SigningKey::<P>::slh_keygen_internal(sk_seed, sk_prf, pk_seed);
            let pk: &slh_dsa::VerifyingKey<P> = key.as_ref();
            Some((pk.to_bytes().to_vec(), key.to_bytes().to_vec()))
        });
    }
    let xi: [u8; 32] = xi.try_into().ok()?;
    dsa_by_name!(algorithm, _t, D => {
        let keys = D::generate(xi);
        let (pk, sk) = D::encoded_keys(&keys);
        Some((pk.to_vec(), sk.to_vec()))
    })
}

/// ML-DSA.Sign(sk, message, empty context) with `rnd` (all zero:
/// deterministic), or SLH-DSA's deterministic slh_sign (opt_rand =
/// PK.seed) with an empty context: the encoded signature.
pub fn dsa_sign(algorithm: Algorithm, sk: &[u8], message: &[u8], rnd: [u8; 32]) -> Option<Vec<u8>> {
    if is_slh_dsa(algorithm) {
        return slh_dsa_by_name!(algorithm, P => {
            let key = slh_dsa::SigningKey::<P>::try_from(sk).ok()?;
            let signature = key.try_sign_with_context(message, crate::kat::DSA_CONTEXT, None).ok()?;
            Some(signature.to_bytes().to_vec())
        });
    }
    dsa_by_name!(algorithm, types, _D => {
        let key = libcrux_ml_dsa::MLDSASigningKey::new(sk.try_into().ok()?);
        let signature = types::portable::sign(&key, message, crate::kat::DSA_CONTEXT, rnd).ok()?;
        Some(signature.as_slice().to_vec())
    })
}

/// ML-DSA.Verify(pk, message, signature, empty context), or SLH-DSA's
/// slh_verify with an empty context.
pub fn dsa_verify(algorithm: Algorithm, pk: &[u8], message: &[u8], signature: &[u8]) -> bool {
    if is_slh_dsa(algorithm) {
        use slh_dsa::signature::Verifier;
        let verified = || {
            slh_dsa_by_name!(algorithm, P => {
                let key = slh_dsa::VerifyingKey::<P>::try_from(pk).ok()?;
                let signature = slh_dsa::Signature::<P>::try_from(signature).ok()?;
                Some(key.verify(message, &signature).is_ok())
            })
        };
        return verified() == Some(true);
    }
    let verified = || {
        dsa_by_name!(algorithm, types, _D => {
            let key = libcrux_ml_dsa::MLDSAVerificationKey::new(pk.try_into().ok()?);
            let sig = libcrux_ml_dsa::MLDSASignature::new(signature.try_into().ok()?);
            Some(types::portable::verify(&key, message, crate::kat::DSA_CONTEXT, &sig).is_ok())
        })
    };
    verified() == Some(true)
}

/// An SLH-DSA 128-bit set's three 16-byte seeds from 48 bytes.
fn split_seeds(seeds: &[u8]) -> Option<[&[u8]; 3]> {
    if seeds.len() != 48 {
        return None;
    }
    Some([&seeds[..16], &seeds[16..32], &seeds[32..]])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: [u8; 64] = [7; 64];

    #[test]
    fn kem_bytes_round_trip_and_foreign_bytes_are_refused() {
        for algorithm in [Algorithm::MlKem512, Algorithm::MlKem768, Algorithm::MlKem1024] {
            let (ek, dk) = kem_key_pair(algorithm, &SEED).unwrap();
            let (ct, shared) = kem_encapsulate(algorithm, &ek, &[9; 32]).unwrap();
            assert_eq!(kem_decapsulate(algorithm, &dk, &ct), Some(shared), "{algorithm}");
            // Another level's key, a truncated ciphertext, an invalid key.
            assert_eq!(kem_encapsulate(algorithm, &ek[1..], &[9; 32]), None);
            assert_eq!(kem_decapsulate(algorithm, &dk, &ct[1..]), None);
            let mut unreduced = ek.clone();
            unreduced[..2].copy_from_slice(&[0xff, 0xff]);
            assert_eq!(
                kem_encapsulate(algorithm, &unreduced, &[9; 32]),
                None,
                "{algorithm}: FIPS 203's check"
            );
        }
        assert_eq!(kem_key_pair(Algorithm::MlDsa65, &SEED), None);
    }

    #[test]
    fn dsa_bytes_round_trip_and_a_changed_message_fails() {
        for algorithm in [Algorithm::MlDsa44, Algorithm::MlDsa65, Algorithm::MlDsa87] {
            let (pk, sk) = dsa_key_pair(algorithm, &[3; 32]).unwrap();
            let signature = dsa_sign(algorithm, &sk, b"message", [0; 32]).unwrap();
            assert!(dsa_verify(algorithm, &pk, b"message", &signature), "{algorithm}");
            assert!(!dsa_verify(algorithm, &pk, b"messagE", &signature));
            assert!(!dsa_verify(algorithm, &pk[1..], b"message", &signature));
            assert_eq!(dsa_sign(algorithm, &sk[1..], b"message", [0; 32]), None);
        }
        assert!(!dsa_verify(Algorithm::MlKem768, &[], b"", &[]));
    }

    #[test]
    fn x_wing_and_slh_dsa_round_trip_and_foreign_bytes_are_refused() {
        let (ek, dk) = kem_key_pair(Algorithm::XWing, &[5; 32]).unwrap();
        assert_eq!((ek.len(), dk.len()), (1216, 32));
        let (ct, shared) = kem_encapsulate(Algorithm::XWing, &ek, &[6; 64]).unwrap();
        assert_eq!(kem_decapsulate(Algorithm::XWing, &dk, &ct), Some(shared));
        // The suite's own known answers: this is the code the suite times.
        let (ek, _) = kem_key_pair(Algorithm::XWing, &crate::kat::X_WING_SEED).unwrap();
        assert!(crate::kat::matches(Algorithm::XWing, &ek, &crate::kat::X_WING.ek));
        assert_eq!(kem_encapsulate(Algorithm::XWing, &ek, &[6; 32]), None, "eseed is 64 bytes");
        assert_eq!(kem_decapsulate(Algorithm::XWing, &dk, &ct[1..]), None);
        assert_eq!(kem_key_pair(Algorithm::XWing, &SEED), None, "the seed is 32 bytes");

        let sets = [
            Algorithm::SlhDsaSha2_128f,
            Algorithm::SlhDsaShake128f,
            Algorithm::SlhDsaSha2_128s,
            Algorithm::SlhDsaShake128s,
        ];
        for algorithm in sets.into_iter().filter(|&a| crate::in_this_build(a)) {
            let (pk, sk) = dsa_key_pair(algorithm, &crate::kat::SLH_DSA_SEEDS).unwrap();
            assert_eq!((pk.len(), sk.len()), (32, 64));
            let signature = dsa_sign(algorithm, &sk, crate::kat::DSA_MESSAGE, [0; 32]).unwrap();
            let answers = crate::kat::slh_dsa(algorithm).unwrap();
            assert!(crate::kat::matches(algorithm, &pk, &answers.pk), "{algorithm}: the suite's known key");
            assert!(
                crate::kat::matches(algorithm, &signature, &answers.sig),
                "{algorithm}: its known signature"
            );
            assert!(dsa_verify(algorithm, &pk, crate::kat::DSA_MESSAGE, &signature));
            assert!(!dsa_verify(algorithm, &pk, b"another", &signature));
            assert!(!dsa_verify(algorithm, &pk[1..], crate::kat::DSA_MESSAGE, &signature));
            assert_eq!(dsa_key_pair(algorithm, &[3; 32]), None, "three 16-byte seeds");
            assert!(!is_kem(algorithm));
        }
        // Another set's signature, of the same length or not, is refused.
        let (pk, _) = dsa_key_pair(Algorithm::SlhDsaShake128f, &crate::kat::SLH_DSA_SEEDS).unwrap();
        let (_, sk) = dsa_key_pair(Algorithm::SlhDsaSha2_128f, &crate::kat::SLH_DSA_SEEDS).unwrap();
        let signature = dsa_sign(Algorithm::SlhDsaSha2_128f, &sk, crate::kat::DSA_MESSAGE, [0; 32]).unwrap();
        assert!(!dsa_verify(Algorithm::SlhDsaShake128f, &pk, crate::kat::DSA_MESSAGE, &signature));
        assert_eq!(seed_bytes(Algorithm::SlhDsaShake128s).is_some(), cfg!(feature = "slh-dsa-128s"));
        assert_eq!(seed_bytes(Algorithm::FnDsa512), None);
        assert!(is_kem(Algorithm::XWing));
    }
}
