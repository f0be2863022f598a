//! A run's regression verdicts as people see them, in the dashboard's
//! history and matrix and on a badge: one word for styling and tests, one
//! line for people.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pqbench_types::{Algorithm, Operation};
use pqbench_view::regressions::{Judgement, Verdict};

use crate::RunRegressions;

/// `slower`, `faster`, `unchanged` (every model that could tell agrees),
/// `disputed` or `unknown` for the judgements of `run` (on the
/// one operation `of` names, or all), and what they say; `""` and no words
/// where it was not judged (no earlier run of its lineage).
pub fn verdict_of(
    judged: &[RunRegressions],
    run: i64,
    of: Option<(Algorithm, Operation)>,
) -> (&'static str, Option<String>) {
    let judgements: Vec<&Judgement> = judged
        .iter()
        .filter(|r| r.run == run)
        .flat_map(|r| &r.judgements)
        .filter(|j| of.is_none_or(|(a, o)| (j.algorithm, j.operation) == (a, o)))
        .collect();
    if judgements.is_empty() {
        return ("", None);
    }
    // Models that could tell: Welch's test may not know yet.
    let deciding: Vec<&&Judgement> = judgements.iter().filter(|j| j.verdict != Verdict::Unknown).collect();
    let Some(first) = deciding.first() else {
        return ("unknown", Some("unknown: two earlier runs are needed to know how far runs differ".into()));
    };
    let against: Vec<String> = first.against.iter().map(|id| format!("{id}")).collect();
    let models: Vec<&str> = deciding.iter().map(|j| j.model.as_str()).collect();
    let word = |verdict: Verdict| match verdict {
        Verdict::Slower => "slower",
        Verdict::Faster => "faster",
        Verdict::Unchanged => "within the line",
        Verdict::Unknown => "unknown",
    };
    if deciding.iter().all(|j| j.verdict == first.verdict) {
        let said = match first.verdict {
            Verdict::Unchanged => "within the line".to_string(),
            verdict => format!(
                "{}: {:+.1}% ({}; against runs {})",
                word(verdict),
                first.change_percent,
                models.join(", "),
                against.join(", ")
            ),
        };
        let verdict = if first.verdict == Verdict::Unchanged { "unchanged" } else { word(first.verdict) };
        return (verdict, Some(said));
    }
    // The models disagree (a change beyond the percentage that the runs'
    // own variation explains, as a browser's often is): said, not flagged.
    let each: Vec<String> = deciding.iter().map(|j| format!("{} {}", j.model, word(j.verdict))).collect();
    ("disputed", Some(format!("{:+.1}%: {}", first.change_percent, each.join(", "))))
}
