//! Tells the crates that depend on the suite which ML-KEM/ML-DSA
//! implementation it is built with (see `links` in Cargo.toml).

fn main() {
    let on = |feature: &str| std::env::var_os(format!("CARGO_FEATURE_{feature}")).is_some();
    // The order `kem.rs` and `dsa.rs` choose in.
    let pqc = if on("LIBCRUX") {
        "libcrux"
    } else if on("RUSTCRYPTO") {
        "rustcrypto"
    } else {
        "pqclean"
    };
    println!("cargo::metadata=pqc={pqc}");
}
