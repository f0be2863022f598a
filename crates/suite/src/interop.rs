//! pqbench's own ML-KEM and ML-DSA (libcrux's portable code, as the suite
//! times it) on bytes from elsewhere: keys, ciphertexts and signatures in
//! FIPS 203's and FIPS 204's encodings, as another implementation gives
//! them. A browser run checks each implementation it measures beside ours
//! (WebCrypto, JavaScript libraries) against these before timing it: ours
//! decapsulates their ciphertext to their shared secret and they ours,
//! each verifies the other's signature.
//!
//! Every function returns `None` (or `false`) for an algorithm that is not
//! of its kind or bytes of the wrong length or form, never panics: the
//! bytes come from code pqbench does not control.

use alloc::vec::Vec;

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

/// ML-KEM.KeyGen_internal(d, z) from `seed` (d || z): (ek, dk).
pub fn kem_key_pair(algorithm: Algorithm, seed: [u8; 64]) -> Option<KeyPair> {
    kem_by_name!(algorithm, _m, K => {
        let keys = K::generate(seed);
        let (ek, dk) = K::encoded_keys(&keys);
        Some((ek.to_vec(), dk.to_vec()))
    })
}

/// ML-KEM.Encaps_internal(ek, m) to someone else's encapsulation key,
/// after FIPS 203's input check on it: (ciphertext, shared secret).
pub fn kem_encapsulate(algorithm: Algorithm, ek: &[u8], m: [u8; 32]) -> Option<(Vec<u8>, [u8; 32])> {
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

/// ML-KEM.Decaps(dk, c) of someone else's ciphertext: the shared secret.
pub fn kem_decapsulate(algorithm: Algorithm, dk: &[u8], ciphertext: &[u8]) -> Option<[u8; 32]> {
    kem_by_name!(algorithm, module, _K => {
        let key = TryFrom::try_from(dk).ok()?;
        let ciphertext = TryFrom::try_from(ciphertext).ok()?;
        Some(module::portable::decapsulate(&key, &ciphertext))
    })
}

/// ML-DSA.KeyGen_internal(xi): (pk, sk).
pub fn dsa_key_pair(algorithm: Algorithm, xi: [u8; 32]) -> Option<KeyPair> {
    dsa_by_name!(algorithm, _t, D => {
        let keys = D::generate(xi);
        let (pk, sk) = D::encoded_keys(&keys);
        Some((pk.to_vec(), sk.to_vec()))
    })
}

/// ML-DSA.Sign(sk, message, empty context) with `rnd` (all zero:
/// deterministic): the encoded signature.
pub fn dsa_sign(algorithm: Algorithm, sk: &[u8], message: &[u8], rnd: [u8; 32]) -> Option<Vec<u8>> {
    dsa_by_name!(algorithm, types, _D => {
        let key = libcrux_ml_dsa::MLDSASigningKey::new(sk.try_into().ok()?);
        let signature = types::portable::sign(&key, message, crate::kat::DSA_CONTEXT, rnd).ok()?;
        Some(signature.as_slice().to_vec())
    })
}

/// ML-DSA.Verify(pk, message, signature, empty context).
pub fn dsa_verify(algorithm: Algorithm, pk: &[u8], message: &[u8], signature: &[u8]) -> bool {
    let verified = || {
        dsa_by_name!(algorithm, types, _D => {
            let key = libcrux_ml_dsa::MLDSAVerificationKey::new(pk.try_into().ok()?);
            let sig = libcrux_ml_dsa::MLDSASignature::new(signature.try_into().ok()?);
            Some(types::portable::verify(&key, message, crate::kat::DSA_CONTEXT, &sig).is_ok())
        })
    };
    verified() == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: [u8; 64] = [7; 64];

    #[test]
    fn kem_bytes_round_trip_and_foreign_bytes_are_refused() {
        for algorithm in [Algorithm::MlKem512, Algorithm::MlKem768, Algorithm::MlKem1024] {
            let (ek, dk) = kem_key_pair(algorithm, SEED).unwrap();
            let (ct, shared) = kem_encapsulate(algorithm, &ek, [9; 32]).unwrap();
            assert_eq!(kem_decapsulate(algorithm, &dk, &ct), Some(shared), "{algorithm}");
            // Another level's key, a truncated ciphertext, an invalid key.
            assert_eq!(kem_encapsulate(algorithm, &ek[1..], [9; 32]), None);
            assert_eq!(kem_decapsulate(algorithm, &dk, &ct[1..]), None);
            let mut unreduced = ek.clone();
            unreduced[..2].copy_from_slice(&[0xff, 0xff]);
            assert_eq!(
                kem_encapsulate(algorithm, &unreduced, [9; 32]),
                None,
                "{algorithm}: FIPS 203's check"
            );
        }
        assert_eq!(kem_key_pair(Algorithm::MlDsa65, SEED), None);
    }

    #[test]
    fn dsa_bytes_round_trip_and_a_changed_message_fails() {
        for algorithm in [Algorithm::MlDsa44, Algorithm::MlDsa65, Algorithm::MlDsa87] {
            let (pk, sk) = dsa_key_pair(algorithm, [3; 32]).unwrap();
            let signature = dsa_sign(algorithm, &sk, b"message", [0; 32]).unwrap();
            assert!(dsa_verify(algorithm, &pk, b"message", &signature), "{algorithm}");
            assert!(!dsa_verify(algorithm, &pk, b"messagE", &signature));
            assert!(!dsa_verify(algorithm, &pk[1..], b"message", &signature));
            assert_eq!(dsa_sign(algorithm, &sk[1..], b"message", [0; 32]), None);
        }
        assert!(!dsa_verify(Algorithm::MlKem768, &[], b"", &[]));
    }
}
