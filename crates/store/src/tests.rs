//! The store's tests, each run on an SQLite file and on a database of a
//! real PostgreSQL server (see `test_support`).

use super::*;
use pqbench_types::{Algorithm, Operation, Status, TickUnit};

async fn a_run_and_its_results_read_back_as_written(store: Store) {
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    let m = Measurement {
        iterations: 3,
        total_ticks: 300,
        min_ticks: 99,
        median_ticks: 100,
        max_ticks: 101,
        heap_bytes: Some(10),
        heap_allocs: Some(1),
        stack_bytes: Some(2000),
        stack_depth_bytes: Some(5000),
        ..Measurement::untimed(Algorithm::MlKem768, Operation::Encaps, Status::Ok)
    };
    let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
    let result = BenchResult::from_measurement(&m, &clock);
    assert_eq!(result.stack_depth_bytes, Some(5000));
    store.add_result(id, 1, &result, Some(&m)).await.unwrap();
    store.finish_run(id, RunStatus::Complete, None).await.unwrap();

    assert_eq!(store.results(id).await.unwrap(), [result]);
    let run = store.run(id).await.unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Complete);
    assert!(run.finished_at.is_some());
    assert_eq!(store.runs(Some("qemu-mps2-an386"), 10).await.unwrap().len(), 1);
    assert!(store.runs(Some("other"), 10).await.unwrap().is_empty());
    assert!(store.run(id + 1).await.unwrap().is_none());
}

async fn reports_read_back_and_their_ids_are_never_reused(store: Store) {
    let view = View {
        filter: pqbench_view::Filter {
            algorithms: vec![pqbench_types::Algorithm::MlKem768],
            ..Default::default()
        },
        title: Some("é".into()),
        ..View::default()
    };
    let report = store.insert_report("AAAAAAAAAAAAAAAA", &view).await.unwrap().unwrap();
    assert_eq!(store.report("AAAAAAAAAAAAAAAA").await.unwrap(), Some(report));
    assert_eq!(store.insert_report("AAAAAAAAAAAAAAAA", &View::default()).await.unwrap(), None);
    assert_eq!(store.report("AAAAAAAAAAAAAAAA").await.unwrap().unwrap().view, view);
    assert_eq!(store.report("BBBBBBBBBBBBBBBB").await.unwrap(), None);
}

async fn result_rows_are_filtered_across_runs_newest_first(store: Store) {
    let clock = Clock { ticks_per_second: 1_000_000, unit: TickUnit::Nanoseconds };
    let measured = |algorithm, operation| Measurement {
        iterations: 1,
        total_ticks: 10,
        min_ticks: 10,
        median_ticks: 10,
        max_ticks: 10,
        ..Measurement::untimed(algorithm, operation, Status::Ok)
    };
    let mut first = NewRun::on_board("native:a", None);
    first.source = Source::Native;
    first.status = RunStatus::Complete;
    let kem =
        [measured(Algorithm::MlKem768, Operation::Keygen), measured(Algorithm::MlKem768, Operation::Encaps)];
    let awaited = UploadNote {
        algorithm: Algorithm::MlKem768,
        operation: Operation::Encaps,
        note: "each call includes the promise round trip".into(),
    };
    let a = store.insert_finished_run(&first, &clock, &kem, &[awaited]).await.unwrap();
    let second = NewRun { board: "native:b".into(), ..first };
    let b = store
        .insert_finished_run(&second, &clock, &[measured(Algorithm::Sha256, Operation::Hash)], &[])
        .await
        .unwrap();

    let all = ResultQuery { limit: 100, ..ResultQuery::default() };
    let rows = store.result_rows(&all).await.unwrap();
    let order: Vec<(i64, Operation)> = rows.iter().map(|r| (r.run_id, r.result.operation)).collect();
    assert_eq!(order, [(b, Operation::Hash), (a, Operation::Keygen), (a, Operation::Encaps)]);
    assert_eq!(rows[0].board, "native:b");
    assert_eq!(rows[0].source, Source::Native);
    assert_eq!(rows[0].build_label, "native", "a build that says nothing is named by its source");
    // The producer's note is stored with the result it names, only there.
    assert_eq!(rows[1].result.note, None);
    assert_eq!(rows[2].result.note.as_deref(), Some("each call includes the promise round trip"));

    let only = |filter: ResultQuery| {
        let store = store.clone();
        async move {
            let rows = store.result_rows(&ResultQuery { limit: 100, ..filter }).await.unwrap();
            rows.iter().map(|r| (r.run_id, r.result.operation)).collect::<Vec<_>>()
        }
    };
    let kem_only = ResultQuery { algorithms: vec![Algorithm::MlKem768], ..Default::default() };
    assert_eq!(only(kem_only).await, [(a, Operation::Keygen), (a, Operation::Encaps)]);
    let encaps = ResultQuery { operations: vec![Operation::Encaps, Operation::Hash], ..Default::default() };
    assert_eq!(only(encaps).await, [(b, Operation::Hash), (a, Operation::Encaps)]);
    let board = ResultQuery { boards: vec!["native:a".into()], runs: vec![a, b], ..Default::default() };
    assert_eq!(only(board).await.len(), 2);
    let browsers = ResultQuery { sources: vec![Source::Browser], ..Default::default() };
    assert_eq!(only(browsers).await, []);
    let first_row = store.result_rows(&ResultQuery { limit: 1, ..Default::default() }).await.unwrap();
    assert_eq!(first_row.len(), 1);
}

fn timed(algorithm: Algorithm, operation: Operation) -> (BenchResult, Measurement) {
    let m = Measurement {
        iterations: 1,
        total_ticks: 10,
        min_ticks: 10,
        median_ticks: 10,
        max_ticks: 10,
        ..Measurement::untimed(algorithm, operation, Status::Ok)
    };
    let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
    (BenchResult::from_measurement(&m, &clock), m)
}

/// A board run with results stored under these numbers.
async fn board_run(store: &Store, seqs: &[u32]) -> i64 {
    let id = store.create_run(&NewRun::on_board("qemu-mps2-an386", None)).await.unwrap();
    for &seq in seqs {
        let (result, m) = timed(Algorithm::MlKem768, Operation::ALL[seq as usize % Operation::ALL.len()]);
        store.add_result(id, seq, &result, Some(&m)).await.unwrap();
    }
    id
}

async fn a_run_is_stored_complete_only_with_every_result_it_reported(store: Store) {
    let whole = board_run(&store, &[1, 2, 3]).await;
    let written = store.finish_run_expecting(whole, RunStatus::Complete, None, Some(3)).await.unwrap();
    assert_eq!(written, RunStatus::Complete);
    assert_eq!(store.run(whole).await.unwrap().unwrap().error, None);

    // The board said 3, the store holds 2: not complete, and it says why.
    let short = board_run(&store, &[1, 2]).await;
    let written = store.finish_run_expecting(short, RunStatus::Complete, None, Some(3)).await.unwrap();
    assert_eq!(written, RunStatus::Incomplete);
    let run = store.run(short).await.unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Incomplete);
    assert_eq!(run.error.as_deref(), Some("the board reported 3 results, but 2 are stored"));
    assert!(run.finished_at.is_some());

    // Without the board's count, a gap in the numbering still shows.
    let gap = board_run(&store, &[1, 3]).await;
    assert_eq!(store.finish_run(gap, RunStatus::Complete, None).await.unwrap(), RunStatus::Incomplete);
    let error = store.run(gap).await.unwrap().unwrap().error.unwrap();
    assert!(error.contains("2 stored, numbered up to 3"), "{error}");

    // Other endings are written as given, whatever was stored.
    let failed = board_run(&store, &[1]).await;
    let written = store.finish_run_expecting(failed, RunStatus::Failed, Some("lost"), Some(9)).await.unwrap();
    assert_eq!(written, RunStatus::Failed);
    assert_eq!(store.run(failed).await.unwrap().unwrap().error.as_deref(), Some("lost"));
    let empty = board_run(&store, &[]).await;
    assert_eq!(store.finish_run(empty, RunStatus::Complete, None).await.unwrap(), RunStatus::Complete);
}

async fn result_rows_say_how_their_run_ended(store: Store) {
    let done = board_run(&store, &[1]).await;
    store.finish_run(done, RunStatus::Complete, None).await.unwrap();
    let cut_off = board_run(&store, &[1, 2]).await;
    assert_eq!(store.interrupt_unfinished().await.unwrap(), 1);
    let still = board_run(&store, &[1]).await;

    let rows = store.result_rows(&ResultQuery { limit: 100, ..Default::default() }).await.unwrap();
    let statuses: Vec<(i64, RunStatus)> = rows.iter().map(|r| (r.run_id, r.run_status)).collect();
    assert_eq!(
        statuses,
        [
            (still, RunStatus::Running),
            (cut_off, RunStatus::Interrupted),
            (cut_off, RunStatus::Interrupted),
            (done, RunStatus::Complete)
        ]
    );
}

/// A running run's build may still change (the board says it once it
/// answers), so its label is read afresh until the run ends.
async fn a_runs_build_label_follows_its_build_until_it_ends(store: Store) {
    let id = board_run(&store, &[1]).await;
    let label = |store: Store| async move {
        let rows = store.result_rows(&ResultQuery { limit: 10, ..Default::default() }).await.unwrap();
        rows[0].build_label.clone()
    };
    assert_eq!(label(store.clone()).await, "serial");
    let build = Build { profile: Some("firmware".into()), opt_level: Some("s".into()), ..Build::default() };
    store.describe_run(id, &build, Some(25_000_000), 25_000_000, "cycles").await.unwrap();
    assert_eq!(label(store.clone()).await, "firmware opt-s");
    store.finish_run(id, RunStatus::Complete, None).await.unwrap();
    assert_eq!(label(store.clone()).await, "firmware opt-s");
    assert_eq!(store.labels.get(id).as_deref(), Some("firmware opt-s"));
}

async fn unfinished_runs_are_interrupted_at_start(store: Store) {
    let new = NewRun::on_board("b", None);
    let running = store.create_run(&new).await.unwrap();
    let done = store.create_run(&new).await.unwrap();
    store.finish_run(done, RunStatus::Complete, None).await.unwrap();
    assert_eq!(store.interrupt_unfinished().await.unwrap(), 1);
    assert_eq!(store.run(running).await.unwrap().unwrap().status, RunStatus::Interrupted);
    assert_eq!(store.run(done).await.unwrap().unwrap().status, RunStatus::Complete);
}

/// Runs each test on a fresh SQLite file and on a fresh PostgreSQL database.
macro_rules! on_both_databases {
    ($($test:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $test() {
                    let dir = tempfile::tempdir().unwrap();
                    let store = super::Store::open(&dir.path().join("pqbench.db")).await.unwrap();
                    super::$test(store).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $test() {
                    let Some(url) = super::test_support::fresh_postgres_database("store").await else {
                        return;
                    };
                    let store = super::Store::connect(&super::Location::Postgres(url)).await.unwrap();
                    assert_eq!(store.kind(), "PostgreSQL");
                    super::$test(store).await;
                }
            )*
        }
    };
}

on_both_databases!(
    a_run_and_its_results_read_back_as_written,
    reports_read_back_and_their_ids_are_never_reused,
    result_rows_are_filtered_across_runs_newest_first,
    a_run_is_stored_complete_only_with_every_result_it_reported,
    result_rows_say_how_their_run_ended,
    a_runs_build_label_follows_its_build_until_it_ends,
    unfinished_runs_are_interrupted_at_start,
    an_agents_runs_keep_its_host,
    an_import_is_stored_once,
    figures_read_back_bit_for_bit,
    text_with_a_nul_is_stored_alike_on_both,
);

/// PostgreSQL's text cannot hold NUL; SQLite's can. Both store it as
/// U+FFFD, so what one holds the other can.
async fn text_with_a_nul_is_stored_alike_on_both(store: Store) {
    let run = NewRun::on_board("board\0one", None);
    let id = store.create_run(&run).await.unwrap();
    let result = BenchResult {
        note: Some("a\0note".into()),
        ..BenchResult::unmeasured(Algorithm::Sha256, Operation::Hash, Status::Ok)
    };
    store.add_result(id, 1, &result, None).await.unwrap();
    store.finish_run(id, RunStatus::Failed, Some("port\0closed")).await.unwrap();
    let stored = store.run(id).await.unwrap().unwrap();
    assert_eq!(
        (stored.board.as_str(), stored.error.as_deref()),
        ("board\u{FFFD}one", Some("port\u{FFFD}closed"))
    );
    assert_eq!(store.results(id).await.unwrap()[0].note.as_deref(), Some("a\u{FFFD}note"));
}

async fn an_agents_runs_keep_its_host(store: Store) {
    let on = |host: Option<&str>| NewRun {
        host: host.map(String::from),
        ..NewRun::on_board("qemu-mps2-an386", None)
    };
    let lab_a = store.create_run(&on(Some("lab-a"))).await.unwrap();
    let local = store.create_run(&on(None)).await.unwrap();
    assert_eq!(store.run(lab_a).await.unwrap().unwrap().host.as_deref(), Some("lab-a"));
    assert_eq!(store.run(local).await.unwrap().unwrap().host, None);
    let (result, m) = timed(Algorithm::MlKem512, Operation::Keygen);
    store.add_result(lab_a, 1, &result, Some(&m)).await.unwrap();
    store.finish_run(lab_a, RunStatus::Interrupted, Some("the agent on lab-a disconnected")).await.unwrap();
    let ended = store.run(lab_a).await.unwrap().unwrap();
    assert_eq!((ended.status, ended.host.as_deref()), (RunStatus::Interrupted, Some("lab-a")));
    assert_eq!(store.results(lab_a).await.unwrap(), [result]);
}

async fn an_import_is_stored_once(store: Store) {
    let (result, _) = timed(Algorithm::Sha256, Operation::Hash);
    let run =
        NewRun { source: Source::Import, status: RunStatus::Complete, ..NewRun::on_board("stm32u585", None) };
    let import = NewImport {
        digest: "d1".into(),
        format: LogFormat::Wolfcrypt,
        file_name: Some("bench.txt".into()),
        version: None,
        unread: vec![],
        runs: vec![(run.clone(), vec![result.clone()]), (run, vec![result])],
    };
    let ids = store.insert_import(&import).await.unwrap();
    assert_eq!(ids.len(), 2);
    match store.insert_import(&import).await {
        Err(StoreError::AlreadyImported { runs }) => assert_eq!(runs, ids),
        other => panic!("a second import: {other:?}"),
    }
    assert_eq!(store.runs(None, 10).await.unwrap().len(), 2, "nothing more was stored");
}

/// Figures at the edges of what a float and a count hold read back as
/// written, on either database.
async fn figures_read_back_bit_for_bit(store: Store) {
    let id = store.create_run(&NewRun::on_board("b", None)).await.unwrap();
    let result = BenchResult {
        total_seconds: Some(f64::MIN_POSITIVE),
        avg_ms: Some(0.1 + 0.2),
        ops_per_sec: Some(f64::MAX),
        min_ms: Some(1e-300),
        cycles_per_op: Some(123_456_789.123_456_78),
        heap_bytes: Some(i64::MAX as u64),
        stack_bytes: Some(0),
        note: Some("é ✓ \"quoted\"".into()),
        ..BenchResult::unmeasured(Algorithm::MlDsa87, Operation::Sign, Status::Ok)
    };
    store.add_result(id, 1, &result, None).await.unwrap();
    let read = store.results(id).await.unwrap();
    assert_eq!(read, std::slice::from_ref(&result));
    assert_eq!(read[0].avg_ms.map(f64::to_bits), result.avg_ms.map(f64::to_bits));
}

#[test]
fn a_location_is_a_postgres_url_or_an_sqlite_path() {
    let parse = |text: &str| text.parse::<Location>();
    assert_eq!(parse("pqbench.db"), Ok(Location::Sqlite("pqbench.db".into())));
    assert_eq!(parse("sqlite:///tmp/a.db"), Ok(Location::Sqlite("/tmp/a.db".into())));
    assert_eq!(parse("sqlite:a.db"), Ok(Location::Sqlite("a.db".into())));
    let url = "postgresql://team:secret@db.lab:5432/pqbench?sslmode=require";
    assert_eq!(parse(url), Ok(Location::Postgres(url.into())));
    assert!(parse("mysql://x/y").is_err());
    assert!(parse("").is_err());
    let shown = Location::Postgres(url.into()).to_string();
    assert_eq!(shown, "postgresql://team@db.lab:5432/pqbench?sslmode=require");
    assert!(!shown.contains("secret"));
}
