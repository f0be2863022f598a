//! Which results, across runs: the one codec of `GET /api/results`'s
//! query. The server reads a request with [`ResultQuery::from_query`], the
//! store selects by the value, and the dashboard builds its requests with
//! [`ResultQuery::to_query`], so the three can never disagree on a name or
//! an escape.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use pqbench_types::{Algorithm, Operation, Source};
use pqbench_view::{HistoryOf, View};

/// Most results one request lists, and how many when it does not say.
pub const DEFAULT_RESULTS_PAGE: u32 = 5000;
pub const MAX_RESULTS_PAGE: u32 = 20_000;
/// Most values one filter takes: the store binds each as a parameter.
pub const MAX_FILTER_VALUES: usize = 500;
/// Runs the dashboard's history of one operation shows, the newest: more
/// points than a chart can show apart, and a request that stays quick with
/// a million results stored. `cargo xtask bench-load` asks for the same
/// (BENCHMARKS.md, the load table).
pub const HISTORY_RUNS: u32 = 200;

/// Results of runs that match every non-empty list (any value of a list),
/// newest run first, at most `limit` of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultQuery {
    pub boards: Vec<String>,
    pub sources: Vec<Source>,
    /// Build labels (`Build::label`), e.g. `firmware opt-s, libcrux-ml-kem 0.0.11`.
    pub builds: Vec<String>,
    pub algorithms: Vec<Algorithm>,
    pub operations: Vec<Operation>,
    pub runs: Vec<i64>,
    pub limit: u32,
}

impl ResultQuery {
    /// The request for a history: its board's results of the one
    /// operation, the newest `limit` runs.
    pub fn of_history(history: &HistoryOf, limit: u32) -> ResultQuery {
        ResultQuery {
            boards: alloc::vec![history.board.clone()],
            algorithms: alloc::vec![history.algorithm],
            operations: alloc::vec![history.operation],
            limit,
            ..ResultQuery::default()
        }
    }

    /// The matrix request a view makes (`GET /api/matrix`): its boards,
    /// sources and builds, its runs (Compare's), its algorithm and
    /// operation filters, as many results as one page holds.
    pub fn of_matrix(view: &View) -> ResultQuery {
        let matrix = view.matrix.clone().unwrap_or_default();
        ResultQuery {
            boards: matrix.boards,
            sources: matrix.sources,
            builds: matrix.builds,
            runs: view.runs.clone(),
            algorithms: view.filter.algorithms.clone(),
            operations: view.filter.operations.clone(),
            limit: MAX_RESULTS_PAGE,
        }
    }
}

impl Default for ResultQuery {
    fn default() -> Self {
        ResultQuery {
            boards: Vec::new(),
            sources: Vec::new(),
            builds: Vec::new(),
            algorithms: Vec::new(),
            operations: Vec::new(),
            runs: Vec::new(),
            limit: DEFAULT_RESULTS_PAGE,
        }
    }
}

/// Why a query was refused: a name pqbench does not know (the request was
/// well formed, its content is not: HTTP 422), or a malformed request
/// (HTTP 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    UnknownName { kind: &'static str, name: String },
    Malformed(String),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::UnknownName { kind, name } => write!(f, "unknown {kind} {name:?}"),
            QueryError::Malformed(why) => f.write_str(why),
        }
    }
}

impl ResultQuery {
    /// The query as sent (without `?`). Every filter may be repeated
    /// (`run=1&run=2`); all but `board` and `build` (free text that may
    /// hold commas) also take comma-separated values (`run=1,2`); empty
    /// values are ignored. Percent escapes and `+` are decoded as in a form.
    pub fn from_query(query: &str) -> Result<ResultQuery, QueryError> {
        fn named<T>(
            kind: &'static str,
            text: &str,
            parse: impl Fn(&str) -> Option<T>,
        ) -> Result<T, QueryError> {
            parse(text).ok_or_else(|| QueryError::UnknownName { kind, name: text.into() })
        }
        let mut filter = ResultQuery::default();
        for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = form_decode(key)?;
            let value = form_decode(value)?;
            let mut values = value.split(',').map(str::trim).filter(|v| !v.is_empty());
            match key.as_str() {
                "board" if !value.is_empty() => filter.boards.push(value.clone()),
                "board" => {}
                // A build label holds commas and spaces: taken whole, as a board id.
                "build" if !value.is_empty() => filter.builds.push(value.clone()),
                "build" => {}
                "source" => {
                    for v in values {
                        filter.sources.push(named("source", v, Source::from_name)?);
                    }
                }
                "algorithm" => {
                    for v in values {
                        filter.algorithms.push(named("algorithm", v, |v| Algorithm::from_name(v).ok())?);
                    }
                }
                "operation" => {
                    for v in values {
                        filter.operations.push(named("operation", v, |v| Operation::from_name(v).ok())?);
                    }
                }
                "run" => {
                    for v in values {
                        let id = v.parse().ok().filter(|&id: &i64| id > 0);
                        filter
                            .runs
                            .push(id.ok_or_else(|| QueryError::Malformed(format!("bad run id {v:?}")))?);
                    }
                }
                "limit" => {
                    filter.limit = values
                        .next()
                        .and_then(|v| v.parse().ok())
                        .filter(|limit| (1..=MAX_RESULTS_PAGE).contains(limit))
                        .ok_or_else(|| {
                            QueryError::Malformed(format!("limit must be 1 to {MAX_RESULTS_PAGE}"))
                        })?;
                }
                other => {
                    return Err(QueryError::Malformed(format!(
                        "unknown parameter {other:?}: filter by board, source, build, algorithm, operation \
                         or run, and give a limit"
                    )));
                }
            }
        }
        let counts = [
            filter.boards.len(),
            filter.sources.len(),
            filter.builds.len(),
            filter.algorithms.len(),
            filter.operations.len(),
            filter.runs.len(),
        ];
        if counts.iter().any(|&n| n > MAX_FILTER_VALUES) {
            return Err(QueryError::Malformed(format!("a filter takes at most {MAX_FILTER_VALUES} values")));
        }
        Ok(filter)
    }

    /// The query to send (without `?`): lists comma-separated, one `board`
    /// or `build` pair per board or build, escaped; the limit only when it is not the default.
    pub fn to_query(&self) -> String {
        fn list<T>(items: &[T], name: impl Fn(&T) -> String) -> String {
            items.iter().map(name).collect::<Vec<_>>().join(",")
        }
        let mut pairs: Vec<String> = Vec::new();
        for board in &self.boards {
            pairs.push(format!("board={}", pqbench_view::percent_encode(board)));
        }
        if !self.sources.is_empty() {
            pairs.push(format!("source={}", list(&self.sources, |s| s.as_str().into())));
        }
        for build in &self.builds {
            pairs.push(format!("build={}", pqbench_view::percent_encode(build)));
        }
        if !self.algorithms.is_empty() {
            pairs.push(format!("algorithm={}", list(&self.algorithms, |a| a.as_str().into())));
        }
        if !self.operations.is_empty() {
            pairs.push(format!("operation={}", list(&self.operations, |o| o.as_str().into())));
        }
        if !self.runs.is_empty() {
            pairs.push(format!("run={}", list(&self.runs, |id| format!("{id}"))));
        }
        if self.limit != DEFAULT_RESULTS_PAGE {
            pairs.push(format!("limit={}", self.limit));
        }
        pairs.join("&")
    }
}

/// A form field: `+` is a space, then percent escapes.
fn form_decode(text: &str) -> Result<String, QueryError> {
    let spaced = text.replace('+', " ");
    pqbench_view::percent_decode(&spaced)
        .ok_or_else(|| QueryError::Malformed(format!("bad escape in {text:?}")))
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use super::*;

    #[test]
    fn a_query_reads_back_as_itself() {
        let query = ResultQuery {
            boards: vec!["serial:/dev/ttyACM0".into(), "lab, 2/qemu&x".into()],
            sources: vec![Source::Browser, Source::ProbeRs],
            builds: vec!["firmware opt-s, libcrux-ml-kem 0.0.11".into()],
            algorithms: vec![Algorithm::MlKem768, Algorithm::X25519],
            operations: vec![Operation::Keygen],
            runs: vec![3, 41],
            limit: 200,
        };
        let text = query.to_query();
        assert!(text.contains("board=lab%2C%202%2Fqemu%26x"), "{text}");
        assert_eq!(ResultQuery::from_query(&text), Ok(query));
        assert_eq!(ResultQuery::from_query(""), Ok(ResultQuery::default()));
        assert_eq!(ResultQuery::default().to_query(), "");
    }

    #[test]
    fn repeated_and_comma_separated_values_add_up() {
        let query =
            ResultQuery::from_query("?run=1,2&run=3&algorithm=ML-KEM-768,+&board=a,b&board=").unwrap();
        assert_eq!(query.runs, [1, 2, 3]);
        assert_eq!(query.algorithms, [Algorithm::MlKem768]);
        assert_eq!(query.boards, ["a,b"], "a board id is taken whole");
    }

    #[test]
    fn unknown_names_and_malformed_requests_are_told_apart() {
        let unknown = |q: &str| matches!(ResultQuery::from_query(q), Err(QueryError::UnknownName { .. }));
        let malformed = |q: &str| matches!(ResultQuery::from_query(q), Err(QueryError::Malformed(_)));
        assert!(unknown("algorithm=ML-KEM-999"));
        assert!(unknown("operation=fly"));
        assert!(unknown("source=fax"));
        assert!(malformed("run=0"));
        assert!(malformed("run=x"));
        assert!(malformed("limit=0"));
        assert!(malformed("limit=20001"));
        assert!(malformed("colour=red"));
        assert!(malformed("board=%zz"));
        let many =
            alloc::format!("run={}", (1..=501).map(|i| alloc::format!("{i}")).collect::<Vec<_>>().join(","));
        assert!(malformed(&many));
        assert_eq!(
            ResultQuery::from_query("algorithm=X").unwrap_err().to_string(),
            "unknown algorithm \"X\""
        );
    }
}
