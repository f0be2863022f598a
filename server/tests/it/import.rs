//! Importing published logs end to end: the real `pqbench` binary imports
//! a real wolfCrypt log into a real SQLite file, and `pqbench export` must
//! give back the figures the log printed, exactly. The log's figures are
//! read here by a second, deliberately naive reader, so the importer is
//! checked against the file rather than against itself.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::common;

use common::pqbench;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/wolfcrypt-stm32u585-memory.txt");
const ISSUE_24: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/wolfcrypt-issue24-lines.txt");

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn export(db: &Path, run: i64) -> Value {
    serde_json::from_str(&stdout(&pqbench(&["export", "--run", &run.to_string(), "--format", "json"], db)))
        .unwrap()
}

/// Where a wolfCrypt line's name lands in pqbench's names, for the lines of
/// the sample (the importer's own table is wider).
const SAMPLE_NAMES: &[(&str, &str, &str)] = &[
    ("RNG", "RNG", "generate"),
    ("AES-128-CBC-enc", "AES-128-CBC", "encrypt"),
    ("AES-128-CBC-dec", "AES-128-CBC", "decrypt"),
    ("AES-256-CBC-enc", "AES-256-CBC", "encrypt"),
    ("AES-256-CBC-dec", "AES-256-CBC", "decrypt"),
    ("AES-128-GCM-enc", "AES-128-GCM", "encrypt"),
    ("AES-128-GCM-dec", "AES-128-GCM", "decrypt"),
    ("AES-256-GCM-enc", "AES-256-GCM", "encrypt"),
    ("AES-256-GCM-dec", "AES-256-GCM", "decrypt"),
    // The variants without AAD land under their row's names, noted.
    ("AES-128-GCM-enc-no_AAD", "AES-128-GCM", "encrypt"),
    ("AES-128-GCM-dec-no_AAD", "AES-128-GCM", "decrypt"),
    ("AES-256-GCM-enc-no_AAD", "AES-256-GCM", "encrypt"),
    ("AES-256-GCM-dec-no_AAD", "AES-256-GCM", "decrypt"),
    ("GMAC Small", "GMAC", "mac"),
    ("CHACHA", "ChaCha20", "encrypt"),
    ("CHA-POLY", "ChaCha20-Poly1305", "encrypt"),
    ("POLY1305", "Poly1305", "mac"),
    ("SHA-256", "SHA-256", "hash"),
    ("SHA-384", "SHA-384", "hash"),
    ("SHA-512", "SHA-512", "hash"),
    ("SHA-512/224", "SHA-512/224", "hash"),
    ("SHA-512/256", "SHA-512/256", "hash"),
    ("SHA3-224", "SHA3-224", "hash"),
    ("SHA3-256", "SHA3-256", "hash"),
    ("SHA3-384", "SHA3-384", "hash"),
    ("SHA3-512", "SHA3-512", "hash"),
    ("SHAKE128", "SHAKE128", "hash"),
    ("SHAKE256", "SHAKE256", "hash"),
    ("HMAC-SHA256", "HMAC-SHA256", "mac"),
    ("HMAC-SHA384", "HMAC-SHA384", "mac"),
    ("HMAC-SHA512", "HMAC-SHA512", "mac"),
    ("RSA 2048 public", "RSA-2048", "public"),
    ("RSA 2048 private", "RSA-2048", "private"),
    ("DH 2048 key gen", "DH-2048", "keygen"),
    ("DH 2048 agree", "DH-2048", "agree"),
    ("ML-KEM 512 128 key gen", "ML-KEM-512", "keygen"),
    ("ML-KEM 512 128 encap", "ML-KEM-512", "encaps"),
    ("ML-KEM 512 128 decap", "ML-KEM-512", "decaps"),
    ("ML-KEM 768 192 key gen", "ML-KEM-768", "keygen"),
    ("ML-KEM 768 192 encap", "ML-KEM-768", "encaps"),
    ("ML-KEM 768 192 decap", "ML-KEM-768", "decaps"),
    ("ML-KEM 1024 256 key gen", "ML-KEM-1024", "keygen"),
    ("ML-KEM 1024 256 encap", "ML-KEM-1024", "encaps"),
    ("ML-KEM 1024 256 decap", "ML-KEM-1024", "decaps"),
    ("ECC [ SECP256R1] 256 key gen", "ECDH-P256", "keygen"),
    ("ECDHE [ SECP256R1] 256 agree", "ECDH-P256", "agree"),
    ("ECDSA [ SECP256R1] 256 sign", "ECDSA-P256", "sign"),
    ("ECDSA [ SECP256R1] 256 verify", "ECDSA-P256", "verify"),
    ("CURVE 25519 key gen", "X25519", "keygen"),
    ("CURVE 25519 agree", "X25519", "agree"),
    ("ED 25519 key gen", "Ed25519", "keygen"),
    ("ED 25519 sign", "Ed25519", "sign"),
    ("ED 25519 verify", "Ed25519", "verify"),
    ("ML-DSA 44 key gen", "ML-DSA-44", "keygen"),
    ("ML-DSA 44 sign", "ML-DSA-44", "sign"),
    ("ML-DSA 44 verify", "ML-DSA-44", "verify"),
    ("ML-DSA 65 key gen", "ML-DSA-65", "keygen"),
    ("ML-DSA 65 sign", "ML-DSA-65", "sign"),
    ("ML-DSA 65 verify", "ML-DSA-65", "verify"),
    ("ML-DSA 87 key gen", "ML-DSA-87", "keygen"),
    ("ML-DSA 87 sign", "ML-DSA-87", "sign"),
    ("ML-DSA 87 verify", "ML-DSA-87", "verify"),
];

/// A sample line's figures, as the file prints them.
#[derive(Debug)]
struct Printed {
    line: usize,
    name: String,
    ops: Option<u64>,
    seconds: f64,
    avg_ms: Option<f64>,
    ops_per_sec: Option<f64>,
    bytes_per_sec: Option<f64>,
    heap: u64,
    allocs: u64,
    stack: u64,
}

/// The naive reader: split on the words the benchmark prints around its
/// figures ("took", "ops", "avg", "[heap", ...).
fn printed(text: &str) -> Vec<Printed> {
    let mut lines = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let Some((head, tail)) = line.split_once(" took ") else { continue };
        let number = |s: &str| s.trim().trim_end_matches(',').parse::<f64>().unwrap();
        let (figures, memory) = tail.split_once("[heap ").unwrap();
        let memory: Vec<&str> =
            memory.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).collect();
        let [heap, allocs, stack] = [0, 1, 2].map(|i| memory[i].parse::<u64>().unwrap());
        let words: Vec<&str> = figures.split_whitespace().collect();
        let parsed = if head.ends_with(" ops") {
            // "290 ops took 1.004 sec, avg 3.462 ms, 288.845 ops/sec"
            let (name, ops) = head.rsplit_once(' ').unwrap().0.rsplit_once(' ').unwrap();
            Printed {
                line: at + 1,
                name: name.to_string(),
                ops: Some(ops.parse().unwrap()),
                seconds: number(words[0]),
                avg_ms: Some(number(words[3])),
                ops_per_sec: Some(number(words[5].trim_end_matches("ops/sec"))),
                bytes_per_sec: None,
                heap,
                allocs,
                stack,
            }
        } else {
            // "SHA-256 14 MiB took 1.000 seconds, 14.429 MiB/s"
            let name = head.rsplitn(3, ' ').nth(2).unwrap();
            let base = match words[3] {
                "KiB/s" => 1024.0,
                "MiB/s" => 1024.0 * 1024.0,
                unit => panic!("the sample has no {unit}"),
            };
            Printed {
                line: at + 1,
                name: name.to_string(),
                ops: None,
                seconds: number(words[0]),
                avg_ms: None,
                ops_per_sec: None,
                bytes_per_sec: Some(number(words[2]) * base),
                heap,
                allocs,
                stack,
            }
        };
        lines.push(parsed);
    }
    lines
}

fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pqbench.db");
    (dir, db)
}

#[test]
fn an_imported_wolfcrypt_log_exports_the_figures_it_printed() {
    let (_dir, db) = temp_db();
    let output = pqbench(
        &["import", "wolfcrypt", SAMPLE, "--board", "b-u585i-iot02a", "--clock-hz", "160000000"],
        &db,
    );
    let run: i64 = stdout(&output).trim().parse().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();

    let exported = export(&db, run);
    let meta = &exported["run"];
    assert_eq!(meta["source"], "import");
    assert_eq!(meta["status"], "complete");
    assert_eq!(meta["board"], "b-u585i-iot02a");
    assert_eq!(meta["clock_hz"], 160_000_000);
    assert_eq!(meta["build"]["extra"]["imported_from"], "wolfCrypt (version not printed)");
    let results = exported["results"].as_array().unwrap();

    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let lines = printed(&text);
    assert_eq!(lines.len(), 62, "the sample's benchmark lines");
    let mut checked = 0;
    for line in &lines {
        let &(_, algorithm, operation) = SAMPLE_NAMES
            .iter()
            .find(|(name, ..)| *name == line.name)
            .unwrap_or_else(|| panic!("{line:?} has no name here"));
        assert!(!stderr.contains(&format!("line {}: ", line.line)), "line {} listed:\n{stderr}", line.line);
        // A variant's note says so; the row it is a variant of has none.
        let variant = line.name.ends_with("-no_AAD");
        let found: Vec<&Value> = results
            .iter()
            .filter(|r| r["algorithm"] == algorithm && r["operation"] == operation)
            .filter(|r| r["note"].as_str().unwrap_or_default().starts_with("variant:") == variant)
            .collect();
        assert_eq!(found.len(), 1, "{algorithm} {operation} {variant}");
        let r = found[0];
        let figure = |field: &str| r[field].as_f64();
        assert_eq!(r["status"], "ok");
        assert_eq!(r["iterations"].as_u64(), line.ops, "{algorithm} {operation} ops");
        assert_eq!(figure("total_seconds"), Some(line.seconds), "{algorithm} {operation} seconds");
        assert_eq!(figure("avg_ms"), line.avg_ms, "{algorithm} {operation} avg");
        assert_eq!(figure("ops_per_sec"), line.ops_per_sec, "{algorithm} {operation} ops/s");
        assert_eq!(figure("bytes_per_sec"), line.bytes_per_sec, "{algorithm} {operation} throughput");
        assert_eq!(r["heap_bytes"].as_u64(), Some(line.heap), "{algorithm} {operation} heap");
        assert_eq!(r["heap_allocs"].as_u64(), Some(line.allocs), "{algorithm} {operation} allocs");
        assert_eq!(r["stack_bytes"].as_u64(), Some(line.stack), "{algorithm} {operation} stack");
        // Cycles come from the time and the clock the user gave.
        if let Some(avg_ms) = line.avg_ms {
            let cycles = figure("cycles_per_op").unwrap();
            assert!((cycles - avg_ms * 160_000.0).abs() < 1.0, "{algorithm} {operation}: {cycles}");
        }
        checked += 1;
    }
    assert_eq!(checked, SAMPLE_NAMES.len());
    assert_eq!(results.len(), SAMPLE_NAMES.len(), "nothing stored twice or invented");

    // The CSV export carries the same figures.
    let csv = stdout(&pqbench(&["export", "--run", &run.to_string(), "--format", "csv"], &db));
    let keygen = csv.lines().find(|l| l.starts_with("ML-KEM-768,keygen,")).unwrap();
    let fields: Vec<&str> = keygen.split(',').collect();
    let number = |name: &str| {
        let at = pqbench_view::csv::CSV_FIELDS.iter().position(|f| *f == name).unwrap();
        fields[at].parse::<f64>().unwrap()
    };
    for (field, printed) in [
        ("iterations", 176.0),
        ("total_seconds", 1.000),
        ("avg_ms", 5.682),
        ("ops_per_sec", 176.000),
        ("heap_bytes", 2042.0),
        ("heap_allocs", 2.0),
        ("stack_bytes", 1096.0),
        ("cycles_per_op", 909_120.0),
    ] {
        assert_eq!(number(field), printed, "{field} in {keygen}");
    }
}

/// Issue 24's lines (bracketed ECC, pqm4 Kyber, GCM without AAD) come back
/// from both exports with every figure as printed.
#[test]
fn the_issue_24_lines_export_as_printed() {
    let (_dir, db) = temp_db();
    let output = pqbench(&["import", "wolfcrypt", ISSUE_24, "--board", "nucleo-f439zi"], &db);
    let run: i64 = stdout(&output).trim().parse().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("; 0 line(s) not imported"), "a line was left out:\n{stderr}");
    // (algorithm, operation, iterations, seconds, avg ms, ops/s, bytes/s), as printed.
    type Printed = (&'static str, &'static str, Option<u64>, f64, Option<f64>, Option<f64>, Option<f64>);
    let expected: [Printed; 4] = [
        ("ECDH-P256", "keygen", Some(180), 1.007, Some(5.594), Some(178.749), None),
        ("Kyber-512", "keygen", Some(62), 1.004, Some(16.194), Some(61.753), None),
        ("Kyber-512", "encaps_decaps", Some(28), 1.043, Some(37.250), Some(26.846), None),
        ("AES-128-GCM", "encrypt", None, 1.000, None, None, Some(7.983 * 1048576.0)),
    ];
    let exported = export(&db, run);
    let results = exported["results"].as_array().unwrap();
    assert_eq!(results.len(), expected.len());
    let csv = stdout(&pqbench(&["export", "--run", &run.to_string(), "--format", "csv"], &db));
    let column = |name: &str| pqbench_view::csv::CSV_FIELDS.iter().position(|f| *f == name).unwrap();
    for (r, (algorithm, operation, ops, seconds, avg_ms, ops_per_sec, bytes_per_sec)) in
        results.iter().zip(expected)
    {
        assert_eq!((r["algorithm"].as_str(), r["operation"].as_str()), (Some(algorithm), Some(operation)));
        assert_eq!(r["status"], "ok");
        assert_eq!(r["iterations"].as_u64(), ops, "{algorithm} {operation}");
        assert_eq!(r["total_seconds"].as_f64(), Some(seconds), "{algorithm} {operation}");
        assert_eq!(r["avg_ms"].as_f64(), avg_ms, "{algorithm} {operation}");
        assert_eq!(r["ops_per_sec"].as_f64(), ops_per_sec, "{algorithm} {operation}");
        assert_eq!(r["bytes_per_sec"].as_f64(), bytes_per_sec, "{algorithm} {operation}");
        // The CSV row of the same result: its numbers come before the note.
        let row = csv.lines().find(|l| l.starts_with(&format!("{algorithm},{operation},"))).unwrap();
        let fields: Vec<&str> = row.split(',').collect();
        let number = |name: &str| {
            Some(fields[column(name)]).filter(|f| !f.is_empty()).map(|f| f.parse::<f64>().unwrap())
        };
        assert_eq!(number("iterations"), ops.map(|o| o as f64), "{row}");
        assert_eq!(number("total_seconds"), Some(seconds), "{row}");
        assert_eq!(number("avg_ms"), avg_ms, "{row}");
        assert_eq!(number("ops_per_sec"), ops_per_sec, "{row}");
        assert_eq!(number("bytes_per_sec"), bytes_per_sec, "{row}");
    }
    let no_aad = results[3]["note"].as_str().unwrap();
    assert!(no_aad.starts_with("variant: without AAD"), "{no_aad}");
    let ed = results[2]["note"].as_str().unwrap();
    assert!(ed.contains("one encapsulation and one decapsulation timed together"), "{ed}");
}

#[test]
fn the_same_log_is_imported_once_whatever_its_line_endings() {
    let (dir, db) = temp_db();
    let first = pqbench(&["import", "wolfcrypt", SAMPLE], &db);
    let run = stdout(&first).trim().to_string();
    assert_eq!(export(&db, run.parse().unwrap())["run"]["board"], "import:wolfcrypt");

    // The same content saved on Windows, with trailing blanks.
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let crlf = dir.path().join("copy.txt");
    std::fs::write(&crlf, text.lines().map(|l| format!("{l}  \r\n")).collect::<String>()).unwrap();
    let again = pqbench(&["import", "wolfcrypt", crlf.to_str().unwrap(), "--board", "other"], &db);
    assert!(!again.status.success());
    let stderr = String::from_utf8(again.stderr).unwrap();
    assert!(stderr.contains(&format!("imported before, as run {run}")), "{stderr}");
    assert!(export_fails(&db, run.parse::<i64>().unwrap() + 1), "no second run was stored");

    // A changed figure is new content.
    let changed = dir.path().join("changed.txt");
    std::fs::write(&changed, text.replace("176 ops took", "177 ops took")).unwrap();
    let output = pqbench(&["import", "wolfcrypt", changed.to_str().unwrap()], &db);
    assert!(stdout(&output).trim().parse::<i64>().unwrap() > run.parse().unwrap());
}

fn export_fails(db: &Path, run: i64) -> bool {
    !pqbench(&["export", "--run", &run.to_string(), "--format", "json"], db).status.success()
}

#[test]
fn a_file_that_is_not_a_log_is_refused_and_nothing_is_stored() {
    let (dir, db) = temp_db();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "shopping list\nmilk\n").unwrap();
    let output = pqbench(&["import", "wolfcrypt", notes.to_str().unwrap()], &db);
    assert!(!output.status.success());
    assert!(!String::from_utf8(output.stderr).unwrap().is_empty());
    assert!(!db.exists() || export_fails(&db, 1));

    let binary = dir.path().join("image.bin");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    let output = pqbench(&["import", "wolfcrypt", binary.to_str().unwrap()], &db);
    assert!(!output.status.success());
    assert!(String::from_utf8(output.stderr).unwrap().contains("not UTF-8"));

    let output = pqbench(&["import", "wolfcrypt", SAMPLE, "--clock-hz", "0"], &db);
    assert!(!output.status.success());
    assert!(export_fails(&db, 1));
}

#[test]
fn a_pqm4_table_becomes_one_run_per_implementation() {
    let (_dir, db) = temp_db();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/pqm4-2020-excerpt.md");
    let output = pqbench(&["import", "pqm4", path, "--clock-hz", "24000000"], &db);
    let runs: Vec<i64> = stdout(&output).lines().map(|l| l.parse().unwrap()).collect();
    assert!(runs.len() >= 2, "{runs:?}");
    let mut implementations = Vec::new();
    for run in runs {
        let exported = export(&db, run);
        let implementation =
            exported["run"]["build"]["extra"]["implementation"].as_str().unwrap().to_string();
        for r in exported["results"].as_array().unwrap() {
            let cycles = r["cycles_per_op"].as_f64().unwrap();
            assert_eq!(r["tick_unit"], "cycles");
            // Times derived from the cycles at the clock given.
            let avg_ms = r["avg_ms"].as_f64().unwrap();
            assert!((avg_ms - cycles / 24_000.0).abs() < 1e-9, "{r}");
            assert!(r["stack_bytes"].as_u64().is_some(), "{r}");
            assert!(r["heap_bytes"].is_null(), "pqm4 measures no heap");
        }
        implementations.push(implementation);
    }
    implementations.sort();
    implementations.dedup();
    assert_eq!(implementations, ["clean", "m4"]);
}

#[test]
fn a_pqm4_row_keeps_every_figure_of_its_four_tables() {
    let (_dir, db) = temp_db();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/samples/pqm4-2020-excerpt.md");
    let output = pqbench(&["import", "pqm4", path, "--board", "stm32f4discovery"], &db);
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    let runs: Vec<i64> = stdout(&output).lines().map(|l| l.parse().unwrap()).collect();
    // saber, which no standard names, lands under pqm4's own spelling.
    assert!(stderr.contains("0 line(s) not imported"), "{stderr}");
    let clean = runs
        .iter()
        .map(|&run| export(&db, run))
        .find(|e| e["run"]["build"]["extra"]["implementation"] == "clean")
        .unwrap();
    let saber = clean["results"].as_array().unwrap().iter().find(|r| r["algorithm"] == "saber").unwrap();
    assert_eq!(
        (&saber["operation"], &saber["cycles_per_op"]),
        (&Value::from("keygen"), &Value::from(2_132_294.0))
    );
    let m4 = runs
        .iter()
        .map(|&run| export(&db, run))
        .find(|e| e["run"]["build"]["extra"]["implementation"] == "m4")
        .unwrap();
    assert_eq!(m4["run"]["board"], "stm32f4discovery");
    let row = |algorithm: &str, operation: &str| -> Value {
        m4["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["algorithm"] == algorithm && r["operation"] == operation)
            .cloned()
            .unwrap_or_else(|| panic!("{algorithm} {operation}"))
    };
    // | kyber768 (100 executions) | m4 | AVG: 763,979 <br /> MIN: 761,596 <br /> MAX: 788,310 | ...
    // | kyber768 | m4 | 3,276 | ... (stack)   | kyber768 | m4 | 10,872 | 0 | 0 | 10,872 | (size)
    // Round 3 Kyber and Dilithium, stored under their own names, never
    // ML-KEM's or ML-DSA's (issue 24).
    let keygen = row("Kyber-768", "keygen");
    assert_eq!(keygen["cycles_per_op"].as_f64(), Some(763_979.0));
    assert_eq!(keygen["iterations"].as_u64(), Some(100));
    assert_eq!(keygen["stack_bytes"].as_u64(), Some(3_276));
    assert_eq!(keygen["code_bytes"].as_u64(), Some(10_872));
    assert!(keygen["avg_ms"].is_null(), "no clock given, so no time: {keygen}");
    let note = keygen["note"].as_str().unwrap();
    assert!(note.contains("761,596") && note.contains("788,310"), "min and max cycles kept: {note}");
    // | dilithium3 (100 executions) | m4 | ... | AVG: 6,480,747 <br /> MIN: 2,392,221 <br /> MAX: 23,557,165 | ...
    let sign = row("Dilithium-3", "sign");
    assert_eq!(sign["cycles_per_op"].as_f64(), Some(6_480_747.0));
    assert_eq!(sign["stack_bytes"].as_u64(), Some(52_756));
    assert_eq!(sign["code_bytes"].as_u64(), Some(20_188));
    assert_eq!(row("Kyber-768", "decaps")["stack_bytes"].as_u64(), Some(2_988));
    let fips = m4["results"].as_array().unwrap().iter().filter(|r| r["algorithm"] == "ML-KEM-768").count();
    assert_eq!(fips, 0);
}

#[tokio::test]
async fn the_api_previews_before_it_stores_and_refuses_a_second_import() {
    let server = common::start_server(&[]).await;
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let request = json!({
        "format": "wolfcrypt", "text": text, "file_name": "wolfcrypt-stm32u585-memory.txt",
        "board": "b-u585i-iot02a", "clock_hz": 160_000_000u64,
    });

    let (status, preview) = server.post("/api/imports/preview", &request).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["runs"][0]["results"].as_array().unwrap().len(), SAMPLE_NAMES.len());
    let unread: Vec<u64> =
        preview["unread"].as_array().unwrap().iter().map(|u| u["line"].as_u64().unwrap()).collect();
    assert_eq!(unread, [] as [u64; 0], "every line is read, the -no_AAD ones as variants");
    assert_eq!(preview["already_imported_as"], json!([]));
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert!(runs.is_empty(), "a preview stores nothing");

    let (status, stored) = server.post("/api/imports", &request).await;
    assert_eq!(status, 201, "{stored}");
    let id = stored["runs"][0].as_i64().unwrap();
    assert_eq!(stored["unread_lines"], 0);

    let (status, preview) = server.post("/api/imports/preview", &request).await;
    assert_eq!(status, 200);
    assert_eq!(preview["already_imported_as"], json!([id]));
    let (status, refused) = server.post("/api/imports", &request).await;
    assert_eq!(status, 409);
    assert!(refused["error"].as_str().unwrap().contains(&format!("as run {id}")), "{refused}");
    let runs: Vec<Value> = server.get("/api/runs").await;
    assert_eq!(runs.len(), 1);

    for (bad, why) in [
        (json!({"format": "wolfcrypt", "text": "hello\n"}), "not a log"),
        (json!({"format": "iperf", "text": text}), "unknown format"),
        (json!({"format": "wolfcrypt", "text": text, "board": "a\u{7}b"}), "control character"),
        (json!({"format": "wolfcrypt", "text": text, "clock_hz": 0}), "no clock"),
    ] {
        let (status, body) = server.post("/api/imports/preview", &bad).await;
        assert!((400..500).contains(&status), "{why}: {status} {body}");
        assert!(body["error"].is_string(), "{why}: {body}");
    }
}
