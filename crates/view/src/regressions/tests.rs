use alloc::string::ToString;
use alloc::vec;

use pqbench_types::{Build, RunStatus, Source};

use super::*;

fn result(avg_ms: f64, stdev_ms: f64, samples: u64) -> BenchResult {
    BenchResult {
        avg_ms: Some(avg_ms),
        stdev_ms: Some(stdev_ms),
        samples: Some(samples),
        ..BenchResult::unmeasured(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
    }
}

fn run(board: &str, opt: &str, implementation: Option<&str>, revision: &str) -> Run {
    let mut build =
        Build { opt_level: Some(opt.into()), revision: Some(revision.into()), ..Build::default() };
    if let Some(i) = implementation {
        build.extra.insert(IMPLEMENTATION.into(), i.into());
    }
    Run {
        id: 1,
        status: RunStatus::Complete,
        source: Source::Serial,
        board: board.into(),
        clock_hz: None,
        build,
        started_at: "2026-12-02T00:00:00Z".into(),
        finished_at: None,
        error: None,
        rejected_records: 0,
        notes: None,
        host: None,
    }
}

#[test]
fn p_values_are_students() {
    // Reference values by numerical integration of Student's density.
    let close = |t: f64, df: f64, p: f64| {
        let got = two_sided_p(t, df);
        assert!((got - p).abs() < 1e-6 * p, "t = {t}, df = {df}: {got} against {p}");
    };
    close(0.0, 10.0, 1.0);
    close(2.0, 10.0, 0.073_388_035);
    close(-2.0, 10.0, 0.073_388_035);
    close(1.959_964, 1e7, 0.05);
    close(3.0, 4.0, 0.039_941_968);
    close(10.0, 30.0, 4.575_251e-11);
    assert_eq!(two_sided_p(f64::INFINITY, 5.0), 0.0);
}

#[test]
fn a_lineage_holds_board_variant_and_implementation_but_not_revision_or_version() {
    let a = run("qemu-mps2-an386", "s", None, "abc");
    assert_eq!(lineage(&a), lineage(&run("qemu-mps2-an386", "s", None, "def")));
    assert_ne!(lineage(&a), lineage(&run("qemu-mps2-an386", "3", None, "abc")));
    assert_ne!(lineage(&a), lineage(&run("nucleo-f446ze", "s", None, "abc")));
    let noble = |v: &str| run("browser:1", "", Some(v), "x");
    assert_eq!(lineage(&noble("noble-post-quantum@0.7.1")), lineage(&noble("noble-post-quantum@0.8.0")));
    assert_ne!(lineage(&noble("webcrypto")), lineage(&noble("noble-post-quantum@0.7.1")));
}

#[test]
fn identical_exact_runs_are_unchanged_and_a_slower_one_is_flagged_by_each_model() {
    let earlier = vec![(2, vec![result(11.56, 0.0, 40)]), (1, vec![result(11.56, 0.0, 40)])];
    let same = judge(&(3, vec![result(11.56, 0.0, 40)]), &earlier, &Model::DEFAULTS);
    assert_eq!(same.len(), 2);
    assert!(same.iter().all(|j| j.verdict == Verdict::Unchanged), "{same:?}");
    assert_eq!(same[1].model, "deterministic");
    assert_eq!(same[0].against, [2, 1]);

    let slower = judge(&(3, vec![result(25.1, 0.0, 40)]), &earlier, &Model::DEFAULTS);
    assert!(slower.iter().all(Judgement::is_regression), "{slower:?}");
    assert!(slower[0].why.contains("+117.13%"), "{}", slower[0].why);
    assert!((slower[0].change_percent - 117.128).abs() < 0.01);
}

#[test]
fn welch_flags_a_shift_beyond_the_noise_and_not_within_it() {
    let welch = [Model::Welch { alpha: 0.01 }];
    let earlier: Vec<_> = [10.0, 10.01, 9.99, 10.02, 10.0]
        .iter()
        .enumerate()
        .map(|(id, &m)| (id as i64, vec![result(m, 0.5, 200)]))
        .collect();
    let within = judge(&(9, vec![result(10.02, 0.5, 200)]), &earlier, &welch);
    assert_eq!(within[0].verdict, Verdict::Unchanged, "{within:?}");
    assert!(within[0].p_value.unwrap() > 0.5);
    // Means that agree to 0.01 ms say nothing of a new run's samples: the
    // line is never narrower than they give (±0.039 ms here), so 3% is far
    // beyond it.
    let beyond = judge(&(9, vec![result(10.3, 0.5, 200)]), &earlier, &welch);
    assert_eq!(beyond[0].verdict, Verdict::Slower, "{beyond:?}");
    assert!(beyond[0].p_value.unwrap() < 0.002);
    let faster = judge(&(9, vec![result(9.7, 0.5, 200)]), &earlier, &welch);
    assert_eq!(faster[0].verdict, Verdict::Faster);
    // The percent model sees only the means: 3% is within its 10%.
    let percent = judge(&(9, vec![result(10.3, 0.5, 200)]), &earlier, &[Model::Percent { percent: 10.0 }]);
    assert_eq!(percent[0].verdict, Verdict::Unchanged);
}

#[test]
fn runs_that_differ_among_themselves_widen_the_line() {
    let welch = [Model::Welch { alpha: 0.01 }];
    // Earlier runs 20% apart with tight samples: the machine, not the code.
    let noisy = vec![
        (3, vec![result(10.0, 0.5, 200)]),
        (2, vec![result(12.0, 0.5, 200)]),
        (1, vec![result(10.5, 0.5, 200)]),
    ];
    let like_them = judge(&(4, vec![result(12.5, 0.5, 200)]), &noisy, &welch);
    assert_eq!(like_them[0].verdict, Verdict::Unchanged, "{like_them:?}");
    assert!(like_them[0].why.contains("which vary by ±1.04"), "{}", like_them[0].why);
    assert!(like_them[0].why.contains("on 2 degrees of freedom"), "{}", like_them[0].why);
    let far_beyond = judge(&(4, vec![result(40.0, 0.5, 200)]), &noisy, &welch);
    assert_eq!(far_beyond[0].verdict, Verdict::Slower, "{far_beyond:?}");
    // From one earlier run, the runs' own variation is unknown, and so is the verdict.
    let one = judge(&(2, vec![result(40.0, 0.5, 200)]), &noisy[..1], &welch);
    assert_eq!(one[0].verdict, Verdict::Unknown, "{one:?}");
    assert_eq!(one[0].p_value, None);
}

#[test]
fn a_run_is_the_unit_of_the_baseline_whatever_its_samples() {
    // Each run weighs one in the mean and in the spread of means: a run
    // of many samples does not outweigh the rest.
    let a = Sample { n: 10.0, mean: 1.0, stdev: 0.0 };
    let b = Sample { n: 1000.0, mean: 3.0, stdev: 0.0 };
    let base = Baseline::of(&[a, b]).unwrap();
    assert_eq!((base.runs, base.mean, base.of_means, base.sampling), (2.0, 2.0, Some(2.0), 0.0));
    assert!(!base.exact);
    let spread = Sample { n: 4.0, mean: 1.0, stdev: 2.0 };
    let base = Baseline::of(&[spread, spread]).unwrap();
    assert_eq!((base.of_means, base.sampling, base.exact), (Some(0.0), 1.0, false));
    assert_eq!(Baseline::of(&[a]).unwrap().of_means, None);
    assert!(Baseline::of(&[a, a]).unwrap().exact);
}

#[test]
fn a_new_run_with_fewer_samples_widens_the_line_and_never_narrows_it() {
    let base = Baseline::of(&[
        Sample { n: 100.0, mean: 10.0, stdev: 1.0 },
        Sample { n: 100.0, mean: 10.2, stdev: 1.0 },
        Sample { n: 100.0, mean: 9.8, stdev: 1.0 },
    ])
    .unwrap();
    let of_means = base.of_means.unwrap();
    let t_of = |n: f64| run_means_t(&base, of_means, &Sample { n, mean: 10.5, stdev: 1.0 }).0;
    // Spread of means 0.04: the prediction's variance 0.04 × 4/3.
    assert!((t_of(100.0) - 0.5 / libm::sqrt(0.04 * 4.0 / 3.0)).abs() < 1e-9, "{}", t_of(100.0));
    // Four samples: the new mean's own noise, 1/4, less the 1/100 the
    // earlier means already carry, is added.
    assert!((t_of(4.0) - 0.5 / libm::sqrt(0.04 * 4.0 / 3.0 + 0.25 - 0.01)).abs() < 1e-9);
    // More samples than before: no narrower than with as many.
    assert_eq!(t_of(10_000.0), t_of(100.0));
    assert_eq!(run_means_t(&base, of_means, &Sample { n: 4.0, mean: 10.0, stdev: 1.0 }).1, 2.0);
}

#[test]
fn figures_a_model_needs_are_never_made_up() {
    // An imported log has no sample count or spread: Welch says nothing.
    let bare = BenchResult {
        avg_ms: Some(1.0),
        ..BenchResult::unmeasured(Algorithm::MlKem768, Operation::Keygen, Status::Ok)
    };
    let earlier = vec![(1, vec![bare.clone()])];
    let judged = judge(&(2, vec![bare]), &earlier, &Model::DEFAULTS);
    assert_eq!(judged.len(), 1);
    assert_eq!(judged[0].model, "percent:10");
    // No earlier run: nothing to judge against.
    assert!(judge(&(2, vec![result(1.0, 0.1, 10)]), &[], &Model::DEFAULTS).is_empty());
    // Only the newest five earlier runs count.
    let many: Vec<_> = (1..=8).rev().map(|id| (id, vec![result(1.0, 0.0, 10)])).collect();
    let judged = judge(&(9, vec![result(1.0, 0.0, 10)]), &many, &Model::DEFAULTS);
    assert_eq!(judged[0].against, [8, 7, 6, 5, 4]);
}

#[test]
fn models_parse_with_and_without_a_parameter() {
    assert_eq!(Model::parse("percent"), Ok(Model::Percent { percent: 10.0 }));
    assert_eq!(Model::parse("percent:2.5"), Ok(Model::Percent { percent: 2.5 }));
    assert_eq!(Model::parse("welch:0.01"), Ok(Model::Welch { alpha: 0.01 }));
    assert!(Model::parse("welch:2").unwrap_err().to_string().contains("below 1"));
    assert!(Model::parse("mann-whitney").unwrap_err().to_string().contains("percent"));
    assert_eq!(Model::Welch { alpha: 0.01 }.name().to_string(), "welch:0.01");
}

#[test]
fn a_request_names_a_handful_of_models_each_once() {
    assert_eq!(parse_models(None), Ok(Model::DEFAULTS.to_vec()));
    assert_eq!(
        parse_models(Some("welch:0.05, percent")),
        Ok(vec![Model::Welch { alpha: 0.05 }, Model::Percent { percent: 10.0 }])
    );
    assert_eq!(parse_models(Some(" , ")), Err(ModelError::None));
    assert_eq!(
        parse_models(Some("percent:10,percent:10.0")),
        Err(ModelError::Twice("percent:10.0".to_string()))
    );
    let many: vec::Vec<_> = (1..=400).map(|p| alloc::format!("percent:{p}")).collect();
    assert_eq!(parse_models(Some(&many.join(","))), Err(ModelError::TooMany(400)));
    let most = many[..MAX_MODELS].join(",");
    assert_eq!(parse_models(Some(&most)).map(|m| m.len()), Ok(MAX_MODELS));
}
