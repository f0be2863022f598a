//! The central server's side of its agents: the hosts that have
//! connected, their boards, and one task per connection that sends runs to
//! its agent and stores what comes back.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket};
use pqbench_api::{Board, BoardKind, RunEnd, RunRequest};
use pqbench_types::{BenchResult, Clock, RunStatus, TickUnit};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use pqbench_api::agents::{FromAgent, PROTOCOL_VERSION, ToAgent, check_host_name};
use pqbench_collect::collector::Progress;
use pqbench_collect::record::RecordError;
use pqbench_collect::runner::{self, RunError};
use pqbench_store::{Store, StoreError};

use crate::live::{LiveRuns, Tracker};
use crate::record::new_run;
use crate::security::OwnToken;

/// The largest message an agent may send (its list of boards is the
/// largest it sends, a few KiB): a bound on what one message can take.
pub const MAX_MESSAGE_BYTES: usize = 1024 * 1024;

/// How long an agent has to say `hello` once connected.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The server pings each agent this often; an agent that has sent nothing
/// (a pong included) for [`AGENT_SILENCE`] is taken for gone, as a host
/// whose network dropped without closing its connection would be.
const PING_EVERY: Duration = Duration::from_secs(10);
const AGENT_SILENCE: Duration = Duration::from_secs(35);

/// The hosts agents have connected from since the server started.
#[derive(Default)]
pub struct Agents {
    hosts: Mutex<BTreeMap<String, Host>>,
    next_connection: std::sync::atomic::AtomicU64,
}

struct Host {
    /// The boards as the agent last listed them, by its own ids.
    boards: Vec<Board>,
    link: Option<Link>,
    /// When the host connected, or when it went away.
    since: String,
}

/// A connected host: its connection task's inbox and the boards it runs on.
struct Link {
    connection: u64,
    commands: mpsc::UnboundedSender<Command>,
    busy: HashSet<String>,
}

enum Command {
    Start {
        run_id: i64,
        board: String,
        kind: BoardKind,
        request: RunRequest,
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

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl Agents {
    fn hosts(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Host>> {
        // Every change to the map is whole under the lock.
        self.hosts.lock().unwrap_or_else(PoisonError::into_inner)
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
        request: &RunRequest,
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
        let local = RunRequest { board: board.to_string(), ..request.clone() };
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

    /// Frees `board` of `host`, if `connection` still holds the host: a
    /// later connection's runs are its own.
    fn release(&self, host: &str, connection: u64, board: &str) {
        if let Some(link) = self.hosts().get_mut(host).and_then(|h| h.link.as_mut())
            && link.connection == connection
        {
            link.busy.remove(board);
        }
    }

    /// Takes `host` as connected on `connection`, unless another
    /// connection holds it.
    fn attach(
        &self,
        host: &str,
        boards: Vec<Board>,
        connection: u64,
        commands: mpsc::UnboundedSender<Command>,
    ) -> Result<(), String> {
        let mut hosts = self.hosts();
        let entry = hosts.entry(host.to_string()).or_insert_with(|| Host {
            boards: Vec::new(),
            link: None,
            since: now(),
        });
        if entry.link.is_some() {
            return Err(format!("an agent for host {host} is connected already"));
        }
        entry.boards = boards;
        entry.link = Some(Link { connection, commands, busy: HashSet::new() });
        entry.since = now();
        Ok(())
    }

    fn detach(&self, host: &str, connection: u64) {
        if let Some(entry) = self.hosts().get_mut(host)
            && entry.link.as_ref().is_some_and(|link| link.connection == connection)
        {
            entry.link = None;
            entry.since = now();
        }
    }

    fn set_boards(&self, host: &str, boards: Vec<Board>) {
        if let Some(entry) = self.hosts().get_mut(host) {
            entry.boards = boards;
        }
    }
}

/// A run on the agent, as its connection follows it.
struct InFlight {
    board: String,
    /// An emulated board has no cycle counter: it may not describe one.
    kind: BoardKind,
    tracker: Tracker,
    ended: CancellationToken,
    stored: u32,
    /// Records the server itself refused: the agent counted them stored.
    refused: u32,
    /// The board's clock, once the agent has described it.
    clock: Option<Clock>,
}

/// How often a connection on a host's own token looks whether the token
/// still stands: a revoked host is dropped within this.
const TOKEN_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Serves one agent's connection to its end: the agent is already known
/// to hold the agents' shared token, or `own`, a host's own.
pub async fn serve(mut socket: WebSocket, agents: Arc<Agents>, store: Store, own: Option<OwnToken>) {
    let hello = match tokio::time::timeout(HELLO_TIMEOUT, next_message(&mut socket)).await {
        Ok(Some(FromAgent::Hello { protocol, host, version, boards })) => {
            if protocol != PROTOCOL_VERSION {
                Err(format!(
                    "this server speaks agent protocol {PROTOCOL_VERSION}, the agent {protocol} (pqbench {version})"
                ))
            } else {
                check_host_name(&host).and_then(|()| check_boards(&boards)).map(|()| (host, boards))
            }
        }
        Ok(Some(_)) => Err("the first message must be hello".into()),
        Ok(None) => return,
        Err(_) => Err(format!("no hello within {} s", HELLO_TIMEOUT.as_secs())),
    };
    let hello = hello.and_then(|(host, boards)| match &own {
        Some(own) if own.host != host => {
            Err(format!("this token is {}'s own: it cannot register {host}", own.host))
        }
        _ => Ok((host, boards)),
    });
    let (host, boards) = match hello {
        Ok(hello) => hello,
        Err(reason) => return refuse(socket, reason).await,
    };
    let connection = agents.next_connection.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (commands, mut inbox) = mpsc::unbounded_channel();
    if let Err(reason) = agents.attach(&host, boards, connection, commands) {
        return refuse(socket, reason).await;
    }
    tracing::info!(host, "agent connected");
    let mut runs: HashMap<i64, InFlight> = HashMap::new();
    let reason = match send(&mut socket, &ToAgent::Welcome).await {
        Err(e) => e,
        Ok(()) => {
            let peer = Peer { host: &host, connection, agents: &agents, store: &store, own: own.as_ref() };
            follow(&mut socket, &mut inbox, &peer, &mut runs).await
        }
    };
    tracing::warn!(host, "agent gone: {reason}");
    // Runs handed to the connection but not yet sent never reach the
    // agent; from here on, `Agents::start` finds the inbox closed.
    inbox.close();
    while let Ok(command) = inbox.try_recv() {
        if let Command::Start { run_id, tracker, ended, .. } = command {
            let error = format!("{host} disconnected before the run could start");
            if let Err(e) = store.finish_run(run_id, RunStatus::Failed, Some(&error)).await {
                tracing::error!(run = run_id, "store: {e}");
            }
            tracker.finish(RunEnd { status: RunStatus::Failed, error: Some(error) });
            ended.cancel();
        }
    }
    // What the agent was running can no longer reach the store.
    for (run_id, run) in runs.drain() {
        let error =
            format!("the agent on {host} disconnected mid-run ({reason}); {} kept", results(run.stored));
        let status = match store.finish_run(run_id, RunStatus::Interrupted, Some(&error)).await {
            Ok(status) => status,
            Err(e) => {
                tracing::error!(run = run_id, "store: {e}");
                RunStatus::Interrupted
            }
        };
        run.tracker.finish(RunEnd { status, error: Some(error) });
        run.ended.cancel();
    }
    // Only now, with every run of this connection ended: the host's next
    // connection starts with none left running.
    agents.detach(&host, connection);
}

/// The most boards one host may list, and the longest id: bounds on what
/// the dashboard lists for a host.
const MAX_BOARDS: usize = 256;
const MAX_BOARD_ID: usize = 256;

fn check_boards(boards: &[Board]) -> Result<(), String> {
    if boards.len() > MAX_BOARDS {
        return Err(format!("the agent listed {} boards, more than {MAX_BOARDS}", boards.len()));
    }
    match boards
        .iter()
        .find(|b| b.id.is_empty() || b.id.len() > MAX_BOARD_ID || b.id.chars().any(char::is_control))
    {
        Some(bad) => {
            Err(format!("the agent listed a board id of {} bytes, or with control characters", bad.id.len()))
        }
        None => Ok(()),
    }
}

fn results(n: u32) -> String {
    if n == 1 { "1 result".into() } else { format!("{n} results") }
}

/// One connection's agent, as its messages are applied.
struct Peer<'a> {
    host: &'a str,
    connection: u64,
    agents: &'a Agents,
    store: &'a Store,
    own: Option<&'a OwnToken>,
}

/// Whether a board an agent lists can take a run, as far as the agent can
/// tell: a board it is running itself is listed unavailable for the
/// moment (the server keeps that itself, and frees the board the moment
/// the run's end arrives); one it says why not (a probe it cannot open)
/// until the agent lists it again.
fn usable(board: &Board) -> bool {
    board.available || board.note.is_none()
}

/// The connection's life after `welcome`; returns why it ended.
async fn follow(
    socket: &mut WebSocket,
    inbox: &mut mpsc::UnboundedReceiver<Command>,
    peer: &Peer<'_>,
    runs: &mut HashMap<i64, InFlight>,
) -> String {
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut token_check = tokio::time::interval(TOKEN_CHECK_EVERY);
    let mut heard = Instant::now();
    loop {
        tokio::select! {
            _ = token_check.tick(), if peer.own.is_some() => {
                if let Some(why) = OwnToken::revoked(peer.own, peer.store).await {
                    let _ = send(socket, &ToAgent::Refused { reason: why.clone() }).await;
                    let _ = socket.send(Message::Close(None)).await;
                    return why;
                }
            }
            message = socket.recv() => {
                heard = Instant::now();
                let text = match message {
                    None => return "the connection closed".into(),
                    Some(Err(e)) => return format!("the connection failed: {e}"),
                    Some(Ok(Message::Close(_))) => return "the agent closed the connection".into(),
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Binary(_))) => return "the agent sent a binary frame".into(),
                };
                let message = match serde_json::from_str::<FromAgent>(&text) {
                    Ok(message) => message,
                    Err(e) => return format!("the agent sent an unreadable message: {e}"),
                };
                if let Err(why) = receive(message, peer, runs).await {
                    return why;
                }
            }
            command = inbox.recv() => {
                let Some(command) = command else { return "the server is stopping".into() };
                let sent = match command {
                    Command::Start { run_id, board, kind, request, tracker, ended } => {
                        let in_flight =
                            InFlight { board, kind, tracker, ended, stored: 0, refused: 0, clock: None };
                        runs.insert(run_id, in_flight);
                        send(socket, &ToAgent::Run { run: run_id, request }).await
                    }
                    Command::Cancel { run_id } => send(socket, &ToAgent::Cancel { run: run_id }).await,
                };
                if let Err(why) = sent {
                    return why;
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() > AGENT_SILENCE {
                    return format!("nothing heard for {} s", heard.elapsed().as_secs());
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return "the connection closed".into();
                }
            }
        }
    }
}

/// Applies one message of the agent's. Records of a run the agent was not
/// given are refused, and end the connection: an agent writes only into
/// its own runs.
async fn receive(
    message: FromAgent,
    peer: &Peer<'_>,
    runs: &mut HashMap<i64, InFlight>,
) -> Result<(), String> {
    let Peer { host, agents, store, .. } = *peer;
    let run_of = |runs: &mut HashMap<i64, InFlight>, run: i64| -> Result<(), String> {
        if runs.contains_key(&run) {
            Ok(())
        } else {
            Err(format!("the agent sent records of run {run}, not one of its runs"))
        }
    };
    let stored = |result: Result<(), StoreError>, run: i64| {
        if let Err(e) = result {
            tracing::error!(run, "store: {e}");
        }
    };
    match message {
        FromAgent::Hello { .. } => return Err("the agent said hello twice".into()),
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
            let unit = TickUnit::parse(&tick_unit)
                .ok()
                .filter(|_| ticks_per_second > 0)
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
                    "the agent described a clock of {ticks_per_second} {tick_unit:?} a second"
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
                r.stored = seq;
                let result = BenchResult::from_measurement(&measurement, &clock);
                stored(store.add_result(run, seq, &result, Some(&measurement)).await, run);
                r.tracker.update(&Progress::Result(Box::new(result)));
            }
        }
        FromAgent::Rejected { run, why } => {
            run_of(runs, run)?;
            tracing::warn!(run, host, "the agent refused a record: {why}");
            stored(store.count_rejected(run).await, run);
        }
        FromAgent::Noted { run, note } => {
            run_of(runs, run)?;
            stored(store.note_run(run, &note).await, run);
        }
        FromAgent::Finished { run, status, error, results } => {
            run_of(runs, run)?;
            let Some(r) = runs.remove(&run) else { return Ok(()) };
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

async fn next_message(socket: &mut WebSocket) -> Option<FromAgent> {
    loop {
        match socket.recv().await? {
            Ok(Message::Text(text)) => return serde_json::from_str(&text).ok(),
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            _ => return None,
        }
    }
}

async fn send(socket: &mut WebSocket, message: &ToAgent) -> Result<(), String> {
    let text = serde_json::to_string(message).map_err(|e| format!("encoding a message: {e}"))?;
    socket.send(Message::Text(text.into())).await.map_err(|e| format!("the connection failed: {e}"))
}

async fn refuse(mut socket: WebSocket, reason: String) {
    tracing::warn!("agent refused: {reason}");
    let _ = send(&mut socket, &ToAgent::Refused { reason }).await;
    let _ = socket.send(Message::Close(None)).await;
}
