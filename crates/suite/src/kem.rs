//! ML-KEM (FIPS 203): the implementation this build chose (the crate's
//! `libcrux` or `rustcrypto` feature; libcrux when both are on). Each gives
//! `MlKem512`, `MlKem768`, `MlKem1024` and one `bench` for all three.

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
