//! Picks the board's memory map, links the image with its GNU build-id in
//! flash, adds defmt's linker script when records go out as defmt frames,
//! and writes down what this build is so the firmware can say it in its
//! `hello` record.

use std::env;
use std::fs;
use std::path::PathBuf;

use pqbench_boards::{BOARDS, Transport};

/// Puts the build-id note in flash, after `.rodata`, between two symbols the
/// firmware reads it through. Without a place in the script the linker would
/// put the note where it likes, outside any region the image loads.
/// `.data`'s load address follows it, as the FLASH region's next free byte.
const BUILD_ID_SCRIPT: &str = "\
SECTIONS
{
  .note.gnu.build-id : ALIGN(4)
  {
    __build_id_note_start = .;
    KEEP(*(.note.gnu.build-id));
    __build_id_note_end = .;
  } > FLASH
}
INSERT AFTER .rodata;
";

fn enabled(features: impl IntoIterator<Item = &'static str>) -> Vec<&'static str> {
    features
        .into_iter()
        .filter(|f| env::var_os(format!("CARGO_FEATURE_{}", f.to_uppercase().replace('-', "_"))).is_some())
        .collect()
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    // The boards are the catalogue's (crates/boards), as xtask builds them.
    let names: Vec<&str> = BOARDS.iter().map(|b| b.firmware).collect();
    let boards = enabled(names.iter().copied());
    let [board] = boards.as_slice() else {
        panic!("enable exactly one board feature of {names:?}, got {boards:?}");
    };
    let memory = manifest.join("memory").join(format!("{board}.x"));
    fs::copy(&memory, out.join("memory.x")).expect("the board's memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={}", memory.display());

    // The host matches this id against the ELF it decodes defmt frames
    // with, and the firmware sends it in `hello` on every transport.
    fs::write(out.join("build-id.x"), BUILD_ID_SCRIPT).expect("writing the build-id linker script");
    println!("cargo:rustc-link-arg=--build-id=sha1");
    println!("cargo:rustc-link-arg=-Tbuild-id.x");

    let defmt_transports =
        [Transport::DefmtRtt, Transport::DefmtSerial].map(Transport::feature).into_iter().flatten();
    let transports = enabled(defmt_transports);
    match transports.as_slice() {
        [] => {}
        [_] => {
            println!("cargo:rustc-link-arg=-Tdefmt.x");
            // Below its level defmt compiles messages out, and every record is
            // an info message: without it the image would say nothing.
            println!("cargo:rerun-if-env-changed=DEFMT_LOG");
            if env::var_os("DEFMT_LOG").is_none() {
                panic!("a defmt build needs DEFMT_LOG=info (cargo xtask build sets it)");
            }
        }
        _ => panic!("enable at most one defmt transport, got {transports:?}"),
    }

    pqbench_build_info::emit();
}
