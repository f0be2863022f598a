//! `cargo xtask bench`: the whole suite on the emulated Cortex-M4 and on
//! this host (an optimised build), side by side, as the Markdown table that
//! BENCHMARKS.md holds.
//!
//! `cargo xtask bench-browser`: ML-KEM-768 and ML-DSA-65 by the dashboard's
//! own "Run in this browser" in headless Chromium (our wasm beside
//! WebCrypto and the JavaScript peers; `bench/browser/run.mjs` presses the
//! button and reads the stored runs back), and natively, as BENCHMARKS.md's
//! comparison table.

use std::collections::BTreeMap;
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

    step("ML-KEM and ML-DSA on qemu-mps2-an386 with RustCrypto's crates (opt-s-rustcrypto)");
    let pqc = "ML-KEM-512,ML-KEM-768,ML-KEM-1024,ML-DSA-44,ML-DSA-65,ML-DSA-87";
    let rustcrypto_run = pqbench_cli(
        &pqbench,
        project,
        &db,
        &["run", "--board", "qemu-mps2-an386", "--variant", "opt-s-rustcrypto", "--algorithms", pqc],
    )?;

    let board = export(&pqbench, project, &db, &board_run)?;
    let native = export(&pqbench, project, &db, &native_run)?;
    let rustcrypto = export(&pqbench, project, &db, &rustcrypto_run)?;
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
    writeln!(out, "\nThe two ML-KEM/ML-DSA implementations on the emulated board:\n")?;
    writeln!(
        out,
        "| algorithm | operation | libcrux M instr/op | RustCrypto M instr/op | RustCrypto / libcrux | libcrux heap B | RustCrypto heap B | libcrux stack B | RustCrypto stack B |"
    )?;
    writeln!(out, "|---|---|--:|--:|--:|--:|--:|--:|--:|")?;
    for r in rustcrypto["results"].as_array().context("no RustCrypto results")? {
        let name = (r["algorithm"].as_str(), r["operation"].as_str());
        let l = rows
            .iter()
            .find(|b| (b["algorithm"].as_str(), b["operation"].as_str()) == name)
            .with_context(|| format!("no libcrux row for {name:?}"))?;
        let minstr = |v: &Value| v["ticks_per_op"].as_f64().map(|t| t * 40.0 / 1e6);
        let number = |v: &Value, key: &str| v[key].as_u64().map_or("—".into(), |x| x.to_string());
        let ratio = match (minstr(r), minstr(l)) {
            (Some(r), Some(l)) => format!("{:.2}", r / l),
            _ => "—".into(),
        };
        writeln!(
            out,
            "| {} | {} | {} | {} | {ratio} | {} | {} | {} | {} |",
            name.0.unwrap_or("?"),
            name.1.unwrap_or("?"),
            minstr(l).map_or("—".into(), |x| format!("{x:.2}")),
            minstr(r).map_or("—".into(), |x| format!("{x:.2}")),
            number(l, "heap_bytes"),
            number(r, "heap_bytes"),
            number(l, "stack_bytes"),
            number(r, "stack_bytes"),
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

/// The rows of the browser comparison, in the table's order.
const BROWSER_ROWS: &[(&str, &str)] = &[
    ("ML-KEM-768", "keygen"),
    ("ML-KEM-768", "encaps"),
    ("ML-KEM-768", "decaps"),
    ("ML-DSA-65", "keygen"),
    ("ML-DSA-65", "sign"),
    ("ML-DSA-65", "verify"),
];
const BROWSER_ENGINES: &[&str] = &["pqbench", "webcrypto", "noble", "liboqs"];
/// The goal: wasm time at most this many times native time.
const NATIVE_GOAL: f64 = 1.5;

/// ops/s of each round, by (engine, algorithm, operation).
type Rounds = BTreeMap<(String, String, String), Vec<f64>>;

pub fn browser(project: &Project, args: &[&str]) -> Result<()> {
    let mut rounds = 3u32;
    let mut min_time_ms = 1000u32;
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        let value = rest.next().and_then(|v| v.parse::<u32>().ok()).filter(|&v| v > 0);
        match (arg, value) {
            ("--rounds", Some(v)) => rounds = v,
            ("--min-time-ms", Some(v)) => min_time_ms = v,
            _ => bail!("usage: cargo xtask bench-browser [--rounds N] [--min-time-ms 1000|200] (N > 0)"),
        }
    }
    let algorithms = "ML-KEM-768,ML-DSA-65";

    step("server, optimised (serves the page; runs the native suite)");
    run(cargo_host(project).args(["build", "--release", "--package", "pqbench"]))?;
    let pqbench = project.target.join("release").join("pqbench");
    let dir = std::env::temp_dir().join(format!("pqbench-bench-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");

    let mut measured = Rounds::new();
    let mut native_build = Value::Null;
    let min_time = min_time_ms.to_string();
    for round in 1..=rounds {
        step(&format!("{algorithms} on this host, round {round} of {rounds}"));
        let id = pqbench_cli(
            &pqbench,
            project,
            &db,
            &["bench", "--native", "--algorithms", algorithms, "--min-time-ms", &min_time],
        )?;
        let export = export(&pqbench, project, &db, &id)?;
        for result in export["results"].as_array().context("no native results")? {
            let ops = result["ops_per_sec"].as_f64().with_context(|| format!("no ops/s in {result}"))?;
            let key = |k: &str| result[k].as_str().unwrap_or("?").to_string();
            measured.entry(("native".into(), key("algorithm"), key("operation"))).or_default().push(ops);
        }
        native_build = export["run"]["build"].clone();
    }

    step(&format!(
        "{algorithms} by Run in this browser in headless Chromium: pqbench (wasm), WebCrypto, noble, liboqs-js; {rounds} rounds"
    ));
    let started = Instant::now();
    let output = Command::new("node")
        .arg(project.root.join("bench/browser/run.mjs"))
        .args(["--rounds", &rounds.to_string(), "--min-time-ms", &min_time])
        .env("PQBENCH_BIN", &pqbench)
        .env("PQBENCH_DIST", project.dist())
        .current_dir(project.root.join("bench/browser"))
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running node bench/browser/run.mjs")?;
    if !output.status.success() {
        bail!("the browser benchmark failed: {}", output.status);
    }
    let browser_wall = started.elapsed();
    std::fs::remove_dir_all(&dir)?;
    let page: Value = serde_json::from_slice(&output.stdout).context("the browser benchmark's output")?;
    for m in page["rounds"].as_array().context("no browser rounds")? {
        let Some(ops) = m["ops_per_sec"].as_f64() else { bail!("a malformed measurement: {m}") };
        let key = |k: &str| m[k].as_str().unwrap_or("?").to_string();
        measured.entry((key("engine"), key("algorithm"), key("operation"))).or_default().push(ops);
    }

    let raw = project.target.join("bench-browser.json");
    let kept = serde_json::json!({ "page": page, "native_build": native_build, "rounds": measured.iter()
        .map(|((e, a, o), v)| serde_json::json!({"engine": e, "algorithm": a, "operation": o, "ops_per_sec": v}))
        .collect::<Vec<_>>() });
    std::fs::write(&raw, serde_json::to_string_pretty(&kept)?)?;
    println!(
        "{}",
        browser_table(&measured, &page, &native_build, rounds, min_time_ms, browser_wall.as_secs_f64())?
    );
    eprintln!("every round's figures: {}", raw.display());
    Ok(())
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 }
}

fn browser_table(
    measured: &Rounds,
    page: &Value,
    native_build: &Value,
    rounds: u32,
    min_time_ms: u32,
    wall_s: f64,
) -> Result<String> {
    let get = |engine: &str, algorithm: &str, operation: &str| -> Result<(f64, f64)> {
        let values = measured
            .get(&(engine.to_string(), algorithm.to_string(), operation.to_string()))
            .with_context(|| format!("no {engine} figure for {algorithm} {operation}"))?;
        let (lo, hi) = values.iter().fold((f64::MAX, 0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        Ok((median(values), hi / lo - 1.0))
    };
    let build = &page["pqbench_build"];
    let text = |v: &Value| v.as_str().unwrap_or("?").to_string();
    let mut out = String::new();
    writeln!(
        out,
        "Chromium {} headless, cross-origin isolated: {}, timer step {} ns; @noble/post-quantum {}, @oqs/liboqs-js {}.",
        text(&page["browser_version"]),
        page["cross_origin_isolated"],
        text(&build["extra"]["timer_resolution_ns"]),
        text(&page["versions"]["@noble/post-quantum"]),
        text(&page["versions"]["@oqs/liboqs-js"]),
    )?;
    writeln!(
        out,
        "pqbench wasm: {} (profile {}, opt-level {}, LTO {}). Native: {}, {}, {} (profile {}).",
        text(&build["rustc"]),
        text(&build["profile"]),
        text(&build["opt_level"]),
        text(&build["lto"]),
        text(&native_build["extra"]["cpu"]),
        text(&native_build["target"]),
        text(&native_build["rustc"]),
        text(&native_build["profile"]),
    )?;
    writeln!(
        out,
        "Medians of {rounds} rounds, each at least 10 calls and {min_time_ms} ms per operation; browser part {wall_s:.0} s wall.\n"
    )?;
    writeln!(
        out,
        "| operation | pqbench wasm ops/s | WebCrypto ops/s | noble ops/s | liboqs-js ops/s | native ops/s | wasm/WebCrypto | wasm/noble | wasm/liboqs | wasm time / native time |"
    )?;
    writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")?;
    let (mut ahead_webcrypto, mut ahead_noble, mut ahead_liboqs, mut near_native) = (0, 0, 0, 0);
    let mut spread: f64 = 0.0;
    for &(algorithm, operation) in BROWSER_ROWS {
        let mut figures = Vec::new();
        for engine in BROWSER_ENGINES.iter().copied().chain(["native"]) {
            let (ops, s) = get(engine, algorithm, operation)?;
            spread = spread.max(s);
            figures.push(ops);
        }
        let [wasm, webcrypto, noble, liboqs, native] = figures[..] else { unreachable!() };
        ahead_webcrypto += usize::from(wasm > webcrypto);
        ahead_noble += usize::from(wasm > noble);
        ahead_liboqs += usize::from(wasm > liboqs);
        near_native += usize::from(native / wasm <= NATIVE_GOAL);
        writeln!(
            out,
            "| {algorithm} {operation} | {wasm:.0} | {webcrypto:.0} | {noble:.0} | {liboqs:.0} | {native:.0} | {:.2} | {:.2} | {:.2} | {:.2} |",
            wasm / webcrypto,
            wasm / noble,
            wasm / liboqs,
            native / wasm,
        )?;
    }
    let n = BROWSER_ROWS.len();
    writeln!(
        out,
        "\nwasm ahead of WebCrypto on {ahead_webcrypto} of {n} operations, of noble on {ahead_noble} of {n}, \
         of liboqs-js on {ahead_liboqs} of {n}; \
         within {NATIVE_GOAL}x of native time on {near_native} of {n}. \
         Largest round-to-round spread of any figure (max/min - 1): {:.0}%.",
        spread * 100.0
    )?;
    Ok(out)
}
