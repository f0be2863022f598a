//! Ids of shared reports.

use pqbench_api::{REPORT_ID_ALPHABET, REPORT_ID_LEN};

/// A new report id: [`REPORT_ID_LEN`] characters of base62, each uniform,
/// from the OS's random generator (about 95 bits): whoever has a report's
/// link can open it, nobody can guess one.
pub fn new_id() -> Result<String, getrandom::Error> {
    // Rejection sampling: 248 = 4 * 62, so a byte below it maps onto the
    // alphabet without bias; the rest (3%) are drawn again.
    const UNBIASED: u8 = (256 / REPORT_ID_ALPHABET.len() * REPORT_ID_ALPHABET.len()) as u8;
    let mut id = String::with_capacity(REPORT_ID_LEN);
    let mut bytes = [0u8; 32];
    while id.len() < REPORT_ID_LEN {
        getrandom::fill(&mut bytes)?;
        for &b in bytes.iter().filter(|&&b| b < UNBIASED) {
            if id.len() == REPORT_ID_LEN {
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
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| pqbench_api::is_report_id(id)), "{ids:?}");
        // Every character of the alphabet turns up in 16,000 draws; a
        // biased or truncated mapping would miss the last ones.
        let seen: std::collections::HashSet<char> = ids.iter().flat_map(|id| id.chars()).collect();
        assert_eq!(seen.len(), 62);
    }
}
