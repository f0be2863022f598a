//! ML-DSA (FIPS 204): the implementation this build chose, as for `kem`.
//! Each gives `MlDsa44`, `MlDsa65`, `MlDsa87` and one `bench` for all three.

#[cfg(feature = "libcrux")]
mod libcrux;
#[cfg(feature = "libcrux")]
pub(crate) use libcrux::*;

#[cfg(all(feature = "rustcrypto", not(feature = "libcrux")))]
mod rustcrypto;
#[cfg(all(feature = "rustcrypto", not(feature = "libcrux")))]
pub(crate) use rustcrypto::*;
