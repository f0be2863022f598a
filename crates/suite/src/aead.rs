//! Authenticated encryption: AES-GCM (aes-gcm) and ChaCha20-Poly1305
//! (chacha20poly1305), both on the `aead` crate's traits.

use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::aead::{self, AeadInOut, Key, KeyInit, Nonce, Tag};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::Rng;

use crate::THROUGHPUT_BYTES;
use crate::hex;
use crate::measure::{Platform, Reporter, Session};

/// Associated data of every timed call: a TLS 1.2 record header's 13
/// bytes, the size wolfCrypt's benchmark authenticates.
const ASSOCIATED: [u8; 13] = [0x17, 0x03, 0x03, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0];

/// A published test vector.
pub(crate) struct Kat {
    /// The form the cipher keeps its key in between calls.
    keys: KeyFormat,
    key: &'static [u8],
    nonce: &'static [u8],
    associated: &'static [u8],
    plaintext: &'static [u8],
    ciphertext: &'static [u8],
    tag: &'static [u8],
}

/// McGrew and Viega, "The Galois/Counter Mode of Operation", Test Case 4
/// (the NIST GCM submission's vectors): 60 bytes with 20 bytes of
/// associated data.
// aes-gcm keeps AES's round keys and GHASH's key, computed once in `new`.
pub(crate) const AES_128_GCM: Kat = Kat {
    keys: KeyFormat::Decoded,
    key: &hex::<16>("feffe9928665731c6d6a8f9467308308"),
    nonce: &GCM_NONCE,
    associated: &GCM_ASSOCIATED,
    plaintext: &GCM_PLAINTEXT,
    ciphertext: &hex::<60>(concat!(
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e",
        "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
    )),
    tag: &hex::<16>("5bc94fbc3221a5db94fae95ae7121a47"),
};

/// The same paper's Test Case 16: Test Case 4's inputs under a 256-bit key.
pub(crate) const AES_256_GCM: Kat = Kat {
    keys: KeyFormat::Decoded,
    key: &hex::<32>("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"),
    nonce: &GCM_NONCE,
    associated: &GCM_ASSOCIATED,
    plaintext: &GCM_PLAINTEXT,
    ciphertext: &hex::<60>(concat!(
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa",
        "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
    )),
    tag: &hex::<16>("76fc6ece0f4e1768cddf8853bb2d551b"),
};

const GCM_NONCE: [u8; 12] = hex("cafebabefacedbaddecaf888");
const GCM_ASSOCIATED: [u8; 20] = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
const GCM_PLAINTEXT: [u8; 60] = hex(concat!(
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72",
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
));

/// RFC 8439 §2.8.2.
// ChaCha20 has no key schedule: the cipher keeps the key's bytes, and every
// call derives Poly1305's key from them.
pub(crate) const CHACHA20_POLY1305: Kat = Kat {
    keys: KeyFormat::Encoded,
    key: &hex::<32>("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"),
    nonce: &hex::<12>("070000004041424344454647"),
    associated: &hex::<12>("50515253c0c1c2c3c4c5c6c7"),
    plaintext: b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip \
                 for the future, sunscreen would be it.",
    ciphertext: &hex::<114>(concat!(
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6",
        "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36",
        "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc",
        "3ff4def08e4b7a9de576d26586cec64b6116",
    )),
    tag: &hex::<16>("1ae10b594f09e26a7e902ecbd0600691"),
};

#[inline(never)]
pub(crate) fn bench<A: AeadInOut + KeyInit>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    kat: &Kat,
) {
    let mut rng = crate::seeded_rng(algorithm);
    let mut key = Key::<A>::default();
    rng.fill_bytes(&mut key);
    let cipher = A::new(&key);
    // One nonce for every call: unsafe for real traffic, but the cost of a
    // call does not depend on it and a benchmark sends nothing.
    let mut nonce = Nonce::<A>::default();
    rng.fill_bytes(&mut nonce);
    let mut plaintext = [0u8; THROUGHPUT_BYTES];
    rng.fill_bytes(&mut plaintext);
    let mut sealed = [0u8; THROUGHPUT_BYTES];

    if let Err(failure) = self_test::<A>(algorithm, kat) {
        return session.failed(algorithm, failure);
    }
    let Ok(tag) = seal(&cipher, &nonce, &ASSOCIATED, &plaintext, &mut sealed) else {
        return session.failed(algorithm, Failure::RoundTrip);
    };

    // Separate input and output buffers, so that every call sees the same
    // valid input: decrypting in place would break the tag after one call,
    // and a rejected tag skips the decryption.
    let bytes = THROUGHPUT_BYTES as u32;
    let mut output = [0u8; THROUGHPUT_BYTES];
    session.throughput(algorithm, Operation::Encrypt, Some(kat.keys), bytes, || {
        seal(&cipher, &nonce, &ASSOCIATED, &plaintext, &mut output)
    });
    session.throughput(algorithm, Operation::Decrypt, Some(kat.keys), bytes, || {
        open(&cipher, &nonce, &ASSOCIATED, &sealed, &tag, &mut output)
    });
}

/// The vector encrypts to its ciphertext and tag and decrypts back, and a
/// ciphertext with one bit flipped is rejected.
pub(crate) fn self_test<A: AeadInOut + KeyInit>(algorithm: Algorithm, kat: &Kat) -> crate::Verdict {
    // A vector the cipher cannot take is one it cannot reproduce.
    let (Ok(cipher), Ok(nonce), Ok(tag)) =
        (A::new_from_slice(kat.key), Nonce::<A>::try_from(kat.nonce), Tag::<A>::try_from(kat.tag))
    else {
        return Err(Failure::KnownAnswer);
    };
    // Room for the longest vector above.
    let mut buffer = [0u8; 128];
    let out = buffer.get_mut(..kat.plaintext.len()).ok_or(Failure::KnownAnswer)?;

    let encrypts = match seal(&cipher, &nonce, kat.associated, kat.plaintext, out) {
        Ok(sealed_tag) => {
            crate::known_answer(algorithm, out, kat.ciphertext)
                && crate::known_answer(algorithm, &sealed_tag, kat.tag)
        }
        Err(_) => false,
    };
    let decrypts = open(&cipher, &nonce, kat.associated, kat.ciphertext, &tag, out).is_ok()
        && crate::known_answer(algorithm, out, kat.plaintext);

    crate::check(encrypts && decrypts, Failure::KnownAnswer)?;

    let mut tampered = [0u8; 128];
    let tampered = tampered.get_mut(..kat.ciphertext.len()).ok_or(Failure::KnownAnswer)?;
    tampered.copy_from_slice(kat.ciphertext);
    tampered[0] ^= 1;
    let rejects = open(&cipher, &nonce, kat.associated, tampered, &tag, out).is_err();
    crate::check(rejects, Failure::RoundTrip)
}

/// Encrypts `input` into `output` (same length), returning the tag.
fn seal<A: AeadInOut>(
    cipher: &A,
    nonce: &Nonce<A>,
    associated: &[u8],
    input: &[u8],
    output: &mut [u8],
) -> Result<Tag<A>, aead::Error> {
    let buffer = InOutBuf::new(input, output).map_err(|_| aead::Error)?;
    cipher.encrypt_inout_detached(nonce, associated, buffer)
}

/// Decrypts `input` into `output` (same length) if `tag` authenticates it.
fn open<A: AeadInOut>(
    cipher: &A,
    nonce: &Nonce<A>,
    associated: &[u8],
    input: &[u8],
    tag: &Tag<A>,
    output: &mut [u8],
) -> Result<(), aead::Error> {
    let buffer = InOutBuf::new(input, output).map_err(|_| aead::Error)?;
    cipher.decrypt_inout_detached(nonce, associated, buffer, tag)
}
