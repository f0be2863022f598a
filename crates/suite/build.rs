//! Tells the crates that depend on the suite which ML-KEM/ML-DSA
//! implementation it is built with (see `links` in Cargo.toml).

fn main() {
    let pqc = if std::env::var_os("CARGO_FEATURE_LIBCRUX").is_some() { "libcrux" } else { "rustcrypto" };
    println!("cargo::metadata=pqc={pqc}");
}
