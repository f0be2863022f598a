//! ML-DSA (FIPS 204) at any parameter set, as libcrux's portable code does it
//! (the same code on every target; see `kem::libcrux`).
//!
//! Timed signing is hedged, FIPS 204's default (the self-test's is the
//! deterministic variant, for a known answer): fresh randomness per call draws a
//! new number of rejection-sampling rounds, so the samples show the spread a
//! signer sees rather than one message's fixed count. Keys stay packed, so
//! signing and verifying expand the matrix A every call, as a signer that
//! keeps keys in their standard encoding does.

use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};

use crate::measure::{Platform, Reporter, Session};
use crate::{check, kat};

/// One ML-DSA parameter set (libcrux has a module per set).
pub(crate) trait MlDsa {
    type KeyPair;
    type Signature;
    /// ML-DSA.KeyGen_internal(xi) (FIPS 204 Algorithm 6).
    fn generate(randomness: [u8; 32]) -> Self::KeyPair;
    /// ML-DSA.Sign (Algorithm 2) with an empty context: libcrux signs
    /// M' = 0x00 || 0x00 || M with `randomness` as rnd (all zero for the
    /// deterministic variant).
    fn sign(keys: &Self::KeyPair, message: &[u8], randomness: [u8; 32]) -> Option<Self::Signature>;
    fn verify(keys: &Self::KeyPair, message: &[u8], signature: &Self::Signature) -> bool;
    /// pk and sk in FIPS 204's encodings (pkEncode, skEncode).
    fn encoded_keys(keys: &Self::KeyPair) -> (&[u8], &[u8]);
    fn encoded_signature(signature: &Self::Signature) -> &[u8];
}

macro_rules! ml_dsa {
    ($name:ident, $module:ident, $key_pair:ident, $signature:ident) => {
        pub(crate) struct $name;

        impl MlDsa for $name {
            type KeyPair = libcrux_ml_dsa::$module::$key_pair;
            type Signature = libcrux_ml_dsa::$module::$signature;

            fn generate(randomness: [u8; 32]) -> Self::KeyPair {
                libcrux_ml_dsa::$module::portable::generate_key_pair(crate::kat::keygen_seed(randomness))
            }

            fn sign(keys: &Self::KeyPair, message: &[u8], randomness: [u8; 32]) -> Option<Self::Signature> {
                libcrux_ml_dsa::$module::portable::sign(&keys.signing_key, message, CONTEXT, randomness).ok()
            }

            fn verify(keys: &Self::KeyPair, message: &[u8], signature: &Self::Signature) -> bool {
                libcrux_ml_dsa::$module::portable::verify(&keys.verification_key, message, CONTEXT, signature)
                    .is_ok()
            }

            fn encoded_keys(keys: &Self::KeyPair) -> (&[u8], &[u8]) {
                (keys.verification_key.as_slice(), keys.signing_key.as_slice())
            }

            fn encoded_signature(signature: &Self::Signature) -> &[u8] {
                signature.as_slice()
            }
        }
    };
}

ml_dsa!(MlDsa44, ml_dsa_44, MLDSA44KeyPair, MLDSA44Signature);
ml_dsa!(MlDsa65, ml_dsa_65, MLDSA65KeyPair, MLDSA65Signature);
ml_dsa!(MlDsa87, ml_dsa_87, MLDSA87KeyPair, MLDSA87Signature);

/// FIPS 204's context string, empty as in pure ML-DSA without a context
/// (the known answers' `kat::DSA_CONTEXT`).
const CONTEXT: &[u8] = kat::DSA_CONTEXT;

#[inline(never)]
pub(crate) fn bench<D: MlDsa>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);
    let keys = D::generate(kat::DSA_XI);

    // Self-test on the known answers' keys and message (see `kat`), which
    // the timed signing and verification then use; the deterministic
    // signature is the one verification is timed on. (The message's length
    // hardly matters: its hash absorbs it in one SHAKE256 block.)
    let signature = match self_test::<D>(algorithm, &keys, &keys) {
        Ok(signature) => signature,
        Err(failure) => return session.failed(algorithm, failure),
    };

    session.time(algorithm, Operation::Keygen, KeyFormat::Encoded, || D::generate(crate::random(&mut rng)));
    session.time(algorithm, Operation::Sign, KeyFormat::Encoded, || {
        D::sign(&keys, kat::DSA_MESSAGE, crate::random(&mut rng))
    });
    session.time(algorithm, Operation::Verify, KeyFormat::Encoded, || {
        D::verify(&keys, kat::DSA_MESSAGE, &signature)
    });
}

/// The deterministic signature of the known message by `signer`: the round
/// trip first (`verifier` accepts it and rejects it on the message with one
/// bit flipped), then the known answers of the keys and the signature.
pub(crate) fn self_test<D: MlDsa>(
    algorithm: Algorithm,
    signer: &D::KeyPair,
    verifier: &D::KeyPair,
) -> Result<D::Signature, Failure> {
    let signature = D::sign(signer, kat::DSA_MESSAGE, kat::DSA_RND).ok_or(Failure::RoundTrip)?;
    check(verifies_only::<D>(verifier, &signature), Failure::RoundTrip)?;
    let answers = kat::dsa(algorithm).ok_or(Failure::KnownAnswer)?;
    let (pk, sk) = D::encoded_keys(signer);
    check(
        kat::matches(algorithm, pk, &answers.pk)
            && kat::matches(algorithm, sk, &answers.sk)
            && kat::matches(algorithm, D::encoded_signature(&signature), &answers.sig),
        Failure::KnownAnswer,
    )?;
    Ok(signature)
}

/// Whether `signature` verifies for the known message and not for it with
/// one bit flipped. Not inlined: the copy takes stack only while it runs.
#[inline(never)]
fn verifies_only<D: MlDsa>(verifier: &D::KeyPair, signature: &D::Signature) -> bool {
    let mut tampered = [0u8; kat::DSA_MESSAGE.len()];
    tampered.copy_from_slice(kat::DSA_MESSAGE);
    tampered[0] ^= 1;
    D::verify(verifier, kat::DSA_MESSAGE, signature) && !D::verify(verifier, &tampered, signature)
}

#[cfg(test)]
mod tests {
    use pqbench_types::Algorithm;

    use super::*;

    #[test]
    fn the_self_test_rejects_a_mismatched_key() {
        let mut rng = crate::seeded_rng(Algorithm::MlDsa44);
        let key = MlDsa44::generate(kat::DSA_XI);
        let other = MlDsa44::generate(crate::random(&mut rng));
        assert!(self_test::<MlDsa44>(Algorithm::MlDsa44, &key, &key).is_ok());
        assert_eq!(self_test::<MlDsa44>(Algorithm::MlDsa44, &key, &other).err(), Some(Failure::RoundTrip));
    }
}
