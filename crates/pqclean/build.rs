//! Compiles the vendored PQClean C (c/) for the target, with pqm4's flags
//! on a Cortex-M so that its cycles compare with pqm4's `clean` rows.

use std::path::Path;

/// The parameter sets, by folder; each is its own library, as their files
/// share names (and `params.h` differs).
const SCHEMES: &[&str] = &["ml-kem-512", "ml-kem-768", "ml-kem-1024", "ml-dsa-44", "ml-dsa-65", "ml-dsa-87"];

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo::rerun-if-changed=c");
    if target.starts_with("wasm32") {
        // cc would need clang with a wasm sysroot, which pqbench does not
        // install; the browser runs libcrux and RustCrypto.
        panic!("pqbench-pqclean: no build for {target} (PQClean's C needs a C compiler for it)");
    }

    let common = Path::new("c/common");
    let base = || {
        let mut build = cc::Build::new();
        build.include(common).warnings(false);
        if target.starts_with("thumb") {
            build.include("c/bare-metal");
        }
        for flag in target_flags(&target) {
            build.flag(flag);
        }
        build
    };

    // The SHAKE states of PQClean's incremental API are on the heap; they
    // go through Rust's allocator (src/lib.rs), so a board's heap figures
    // show them and no libc is needed.
    base()
        .file(common.join("fips202.c"))
        .define("malloc", "pqbench_pqclean_malloc")
        .define("free", "pqbench_pqclean_free")
        .define("exit", "pqbench_pqclean_exit")
        .compile("pqclean_fips202");

    for scheme in SCHEMES {
        let folder = Path::new("c").join(scheme);
        let mut build = base();
        build.include(&folder);
        let mut sources: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|extension| extension == "c"))
            .collect();
        sources.sort();
        build.files(sources).compile(&format!("pqclean_{}", scheme.replace('-', "_")));
    }
    println!("cargo::metadata=flags={}", target_flags(&target).join(" "));
}

/// pqm4's flags for its Cortex-M4 (`-O3 -mcpu=cortex-m4 -mthumb
/// -mfloat-abi=hard -mfpu=fpv4-sp-d16`), their Cortex-M33 counterpart, and
/// -O3 elsewhere. Given after cc's own, so they win over the profile's
/// opt-level, and with `-fomit-frame-pointer`, which -O3 implies but cc's
/// own `-fno-omit-frame-pointer` (for a profile with debug info) would
/// undo: a frame pointer in every small function (PQClean's
/// `montgomery_reduce` is called some 15,000 times an ML-KEM-768 key
/// generation) is code pqm4 does not run.
fn target_flags(target: &str) -> Vec<&'static str> {
    if target.starts_with("thumbv7em") {
        vec![
            "-O3",
            "-fomit-frame-pointer",
            "-mcpu=cortex-m4",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16",
        ]
    } else if target.starts_with("thumbv8m.main") {
        vec![
            "-O3",
            "-fomit-frame-pointer",
            "-mcpu=cortex-m33",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv5-sp-d16",
        ]
    } else {
        vec!["-O3", "-fomit-frame-pointer"]
    }
}
