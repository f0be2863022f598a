//! Runs judged against the earlier runs of their lineage (`GET
//! /api/regressions`, `pqbench run --fail-on-regression`), with real runs
//! of the emulated board.
//!
//! A regression is a lineage's code getting slower. The emulated board
//! offers two implementations of ML-KEM, libcrux and RustCrypto's, whose
//! figures differ by a factor; a slower revision of a lineage is made by
//! filing the real figures of one implementation under the other's build,
//! as the store's import path files a log's figures under the build it
//! names. Every figure judged was measured.

use pqbench_api::{LogFormat, RunRegressions};
use pqbench_store::{NewImport, NewRun, Store};
use pqbench_types::{BenchResult, Run, RunStatus};
use pqbench_view::regressions::Verdict;
use serde_json::{Value, json};

use crate::common;

fn request(variant: &str) -> Value {
    json!({"board": "qemu-mps2-an386", "variant": variant, "algorithms": ["ML-KEM-768"],
        "min_iterations": 8, "min_time_ms": 0})
}

/// Files `results` (measured by another build) as a complete run of
/// `like`'s lineage: its board, source and build. Its id.
pub(crate) async fn file_under(db: &std::path::Path, like: &Run, results: Vec<BenchResult>) -> i64 {
    let store = Store::open(db).await.unwrap();
    let import = NewImport {
        digest: format!("regression-test-{}-{}", like.id, results.len()),
        format: LogFormat::Wolfcrypt,
        file_name: None,
        version: None,
        unread: Vec::new(),
        runs: vec![(
            NewRun {
                status: RunStatus::Complete,
                source: like.source,
                board: like.board.clone(),
                clock_hz: like.clock_hz,
                build: like.build.clone(),
                settings: None,
                host: None,
            },
            results,
        )],
    };
    store.insert_import(&import).await.unwrap()[0]
}

#[tokio::test]
async fn identical_emulated_runs_are_not_flagged_and_the_slower_implementation_is_by_each_model() {
    pqbench_test_needs::require!(common::firmware_dist());
    let server = common::start_server(&[]).await;
    let (first, fast) = server.run_to_end(request("opt-s")).await;
    let (second, again) = server.run_to_end(request("opt-s")).await;
    assert_eq!(second.status, RunStatus::Complete, "{second:?}");
    // The emulator counts instructions: the same image measures the same.
    for (a, b) in fast.iter().zip(&again) {
        assert_eq!((a.avg_ms, a.stdev_ms), (b.avg_ms, b.stdev_ms), "{a:?} {b:?}");
        assert_eq!(a.samples, Some(8));
    }

    let judged: Vec<RunRegressions> = server.get(&format!("/api/regressions?run={}", second.id)).await;
    let judged = &judged[0];
    assert_eq!(judged.judgements.len(), 6, "three operations, two models: {judged:?}");
    for j in &judged.judgements {
        // Welch's test cannot know the runs' own variation from one
        // earlier run; exact counts need no such thing.
        let expected = if j.model == "welch:0.01" { Verdict::Unknown } else { Verdict::Unchanged };
        assert_eq!(j.verdict, expected, "{j:?}");
        assert_eq!(j.against, [first.id]);
        assert_eq!(j.change_percent, 0.0);
    }

    // RustCrypto's ML-KEM, measured for real, filed as the next revision of
    // the libcrux lineage.
    let (_, slow) = server.run_to_end(request("opt-s-rustcrypto")).await;
    let slower = file_under(std::path::Path::new(&server.db()), &second, slow.clone()).await;
    let judged: Vec<RunRegressions> = server.get(&format!("/api/regressions?run={slower}")).await;
    let judged = &judged[0];
    assert!(judged.has_regression());
    for (fast, slow) in again.iter().zip(&slow) {
        let of_op: Vec<_> = judged.judgements.iter().filter(|j| j.operation == slow.operation).collect();
        let models: Vec<&str> = of_op.iter().map(|j| j.model.as_str()).collect();
        // Exact figures on both sides where every sample was the same;
        // Welch's test where a call's count varied.
        let exact = fast.stdev_ms == Some(0.0) && slow.stdev_ms == Some(0.0);
        assert_eq!(models, ["percent:10", if exact { "deterministic" } else { "welch:0.01" }]);
        for j in of_op {
            assert_eq!(j.verdict, Verdict::Slower, "{j:?}");
            assert_eq!(j.against, [second.id, first.id]);
            let change = (slow.avg_ms.unwrap() / fast.avg_ms.unwrap() - 1.0) * 100.0;
            assert!((j.change_percent - change).abs() < 1e-9, "{j:?}");
            assert!(j.change_percent > 10.0, "{j:?}");
            assert!(
                j.why.contains(&format!("{:.6}", slow.avg_ms.unwrap())),
                "the figures that crossed: {}",
                j.why
            );
        }
    }

    // Listed among the newest runs with a regression, and only it.
    let flagged: Vec<RunRegressions> = server.get("/api/regressions?regressed=true").await;
    assert_eq!(flagged.iter().map(|r| r.run).collect::<Vec<_>>(), [slower]);
    // A model by name, and a name that is none.
    let percent: Vec<RunRegressions> =
        server.get(&format!("/api/regressions?run={slower}&models=percent:500")).await;
    assert!(
        percent[0].judgements.iter().all(|j| j.verdict == Verdict::Unchanged && j.model == "percent:500")
    );
    let response = reqwest::get(format!("{}/api/regressions?models=median", server.base)).await.unwrap();
    assert_eq!(response.status(), 400);
    assert!(response.text().await.unwrap().contains("unknown model"));
}

/// `pqbench run --board qemu-mps2-an386 --variant VARIANT ... EXTRA` on `db`.
/// Its callers require the image first.
pub(crate) fn cli_run(db: &std::path::Path, variant: &str, extra: &[&str]) -> std::process::Output {
    let dist = common::dist();
    let mut args =
        vec!["run", "--board", "qemu-mps2-an386", "--variant", variant, "--algorithms", "ML-KEM-768"];
    args.extend(["--min-iterations", "8", "--min-time-ms", "0", "--dist", dist.to_str().unwrap()]);
    args.extend(extra);
    common::pqbench(&args, db)
}

pub(crate) fn said(output: &std::process::Output) -> (Option<i32>, String, String) {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

#[tokio::test]
async fn fail_on_regression_exits_non_zero_for_the_slower_run_with_its_summary() {
    pqbench_test_needs::require!(common::firmware_dist());
    pqbench_test_needs::require!(common::firmware_dist());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ci.db");
    let (code, out, err) = said(&cli_run(&db, "opt-s", &[]));
    assert_eq!(code, Some(0), "{err}");
    let fast_run: i64 = out.trim().parse().unwrap();

    // A first run of its lineage: nothing to judge against, and no failure.
    let (code, out, err) = said(&cli_run(&db, "opt-s-rustcrypto", &["--fail-on-regression"]));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.starts_with("### pqbench run 2 on qemu-mps2-an386"), "{out}");
    assert!(out.contains("Nothing to judge against"), "{out}");
    // The identical run after it.
    let (code, out, err) = said(&cli_run(&db, "opt-s-rustcrypto", &["--fail-on-regression"]));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("**No regression** against runs 2."), "{out}");
    // Keygen and encaps vary from call to call on the emulator too (their
    // rejection sampling): Welch's test needs a second earlier run for them.
    // Decaps repeats its instructions exactly, but a sample's clock reading
    // may differ by a tick (SysTick counts 40 instructions) with where the
    // sample starts against it: deterministic (within the line) or unknown
    // by the layout of the build.
    assert!(
        out.contains("6 judgements: 0 slower, 0 faster, 4 within the line, 2 unknown")
            || out.contains("6 judgements: 0 slower, 0 faster, 3 within the line, 3 unknown"),
        "{out}"
    );

    // Elsewhere, the lineage's previous revision was libcrux's faster code:
    // its real figures, filed under the RustCrypto build.
    let store = Store::open(&db).await.unwrap();
    let rustcrypto_run = store.run(2).await.unwrap().unwrap();
    let fast = store.results(fast_run).await.unwrap();
    let other = dir.path().join("regressed.db");
    file_under(&other, &rustcrypto_run, fast).await;
    let (code, out, err) =
        said(&cli_run(&other, "opt-s-rustcrypto", &["--fail-on-regression", "percent:10"]));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("**3 regressions** against runs 1:"), "{out}");
    assert!(out.contains("| ML-KEM-768 keygen | percent:10 |"), "{out}");
    assert!(!out.contains("welch"), "only the model asked for: {out}");

    // A model that is none is refused before the run.
    let (code, _, err) = said(&cli_run(&db, "opt-s", &["--fail-on-regression", "median:3"]));
    assert_eq!(code, Some(1));
    assert!(err.contains("unknown model \"median\""), "{err}");
    assert_eq!(store.runs(None, 10).await.unwrap().len(), 3, "no run was made");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ci_run_on_a_local_board_is_stored_and_judged_on_a_central_server() {
    pqbench_test_needs::require!(common::firmware_dist());
    pqbench_test_needs::require!(common::firmware_dist());
    let central =
        common::start_server(&["--token", "writes-token-0451", "--agent-token", "agents-token-0451"]).await;
    let db = tempfile::tempdir().unwrap();
    // `--db` is given but unused: the run is stored centrally.
    let local = db.path().join("unused.db");
    let to_central = |variant: &str, models: Option<&str>| {
        let mut extra = vec!["--server", &central.base, "--token", "writes-token-0451"];
        extra.extend(["--agent-token", "agents-token-0451", "--host", "ci-runner-7"]);
        if let Some(models) = models {
            extra.extend(["--fail-on-regression", models]);
        }
        said(&cli_run(&local, variant, &extra))
    };

    let (code, out, err) = to_central("opt-s-rustcrypto", Some("percent"));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("Nothing to judge against"), "{out}");
    let (code, out, err) = to_central("opt-s", None);
    assert_eq!(code, Some(0), "{out}{err}");
    let fast_run: i64 = out.trim().parse().unwrap();
    let run: Run = central.get(&format!("/api/runs/{fast_run}")).await;
    assert_eq!((run.host.as_deref(), run.status), (Some("ci-runner-7"), RunStatus::Complete));
    assert!(!local.exists(), "nothing was stored locally");

    // The lineage's previous revision, faster: libcrux's figures filed
    // under the RustCrypto build, on the central store.
    let rustcrypto: Run = central.get("/api/runs/1").await;
    let fast: Vec<BenchResult> = central.get(&format!("/api/runs/{fast_run}/results")).await;
    file_under(std::path::Path::new(&central.db()), &rustcrypto, fast).await;
    let (code, out, err) = to_central("opt-s-rustcrypto", Some("percent"));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("**3 regressions**"), "{out}");
    let judged: Vec<RunRegressions> = central.get("/api/regressions?regressed=true&models=percent").await;
    assert_eq!(judged.len(), 1, "{judged:?}");
    assert!(out.starts_with(&format!("### pqbench run {} on qemu-mps2-an386", judged[0].run)), "{out}");

    // A wrong token: refused, said, and nothing run.
    let (code, _, err) = said(&cli_run(
        &local,
        "opt-s",
        &[
            "--server",
            &central.base,
            "--token",
            "not-it",
            "--agent-token",
            "agents-token-0451",
            "--host",
            "ci-runner-8",
        ],
    ));
    assert_eq!(code, Some(1));
    assert!(err.contains("401"), "{err}");
}
