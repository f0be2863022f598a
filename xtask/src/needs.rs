//! `cargo xtask needs`: measures what each operation needs of RAM on the
//! emulated Cortex-M4 and writes `crates/suite/src/needs.rs`, the table a
//! board with less RAM uses to say "does not fit" instead of crashing.

use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::Project;

/// The emulated board's build variant measured for each implementation's
/// table: (the table's name in needs.rs, the variant, what it holds).
const TABLES: &[(&str, &str, &str)] = &[
    ("LIBCRUX", "opt-s", "libcrux's ML-KEM and ML-DSA"),
    ("RUSTCRYPTO", "opt-s-rustcrypto", "RustCrypto's `ml-kem` and `ml-dsa`"),
    ("PQCLEAN", "opt-s-pqclean", "PQClean's `clean` C ML-KEM and ML-DSA"),
];

pub fn write(project: &Project) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("pqbench-needs-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("needs.db");
    let pqbench = |args: &[&str]| -> Result<String> {
        let output = Command::new(project.server_binary())
            .args(args)
            .arg("--db")
            .arg(&db)
            .env("PQBENCH_DIST", project.dist())
            .output()
            .context("running pqbench")?;
        if !output.status.success() {
            bail!("pqbench {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let mut tables = String::new();
    for &(name, variant, what) in TABLES {
        let id = pqbench(&[
            "run",
            "--board",
            "qemu-mps2-an386",
            "--variant",
            variant,
            "--min-iterations",
            "1",
            "--min-time-ms",
            "0",
        ])?;
        let export: Value = serde_json::from_str(&pqbench(&["export", "--run", &id, "--format", "json"])?)?;
        let mut rows = String::new();
        for result in export["results"].as_array().context("no results")? {
            let text =
                |key: &str| result[key].as_str().map(str::to_string).context("a result without its name");
            let (algorithm, operation) = (text("algorithm")?, text("operation")?);
            // How deep below the run loop the stack went by the operation's
            // end (its own stack, the benchmark's frame, the self-test), not
            // the operation's own stack: what a board must have free.
            let (Some(stack), Some(heap)) =
                (result["stack_depth_bytes"].as_u64(), result["heap_bytes"].as_u64())
            else {
                bail!("{algorithm} {operation} has no memory figures: {result}");
            };
            rows.push_str(&format!("    ({algorithm:?}, {operation:?}, {stack}, {heap}),\n"));
        }
        tables.push_str(&format!(
            "\n/// With {what} (the `{variant}` image).\npub const {name}: &[(&str, &str, u32, u32)] = &[\n{rows}];\n"
        ));
    }
    std::fs::remove_dir_all(&dir)?;

    let source = format!(
        "//! What each operation needs of RAM, measured on the emulated Cortex-M4\n\
         //! (qemu-mps2-an386, firmware profile) by `cargo xtask needs`, which writes this\n\
         //! file: how deep below the suite's run loop the stack goes by the operation's\n\
         //! end (the benchmark's frame, its self-test and the operation's own stack), and\n\
         //! its peak heap. Do not edit it by hand; a test fails when it is stale.\n\
         \n\
         /// (algorithm, operation, stack depth bytes, heap bytes), by contract name, with\n\
         /// the ML-KEM/ML-DSA implementation this build uses.\n\
         #[cfg(feature = \"libcrux\")]\n\
         pub const NEEDS: &[(&str, &str, u32, u32)] = LIBCRUX;\n\
         #[cfg(all(feature = \"rustcrypto\", not(feature = \"libcrux\")))]\n\
         pub const NEEDS: &[(&str, &str, u32, u32)] = RUSTCRYPTO;\n\
         #[cfg(not(any(feature = \"libcrux\", feature = \"rustcrypto\")))]\n\
         pub const NEEDS: &[(&str, &str, u32, u32)] = PQCLEAN;\n\
         {tables}"
    );
    let path = project.root.join("crates/suite/src/needs.rs");
    std::fs::write(&path, source)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
