//! What a view asks the server for: the results of a history or a matrix,
//! and a history's regressions.

use alloc::string::String;

use crate::link::percent_encode;
use crate::query::{self, ResultQuery};
use crate::{HistoryOf, View};

impl HistoryOf {
    /// The request for this history: its board's results of the one
    /// operation, the newest `limit` runs.
    pub fn query(&self, limit: u32) -> ResultQuery {
        ResultQuery {
            boards: alloc::vec![self.board.clone()],
            algorithms: alloc::vec![self.algorithm],
            operations: alloc::vec![self.operation],
            limit,
            ..ResultQuery::default()
        }
    }

    /// The query of `GET /api/regressions` for this history: the board's
    /// newest `limit` complete runs, judged on the one operation.
    pub fn regressions_query(&self, limit: u32) -> String {
        alloc::format!(
            "board={}&algorithm={}&operation={}&limit={limit}",
            percent_encode(&self.board),
            self.algorithm.as_str(),
            self.operation.as_str()
        )
    }
}

impl View {
    /// The matrix request this view makes (`GET /api/matrix`): its boards,
    /// sources and builds, its runs (Compare's), its algorithm and
    /// operation filters, as many results as one page holds.
    pub fn matrix_query(&self) -> ResultQuery {
        let matrix = self.matrix.clone().unwrap_or_default();
        ResultQuery {
            boards: matrix.boards,
            sources: matrix.sources,
            builds: matrix.builds,
            runs: self.runs.clone(),
            algorithms: self.filter.algorithms.clone(),
            operations: self.filter.operations.clone(),
            limit: query::MAX_RESULTS_PAGE,
        }
    }
}
