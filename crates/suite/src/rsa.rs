//! RSA-2048 with PKCS#1 v1.5 encryption, as wolfCrypt's benchmark measures
//! it: `public` is an encryption, `private` a (blinded) decryption.

use ::rsa::pkcs1::DecodeRsaPrivateKey;
use ::rsa::{PrivateKey, PublicKey};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::{CryptoRng, Rng};

use crate::measure::{Platform, Reporter, Session};

/// A fixed key: generating a 2048-bit key takes minutes on a
/// microcontroller, and wolfCrypt's benchmark uses a fixed key too. This is
/// the rsa crate's own test key, `tests/examples/pkcs1/rsa2048-priv.der` in
/// rsa 0.10.0 (PKCS#1 DER, e = 65537).
const KEY_DER: &[u8] = include_bytes!("keys/rsa2048-priv.der");

#[inline(never)]
pub(crate) fn bench(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let mut rng = crate::seeded_rng(algorithm);
    // A session key, the usual payload of RSA key transport.
    let mut message = [0u8; 32];
    rng.fill_bytes(&mut message);

    // Parsing checks the key's own consistency (its primes multiply to its
    // modulus): a failure there is a round trip of the key's parts.
    let Ok(key) = PrivateKey::from_pkcs1_der(KEY_DER) else {
        return session.failed(algorithm, Failure::RoundTrip);
    };
    let public = key.to_public_key();
    let Some(ciphertext) = self_test(&key, &public, &message, &mut rng) else {
        return session.failed(algorithm, Failure::RoundTrip);
    };

    session.time(algorithm, Operation::Public, KeyFormat::Decoded, || {
        public.pkcs1v15_encrypt_with_rng(&mut rng, &message)
    });
    session.time(algorithm, Operation::Private, KeyFormat::Decoded, || {
        key.pkcs1v15_decrypt_with_rng(&mut rng, &ciphertext)
    });
}

/// An encryption that decrypts to the message, when a tampered ciphertext
/// does not. The crate answers a bad padding with a synthetic message
/// (implicit rejection) rather than an error, so "rejected" means "not the
/// message".
pub(crate) fn self_test(
    key: &PrivateKey,
    public: &PublicKey,
    message: &[u8; 32],
    rng: &mut impl CryptoRng,
) -> Option<alloc::vec::Vec<u8>> {
    let ciphertext = public.pkcs1v15_encrypt_with_rng(rng, message).ok()?;
    let mut tampered = ciphertext.clone();
    *tampered.last_mut()? ^= 1;
    let decrypts = key.pkcs1v15_decrypt_with_rng(rng, &ciphertext).ok()?;
    let rejects = key.pkcs1v15_decrypt_with_rng(rng, &tampered).map_or(true, |plain| plain != message);
    (decrypts == message && rejects).then_some(ciphertext)
}
