//! What a result's key format says, in the words a table shows: a short
//! label beside the operation, and what it means for the figures on hover.

use pqbench_types::KeyFormat;

/// The label beside an operation's name.
pub const fn label(keys: KeyFormat) -> &'static str {
    match keys {
        KeyFormat::Seed => "seed key",
        KeyFormat::Encoded => "encoded keys",
        KeyFormat::Decoded => "decoded keys",
        KeyFormat::Opaque => "key handle",
    }
}

/// What the time holds, given this form of key: the reader's question when
/// two implementations' figures differ.
pub const fn meaning(keys: KeyFormat) -> &'static str {
    match keys {
        KeyFormat::Seed => {
            "Timed from the private key's seed (FIPS 203's d||z, FIPS 204's xi, RFC 8032's 32 bytes): \
             each call expands it, and its time holds that."
        }
        KeyFormat::Encoded => {
            "Timed from the standard's encoded key bytes (FIPS 203's ek and dk, FIPS 204's pk and sk): \
             each call decodes them (for ML-KEM and ML-DSA, expands the matrix A), and its time holds that. \
             For keygen: the keys are given back encoded."
        }
        KeyFormat::Decoded => {
            "Timed from the library's in-memory key, decoded and its tables (A, NTT forms, a key schedule) \
             computed before the clock started: quicker than from encoded bytes by that work. \
             For keygen: the keys are given back in that form, their encoding not timed."
        }
        KeyFormat::Opaque => {
            "Timed from a platform's key handle (WebCrypto's CryptoKey), whose form the platform does not say."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_format_has_its_label_and_meaning() {
        for &keys in KeyFormat::ALL {
            assert!(label(keys).contains("key"), "{keys}");
            assert!(meaning(keys).starts_with("Timed from"), "{keys}");
        }
    }
}
