//! The view's own tests: queries that read back as they were written,
//! orders, filters and sentences.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use pqbench_types::{BenchResult, Family, ResultRow, Source, Status};

fn row(algorithm: Algorithm, operation: Operation, ops: Option<f64>, stack: Option<u64>) -> BenchResult {
    let status = if ops.is_some() { Status::Ok } else { Status::DoesNotFit };
    BenchResult {
        avg_ms: ops.map(|o| 1000.0 / o),
        ops_per_sec: ops,
        stack_bytes: stack,
        ..BenchResult::unmeasured(algorithm, operation, status)
    }
}

fn rows() -> Vec<BenchResult> {
    vec![
        row(Algorithm::MlKem768, Operation::Keygen, Some(300.0), Some(20_000)),
        row(Algorithm::MlDsa65, Operation::Sign, None, None),
        row(Algorithm::X25519, Operation::Agree, Some(500.0), Some(2_000)),
        row(Algorithm::MlKem768, Operation::Encaps, Some(300.0), Some(21_000)),
        row(Algorithm::Sha256, Operation::Hash, Some(90_000.0), Some(100)),
    ]
}

fn names(kept: &[&BenchResult]) -> Vec<(&'static str, &'static str)> {
    kept.iter().map(|r| (r.algorithm.as_str(), r.operation.as_str())).collect()
}

#[test]
fn sorting_is_stable_both_ways_and_leaves_rows_without_a_figure_last() {
    let rows = rows();
    let by = |column, descending| View { sort: Some(Sort { column, descending }), ..View::default() };
    assert_eq!(
        names(&by(Column::OpsPerSec, false).apply(&rows)),
        [
            ("ML-KEM-768", "keygen"),
            ("ML-KEM-768", "encaps"),
            ("X25519", "agree"),
            ("SHA-256", "hash"),
            ("ML-DSA-65", "sign")
        ]
    );
    assert_eq!(
        names(&by(Column::OpsPerSec, true).apply(&rows)),
        [
            ("SHA-256", "hash"),
            ("X25519", "agree"),
            ("ML-KEM-768", "keygen"),
            ("ML-KEM-768", "encaps"),
            ("ML-DSA-65", "sign")
        ]
    );
    // Average is the inverse of ops/s: the same rows, the other way round.
    assert_eq!(
        names(&by(Column::AvgMs, false).apply(&rows))[..2],
        [("SHA-256", "hash"), ("X25519", "agree")]
    );
    assert_eq!(names(&by(Column::StackBytes, true).apply(&rows))[0], ("ML-KEM-768", "encaps"));
}

#[test]
fn filters_keep_what_was_chosen_and_empty_keeps_all() {
    let rows = rows();
    assert_eq!(View::default().apply(&rows).len(), rows.len());
    let pqc = View {
        filter: Filter { families: vec![Family::PostQuantum], ..Filter::default() },
        ..View::default()
    };
    assert_eq!(pqc.apply(&rows).len(), 3);
    let keygen = View {
        filter: Filter {
            families: vec![Family::PostQuantum],
            operations: vec![Operation::Keygen],
            ..Filter::default()
        },
        ..View::default()
    };
    assert_eq!(names(&keygen.apply(&rows)), [("ML-KEM-768", "keygen")]);
}

#[test]
fn a_view_reads_back_from_its_json() {
    let view = View {
        runs: vec![3, 7],
        filter: Filter { algorithms: vec![Algorithm::MlKem768], ..Filter::default() },
        sort: Some(Sort { column: Column::StackBytes, descending: true }),
        log_scale: true,
        title: Some("ML-KEM on two boards".into()),
        history: None,
        matrix: None,
    };
    let json = serde_json::to_string(&view).unwrap();
    assert!(json.contains(r#""column":"stack_bytes""#), "{json}");
    assert_eq!(serde_json::from_str::<View>(&json).unwrap(), view);
    assert!(serde_json::from_str::<View>(r#"{"sort_by":"x"}"#).is_err(), "unknown fields are refused");
}

#[test]
fn runs_compare_side_by_side_with_ratios_to_the_first() {
    let on = |run_id: i64, result: BenchResult| ResultRow {
        run_id,
        board: "b".into(),
        source: pqbench_types::Source::Serial,
        started_at: String::new(),
        build_label: String::new(),
        run_status: pqbench_types::RunStatus::Complete,
        result,
    };
    let rows = vec![
        on(2, row(Algorithm::X25519, Operation::Agree, Some(2000.0), None)),
        on(2, row(Algorithm::MlKem768, Operation::Keygen, Some(4000.0), None)),
        on(1, row(Algorithm::MlKem768, Operation::Keygen, Some(500.0), None)),
        on(1, row(Algorithm::MlDsa65, Operation::Sign, None, None)),
    ];
    let lines = compare(&[1, 2], &rows, &Filter::default());
    let names: Vec<_> = lines.iter().map(|l| (l.algorithm.as_str(), l.operation.as_str())).collect();
    assert_eq!(names, [("ML-KEM-768", "keygen"), ("ML-DSA-65", "sign"), ("X25519", "agree")]);
    assert_eq!(lines[0].ratio(Column::OpsPerSec, 1), Some(8.0));
    assert_eq!(lines[0].ratio(Column::AvgMs, 1), Some(0.125));
    assert_eq!(lines[1].ratio(Column::OpsPerSec, 1), None, "no figure, no ratio");
    assert_eq!(lines[2].by_run[0], None, "run 1 did not measure X25519");
    assert_eq!(lines[2].ratio(Column::OpsPerSec, 1), None);
    let pqc = Filter { families: vec![Family::PostQuantum], ..Filter::default() };
    assert_eq!(compare(&[1, 2], &rows, &pqc).len(), 2);
}

#[test]
fn a_post_quantum_kind_keeps_its_rows_and_pqc_keeps_them_all() {
    let rows = vec![
        row(Algorithm::MlKem768, Operation::Encaps, Some(1.0), None),
        row(Algorithm::MlDsa65, Operation::Sign, Some(1.0), None),
        row(Algorithm::SphincsPlus128f, Operation::Sign, Some(1.0), None),
        row(Algorithm::X25519, Operation::Agree, Some(1.0), None),
        row(Algorithm::XWing, Operation::Decaps, Some(1.0), None),
        row(Algorithm::SlhDsaSha2_128f, Operation::Verify, Some(1.0), None),
    ];
    let kept = |families: Vec<Family>| -> Vec<&str> {
        let view = View { filter: Filter { families, ..Filter::default() }, ..View::default() };
        view.apply(&rows).iter().map(|r| r.algorithm.as_str()).collect()
    };
    assert_eq!(kept(vec![Family::Kem]), ["ML-KEM-768"]);
    assert_eq!(kept(vec![Family::Signature]), ["ML-DSA-65"]);
    assert_eq!(kept(vec![Family::HashBasedSignature]), ["SPHINCS+-128f", "SLH-DSA-SHA2-128f"]);
    assert_eq!(
        kept(vec![Family::PostQuantum]),
        ["ML-KEM-768", "ML-DSA-65", "SPHINCS+-128f", "X-Wing", "SLH-DSA-SHA2-128f"]
    );
    assert_eq!(kept(vec![Family::Kem, Family::Classical]), ["ML-KEM-768", "X25519"]);
    assert_eq!(kept(vec![Family::HybridKem]), ["X-Wing"], "a hybrid is not counted a plain KEM");
    // A link says the kind as its name, and reads back.
    let view = View {
        filter: Filter { families: vec![Family::HashBasedSignature], ..Filter::default() },
        ..View::default()
    };
    let query = view.to_query();
    assert!(query.contains("family=hash-based-signature"), "{query}");
    assert_eq!(View::from_query(&query).unwrap(), view);
}

#[test]
fn a_table_draws_only_the_columns_some_row_has_a_figure_in() {
    let timed = BenchResult {
        avg_ms: Some(1.0),
        p90_ms: Some(1.2),
        ticks_per_op: Some(1000.0),
        tick_unit: Some("qemu-instructions/1".into()),
        ..row(Algorithm::MlKem768, Operation::Keygen, Some(1.0), Some(2048))
    };
    let untimed = row(Algorithm::MlDsa65, Operation::Sign, None, None);
    let columns = Column::with_figures([&timed, &untimed]);
    // The emulator's instructions count as the work column's figure.
    assert_eq!(
        columns,
        [Column::OpsPerSec, Column::AvgMs, Column::CyclesPerOp, Column::P90Ms, Column::StackBytes]
    );
    assert!(Column::with_figures([&untimed]).is_empty());
}

#[test]
fn a_change_is_flagged_only_beyond_both_runs_spread() {
    let timed = |min: f64, max: f64| BenchResult {
        min_ms: Some(min),
        max_ms: Some(max),
        ..row(Algorithm::MlKem768, Operation::Keygen, Some(1.0), None)
    };
    assert_eq!(changed(&timed(1.0, 1.2), &timed(1.1, 1.3)), Some(false), "overlapping: noise");
    assert_eq!(changed(&timed(1.0, 1.2), &timed(1.3, 1.4)), Some(true), "slower beyond the spread");
    assert_eq!(changed(&timed(1.0, 1.2), &timed(0.5, 0.9)), Some(true), "faster beyond the spread");
    let untimed = row(Algorithm::MlKem768, Operation::Keygen, None, None);
    assert_eq!(changed(&timed(1.0, 1.2), &untimed), None);
}

#[test]
fn a_view_reads_back_from_its_link() {
    let view = View {
        runs: vec![3, 7],
        filter: Filter {
            families: vec![Family::PostQuantum, Family::Classical],
            algorithms: vec![Algorithm::MlKem768],
            operations: vec![Operation::Keygen],
        },
        sort: Some(Sort { column: Column::MedianMs, descending: false }),
        log_scale: true,
        title: None,
        history: None,
        matrix: None,
    };
    let query = view.to_query();
    assert_eq!(
        query,
        "runs=3,7&family=pqc,classical&algorithm=ML-KEM-768&operation=keygen&sort=median_ms&dir=asc&scale=log"
    );
    assert_eq!(View::from_query(&alloc::format!("?{query}")), Ok(view));
    assert_eq!(View::default().to_query(), "");
    assert_eq!(View::from_query(""), Ok(View::default()));
    assert!(View::from_query("algorithm=Kyber768").unwrap_err().to_string().contains("Kyber768"));
    assert!(View::from_query("runs=0").is_err());

    let history = View {
        history: Some(HistoryOf {
            board: "serial:/dev/ttyACM0 #2".into(),
            algorithm: Algorithm::MlDsa65,
            operation: Operation::Sign,
        }),
        ..View::default()
    };
    assert_eq!(history.to_query(), "history=ML-DSA-65,sign,serial:%2Fdev%2FttyACM0%20%232");
    assert_eq!(View::from_query(&history.to_query()), Ok(history));
    assert!(View::from_query("history=ML-DSA-65,sign").is_err());
    assert!(View::from_query("history=ML-DSA-65,sign,%zz").is_err());
}

#[test]
fn a_matrix_view_reads_back_from_its_link() {
    use matrix::{MatrixOrder, Named, SortBy};
    let view = View {
        filter: Filter { families: vec![Family::PostQuantum], ..Filter::default() },
        matrix: Some(MatrixView {
            boards: vec!["serial:/dev/ttyACM0".into(), "qemu-mps2-an386".into()],
            sources: vec![Source::Browser, Source::Import],
            builds: vec!["firmware opt-s, libcrux-ml-kem 0.0.11".into()],
            figure: Column::StackBytes,
            order: Some(MatrixOrder { by: SortBy::Run(12), descending: false }),
            pair: Some([12, 3]),
            chart: Some(Named { algorithm: Algorithm::MlKem768, operation: Operation::Encaps }),
            baseline: Some(Named { algorithm: Algorithm::X25519, operation: Operation::Agree }),
            model_clock_hz: Some(168_000_000),
        }),
        ..View::default()
    };
    let query = view.to_query();
    assert!(query.contains("mclock=168"), "{query}");
    assert!(query.contains("build=firmware%20opt-s%2C%20libcrux-ml-kem%200.0.11"), "{query}");
    assert_eq!(View::from_query(&query), Ok(view.clone()));
    let by_ratio = View {
        matrix: Some(MatrixView {
            order: Some(MatrixOrder { by: SortBy::Ratio, descending: true }),
            ..MatrixView::default()
        }),
        ..View::default()
    };
    assert_eq!(View::from_query(&by_ratio.to_query()), Ok(by_ratio));
    assert_eq!(View::from_query("figure=ops_per_sec").map(|v| v.matrix), Ok(None), "the default is none");
    assert!(View::from_query("pair=1").is_err());
    assert!(View::from_query("mclock=100").is_err(), "only the clocks of the boards it stands for");
    assert!(View::from_query("figure=speed").is_err());
    assert!(View::from_query("chart=ML-KEM-768").is_err());
    let json = serde_json::to_string(&view).unwrap();
    assert_eq!(serde_json::from_str::<View>(&json).unwrap(), view);
    assert_eq!(
        View { runs: vec![12, 3], ..view }.describe(),
        "The matrix of runs 12 and 3: Stack of each operation; run 3 set against run 12; family pqc."
    );
    assert_eq!(
        View {
            runs: vec![4],
            sort: Some(Sort { column: Column::OpsPerSec, descending: true }),
            ..View::default()
        }
        .describe(),
        "The results of run 4; sorted by ops/s, descending."
    );
}
