//! Acceptance tests of the pqm4 parser. The excerpt is rows of pqm4's
//! benchmarks.md (2024–25), unchanged: ml-kem-768 in every table, ml-dsa-65
//! in the memory and hashing tables only (so a scheme without speed or size
//! rows is tested too), hqc-128 (a name for imports only) and falcon-512
//! (Falcon before FN-DSA). `the_final_table_lands_whole` reads pqm4's whole
//! final table, and older tables of pqm4 and pqm3 are read the same way.

use super::*;
use crate::{BenchResult, UnreadLine};

const EXCERPT: &str = include_str!("../../../../tests/samples/pqm4-2025-excerpt.md");

fn group<'a>(log: &'a Log, implementation: &str) -> &'a [BenchResult] {
    &log.groups.iter().find(|g| g.implementation.as_deref() == Some(implementation)).unwrap().results
}

fn find<'a>(
    log: &'a Log,
    implementation: &str,
    algorithm: Algorithm,
    operation: Operation,
) -> &'a BenchResult {
    group(log, implementation)
        .iter()
        .find(|r| r.algorithm == algorithm && r.operation == operation)
        .unwrap_or_else(|| panic!("no {algorithm} {operation} of {implementation}"))
}

#[test]
fn the_excerpt_is_read_whole() {
    let log = parse(EXCERPT, None).unwrap();
    assert_eq!(log.format, Format::Pqm4);
    assert_eq!(log.version, None);
    let implementations: Vec<&str> =
        log.groups.iter().map(|g| g.implementation.as_deref().unwrap()).collect();
    assert_eq!(implementations, ["clean", "m4fspeed", "m4fstack", "m4f"], "order of first appearance");
    let counts: Vec<usize> = log.groups.iter().map(|g| g.results.len()).collect();
    assert_eq!(counts, [12, 3, 6, 3]);
    let order: Vec<(Algorithm, Operation)> =
        group(&log, "clean").iter().map(|r| (r.algorithm, r.operation)).collect();
    assert_eq!(
        order,
        [
            (Algorithm::Hqc128, Operation::Keygen),
            (Algorithm::Hqc128, Operation::Encaps),
            (Algorithm::Hqc128, Operation::Decaps),
            (Algorithm::MlKem768, Operation::Keygen),
            (Algorithm::MlKem768, Operation::Encaps),
            (Algorithm::MlKem768, Operation::Decaps),
            (Algorithm::Falcon512, Operation::Keygen),
            (Algorithm::Falcon512, Operation::Sign),
            (Algorithm::Falcon512, Operation::Verify),
            (Algorithm::MlDsa65, Operation::Keygen),
            (Algorithm::MlDsa65, Operation::Sign),
            (Algorithm::MlDsa65, Operation::Verify),
        ]
    );
    // Headings (12), table headers (8) and rules (8) understood; every
    // other row gave results, none is left unread.
    assert_eq!(log.understood_lines, 28);
    assert_eq!(log.unread, []);
    let non_blank = EXCERPT.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(non_blank, 54);
    assert_eq!(log.understood_lines + 26, non_blank);
    // hqc-128 under pqm4's own spelling, never a standard's; falcon-512 as
    // Falcon, saying it is not FN-DSA.
    let hqc = find(&log, "clean", Algorithm::Hqc128, Operation::Decaps);
    assert_eq!(Algorithm::Hqc128.as_str(), "hqc-128");
    assert_eq!(
        (hqc.cycles_per_op, hqc.stack_bytes, hqc.code_bytes),
        (Some(159_569_179.0), Some(55_892), Some(18_628))
    );
    let falcon = find(&log, "clean", Algorithm::Falcon512, Operation::Keygen);
    assert!(
        falcon.note.as_deref().unwrap().starts_with("Falcon (falcon-512, as printed), not FN-DSA"),
        "{:?}",
        falcon.note
    );
}

#[test]
fn every_figure_without_a_clock() {
    let log = parse(EXCERPT, None).unwrap();
    // | ml-kem-768 (10 executions) | m4fspeed | AVG: 642,096 <br /> MIN: 639,116 <br /> MAX: 651,103 | ...
    // | ml-kem-768 | m4fspeed | 5,396 | 6,468 | 6,452 |
    // | ml-kem-768 | m4fspeed | 74.5% | 74.4% | 69.2% |
    // | ml-kem-768 | m4fspeed | 16,016 | 0 | 0 | 16,016 |
    let keygen = find(&log, "m4fspeed", Algorithm::MlKem768, Operation::Keygen);
    let expected = BenchResult {
        iterations: Some(10),
        cycles_per_op: Some(642_096.0),
        ticks_per_op: Some(642_096.0),
        tick_unit: Some("cycles".into()),
        stack_bytes: Some(5396),
        code_bytes: Some(16_016),
        note: Some(
            "cycles min 639,116, max 651,103; hashing 74.5% of cycles; .text 16,016 B, .data 0 B, .bss 0 B"
                .into(),
        ),
        key_format: Some(pqbench_types::KeyFormat::Encoded),
        ..bare_result(Algorithm::MlKem768, Operation::Keygen)
    };
    assert_eq!(keygen, &expected);
    let decaps = find(&log, "clean", Algorithm::MlKem768, Operation::Decaps);
    assert_eq!(
        (decaps.cycles_per_op, decaps.stack_bytes, decaps.code_bytes),
        (Some(1_387_984.0), Some(14_480), Some(5120))
    );
    assert_eq!(
        decaps.note.as_deref(),
        Some(
            "cycles min 1,385,144, max 1,397,397; hashing 35.4% of cycles; .text 5,120 B, .data 0 B, .bss 0 B"
        )
    );
    let encaps = find(&log, "m4fstack", Algorithm::MlKem768, Operation::Encaps);
    assert_eq!((encaps.cycles_per_op, encaps.stack_bytes), (Some(664_654.0), Some(2860)));
    // | ml-dsa-65 | m4fstack | 4,408 | 6,616 | 2,712 |   (memory)
    // | ml-dsa-65 | m4fstack | 77.1% | 54.2% | 41.0% |   (hashing)
    // and no speed or size row: those figures stay None.
    let sign = find(&log, "m4fstack", Algorithm::MlDsa65, Operation::Sign);
    let expected = BenchResult {
        stack_bytes: Some(6616),
        note: Some("hashing 54.2% of cycles".into()),
        key_format: Some(pqbench_types::KeyFormat::Encoded),
        ..bare_result(Algorithm::MlDsa65, Operation::Sign)
    };
    assert_eq!(sign, &expected);
    let verify = find(&log, "m4f", Algorithm::MlDsa65, Operation::Verify);
    assert_eq!((verify.cycles_per_op, verify.stack_bytes, verify.code_bytes), (None, Some(9888), None));
    for r in log.results() {
        assert_eq!(
            (r.avg_ms, r.min_ms, r.max_ms, r.ops_per_sec, r.total_seconds),
            (None, None, None, None, None)
        );
        assert_eq!((r.heap_bytes, r.heap_allocs, r.bytes_per_sec), (None, None, None), "pqm4 uses no heap");
    }
}

#[test]
fn a_clock_gives_times() {
    let log = parse(EXCERPT, Some(24_000_000)).unwrap();
    let keygen = find(&log, "m4fspeed", Algorithm::MlKem768, Operation::Keygen);
    assert_eq!(keygen.cycles_per_op, Some(642_096.0));
    assert_eq!(keygen.avg_ms, Some(642_096.0 * 1000.0 / 24e6));
    assert_eq!(keygen.min_ms, Some(639_116.0 * 1000.0 / 24e6));
    assert_eq!(keygen.max_ms, Some(651_103.0 * 1000.0 / 24e6));
    assert_eq!(keygen.ops_per_sec, Some(24e6 / 642_096.0));
    // The NIST API's keys are bytes; pqm4 gives no percentile.
    assert_eq!(keygen.key_format, Some(pqbench_types::KeyFormat::Encoded));
    assert_eq!((keygen.p10_ms, keygen.p90_ms, keygen.p99_ms), (None, None, None));
    assert!((keygen.avg_ms.unwrap() - 26.754).abs() < 0.001);
    assert_eq!(
        keygen.note.as_deref(),
        Some(
            "times from cycles at 24000000 Hz (the clock given at import); hashing 74.5% of cycles; .text 16,016 B, .data 0 B, .bss 0 B"
        )
    );
    // A zero clock gives no times (and no division by zero).
    let log = parse(EXCERPT, Some(0)).unwrap();
    assert_eq!(find(&log, "clean", Algorithm::MlDsa65, Operation::Sign).avg_ms, None);
}

// mupq's CsvConverter: titles padded with commas, "(mean)/(min)/(max)" columns, plain integers.
#[test]
fn the_csv_form() {
    let text = "\
Speed Evaluation,,,,,,,,,,
Key Encapsulation Schemes,,,,,,,,,,
Scheme,Implementation,Key Generation [cycles] (mean),Key Generation [cycles] (min),Key Generation [cycles] (max),Encapsulation [cycles] (mean),Encapsulation [cycles] (min),Encapsulation [cycles] (max),Decapsulation [cycles] (mean),Decapsulation [cycles] (min),Decapsulation [cycles] (max)
kyber768 (100 executions),m4,763979,761596,788310,923856,921477,948186,862176,859797,886506
kyber768-90s (100 executions),m4,660765,656834,665216,741256,737325,745707,754570,750639,759021
Signature Schemes,,,,,,,,,,
Scheme,Implementation,Key Generation [cycles] (mean),Key Generation [cycles] (min),Key Generation [cycles] (max),Sign [cycles] (mean),Sign [cycles] (min),Sign [cycles] (max),Verify [cycles] (mean),Verify [cycles] (min),Verify [cycles] (max)
dilithium3 (100 executions),m4,1989249,1988511,1990289,6480747,2392221,23557165,1913130,1912282,1913833
dilithium4 (100 executions),m4,2837216,2836824,2837662,6449214,3302923,14659109,2719554,2718738,2720437
Memory Evaluation,,,,,,,,,,
Key Encapsulation Schemes,,,,,,,,,,
Scheme,Implementation,Key Generation [bytes],Encapsulation [bytes],Decapsulation [bytes],,,,,,
kyber768,m4,3276,2964,2988,,,,,,
";
    let log = parse(text, None).unwrap();
    assert_eq!(log.groups.len(), 1);
    // Round 3 rows stay under their own names (the issue 24 rule: Kyber
    // is not ML-KEM), the FIPS names hold none of them.
    assert!(log.results().all(|r| !matches!(r.algorithm, Algorithm::MlKem768 | Algorithm::MlDsa65)));
    let decaps = find(&log, "m4", Algorithm::Kyber768, Operation::Decaps);
    assert_eq!(
        (decaps.iterations, decaps.cycles_per_op, decaps.stack_bytes),
        (Some(100), Some(862_176.0), Some(2988))
    );
    assert_eq!(
        decaps.note.as_deref(),
        Some("Kyber round 3 (kyber768, as printed), not ML-KEM-768; cycles min 859797, max 886506")
    );
    let sign = find(&log, "m4", Algorithm::Dilithium3, Operation::Sign);
    assert_eq!(sign.cycles_per_op, Some(6_480_747.0));
    assert!(
        sign.note
            .as_deref()
            .unwrap()
            .starts_with("Dilithium round 3 (dilithium3, as printed), not ML-DSA-65")
    );
    let reasons: Vec<(u64, &str)> = log.unread.iter().map(|u| (u.line, u.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            (
                5,
                "no pqbench name for pqm4's kyber768-90s: Kyber's 90s variant (AES/SHA-2), neither ML-KEM nor round 3's Kyber"
            ),
            (
                9,
                "no pqbench name for pqm4's dilithium4: a round-2 Dilithium parameter set, neither ML-DSA nor round 3's"
            ),
        ]
    );
    assert_eq!(log.understood_lines, 8);
}

#[test]
fn malformed_and_duplicate_rows_are_refused() {
    let text = "\
| scheme | implementation | key generation [cycles] | encapsulation [cycles] | decapsulation [cycles] |
| ------ | -------------- | ----------------------- | ---------------------- | ---------------------- |
| ml-kem-512 (10 executions) | clean | AVG: 595,793 <br /> MIN: 595,576 <br /> MAX: 595,971 | AVG: 700,605 <br /> MIN: 700,383 <br /> MAX: 700,779 | AVG: 888,653 <br /> MIN: 888,436 <br /> MAX: 888,831 |
| ml-kem-512 (10 executions) | clean | AVG: 1 <br /> MIN: 1 <br /> MAX: 1 | AVG: 1 <br /> MIN: 1 <br /> MAX: 1 | AVG: 1 <br /> MIN: 1 <br /> MAX: 1 |
| ml-kem-1024 (10 executions) | clean | AVG: 1,536,34 <br /> MIN: 1 <br /> MAX: 1 | AVG: 1 | AVG: 1 |
| ml-kem-1024 (ten executions) | clean | AVG: 1 | AVG: 1 | AVG: 1 |
| ml-kem-1024 (10 executions) | clean | MIN: 1 | AVG: 1 | AVG: 1 |
| ml-kem-1024 (10 executions) | clean | AVG: 1 |
| ml-dsa-44 (10 executions) | clean | AVG: 1 | AVG: 1 | AVG: 1 |
| Scheme | Implementation | Key Generation [%] | Encapsulation [%] | Decapsulation [%] |
| ml-kem-512 | clean | 49.8 | 41.1% | 32.5% |
a stray line
";
    let log = parse(text, None).unwrap();
    assert_eq!(log.results().count(), 3);
    let reasons: Vec<(u64, &str)> = log.unread.iter().map(|u| (u.line, u.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            (4, "second speed row for ml-kem-512 clean; the first is kept"),
            (5, "malformed cycle count \"1,536,34\""),
            (6, "malformed scheme cell \"ml-kem-1024 (ten executions)\""),
            (7, "a cycles cell without its AVG"),
            (8, "3 cells where the table's header has 5"),
            (9, "ml-dsa-44 under a \"encaps\" column: a KEM's row in a signature table or the reverse"),
            (11, "malformed hashing share \"49.8\""),
            (12, "not a line of pqm4's benchmarks (markdown or CSV)"),
        ]
    );
    assert_eq!(find(&log, "clean", Algorithm::MlKem512, Operation::Keygen).cycles_per_op, Some(595_793.0));
}

#[test]
fn a_row_without_a_header_is_reported() {
    let log = parse("| ml-kem-768 | clean | 10,248 | 13,384 | 14,480 |\n", None);
    assert_eq!(log, Err(ParseError::NothingRecognized { format: Format::Pqm4 }));
    let text = "| ml-kem-768 | clean | 10,248 | 13,384 | 14,480 |\n| Scheme | Implementation | Key Generation [bytes] | Encapsulation [bytes] | Decapsulation [bytes] |\n| ml-kem-768 | clean | 10,248 | 13,384 | 14,480 |\n";
    let log = parse(text, None).unwrap();
    assert_eq!(
        log.unread,
        [UnreadLine {
            line: 1,
            text: "| ml-kem-768 | clean | 10,248 | 13,384 | 14,480 |".into(),
            reason: "a table row without a header row before it".into(),
        }]
    );
    // Memory only: a result with its stack and nothing else.
    let r = find(&log, "clean", Algorithm::MlKem768, Operation::Encaps);
    assert_eq!(
        (r.stack_bytes, r.cycles_per_op, r.iterations, r.note.as_deref()),
        (Some(13_384), None, None, None)
    );
}

#[test]
fn a_wolfcrypt_log_is_not_pqm4() {
    let sample = include_str!("../../../../tests/samples/wolfcrypt-stm32u585-memory.txt");
    assert_eq!(parse(sample, None), Err(ParseError::NothingRecognized { format: Format::Pqm4 }));
}

#[test]
fn the_log_serializes_with_format_names() {
    let log = parse(EXCERPT, None).unwrap();
    let json = serde_json::to_value(&log).unwrap();
    assert_eq!(json["format"], "pqm4");
    assert_eq!(json["groups"][0]["implementation"], "clean");
    assert_eq!(json["groups"][0]["results"][0]["algorithm"], "hqc-128");
    assert_eq!(json["groups"][0]["results"][3]["algorithm"], "ML-KEM-768");
    assert_eq!(json["groups"][0]["results"][3]["code_bytes"], 5120);
    assert_eq!(json["unread"], serde_json::json!([]));
}

// An upload at the line bound must cost a linear pass, not a search of
// every row per row.
#[test]
fn many_implementations_stay_quick() {
    let mut text = String::from(
        "| Scheme | Implementation | Key Generation [bytes] | Encapsulation [bytes] | Decapsulation [bytes] |\n",
    );
    for i in 0..(crate::MAX_LINES - 1) {
        text.push_str(&format!("| ml-kem-768 | impl{i} | 1 | 2 | 3 |\n"));
    }
    let started = std::time::Instant::now();
    let log = parse(&text, None).unwrap();
    assert_eq!(log.groups.len(), crate::MAX_LINES - 1);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

const FINAL: &str = include_str!("../../../../tests/samples/pqm4-2026-benchmarks.md");

/// A speed cell's three figures as printed (`AVG: 1,234 <br /> MIN: ...`),
/// read here apart from the parser, so that the test does not check the
/// parser against itself.
fn printed_figures(cell: &str) -> [u64; 3] {
    let figures: Vec<u64> = cell
        .split("<br />")
        .map(|part| part.split(':').nth(1).unwrap().trim().replace(',', "").parse().unwrap())
        .collect();
    [figures[0], figures[1], figures[2]]
}

#[test]
fn the_final_table_lands_whole_with_every_figure_as_printed() {
    let clock = 24_000_000.0;
    let log = parse(FINAL, Some(24_000_000)).unwrap();
    assert_eq!(log.unread, [], "every row of pqm4's final table lands");
    assert_eq!(log.results().count(), 414, "138 (scheme, implementation) rows of 3 operations");

    let mut operations = [Operation::Keygen, Operation::Encaps, Operation::Decaps];
    let mut checked = 0;
    for line in FINAL.lines().take_while(|line| !line.starts_with("# Memory")) {
        if line.starts_with("## Signature") {
            operations = [Operation::Keygen, Operation::Sign, Operation::Verify];
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Some((scheme, _)) = cells[0].split_once(" (") else { continue };
        let (algorithm, _) = names::scheme_name(scheme).unwrap();
        for (operation, cell) in operations.into_iter().zip(&cells[2..]) {
            let [avg, min, max] = printed_figures(cell);
            let r = find(&log, cells[1], algorithm, operation);
            let what = format!("{scheme} {} {operation}", cells[1]);
            assert_eq!(r.cycles_per_op, Some(avg as f64), "{what}");
            assert_eq!(r.min_ms, Some(min as f64 * 1000.0 / clock), "{what}");
            assert_eq!(r.max_ms, Some(max as f64 * 1000.0 / clock), "{what}");
            // Every row has its stack, hashing and size rows too.
            assert!(r.stack_bytes.is_some() && r.code_bytes.is_some(), "{what}");
            assert!(r.note.as_deref().is_some_and(|n| n.contains("% of cycles")), "{what}: {:?}", r.note);
            checked += 1;
        }
    }
    assert_eq!(checked, 414);
    // Spot checks against the printed memory, hashing and size rows.
    let hawk = find(&log, "ref", Algorithm::Hawk512, Operation::Sign);
    assert_eq!(Algorithm::Hawk512.as_str(), "hawk512");
    assert_eq!((hawk.cycles_per_op, hawk.stack_bytes), (Some(1_972_051.0), Some(4_856)));
    let sphincs = find(&log, "clean", Algorithm::SphincsSha2_128fSimple, Operation::Sign);
    assert_eq!(sphincs.key_format, Some(pqbench_types::KeyFormat::Encoded));
}

#[test]
fn pqm4s_first_table_lands_under_its_own_names() {
    let log = parse(include_str!("../../../../tests/samples/pqm4-2019-excerpt.md"), None).unwrap();
    assert_eq!(log.unread, []);
    // 7 speed rows of 3 operations; the memory rows add to them.
    assert_eq!(log.results().count(), 21);
    let sike = find(&log, "ref", Algorithm::Sikep751, Operation::Decaps);
    assert_eq!((sike.cycles_per_op, sike.stack_bytes), (Some(5_742_073_708.0), Some(12_352)));
    assert_eq!(sike.iterations, Some(1));
    let qtesla = find(&log, "ref", Algorithm::QTeslaI, Operation::Verify);
    assert_eq!((qtesla.cycles_per_op, qtesla.stack_bytes), (Some(1_051_553.0), Some(23_096)));
    // Round 1 Dilithium ("dilithium", no set) is neither round 3's nor ML-DSA.
    let dilithium = find(&log, "m4", Algorithm::Dilithium, Operation::Sign);
    assert_eq!(
        (dilithium.cycles_per_op, dilithium.note.as_deref()),
        (Some(9_456_759.0), Some("cycles min 3,118,360, max 45,556,652"))
    );
    assert_ne!(Algorithm::Dilithium, Algorithm::Dilithium3);
    let names: Vec<&str> = log.results().map(|r| r.algorithm.as_str()).collect();
    for name in ["frodokem640shake", "newhope1024cca", "sntrup4591761", "sphincs-shake256-128f-simple"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
}

#[test]
fn pqm3s_cortex_m3_table_lands_as_pqm4s_does() {
    let log = parse(include_str!("../../../../tests/samples/pqm3-f207zg-excerpt.md"), None).unwrap();
    assert_eq!(log.unread, []);
    assert_eq!(log.results().count(), 18);
    let kyber = find(&log, "m3", Algorithm::Kyber768, Operation::Decaps);
    assert_eq!((kyber.cycles_per_op, kyber.stack_bytes), (Some(1_022_257.0), Some(2812)));
    assert!(
        kyber.note.as_deref().unwrap().starts_with("Kyber round 3 (kyber768, as printed), not ML-KEM-768")
    );
    let firesaber = find(&log, "m3speed", Algorithm::Firesaber, Operation::Keygen);
    assert_eq!((firesaber.cycles_per_op, firesaber.stack_bytes), (Some(1_498_378.0), Some(7692)));
    let aes = find(&log, "clean", Algorithm::Dilithium2aes, Operation::Sign);
    assert!(aes.note.as_deref().unwrap().contains("hashing 3.1% of cycles"), "{:?}", aes.note);
    let picnic = find(&log, "opt-mem", Algorithm::Picnic3l1, Operation::Verify);
    assert_eq!(
        (picnic.cycles_per_op, picnic.stack_bytes, picnic.code_bytes),
        (Some(213_779_607.0), Some(32_452), Some(93_837))
    );
}
