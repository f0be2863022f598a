//! ML-DSA (FIPS 204) at any parameter set, as RustCrypto's `ml-dsa` does it,
//! with the signing key kept expanded.

use alloc::boxed::Box;

use ml_dsa::signature::{Keypair, RandomizedSigner, Verifier};
use ml_dsa::{ExpandedSigningKey, Generate, MlDsaParams, Signature, SigningKey, VerifyingKey};
pub(crate) use ml_dsa::{MlDsa44, MlDsa65, MlDsa87};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};

use crate::measure::{Platform, Reporter, Session};
use crate::{check, kat};

#[inline(never)]
pub(crate) fn bench<P: MlDsaParams>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
) {
    let mut rng = crate::seeded_rng(algorithm);
    // On the known answers' seed (see `kat`): the keys the timed operations
    // use too.
    let key = key_from_seed::<P>(kat::DSA_XI);
    let signer = expanded(&key);
    let verifier = key.verifying_key();

    // The deterministic signature of the known message is the one
    // verification is timed on. (The message's length hardly matters: its
    // hash absorbs it in one SHAKE256 block.)
    let signature = match self_test(algorithm, &signer, &verifier) {
        Ok(signature) => signature,
        Err(failure) => return session.failed(algorithm, failure),
    };

    session.time(algorithm, Operation::Keygen, KeyFormat::Decoded, || {
        SigningKey::<P>::generate_from_rng(&mut rng)
    });
    // Hedged signing (FIPS 204's default): fresh randomness per call draws a
    // new number of rejection-sampling rounds, so the samples show the
    // spread a signer sees rather than one message's fixed count.
    session.time(algorithm, Operation::Sign, KeyFormat::Decoded, || {
        signer.try_sign_with_rng(&mut rng, kat::DSA_MESSAGE)
    });
    session.time(algorithm, Operation::Verify, KeyFormat::Decoded, || {
        verifier.verify(kat::DSA_MESSAGE, &signature)
    });
}

/// The deterministic signature of the known message (ML-DSA.Sign's
/// deterministic variant, Algorithm 2 with rnd = 0; `sign_deterministic`
/// signs M' = 0x00 || |ctx| || ctx || M): the round trip first (`verifier`
/// accepts it and rejects it on the message with one bit flipped), then the
/// known answers of the keys and the signature.
pub(crate) fn self_test<P: MlDsaParams>(
    algorithm: Algorithm,
    signer: &ExpandedSigningKey<P>,
    verifier: &VerifyingKey<P>,
) -> Result<Signature<P>, Failure> {
    let signature =
        signer.sign_deterministic(kat::DSA_MESSAGE, kat::DSA_CONTEXT).map_err(|_| Failure::RoundTrip)?;
    check(verifies_only(verifier, &signature), Failure::RoundTrip)?;
    let answers = kat::dsa(algorithm).ok_or(Failure::KnownAnswer)?;
    check(
        public_key_matches(algorithm, verifier, &answers.pk)
            && private_key_matches(algorithm, signer, &answers.sk)
            && signature_matches(algorithm, &signature, &answers.sig),
        Failure::KnownAnswer,
    )?;
    Ok(signature)
}

/// Whether `signature` verifies for the known message and not for it with
/// one bit flipped. Not inlined: the copy takes stack only while it runs.
#[inline(never)]
fn verifies_only<P: MlDsaParams>(verifier: &VerifyingKey<P>, signature: &Signature<P>) -> bool {
    let mut tampered = [0u8; kat::DSA_MESSAGE.len()];
    tampered.copy_from_slice(kat::DSA_MESSAGE);
    tampered[0] ^= 1;
    verifier.verify(kat::DSA_MESSAGE, signature).is_ok() && verifier.verify(&tampered, signature).is_err()
}

// Each encoding (up to 4.9 KB) is made in a frame of its own that is gone
// before the next operation runs.

/// pkEncode of the public key key generation made.
#[inline(never)]
fn public_key_matches<P: MlDsaParams>(
    algorithm: Algorithm,
    verifier: &VerifyingKey<P>,
    expected: &[u8; 32],
) -> bool {
    kat::matches(algorithm, &verifier.encode(), expected)
}

/// skEncode (FIPS 204 Algorithm 24): `ml-dsa` keeps the seed instead and
/// calls this encoding "expanded" (deprecated for storing keys, which is
/// not the use here).
#[inline(never)]
fn private_key_matches<P: MlDsaParams>(
    algorithm: Algorithm,
    signer: &ExpandedSigningKey<P>,
    expected: &[u8; 32],
) -> bool {
    #[allow(deprecated)]
    let encoded = signer.to_expanded();
    kat::matches(algorithm, &encoded, expected)
}

#[inline(never)]
fn signature_matches<P: MlDsaParams>(
    algorithm: Algorithm,
    signature: &Signature<P>,
    expected: &[u8; 32],
) -> bool {
    kat::matches(algorithm, &signature.encode(), expected)
}

/// ML-DSA.KeyGen_internal(xi) (FIPS 204 Algorithm 6). Not inlined: key
/// generation's temporaries (the matrix A, s1, s2, t: tens of KB at
/// ML-DSA-87) would otherwise stay in the caller's frame, under every
/// operation timed after it.
#[inline(never)]
fn key_from_seed<P: MlDsaParams>(xi: [u8; 32]) -> SigningKey<P> {
    SigningKey::<P>::from_seed(&kat::keygen_seed(xi).into())
}

/// The signing key in the form hedged signing takes, on the heap: it is
/// about 100 KB at ML-DSA-87, and a separate frame keeps that temporary off
/// the stack the timed operations run on.
#[inline(never)]
pub(crate) fn expanded<P: MlDsaParams>(key: &SigningKey<P>) -> Box<ExpandedSigningKey<P>> {
    Box::new(ExpandedSigningKey::from_seed(&key.to_seed()))
}

#[cfg(test)]
mod tests {
    use ml_dsa::signature::Keypair;
    use pqbench_types::Algorithm;
    use rand_core::SeedableRng;

    use super::*;

    #[test]
    fn the_self_test_rejects_a_mismatched_key() {
        let key = SigningKey::<MlDsa44>::from_seed(&kat::DSA_XI.into());
        let other = SigningKey::<MlDsa44>::generate_from_rng(&mut rand_chacha::ChaCha20Rng::seed_from_u64(1));
        let signer = expanded(&key);
        assert!(self_test(Algorithm::MlDsa44, &signer, &key.verifying_key()).is_ok());
        let mismatched = self_test(Algorithm::MlDsa44, &signer, &other.verifying_key());
        assert_eq!(mismatched.err(), Some(Failure::RoundTrip));
    }
}
