//! The wrappers around the C, natively; the known answers are checked by
//! the suite (`pqbench-suite`'s `kat`), against the same digests as the
//! other implementations.

extern crate std;

use super::*;

/// A counting generator: each byte it gives is one more than the last.
fn counting(start: u8) -> impl FnMut(&mut [u8]) {
    let mut next = start;
    move |buffer: &mut [u8]| {
        for byte in buffer {
            *byte = next;
            next = next.wrapping_add(1);
        }
    }
}

fn kem_round_trip<K: Kem>() {
    let mut fill = counting(1);
    let (pk, sk) = K::keypair(&mut Random::new(&mut fill));
    let (mut ct, ss) = K::encapsulate(&pk, &mut Random::new(&mut fill));
    assert_eq!(K::decapsulate(&sk, &ct), ss);
    ct.as_mut()[0] ^= 1;
    assert_ne!(K::decapsulate(&sk, &ct), ss, "implicit rejection gives another key");

    // The randomness is what the generator gave: the same seed drawn as
    // d || z gives the same keys as keypair_derand on it.
    let mut seed = [0; 64];
    counting(1)(&mut seed);
    let (derand_pk, derand_sk) = K::keypair_derand(&seed);
    assert_eq!(derand_pk.as_ref(), pk.as_ref());
    assert_eq!(derand_sk.as_ref(), sk.as_ref());
    let (other, _) = K::keypair(&mut Random::new(&mut counting(2)));
    assert_ne!(other.as_ref(), pk.as_ref());
}

#[test]
fn ml_kem_round_trips_at_every_parameter_set() {
    kem_round_trip::<MlKem512>();
    kem_round_trip::<MlKem768>();
    kem_round_trip::<MlKem1024>();
}

fn dsa_round_trip<D: Dsa>() {
    let (pk, sk) = D::keypair(&mut Random::new(&mut counting(7)));
    let message = b"a message";
    let signature = D::sign(&sk, message, b"ctx", &mut Random::new(&mut counting(9))).unwrap();
    assert!(D::verify(&pk, message, b"ctx", &signature));
    assert!(!D::verify(&pk, message, b"other", &signature));
    assert!(!D::verify(&pk, b"another", b"ctx", &signature));
    // Deterministic with a fixed rnd, hedged otherwise.
    let zeros = |buffer: &mut [u8]| buffer.fill(0);
    let first = D::sign(&sk, message, b"", &mut Random::new(&mut { zeros })).unwrap();
    let second = D::sign(&sk, message, b"", &mut Random::new(&mut { zeros })).unwrap();
    let hedged = D::sign(&sk, message, b"", &mut Random::new(&mut counting(3))).unwrap();
    assert_eq!(first.as_ref(), second.as_ref());
    assert_ne!(first.as_ref(), hedged.as_ref());
    assert_eq!(
        D::sign(&sk, message, &[0; 256], &mut Random::new(&mut { zeros })).err(),
        Some(Error::ContextTooLong)
    );
}

#[test]
fn ml_dsa_round_trips_at_every_parameter_set() {
    dsa_round_trip::<MlDsa44>();
    dsa_round_trip::<MlDsa65>();
    dsa_round_trip::<MlDsa87>();
}

#[test]
fn threads_each_get_their_own_generator() {
    let threads: std::vec::Vec<_> = (0..4u8)
        .map(|start| {
            std::thread::spawn(move || {
                (0..20)
                    .map(|_| MlKem512::keypair(&mut Random::new(&mut counting(start))).0)
                    .collect::<std::vec::Vec<_>>()
            })
        })
        .collect();
    for (start, thread) in threads.into_iter().enumerate() {
        let keys = thread.join().unwrap();
        let mut seed = [0; 64];
        counting(start as u8)(&mut seed);
        let (expected, _) = MlKem512::keypair_derand(&seed);
        assert!(keys.iter().all(|key| key == &expected));
    }
}
