//! HQC, the code-based KEM NIST selected in 2025 beside ML-KEM, as
//! RustCrypto's `hqc-kem` does it (the 2025-08-22 specification, FIPS
//! 207's draft); generic over the parameter set.
//!
//! HQC's known answers are the HQC team's own: the first vector of each
//! level's official file (`count = 0`), whose randomness is the reference
//! implementation's KAT generator, SHAKE256(seed || 0x00) read in order
//! (the key-generation seed, then encapsulation's m and salt). The same
//! generator here ([`KatRng`]) makes the library read exactly those bytes.

use hqc_kem::{Ciphertext, DecapsulationKey, EncapsulationKey, HqcKem, HqcParams};
pub(crate) use hqc_kem::{Hqc128Params, Hqc192Params, Hqc256Params};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use shake::{ExtendableOutput, Update, XofReader};

use crate::measure::{Platform, Reporter, Session};
use crate::{Verdict, check, kat};

#[inline(never)]
pub(crate) fn bench<P: Level>(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let Some(answers) = kat::hqc(algorithm) else {
        return session.failed(algorithm, Failure::KnownAnswer);
    };
    let mut kat_rng = KatRng::new(&kat::keygen_seed(answers.seed));
    let (ek, dk) = HqcKem::<P>::generate_key(&mut kat_rng);
    let (ct, shared) = ek.encapsulate(&mut kat_rng);
    if let Err(failure) = self_test(algorithm, answers, &ek, &dk, &ct, shared.as_ref()) {
        return session.failed(algorithm, failure);
    }

    let mut rng = crate::seeded_rng(algorithm);
    // The library holds its keys as the specification's bytes: each call
    // expands the vectors it needs (h, and y or the error vectors) from the
    // seeds in them, as the reference does.
    session.time(algorithm, Operation::Keygen, KeyFormat::Encoded, || HqcKem::<P>::generate_key(&mut rng));
    session.time(algorithm, Operation::Encaps, KeyFormat::Encoded, || ek.encapsulate(&mut rng));
    session.time(algorithm, Operation::Decaps, KeyFormat::Encoded, || dk.decapsulate(&ct));
}

/// The round trip and a tampered ciphertext rejected (another secret), then
/// the known answers: both keys, the ciphertext and the secret. (The
/// official vectors hold no implicit-rejection secret, and no second
/// implementation of this revision is at hand to derive one: see
/// `kat::HqcAnswers`.)
#[inline(never)]
fn self_test<P: Level>(
    algorithm: Algorithm,
    answers: &kat::HqcAnswers,
    ek: &EncapsulationKey<P>,
    dk: &DecapsulationKey<P>,
    ct: &Ciphertext<P>,
    shared: &[u8],
) -> Verdict {
    let rejected = rejected_secret(dk, ct).ok_or(Failure::RoundTrip)?;
    check(dk.decapsulate(ct).as_ref() == shared && rejected != shared, Failure::RoundTrip)?;
    check(
        kat::matches(algorithm, ek.as_ref(), &answers.pk)
            && kat::matches(algorithm, dk.as_ref(), &answers.sk)
            && kat::matches(algorithm, ct.as_ref(), &answers.ct)
            && kat::matches(algorithm, shared, &answers.ss),
        Failure::KnownAnswer,
    )
}

/// Decapsulation of `ct` with its first bit flipped.
#[inline(never)]
fn rejected_secret<P: Level>(dk: &DecapsulationKey<P>, ct: &Ciphertext<P>) -> Option<[u8; 32]> {
    let tampered = P::tampered(ct)?;
    dk.decapsulate(&tampered).as_ref().try_into().ok()
}

/// A parameter set, with what the library's API keeps to itself: a
/// ciphertext's bytes can be read but not changed, and its length is an
/// associated constant no generic array can take.
pub(crate) trait Level: HqcParams + Sized {
    /// `ct` with its first bit flipped (`None` only if the library's
    /// ciphertext were not its own length).
    fn tampered(ct: &Ciphertext<Self>) -> Option<Ciphertext<Self>>;
}

macro_rules! levels {
    ($($params:ty),+) => {$(
        impl Level for $params {
            #[inline(never)]
            fn tampered(ct: &Ciphertext<Self>) -> Option<Ciphertext<Self>> {
                let mut bytes = [0u8; <$params as HqcParams>::CT_BYTES];
                bytes.copy_from_slice(ct.as_ref());
                bytes[0] ^= 1;
                Ciphertext::try_from(&bytes[..]).ok()
            }
        }
    )+};
}
levels!(Hqc128Params, Hqc192Params, Hqc256Params);

/// The HQC reference's KAT generator: SHAKE256 of the 48-byte seed and a
/// domain byte 0x00, read as one stream by every call that takes
/// randomness.
struct KatRng(shake::Shake256Reader);

impl KatRng {
    fn new(seed: &[u8; 48]) -> Self {
        let mut hasher = shake::Shake256::default();
        hasher.update(seed);
        hasher.update(&[0x00]);
        KatRng(hasher.finalize_xof())
    }
}

impl rand_core::TryRng for KatRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut bytes = [0u8; 4];
        self.0.read(&mut bytes);
        Ok(u32::from_le_bytes(bytes))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut bytes = [0u8; 8];
        self.0.read(&mut bytes);
        Ok(u64::from_le_bytes(bytes))
    }

    fn try_fill_bytes(&mut self, destination: &mut [u8]) -> Result<(), Self::Error> {
        self.0.read(destination);
        Ok(())
    }
}

impl rand_core::TryCryptoRng for KatRng {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_self_test_rejects_keys_of_another_seed() {
        let answers = kat::hqc(Algorithm::HqcKem128).expect("HQC-128's answers");
        let mut rng = KatRng::new(&answers.seed);
        let (ek, dk) = HqcKem::<Hqc128Params>::generate_key(&mut rng);
        let (ct, shared) = ek.encapsulate(&mut rng);
        assert_eq!(self_test(Algorithm::HqcKem128, answers, &ek, &dk, &ct, shared.as_ref()), Ok(()));
        // Another seed: the round trip holds, the known answers do not.
        let mut rng = KatRng::new(&[1; 48]);
        let (ek, dk) = HqcKem::<Hqc128Params>::generate_key(&mut rng);
        let (ct, shared) = ek.encapsulate(&mut rng);
        assert_eq!(
            self_test(Algorithm::HqcKem128, answers, &ek, &dk, &ct, shared.as_ref()),
            Err(Failure::KnownAnswer)
        );
    }
}
