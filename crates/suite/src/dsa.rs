//! ML-DSA (FIPS 204): the implementation this build chose, as for `kem`.
//! Each gives `MlDsa44`, `MlDsa65`, `MlDsa87` and one `bench` for all three.

#[cfg(feature = "libcrux")]
pub(crate) mod libcrux;
#[cfg(feature = "libcrux")]
pub(crate) use libcrux::*;

// With both features, a test build has both, to compare them byte for
// byte (`kat::tests`); anything else uses libcrux alone.
#[cfg(all(feature = "rustcrypto", any(not(feature = "libcrux"), test)))]
#[cfg_attr(feature = "libcrux", allow(dead_code))]
pub(crate) mod rustcrypto;
#[cfg(all(feature = "rustcrypto", not(feature = "libcrux")))]
pub(crate) use rustcrypto::*;

// PQClean's C, where neither Rust implementation is chosen; a test build
// with the others checks its known answers too (`kat::tests`).
#[cfg(all(feature = "pqclean", any(not(any(feature = "libcrux", feature = "rustcrypto")), test)))]
#[cfg_attr(any(feature = "libcrux", feature = "rustcrypto"), allow(dead_code, unused_imports))]
pub(crate) mod pqclean;
#[cfg(all(feature = "pqclean", not(any(feature = "libcrux", feature = "rustcrypto"))))]
pub(crate) use pqclean::*;
