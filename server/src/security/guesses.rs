//! Wrong tokens, counted per peer address: a peer may be wrong
//! [`BURST`] times at once and then once every [`REFILL`]; past that, a
//! request with a token is answered `429` before its token is even
//! compared, so no number of parallel connections guesses faster.
//!
//! A token bucket rather than a growing delay: a delay answers every guess
//! in time (and a right one at once), so guesses made side by side are not
//! slowed at all; refusing to compare is what bounds them. A client that
//! sends the right token spends nothing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Wrong tokens a peer may send at once: a person mistyping, a script with
/// an old token retrying, a test of every refusal.
pub const BURST: u32 = 32;
/// One more wrong token a peer may send after each of these.
pub const REFILL: Duration = Duration::from_secs(1);
/// Peers kept; past it, those whose buckets are full again are forgotten.
const MAX_PEERS: usize = 4096;

#[derive(Default)]
pub struct Guesses {
    peers: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Clone, Copy)]
struct Bucket {
    /// Guesses left, as of `at`.
    left: f64,
    at: Instant,
}

impl Bucket {
    fn now(self, now: Instant) -> Bucket {
        let refilled = now.saturating_duration_since(self.at).as_secs_f64() / REFILL.as_secs_f64();
        Bucket { left: (self.left + refilled).min(f64::from(BURST)), at: now }
    }
}

/// A guess taken from a peer's bucket: given back if the token was right.
pub struct Guess<'a> {
    guesses: &'a Guesses,
    peer: Option<IpAddr>,
}

impl Guesses {
    /// Takes one guess for `peer` (`None`: a request `listen.rs` did not
    /// take, which is not limited), or says how long until it may guess.
    pub fn take(&self, peer: Option<IpAddr>) -> Result<Guess<'_>, Duration> {
        let Some(ip) = peer else { return Ok(Guess { guesses: self, peer }) };
        let now = Instant::now();
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        if peers.len() >= MAX_PEERS {
            peers.retain(|_, bucket| bucket.now(now).left < f64::from(BURST));
        }
        let full = Bucket { left: f64::from(BURST), at: now };
        let bucket = peers.entry(ip).or_insert(full);
        *bucket = bucket.now(now);
        if bucket.left < 1.0 {
            return Err(REFILL.mul_f64(1.0 - bucket.left));
        }
        bucket.left -= 1.0;
        Ok(Guess { guesses: self, peer })
    }
}

impl Guess<'_> {
    /// The token was right: the guess is given back.
    pub fn was_right(self) {
        let Some(ip) = self.peer else { return };
        let mut peers = self.guesses.peers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bucket) = peers.get_mut(&ip) {
            bucket.left = (bucket.left + 1.0).min(f64::from(BURST));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_guesses_a_burst_then_once_a_second_and_right_tokens_cost_nothing() {
        let guesses = Guesses::default();
        let peer = Some("192.0.2.7".parse().unwrap());
        for _ in 0..100 {
            guesses.take(peer).unwrap().was_right();
        }
        for n in 0..BURST {
            assert!(guesses.take(peer).is_ok(), "guess {n} of the burst");
        }
        let wait = guesses.take(peer).err().expect("the burst is spent");
        assert!(wait > Duration::ZERO && wait <= REFILL, "{wait:?}");
        // Another peer has its own bucket; a request not from `listen.rs`
        // is not limited.
        assert!(guesses.take(Some("192.0.2.8".parse().unwrap())).is_ok());
        assert!(guesses.take(None).is_ok());
        std::thread::sleep(REFILL);
        assert!(guesses.take(peer).is_ok(), "one more after a second");
        assert!(guesses.take(peer).is_err());
    }
}
