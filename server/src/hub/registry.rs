//! The hosts agents have connected from, their boards, and the start of a
//! run on one: the state every connection and every request shares.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pqbench_api::{Board, BoardKind, NewRun, RunEnd};
use pqbench_collect::record::RecordError;
use pqbench_collect::runner::{self, RunError};
use pqbench_store::Store;
use pqbench_types::RunStatus;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connection::Ended;
use crate::live::{LiveRuns, Tracker};
use crate::record::new_run;

/// The hosts agents have connected from since the server started.
#[derive(Default)]
pub struct Agents {
    hosts: Mutex<BTreeMap<String, Host>>,
    next_connection: AtomicU64,
}

struct Host {
    /// The boards as the agent last listed them, by its own ids.
    boards: Vec<Board>,
    link: Option<Link>,
    /// When the host connected, or when it went away.
    since: String,
    /// When it went away, for pruning: a host gone for
    /// [`DEPARTED_KEPT`] is forgotten.
    left: Option<Instant>,
}

/// How long a departed host stays listed (its boards shown as gone), and
/// how many are listed at most: agents under ever new names cannot grow
/// the map without end.
pub(super) const DEPARTED_KEPT: Duration = Duration::from_secs(60 * 60);
pub(super) const MAX_DEPARTED: usize = 64;

/// A connected host: its connection task's inbox and the boards it runs on.
struct Link {
    connection: u64,
    commands: mpsc::UnboundedSender<Command>,
    busy: HashSet<String>,
}

pub(super) enum Command {
    Start {
        run_id: i64,
        board: String,
        kind: BoardKind,
        request: NewRun,
        tracker: Tracker,
        ended: CancellationToken,
    },
    Cancel {
        run_id: i64,
    },
}

/// Why a run could not start on an agent's board.
#[derive(Debug, thiserror::Error)]
pub enum AgentRunError {
    #[error("{host} is not connected (since {since}): start `pqbench agent` there again")]
    NotConnected { host: String, since: String },
    #[error("{host} has no board {board}")]
    UnknownBoard { host: String, board: String },
    #[error("{0} is running another run")]
    Busy(String),
    #[error("{board}: {note}")]
    Unavailable { board: String, note: String },
    #[error(transparent)]
    Run(#[from] RunError),
}

/// Forgets the hosts gone longer than [`DEPARTED_KEPT`], and the longest
/// gone past [`MAX_DEPARTED`]; `arriving` is kept, as it is connecting.
fn prune(hosts: &mut BTreeMap<String, Host>, arriving: &str) {
    hosts
        .retain(|name, host| name == arriving || host.left.is_none_or(|left| left.elapsed() < DEPARTED_KEPT));
    let mut departed: Vec<(Instant, String)> = hosts
        .iter()
        .filter(|(name, _)| name.as_str() != arriving)
        .filter_map(|(name, host)| Some((host.left?, name.clone())))
        .collect();
    if departed.len() > MAX_DEPARTED {
        departed.sort();
        for (_, name) in departed.drain(..departed.len() - MAX_DEPARTED) {
            hosts.remove(&name);
        }
    }
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl Agents {
    fn hosts(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Host>> {
        // Every change to the map is whole under the lock.
        self.hosts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hosts whose agent is connected now.
    pub fn connected(&self) -> usize {
        self.hosts().values().filter(|host| host.link.is_some()).count()
    }

    /// Every agent's boards, as the dashboard lists them: `host/board` ids,
    /// with whether the host is connected and the board free.
    pub fn boards(&self) -> Vec<Board> {
        let hosts = self.hosts();
        let mut listed = Vec::new();
        for (name, host) in hosts.iter() {
            for board in &host.boards {
                let mut board = board.clone();
                let busy = host.link.as_ref().is_some_and(|link| link.busy.contains(&board.id));
                board.id = format!("{name}/{}", board.id);
                board.host = Some(name.clone());
                board.connected = host.link.is_some();
                board.available = usable(&board) && board.connected && !busy;
                if !board.connected {
                    board.note = Some(format!("{name} is not connected (since {})", host.since));
                }
                listed.push(board);
            }
        }
        listed
    }

    /// The host and the host's own id of a `host/board` id, when `host`
    /// is an agent's (a host name never holds `/` or `:`, so no id of the
    /// server's own boards, such as `serial:/dev/ttyACM0`, is taken for one).
    pub fn owner_of(&self, board: &str) -> Option<(String, String)> {
        let (host, local) = board.split_once('/')?;
        self.hosts().contains_key(host).then(|| (host.to_string(), local.to_string()))
    }

    /// Starts `request` on `board` of `host`: writes the run (with its
    /// host) and hands it to the host's connection, which sends it to the
    /// agent. Returns the run's id.
    pub async fn start(
        &self,
        store: &Store,
        live: &Arc<LiveRuns>,
        host: &str,
        board: &str,
        request: &NewRun,
    ) -> Result<i64, AgentRunError> {
        let command = runner::command(request)?;
        let (commands, kind, connection) =
            {
                let mut hosts = self.hosts();
                let entry = hosts
                    .get_mut(host)
                    .ok_or_else(|| AgentRunError::UnknownBoard { host: host.into(), board: board.into() })?;
                let listed =
                    entry.boards.iter().find(|b| b.id == board).cloned().ok_or_else(|| {
                        AgentRunError::UnknownBoard { host: host.into(), board: board.into() }
                    })?;
                let since = entry.since.clone();
                let link = entry
                    .link
                    .as_mut()
                    .ok_or_else(|| AgentRunError::NotConnected { host: host.into(), since })?;
                if link.busy.contains(board) {
                    return Err(AgentRunError::Busy(format!("{host}/{board}")));
                }
                if !usable(&listed) {
                    let note = listed.note.unwrap_or_else(|| "not available".into());
                    return Err(AgentRunError::Unavailable { board: format!("{host}/{board}"), note });
                }
                link.busy.insert(board.to_string());
                (link.commands.clone(), listed.kind, link.connection)
            };
        let local = NewRun { board: board.to_string(), ..request.clone() };
        let run =
            new_run(runner::describe(&local, &command, kind == BoardKind::Probe), Some(host.to_string()));
        let run_id = match store.create_run(&run).await {
            Ok(id) => id,
            Err(e) => {
                self.release(host, connection, board);
                return Err(RunError::Record(RecordError::new(e)).into());
            }
        };
        let cancel = CancellationToken::new();
        let ended = CancellationToken::new();
        // Registered before the id is given out, so its events and its
        // cancel work from the first moment a client can ask for them.
        let tracker = live.track(run_id, cancel.clone());
        let start = Command::Start {
            run_id,
            board: board.into(),
            kind,
            request: local,
            tracker,
            ended: ended.clone(),
        };
        if let Err(mpsc::error::SendError(Command::Start { tracker, .. })) = commands.send(start) {
            // The connection ended in between: the run never reached it.
            let why = format!("{host} disconnected before the run could start");
            let _ = store.finish_run(run_id, RunStatus::Failed, Some(&why)).await;
            tracker.finish(RunEnd { status: RunStatus::Failed, error: Some(why) });
            self.release(host, connection, board);
            return Ok(run_id);
        }
        tokio::spawn(async move {
            tokio::select! {
                () = cancel.cancelled() => {
                    let _ = commands.send(Command::Cancel { run_id });
                }
                () = ended.cancelled() => {}
            }
        });
        Ok(run_id)
    }

    /// A number for a new connection, told apart from the host's earlier
    /// and later ones.
    pub(super) fn new_connection(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// Frees `board` of `host`, if `connection` still holds the host: a
    /// later connection's runs are its own.
    pub(super) fn release(&self, host: &str, connection: u64, board: &str) {
        if let Some(link) = self.hosts().get_mut(host).and_then(|h| h.link.as_mut())
            && link.connection == connection
        {
            link.busy.remove(board);
        }
    }

    /// Takes `host` as connected on `connection`, unless another
    /// connection holds it.
    pub(super) fn attach(
        &self,
        host: &str,
        boards: Vec<Board>,
        connection: u64,
        commands: mpsc::UnboundedSender<Command>,
    ) -> Result<(), Ended> {
        let mut hosts = self.hosts();
        prune(&mut hosts, host);
        let entry = hosts.entry(host.to_string()).or_insert_with(|| Host {
            boards: Vec::new(),
            link: None,
            since: now(),
            left: None,
        });
        if entry.link.is_some() {
            return Err(Ended::AlreadyConnected { host: host.to_string() });
        }
        entry.boards = boards;
        entry.link = Some(Link { connection, commands, busy: HashSet::new() });
        entry.since = now();
        entry.left = None;
        Ok(())
    }

    pub(super) fn detach(&self, host: &str, connection: u64) {
        if let Some(entry) = self.hosts().get_mut(host)
            && entry.link.as_ref().is_some_and(|link| link.connection == connection)
        {
            entry.link = None;
            entry.since = now();
            entry.left = Some(Instant::now());
        }
    }

    /// How many hosts are listed, connected or departed.
    #[cfg(test)]
    pub(super) fn listed(&self) -> usize {
        self.hosts().len()
    }

    pub(super) fn set_boards(&self, host: &str, boards: Vec<Board>) {
        if let Some(entry) = self.hosts().get_mut(host) {
            entry.boards = boards;
        }
    }
}

/// Whether a board an agent lists can take a run, as far as the agent can
/// tell: a board it is running itself is listed unavailable for the
/// moment (the server keeps that itself, and frees the board the moment
/// the run's end arrives); one it says why not (a probe it cannot open)
/// until the agent lists it again.
fn usable(board: &Board) -> bool {
    board.available || board.note.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn departed_hosts_are_pruned_so_new_names_cannot_grow_the_map() {
        let agents = Agents::default();
        for n in 0..(MAX_DEPARTED + 40) {
            let (commands, _inbox) = mpsc::unbounded_channel();
            let host = format!("host-{n}");
            let connection = agents.new_connection();
            assert!(agents.attach(&host, Vec::new(), connection, commands).is_ok());
            agents.detach(&host, connection);
        }
        // The arriving host, plus at most MAX_DEPARTED that left.
        let (commands, _inbox) = mpsc::unbounded_channel();
        assert!(agents.attach("last", Vec::new(), agents.new_connection(), commands).is_ok());
        assert_eq!(agents.listed(), MAX_DEPARTED + 1);
        // A host gone longer than DEPARTED_KEPT is forgotten at the next arrival.
        if let Some(host) = agents.hosts().get_mut("host-100") {
            host.left = Instant::now().checked_sub(DEPARTED_KEPT + Duration::from_secs(1));
        }
        let (commands, _inbox) = mpsc::unbounded_channel();
        assert!(agents.attach("later", Vec::new(), agents.new_connection(), commands).is_ok());
        assert!(!agents.hosts().contains_key("host-100"));
    }
}
