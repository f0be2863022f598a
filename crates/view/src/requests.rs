//! What a history asks the server for beside its results: its
//! regressions. (The results of a history or a matrix are
//! `pqbench_api::ResultQuery`'s.)

use alloc::string::String;

use crate::HistoryOf;
use crate::link::percent_encode;

impl HistoryOf {
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
