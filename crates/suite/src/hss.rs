//! HSS/LMS (RFC 8554, NIST SP 800-208), the stateful hash-based signature
//! that firmware signing uses (CNSA 2.0 requires it or XMSS for code
//! signing), as Fraunhofer AISEC's `hbs-lms` does it over SHA-256.
//!
//! A signer's private key is a state: each signature spends one leaf of the
//! bottom tree, and a leaf signed with twice gives the key away. `hbs-lms`
//! keeps the key in hash-sigs' stored form (the parameters, the count of
//! signatures made and the master seed) and writes the advanced count back
//! into the key before it hands a signature out; the suite never copies a
//! signing key, and times no more signatures than the key has left
//! ([`Session::time_stateful`]), so no leaf is ever used twice.
//!
//! Each signature rebuilds its tree from the seed, as `hbs-lms` 0.1.1
//! does: given auxiliary data (hash-sigs' cache of tree nodes) it rebuilt
//! the tree all the same (a debug test build here signed in 137 ms with it
//! and 131 ms without), so none is kept. That is this implementation's
//! signing cost, about its key generation's. Verification, the cost a boot
//! loader pays, rebuilds nothing: a chain of hashes per level.

use alloc::vec;
use alloc::vec::Vec;

use hbs_lms::{HssParameter, LmotsAlgorithm, LmsAlgorithm, Seed, Sha256_256, SigningKey, VerifyingKey};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::Rng;

use crate::measure::{Platform, Reporter, Session};
use crate::{check, kat};

/// The hash the sets run on: SHA-256 with its whole 32-byte output (RFC
/// 8554's `LMS_SHA256_M32_*` and `LMOTS_SHA256_N32_*`).
type Hash = Sha256_256;

/// One HSS parameter set as the suite runs it: the same LMS tree and LM-OTS
/// Winternitz parameter at each of its levels, as the names say.
pub(crate) struct Set {
    levels: usize,
    tree: LmsAlgorithm,
    winternitz: LmotsAlgorithm,
}

/// `HSS-SHA256-L1-H5-W4`: one 32-leaf tree (LMS alone, as a boot loader
/// checks it), so 32 signatures. With three levels (`HSS-SHA256-L3-H5-W4`),
/// where each signature rebuilds every tree, signing took some 714 million
/// instructions on the mps2-an386 (1.14 billion estimated M4 cycles), past
/// the SysTick's wrap at 671 million it was timed with then, and was read
/// as 42.8 million; the MPS2 boards' clock now outlasts any call
/// (`firmware/src/boards/cmsdk_timer.rs`), and the taller sets are still to
/// be added.
pub(crate) const L1_H5_W4: Set =
    Set { levels: 1, tree: LmsAlgorithm::LmsH5, winternitz: LmotsAlgorithm::LmotsW4 };

impl Set {
    fn parameters(&self) -> Vec<HssParameter<Hash>> {
        vec![HssParameter::new(self.winternitz, self.tree); self.levels]
    }
}

/// A signer: its key. Never cloned: a copy would sign with the same
/// leaves again.
struct Signer {
    key: SigningKey<Hash>,
}

impl Signer {
    /// The key pair of `seed` (hash-sigs' master seed, whence every tree's
    /// SEED and I).
    fn generate(parameters: &[HssParameter<Hash>], seed: [u8; 32]) -> Option<(Signer, VerifyingKey<Hash>)> {
        let (key, verifier) = hbs_lms::keygen::<Hash>(parameters, &Seed::from(seed), None).ok()?;
        Some((Signer { key }, verifier))
    }

    /// Signs with the next leaf; the key is advanced before the signature
    /// is returned, and an exhausted key signs nothing.
    fn sign(&mut self, message: &[u8]) -> Option<hbs_lms::Signature> {
        self.key.try_sign_with_aux(message, None).ok()
    }

    /// The signatures the key has left.
    fn remaining(&self) -> u64 {
        self.key.get_lifetime().unwrap_or(0)
    }
}

#[inline(never)]
pub(crate) fn bench(
    algorithm: Algorithm,
    set: &Set,
    session: &mut Session<'_, impl Platform, impl Reporter>,
) {
    let parameters = set.parameters();
    let (verifier, signature) = match self_test(algorithm, &parameters) {
        Ok(answers) => answers,
        Err(failure) => return session.failed(algorithm, failure),
    };
    let mut rng = crate::seeded_rng(algorithm);
    // A signer of its own, not the known answers' key: its leaves are spent
    // by the timed calls alone, never more of them than it has.
    let Some((mut signer, _)) = Signer::generate(&parameters, random_seed(&mut rng)) else {
        return session.failed(algorithm, Failure::RoundTrip);
    };

    // A key pair from a fresh master seed each call, in the forms a signer
    // stores: hash-sigs' private key (parameters, count, seed) and the
    // public key's bytes.
    session.time(algorithm, Operation::Keygen, KeyFormat::Encoded, || {
        Signer::generate(&parameters, random_seed(&mut rng))
    });
    let remaining = signer.remaining();
    session.time_stateful(algorithm, Operation::Sign, KeyFormat::Encoded, remaining, || {
        signer.sign(kat::DSA_MESSAGE)
    });
    // The public key and signature as a boot loader is handed them: bytes,
    // parsed by each call.
    session.time(algorithm, Operation::Verify, KeyFormat::Encoded, || {
        hbs_lms::verify::<Hash>(kat::DSA_MESSAGE, signature.as_ref(), verifier.as_slice())
    });
}

/// The known answers first: RFC 8554 Appendix F's two signatures verify,
/// and not for their message with one bit flipped; then the key pair of the
/// known master seed and its first signature of the known message, each
/// against pyhsslms's (`kat::hss`), the signature verifying and not for the
/// message flipped, and the key advanced by the signature. Returns the
/// public key and signature the timed verification checks.
pub(crate) fn self_test(
    algorithm: Algorithm,
    parameters: &[HssParameter<Hash>],
) -> Result<(VerifyingKey<Hash>, hbs_lms::Signature), Failure> {
    check(
        kat::RFC_8554_CASES.iter().all(|case| verifies_only(case.public_key, case.message, case.signature)),
        Failure::KnownAnswer,
    )?;
    let answers = kat::hss(algorithm).ok_or(Failure::KnownAnswer)?;
    let (mut signer, verifier) =
        Signer::generate(parameters, kat::keygen_seed(kat::HSS_SEED)).ok_or(Failure::RoundTrip)?;
    let before = signer.remaining();
    let signature = signer.sign(kat::DSA_MESSAGE).ok_or(Failure::RoundTrip)?;
    check(
        signer.remaining() + 1 == before
            && verifies_only(verifier.as_slice(), kat::DSA_MESSAGE, signature.as_ref()),
        Failure::RoundTrip,
    )?;
    check(
        kat::matches(algorithm, verifier.as_slice(), &answers.pk)
            && kat::matches(algorithm, signature.as_ref(), &answers.sig),
        Failure::KnownAnswer,
    )?;
    Ok((verifier, signature))
}

/// Whether `signature` verifies for `message` under `public_key` and not
/// for the message with its first bit flipped. Not inlined: the flipped
/// copy takes stack only while it runs.
#[inline(never)]
fn verifies_only(public_key: &[u8], message: &[u8], signature: &[u8]) -> bool {
    let mut tampered = Vec::from(message);
    if let Some(first) = tampered.first_mut() {
        *first ^= 1;
    }
    hbs_lms::verify::<Hash>(message, signature, public_key).is_ok()
        && hbs_lms::verify::<Hash>(&tampered, signature, public_key).is_err()
}

fn random_seed(rng: &mut impl Rng) -> [u8; 32] {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    seed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_self_test_rejects_a_mismatched_set() {
        assert!(self_test(Algorithm::HssSha256L1H5W4, &L1_H5_W4.parameters()).is_ok());
        // Another set's keys: the round trip holds, the known answers do not.
        let other = Set { levels: 2, tree: LmsAlgorithm::LmsH5, winternitz: LmotsAlgorithm::LmotsW4 };
        assert_eq!(
            self_test(Algorithm::HssSha256L1H5W4, &other.parameters()).err(),
            Some(Failure::KnownAnswer)
        );
    }

    #[test]
    fn a_signer_spends_each_leaf_once_and_stops() {
        let (mut signer, verifier) = Signer::generate(&L1_H5_W4.parameters(), [7; 32]).expect("a key pair");
        let mut signatures = Vec::new();
        for left in (0..32).rev() {
            let signature = signer.sign(kat::DSA_MESSAGE).expect("a leaf left");
            assert_eq!(signer.remaining(), left);
            assert!(
                hbs_lms::verify::<Hash>(kat::DSA_MESSAGE, signature.as_ref(), verifier.as_slice()).is_ok()
            );
            signatures.push(Vec::from(signature.as_ref()));
        }
        assert!(signer.sign(kat::DSA_MESSAGE).is_none(), "an exhausted key signs nothing");
        // Bytes 4..8 of an L1 signature are its leaf q: every one differs.
        let mut leaves: Vec<&[u8]> = signatures.iter().map(|s| &s[4..8]).collect();
        leaves.sort();
        leaves.dedup();
        assert_eq!(leaves.len(), 32);
    }
}
