//! Picks the board's memory map, and writes down what this build is so the
//! firmware can say it in its `hello` record.

use std::env;
use std::fs;
use std::path::PathBuf;

const BOARDS: &[&str] = &["mps2-an386", "netduinoplus2", "nucleo-f446ze", "nucleo-f439zi", "b-u585i-iot02a"];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let enabled: Vec<&str> = BOARDS
        .iter()
        .copied()
        .filter(|b| env::var_os(format!("CARGO_FEATURE_{}", b.to_uppercase().replace('-', "_"))).is_some())
        .collect();
    let [board] = enabled.as_slice() else {
        panic!("enable exactly one board feature of {BOARDS:?}, got {enabled:?}");
    };
    let memory = manifest.join("memory").join(format!("{board}.x"));
    fs::copy(&memory, out.join("memory.x")).expect("the board's memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={}", memory.display());

    pqbench_build_info::emit();
}
