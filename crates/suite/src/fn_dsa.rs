//! FN-DSA (Falcon, FIPS 206 in progress) at FN-DSA-512 and FN-DSA-1024, as
//! Thomas Pornin's `fn-dsa` does it; generic over the degree.
//!
//! FIPS 206 is not published yet: `fn-dsa` 0.4.0 follows its author's
//! reading of the coming draft (an ML-DSA-like hashing of the message with
//! H(pk) and a context, the padded signature form), not round 3 Falcon, so
//! its bytes are neither round 3's nor, perhaps, the final standard's. The
//! known answers pin it to the same author's C code of the same revision
//! (through `py-fn-dsa`), and change when the standard does; the cost of an
//! operation is the arithmetic's, which those changes do not touch.
//!
//! Signing samples with floating point. On thumbv7em and wasm32 the crate
//! emulates IEEE-754 doubles with integers (the M4's FPU is single
//! precision), so every target signs the same bytes from the same seed.

use fn_dsa::{
    CryptoRng, DOMAIN_NONE, HASH_ID_RAW, KeyPairGenerator, KeyPairGenerator512, KeyPairGenerator1024,
    RngCore, RngError, SigningKey, SigningKey512, SigningKey1024, VerifyingKey, VerifyingKey512,
    VerifyingKey1024,
};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};

use crate::measure::{Platform, Reporter, Session};
use crate::{check, kat};

/// One degree: the crate's types for it (each holds buffers for its own
/// degree only, half the RAM of the types that take both) and the sizes
/// of its encodings.
pub(crate) trait Degree {
    const LOGN: u32;
    type Generator: KeyPairGenerator;
    type Signer: SigningKey;
    type Verifier: VerifyingKey;
    type SigningKeyBytes: Bytes;
    type VerifyingKeyBytes: Bytes;
    type SignatureBytes: Bytes;
}

/// A degree's marker type and its `Degree` impl, from its `logn` and the
/// crate's three types for it.
macro_rules! degree {
    ($name:ident, $logn:expr, $generator:ty, $signer:ty, $verifier:ty) => {
        pub(crate) struct $name;

        impl Degree for $name {
            const LOGN: u32 = $logn;
            type Generator = $generator;
            type Signer = $signer;
            type Verifier = $verifier;
            type SigningKeyBytes = [u8; fn_dsa::sign_key_size($logn)];
            type VerifyingKeyBytes = [u8; fn_dsa::vrfy_key_size($logn)];
            type SignatureBytes = [u8; fn_dsa::signature_size($logn)];
        }
    };
}

degree!(FnDsa512, fn_dsa::FN_DSA_LOGN_512, KeyPairGenerator512, SigningKey512, VerifyingKey512);
degree!(FnDsa1024, fn_dsa::FN_DSA_LOGN_1024, KeyPairGenerator1024, SigningKey1024, VerifyingKey1024);

/// A fixed-size encoding, zeroed to begin with.
pub(crate) trait Bytes: AsRef<[u8]> + AsMut<[u8]> {
    fn zeroed() -> Self;
}

impl<const N: usize> Bytes for [u8; N] {
    fn zeroed() -> Self {
        [0; N]
    }
}

/// The keys of one key pair, encoded.
struct KeyPair<D: Degree> {
    signing: D::SigningKeyBytes,
    verifying: D::VerifyingKeyBytes,
}

/// Each operation is timed in a frame of its own (not inlined), so that
/// the key-pair generator's scratch (24 KiB at 512) and the decoded
/// signing key (58 KiB) are never on the stack together: a board that
/// verifies at boot needs only the verifier's.
#[inline(never)]
pub(crate) fn bench<D: Degree>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
) {
    let mut rng = crate::seeded_rng(algorithm);
    let keys = match self_test::<D>(algorithm) {
        Ok(keys) => keys,
        Err(failure) => return session.failed(algorithm, failure),
    };
    time_keygen::<D>(algorithm, session, &mut rng);
    let signature = time_sign::<D>(algorithm, session, &keys, &mut rng);
    time_verify::<D>(algorithm, session, &keys, &signature);
}

/// Keys are given back encoded: the generator writes the standard's bytes.
#[inline(never)]
fn time_keygen<D: Degree>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    rng: &mut impl rand_core::CryptoRng,
) {
    let mut generator = D::Generator::default();
    let mut keys = KeyPair::<D> { signing: Bytes::zeroed(), verifying: Bytes::zeroed() };
    session.time(algorithm, Operation::Keygen, KeyFormat::Encoded, || {
        generator.keygen(D::LOGN, &mut Rng(rng), keys.signing.as_mut(), keys.verifying.as_mut())
    });
}

/// Signing from the decoded key, as a signer keeps it (its basis in FFT
/// form, computed once by `decode`); hedged, 40 fresh bytes a call, as
/// the crate always signs. Gives back the last signature, for `verify`.
#[inline(never)]
fn time_sign<D: Degree>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    keys: &KeyPair<D>,
    rng: &mut impl rand_core::CryptoRng,
) -> D::SignatureBytes {
    let mut signature = D::SignatureBytes::zeroed();
    // The self-test decoded these very bytes. Borrowed where `decode` put
    // it: moving the key (58 KiB at 512, 116 KiB at 1024) out of its
    // Option would copy it to a second place on the stack.
    let mut decoded = D::Signer::decode(keys.signing.as_ref());
    let Some(signer) = decoded.as_mut() else {
        return signature;
    };
    session.time(algorithm, Operation::Sign, KeyFormat::Decoded, || {
        signer.sign(&mut Rng(rng), &DOMAIN_NONE, &HASH_ID_RAW, kat::DSA_MESSAGE, signature.as_mut())
    });
    signature
}

#[inline(never)]
fn time_verify<D: Degree>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    keys: &KeyPair<D>,
    signature: &D::SignatureBytes,
) {
    let Some(verifier) = D::Verifier::decode(keys.verifying.as_ref()) else {
        return;
    };
    session.time(algorithm, Operation::Verify, KeyFormat::Decoded, || {
        verifier.verify(signature.as_ref(), &DOMAIN_NONE, &HASH_ID_RAW, kat::DSA_MESSAGE)
    });
}

/// The key pair of the known seed and its signature of the known message
/// (with the known signing seed, so deterministic): the round trip first
/// (it verifies, and not for the message with one bit flipped), then the
/// known answers of both keys and the signature. Gives back the keys.
#[inline(never)]
fn self_test<D: Degree>(algorithm: Algorithm) -> Result<KeyPair<D>, Failure> {
    let keys = key_pair_from_seed::<D>(kat::keygen_seed(kat::FN_DSA_KEYGEN_SEED));
    let signature = sign_with_seed::<D>(&keys, kat::FN_DSA_SIGN_SEED).ok_or(Failure::RoundTrip)?;
    check(verifies_only::<D>(&keys, &signature), Failure::RoundTrip)?;
    let answers = kat::fn_dsa(algorithm).ok_or(Failure::KnownAnswer)?;
    check(
        kat::matches(algorithm, keys.verifying.as_ref(), &answers.pk)
            && kat::matches(algorithm, keys.signing.as_ref(), &answers.sk)
            && kat::matches(algorithm, signature.as_ref(), &answers.sig),
        Failure::KnownAnswer,
    )?;
    Ok(keys)
}

/// Key generation reads exactly 32 bytes of its generator, and is
/// deterministic from them.
#[inline(never)]
fn key_pair_from_seed<D: Degree>(seed: [u8; 32]) -> KeyPair<D> {
    let mut keys = KeyPair::<D> { signing: Bytes::zeroed(), verifying: Bytes::zeroed() };
    D::Generator::default().keygen(
        D::LOGN,
        &mut Replay(&seed),
        keys.signing.as_mut(),
        keys.verifying.as_mut(),
    );
    keys
}

/// Signing reads exactly 40 bytes of its generator, and is deterministic
/// from them (a retry inside derives its own).
#[inline(never)]
fn sign_with_seed<D: Degree>(keys: &KeyPair<D>, seed: [u8; 40]) -> Option<D::SignatureBytes> {
    let mut signature = D::SignatureBytes::zeroed();
    // Borrowed in its Option, as in `time_sign`: no second copy of the key.
    let mut decoded = D::Signer::decode(keys.signing.as_ref());
    decoded.as_mut()?.sign(
        &mut Replay(&seed),
        &DOMAIN_NONE,
        &HASH_ID_RAW,
        kat::DSA_MESSAGE,
        signature.as_mut(),
    )?;
    Some(signature)
}

#[inline(never)]
fn verifies_only<D: Degree>(keys: &KeyPair<D>, signature: &D::SignatureBytes) -> bool {
    let Some(verifier) = D::Verifier::decode(keys.verifying.as_ref()) else {
        return false;
    };
    let mut tampered = [0u8; kat::DSA_MESSAGE.len()];
    tampered.copy_from_slice(kat::DSA_MESSAGE);
    tampered[0] ^= 1;
    verifier.verify(signature.as_ref(), &DOMAIN_NONE, &HASH_ID_RAW, kat::DSA_MESSAGE)
        && !verifier.verify(signature.as_ref(), &DOMAIN_NONE, &HASH_ID_RAW, &tampered)
}

/// The suite's generator (`rand_core` 0.10) as the generator `fn-dsa`
/// takes (`rand_core` 0.6's traits, which it re-exports).
struct Rng<'a, R>(&'a mut R);

impl<R: rand_core::CryptoRng> RngCore for Rng<'_, R> {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), RngError> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl<R: rand_core::CryptoRng> CryptoRng for Rng<'_, R> {}

/// Fixed bytes as a generator, for the known answers: hands them out in
/// order. Asked for more than it holds, it gives zeros, which can only
/// make the answers wrong, never pass.
struct Replay<'a>(&'a [u8]);

impl RngCore for Replay<'_> {
    fn next_u32(&mut self) -> u32 {
        let mut bytes = [0; 4];
        self.fill_bytes(&mut bytes);
        u32::from_le_bytes(bytes)
    }

    fn next_u64(&mut self) -> u64 {
        let mut bytes = [0; 8];
        self.fill_bytes(&mut bytes);
        u64::from_le_bytes(bytes)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        let (given, rest) = self.0.split_at(dest.len().min(self.0.len()));
        dest[..given.len()].copy_from_slice(given);
        dest[given.len()..].fill(0);
        self.0 = rest;
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), RngError> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoRng for Replay<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_self_test_rejects_a_key_of_another_seed() {
        assert!(self_test::<FnDsa512>(Algorithm::FnDsa512).is_ok());
        // Another seed's key pair: the round trip holds, the known answers
        // do not.
        let other = key_pair_from_seed::<FnDsa512>([1; 32]);
        let signature = sign_with_seed::<FnDsa512>(&other, kat::FN_DSA_SIGN_SEED).unwrap();
        assert!(verifies_only::<FnDsa512>(&other, &signature));
        let answers = kat::fn_dsa(Algorithm::FnDsa512).unwrap();
        assert!(!kat::matches(Algorithm::FnDsa512, other.verifying.as_ref(), &answers.pk));
    }

    #[test]
    fn a_signature_of_the_decoded_key_verifies_and_each_call_signs_anew() {
        let keys = self_test::<FnDsa1024>(Algorithm::FnDsa1024).unwrap();
        let mut rng = crate::seeded_rng(Algorithm::FnDsa1024);
        let mut signer = SigningKey1024::decode(&keys.signing).unwrap();
        let (mut first, mut second) = ([0; 1280], [0; 1280]);
        for signature in [&mut first, &mut second] {
            signer.sign(&mut Rng(&mut rng), &DOMAIN_NONE, &HASH_ID_RAW, kat::DSA_MESSAGE, signature).unwrap();
            assert!(verifies_only::<FnDsa1024>(&keys, signature));
        }
        assert_ne!(first, second, "hedged: 40 fresh bytes each");
    }
}
