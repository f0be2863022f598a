//! ML-DSA (FIPS 204) at any parameter set, as libcrux's portable code does it
//! (the same code on every target; see `kem::libcrux`).
//!
//! Signing is hedged, FIPS 204's default: fresh randomness per call draws a
//! new number of rejection-sampling rounds, so the samples show the spread a
//! signer sees rather than one message's fixed count. Keys stay packed, so
//! signing and verifying expand the matrix A every call, as a signer that
//! keeps keys in their standard encoding does.

use pqbench_types::{Algorithm, Operation};

use crate::measure::{Platform, Reporter, Session};

/// One ML-DSA parameter set (libcrux has a module per set).
pub(crate) trait MlDsa {
    type KeyPair;
    type Signature;
    fn generate(randomness: [u8; 32]) -> Self::KeyPair;
    fn sign(keys: &Self::KeyPair, message: &[u8], randomness: [u8; 32]) -> Option<Self::Signature>;
    fn verify(keys: &Self::KeyPair, message: &[u8], signature: &Self::Signature) -> bool;
}

macro_rules! ml_dsa {
    ($name:ident, $module:ident, $key_pair:ident, $signature:ident) => {
        pub(crate) struct $name;

        impl MlDsa for $name {
            type KeyPair = libcrux_ml_dsa::$module::$key_pair;
            type Signature = libcrux_ml_dsa::$module::$signature;

            fn generate(randomness: [u8; 32]) -> Self::KeyPair {
                libcrux_ml_dsa::$module::portable::generate_key_pair(randomness)
            }

            fn sign(keys: &Self::KeyPair, message: &[u8], randomness: [u8; 32]) -> Option<Self::Signature> {
                libcrux_ml_dsa::$module::portable::sign(&keys.signing_key, message, CONTEXT, randomness).ok()
            }

            fn verify(keys: &Self::KeyPair, message: &[u8], signature: &Self::Signature) -> bool {
                libcrux_ml_dsa::$module::portable::verify(&keys.verification_key, message, CONTEXT, signature)
                    .is_ok()
            }
        }
    };
}

ml_dsa!(MlDsa44, ml_dsa_44, MLDSA44KeyPair, MLDSA44Signature);
ml_dsa!(MlDsa65, ml_dsa_65, MLDSA65KeyPair, MLDSA65Signature);
ml_dsa!(MlDsa87, ml_dsa_87, MLDSA87KeyPair, MLDSA87Signature);

/// FIPS 204's context string, empty as in pure ML-DSA without a context.
const CONTEXT: &[u8] = b"";

#[inline(never)]
pub(crate) fn bench<D: MlDsa>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);
    let keys = D::generate(crate::random(&mut rng));
    let message: [u8; 32] = crate::random(&mut rng);

    let Some(signature) = self_test::<D>(&keys, &keys, &message, crate::random(&mut rng)) else {
        return session.failed(algorithm, pqbench_types::Failure::RoundTrip);
    };

    session.time(algorithm, Operation::Keygen, || D::generate(crate::random(&mut rng)));
    session.time(algorithm, Operation::Sign, || D::sign(&keys, &message, crate::random(&mut rng)));
    session.time(algorithm, Operation::Verify, || D::verify(&keys, &message, &signature));
}

/// A hedged signature by `signer` that `verifier` accepts, when it rejects
/// the same signature on a message with one bit flipped.
pub(crate) fn self_test<D: MlDsa>(
    signer: &D::KeyPair,
    verifier: &D::KeyPair,
    message: &[u8; 32],
    randomness: [u8; 32],
) -> Option<D::Signature> {
    let signature = D::sign(signer, message, randomness)?;
    let mut tampered = *message;
    tampered[0] ^= 1;
    (D::verify(verifier, message, &signature) && !D::verify(verifier, &tampered, &signature))
        .then_some(signature)
}

#[cfg(test)]
mod tests {
    use pqbench_types::Algorithm;

    use super::*;

    #[test]
    fn the_self_test_rejects_a_mismatched_key() {
        let mut rng = crate::seeded_rng(Algorithm::MlDsa44);
        let message: [u8; 32] = crate::random(&mut rng);
        let key = MlDsa44::generate(crate::random(&mut rng));
        let other = MlDsa44::generate(crate::random(&mut rng));
        assert!(self_test::<MlDsa44>(&key, &key, &message, crate::random(&mut rng)).is_some());
        assert!(self_test::<MlDsa44>(&key, &other, &message, crate::random(&mut rng)).is_none());
    }
}
