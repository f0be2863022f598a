//! PQClean's portable C ML-KEM (FIPS 203) and ML-DSA (FIPS 204), the
//! `clean` code that pqm4's `clean` rows and liboqs build on, behind a small
//! safe API. The C is vendored in `c/` and compiled by `build.rs` with
//! pqm4's flags on a Cortex-M.
//!
//! Randomness: PQClean calls `randombytes()`, which this crate answers from
//! the generator the caller passes to [`Kem::keypair`], [`Kem::encapsulate`],
//! [`Dsa::keypair`] and [`Dsa::sign`], for that call alone. Calls that draw
//! randomness are serialised (a spin lock: one generator slot for the C);
//! on a board there is one thread anyway.

#![no_std]

extern crate alloc;

mod ffi;
mod randomness;

use core::ffi::{c_int, c_void};

pub use randomness::Random;

/// ML-KEM's shared secret, 32 bytes at every parameter set.
pub type SharedSecret = [u8; 32];

/// What PQClean refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// ML-DSA's context string is at most 255 bytes (FIPS 204).
    ContextTooLong,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::ContextTooLong => f.write_str("ML-DSA context longer than 255 bytes"),
        }
    }
}

impl core::error::Error for Error {}

/// An ML-KEM parameter set.
pub trait Kem {
    type PublicKey: AsRef<[u8]> + AsMut<[u8]> + Clone;
    /// FIPS 203's dk: dk_PKE || ek || H(ek) || z.
    type SecretKey: AsRef<[u8]> + AsMut<[u8]> + Clone;
    type Ciphertext: AsRef<[u8]> + AsMut<[u8]> + Clone;

    /// ML-KEM.KeyGen_internal(d, z) from the seed d || z.
    fn keypair_derand(seed: &[u8; 64]) -> (Self::PublicKey, Self::SecretKey);
    /// ML-KEM.KeyGen, its 64 bytes from `random`.
    fn keypair(random: &mut Random<'_>) -> (Self::PublicKey, Self::SecretKey);
    /// ML-KEM.Encaps_internal(ek, m).
    fn encapsulate_derand(pk: &Self::PublicKey, m: &[u8; 32]) -> (Self::Ciphertext, SharedSecret);
    /// ML-KEM.Encaps, m from `random`.
    fn encapsulate(pk: &Self::PublicKey, random: &mut Random<'_>) -> (Self::Ciphertext, SharedSecret);
    /// ML-KEM.Decaps, with implicit rejection.
    fn decapsulate(sk: &Self::SecretKey, ct: &Self::Ciphertext) -> SharedSecret;
}

/// An ML-DSA parameter set.
pub trait Dsa {
    type PublicKey: AsRef<[u8]> + AsMut<[u8]> + Clone;
    type SecretKey: AsRef<[u8]> + AsMut<[u8]> + Clone;
    type Signature: AsRef<[u8]> + AsMut<[u8]> + Clone;

    /// ML-DSA.KeyGen, ξ (32 bytes) from `random`: a source that gives a
    /// fixed ξ makes it KeyGen_internal(ξ).
    fn keypair(random: &mut Random<'_>) -> (Self::PublicKey, Self::SecretKey);
    /// ML-DSA.Sign of M' = 0 || |ctx| || ctx || M, rnd (32 bytes) from
    /// `random`: hedged, or the deterministic variant where it gives zeros.
    fn sign(
        sk: &Self::SecretKey,
        message: &[u8],
        context: &[u8],
        random: &mut Random<'_>,
    ) -> Result<Self::Signature, Error>;
    /// ML-DSA.Verify.
    fn verify(pk: &Self::PublicKey, message: &[u8], context: &[u8], signature: &Self::Signature) -> bool;
}

macro_rules! kem {
    ($name:ident, $module:ident, pk: $pk:literal, sk: $sk:literal, ct: $ct:literal) => {
        /// ML-KEM at this parameter set, as PQClean's `clean` code does it.
        #[derive(Debug, Clone, Copy)]
        pub struct $name;

        impl Kem for $name {
            type PublicKey = [u8; $pk];
            type SecretKey = [u8; $sk];
            type Ciphertext = [u8; $ct];

            fn keypair_derand(seed: &[u8; 64]) -> (Self::PublicKey, Self::SecretKey) {
                let (mut pk, mut sk) = ([0; $pk], [0; $sk]);
                // SAFETY: buffers of the sizes the C's api.h gives.
                unsafe { ffi::$module::keypair_derand(pk.as_mut_ptr(), sk.as_mut_ptr(), seed.as_ptr()) };
                (pk, sk)
            }

            fn keypair(random: &mut Random<'_>) -> (Self::PublicKey, Self::SecretKey) {
                let (mut pk, mut sk) = ([0; $pk], [0; $sk]);
                // SAFETY: as above; the C draws its seed through `randombytes`.
                random.lend(|| unsafe { ffi::$module::keypair(pk.as_mut_ptr(), sk.as_mut_ptr()) });
                (pk, sk)
            }

            fn encapsulate_derand(pk: &Self::PublicKey, m: &[u8; 32]) -> (Self::Ciphertext, SharedSecret) {
                let (mut ct, mut ss) = ([0; $ct], [0; 32]);
                // SAFETY: buffers of the sizes the C's api.h gives.
                unsafe {
                    ffi::$module::enc_derand(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr(), m.as_ptr())
                };
                (ct, ss)
            }

            fn encapsulate(
                pk: &Self::PublicKey,
                random: &mut Random<'_>,
            ) -> (Self::Ciphertext, SharedSecret) {
                let (mut ct, mut ss) = ([0; $ct], [0; 32]);
                // SAFETY: as above; the C draws m through `randombytes`.
                random.lend(|| unsafe { ffi::$module::enc(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) });
                (ct, ss)
            }

            fn decapsulate(sk: &Self::SecretKey, ct: &Self::Ciphertext) -> SharedSecret {
                let mut ss = [0; 32];
                // SAFETY: buffers of the sizes the C's api.h gives.
                unsafe { ffi::$module::dec(ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) };
                ss
            }
        }
    };
}

kem!(MlKem512, ml_kem_512, pk: 800, sk: 1632, ct: 768);
kem!(MlKem768, ml_kem_768, pk: 1184, sk: 2400, ct: 1088);
kem!(MlKem1024, ml_kem_1024, pk: 1568, sk: 3168, ct: 1568);

macro_rules! dsa {
    ($name:ident, $module:ident, pk: $pk:literal, sk: $sk:literal, sig: $sig:literal) => {
        /// ML-DSA at this parameter set, as PQClean's `clean` code does it.
        #[derive(Debug, Clone, Copy)]
        pub struct $name;

        impl Dsa for $name {
            type PublicKey = [u8; $pk];
            type SecretKey = [u8; $sk];
            type Signature = [u8; $sig];

            fn keypair(random: &mut Random<'_>) -> (Self::PublicKey, Self::SecretKey) {
                let (mut pk, mut sk) = ([0; $pk], [0; $sk]);
                // SAFETY: buffers of the sizes the C's api.h gives; ξ comes
                // through `randombytes`.
                random.lend(|| unsafe { ffi::$module::keypair(pk.as_mut_ptr(), sk.as_mut_ptr()) });
                (pk, sk)
            }

            fn sign(
                sk: &Self::SecretKey,
                message: &[u8],
                context: &[u8],
                random: &mut Random<'_>,
            ) -> Result<Self::Signature, Error> {
                if context.len() > 255 {
                    return Err(Error::ContextTooLong);
                }
                let mut signature = [0; $sig];
                let mut length = 0usize;
                // SAFETY: buffers of the sizes the C's api.h gives, the
                // message and context with their lengths; rnd comes through
                // `randombytes`.
                let status = random.lend(|| unsafe {
                    ffi::$module::signature_ctx(
                        signature.as_mut_ptr(),
                        &mut length,
                        message.as_ptr(),
                        message.len(),
                        context.as_ptr(),
                        context.len(),
                        sk.as_ptr(),
                    )
                });
                // The C fails only on a long context, checked above, and
                // always writes a signature of its fixed length.
                debug_assert!(status == 0 && length == $sig);
                Ok(signature)
            }

            fn verify(
                pk: &Self::PublicKey,
                message: &[u8],
                context: &[u8],
                signature: &Self::Signature,
            ) -> bool {
                // SAFETY: as above.
                let status = unsafe {
                    ffi::$module::verify_ctx(
                        signature.as_ptr(),
                        signature.len(),
                        message.as_ptr(),
                        message.len(),
                        context.as_ptr(),
                        context.len(),
                        pk.as_ptr(),
                    )
                };
                status == 0
            }
        }
    };
}

dsa!(MlDsa44, ml_dsa_44, pk: 1312, sk: 2560, sig: 2420);
dsa!(MlDsa65, ml_dsa_65, pk: 1952, sk: 4032, sig: 3309);
dsa!(MlDsa87, ml_dsa_87, pk: 2592, sk: 4896, sig: 4627);

/// The alignment of what the C allocates (its SHAKE states hold u64s), and
/// the size of the header that keeps each allocation's size for `free`.
const HEADER: usize = 8;

/// PQClean's `malloc` (fips202.c is compiled with `-Dmalloc=` this).
#[unsafe(no_mangle)]
extern "C" fn pqbench_pqclean_malloc(size: usize) -> *mut c_void {
    let Some(layout) =
        size.checked_add(HEADER).and_then(|total| core::alloc::Layout::from_size_align(total, HEADER).ok())
    else {
        return core::ptr::null_mut();
    };
    // SAFETY: a layout of non-zero size.
    let base = unsafe { alloc::alloc::alloc(layout) };
    if base.is_null() {
        return base.cast();
    }
    // SAFETY: `base` has room for the header, aligned for a usize.
    unsafe {
        base.cast::<usize>().write(layout.size());
        base.add(HEADER).cast()
    }
}

/// PQClean's `free`, of what `pqbench_pqclean_malloc` gave.
#[unsafe(no_mangle)]
extern "C" fn pqbench_pqclean_free(pointer: *mut c_void) {
    if pointer.is_null() {
        return;
    }
    // SAFETY: `pointer` came from `pqbench_pqclean_malloc`, whose header
    // keeps the layout's size just before it.
    unsafe {
        let base = pointer.cast::<u8>().sub(HEADER);
        let size = base.cast::<usize>().read();
        alloc::alloc::dealloc(base, core::alloc::Layout::from_size_align_unchecked(size, HEADER));
    }
}

/// PQClean's `exit`: fips202.c calls it when a SHAKE state cannot be
/// allocated.
#[unsafe(no_mangle)]
extern "C" fn pqbench_pqclean_exit(code: c_int) -> ! {
    panic!("PQClean stopped (exit {code}): out of heap for a SHAKE state")
}

#[cfg(test)]
mod tests;
