//! `cargo xtask bench-load`: the explorer's API under concurrent load, with
//! a million stored results.
//!
//! The store is filled the way it fills in use, through `POST /api/uploads`
//! (runs of one suite each, the suite's own operations and figures, from
//! one native run of this host, each board's runs from two builds), then
//! wrk, a second process, asks for what the dashboard asks for: an
//! operation's history on a board, a comparison of runs, the runs list, one
//! run's results, a shared report, the matrix of every board and build
//! and a filtered one; last, the history again while other clients upload
//! runs. wrk's latency
//! percentiles, request rate and failed requests are the figures.
//!
//! `--postgres` does the same with the store on PostgreSQL: a cluster of
//! its own, started for the run with PostgreSQL's defaults (every commit
//! synced), on the same machine.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use pqbench_api::{HISTORY_RUNS, ResultQuery};
use pqbench_types::{Algorithm, Operation};
use pqbench_view::HistoryOf;
use serde_json::{Value, json};

use crate::postgres::TestPostgres;
use crate::wrk::{Wrk, wrk_for, wrk_with};
use crate::{Project, cargo_host, run, setup, step};

/// Runs are spread over this many boards, so a board's history is a
/// twentieth of the store, as on a dashboard fed by a lab of boards.
const BOARDS: usize = 20;

/// Each board's runs alternate between these builds (`opt_level`), so the
/// matrix has two columns a board: 40.
const BUILDS: [&str; 2] = ["3", "s"];
/// Uploads written and sent by one curl: every upload is a file of its own
/// (about 16 KB), so the folder holds one chunk's at a time.
const UPLOADS_AT_ONCE: usize = 1000;

struct Settings {
    results: usize,
    seconds: u32,
    connections: u32,
    /// Keep the filled store (its path is printed) instead of deleting it.
    keep: bool,
    /// The store on PostgreSQL rather than in an SQLite file.
    postgres: bool,
}

/// The store under load, and how the benchmark reads it directly.
enum Store {
    Sqlite(PathBuf),
    Postgres(TestPostgres),
}

impl Store {
    /// What `pqbench serve --db` takes.
    fn db_arg(&self) -> std::ffi::OsString {
        match self {
            Store::Sqlite(path) => path.clone().into_os_string(),
            Store::Postgres(server) => server.url().into(),
        }
    }

    /// One value a query gives, through the database's own client.
    fn query(&self, query: &str) -> Result<String> {
        let output = match self {
            Store::Sqlite(path) => {
                Command::new("sqlite3").arg(path).arg(query).output().context("running sqlite3")?
            }
            Store::Postgres(server) => {
                Command::new("psql").args([server.url(), "-tAc", query]).output().context("running psql")?
            }
        };
        if !output.status.success() {
            bail!("{query:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok(String::from_utf8(output.stdout)?.trim().to_string())
    }

    fn name(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "SQLite",
            Store::Postgres(_) => "PostgreSQL",
        }
    }
}

pub fn load(project: &Project, args: &[&str]) -> Result<()> {
    let mut settings =
        Settings { results: 1_000_000, seconds: 20, connections: 16, keep: false, postgres: false };
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        if arg == "--keep" {
            settings.keep = true;
            continue;
        }
        if arg == "--postgres" {
            settings.postgres = true;
            continue;
        }
        let value = rest.next().and_then(|v| v.parse::<usize>().ok()).filter(|&v| v > 0);
        match (arg, value) {
            ("--results", Some(v)) => settings.results = v,
            ("--seconds", Some(v)) => settings.seconds = v as u32,
            ("--connections", Some(v)) => settings.connections = v as u32,
            _ => bail!(
                "usage: cargo xtask bench-load [--results N] [--seconds S] [--connections C] [--keep] [--postgres] (all > 0)"
            ),
        }
    }
    for (tool, package) in
        [("wrk", "wrk"), ("curl", "curl"), ("sqlite3", "sqlite3"), ("psql", "postgresql-client")]
    {
        if !setup::on_path(tool) {
            setup::apt_install(&[package])?;
        }
    }

    step("server, optimised");
    run(cargo_host(project).args(["build", "--release", "--package", "pqbench"]))?;
    let pqbench = project.target.join("release").join("pqbench");
    let dir = std::env::temp_dir().join(format!("pqbench-bench-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let store = if settings.postgres {
        Store::Postgres(TestPostgres::start_durable(project)?)
    } else {
        Store::Sqlite(dir.join("load.db"))
    };
    let outcome = measure(project, &pqbench, &dir, &store, &settings);
    if settings.keep {
        match &store {
            Store::Sqlite(path) => eprintln!("the filled store: {}", path.display()),
            Store::Postgres(_) => {
                eprintln!("--keep keeps SQLite stores only: the PostgreSQL cluster goes with the run")
            }
        }
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    println!("{}", outcome?);
    Ok(())
}

fn measure(
    project: &Project,
    pqbench: &Path,
    dir: &Path,
    store: &Store,
    settings: &Settings,
) -> Result<String> {
    step("one native run of the suite: the operations and figures the uploads carry");
    let native = Command::new(pqbench)
        .args(["bench", "--native", "--min-iterations", "3", "--min-time-ms", "1", "--db"])
        .arg(dir.join("native.db"))
        .stderr(Stdio::inherit())
        .output()
        .context("running pqbench bench --native")?;
    if !native.status.success() {
        bail!("pqbench bench --native failed: {}", native.status);
    }
    let id = String::from_utf8(native.stdout)?.trim().to_string();
    let export = Command::new(pqbench)
        .args(["export", "--run", &id, "--format", "json", "--db"])
        .arg(dir.join("native.db"))
        .output()
        .context("running pqbench export")?;
    let export: Value = serde_json::from_slice(&export.stdout).context("the native run's export")?;
    let measurements = measurements_of(&export)?;

    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut server = Server(
        Command::new(pqbench)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--db"])
            .arg(store.db_arg())
            .arg("--dist")
            .arg(project.dist())
            .env("RUST_LOG", "pqbench=warn")
            .stdout(Stdio::null())
            .spawn()
            .context("starting pqbench serve")?,
    );
    wait_for(&base)?;

    let uploads = settings.results.div_ceil(measurements.len());
    step(&format!(
        "storing {uploads} runs of {} results through POST /api/uploads, 8 at a time",
        measurements.len()
    ));
    let started = Instant::now();
    let (mut codes, mut curl_said) = (String::new(), String::new());
    for chunk in (0..uploads).collect::<Vec<_>>().chunks(UPLOADS_AT_ONCE) {
        let config = dir.join("uploads.curl");
        let mut text = String::new();
        for &i in chunk {
            // Upload i is board i % BOARDS's, of build (i / BOARDS) % 2.
            let (board, opt_level) = (i % BOARDS, BUILDS[(i / BOARDS) % BUILDS.len()]);
            let path = dir.join(format!("upload-{}.json", i % UPLOADS_AT_ONCE));
            std::fs::write(
                &path,
                upload(&format!("load upload {i}"), board, opt_level, &measurements).to_string(),
            )?;
            // `next` separates requests; one after the last would be a
            // request without a URL, which aborts the transfers still running.
            if i != chunk[0] {
                text.push_str("next\n");
            }
            text.push_str(&format!(
                "url = \"{base}/api/uploads\"\ndata-binary = \"@{}\"\nheader = \"Content-Type: application/json\"\n\
                 output = \"/dev/null\"\nwrite-out = \"%{{http_code}}\\n\"\n",
                path.display()
            ));
        }
        std::fs::write(&config, text)?;
        let seeded = Command::new("curl")
            .args(["--parallel", "--parallel-max", "8", "--no-progress-meter", "-K"])
            .arg(&config)
            .output()
            .context("running curl")?;
        codes.push_str(&String::from_utf8_lossy(&seeded.stdout));
        curl_said.push_str(&String::from_utf8_lossy(&seeded.stderr));
    }
    let mut refused = std::collections::BTreeMap::<&str, usize>::new();
    for code in codes.lines().filter(|code| *code != "201") {
        *refused.entry(code).or_default() += 1;
    }
    if !refused.is_empty() || codes.lines().count() != uploads {
        bail!(
            "of {uploads} uploads, {} answered; refused, by HTTP status (000: no answer): {refused:?}; curl: {}",
            codes.lines().count(),
            curl_said.lines().take(5).collect::<Vec<_>>().join(" / ")
        );
    }
    let seeding = started.elapsed();
    if let Store::Postgres(_) = store {
        // A store filled over months has planner statistics; this one was
        // filled in seconds, before autovacuum's first look. Without them a
        // history's first plan walks far more rows (p99 95 ms against 32).
        store.query("ANALYZE")?;
    }
    let stored: u64 = store.query("SELECT COUNT(*) FROM results")?.parse()?;
    let runs: u64 = store.query("SELECT COUNT(*) FROM runs")?.parse()?;
    eprintln!("{stored} results in {runs} runs, stored in {:.1} s", seeding.as_secs_f64());

    // What the dashboard asks for, with ids from the filled store.
    let newest: i64 = store.query("SELECT MAX(id) FROM runs")?.parse()?;
    let board = "native:load-07";
    let compared = [newest, newest - 1, newest - 2];
    let report = curl_json(&base, "/api/reports", &json!({ "view": { "runs": compared } }))?;
    let report = report["id"].as_str().context("no report id")?.to_string();
    let compare = compared.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    // As the dashboard asks, with the same query codec: its history shows a
    // board's newest runs, a comparison every row.
    let history =
        HistoryOf { board: board.into(), algorithm: Algorithm::MlKem768, operation: Operation::Keygen };
    let history = format!("/api/results?{}", ResultQuery::of_history(&history, HISTORY_RUNS).to_query());
    let scenarios = [
        ("history of one operation on one board", history.clone()),
        ("three runs compared", format!("/api/results?run={compare}&limit=20000")),
        ("the runs list", "/api/runs?limit=50".to_string()),
        ("one run's results", format!("/api/runs/{newest}/results")),
        ("a shared report", format!("/api/reports/{report}")),
        ("the matrix, every board and build", "/api/matrix".to_string()),
        (
            "the matrix of one algorithm on hosts",
            "/api/matrix?source=native&algorithm=ML-KEM-768".to_string(),
        ),
    ];
    let mut table = format!(
        "{} store: {stored} results in {runs} runs ({} boards, {} builds each), stored through the API in {:.0} s ({:.0} results/s). \
         wrk {} s per line, 2 threads, {} connections, on the same 2-core machine as the server.\n\n\
         | request | what the dashboard shows | req/s | p50 | p99 | failed |\n|---|---|--:|--:|--:|--:|\n",
        store.name(),
        BOARDS,
        BUILDS.len(),
        seeding.as_secs_f64(),
        stored as f64 / seeding.as_secs_f64(),
        settings.seconds,
        settings.connections,
    );
    for (what, path) in &scenarios {
        step(&format!("{what}: GET {path}"));
        let figures = wrk(&base, path, settings)?;
        table.push_str(&figures.row(&format!("`GET {}`", short(path)), what));
    }

    // Each request its own `limit` (all above the matrix's 1,600 rows, so
    // the same matrix), so none is served from what the server kept: the
    // cost of a matrix after every change to the store.
    step("the matrix, made anew for every request");
    let anew = dir.join("matrix-anew.lua");
    std::fs::write(
        &anew,
        "local thread_id = 0\nlocal made = 0\n\
         function setup(thread) thread:set(\"id\", thread_id) thread_id = thread_id + 1 end\n\
         function init(args) made = id end\n\
         function request() made = made + 2 return wrk.format(nil, \"/api/matrix?limit=\" .. (2000 + made % 18000)) end\n",
    )?;
    let figures =
        wrk_with(&base, &["-s", &anew.to_string_lossy()], "", settings.connections, settings.seconds)?;
    table.push_str(&figures.row("`GET /api/matrix?limit=N`, N new each time", "the matrix, none kept"));

    step("the history again, while 4 clients upload runs");
    // Each request numbered in its note, so each is a new run.
    let template = dir.join("upload-template.json");
    std::fs::write(&template, upload("load writer UPLOAD-NUMBER", 3, BUILDS[0], &measurements).to_string())?;
    let script = dir.join("upload.lua");
    std::fs::write(
        &script,
        "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n\
         local file = io.open(os.getenv(\"PQBENCH_UPLOAD\"), \"r\")\nlocal body = file:read(\"*a\")\nfile:close()\n\
         local before, after = body:match(\"^(.*)UPLOAD%-NUMBER(.*)$\")\nlocal n = 0\n\
         function request() n = n + 1 return wrk.format(nil, nil, nil, before .. n .. after) end\n",
    )?;
    let writers = Command::new("wrk")
        .args(["-t1", "-c4", &format!("-d{}s", settings.seconds), "--latency", "-s"])
        .arg(&script)
        .arg(format!("{base}/api/uploads"))
        .env("PQBENCH_UPLOAD", &template)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting wrk")?;
    let readers = wrk(&base, &history, settings)?;
    let writers = Wrk::parse(&String::from_utf8(writers.wait_with_output()?.stdout)?)?;
    table.push_str(&readers.row(&format!("`GET {}`", short(&history)), "history, during uploads"));
    table.push_str(
        &writers
            .row("`POST /api/uploads`", &format!("4 clients uploading {}-result runs", measurements.len())),
    );

    // PostgreSQL checks its pages as it reads them; SQLite is asked.
    let integrity = match store {
        Store::Sqlite(_) => store.query("PRAGMA integrity_check")?,
        Store::Postgres(_) => "ok".into(),
    };
    server.stop();
    if integrity != "ok" {
        bail!("the store is damaged after the load: {integrity}");
    }
    Ok(table)
}

/// A native run's results back as raw measurements in nanoseconds, as a
/// browser or host upload carries them.
fn measurements_of(export: &Value) -> Result<Vec<Value>> {
    let results = export["results"].as_array().context("the export has no results")?;
    let ns = |r: &Value, field: &str| r[field].as_f64().map(|ms| (ms * 1e6).round() as u64);
    let mut measurements = Vec::new();
    for r in results {
        let (Some(iterations), Some(total_s)) = (r["iterations"].as_u64(), r["total_seconds"].as_f64())
        else {
            continue;
        };
        let (Some(min), Some(median), Some(max)) = (ns(r, "min_ms"), ns(r, "median_ms"), ns(r, "max_ms"))
        else {
            continue;
        };
        measurements.push(json!({
            "algorithm": r["algorithm"], "operation": r["operation"], "status": "ok",
            "iterations": iterations, "total_ticks": (total_s * 1e9).round() as u64,
            "min_ticks": min, "median_ticks": median, "max_ticks": max,
            "heap_bytes": r["heap_bytes"], "heap_allocs": r["heap_allocs"], "stack_bytes": r["stack_bytes"],
            "bytes_per_op": null, "needed_bytes": null
        }));
    }
    if measurements.is_empty() {
        bail!("the native run measured nothing");
    }
    Ok(measurements)
}

/// An upload of the native run's measurements on `board` as `opt_level`'s
/// build, with `note` on its first result: a note that numbers it makes
/// each upload content of its own, as real runs' are (the server stores
/// the same upload once), with the same figures.
fn upload(note: &str, board: usize, opt_level: &str, measurements: &[Value]) -> Value {
    let first = &measurements[0];
    json!({
        "source": "native",
        "board": format!("native:load-{board:02}"),
        "ticks_per_second": 1_000_000_000u64,
        "tick_unit": "ns",
        "clock_hz": null,
        "build": {"profile": "release", "opt_level": opt_level, "extra": {"load": "bench-load"}},
        "measurements": measurements,
        "notes": [{"algorithm": first["algorithm"], "operation": first["operation"], "note": note}],
    })
}

/// Long query strings shortened for the table.
fn short(path: &str) -> String {
    path.replace("&limit=20000", "")
}

pub(crate) struct Server(pub Child);

impl Server {
    pub(crate) fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

pub(crate) fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

pub(crate) fn wait_for(base: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !Command::new("curl").args(["-sf", &format!("{base}/api/health")]).output()?.status.success() {
        if Instant::now() > deadline {
            bail!("the server did not come up");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

fn curl_json(base: &str, path: &str, body: &Value) -> Result<Value> {
    let output = Command::new("curl")
        .args(["-sSf", "-H", "Content-Type: application/json", "--data-binary"])
        .arg(body.to_string())
        .arg(format!("{base}{path}"))
        .output()
        .context("running curl")?;
    if !output.status.success() {
        bail!("POST {path} failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(serde_json::from_slice(&output.stdout)?)
}

fn wrk(base: &str, path: &str, settings: &Settings) -> Result<Wrk> {
    wrk_for(base, path, settings.connections, settings.seconds)
}
