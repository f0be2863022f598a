//! ML-KEM (FIPS 203) at any parameter set, as PQClean's portable `clean` C
//! does it (pqbench-pqclean): the code under pqm4's `clean` rows and
//! liboqs. Keys stay packed, as in the libcrux module: every encapsulation
//! and decapsulation expands the matrix A from its seed again.

use pqbench_pqclean::{Kem, Random};
pub(crate) use pqbench_pqclean::{MlKem512, MlKem768, MlKem1024};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::Rng;

use crate::measure::{Platform, Reporter, Session};
use crate::{Verdict, check, kat};

#[inline(never)]
pub(crate) fn bench<K: Kem>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);
    let mut fill = |buffer: &mut [u8]| rng.fill_bytes(buffer);

    // Self-test on the known answers' keys and ciphertext (see `kat`),
    // which the timed encapsulation and decapsulation then use.
    let (pk, sk) = K::keypair_derand(&kat::keygen_seed(kat::KEM_SEED));
    let (ciphertext, shared) = K::encapsulate_derand(&pk, &kat::KEM_M);
    if let Err(failure) = self_test::<K>(algorithm, &pk, &sk, &ciphertext, &shared) {
        return session.failed(algorithm, failure);
    }

    // The C draws d || z and m through `randombytes`, from the suite's
    // generator, as the other implementations draw them.
    session
        .time(algorithm, Operation::Keygen, KeyFormat::Encoded, || K::keypair(&mut Random::new(&mut fill)));
    session.time(algorithm, Operation::Encaps, KeyFormat::Encoded, || {
        K::encapsulate(&pk, &mut Random::new(&mut fill))
    });
    session.time(algorithm, Operation::Decaps, KeyFormat::Encoded, || K::decapsulate(&sk, &ciphertext));
}

/// The round trip first (the shared secret survives decapsulation, a
/// tampered ciphertext gives another key), then the known answers. PQClean's
/// secret key is FIPS 203's dk (dk_PKE || ek || H(ek) || z). Not inlined:
/// the tampered ciphertext takes stack only while this runs.
#[inline(never)]
pub(crate) fn self_test<K: Kem>(
    algorithm: Algorithm,
    pk: &K::PublicKey,
    sk: &K::SecretKey,
    ciphertext: &K::Ciphertext,
    shared: &[u8; 32],
) -> Verdict {
    let mut tampered = ciphertext.clone();
    tampered.as_mut()[0] ^= 1;
    let rejected = K::decapsulate(sk, &tampered);
    check(K::decapsulate(sk, ciphertext) == *shared && rejected != *shared, Failure::RoundTrip)?;
    let answers = kat::kem(algorithm).ok_or(Failure::KnownAnswer)?;
    check(
        kat::matches(algorithm, pk.as_ref(), &answers.ek)
            && kat::matches(algorithm, sk.as_ref(), &answers.dk)
            && kat::matches(algorithm, ciphertext.as_ref(), &answers.ct)
            && kat::matches(algorithm, shared, &answers.ss)
            && kat::matches(algorithm, &rejected, &answers.rejected),
        Failure::KnownAnswer,
    )
}
