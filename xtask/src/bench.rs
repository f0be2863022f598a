//! `cargo xtask bench`: the whole suite on the emulated Cortex-M4 and on
//! this host (an optimised build), side by side, as the Markdown table that
//! BENCHMARKS.md holds.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{Project, cargo_host, run, step};

pub fn run_all(project: &Project) -> Result<()> {
    step("server, optimised (for the native run)");
    run(cargo_host(project).args(["build", "--release", "--package", "pqbench"]))?;
    let pqbench = project.target.join("release").join("pqbench");
    let dir = std::env::temp_dir().join(format!("pqbench-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");

    step("the whole suite on qemu-mps2-an386, default settings");
    let started = Instant::now();
    let board_run = pqbench_cli(&pqbench, project, &db, &["run", "--board", "qemu-mps2-an386"])?;
    let board_wall = started.elapsed();
    step("the whole suite on this host, default settings");
    let started = Instant::now();
    let native_run = pqbench_cli(&pqbench, project, &db, &["bench", "--native"])?;
    let native_wall = started.elapsed();

    let board = export(&pqbench, project, &db, &board_run)?;
    let native = export(&pqbench, project, &db, &native_run)?;
    std::fs::remove_dir_all(&dir)?;

    let mut out = String::new();
    writeln!(
        out,
        "Emulated board run: {:.1} s wall; native run: {:.1} s wall.",
        board_wall.as_secs_f64(),
        native_wall.as_secs_f64()
    )?;
    writeln!(
        out,
        "Native host: {}.\n",
        native["run"]["build"]["extra"]["cpu"].as_str().unwrap_or("unknown CPU")
    )?;
    writeln!(
        out,
        "| algorithm | operation | M4 (QEMU) M instr/op | M4 heap B (allocs) | M4 stack B | native ops/s | native median µs | native heap B | native stack B |"
    )?;
    writeln!(out, "|---|---|--:|--:|--:|--:|--:|--:|--:|")?;
    let rows = board["results"].as_array().context("no board results")?;
    let native_rows = native["results"].as_array().context("no native results")?;
    for (b, n) in rows.iter().zip(native_rows) {
        if (b["algorithm"].as_str(), b["operation"].as_str())
            != (n["algorithm"].as_str(), n["operation"].as_str())
        {
            bail!("the board and native runs name different rows: {b} / {n}");
        }
        // qemu-instructions/40: 40 emulated instructions per tick.
        let minstr = b["ticks_per_op"].as_f64().map(|t| format!("{:.2}", t * 40.0 / 1e6));
        let number = |v: &Value, key: &str| v[key].as_u64().map(|x| x.to_string());
        let heap = match (number(b, "heap_bytes"), number(b, "heap_allocs")) {
            (Some(bytes), Some(allocs)) => Some(format!("{bytes} ({allocs})")),
            _ => None,
        };
        let dash = |v: Option<String>| v.unwrap_or_else(|| "—".into());
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            b["algorithm"].as_str().unwrap_or("?"),
            b["operation"].as_str().unwrap_or("?"),
            dash(minstr),
            dash(heap),
            dash(number(b, "stack_bytes")),
            dash(n["ops_per_sec"].as_f64().map(|x| format!("{x:.0}"))),
            dash(n["median_ms"].as_f64().map(|x| format!("{:.1}", x * 1000.0))),
            dash(number(n, "heap_bytes")),
            dash(number(n, "stack_bytes")),
        )?;
    }
    println!("{out}");
    Ok(())
}

fn pqbench_cli(pqbench: &Path, project: &Project, db: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new(pqbench)
        .args(args)
        .arg("--db")
        .arg(db)
        .env("PQBENCH_DIST", project.dist())
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("running pqbench {args:?}"))?;
    if !output.status.success() {
        bail!("pqbench {args:?} failed");
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn export(pqbench: &Path, project: &Project, db: &Path, id: &str) -> Result<Value> {
    let json = pqbench_cli(pqbench, project, db, &["export", "--run", id, "--format", "json"])?;
    Ok(serde_json::from_str(&json)?)
}
