//! What nobody may guess: shared reports' ids and agent hosts' tokens,
//! base62 text from the OS's random generator.

use pqbench_api::{REPORT_ID_ALPHABET, REPORT_ID_LEN};

/// The OS's random generator failed (it does not, on a running Linux).
pub type RandomError = getrandom::Error;

/// An agent host's token: 43 characters of base62, about 256 bits.
pub const AGENT_TOKEN_LEN: usize = 43;

/// A new report id: [`REPORT_ID_LEN`] characters of base62 (about 95
/// bits): whoever has a report's link can open it, nobody can guess one.
pub fn new_report_id() -> Result<String, getrandom::Error> {
    random_base62(REPORT_ID_LEN)
}

/// A new agent token (`pqbench agent-token add`).
pub fn new_agent_token() -> Result<String, getrandom::Error> {
    random_base62(AGENT_TOKEN_LEN)
}

/// A dashboard session's id (`POST /api/session`): 43 characters of
/// base62, about 256 bits, as an agent's token.
pub fn new_session_id() -> Result<String, getrandom::Error> {
    random_base62(AGENT_TOKEN_LEN)
}

/// `len` characters of base62, each uniform.
fn random_base62(len: usize) -> Result<String, getrandom::Error> {
    // Rejection sampling: 248 = 4 * 62, so a byte below it maps onto the
    // alphabet without bias; the rest (3%) are drawn again.
    const UNBIASED: u8 = (256 / REPORT_ID_ALPHABET.len() * REPORT_ID_ALPHABET.len()) as u8;
    let mut id = String::with_capacity(len);
    let mut bytes = [0u8; 32];
    while id.len() < len {
        getrandom::fill(&mut bytes)?;
        for &b in bytes.iter().filter(|&&b| b < UNBIASED) {
            if id.len() == len {
                break;
            }
            id.push(char::from(REPORT_ID_ALPHABET[usize::from(b) % REPORT_ID_ALPHABET.len()]));
        }
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_well_formed_and_differ() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_report_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| pqbench_api::is_report_id(id)), "{ids:?}");
        // Every character of the alphabet turns up in 16,000 draws; a
        // biased or truncated mapping would miss the last ones.
        let seen: std::collections::HashSet<char> = ids.iter().flat_map(|id| id.chars()).collect();
        assert_eq!(seen.len(), 62);
        let token = new_agent_token().unwrap();
        assert_eq!(token.len(), AGENT_TOKEN_LEN);
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric()));
    }
}
