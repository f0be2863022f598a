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
