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
    ("ML-KEM-512", "keygen", 24812, 0),
    ("ML-KEM-512", "encaps", 24812, 0),
    ("ML-KEM-512", "decaps", 24812, 0),
    ("ML-KEM-768", "keygen", 43716, 0),
    ("ML-KEM-768", "encaps", 43716, 0),
    ("ML-KEM-768", "decaps", 43716, 0),
    ("ML-KEM-1024", "keygen", 63724, 0),
    ("ML-KEM-1024", "encaps", 63724, 0),
    ("ML-KEM-1024", "decaps", 63724, 0),
    ("ML-DSA-44", "keygen", 97404, 0),
    ("ML-DSA-44", "sign", 97404, 0),
    ("ML-DSA-44", "verify", 97404, 0),
    ("ML-DSA-65", "keygen", 140996, 0),
    ("ML-DSA-65", "sign", 140996, 0),
    ("ML-DSA-65", "verify", 140996, 0),
    ("ML-DSA-87", "keygen", 199996, 0),
    ("ML-DSA-87", "sign", 199996, 0),
    ("ML-DSA-87", "verify", 199996, 0),
    ("RSA-2048", "public", 7408, 6144),
    ("RSA-2048", "private", 7408, 6656),
    ("ECDSA-P256", "sign", 6856, 0),
    ("ECDSA-P256", "verify", 6856, 0),
    ("ECDH-P256", "keygen", 3416, 0),
    ("ECDH-P256", "agree", 3416, 0),
    ("X25519", "keygen", 2816, 0),
    ("X25519", "agree", 2816, 0),
    ("Ed25519", "keygen", 8040, 0),
    ("Ed25519", "sign", 8040, 0),
    ("Ed25519", "verify", 8040, 0),
    ("AES-128-GCM", "encrypt", 6456, 0),
    ("AES-128-GCM", "decrypt", 6488, 0),
    ("AES-256-GCM", "encrypt", 7096, 0),
    ("AES-256-GCM", "decrypt", 7128, 0),
    ("ChaCha20-Poly1305", "encrypt", 4636, 0),
    ("ChaCha20-Poly1305", "decrypt", 4636, 0),
    ("SHA-256", "hash", 2124, 0),
    ("SHA-512", "hash", 2704, 0),
    ("SHA3-256", "hash", 2380, 0),
    ("SHAKE128", "hash", 2300, 0),
    ("SHAKE256", "hash", 2508, 0),
];

/// With RustCrypto's `ml-kem` and `ml-dsa` (the `opt-s-rustcrypto` image).
pub const RUSTCRYPTO: &[(&str, &str, u32, u32)] = &[
    ("ML-KEM-512", "keygen", 27856, 3200),
    ("ML-KEM-512", "encaps", 27856, 0),
    ("ML-KEM-512", "decaps", 27856, 0),
    ("ML-KEM-768", "keygen", 41088, 4736),
    ("ML-KEM-768", "encaps", 41088, 0),
    ("ML-KEM-768", "decaps", 41088, 0),
    ("ML-KEM-1024", "keygen", 58504, 6272),
    ("ML-KEM-1024", "encaps", 58504, 0),
    ("ML-KEM-1024", "decaps", 58504, 0),
    ("ML-DSA-44", "keygen", 138844, 65792),
    ("ML-DSA-44", "sign", 138844, 5120),
    ("ML-DSA-44", "verify", 138844, 0),
    ("ML-DSA-65", "keygen", 196532, 108816),
    ("ML-DSA-65", "sign", 196532, 6656),
    ("ML-DSA-65", "verify", 196532, 0),
    ("ML-DSA-87", "keygen", 261372, 178464),
    ("ML-DSA-87", "sign", 261372, 9216),
    ("ML-DSA-87", "verify", 261372, 0),
    ("RSA-2048", "public", 7408, 6144),
    ("RSA-2048", "private", 7408, 6656),
    ("ECDSA-P256", "sign", 6856, 0),
    ("ECDSA-P256", "verify", 6856, 0),
    ("ECDH-P256", "keygen", 3416, 0),
    ("ECDH-P256", "agree", 3416, 0),
    ("X25519", "keygen", 2816, 0),
    ("X25519", "agree", 2816, 0),
    ("Ed25519", "keygen", 8040, 0),
    ("Ed25519", "sign", 8040, 0),
    ("Ed25519", "verify", 8040, 0),
    ("AES-128-GCM", "encrypt", 6456, 0),
    ("AES-128-GCM", "decrypt", 6488, 0),
    ("AES-256-GCM", "encrypt", 7096, 0),
    ("AES-256-GCM", "decrypt", 7128, 0),
    ("ChaCha20-Poly1305", "encrypt", 4636, 0),
    ("ChaCha20-Poly1305", "decrypt", 4636, 0),
    ("SHA-256", "hash", 2124, 0),
    ("SHA-512", "hash", 2704, 0),
    ("SHA3-256", "hash", 2380, 0),
    ("SHAKE128", "hash", 2300, 0),
    ("SHAKE256", "hash", 2508, 0),
];
