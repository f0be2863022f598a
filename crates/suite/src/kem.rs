//! ML-KEM (FIPS 203): the implementation this build chose (the crate's
//! `libcrux` or `rustcrypto` feature; libcrux when both are on). Each gives
//! `MlKem512`, `MlKem768`, `MlKem1024` and one `bench` for all three.

#[cfg(feature = "libcrux")]
mod libcrux;
#[cfg(feature = "libcrux")]
pub(crate) use libcrux::*;

#[cfg(all(feature = "rustcrypto", not(feature = "libcrux")))]
mod rustcrypto;
#[cfg(all(feature = "rustcrypto", not(feature = "libcrux")))]
pub(crate) use rustcrypto::*;
