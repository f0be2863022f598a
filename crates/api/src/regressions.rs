//! `GET /api/regressions`: runs judged against the earlier runs of their
//! lineage (`pqbench_view::regressions`).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use pqbench_view::regressions::{Judgement, Verdict};
use serde::{Deserialize, Serialize};

/// One run's judgements, by every model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRegressions {
    pub run: i64,
    pub board: String,
    /// The run's build, as its label.
    pub build_label: String,
    /// The lineage the run was judged within (`regressions::lineage`).
    pub lineage: String,
    /// One per (operation, model) that had an earlier run to judge against.
    pub judgements: Vec<Judgement>,
}

impl RunRegressions {
    /// The judgements that found the run slower.
    pub fn regressions(&self) -> impl Iterator<Item = &Judgement> {
        self.judgements.iter().filter(|j| j.is_regression())
    }

    pub fn has_regression(&self) -> bool {
        self.regressions().next().is_some()
    }

    /// A short Markdown summary, for a CI job to post as a pull-request
    /// comment: what moved, by how much, against which runs.
    pub fn markdown(&self) -> String {
        let mut out = format!("### pqbench run {} on {} ({})\n\n", self.run, self.board, self.build_label);
        if self.judgements.is_empty() {
            out.push_str("Nothing to judge against: no earlier complete run of this board, build variant and implementation measured these operations.\n");
            return out;
        }
        let against: BTreeSet<i64> = self.judgements.iter().flat_map(|j| j.against.iter().copied()).collect();
        let against: Vec<String> = against.iter().rev().map(|id| format!("{id}")).collect();
        let flagged: Vec<&Judgement> = self.regressions().collect();
        let faster = self.judgements.iter().filter(|j| j.verdict == Verdict::Faster).count();
        let _ = match flagged.len() {
            0 => writeln!(out, "**No regression** against runs {}.", against.join(", ")),
            1 => writeln!(out, "**1 regression** against runs {}:", against.join(", ")),
            n => writeln!(out, "**{n} regressions** against runs {}:", against.join(", ")),
        };
        if !flagged.is_empty() {
            out.push_str("\n| operation | model | before | after | change |\n|---|---|--:|--:|--:|\n");
            for j in &flagged {
                let _ = writeln!(
                    out,
                    "| {} {} | {} | {} | {} | {:+.1}% |",
                    j.algorithm,
                    j.operation,
                    j.model,
                    milliseconds(j.before_ms),
                    milliseconds(j.after_ms),
                    j.change_percent
                );
            }
            out.push('\n');
            for j in &flagged {
                let _ = writeln!(out, "- {} {} ({}): {}", j.algorithm, j.operation, j.model, j.why);
            }
        }
        let unknown = self.judgements.iter().filter(|j| j.verdict == Verdict::Unknown).count();
        let unchanged = self.judgements.len() - flagged.len() - faster - unknown;
        let _ = write!(
            out,
            "\n{} judgements: {} slower, {faster} faster, {unchanged} within the line",
            self.judgements.len(),
            flagged.len()
        );
        let _ = match unknown {
            0 => writeln!(out, "."),
            n => writeln!(
                out,
                ", {n} unknown (Welch's test needs two earlier runs to know how far runs differ)."
            ),
        };
        out
    }
}

/// Milliseconds per call, with decimals enough for a change of 0.1% to show.
fn milliseconds(ms: f64) -> String {
    let decimals = if ms >= 100.0 {
        1
    } else if ms >= 1.0 {
        3
    } else {
        6
    };
    format!("{ms:.decimals$} ms")
}
