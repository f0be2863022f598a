//! How a collection ended, and what its run is recorded as.

use pqbench_types::RunStatus;

use super::State;

/// How a collection ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: RunStatus,
    pub error: Option<String>,
    pub results: u32,
    pub rejected: u32,
}

/// The error of a run whose board restarted before it ended.
pub const RESTARTED: &str = "the board restarted mid-run";

/// How the board's side of a run stopped, before it is judged.
pub(super) enum Ending {
    Ended {
        reported: u32,
    },
    BoardError(String),
    /// The host will not take the board's records: the reason.
    Refused(String),
    Lost(String),
    /// The board booted again (a reset, a watchdog, a brown-out): the run
    /// it was making is gone, and nothing more of it will come.
    Restarted,
}

impl State {
    pub(super) fn outcome(&self, ending: Ending) -> Outcome {
        let (status, error) = match ending {
            Ending::Ended { reported }
                if reported == self.stored
                    && self.rejected == 0
                    && self.expected.is_none_or(|planned| planned == reported) =>
            {
                (RunStatus::Complete, None)
            }
            Ending::Ended { reported } => (
                RunStatus::Incomplete,
                Some(format!(
                    "the board reported {reported} results, {} arrived intact ({} records refused)",
                    self.stored, self.rejected
                )),
            ),
            Ending::BoardError(message) => {
                (RunStatus::Failed, Some(format!("the board said: {message}{}", self.kept())))
            }
            // Failed, not incomplete: `incomplete` is a run the board
            // finished whose records were damaged on the way; here the board
            // never finished, as when it fails or goes away. What it stored
            // before is kept, and the error says how much.
            Ending::Restarted => (RunStatus::Failed, Some(format!("{RESTARTED}{}", self.kept()))),
            Ending::Lost(why) => (RunStatus::Failed, Some(format!("{why}{}", self.kept()))),
            Ending::Refused(why) => (RunStatus::Failed, Some(why)),
        };
        Outcome { status, error, results: self.stored, rejected: self.rejected }
    }

    /// What a run cut short keeps, to follow its reason: nothing when it
    /// stored and refused nothing.
    fn kept(&self) -> String {
        let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match (self.stored, self.rejected) {
            (0, 0) => String::new(),
            (stored, 0) => format!("; {} kept", plural(stored, "result", "results")),
            (stored, rejected) => format!(
                "; {} kept, {} refused",
                plural(stored, "result", "results"),
                plural(rejected, "record", "records")
            ),
        }
    }
}
