//! A browser run's field: the implementations one press of "Run in this
//! browser" measured (pqbench's wasm, the browser's WebCrypto, JavaScript
//! libraries), each stored as a run of its own, side by side per operation
//! with each one's ops/s as a share of the fastest's.

use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::{Algorithm, BROWSER_RUN, Operation, ResultRow, Run, Status};

/// The runs stored by the same press as run `id` (same board, same
/// [`BROWSER_RUN`] token), oldest first: ours, then the others in the
/// order they ran. Empty when `id` is not among `runs` or has no token.
pub fn runs_of(runs: &[Run], id: i64) -> Vec<i64> {
    let Some(open) = runs.iter().find(|run| run.id == id) else { return Vec::new() };
    let Some(token) = open.build.extra.get(BROWSER_RUN) else { return Vec::new() };
    let mut ids: Vec<i64> = runs
        .iter()
        .filter(|run| run.board == open.board && run.build.extra.get(BROWSER_RUN) == Some(token))
        .map(|run| run.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// One operation across the field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRow {
    pub algorithm: Algorithm,
    pub operation: Operation,
    /// One per column, in the columns' order; `None` where that
    /// implementation has no row for this operation.
    pub cells: Vec<Option<FieldCell>>,
}

/// One implementation's figure for one operation.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldCell {
    pub status: Status,
    pub ops_per_sec: Option<f64>,
    /// Its ops/s over the fastest's in the row (1 for the fastest); `None`
    /// without a figure.
    pub of_fastest: Option<f64>,
}

/// The field of `rows` (results of the runs `runs`, in that order): the
/// columns' build labels and a row per operation, in the order the first
/// run that has it lists it.
pub fn field(rows: &[ResultRow], runs: &[i64]) -> (Vec<String>, Vec<FieldRow>) {
    let columns: Vec<String> = runs
        .iter()
        .map(|id| {
            rows.iter().find(|row| row.run_id == *id).map_or_else(String::new, |r| r.build_label.clone())
        })
        .collect();
    let mut operations: Vec<(Algorithm, Operation)> = Vec::new();
    for id in runs {
        for row in rows.iter().filter(|row| row.run_id == *id) {
            let key = (row.result.algorithm, row.result.operation);
            if !operations.contains(&key) {
                operations.push(key);
            }
        }
    }
    let field = operations
        .into_iter()
        .map(|(algorithm, operation)| {
            let found: Vec<Option<&ResultRow>> = runs
                .iter()
                .map(|id| {
                    rows.iter().find(|row| {
                        row.run_id == *id
                            && row.result.algorithm == algorithm
                            && row.result.operation == operation
                    })
                })
                .collect();
            let fastest = found
                .iter()
                .flatten()
                .filter_map(|row| row.result.ops_per_sec)
                .fold(None, |most: Option<f64>, ops| Some(most.map_or(ops, |m| m.max(ops))));
            let cells = found
                .into_iter()
                .map(|row| {
                    row.map(|row| FieldCell {
                        status: row.result.status,
                        ops_per_sec: row.result.ops_per_sec,
                        of_fastest: match (row.result.ops_per_sec, fastest) {
                            (Some(ops), Some(most)) if most > 0.0 => Some(ops / most),
                            _ => None,
                        },
                    })
                })
                .collect();
            FieldRow { algorithm, operation, cells }
        })
        .collect();
    (columns, field)
}

#[cfg(test)]
mod tests {
    use alloc::collections::BTreeMap;
    use alloc::string::ToString;

    use pqbench_types::{BenchResult, Build, RunStatus, Source};

    use super::*;

    fn run(id: i64, board: &str, token: Option<&str>) -> Run {
        let mut extra = BTreeMap::new();
        if let Some(token) = token {
            extra.insert(BROWSER_RUN.to_string(), token.to_string());
        }
        Run {
            id,
            status: RunStatus::Complete,
            source: Source::Browser,
            board: board.into(),
            clock_hz: None,
            build: Build { extra, ..Build::default() },
            started_at: String::new(),
            finished_at: None,
            error: None,
            rejected_records: 0,
            notes: None,
            host: None,
        }
    }

    fn row(run_id: i64, label: &str, operation: Operation, ops: Option<f64>) -> ResultRow {
        let status = if ops.is_some() { Status::Ok } else { Status::Skipped };
        let mut result = BenchResult::unmeasured(Algorithm::MlKem768, operation, status);
        result.ops_per_sec = ops;
        ResultRow {
            run_id,
            board: "browser:1".into(),
            source: Source::Browser,
            started_at: String::new(),
            build_label: label.into(),
            run_status: RunStatus::Complete,
            result,
        }
    }

    #[test]
    fn the_runs_of_one_press_are_found_by_board_and_token_oldest_first() {
        let runs = [
            run(9, "browser:1", Some("b")),
            run(8, "browser:1", Some("a")),
            run(7, "browser:2", Some("a")),
            run(6, "browser:1", Some("a")),
            run(5, "browser:1", None),
        ];
        assert_eq!(runs_of(&runs, 8), [6, 8]);
        assert_eq!(runs_of(&runs, 9), [9]);
        assert_eq!(runs_of(&runs, 5), [] as [i64; 0], "a run without a token has no field");
        assert_eq!(runs_of(&runs, 4), [] as [i64; 0]);
    }

    #[test]
    fn each_operation_is_set_side_by_side_as_a_share_of_the_fastest() {
        let rows = [
            row(2, "webcrypto", Operation::Keygen, None),
            row(2, "webcrypto", Operation::Encaps, Some(400.0)),
            row(1, "Chrome 156", Operation::Keygen, Some(100.0)),
            row(1, "Chrome 156", Operation::Encaps, Some(200.0)),
            row(3, "noble", Operation::Decaps, Some(50.0)),
        ];
        let (columns, field) = field(&rows, &[1, 2, 3]);
        assert_eq!(columns, ["Chrome 156", "webcrypto", "noble"]);
        let ops: Vec<Operation> = field.iter().map(|r| r.operation).collect();
        assert_eq!(ops, [Operation::Keygen, Operation::Encaps, Operation::Decaps]);
        let share = |r: &FieldRow, n: usize| r.cells[n].as_ref().and_then(|c| c.of_fastest);
        // Keygen: ours alone has a figure, so it is the fastest; WebCrypto's
        // skipped row is there, without one.
        assert_eq!(share(&field[0], 0), Some(1.0));
        assert_eq!(field[0].cells[1].as_ref().map(|c| c.status), Some(Status::Skipped));
        assert_eq!(share(&field[0], 1), None);
        assert_eq!(field[0].cells[2], None, "noble has no keygen row");
        assert_eq!((share(&field[1], 0), share(&field[1], 1)), (Some(0.5), Some(1.0)));
        assert_eq!(share(&field[2], 2), Some(1.0));
    }
}
