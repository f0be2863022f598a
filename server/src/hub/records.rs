//! What an agent's messages do: each one applied to the run it names and
//! to the store. An agent writes only into the runs it was given.

use std::collections::HashMap;

use pqbench_api::agents::FromAgent;
use pqbench_api::uploads::{MAX_CLOCK_HZ, MAX_TICKS_PER_SECOND, check_build, check_measurement};
use pqbench_api::{Board, BoardId, BoardIdError, BoardKind, LabelError, RunEnd, check_label, forbidden};
use pqbench_collect::collector::Progress;
use pqbench_store::{Store, StoreError};
use pqbench_types::{BenchResult, Clock, RunStatus, TickUnit};
use tokio_util::sync::CancellationToken;

use super::connection::Ended;
use super::registry::Agents;
use crate::live::Tracker;

/// The most boards one host may list, and the longest id: bounds on what
/// the dashboard lists for a host.
const MAX_BOARDS: usize = 256;

/// The longest of any other text an agent says of a board (name, chip,
/// note, port, variant, image), and of a note, a refusal or an error it
/// gives a run.
pub(super) const MAX_AGENT_TEXT: usize = 400;
/// The most variants, or images building, one board may list.
const MAX_LISTED: usize = 64;

/// Why an agent's list of boards was refused.
#[derive(Debug, thiserror::Error)]
pub(super) enum BoardListError {
    #[error("the agent listed {0} boards, more than {MAX_BOARDS}")]
    TooMany(usize),
    #[error("the agent listed a board id of {len} bytes: {why}")]
    BadId { len: usize, why: BoardIdError },
    #[error("board {board}: its {field} {why}")]
    BadText { board: String, field: &'static str, why: LabelError },
    #[error("board {board} lists more than {MAX_LISTED} {field}")]
    TooManyListed { board: String, field: &'static str },
}

pub(super) fn check_boards(boards: &[Board]) -> Result<(), BoardListError> {
    if boards.len() > MAX_BOARDS {
        return Err(BoardListError::TooMany(boards.len()));
    }
    for board in boards {
        let id = BoardId::new(board.id.as_str())
            .map_err(|why| BoardListError::BadId { len: board.id.len(), why })?;
        let building = board.building.as_ref();
        let images = building.map(|b| b.images.as_slice()).unwrap_or_default();
        if board.variants.len() > MAX_LISTED || images.len() > MAX_LISTED {
            let field = if images.len() > MAX_LISTED { "images" } else { "variants" };
            return Err(BoardListError::TooManyListed { board: id.into_string(), field });
        }
        let optional = [
            ("chip", &board.chip),
            ("note", &board.note),
            ("host", &board.host),
            ("port", &board.port),
            ("probe", &board.probe),
        ];
        let texts = [("name", Some(board.name.as_str()))]
            .into_iter()
            .chain(optional.into_iter().map(|(field, text)| (field, text.as_deref())))
            .chain(board.variants.iter().map(|v| ("variant", Some(v.as_str()))))
            .chain(images.iter().map(|image| ("image", Some(image.as_str()))))
            .chain([("image building", building.and_then(|b| b.current.as_deref()))]);
        for (field, text) in texts {
            if let Some(text) = text {
                check_label(text, MAX_AGENT_TEXT).map_err(|why| BoardListError::BadText {
                    board: id.to_string(),
                    field,
                    why,
                })?;
            }
        }
    }
    Ok(())
}

/// An agent's text for a log line or a run's error: cut to
/// [`MAX_AGENT_TEXT`] bytes, what a label may not hold dropped. (A note
/// the agent gives is checked instead, and refused, as it is stored.)
fn tamed(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().filter(|&c| forbidden(c).is_none()) {
        if out.len() + c.len_utf8() > MAX_AGENT_TEXT {
            break;
        }
        out.push(c);
    }
    out
}

/// A run on the agent, as its connection follows it.
pub(super) struct InFlight {
    board: String,
    /// An emulated board has no cycle counter: it may not describe one.
    kind: BoardKind,
    pub(super) tracker: Tracker,
    pub(super) ended: CancellationToken,
    pub(super) stored: u32,
    /// Records the server itself refused: the agent counted them stored.
    refused: u32,
    /// The board's clock, once the agent has described it.
    clock: Option<Clock>,
}

impl InFlight {
    pub(super) fn new(
        board: String,
        kind: BoardKind,
        tracker: Tracker,
        ended: CancellationToken,
    ) -> InFlight {
        InFlight { board, kind, tracker, ended, stored: 0, refused: 0, clock: None }
    }
}

/// "1 result", "3 results".
pub(super) fn results(n: u32) -> String {
    if n == 1 { "1 result".into() } else { format!("{n} results") }
}

/// One connection's agent, as its messages are applied.
pub(super) struct Peer<'a> {
    pub(super) host: &'a str,
    pub(super) connection: u64,
    pub(super) agents: &'a Agents,
    pub(super) store: &'a Store,
}

/// Applies one message of the agent's. Records of a run the agent was not
/// given are refused, and end the connection: an agent writes only into
/// its own runs.
pub(super) async fn receive(
    message: FromAgent,
    peer: &Peer<'_>,
    runs: &mut HashMap<i64, InFlight>,
) -> Result<(), Ended> {
    let Peer { host, agents, store, .. } = *peer;
    let run_of = |runs: &mut HashMap<i64, InFlight>, run: i64| -> Result<(), Ended> {
        if runs.contains_key(&run) { Ok(()) } else { Err(Ended::NotItsRun(run)) }
    };
    let stored = |result: Result<(), StoreError>, run: i64| {
        if let Err(e) = result {
            tracing::error!(run, "store: {e}");
        }
    };
    match message {
        FromAgent::Hello { .. } => return Err(Ended::HelloTwice),
        FromAgent::Boards { boards } => {
            check_boards(&boards)?;
            agents.set_boards(host, boards);
        }
        FromAgent::Progress { run, algorithm, operation, index, total } => {
            run_of(runs, run)?;
            if let Some(r) = runs.get_mut(&run) {
                r.tracker.update(&Progress::Operation { algorithm, operation, index, total });
            }
        }
        FromAgent::Described { run, build, clock_hz, ticks_per_second, tick_unit } => {
            run_of(runs, run)?;
            let Some(r) = runs.get_mut(&run) else { return Ok(()) };
            // The same bounds an upload's clock and build meet.
            let sound = (1..=MAX_TICKS_PER_SECOND).contains(&ticks_per_second)
                && clock_hz.is_none_or(|hz| (1..=MAX_CLOCK_HZ).contains(&hz));
            if let Err(why) = check_build(&build) {
                tracing::warn!(run, host, "refused the agent's build: {why}");
                r.refused += 1;
                stored(store.count_rejected(run).await, run);
                return Ok(());
            }
            let unit = TickUnit::parse(&tick_unit)
                .ok()
                .filter(|_| sound)
                .filter(|&unit| !(unit == TickUnit::Cycles && r.kind == BoardKind::Emulated));
            // A board describes itself once, before its results: a second
            // description would re-time results already stored (a local
            // board's second hello is a restart).
            if let Some(unit) = unit.filter(|_| r.stored == 0) {
                r.clock = Some(Clock { ticks_per_second, unit });
                stored(store.describe_run(run, &build, clock_hz, ticks_per_second, &tick_unit).await, run);
            } else {
                tracing::warn!(
                    run,
                    "the agent described a clock of {ticks_per_second} {:?} a second ({clock_hz:?} Hz)",
                    tamed(&tick_unit)
                );
                r.refused += 1;
                stored(store.count_rejected(run).await, run);
            }
        }
        FromAgent::Result { run, seq, measurement } => {
            run_of(runs, run)?;
            if let Some(r) = runs.get_mut(&run) {
                // Numbered up from 1 as the agent's collector stores them,
                // and timed by the clock described first; a number already
                // used, or a result before the clock, is counted refused, as
                // a damaged record is. A number skipped shows at the end:
                // the run holds fewer results than the agent reported.
                let Some(clock) = r.clock.filter(|_| seq > r.stored) else {
                    tracing::warn!(run, "refused result {seq}: after {}, clock {:?}", r.stored, r.clock);
                    r.refused += 1;
                    stored(store.count_rejected(run).await, run);
                    return Ok(());
                };
                // As an upload's measurements are checked: a result with
                // min > max, or ticks no store column holds, is refused.
                if let Err(why) = check_measurement(&measurement, &clock) {
                    tracing::warn!(run, host, "refused result {seq}: {why}");
                    r.refused += 1;
                    stored(store.count_rejected(run).await, run);
                    return Ok(());
                }
                r.stored = seq;
                let result = BenchResult::from_measurement(&measurement, &clock);
                stored(store.add_result(run, seq, &result, Some(&measurement)).await, run);
                r.tracker.update(&Progress::Result(Box::new(result)));
            }
        }
        FromAgent::Rejected { run, why } => {
            run_of(runs, run)?;
            tracing::warn!(run, host, "the agent refused a record: {}", tamed(&why));
            stored(store.count_rejected(run).await, run);
        }
        FromAgent::Noted { run, note } => {
            run_of(runs, run)?;
            match check_label(&note, MAX_AGENT_TEXT) {
                Ok(()) => stored(store.note_run(run, &note).await, run),
                Err(why) => {
                    tracing::warn!(run, host, "refused the agent's note: it {why}");
                    if let Some(r) = runs.get_mut(&run) {
                        r.refused += 1;
                    }
                    stored(store.count_rejected(run).await, run);
                }
            }
        }
        FromAgent::Finished { run, status, error, results } => {
            run_of(runs, run)?;
            let Some(r) = runs.remove(&run) else { return Ok(()) };
            let error = error.as_deref().map(tamed);
            let (status, error) = if !status.is_finished() {
                (RunStatus::Failed, Some(format!("the agent ended the run as {}", status.as_str())))
            } else if status == RunStatus::Complete && r.refused > 0 {
                // As a board's own refused record makes its run incomplete.
                let why = format!("the server refused {} of the agent's records", r.refused);
                (RunStatus::Incomplete, Some(why))
            } else {
                (status, error)
            };
            let written = match store.finish_run_expecting(run, status, error.as_deref(), results).await {
                Ok(written) => written,
                Err(e) => {
                    tracing::error!(run, "store: {e}");
                    status
                }
            };
            // The store may have found the run short, and says why.
            let error = match store.run(run).await {
                Ok(Some(stored)) => stored.error,
                _ => error,
            };
            tracing::info!(run, host, "run ended: {written:?}");
            agents.release(host, peer.connection, &r.board);
            r.tracker.finish(RunEnd { status: written, error });
            r.ended.cancel();
        }
    }
    Ok(())
}
