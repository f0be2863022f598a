//! SLH-DSA (FIPS 205), the stateless hash-based signature, as RustCrypto's
//! `slh-dsa` does it; generic over the parameter set. The suite holds the
//! 128-bit sets: SHA2-128f, SHAKE-128f, and behind the `slh-dsa-128s`
//! feature SHA2-128s and SHAKE-128s.
//!
//! The `128s` sets' signatures are 7.7 (SHA2) and 24.6 (SHAKE) billion
//! Cortex-M4 cycles in pqm4's final table: past a chip's 32-bit cycle
//! counter (24 s at 180 MHz), where a wrap inside one call goes unseen, so
//! the chips' images leave them out and report them as not fitting. The
//! emulated MPS2 boards' clock is wide enough for any call
//! (`firmware/src/boards/cmsdk_timer.rs`).

use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use slh_dsa::signature::{RandomizedSigner, Verifier};
pub(crate) use slh_dsa::{ParameterSet, Sha2_128f, Shake128f};
#[cfg(feature = "slh-dsa-128s")]
pub(crate) use slh_dsa::{Sha2_128s, Shake128s};
use slh_dsa::{Signature, SigningKey, VerifyingKey};

use crate::measure::{Platform, Reporter, Session};
use crate::{check, kat};

#[inline(never)]
pub(crate) fn bench<P: ParameterSet>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
) {
    let mut rng = crate::seeded_rng(algorithm);
    // The known answers' key is the one the timed operations use too.
    let key = key_from_seeds::<P>(kat::SLH_DSA_SEEDS);
    let signature = match self_test(algorithm, &key) {
        Ok(signature) => signature,
        Err(failure) => return session.failed(algorithm, failure),
    };
    let verifier: &VerifyingKey<P> = key.as_ref();

    // The library's key is the standard's four n-byte values, held as they
    // are: nothing is expanded or cached between calls, so its own form
    // and FIPS 205's bytes cost the same.
    session.time(algorithm, Operation::Keygen, KeyFormat::Decoded, || SigningKey::<P>::new(&mut rng));
    // Hedged signing (FIPS 205's default, opt_rand fresh per call), as a
    // signer would: the time hardly depends on it, every call does the
    // same count of hashes.
    session.time(algorithm, Operation::Sign, KeyFormat::Decoded, || {
        key.try_sign_with_rng(&mut rng, kat::DSA_MESSAGE)
    });
    session.time(algorithm, Operation::Verify, KeyFormat::Decoded, || {
        verifier.verify(kat::DSA_MESSAGE, &signature)
    });
}

/// The deterministic signature of the known message (slh_sign with an
/// empty context and opt_rand = PK.seed): the known answers of both keys
/// first, before a signature that takes billions of instructions at the
/// `128s` sets is made with a wrong key; then the round trip (it
/// verifies, and not for the message with one bit flipped) and the
/// signature's known answer.
pub(crate) fn self_test<P: ParameterSet>(
    algorithm: Algorithm,
    key: &SigningKey<P>,
) -> Result<Signature<P>, Failure> {
    let answers = kat::slh_dsa(algorithm).ok_or(Failure::KnownAnswer)?;
    check(
        public_key_matches(algorithm, key.as_ref(), &answers.pk)
            && private_key_matches(algorithm, key, &answers.sk),
        Failure::KnownAnswer,
    )?;
    let signature = key
        .try_sign_with_context(kat::DSA_MESSAGE, kat::DSA_CONTEXT, None)
        .map_err(|_| Failure::RoundTrip)?;
    check(verifies_only(key.as_ref(), &signature), Failure::RoundTrip)?;
    check(signature_matches(algorithm, &signature, &answers.sig), Failure::KnownAnswer)?;
    Ok(signature)
}

/// Whether `signature` verifies for the known message (with the empty
/// context, as `Verifier::verify` takes it) and not for it with one bit
/// flipped.
#[inline(never)]
fn verifies_only<P: ParameterSet>(verifier: &VerifyingKey<P>, signature: &Signature<P>) -> bool {
    let mut tampered = [0u8; kat::DSA_MESSAGE.len()];
    tampered.copy_from_slice(kat::DSA_MESSAGE);
    tampered[0] ^= 1;
    verifier.verify(kat::DSA_MESSAGE, signature).is_ok() && verifier.verify(&tampered, signature).is_err()
}

#[inline(never)]
fn public_key_matches<P: ParameterSet>(
    algorithm: Algorithm,
    verifier: &VerifyingKey<P>,
    expected: &[u8; 32],
) -> bool {
    kat::matches(algorithm, &verifier.to_bytes(), expected)
}

#[inline(never)]
fn private_key_matches<P: ParameterSet>(
    algorithm: Algorithm,
    key: &SigningKey<P>,
    expected: &[u8; 32],
) -> bool {
    kat::matches(algorithm, &key.to_bytes(), expected)
}

/// The signature's encoding is made in a frame of its own (17,088 bytes at
/// the `f` sets, 7,856 at the `s` sets), gone before the timed operations
/// run.
#[inline(never)]
fn signature_matches<P: ParameterSet>(
    algorithm: Algorithm,
    signature: &Signature<P>,
    expected: &[u8; 32],
) -> bool {
    kat::matches(algorithm, &signature.to_bytes(), expected)
}

/// slh_keygen_internal (FIPS 205 Algorithm 18) of the seeds, through the
/// fault hook the ML-KEM and ML-DSA seeds take (`kat::keygen_seed`). Not
/// inlined: the top tree's computation stays out of the caller's frame.
#[inline(never)]
fn key_from_seeds<P: ParameterSet>(seeds: [u8; 48]) -> SigningKey<P> {
    let seeds = kat::keygen_seed(seeds);
    SigningKey::<P>::slh_keygen_internal(&seeds[..16], &seeds[16..32], &seeds[32..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_self_test_rejects_a_mismatched_key() {
        let key = key_from_seeds::<Sha2_128f>(kat::SLH_DSA_SEEDS);
        assert!(self_test(Algorithm::SlhDsaSha2_128f, &key).is_ok());
        // A key from other seeds: the round trip holds, the known answers
        // do not.
        let other = key_from_seeds::<Sha2_128f>([1; 48]);
        assert_eq!(self_test(Algorithm::SlhDsaSha2_128f, &other).err(), Some(Failure::KnownAnswer));
    }
}
