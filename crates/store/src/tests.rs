//! The store's tests, each run on an SQLite file and on a database of a
//! real PostgreSQL server (see `test_support`).

use super::*;
use pqbench_api::{MAX_MATRIX_COLUMNS, MatrixKey};
use pqbench_types::{Algorithm, KeyFormat, Operation, Status, TickUnit};

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
        p10_ticks: Some(99),
        p90_ticks: Some(101),
        key_format: Some(KeyFormat::Decoded),
        ..Measurement::untimed(Algorithm::MlKem768, Operation::Encaps, Status::Ok)
    };
    let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
    let result = BenchResult::from_measurement(&m, &clock);
    assert_eq!(result.stack_depth_bytes, Some(5000));
    assert_eq!((result.p10_ms, result.p90_ms, result.p99_ms), (Some(99.0), Some(101.0), None));
    assert_eq!(result.key_format, Some(KeyFormat::Decoded));
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
    let a = store.insert_finished_run(&first, &clock, &kem, &[awaited], None).await.unwrap();
    let second = NewRun { board: "native:b".into(), ..first };
    let b = store
        .insert_finished_run(&second, &clock, &[measured(Algorithm::Sha256, Operation::Hash)], &[], None)
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
    assert_eq!(store.interrupt_abandoned(Abandoned::AtStart).await.unwrap(), 1);
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
/// answers), and its label with it.
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
}

async fn unfinished_runs_are_interrupted_at_start(store: Store) {
    let new = NewRun::on_board("b", None);
    let running = store.create_run(&new).await.unwrap();
    let done = store.create_run(&new).await.unwrap();
    store.finish_run(done, RunStatus::Complete, None).await.unwrap();
    assert_eq!(store.interrupt_abandoned(Abandoned::AtStart).await.unwrap(), 1);
    assert_eq!(store.run(running).await.unwrap().unwrap().status, RunStatus::Interrupted);
    assert_eq!(store.run(done).await.unwrap().unwrap().status, RunStatus::Complete);
}

/// Servers on one database: the one starting interrupts the runs no
/// process is making (none leased, leases lapsed, or its own name's from
/// before), never the runs another is making; while serving, only the
/// lapsed ones.
async fn a_server_interrupts_only_runs_no_live_server_is_making(store: Store) {
    use std::time::Duration;
    let new = NewRun::on_board("b", None);
    let making = store.clone().leasing_runs("lab-a 127.0.0.1:8080", Duration::from_secs(60));
    let made = making.create_run(&new).await.unwrap();
    let unleased = store.create_run(&new).await.unwrap();
    // A server that died: its lease lapses at once.
    let dead = store.clone().leasing_runs("lab-b 127.0.0.1:8080", Duration::ZERO);
    let cut_off = dead.create_run(&new).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    let starting = store.clone().leasing_runs("lab-c 127.0.0.1:8080", Duration::from_secs(60));

    // While serving, a run with no lease may be a `pqbench run`'s beside it.
    assert_eq!(starting.interrupt_abandoned(Abandoned::Lapsed).await.unwrap(), 1);
    let status = |id| {
        let store = store.clone();
        async move { store.run(id).await.unwrap().unwrap().status }
    };
    assert_eq!(status(cut_off).await, RunStatus::Interrupted);
    assert_eq!(status(unleased).await, RunStatus::Running);
    assert_eq!(starting.interrupt_abandoned(Abandoned::AtStart).await.unwrap(), 1);
    assert_eq!(status(unleased).await, RunStatus::Interrupted);
    assert_eq!(status(made).await, RunStatus::Running, "the live server's run");

    // Renewed, a lease that would have lapsed holds; ended runs are not renewed.
    let short = store.clone().leasing_runs("lab-d 127.0.0.1:8080", Duration::from_millis(200));
    let renewed = short.create_run(&new).await.unwrap();
    let ended = short.create_run(&new).await.unwrap();
    short.finish_run(ended, RunStatus::Complete, None).await.unwrap();
    let short = short.leasing_runs("lab-d 127.0.0.1:8080", Duration::from_secs(60));
    assert_eq!(short.renew_leases().await.unwrap(), 1);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(starting.interrupt_abandoned(Abandoned::AtStart).await.unwrap(), 0);
    assert_eq!(status(renewed).await, RunStatus::Running);
    assert_eq!(status(ended).await, RunStatus::Complete);
    assert_eq!(store.renew_leases().await.unwrap(), 0, "a store that takes no leases renews none");

    // A server killed and started again under its name: the runs it left
    // are interrupted at once, not when their leases lapse.
    let restarted = store.clone().leasing_runs("lab-a 127.0.0.1:8080", Duration::from_secs(60));
    assert_eq!(restarted.interrupt_abandoned(Abandoned::AtStart).await.unwrap(), 1);
    assert_eq!(status(made).await, RunStatus::Interrupted);
    assert_eq!(status(renewed).await, RunStatus::Running, "lab-d's, still live");
}

/// Runs for the matrix: two builds on one board, one on another, a newer
/// run of a build that did not complete, in the order stored.
struct MatrixRuns {
    /// native:a, `release`, complete: ML-KEM-768 keygen and encaps.
    a_release_old: i64,
    /// native:a, `debug`, complete: ML-KEM-768 keygen.
    a_debug: i64,
    /// native:b, `release`, complete: SHA-256 hash.
    b_release: i64,
    /// native:a, `release`, complete: ML-KEM-768 keygen and encaps.
    a_release: i64,
    /// native:a, `release`, incomplete, the newest: never a latest column.
    a_release_cut: i64,
}

async fn uploaded_run(
    store: &Store,
    board: &str,
    profile: &str,
    status: RunStatus,
    measured: &[(Algorithm, Operation)],
) -> i64 {
    let run = NewRun {
        status,
        source: Source::Native,
        build: Build { profile: Some(profile.into()), ..Build::default() },
        ..NewRun::on_board(board, None)
    };
    let clock = Clock { ticks_per_second: 1000, unit: TickUnit::Cycles };
    let measurements: Vec<Measurement> =
        measured.iter().map(|&(algorithm, operation)| timed(algorithm, operation).1).collect();
    store.insert_finished_run(&run, &clock, &measurements, &[], None).await.unwrap()
}

async fn matrix_runs(store: &Store) -> MatrixRuns {
    let kem = [(Algorithm::MlKem768, Operation::Keygen), (Algorithm::MlKem768, Operation::Encaps)];
    let complete = RunStatus::Complete;
    MatrixRuns {
        a_release_old: uploaded_run(store, "native:a", "release", complete, &kem).await,
        a_debug: uploaded_run(store, "native:a", "debug", complete, &kem[..1]).await,
        b_release: uploaded_run(
            store,
            "native:b",
            "release",
            complete,
            &[(Algorithm::Sha256, Operation::Hash)],
        )
        .await,
        a_release: uploaded_run(store, "native:a", "release", complete, &kem).await,
        a_release_cut: uploaded_run(store, "native:a", "release", RunStatus::Incomplete, &kem[..1]).await,
    }
}

/// Each column's run and build label, and each result's run and operation.
type Shown = (Vec<(i64, String)>, Vec<(i64, Operation)>);

fn shown(matrix: &Matrix) -> Shown {
    (
        matrix.columns.iter().map(|c| (c.run.id, c.build_label.clone())).collect(),
        matrix.results.iter().map(|r| (r.run_id, r.result.operation)).collect(),
    )
}

fn column(id: i64, label: &str) -> (i64, String) {
    (id, label.into())
}

async fn the_matrix_is_the_latest_complete_run_of_each_board_and_build(store: Store) {
    let runs = matrix_runs(&store).await;
    let matrix = store.matrix(&ResultQuery::default()).await.unwrap();
    let key = |board: &str, label: &str, latest_run| MatrixKey {
        board: board.into(),
        source: Source::Native,
        build_label: label.into(),
        latest_run,
    };
    assert_eq!(
        matrix.available,
        [
            key("native:a", "debug", runs.a_debug),
            key("native:a", "release", runs.a_release),
            key("native:b", "release", runs.b_release)
        ]
    );
    assert!(!matrix.truncated);
    // By board, then build; the results newest run first, each run's in
    // the order measured.
    assert_eq!(
        shown(&matrix),
        (
            vec![
                column(runs.a_debug, "debug"),
                column(runs.a_release, "release"),
                column(runs.b_release, "release")
            ],
            vec![
                (runs.a_release, Operation::Keygen),
                (runs.a_release, Operation::Encaps),
                (runs.b_release, Operation::Hash),
                (runs.a_debug, Operation::Keygen)
            ]
        )
    );
    let first = &matrix.columns[0].run;
    assert_eq!(
        (first.board.as_str(), first.status, first.build.profile.as_deref()),
        ("native:a", RunStatus::Complete, Some("debug"))
    );
    assert_eq!(matrix.results[0].build_label, "release");
    assert!(!shown(&matrix).0.iter().any(|(id, _)| [runs.a_release_old, runs.a_release_cut].contains(id)));
}

/// A stand-in's column sits right after its chip's, whatever the runs'
/// order or the boards' ids: the U585 and its emulated Cortex-M33 side by
/// side, the F446 and its netduinoplus2.
async fn a_stand_ins_column_sits_beside_its_chips(store: Store) {
    let hash = [(Algorithm::Sha256, Operation::Hash)];
    let boards =
        ["qemu-netduinoplus2", "qemu-mps2-an505", "qemu-mps2-an386", "nucleo-f446ze", "b-u585i-iot02a"];
    for board in boards {
        uploaded_run(&store, board, "release", RunStatus::Complete, &hash).await;
    }
    let matrix = store.matrix(&ResultQuery::default()).await.unwrap();
    let columns: Vec<&str> = matrix.columns.iter().map(|c| c.run.board.as_str()).collect();
    assert_eq!(
        columns,
        ["b-u585i-iot02a", "qemu-mps2-an505", "nucleo-f446ze", "qemu-netduinoplus2", "qemu-mps2-an386"]
    );
}

async fn the_matrix_keeps_what_its_filters_keep(store: Store) {
    let runs = matrix_runs(&store).await;
    let matrix = |query: ResultQuery| {
        let store = store.clone();
        async move { store.matrix(&query).await.unwrap() }
    };
    let on_a = matrix(ResultQuery { boards: vec!["native:a".into()], ..Default::default() }).await;
    assert_eq!(shown(&on_a).0, [column(runs.a_debug, "debug"), column(runs.a_release, "release")]);
    assert_eq!(on_a.available.len(), 3, "what a filter can offer is never narrowed");
    let release = matrix(ResultQuery { builds: vec!["release".into()], ..Default::default() }).await;
    assert_eq!(shown(&release).0, [column(runs.a_release, "release"), column(runs.b_release, "release")]);
    let native = matrix(ResultQuery { sources: vec![Source::Native], ..Default::default() }).await;
    assert_eq!(native.columns.len(), 3);
    let browsers = matrix(ResultQuery { sources: vec![Source::Browser], ..Default::default() }).await;
    assert_eq!(shown(&browsers), (vec![], vec![]), "no column, so no results either");
    assert_eq!(browsers.available.len(), 3);

    // Names narrow the results, never the columns.
    let hashes = matrix(ResultQuery { algorithms: vec![Algorithm::Sha256], ..Default::default() }).await;
    assert_eq!(shown(&hashes), (shown(&native).0, vec![(runs.b_release, Operation::Hash)]));
    let encaps = matrix(ResultQuery { operations: vec![Operation::Encaps], ..Default::default() }).await;
    assert_eq!(shown(&encaps).1, [(runs.a_release, Operation::Encaps)]);
    let one = matrix(ResultQuery { limit: 1, ..Default::default() }).await;
    assert_eq!((one.columns.len(), shown(&one).1), (3, vec![(runs.a_release, Operation::Keygen)]));
}

async fn a_matrix_of_chosen_runs_has_them_in_the_order_asked(store: Store) {
    let runs = matrix_runs(&store).await;
    let chosen = vec![
        runs.a_release_cut,
        runs.a_release_old,
        runs.a_release_cut + 100,
        runs.a_release_old,
        runs.b_release,
    ];
    let matrix = store.matrix(&ResultQuery { runs: chosen.clone(), ..Default::default() }).await.unwrap();
    // Whatever their status; an unknown id is absent, a repeated one shown once.
    assert_eq!(
        shown(&matrix),
        (
            vec![
                column(runs.a_release_cut, "release"),
                column(runs.a_release_old, "release"),
                column(runs.b_release, "release")
            ],
            vec![
                (runs.a_release_cut, Operation::Keygen),
                (runs.b_release, Operation::Hash),
                (runs.a_release_old, Operation::Keygen),
                (runs.a_release_old, Operation::Encaps)
            ]
        )
    );
    assert_eq!(matrix.columns[0].run.status, RunStatus::Incomplete);
    assert_eq!(matrix.available.len(), 3);
    let on_a = ResultQuery { runs: chosen, boards: vec!["native:a".into()], ..Default::default() };
    let on_a = store.matrix(&on_a).await.unwrap();
    assert_eq!(
        shown(&on_a).0,
        [column(runs.a_release_cut, "release"), column(runs.a_release_old, "release")]
    );
    let debug = ResultQuery {
        runs: vec![runs.a_debug, runs.a_release],
        builds: vec!["debug".into()],
        ..Default::default()
    };
    assert_eq!(shown(&store.matrix(&debug).await.unwrap()).0, [column(runs.a_debug, "debug")]);
}

async fn the_matrix_shows_the_newest_pairs_when_more_match(store: Store) {
    let hash = [(Algorithm::Sha256, Operation::Hash)];
    let mut ids = Vec::new();
    for board in 0..MAX_MATRIX_COLUMNS + 2 {
        let profile = if board % 2 == 0 { "release" } else { "debug" };
        ids.push(
            uploaded_run(&store, &format!("native:{board:02}"), profile, RunStatus::Complete, &hash).await,
        );
    }
    let matrix = store.matrix(&ResultQuery::default()).await.unwrap();
    assert!(matrix.truncated);
    assert_eq!(matrix.available.len(), MAX_MATRIX_COLUMNS + 2);
    // The two oldest are left out; the rest by board.
    let columns: Vec<i64> = matrix.columns.iter().map(|c| c.run.id).collect();
    assert_eq!(columns, ids[2..]);
    assert_eq!(matrix.results.len(), MAX_MATRIX_COLUMNS);
    // A filter that keeps fewer shows them all.
    let release =
        store.matrix(&ResultQuery { builds: vec!["release".into()], ..Default::default() }).await.unwrap();
    assert!(!release.truncated);
    assert_eq!(release.columns.len(), MAX_MATRIX_COLUMNS / 2 + 1);
}

/// A matrix's head is equal only while the matrix it stands for is: a
/// server serves a kept matrix again on that alone.
async fn a_matrix_head_changes_whenever_its_matrix_does(store: Store) {
    let runs = matrix_runs(&store).await;
    let latest = ResultQuery::default();
    let before = store.matrix_head(&latest).await.unwrap();
    assert_eq!(store.matrix_head(&latest).await.unwrap(), before, "nothing changed");
    assert_eq!(before.stored, [(runs.a_debug, 1), (runs.b_release, 1), (runs.a_release, 2)]);
    // A run that is no column changes nothing; a newer complete run of a
    // build does.
    board_run(&store, &[1]).await;
    assert_eq!(store.matrix_head(&latest).await.unwrap(), before);
    let kem = [(Algorithm::MlKem768, Operation::Keygen)];
    let newer = uploaded_run(&store, "native:b", "release", RunStatus::Complete, &kem).await;
    let after = store.matrix_head(&latest).await.unwrap();
    assert_ne!(after, before);
    assert!(after.columns.iter().any(|column| column.run.id == newer));

    // A chosen run still being measured: each result it stores, and its
    // end, change its head.
    let running = board_run(&store, &[1]).await;
    let chosen = ResultQuery { runs: vec![running, runs.a_debug], ..Default::default() };
    let one = store.matrix_head(&chosen).await.unwrap();
    let (result, m) = timed(Algorithm::MlKem768, Operation::Encaps);
    store.add_result(running, 2, &result, Some(&m)).await.unwrap();
    let two = store.matrix_head(&chosen).await.unwrap();
    assert_ne!(two, one);
    assert_eq!(two.stored, [(runs.a_debug, 1), (running, 2)]);
    store.finish_run(running, RunStatus::Complete, None).await.unwrap();
    let ended = store.matrix_head(&chosen).await.unwrap();
    assert_ne!(ended, two);
    // And the head's results are the matrix's.
    let matrix = store.matrix(&chosen).await.unwrap();
    let results = store.matrix_results(&ended, &chosen).await.unwrap();
    assert_eq!(ended.into_matrix(results), matrix);
    assert_eq!(matrix.results.len(), 3);
}

async fn result_rows_are_filtered_by_build(store: Store) {
    let runs = matrix_runs(&store).await;
    let rows = |builds: &[&str], boards: &[&str]| {
        let store = store.clone();
        let query = ResultQuery {
            builds: builds.iter().map(|b| b.to_string()).collect(),
            boards: boards.iter().map(|b| b.to_string()).collect(),
            limit: 100,
            ..Default::default()
        };
        async move {
            let rows = store.result_rows(&query).await.unwrap();
            rows.iter().map(|r| (r.run_id, r.build_label.clone())).collect::<Vec<_>>()
        }
    };
    assert_eq!(rows(&["debug"], &[]).await, [column(runs.a_debug, "debug")]);
    let release_on_b = rows(&["release", "debug"], &["native:b"]).await;
    assert_eq!(release_on_b, [column(runs.b_release, "release")]);
    assert_eq!(rows(&["release"], &[]).await.len(), 2 + 1 + 2 + 1);
    assert_eq!(rows(&["no such build"], &[]).await, []);
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
                    let Some(admin) = pqbench_test_needs::or_skip(pqbench_test_needs::postgres()) else { return };
    let url = super::test_support::fresh_postgres_database(&admin, "store").await;
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
    a_matrix_head_changes_whenever_its_matrix_does,
    a_run_is_stored_complete_only_with_every_result_it_reported,
    result_rows_say_how_their_run_ended,
    a_runs_build_label_follows_its_build_until_it_ends,
    unfinished_runs_are_interrupted_at_start,
    a_server_interrupts_only_runs_no_live_server_is_making,
    the_matrix_is_the_latest_complete_run_of_each_board_and_build,
    the_matrix_keeps_what_its_filters_keep,
    a_stand_ins_column_sits_beside_its_chips,
    a_matrix_of_chosen_runs_has_them_in_the_order_asked,
    the_matrix_shows_the_newest_pairs_when_more_match,
    result_rows_are_filtered_by_build,
    an_agents_runs_keep_its_host,
    an_import_is_stored_once,
    figures_read_back_bit_for_bit,
    text_with_a_nul_is_stored_alike_on_both,
    a_runs_notes_are_kept_line_by_line,
);

/// A run's notes: none until one is added, then each on a line of its own,
/// in the order added, beside an error and never in place of it.
async fn a_runs_notes_are_kept_line_by_line(store: Store) {
    let id = store.create_run(&NewRun::on_board("probe:066DFF", None)).await.unwrap();
    assert_eq!(store.run(id).await.unwrap().unwrap().notes, None);
    store.note_run(id, "the probe failed 3 requests on the way").await.unwrap();
    store.note_run(id, "'quoted' and ünïcode").await.unwrap();
    store.finish_run(id, RunStatus::Failed, Some("unplugged")).await.unwrap();
    let run = store.run(id).await.unwrap().unwrap();
    assert_eq!(run.notes.as_deref(), Some("the probe failed 3 requests on the way\n'quoted' and ünïcode"));
    assert_eq!(run.error.as_deref(), Some("unplugged"));
}

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
        // The timing model's estimate, kept whole.
        model: Some(pqbench_types::ModelEstimate {
            cycles_per_op: 19_306_326.6,
            min_cycles: 5_098_254,
            median_cycles: 12_000_001,
            max_cycles: 70_122_163,
            stdev_cycles: Some(9_999_999),
            samples: 1000,
            hashing_share: Some(0.418_252_994_345_705_96),
            hashing_share_per_call: Some(0.42),
            harness: vec![pqbench_types::HarnessCycles { class: "copies".into(), cycles_per_op: 1234.5 }],
            functions: vec![pqbench_types::FunctionCycles {
                name: "KeccakF1600_StatePermute".into(),
                cycles_per_op: 6_724_115.25,
                hashing: true,
            }],
            parameters: "refill=2,divide=7,wait_states=0".into(),
        }),
        ..BenchResult::unmeasured(Algorithm::MlDsa87, Operation::Sign, Status::Ok)
    };
    store.add_result(id, 1, &result, None).await.unwrap();
    let read = store.results(id).await.unwrap();
    assert_eq!(read, std::slice::from_ref(&result));
    let rows = store.result_rows(&Default::default()).await.unwrap();
    assert_eq!(rows.iter().find(|row| row.run_id == id).map(|row| &row.result.model), Some(&result.model));
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

/// The builds a store of schema 0006 (before builds were labelled) holds,
/// by source, with the label each must get.
fn builds_before_labels() -> Vec<(Source, Build, &'static str)> {
    let native = Build {
        profile: Some("release".into()),
        opt_level: Some("3".into()),
        crates: [("libcrux-ml-kem".to_string(), "0.0.11".to_string())].into_iter().collect(),
        ..Build::default()
    };
    let mut chrome = Build::default();
    chrome.extra.insert("browser".into(), "Chrome 131.0".into());
    let mut imported = Build::default();
    imported.extra.insert(pqbench_types::IMPORTED_FROM.into(), "pqm4 m4f".into());
    vec![
        (Source::Native, native, "release opt-3, libcrux-ml-kem 0.0.11"),
        (Source::Browser, chrome, "Chrome 131.0"),
        (Source::Import, imported, "pqm4 m4f"),
        (Source::Serial, Build::default(), "serial"),
    ]
}

/// How many runs the store of schema 0006 holds: more than one batch of
/// [`Statements::label_builds`].
const RUNS_BEFORE_LABELS: usize = 1201;

/// The statements that fill a store of schema 0006 with
/// `RUNS_BEFORE_LABELS` complete runs on three boards, cycling through
/// [`builds_before_labels`]: literal SQL, the same for both databases.
fn fill_before_labels() -> Vec<String> {
    let builds = builds_before_labels();
    let rows: Vec<usize> = (0..RUNS_BEFORE_LABELS).collect();
    rows.chunks(500)
        .map(|chunk| {
            let values: Vec<String> = chunk
                .iter()
                .map(|i| {
                    let (source, build, _) = &builds[i % builds.len()];
                    let build = serde_json::to_string(build).unwrap().replace('\'', "''");
                    format!(
                        "('complete', '{}', 'board-{}', '{build}', '2026-12-01T00:00:00Z')",
                        source.as_str(),
                        i % 3
                    )
                })
                .collect();
            format!(
                "INSERT INTO runs (status, source, board, build, started_at) VALUES {}",
                values.join(", ")
            )
        })
        .collect()
}

/// Opened by this version, a store of runs without labels has every run
/// labelled from its build and source, in batches (more runs than one
/// batch here), and the matrix finds them.
async fn runs_stored_before_labels_are_labelled(store: Store) {
    let count = "SELECT COUNT(*) AS n FROM runs WHERE build_label IS NULL";
    let unlabelled: i64 = on_backend!(store, db => {
        sqlx::Row::get(&sqlx::query(count).fetch_one(&db.pool).await.unwrap(), "n")
    });
    assert_eq!(unlabelled, 0);
    let builds = builds_before_labels();
    let matrix = store.matrix(&ResultQuery::default()).await.unwrap();
    let mut expected: Vec<(String, Source, String, i64)> = Vec::new();
    for board in 0..3 {
        for (k, (source, _, label)) in builds.iter().enumerate() {
            // Run ids start at 1, in the order inserted.
            let latest = (0..RUNS_BEFORE_LABELS).filter(|i| i % builds.len() == k && i % 3 == board).max();
            expected.push((format!("board-{board}"), *source, label.to_string(), latest.unwrap() as i64 + 1));
        }
    }
    expected.sort_by(|a, b| (&a.0, &a.2).cmp(&(&b.0, &b.2)));
    let available: Vec<(String, Source, String, i64)> = matrix
        .available
        .iter()
        .map(|k| (k.board.clone(), k.source, k.build_label.clone(), k.latest_run))
        .collect();
    assert_eq!(available, expected);
    for column in &matrix.columns {
        assert_eq!(column.build_label, column.run.build.label(column.run.source));
    }
}

/// The migrations before build labels (0001 to 0006).
fn before_labels(all: sqlx::migrate::Migrator) -> sqlx::migrate::Migrator {
    let migrations: Vec<_> = all.migrations.iter().filter(|m| m.version <= 6).cloned().collect();
    assert_eq!(migrations.len(), 6);
    sqlx::migrate::Migrator { migrations: migrations.into(), ..sqlx::migrate::Migrator::DEFAULT }
}

mod labelled_on_upgrade {
    use super::*;

    #[tokio::test]
    async fn on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("0006.db");
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        before_labels(sqlx::migrate!("../../migrations/sqlite")).run(&pool).await.unwrap();
        for statement in fill_before_labels() {
            sqlx::query(&statement).execute(&pool).await.unwrap();
        }
        pool.close().await;
        runs_stored_before_labels_are_labelled(Store::open(&path).await.unwrap()).await;
    }

    #[tokio::test]
    async fn on_postgres() {
        let Some(admin) = pqbench_test_needs::or_skip(pqbench_test_needs::postgres()) else { return };
        let url = test_support::fresh_postgres_database(&admin, "store").await;
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        before_labels(sqlx::migrate!("../../migrations/postgres")).run(&pool).await.unwrap();
        for statement in fill_before_labels() {
            sqlx::query(&statement).execute(&pool).await.unwrap();
        }
        pool.close().await;
        runs_stored_before_labels_are_labelled(Store::connect(&Location::Postgres(url)).await.unwrap()).await;
    }
}
