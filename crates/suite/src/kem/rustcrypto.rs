//! ML-KEM (FIPS 203) at any parameter set, as RustCrypto's `ml-kem` does it.
//! Its encapsulation key keeps the matrix A expanded, so encapsulation and
//! decapsulation do not sample it again.

use ml_kem::kem::{Ciphertext, Decapsulate, Encapsulate, Kem, KeyExport, SharedKey};
pub(crate) use ml_kem::{MlKem512, MlKem768, MlKem1024};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};

use crate::measure::{Platform, Reporter, Session};
use crate::{Verdict, check, kat};

/// FIPS 203's internal, deterministic functions, which `ml-kem` has on its
/// concrete key types rather than on the `Kem` trait.
pub(crate) trait Deterministic: Kem {
    /// ML-KEM.KeyGen_internal(d, z) from the seed d || z (Algorithm 16;
    /// `DecapsulationKey::from_seed` splits it so).
    fn from_seed(seed: [u8; 64]) -> (Self::DecapsulationKey, Self::EncapsulationKey);
    /// ML-KEM.Encaps_internal(ek, m) (Algorithm 17).
    fn encapsulate(ek: &Self::EncapsulationKey, m: [u8; 32]) -> (Ciphertext<Self>, SharedKey<Self>);
    /// Whether dk in FIPS 203's encoding (dk_PKE || ek || H(ek) || z) has
    /// the known digest. `ml-kem` keeps the seed instead and calls this
    /// encoding "expanded" (deprecated for storing keys, which is not the
    /// use here). Not inlined: the encoding (up to 3,168 bytes) takes stack
    /// only while this runs.
    fn decapsulation_key_matches(
        algorithm: Algorithm,
        dk: &Self::DecapsulationKey,
        expected: &[u8; 32],
    ) -> bool;
    /// That encoding itself, for the test that compares it with libcrux's.
    #[cfg(all(test, feature = "libcrux"))]
    fn encoded_decapsulation_key(dk: &Self::DecapsulationKey) -> alloc::vec::Vec<u8>;
}

macro_rules! deterministic {
    ($($kem:ident),+) => {$(
        impl Deterministic for $kem {
            fn from_seed(seed: [u8; 64]) -> (Self::DecapsulationKey, Self::EncapsulationKey) {
                let dk = ml_kem::DecapsulationKey::<$kem>::from_seed(kat::keygen_seed(seed).into());
                let ek = dk.encapsulation_key().clone();
                (dk, ek)
            }

            fn encapsulate(ek: &Self::EncapsulationKey, m: [u8; 32]) -> (Ciphertext<Self>, SharedKey<Self>) {
                ek.encapsulate_deterministic(&m.into())
            }

            #[inline(never)]
            fn decapsulation_key_matches(
                algorithm: Algorithm,
                dk: &Self::DecapsulationKey,
                expected: &[u8; 32],
            ) -> bool {
                #[allow(deprecated)]
                let encoded = ml_kem::ExpandedKeyEncoding::to_expanded_bytes(dk);
                kat::matches(algorithm, &encoded, expected)
            }

            #[cfg(all(test, feature = "libcrux"))]
            fn encoded_decapsulation_key(dk: &Self::DecapsulationKey) -> alloc::vec::Vec<u8> {
                #[allow(deprecated)]
                let encoded = ml_kem::ExpandedKeyEncoding::to_expanded_bytes(dk);
                encoded.to_vec()
            }
        }
    )+};
}

deterministic!(MlKem512, MlKem768, MlKem1024);

#[inline(never)]
pub(crate) fn bench<K: Deterministic>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
) where
    K::DecapsulationKey: Decapsulate,
{
    let mut rng = crate::seeded_rng(algorithm);

    // Self-test on the known answers' keys and ciphertext (see `kat`),
    // which the timed encapsulation and decapsulation then use.
    let (dk, ek) = K::from_seed(kat::KEM_SEED);
    let (mut ct, shared) = K::encapsulate(&ek, kat::KEM_M);
    if let Err(failure) = self_test::<K>(algorithm, &dk, &ek, &mut ct, &shared) {
        return session.failed(algorithm, failure);
    }

    session.time(algorithm, Operation::Keygen, KeyFormat::Decoded, || K::generate_keypair_from_rng(&mut rng));
    session.time(algorithm, Operation::Encaps, KeyFormat::Decoded, || ek.encapsulate_with_rng(&mut rng));
    session.time(algorithm, Operation::Decaps, KeyFormat::Decoded, || dk.decapsulate(&ct));
}

/// The round trip first: the shared secret survives decapsulation, and a
/// tampered ciphertext gives another key (implicit rejection). Then the
/// known answers, which catch what agrees with itself but is wrong.
///
/// The ciphertext is tampered with in place and restored, rather than
/// copied: a copy (up to 1,568 bytes) would sit on the stack under the
/// decapsulation, deeper than any timed operation goes (measured on the
/// emulated board, as `cargo xtask needs` measures).
#[inline(never)]
pub(crate) fn self_test<K: Deterministic>(
    algorithm: Algorithm,
    dk: &K::DecapsulationKey,
    ek: &K::EncapsulationKey,
    ct: &mut Ciphertext<K>,
    shared: &SharedKey<K>,
) -> Verdict
where
    K::DecapsulationKey: Decapsulate,
{
    ct[0] ^= 1;
    let rejected = dk.decapsulate(ct);
    ct[0] ^= 1;
    check(dk.decapsulate(ct) == *shared && rejected != *shared, Failure::RoundTrip)?;
    let answers = kat::kem(algorithm).ok_or(Failure::KnownAnswer)?;
    check(
        encapsulation_key_matches::<K>(algorithm, ek, &answers.ek)
            && K::decapsulation_key_matches(algorithm, dk, &answers.dk)
            && kat::matches(algorithm, ct, &answers.ct)
            && kat::matches(algorithm, shared, &answers.ss)
            && kat::matches(algorithm, &rejected, &answers.rejected),
        Failure::KnownAnswer,
    )
}

/// Whether ek's encoding has the known digest. Not inlined: the encoding
/// (up to 1,568 bytes) takes stack only while this runs.
#[inline(never)]
fn encapsulation_key_matches<K: Kem>(
    algorithm: Algorithm,
    ek: &K::EncapsulationKey,
    expected: &[u8; 32],
) -> bool {
    kat::matches(algorithm, &ek.to_bytes(), expected)
}
