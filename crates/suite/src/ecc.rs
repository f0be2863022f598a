//! Elliptic-curve signatures and key agreement: ECDSA and ECDH on P-256
//! (p256), X25519 (x25519-dalek), Ed25519 (ed25519-dalek).

// One `signature` crate (3.x) under all three: its traits serve every key here.
use p256::ecdsa::signature::{RandomizedSigner, Signer, Verifier};
use p256::elliptic_curve::Generate;
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::Rng;

use crate::measure::{Platform, Reporter, Session};

#[inline(never)]
pub(crate) fn ecdsa_p256(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    use p256::ecdsa::{Signature, SigningKey};

    let mut rng = crate::seeded_rng(algorithm);
    let signer = SigningKey::generate_from_rng(&mut rng);
    let verifier = *signer.verifying_key();
    let mut message = [0u8; 32];
    rng.fill_bytes(&mut message);

    // Self-test: a signature verifies and a tampered message does not.
    let signature = match RandomizedSigner::<Signature>::try_sign_with_rng(&signer, &mut rng, &message) {
        Ok(signature) if crate::verifies_only(&verifier, &message, &signature) => signature,
        _ => return session.failed(algorithm, Failure::RoundTrip),
    };

    // Hedged nonces (RFC 6979 with fresh randomness mixed in), the crate's
    // randomized signer: what a signer with an RNG uses, at the cost of
    // deterministic signing plus 32 random bytes.
    // p256's keys hold their scalar and point decoded.
    session.time(algorithm, Operation::Sign, KeyFormat::Decoded, || {
        RandomizedSigner::<Signature>::try_sign_with_rng(&signer, &mut rng, &message)
    });
    session.time(algorithm, Operation::Verify, KeyFormat::Decoded, || verifier.verify(&message, &signature));
}

#[inline(never)]
pub(crate) fn ecdh_p256(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    use p256::ecdh::EphemeralSecret;

    let mut rng = crate::seeded_rng(algorithm);
    let ours = EphemeralSecret::generate_from_rng(&mut rng);
    let theirs = EphemeralSecret::generate_from_rng(&mut rng);
    let their_public = theirs.public_key();

    // Self-test: both sides arrive at the same secret.
    let ours_agreed = ours.diffie_hellman(&their_public);
    let theirs_agreed = theirs.diffie_hellman(&ours.public_key());
    if ours_agreed.raw_secret_bytes() != theirs_agreed.raw_secret_bytes() {
        return session.failed(algorithm, Failure::RoundTrip);
    }

    // A key pair is the secret scalar and its public point, as wolfCrypt's
    // "ECC keygen" makes them.
    session.time(algorithm, Operation::Keygen, KeyFormat::Decoded, || {
        let secret = EphemeralSecret::generate_from_rng(&mut rng);
        let public = secret.public_key();
        (secret, public)
    });
    session.time(algorithm, Operation::Agree, KeyFormat::Decoded, || ours.diffie_hellman(&their_public));
}

/// RFC 7748 §6.1: Alice's and Bob's key pairs and their shared secret.
mod rfc7748 {
    use crate::hex;

    pub const ALICE_SECRET: [u8; 32] =
        hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    pub const ALICE_PUBLIC: [u8; 32] =
        hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    pub const BOB_SECRET: [u8; 32] = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    pub const BOB_PUBLIC: [u8; 32] = hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    pub const SHARED: [u8; 32] = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
}

#[inline(never)]
pub(crate) fn x25519(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    use x25519_dalek::{PublicKey, StaticSecret};

    if !x25519_self_test(algorithm) {
        return session.failed(algorithm, Failure::KnownAnswer);
    }

    let mut rng = crate::seeded_rng(algorithm);
    // A reusable secret: the ephemeral kind is consumed by one agreement
    // and could not be timed repeatedly.
    let ours = StaticSecret::random_from_rng(&mut rng);
    let their_public = PublicKey::from(&StaticSecret::random_from_rng(&mut rng));

    // X25519's keys are their RFC 7748 bytes, which every call decodes.
    session.time(algorithm, Operation::Keygen, KeyFormat::Encoded, || {
        let secret = StaticSecret::random_from_rng(&mut rng);
        let public = PublicKey::from(&secret);
        (secret, public)
    });
    session.time(algorithm, Operation::Agree, KeyFormat::Encoded, || ours.diffie_hellman(&their_public));
}

fn x25519_self_test(algorithm: Algorithm) -> bool {
    use rfc7748::*;
    use x25519_dalek::{PublicKey, StaticSecret};

    let alice = StaticSecret::from(ALICE_SECRET);
    let bob = StaticSecret::from(BOB_SECRET);
    let alice_public = PublicKey::from(&alice);
    let bob_public = PublicKey::from(&bob);
    crate::known_answer(algorithm, alice_public.as_bytes(), &ALICE_PUBLIC)
        && crate::known_answer(algorithm, bob_public.as_bytes(), &BOB_PUBLIC)
        && crate::known_answer(algorithm, alice.diffie_hellman(&bob_public).as_bytes(), &SHARED)
        && crate::known_answer(algorithm, bob.diffie_hellman(&alice_public).as_bytes(), &SHARED)
}

/// RFC 8032 §7.1, TEST 1: the empty message.
mod rfc8032 {
    use crate::hex;

    pub const SECRET: [u8; 32] = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    pub const PUBLIC: [u8; 32] = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    pub const SIGNATURE: [u8; 64] = hex(concat!(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155",
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ));
}

#[inline(never)]
pub(crate) fn ed25519(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    use ed25519_dalek::SigningKey;

    let mut rng = crate::seeded_rng(algorithm);
    let signer = SigningKey::generate(&mut rng);
    let verifier = signer.verifying_key();
    let mut message = [0u8; 32];
    rng.fill_bytes(&mut message);

    if let Err(failure) = ed25519_self_test(algorithm) {
        return session.failed(algorithm, failure);
    }
    let Ok(signature) = signer.try_sign(&message) else {
        return session.failed(algorithm, Failure::RoundTrip);
    };

    // ed25519-dalek's signing key holds RFC 8032's 32-byte seed and hashes
    // it again for every signature; its keys hold the public point decoded.
    session.time(algorithm, Operation::Keygen, KeyFormat::Decoded, || SigningKey::generate(&mut rng));
    session.time(algorithm, Operation::Sign, KeyFormat::Seed, || signer.try_sign(&message));
    session.time(algorithm, Operation::Verify, KeyFormat::Decoded, || verifier.verify(&message, &signature));
}

/// The RFC's key pair and signature, which verifies, and a signature with
/// one bit flipped, which does not.
fn ed25519_self_test(algorithm: Algorithm) -> crate::Verdict {
    use ed25519_dalek::{Signature, SigningKey};
    use rfc8032::*;

    let key = SigningKey::from_bytes(&SECRET);
    let verifier = key.verifying_key();
    let signature = key.try_sign(b"").map_err(|_| Failure::KnownAnswer)?;
    let mut tampered = signature.to_bytes();
    tampered[0] ^= 1;
    crate::check(
        crate::known_answer(algorithm, verifier.as_bytes(), &PUBLIC)
            && crate::known_answer(algorithm, &signature.to_bytes(), &SIGNATURE),
        Failure::KnownAnswer,
    )?;
    crate::check(
        verifier.verify(b"", &signature).is_ok()
            && verifier.verify(b"", &Signature::from_bytes(&tampered)).is_err(),
        Failure::RoundTrip,
    )
}
