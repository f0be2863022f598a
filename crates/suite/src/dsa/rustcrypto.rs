//! ML-DSA (FIPS 204) at any parameter set, as RustCrypto's `ml-dsa` does it,
//! with the signing key kept expanded.

use alloc::boxed::Box;

use ml_dsa::signature::{Keypair, RandomizedSigner, Verifier};
use ml_dsa::{ExpandedSigningKey, Generate, KeyExport, MlDsaParams, Signature, SigningKey, VerifyingKey};
pub(crate) use ml_dsa::{MlDsa44, MlDsa65, MlDsa87};
use pqbench_types::{Algorithm, Operation};
use rand_core::CryptoRng;

use crate::measure::{Platform, Reporter, Session};

#[inline(never)]
pub(crate) fn bench<P: MlDsaParams>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
) {
    let mut rng = crate::seeded_rng(algorithm);
    let key = SigningKey::<P>::generate_from_rng(&mut rng);
    let signer = expanded(&key);
    let verifier = key.verifying_key();
    let message: [u8; 32] = crate::random(&mut rng);

    let Some(signature) = self_test(&signer, &verifier, &message, &mut rng) else {
        return session.failed(algorithm, pqbench_types::Failure::RoundTrip);
    };

    session.time(algorithm, Operation::Keygen, || SigningKey::<P>::generate_from_rng(&mut rng));
    // Hedged signing (FIPS 204's default): fresh randomness per call draws a
    // new number of rejection-sampling rounds, so the samples show the
    // spread a signer sees rather than one message's fixed count.
    session.time(algorithm, Operation::Sign, || signer.try_sign_with_rng(&mut rng, &message));
    session.time(algorithm, Operation::Verify, || verifier.verify(&message, &signature));
}

/// A hedged signature that verifies, when a tampered message does not.
pub(crate) fn self_test<P: MlDsaParams>(
    signer: &ExpandedSigningKey<P>,
    verifier: &VerifyingKey<P>,
    message: &[u8; 32],
    rng: &mut impl CryptoRng,
) -> Option<Signature<P>> {
    let signature = signer.try_sign_with_rng(rng, message).ok()?;
    crate::verifies_only(verifier, message, &signature).then_some(signature)
}

/// The signing key in the form hedged signing takes, on the heap: it is
/// about 100 KB at ML-DSA-87, and a separate frame keeps that temporary off
/// the stack the timed operations run on.
#[inline(never)]
pub(crate) fn expanded<P: MlDsaParams>(key: &SigningKey<P>) -> Box<ExpandedSigningKey<P>> {
    Box::new(ExpandedSigningKey::from_seed(&key.to_bytes()))
}

#[cfg(test)]
mod tests {
    use ml_dsa::signature::Keypair;
    use pqbench_types::Algorithm;

    use super::*;

    #[test]
    fn the_self_test_rejects_a_mismatched_key() {
        let mut rng = crate::seeded_rng(Algorithm::MlDsa44);
        let message: [u8; 32] = crate::random(&mut rng);
        let key = SigningKey::<MlDsa44>::generate_from_rng(&mut rng);
        let other = SigningKey::<MlDsa44>::generate_from_rng(&mut rng);
        let signer = expanded(&key);
        assert!(self_test(&signer, &key.verifying_key(), &message, &mut rng).is_some());
        assert!(self_test(&signer, &other.verifying_key(), &message, &mut rng).is_none());
    }
}
