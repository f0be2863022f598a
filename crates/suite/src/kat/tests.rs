//! The table against the independent implementations and the published
//! vectors it was taken from, and the fault hook.

extern crate std;
use std::format;
use std::string::String;
use std::vec::Vec;

use super::*;

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// This file's inputs and table, in the lines `derive.py` prints.
fn table() -> Vec<String> {
    let mut prefix = Vec::from([0, DSA_CONTEXT.len() as u8]);
    prefix.extend_from_slice(DSA_CONTEXT);
    let mut lines = Vec::from([
        format!("input d {}", hex_of(&KEM_SEED[..32])),
        format!("input z {}", hex_of(&KEM_SEED[32..])),
        format!("input m {}", hex_of(&KEM_M)),
        format!("input xi {}", hex_of(&DSA_XI)),
        format!("input message {}", hex_of(DSA_MESSAGE)),
        format!("input message-prefix {}", hex_of(&prefix)),
        format!("input rnd {}", hex_of(&DSA_RND)),
        format!("input client-x25519 {}", hex_of(&HYBRID_CLIENT_X25519)),
        format!("input server-x25519 {}", hex_of(&HYBRID_SERVER_X25519)),
        format!("input x-wing-seed {}", hex_of(&X_WING_SEED)),
        format!("input x-wing-eseed {}", hex_of(&X_WING_ESEED)),
        format!("input slh-dsa-seeds {}", hex_of(&SLH_DSA_SEEDS)),
        format!("input fn-dsa-keygen-seed {}", hex_of(&FN_DSA_KEYGEN_SEED)),
        format!("input fn-dsa-sign-seed {}", hex_of(&FN_DSA_SIGN_SEED)),
        format!("input hss-seed {}", hex_of(&HSS_SEED)),
    ]);
    for algorithm in [Algorithm::MlKem512, Algorithm::MlKem768, Algorithm::MlKem1024] {
        let a = kem(algorithm).expect("an ML-KEM parameter set");
        for (output, digest) in
            [("ek", a.ek), ("dk", a.dk), ("ct", a.ct), ("ss", a.ss), ("rejected", a.rejected)]
        {
            lines.push(format!("{algorithm} {output} {}", hex_of(&digest)));
        }
    }
    for algorithm in [Algorithm::MlDsa44, Algorithm::MlDsa65, Algorithm::MlDsa87] {
        let a = dsa(algorithm).expect("an ML-DSA parameter set");
        for (output, digest) in [("pk", a.pk), ("sk", a.sk), ("sig", a.sig)] {
            lines.push(format!("{algorithm} {output} {}", hex_of(&digest)));
        }
    }
    for (algorithm, a) in [(Algorithm::X25519MlKem768, &X25519MLKEM768), (Algorithm::XWing, &X_WING)] {
        for (output, digest) in [("ek", a.ek), ("ct", a.ct), ("ss", a.ss), ("rejected", a.rejected)] {
            lines.push(format!("{algorithm} {output} {}", hex_of(&digest)));
        }
    }
    for algorithm in [
        Algorithm::SlhDsaSha2_128f,
        Algorithm::SlhDsaShake128f,
        Algorithm::SlhDsaSha2_128s,
        Algorithm::SlhDsaShake128s,
    ] {
        let a = slh_dsa(algorithm).expect("an SLH-DSA parameter set");
        for (output, digest) in [("pk", a.pk), ("sk", a.sk), ("sig", a.sig)] {
            lines.push(format!("{algorithm} {output} {}", hex_of(&digest)));
        }
    }
    for a in [(Algorithm::FnDsa512, &FN_DSA_512), (Algorithm::FnDsa1024, &FN_DSA_1024)] {
        let (algorithm, a) = a;
        for (output, digest) in [("pk", a.pk), ("sk", a.sk), ("sig", a.sig)] {
            lines.push(format!("{algorithm} {output} {}", hex_of(&digest)));
        }
    }
    for algorithm in [Algorithm::HssSha256L1H5W4] {
        let a = hss(algorithm).expect("an HSS parameter set");
        for (output, digest) in [("pk", a.pk), ("sig", a.sig)] {
            lines.push(format!("{algorithm} {output} {}", hex_of(&digest)));
        }
    }
    lines
}

/// The table is recomputed from kyber-py and dilithium-py on every test
/// run. The full tier never skips it: a table nothing independent vouches
/// for is what this replaces (the quick tier, which installs nothing from
/// the network, skips it by name where the packages are not installed). `cargo xtask test` installs the pinned packages into
/// its own virtual environment and names its interpreter in
/// PQBENCH_KAT_PYTHON.
#[test]
fn are_those_of_the_independent_implementation() {
    let python = std::env::var("PQBENCH_KAT_PYTHON").unwrap_or_else(|_| String::from("python3"));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/kat/derive.py");
    let install = "`cargo xtask test` installs kyber-py 1.2.0, dilithium-py 1.5.1, slh-dsa 0.2.5, py-fn-dsa 0.2.0 and pyhsslms 2.0.0 (from \
                   PyPI) into <target>/kat-venv and sets PQBENCH_KAT_PYTHON to its python; by hand: \
                   `pip install kyber-py==1.2.0 dilithium-py==1.5.1 slh-dsa==0.2.5 py-fn-dsa==0.2.0 pyhsslms==2.0.0`";
    let importable = std::process::Command::new(&python)
        .args(["-c", "import kyber_py, dilithium_py, slhdsa, py_fn_dsa, pyhsslms"])
        .output()
        .is_ok_and(|output| output.status.success());
    let found = if importable {
        Ok(())
    } else {
        Err(pqbench_test_needs::Missing::new(
            format!(
                "kyber-py, dilithium-py, slh-dsa, py-fn-dsa and pyhsslms, importable by `{python}` (PQBENCH_KAT_PYTHON)"
            ),
            install,
        ))
    };
    pqbench_test_needs::require!(found);
    let output = std::process::Command::new(&python)
        .arg(script)
        .output()
        .unwrap_or_else(|error| panic!("could not run `{python} {script}`: {error}. {install}"));
    assert!(
        output.status.success(),
        "`{python} {script}` failed:\n{}\n{install}",
        String::from_utf8_lossy(&output.stderr)
    );
    let derived: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(String::from).collect();
    let table = table();
    let differ: Vec<String> = table
        .iter()
        .zip(&derived)
        .filter(|(ours, theirs)| ours != theirs)
        .map(|(ours, theirs)| format!("  kat.rs:    {ours}\n  derive.py: {theirs}"))
        .collect();
    assert!(
        differ.is_empty() && table.len() == derived.len(),
        "crates/suite/src/kat.rs does not hold what the independent implementation derives \
         ({} lines against {}):\n{}\nIf an input changed on purpose, regenerate the table: \
         `{python} {script} --rust` prints it, to replace the constants in kat.rs.",
        table.len(),
        derived.len(),
        differ.join("\n")
    );
}

/// libcrux and RustCrypto built together (`--features libcrux,rustcrypto`,
/// a run of its own in `cargo xtask test`) give the same bytes for every
/// output of the known answers, at every parameter set: the direct
/// comparison, beside each one's comparison with the independent table.
#[cfg(all(feature = "libcrux", feature = "rustcrypto"))]
#[test]
fn libcrux_and_rustcrypto_agree_byte_for_byte() {
    use ml_dsa::MlDsaParams;
    use ml_dsa::signature::Keypair;
    use ml_kem::kem::{Decapsulate, KeyExport};

    use crate::dsa::{libcrux as libcrux_dsa, rustcrypto as rustcrypto_dsa};
    use crate::kem::{libcrux as libcrux_kem, rustcrypto as rustcrypto_kem};

    fn kem<L: libcrux_kem::MlKem, R: rustcrypto_kem::Deterministic>(name: &str)
    where
        R::DecapsulationKey: Decapsulate,
    {
        let keys = L::generate(KEM_SEED);
        let (ct, ss) = L::encapsulate(&keys, KEM_M);
        let rejected = L::decapsulate(&keys, &L::tampered(&ct));
        let (dk, ek) = R::from_seed(KEM_SEED);
        let (their_ct, their_ss) = R::encapsulate(&ek, KEM_M);
        let mut tampered = their_ct.clone();
        tampered[0] ^= 1;
        let (our_ek, our_dk) = L::encoded_keys(&keys);
        assert_eq!(our_ek, &ek.to_bytes()[..], "{name} ek");
        assert_eq!(our_dk, &R::encoded_decapsulation_key(&dk)[..], "{name} dk");
        assert_eq!(L::encoded_ciphertext(&ct), &their_ct[..], "{name} ct");
        assert_eq!(ss[..], their_ss[..], "{name} shared secret");
        assert_eq!(rejected[..], dk.decapsulate(&tampered)[..], "{name} implicit rejection");
    }
    kem::<libcrux_kem::MlKem512, rustcrypto_kem::MlKem512>("ML-KEM-512");
    kem::<libcrux_kem::MlKem768, rustcrypto_kem::MlKem768>("ML-KEM-768");
    kem::<libcrux_kem::MlKem1024, rustcrypto_kem::MlKem1024>("ML-KEM-1024");

    fn dsa<L: libcrux_dsa::MlDsa, P: MlDsaParams>(name: &str) {
        let keys = L::generate(DSA_XI);
        let signature = L::sign(&keys, DSA_MESSAGE, DSA_RND).expect("libcrux signs");
        let key = ml_dsa::SigningKey::<P>::from_seed(&DSA_XI.into());
        let signer = rustcrypto_dsa::expanded(&key);
        let their_signature = signer.sign_deterministic(DSA_MESSAGE, DSA_CONTEXT).expect("RustCrypto signs");
        let (pk, sk) = L::encoded_keys(&keys);
        assert_eq!(pk, &key.verifying_key().encode()[..], "{name} pk");
        #[allow(deprecated)]
        let their_sk = signer.to_expanded();
        assert_eq!(sk, &their_sk[..], "{name} sk");
        assert_eq!(L::encoded_signature(&signature), &their_signature.encode()[..], "{name} signature");
    }
    dsa::<libcrux_dsa::MlDsa44, rustcrypto_dsa::MlDsa44>("ML-DSA-44");
    dsa::<libcrux_dsa::MlDsa65, rustcrypto_dsa::MlDsa65>("ML-DSA-65");
    dsa::<libcrux_dsa::MlDsa87, rustcrypto_dsa::MlDsa87>("ML-DSA-87");
}

/// PQClean's C beside libcrux (`--features libcrux,rustcrypto,pqclean`),
/// as libcrux beside RustCrypto above.
#[cfg(all(feature = "libcrux", feature = "pqclean"))]
#[test]
fn libcrux_and_pqclean_agree_byte_for_byte() {
    use pqbench_pqclean::{Dsa, Kem, Random};

    use crate::dsa::libcrux as libcrux_dsa;
    use crate::kem::libcrux as libcrux_kem;

    fn kem<L: libcrux_kem::MlKem, C: Kem>(name: &str) {
        let keys = L::generate(KEM_SEED);
        let (ct, ss) = L::encapsulate(&keys, KEM_M);
        let (pk, sk) = C::keypair_derand(&KEM_SEED);
        let (their_ct, their_ss) = C::encapsulate_derand(&pk, &KEM_M);
        let mut tampered = their_ct.clone();
        tampered.as_mut()[0] ^= 1;
        let (our_ek, our_dk) = L::encoded_keys(&keys);
        assert_eq!(our_ek, pk.as_ref(), "{name} ek");
        assert_eq!(our_dk, sk.as_ref(), "{name} dk");
        assert_eq!(L::encoded_ciphertext(&ct), their_ct.as_ref(), "{name} ct");
        assert_eq!(ss, their_ss, "{name} shared secret");
        assert_eq!(
            L::decapsulate(&keys, &L::tampered(&ct)),
            C::decapsulate(&sk, &tampered),
            "{name} rejection"
        );
    }
    kem::<libcrux_kem::MlKem512, pqbench_pqclean::MlKem512>("ML-KEM-512");
    kem::<libcrux_kem::MlKem768, pqbench_pqclean::MlKem768>("ML-KEM-768");
    kem::<libcrux_kem::MlKem1024, pqbench_pqclean::MlKem1024>("ML-KEM-1024");

    fn dsa<L: libcrux_dsa::MlDsa, C: Dsa>(name: &str) {
        let keys = L::generate(DSA_XI);
        let signature = L::sign(&keys, DSA_MESSAGE, DSA_RND).expect("libcrux signs");
        let (pk, sk) = C::keypair(&mut Random::new(&mut |buffer: &mut [u8]| buffer.copy_from_slice(&DSA_XI)));
        let mut rnd = |buffer: &mut [u8]| buffer.copy_from_slice(&DSA_RND);
        let their_signature = C::sign(&sk, DSA_MESSAGE, DSA_CONTEXT, &mut Random::new(&mut rnd)).unwrap();
        let (our_pk, our_sk) = L::encoded_keys(&keys);
        assert_eq!(our_pk, pk.as_ref(), "{name} pk");
        assert_eq!(our_sk, sk.as_ref(), "{name} sk");
        assert_eq!(L::encoded_signature(&signature), their_signature.as_ref(), "{name} signature");
    }
    dsa::<libcrux_dsa::MlDsa44, pqbench_pqclean::MlDsa44>("ML-DSA-44");
    dsa::<libcrux_dsa::MlDsa65, pqbench_pqclean::MlDsa65>("ML-DSA-65");
    dsa::<libcrux_dsa::MlDsa87, pqbench_pqclean::MlDsa87>("ML-DSA-87");
}

/// The HQC table is the official vectors' first entries, read from the
/// files `hqc-kem`'s package ships (found through `cargo metadata`),
/// each file's SHA-256 pinned: a new release of the crate with other
/// vectors fails here until the table and the pin are renewed together.
#[test]
fn hqc_answers_are_the_official_vectors() {
    use sha2::{Digest as _, Sha256};

    let root = package_root("hqc-kem", "0.1.0-rc.0").join("kat");
    let files = [
        ("hqc-1.rsp", "f4135530c7c6bab0d2a49eca78118310c06721518d8df3774cc5201e66ae9cd2", &HQC_128),
        ("hqc-3.rsp", "edbb4725ddc4e882fea460c9d04ca6499266be3d6cacd2909c05c744fc45901b", &HQC_192),
        ("hqc-5.rsp", "68d45adf1528f09554c452a5cde29929f73369b1d5374835252118c55541af5a", &HQC_256),
    ];
    for (file, pinned, answers) in files {
        let path = root.join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(hex_of(&Sha256::digest(text.as_bytes())), pinned, "{file} is not the file pinned");
        // The fields of `count = 0`, up to the next vector.
        let first = text.split("count = 1\n").next().expect("a first vector");
        let field = |name: &str| -> Vec<u8> {
            let line = first
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name} = ")))
                .unwrap_or_else(|| panic!("{file}: no {name} in count = 0"));
            (0..line.len() / 2)
                .map(|i| u8::from_str_radix(&line[2 * i..2 * i + 2], 16).expect("hex"))
                .collect()
        };
        assert!(first.contains("count = 0\n"), "{file} begins with count = 0");
        assert_eq!(field("seed"), answers.seed, "{file} seed");
        for (name, digest) in [("pk", answers.pk), ("sk", answers.sk), ("ct", answers.ct), ("ss", answers.ss)]
        {
            assert_eq!(Sha3_256::digest(field(name)).as_slice(), digest, "{file} {name}");
        }
    }
}

/// RFC 8554 Appendix F's two test cases, as the suite keeps them
/// (`kat/rfc8554/`), are byte for byte those hbs-lms's package carries
/// in its own tests (`tests/rfc_testcase{1,2}.rs`): two transcriptions
/// of the RFC that agree, and derive.py has pyhsslms verify them.
#[test]
fn the_rfc_8554_cases_are_those_hbs_lms_ships() {
    let root = package_root("hbs-lms", "0.1.1").join("tests");
    for (number, case) in (1..).zip(&RFC_8554_CASES) {
        let path = root.join(format!("rfc_testcase{number}.rs"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        // `static NAME: &[u8] = &[0x.., ...];`, its bytes.
        let array = |name: &str| -> Vec<u8> {
            let start = text
                .find(&format!("static {name}: &[u8] = &["))
                .unwrap_or_else(|| panic!("{}: no {name}", path.display()));
            let body = &text[start..];
            let body = &body[body.find("= &[").expect("an array") + 4..body.find("];").expect("its end")];
            body.split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(|item| {
                    let digits = item.strip_prefix("0x").unwrap_or_else(|| panic!("{name}: {item}"));
                    u8::from_str_radix(digits, 16).unwrap_or_else(|_| panic!("{name}: {item}"))
                })
                .collect()
        };
        assert_eq!(array("PUBLIC_KEY"), case.public_key, "test case {number}'s public key");
        assert_eq!(array("MESSAGE"), case.message, "test case {number}'s message");
        assert_eq!(array("SIGNATURE"), case.signature, "test case {number}'s signature");
    }
}

/// The folder of `name` at `version` among the suite's dependencies,
/// as `cargo metadata` finds it. Not `--offline`: the metadata names
/// every platform's packages, and a fresh machine has downloaded only
/// its own (it failed so, on a cold CI run, for
/// `android_system_properties`).
fn package_root(name: &str, version: &str) -> std::path::PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = std::process::Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path", manifest])
        .output()
        .unwrap_or_else(|error| panic!("could not run `{cargo} metadata`: {error}"));
    assert!(output.status.success(), "`cargo metadata` failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let package = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("{name} among the suite's dependencies"));
    assert_eq!(package["version"], version, "the files checked are of this release");
    std::path::Path::new(package["manifest_path"].as_str().expect("a manifest path"))
        .parent()
        .expect("the package's folder")
        .to_path_buf()
}

#[test]
fn a_seed_is_faulted_only_when_asked() {
    assert_eq!(keygen_seed(KEM_SEED), KEM_SEED);
    let faulted = crate::tests::inject_pqc_fault(|| keygen_seed(DSA_XI));
    assert_eq!(faulted[0], DSA_XI[0] ^ 1);
    assert_eq!(faulted[1..], DSA_XI[1..]);
}
