//! ML-KEM (FIPS 203) at any parameter set, as libcrux's portable code does it.
//!
//! The portable instantiation on every target, natively too: boards, the
//! browser and the host then run the same code, so their figures compare the
//! machines, not libcrux's AVX2 or NEON paths against its scalar one.
//! Keys stay packed, as they travel: every encapsulation and decapsulation
//! expands the matrix A from its seed again, as a TLS handshake would.

use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};

use crate::measure::{Platform, Reporter, Session};
use crate::{Verdict, check, kat};

/// One ML-KEM parameter set. libcrux has a module per set rather than a
/// generic type; this trait lets one function measure all three.
pub(crate) trait MlKem {
    type KeyPair;
    type Ciphertext: Clone;
    /// ML-KEM.KeyGen_internal(d, z) from the seed d || z (FIPS 203
    /// Algorithm 16; libcrux splits the seed so).
    fn generate(randomness: [u8; 64]) -> Self::KeyPair;
    /// ML-KEM.Encaps_internal(ek, m) (Algorithm 17): the ciphertext and the
    /// shared secret.
    fn encapsulate(keys: &Self::KeyPair, randomness: [u8; 32]) -> (Self::Ciphertext, [u8; 32]);
    fn decapsulate(keys: &Self::KeyPair, ciphertext: &Self::Ciphertext) -> [u8; 32];
    /// The ciphertext with its first bit flipped.
    fn tampered(ciphertext: &Self::Ciphertext) -> Self::Ciphertext;
    /// ek and dk in FIPS 203's encodings, as they travel and are stored.
    fn encoded_keys(keys: &Self::KeyPair) -> (&[u8], &[u8]);
    fn encoded_ciphertext(ciphertext: &Self::Ciphertext) -> &[u8];
}

macro_rules! ml_kem {
    ($name:ident, $module:ident, $key_pair:ident, $ciphertext:ident) => {
        pub(crate) struct $name;

        impl MlKem for $name {
            type KeyPair = libcrux_ml_kem::$module::$key_pair;
            type Ciphertext = libcrux_ml_kem::$module::$ciphertext;

            fn generate(randomness: [u8; 64]) -> Self::KeyPair {
                libcrux_ml_kem::$module::portable::generate_key_pair(crate::kat::keygen_seed(randomness))
            }

            fn encapsulate(keys: &Self::KeyPair, randomness: [u8; 32]) -> (Self::Ciphertext, [u8; 32]) {
                libcrux_ml_kem::$module::portable::encapsulate(keys.public_key(), randomness)
            }

            fn decapsulate(keys: &Self::KeyPair, ciphertext: &Self::Ciphertext) -> [u8; 32] {
                libcrux_ml_kem::$module::portable::decapsulate(keys.private_key(), ciphertext)
            }

            fn tampered(ciphertext: &Self::Ciphertext) -> Self::Ciphertext {
                let mut bytes = *ciphertext.as_slice();
                bytes[0] ^= 1;
                bytes.into()
            }

            fn encoded_keys(keys: &Self::KeyPair) -> (&[u8], &[u8]) {
                (&keys.public_key().as_slice()[..], &keys.private_key().as_slice()[..])
            }

            fn encoded_ciphertext(ciphertext: &Self::Ciphertext) -> &[u8] {
                &ciphertext.as_slice()[..]
            }
        }
    };
}

ml_kem!(MlKem512, mlkem512, MlKem512KeyPair, MlKem512Ciphertext);
ml_kem!(MlKem768, mlkem768, MlKem768KeyPair, MlKem768Ciphertext);
ml_kem!(MlKem1024, mlkem1024, MlKem1024KeyPair, MlKem1024Ciphertext);

#[inline(never)]
pub(crate) fn bench<K: MlKem>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);

    // Self-test on the known answers' keys and ciphertext (see `kat`),
    // which the timed encapsulation and decapsulation then use.
    let keys = K::generate(kat::KEM_SEED);
    let (ciphertext, shared) = K::encapsulate(&keys, kat::KEM_M);
    if let Err(failure) = self_test::<K>(algorithm, &keys, &ciphertext, &shared) {
        return session.failed(algorithm, failure);
    }

    session.time(algorithm, Operation::Keygen, KeyFormat::Encoded, || K::generate(crate::random(&mut rng)));
    session.time(algorithm, Operation::Encaps, KeyFormat::Encoded, || {
        K::encapsulate(&keys, crate::random(&mut rng))
    });
    session.time(algorithm, Operation::Decaps, KeyFormat::Encoded, || K::decapsulate(&keys, &ciphertext));
}

/// The round trip first: the shared secret survives decapsulation, and a
/// tampered ciphertext gives another key (implicit rejection). Then the
/// known answers, which catch what agrees with itself but is wrong. Not
/// inlined: the tampered ciphertext takes stack only while this runs.
#[inline(never)]
pub(crate) fn self_test<K: MlKem>(
    algorithm: Algorithm,
    keys: &K::KeyPair,
    ciphertext: &K::Ciphertext,
    shared: &[u8; 32],
) -> Verdict {
    let rejected = K::decapsulate(keys, &K::tampered(ciphertext));
    check(K::decapsulate(keys, ciphertext) == *shared && rejected != *shared, Failure::RoundTrip)?;
    let answers = kat::kem(algorithm).ok_or(Failure::KnownAnswer)?;
    let (ek, dk) = K::encoded_keys(keys);
    check(
        kat::matches(algorithm, ek, &answers.ek)
            && kat::matches(algorithm, dk, &answers.dk)
            && kat::matches(algorithm, K::encoded_ciphertext(ciphertext), &answers.ct)
            && kat::matches(algorithm, shared, &answers.ss)
            && kat::matches(algorithm, &rejected, &answers.rejected),
        Failure::KnownAnswer,
    )
}
