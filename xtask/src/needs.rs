//! `cargo xtask needs`: measures what each operation needs of RAM on the
//! emulated Cortex-M4 and writes `crates/suite/src/needs.rs`, the table a
//! board with less RAM uses to say "does not fit" instead of crashing.

use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::Project;

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
    let id = pqbench(&["run", "--board", "qemu-mps2-an386", "--min-iterations", "1", "--min-time-ms", "0"])?;
    let export: Value = serde_json::from_str(&pqbench(&["export", "--run", &id, "--format", "json"])?)?;
    std::fs::remove_dir_all(&dir)?;

    let mut rows = String::new();
    for result in export["results"].as_array().context("no results")? {
        let text = |key: &str| result[key].as_str().map(str::to_string).context("a result without its name");
        let (algorithm, operation) = (text("algorithm")?, text("operation")?);
        let (Some(stack), Some(heap)) = (result["stack_bytes"].as_u64(), result["heap_bytes"].as_u64())
        else {
            bail!("{algorithm} {operation} has no memory figures: {result}");
        };
        rows.push_str(&format!("    ({algorithm:?}, {operation:?}, {stack}, {heap}),\n"));
    }
    let source = format!(
        "//! What each operation needs of RAM: its peak stack and heap, measured on the\n\
         //! emulated Cortex-M4 (qemu-mps2-an386, firmware profile) by `cargo xtask needs`,\n\
         //! which writes this file. Do not edit it by hand; a test fails when it is stale.\n\
         \n\
         /// (algorithm, operation, stack bytes, heap bytes), by contract name.\n\
         pub const NEEDS: &[(&str, &str, u32, u32)] = &[\n{rows}];\n"
    );
    let path = project.root.join("crates/suite/src/needs.rs");
    std::fs::write(&path, source)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
