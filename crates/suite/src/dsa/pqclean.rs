//! ML-DSA (FIPS 204) at any parameter set, as PQClean's portable `clean` C
//! does it (pqbench-pqclean).

use pqbench_pqclean::{Dsa, Random};
pub(crate) use pqbench_pqclean::{MlDsa44, MlDsa65, MlDsa87};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::Rng;

use crate::measure::{Platform, Reporter, Session};
use crate::{check, kat};

#[inline(never)]
pub(crate) fn bench<D: Dsa>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);
    let mut fill = |buffer: &mut [u8]| rng.fill_bytes(buffer);

    // PQClean draws ξ through `randombytes`: giving it the known answers'
    // ξ makes key generation KeyGen_internal(ξ).
    let xi = kat::keygen_seed(kat::DSA_XI);
    let (pk, sk) = D::keypair(&mut Random::new(&mut |buffer: &mut [u8]| copy_into(buffer, &xi)));
    let signature = match self_test::<D>(algorithm, &pk, &sk) {
        Ok(signature) => signature,
        Err(failure) => return session.failed(algorithm, failure),
    };

    session
        .time(algorithm, Operation::Keygen, KeyFormat::Encoded, || D::keypair(&mut Random::new(&mut fill)));
    // Hedged signing (FIPS 204's default), as for the other implementations.
    session.time(algorithm, Operation::Sign, KeyFormat::Encoded, || {
        D::sign(&sk, kat::DSA_MESSAGE, kat::DSA_CONTEXT, &mut Random::new(&mut fill))
    });
    session.time(algorithm, Operation::Verify, KeyFormat::Encoded, || {
        D::verify(&pk, kat::DSA_MESSAGE, kat::DSA_CONTEXT, &signature)
    });
}

/// The deterministic signature of the known message (rnd = 0, as
/// `kat::DSA_RND`): the round trip (it verifies, and not for the message
/// with one bit flipped), then the known answers of the keys and the
/// signature.
#[inline(never)]
pub(crate) fn self_test<D: Dsa>(
    algorithm: Algorithm,
    pk: &D::PublicKey,
    sk: &D::SecretKey,
) -> Result<D::Signature, Failure> {
    let mut rnd = |buffer: &mut [u8]| copy_into(buffer, &kat::DSA_RND);
    let signature = D::sign(sk, kat::DSA_MESSAGE, kat::DSA_CONTEXT, &mut Random::new(&mut rnd))
        .map_err(|_| Failure::RoundTrip)?;
    check(verifies_only::<D>(pk, &signature), Failure::RoundTrip)?;
    let answers = kat::dsa(algorithm).ok_or(Failure::KnownAnswer)?;
    check(
        kat::matches(algorithm, pk.as_ref(), &answers.pk)
            && kat::matches(algorithm, sk.as_ref(), &answers.sk)
            && kat::matches(algorithm, signature.as_ref(), &answers.sig),
        Failure::KnownAnswer,
    )?;
    Ok(signature)
}

/// Whether `signature` verifies for the known message and not for it with
/// one bit flipped. Not inlined: the copy takes stack only while it runs.
#[inline(never)]
fn verifies_only<D: Dsa>(pk: &D::PublicKey, signature: &D::Signature) -> bool {
    let mut tampered = [0u8; kat::DSA_MESSAGE.len()];
    tampered.copy_from_slice(kat::DSA_MESSAGE);
    tampered[0] ^= 1;
    D::verify(pk, kat::DSA_MESSAGE, kat::DSA_CONTEXT, signature)
        && !D::verify(pk, &tampered, kat::DSA_CONTEXT, signature)
}

/// Fills `buffer` from a fixed value: the C asks for exactly its length.
fn copy_into(buffer: &mut [u8], value: &[u8]) {
    let length = buffer.len().min(value.len());
    buffer[..length].copy_from_slice(&value[..length]);
}
