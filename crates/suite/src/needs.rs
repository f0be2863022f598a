//! What each operation needs of RAM, measured on the emulated Cortex-M4
//! (qemu-mps2-an386, firmware profile) by `cargo xtask needs`, which writes this
//! file: how deep below the suite's run loop the stack goes by the operation's
//! end (the benchmark's frame, its self-test and the operation's own stack), and
//! its peak heap. Do not edit it by hand; a test fails when it is stale.

/// (algorithm, operation, stack depth bytes, heap bytes), by contract name, with
/// the ML-KEM/ML-DSA implementation this build uses.
#[cfg(feature = "libcrux")]
pub const NEEDS: &[(&str, &str, u32, u32)] = LIBCRUX;
#[cfg(not(feature = "libcrux"))]
pub const NEEDS: &[(&str, &str, u32, u32)] = RUSTCRYPTO;

/// With libcrux's ML-KEM and ML-DSA (the `opt-s` image).
pub const LIBCRUX: &[(&str, &str, u32, u32)] = &[
    ("ML-KEM-512", "keygen", 23004, 0),
    ("ML-KEM-512", "encaps", 23004, 0),
    ("ML-KEM-512", "decaps", 23004, 0),
    ("ML-KEM-768", "keygen", 39828, 0),
    ("ML-KEM-768", "encaps", 39828, 0),
    ("ML-KEM-768", "decaps", 39828, 0),
    ("ML-KEM-1024", "keygen", 56916, 0),
    ("ML-KEM-1024", "encaps", 56916, 0),
    ("ML-KEM-1024", "decaps", 56916, 0),
    ("ML-DSA-44", "keygen", 90892, 0),
    ("ML-DSA-44", "sign", 95796, 0),
    ("ML-DSA-44", "verify", 95796, 0),
    ("ML-DSA-65", "keygen", 131092, 0),
    ("ML-DSA-65", "sign", 137772, 0),
    ("ML-DSA-65", "verify", 137772, 0),
    ("ML-DSA-87", "keygen", 187316, 0),
    ("ML-DSA-87", "sign", 196628, 0),
    ("ML-DSA-87", "verify", 196628, 0),
    ("RSA-2048", "public", 7376, 6144),
    ("RSA-2048", "private", 7432, 6656),
    ("ECDSA-P256", "sign", 6816, 0),
    ("ECDSA-P256", "verify", 6888, 0),
    ("ECDH-P256", "keygen", 3336, 0),
    ("ECDH-P256", "agree", 3456, 0),
    ("X25519", "keygen", 2744, 0),
    ("X25519", "agree", 2864, 0),
    ("Ed25519", "keygen", 7992, 0),
    ("Ed25519", "sign", 7992, 0),
    ("Ed25519", "verify", 8064, 0),
    ("AES-128-GCM", "encrypt", 6536, 0),
    ("AES-128-GCM", "decrypt", 6536, 0),
    ("AES-256-GCM", "encrypt", 7192, 0),
    ("AES-256-GCM", "decrypt", 7192, 0),
    ("ChaCha20-Poly1305", "encrypt", 4700, 0),
    ("ChaCha20-Poly1305", "decrypt", 4700, 0),
    ("SHA-256", "hash", 2160, 0),
    ("SHA-512", "hash", 2840, 0),
    ("SHA3-256", "hash", 2392, 0),
    ("SHAKE128", "hash", 2352, 0),
    ("SHAKE256", "hash", 2512, 0),
];

/// With RustCrypto's `ml-kem` and `ml-dsa` (the `opt-s-rustcrypto` image).
pub const RUSTCRYPTO: &[(&str, &str, u32, u32)] = &[
    ("ML-KEM-512", "keygen", 26864, 3200),
    ("ML-KEM-512", "encaps", 26864, 0),
    ("ML-KEM-512", "decaps", 26880, 0),
    ("ML-KEM-768", "keygen", 39776, 4736),
    ("ML-KEM-768", "encaps", 39776, 0),
    ("ML-KEM-768", "decaps", 39792, 0),
    ("ML-KEM-1024", "keygen", 56712, 6272),
    ("ML-KEM-1024", "encaps", 56712, 0),
    ("ML-KEM-1024", "decaps", 56728, 0),
    ("ML-DSA-44", "keygen", 138788, 65792),
    ("ML-DSA-44", "sign", 138788, 5120),
    ("ML-DSA-44", "verify", 138788, 0),
    ("ML-DSA-65", "keygen", 196468, 108816),
    ("ML-DSA-65", "sign", 196468, 6656),
    ("ML-DSA-65", "verify", 196468, 0),
    ("ML-DSA-87", "keygen", 261300, 178464),
    ("ML-DSA-87", "sign", 261300, 9216),
    ("ML-DSA-87", "verify", 261300, 0),
    ("RSA-2048", "public", 7376, 6144),
    ("RSA-2048", "private", 7424, 6656),
    ("ECDSA-P256", "sign", 6816, 0),
    ("ECDSA-P256", "verify", 6888, 0),
    ("ECDH-P256", "keygen", 3336, 0),
    ("ECDH-P256", "agree", 3456, 0),
    ("X25519", "keygen", 2744, 0),
    ("X25519", "agree", 2864, 0),
    ("Ed25519", "keygen", 7992, 0),
    ("Ed25519", "sign", 7992, 0),
    ("Ed25519", "verify", 8064, 0),
    ("AES-128-GCM", "encrypt", 6536, 0),
    ("AES-128-GCM", "decrypt", 6536, 0),
    ("AES-256-GCM", "encrypt", 7192, 0),
    ("AES-256-GCM", "decrypt", 7192, 0),
    ("ChaCha20-Poly1305", "encrypt", 4700, 0),
    ("ChaCha20-Poly1305", "decrypt", 4700, 0),
    ("SHA-256", "hash", 2160, 0),
    ("SHA-512", "hash", 2840, 0),
    ("SHA3-256", "hash", 2392, 0),
    ("SHAKE128", "hash", 2360, 0),
    ("SHAKE256", "hash", 2512, 0),
];
