//! The hybrid KEMs: ML-KEM-768 with X25519, as TLS combines them
//! (X25519MLKEM768) and as X-Wing does.
//!
//! Both are built on RustCrypto's `ml-kem` and `x25519-dalek`, whichever
//! ML-KEM the build chose for the plain rows: the `x-wing` crate is built
//! on those two, and X25519MLKEM768 (which no no_std crate offers) is
//! composed here from the same two, so the two hybrids differ only in how
//! they combine the halves, never in whose ML-KEM they run.

use ml_kem::MlKem768;
use ml_kem::kem::{Decapsulate, Encapsulate, Kem, KeyExport};
use pqbench_types::{Algorithm, Failure, KeyFormat, Operation};
use rand_core::CryptoRng;
use x25519_dalek::{PublicKey, StaticSecret};

use crate::measure::{Platform, Reporter, Session};
use crate::{Verdict, check, kat};

type DecapsulationKey = <MlKem768 as Kem>::DecapsulationKey;
type EncapsulationKey = <MlKem768 as Kem>::EncapsulationKey;
type Ciphertext = ml_kem::kem::Ciphertext<MlKem768>;

/// X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem, §3): the client's share is
/// ML-KEM-768's encapsulation key followed by an X25519 public key, the
/// server's the ciphertext followed by its X25519 public key, and the
/// shared secret ML-KEM's 32 bytes followed by X25519's 32 (ML-KEM first,
/// unlike the other hybrids of that draft).
pub(crate) mod tls {
    use super::*;

    /// The client's half: what it keeps between its share and the server's.
    pub(crate) struct Client {
        pub(crate) dk: DecapsulationKey,
        pub(crate) ek: EncapsulationKey,
        pub(crate) x25519: StaticSecret,
        pub(crate) x25519_public: PublicKey,
    }

    pub(crate) struct ServerShare {
        pub(crate) ct: Ciphertext,
        pub(crate) x25519: PublicKey,
    }

    pub(crate) fn client_from(seed: [u8; 64], x25519: [u8; 32]) -> Client {
        let dk = ml_kem::DecapsulationKey::<MlKem768>::from_seed(kat::keygen_seed(seed).into());
        let ek = dk.encapsulation_key().clone();
        let x25519 = StaticSecret::from(x25519);
        let x25519_public = PublicKey::from(&x25519);
        Client { dk, ek, x25519, x25519_public }
    }

    pub(crate) fn generate(rng: &mut impl CryptoRng) -> Client {
        let (dk, ek) = MlKem768::generate_keypair_from_rng(rng);
        let x25519 = StaticSecret::random_from_rng(rng);
        let x25519_public = PublicKey::from(&x25519);
        Client { dk, ek, x25519, x25519_public }
    }

    /// The server's answer to a client share, from ML-KEM's m and its own
    /// X25519 secret.
    pub(crate) fn respond_from(client: &Client, m: [u8; 32], x25519: [u8; 32]) -> (ServerShare, [u8; 64]) {
        let (ct, ss_m) = client.ek.encapsulate_deterministic(&m.into());
        let ours = StaticSecret::from(x25519);
        let x25519 = PublicKey::from(&ours);
        let ss_x = ours.diffie_hellman(&client.x25519_public);
        (ServerShare { ct, x25519 }, joined(&ss_m, ss_x.as_bytes()))
    }

    pub(crate) fn respond(client: &Client, rng: &mut impl CryptoRng) -> (ServerShare, [u8; 64]) {
        let (ct, ss_m) = client.ek.encapsulate_with_rng(rng);
        let ours = StaticSecret::random_from_rng(rng);
        let x25519 = PublicKey::from(&ours);
        let ss_x = ours.diffie_hellman(&client.x25519_public);
        (ServerShare { ct, x25519 }, joined(&ss_m, ss_x.as_bytes()))
    }

    pub(crate) fn finish(client: &Client, server: &ServerShare) -> [u8; 64] {
        let ss_m = client.dk.decapsulate(&server.ct);
        let ss_x = client.x25519.diffie_hellman(&server.x25519);
        joined(&ss_m, ss_x.as_bytes())
    }

    fn joined(ss_m: &[u8], ss_x: &[u8; 32]) -> [u8; 64] {
        let mut secret = [0u8; 64];
        secret[..32].copy_from_slice(ss_m);
        secret[32..].copy_from_slice(ss_x);
        secret
    }

    /// Whether the client's share (ek || X25519 public key, 1,216 bytes)
    /// has the known digest. Not inlined: the share takes stack only here.
    #[inline(never)]
    pub(crate) fn client_share_matches(algorithm: Algorithm, client: &Client, expected: &[u8; 32]) -> bool {
        let mut share = [0u8; 1184 + 32];
        share[..1184].copy_from_slice(&client.ek.to_bytes());
        share[1184..].copy_from_slice(client.x25519_public.as_bytes());
        kat::matches(algorithm, &share, expected)
    }

    /// Whether the server's share (ciphertext || X25519 public key, 1,120
    /// bytes) has the known digest.
    #[inline(never)]
    pub(crate) fn server_share_matches(
        algorithm: Algorithm,
        server: &ServerShare,
        expected: &[u8; 32],
    ) -> bool {
        let mut share = [0u8; 1088 + 32];
        share[..1088].copy_from_slice(&server.ct);
        share[1088..].copy_from_slice(server.x25519.as_bytes());
        kat::matches(algorithm, &share, expected)
    }
}

#[inline(never)]
pub(crate) fn x25519_mlkem768(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    let client = tls::client_from(kat::KEM_SEED, kat::HYBRID_CLIENT_X25519);
    let (mut server, shared) = tls::respond_from(&client, kat::KEM_M, kat::HYBRID_SERVER_X25519);
    if let Err(failure) = tls_self_test(algorithm, &client, &mut server, &shared) {
        return session.failed(algorithm, failure);
    }

    let mut rng = crate::seeded_rng(algorithm);
    // ML-KEM's keys decoded (RustCrypto keeps A expanded); X25519's
    // secret is its bytes, as in the plain X25519 rows.
    session.time(algorithm, Operation::Keygen, KeyFormat::Decoded, || tls::generate(&mut rng));
    session.time(algorithm, Operation::Encaps, KeyFormat::Decoded, || tls::respond(&client, &mut rng));
    session.time(algorithm, Operation::Decaps, KeyFormat::Decoded, || tls::finish(&client, &server));
}

/// The round trip, a tampered ciphertext rejected implicitly (another
/// ML-KEM half, the same X25519 half), then the known answers.
#[inline(never)]
fn tls_self_test(
    algorithm: Algorithm,
    client: &tls::Client,
    server: &mut tls::ServerShare,
    shared: &[u8; 64],
) -> Verdict {
    server.ct[0] ^= 1;
    let rejected = tls::finish(client, server);
    server.ct[0] ^= 1;
    let agreed = tls::finish(client, server);
    check(
        agreed == *shared && rejected[..32] != shared[..32] && rejected[32..] == shared[32..],
        Failure::RoundTrip,
    )?;
    let answers = &kat::X25519MLKEM768;
    check(
        tls::client_share_matches(algorithm, client, &answers.ek)
            && tls::server_share_matches(algorithm, server, &answers.ct)
            && kat::matches(algorithm, shared, &answers.ss)
            && kat::matches(algorithm, &rejected, &answers.rejected),
        Failure::KnownAnswer,
    )
}

#[inline(never)]
pub(crate) fn x_wing(algorithm: Algorithm, session: &mut Session<'_, impl Platform, impl Reporter>) {
    use x_wing::{DecapsulationKey, XWingKem};

    let dk = DecapsulationKey::from(kat::keygen_seed(kat::X_WING_SEED));
    let ek = x_wing::Decapsulator::encapsulation_key(&dk).clone();
    let (mut ct, shared) = ek.encapsulate_deterministic(&kat::X_WING_ESEED.into());
    if let Err(failure) = x_wing_self_test(algorithm, &dk, &ek, &mut ct, &shared) {
        return session.failed(algorithm, failure);
    }

    let mut rng = crate::seeded_rng(algorithm);
    // X-Wing's private key is its 32-byte seed: each decapsulation expands
    // it (SHAKE256, ML-KEM-768's key generation, an X25519 base point
    // multiplication) before it decapsulates, as the draft specifies.
    session.time(algorithm, Operation::Keygen, KeyFormat::Seed, || {
        XWingKem::generate_keypair_from_rng(&mut rng)
    });
    session.time(algorithm, Operation::Encaps, KeyFormat::Decoded, || ek.encapsulate_with_rng(&mut rng));
    session.time(algorithm, Operation::Decaps, KeyFormat::Seed, || dk.decapsulate(&ct));
}

#[inline(never)]
fn x_wing_self_test(
    algorithm: Algorithm,
    dk: &x_wing::DecapsulationKey,
    ek: &x_wing::EncapsulationKey,
    ct: &mut x_wing::Ciphertext,
    shared: &x_wing::SharedKey,
) -> Verdict {
    ct[0] ^= 1;
    let rejected = dk.decapsulate(ct);
    ct[0] ^= 1;
    check(dk.decapsulate(ct) == *shared && rejected != *shared, Failure::RoundTrip)?;
    let answers = &kat::X_WING;
    check(
        x_wing_key_matches(algorithm, ek, &answers.ek)
            && kat::matches(algorithm, ct, &answers.ct)
            && kat::matches(algorithm, shared, &answers.ss)
            && kat::matches(algorithm, &rejected, &answers.rejected),
        Failure::KnownAnswer,
    )
}

/// Whether X-Wing's encapsulation key (1,216 bytes) has the known digest.
#[inline(never)]
fn x_wing_key_matches(algorithm: Algorithm, ek: &x_wing::EncapsulationKey, expected: &[u8; 32]) -> bool {
    kat::matches(algorithm, &ek.to_bytes(), expected)
}
