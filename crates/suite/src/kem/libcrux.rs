//! ML-KEM (FIPS 203) at any parameter set, as libcrux's portable code does it.
//!
//! The portable instantiation on every target, natively too: boards, the
//! browser and the host then run the same code, so their figures compare the
//! machines, not libcrux's AVX2 or NEON paths against its scalar one.
//! Keys stay packed, as they travel: every encapsulation and decapsulation
//! expands the matrix A from its seed again, as a TLS handshake would.

use crate::measure::{Platform, Reporter, Session};
use pqbench_types::{Algorithm, Operation};

/// One ML-KEM parameter set. libcrux has a module per set rather than a
/// generic type; this trait lets one function measure all three.
pub(crate) trait MlKem {
    type KeyPair;
    type Ciphertext: Clone;
    fn generate(randomness: [u8; 64]) -> Self::KeyPair;
    fn encapsulate(keys: &Self::KeyPair, randomness: [u8; 32]) -> (Self::Ciphertext, [u8; 32]);
    fn decapsulate(keys: &Self::KeyPair, ciphertext: &Self::Ciphertext) -> [u8; 32];
    /// The ciphertext with its first bit flipped.
    fn tampered(ciphertext: &Self::Ciphertext) -> Self::Ciphertext;
}

macro_rules! ml_kem {
    ($name:ident, $module:ident, $key_pair:ident, $ciphertext:ident) => {
        pub(crate) struct $name;

        impl MlKem for $name {
            type KeyPair = libcrux_ml_kem::$module::$key_pair;
            type Ciphertext = libcrux_ml_kem::$module::$ciphertext;

            fn generate(randomness: [u8; 64]) -> Self::KeyPair {
                libcrux_ml_kem::$module::portable::generate_key_pair(randomness)
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
        }
    };
}

ml_kem!(MlKem512, mlkem512, MlKem512KeyPair, MlKem512Ciphertext);
ml_kem!(MlKem768, mlkem768, MlKem768KeyPair, MlKem768Ciphertext);
ml_kem!(MlKem1024, mlkem1024, MlKem1024KeyPair, MlKem1024Ciphertext);

#[inline(never)]
pub(crate) fn bench<K: MlKem>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);

    // Self-test: the shared key survives a round trip, and a tampered
    // ciphertext gives a different key (implicit rejection).
    let keys = K::generate(crate::random(&mut rng));
    let (ciphertext, sent) = K::encapsulate(&keys, crate::random(&mut rng));
    let passed = K::decapsulate(&keys, &ciphertext) == sent
        && K::decapsulate(&keys, &K::tampered(&ciphertext)) != sent;
    if !passed {
        return session.failed(algorithm, pqbench_types::Failure::RoundTrip);
    }

    session.time(algorithm, Operation::Keygen, || K::generate(crate::random(&mut rng)));
    session.time(algorithm, Operation::Encaps, || K::encapsulate(&keys, crate::random(&mut rng)));
    session.time(algorithm, Operation::Decaps, || K::decapsulate(&keys, &ciphertext));
}
