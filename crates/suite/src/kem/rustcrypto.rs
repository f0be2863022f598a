//! ML-KEM (FIPS 203) at any parameter set, as RustCrypto's `ml-kem` does it.
//! Its encapsulation key keeps the matrix A expanded, so encapsulation and
//! decapsulation do not sample it again.

use ml_kem::kem::{Decapsulate, Encapsulate, Kem};
pub(crate) use ml_kem::{MlKem512, MlKem768, MlKem1024};
use pqbench_types::{Algorithm, Operation};

use crate::measure::{Platform, Reporter, Session};

#[inline(never)]
pub(crate) fn bench<K: Kem>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>)
where
    K::DecapsulationKey: Decapsulate,
{
    let mut rng = crate::seeded_rng(algorithm);

    // Self-test: the shared key survives a round trip, and a tampered
    // ciphertext gives a different key (implicit rejection).
    let (dk, ek) = K::generate_keypair_from_rng(&mut rng);
    let (ct, sent) = ek.encapsulate_with_rng(&mut rng);
    let mut tampered = ct.clone();
    tampered[0] ^= 1;
    let passed = dk.decapsulate(&ct) == sent && dk.decapsulate(&tampered) != sent;
    if !passed {
        return session.failed(algorithm, pqbench_types::Failure::RoundTrip);
    }

    session.time(algorithm, Operation::Keygen, || K::generate_keypair_from_rng(&mut rng));
    session.time(algorithm, Operation::Encaps, || ek.encapsulate_with_rng(&mut rng));
    session.time(algorithm, Operation::Decaps, || dk.decapsulate(&ct));
}
