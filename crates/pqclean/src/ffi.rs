//! The C functions, by parameter set (their names are PQClean's:
//! `PQCLEAN_<SCHEME>_CLEAN_<function>`).

pub(crate) mod ml_kem_512 {
    unsafe extern "C" {
        #[link_name = "PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair_derand"]
        pub(crate) fn keypair_derand(pk: *mut u8, sk: *mut u8, coins: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair"]
        pub(crate) fn keypair(pk: *mut u8, sk: *mut u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc_derand"]
        pub(crate) fn enc_derand(ct: *mut u8, ss: *mut u8, pk: *const u8, coins: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc"]
        pub(crate) fn enc(ct: *mut u8, ss: *mut u8, pk: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM512_CLEAN_crypto_kem_dec"]
        pub(crate) fn dec(ss: *mut u8, ct: *const u8, sk: *const u8) -> i32;
    }
}

pub(crate) mod ml_kem_768 {
    unsafe extern "C" {
        #[link_name = "PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand"]
        pub(crate) fn keypair_derand(pk: *mut u8, sk: *mut u8, coins: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair"]
        pub(crate) fn keypair(pk: *mut u8, sk: *mut u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand"]
        pub(crate) fn enc_derand(ct: *mut u8, ss: *mut u8, pk: *const u8, coins: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc"]
        pub(crate) fn enc(ct: *mut u8, ss: *mut u8, pk: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec"]
        pub(crate) fn dec(ss: *mut u8, ct: *const u8, sk: *const u8) -> i32;
    }
}

pub(crate) mod ml_kem_1024 {
    unsafe extern "C" {
        #[link_name = "PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair_derand"]
        pub(crate) fn keypair_derand(pk: *mut u8, sk: *mut u8, coins: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair"]
        pub(crate) fn keypair(pk: *mut u8, sk: *mut u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc_derand"]
        pub(crate) fn enc_derand(ct: *mut u8, ss: *mut u8, pk: *const u8, coins: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc"]
        pub(crate) fn enc(ct: *mut u8, ss: *mut u8, pk: *const u8) -> i32;
        #[link_name = "PQCLEAN_MLKEM1024_CLEAN_crypto_kem_dec"]
        pub(crate) fn dec(ss: *mut u8, ct: *const u8, sk: *const u8) -> i32;
    }
}

pub(crate) mod ml_dsa_44 {
    unsafe extern "C" {
        #[link_name = "PQCLEAN_MLDSA44_CLEAN_crypto_sign_keypair"]
        pub(crate) fn keypair(pk: *mut u8, sk: *mut u8) -> i32;
        #[link_name = "PQCLEAN_MLDSA44_CLEAN_crypto_sign_signature_ctx"]
        pub(crate) fn signature_ctx(
            sig: *mut u8,
            siglen: *mut usize,
            m: *const u8,
            mlen: usize,
            ctx: *const u8,
            ctxlen: usize,
            sk: *const u8,
        ) -> i32;
        #[link_name = "PQCLEAN_MLDSA44_CLEAN_crypto_sign_verify_ctx"]
        pub(crate) fn verify_ctx(
            sig: *const u8,
            siglen: usize,
            m: *const u8,
            mlen: usize,
            ctx: *const u8,
            ctxlen: usize,
            pk: *const u8,
        ) -> i32;
    }
}

pub(crate) mod ml_dsa_65 {
    unsafe extern "C" {
        #[link_name = "PQCLEAN_MLDSA65_CLEAN_crypto_sign_keypair"]
        pub(crate) fn keypair(pk: *mut u8, sk: *mut u8) -> i32;
        #[link_name = "PQCLEAN_MLDSA65_CLEAN_crypto_sign_signature_ctx"]
        pub(crate) fn signature_ctx(
            sig: *mut u8,
            siglen: *mut usize,
            m: *const u8,
            mlen: usize,
            ctx: *const u8,
            ctxlen: usize,
            sk: *const u8,
        ) -> i32;
        #[link_name = "PQCLEAN_MLDSA65_CLEAN_crypto_sign_verify_ctx"]
        pub(crate) fn verify_ctx(
            sig: *const u8,
            siglen: usize,
            m: *const u8,
            mlen: usize,
            ctx: *const u8,
            ctxlen: usize,
            pk: *const u8,
        ) -> i32;
    }
}

pub(crate) mod ml_dsa_87 {
    unsafe extern "C" {
        #[link_name = "PQCLEAN_MLDSA87_CLEAN_crypto_sign_keypair"]
        pub(crate) fn keypair(pk: *mut u8, sk: *mut u8) -> i32;
        #[link_name = "PQCLEAN_MLDSA87_CLEAN_crypto_sign_signature_ctx"]
        pub(crate) fn signature_ctx(
            sig: *mut u8,
            siglen: *mut usize,
            m: *const u8,
            mlen: usize,
            ctx: *const u8,
            ctxlen: usize,
            sk: *const u8,
        ) -> i32;
        #[link_name = "PQCLEAN_MLDSA87_CLEAN_crypto_sign_verify_ctx"]
        pub(crate) fn verify_ctx(
            sig: *const u8,
            siglen: usize,
            m: *const u8,
            mlen: usize,
            ctx: *const u8,
            ctxlen: usize,
            pk: *const u8,
        ) -> i32;
    }
}
