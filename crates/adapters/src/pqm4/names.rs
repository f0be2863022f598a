//! pqm4's scheme names and pqbench's for the same.

use pqbench_types::Algorithm;

use super::error::LineError;

/// pqbench's name for a pqm4 scheme, and a note when pqm4's is an older one.
pub(super) fn scheme_name(scheme: &str) -> Result<(Algorithm, Option<String>), LineError> {
    use Algorithm::*;
    // Round 3 Kyber and Dilithium (pqm4 before FIPS 203/204) are their
    // own algorithms, as in the wolfCrypt reader: their outputs differ from
    // ML-KEM's and ML-DSA's, so a pre-FIPS row never lands under a FIPS name.
    let round3 = |algorithm: Algorithm, what: &str| {
        Ok((algorithm, Some(format!("{what} round 3 ({scheme}, as printed), not {}", fips(algorithm)))))
    };
    match scheme {
        "ml-kem-512" => Ok((MlKem512, None)),
        "ml-kem-768" => Ok((MlKem768, None)),
        "ml-kem-1024" => Ok((MlKem1024, None)),
        "ml-dsa-44" => Ok((MlDsa44, None)),
        "ml-dsa-65" => Ok((MlDsa65, None)),
        "ml-dsa-87" => Ok((MlDsa87, None)),
        "kyber512" => round3(Kyber512, "Kyber"),
        "kyber768" => round3(Kyber768, "Kyber"),
        "kyber1024" => round3(Kyber1024, "Kyber"),
        "dilithium2" => round3(Dilithium2, "Dilithium"),
        "dilithium3" => round3(Dilithium3, "Dilithium"),
        "dilithium5" => round3(Dilithium5, "Dilithium"),
        // Falcon before FN-DSA (FIPS 206, a draft), which pqbench has no
        // name for yet: its rows are Falcon's, never FN-DSA's.
        "falcon-512" => Ok((Falcon512, Some(format!("Falcon ({scheme}, as printed), not FN-DSA")))),
        "falcon-1024" => Ok((Falcon1024, Some(format!("Falcon ({scheme}, as printed), not FN-DSA")))),
        "dilithium4" | "dilithium1" => Err(LineError::RoundTwoDilithium { scheme: scheme.to_string() }),
        _ if scheme.starts_with("kyber") && scheme.ends_with("-90s") => {
            Err(LineError::Kyber90s { scheme: scheme.to_string() })
        }
        // A scheme no standard named lands under pqm4's own spelling of it
        // (pqbench_types' names for imports only), or not at all.
        _ => match Algorithm::from_name(scheme) {
            Ok(algorithm) if is_table_spelling(scheme) => Ok((algorithm, None)),
            _ => Err(LineError::UnknownScheme { scheme: scheme.to_string() }),
        },
    }
}

/// Whether `scheme` is a table's own spelling (pqm4 and pqm3 print lower
/// case, digits and `-`/`_`, and OV's `Ip`), not a name pqbench spells
/// for a standard, such as `X25519`: a row must not land under a name a
/// table never printed.
fn is_table_spelling(scheme: &str) -> bool {
    scheme.starts_with(|c: char| c.is_ascii_lowercase())
        && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The standard a round 3 set became, for a note that says it is not it.
fn fips(algorithm: Algorithm) -> Algorithm {
    use Algorithm::*;
    match algorithm {
        Kyber512 => MlKem512,
        Kyber768 => MlKem768,
        Kyber1024 => MlKem1024,
        Dilithium2 => MlDsa44,
        Dilithium3 => MlDsa65,
        Dilithium5 => MlDsa87,
        other => other,
    }
}
