//! Hashes: SHA-2 (sha2), SHA-3 (sha3) and the SHAKE XOFs (shake), with a
//! 32-byte SHAKE output.

use pqbench_types::{Algorithm, Failure, Operation};
use rand_core::Rng;
use sha2::Digest;
use shake::ExtendableOutput;

use crate::THROUGHPUT_BYTES;
use crate::hex;
use crate::measure::{Platform, Reporter, Session};

/// A known answer from the standard's examples.
pub(crate) struct Kat {
    message: &'static [u8],
    digest: &'static [u8],
}

/// FIPS 180-4 examples (NIST's SHA256.pdf, SHA512.pdf): "abc".
pub(crate) const SHA_256: Kat = Kat {
    message: b"abc",
    digest: &hex::<32>("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
};
pub(crate) const SHA_512: Kat = Kat {
    message: b"abc",
    digest: &hex::<64>(concat!(
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a",
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    )),
};
/// FIPS 202 examples (NIST's SHA3-256_Msg0): the empty message. NIST's SHA-3
/// example set has no "abc".
pub(crate) const SHA3_256: Kat = Kat {
    message: b"",
    digest: &hex::<32>("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"),
};
/// FIPS 202 examples (NIST's SHAKE128_Msg0, SHAKE256_Msg0): the empty
/// message, first 32 bytes of output.
pub(crate) const SHAKE128: Kat = Kat {
    message: b"",
    digest: &hex::<32>("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"),
};
pub(crate) const SHAKE256: Kat = Kat {
    message: b"",
    digest: &hex::<32>("46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"),
};

/// A fixed-output hash.
pub(crate) fn digest<D: Digest>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    kat: &Kat,
) {
    bench(algorithm, session, kat, |message| D::digest(message));
}

/// An extendable-output function, read for 32 bytes.
pub(crate) fn xof<X: ExtendableOutput + Default>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    kat: &Kat,
) {
    bench(algorithm, session, kat, |message| {
        let mut digest = [0u8; 32];
        X::digest_xof(message, &mut digest);
        digest
    });
}

#[inline(never)]
fn bench<O: AsRef<[u8]>>(
    algorithm: Algorithm,
    session: &mut Session<'_, impl Platform, impl Reporter>,
    kat: &Kat,
    hash: impl Fn(&[u8]) -> O,
) {
    if !self_test(algorithm, kat, &hash) {
        return session.failed(algorithm, Failure::KnownAnswer);
    }
    let mut message = [0u8; THROUGHPUT_BYTES];
    crate::seeded_rng(algorithm).fill_bytes(&mut message);
    session.throughput(algorithm, Operation::Hash, None, THROUGHPUT_BYTES as u32, || hash(&message));
}

pub(crate) fn self_test<O: AsRef<[u8]>>(algorithm: Algorithm, kat: &Kat, hash: impl Fn(&[u8]) -> O) -> bool {
    crate::known_answer(algorithm, hash(kat.message).as_ref(), kat.digest)
}
