//! One agent's connection, from its `hello` to its end: the checks a new
//! agent passes, the loop that carries runs to it and its messages back,
//! and what becomes of its runs when it goes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket};
use pqbench_api::RunEnd;
use pqbench_api::agents::{FromAgent, HostName, HostNameError, PROTOCOL_VERSION, ToAgent};
use pqbench_store::Store;
use pqbench_types::RunStatus;
use tokio::sync::mpsc;

use super::records::{BoardListError, InFlight, Peer, check_boards, receive, results};
use super::registry::{Agents, Command};
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
/// How often a connection on a host's own token looks whether the token
/// still stands: a revoked host is dropped within this.
const TOKEN_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Why an agent was refused or its connection ended: sent to the agent as
/// the reason it was refused, logged, and written into the error of each
/// run it leaves unfinished.
#[derive(Debug, thiserror::Error)]
pub(super) enum Ended {
    #[error("this server speaks agent protocol {PROTOCOL_VERSION}, the agent {protocol} (pqbench {version})")]
    Protocol { protocol: u32, version: String },
    #[error("the first message must be hello")]
    NoHelloFirst,
    #[error("no hello within {} s", HELLO_TIMEOUT.as_secs())]
    NoHello,
    #[error(transparent)]
    HostName(#[from] HostNameError),
    #[error(transparent)]
    Boards(#[from] BoardListError),
    #[error("this token is {token_host}'s own: it cannot register {host}")]
    OtherHost { token_host: String, host: String },
    #[error("{host} has a token of its own: an agent for it connects with that token, not the shared one")]
    HasOwnToken { host: String },
    #[error("the store could not be read to check the agent's host")]
    Store,
    #[error("an agent for host {host} is connected already")]
    AlreadyConnected { host: String },
    #[error("{host}'s token was revoked")]
    Revoked { host: String },
    #[error("the agent said hello twice")]
    HelloTwice,
    #[error("the agent sent records of run {0}, not one of its runs")]
    NotItsRun(i64),
    #[error("the connection closed")]
    Closed,
    #[error("the connection failed: {0}")]
    Failed(#[source] axum::Error),
    #[error("the agent closed the connection")]
    ClosedByAgent,
    #[error("the agent sent a binary frame")]
    Binary,
    #[error("the agent sent an unreadable message: {0}")]
    Unreadable(#[source] serde_json::Error),
    #[error("encoding a message: {0}")]
    Encoding(#[source] serde_json::Error),
    #[error("nothing heard for {0} s")]
    Silent(u64),
    #[error("the server is stopping")]
    Stopping,
}

/// Serves one agent's connection to its end: the agent is already known
/// to hold the agents' shared token, or `own`, a host's own.
pub async fn serve(mut socket: WebSocket, agents: Arc<Agents>, store: Store, own: Option<OwnToken>) {
    let hello = match tokio::time::timeout(HELLO_TIMEOUT, next_message(&mut socket)).await {
        Ok(Some(hello)) => welcomed(hello, own.as_ref()),
        Ok(None) => return,
        Err(_) => Err(Ended::NoHello),
    };
    let (host, boards) = match hello {
        Ok(hello) => hello,
        Err(reason) => return refuse(socket, reason).await,
    };
    // A host with a token of its own is bound to it: the shared token
    // cannot register that name, and so cannot hold it to lock the real
    // agent out.
    if own.is_none() {
        match store.agent_token_hosts().await {
            Ok(hosts) if hosts.iter().any(|(named, _)| *named == host) => {
                return refuse(socket, Ended::HasOwnToken { host }).await;
            }
            Ok(_) => {}
            Err(e) => {
                tracing::error!("store: {e}");
                return refuse(socket, Ended::Store).await;
            }
        }
    }
    let connection = agents.new_connection();
    let (commands, mut inbox) = mpsc::unbounded_channel();
    if let Err(reason) = agents.attach(&host, boards, connection, commands) {
        return refuse(socket, reason).await;
    }
    tracing::info!(host, "agent connected");
    let mut runs: HashMap<i64, InFlight> = HashMap::new();
    let reason = match send(&mut socket, &ToAgent::Welcome).await {
        Err(e) => e,
        Ok(()) => {
            let peer = Peer { host: &host, connection, agents: &agents, store: &store };
            follow(&mut socket, &mut inbox, &peer, own.as_ref(), &mut runs).await
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

/// The host and boards of an agent's first message, if it may register
/// them.
fn welcomed(first: FromAgent, own: Option<&OwnToken>) -> Result<(String, Vec<pqbench_api::Board>), Ended> {
    let FromAgent::Hello { protocol, host, version, boards } = first else {
        return Err(Ended::NoHelloFirst);
    };
    if protocol != PROTOCOL_VERSION {
        return Err(Ended::Protocol { protocol, version });
    }
    let host = HostName::new(host)?.into_string();
    check_boards(&boards)?;
    match own {
        Some(own) if own.host != host => Err(Ended::OtherHost { token_host: own.host.clone(), host }),
        _ => Ok((host, boards)),
    }
}

/// The connection's life after `welcome`; returns why it ended.
async fn follow(
    socket: &mut WebSocket,
    inbox: &mut mpsc::UnboundedReceiver<Command>,
    peer: &Peer<'_>,
    own: Option<&OwnToken>,
    runs: &mut HashMap<i64, InFlight>,
) -> Ended {
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut token_check = tokio::time::interval(TOKEN_CHECK_EVERY);
    let mut heard = Instant::now();
    loop {
        tokio::select! {
            _ = token_check.tick(), if own.is_some() => {
                if let Some(own) = own
                    && !own.still_stands(peer.store).await
                {
                    let why = Ended::Revoked { host: own.host.clone() };
                    let _ = send(socket, &ToAgent::Refused { reason: why.to_string() }).await;
                    let _ = socket.send(Message::Close(None)).await;
                    return why;
                }
            }
            message = socket.recv() => {
                heard = Instant::now();
                let text = match message {
                    None => return Ended::Closed,
                    Some(Err(e)) => return Ended::Failed(e),
                    Some(Ok(Message::Close(_))) => return Ended::ClosedByAgent,
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Binary(_))) => return Ended::Binary,
                };
                let message = match serde_json::from_str::<FromAgent>(&text) {
                    Ok(message) => message,
                    Err(e) => return Ended::Unreadable(e),
                };
                if let Err(why) = receive(message, peer, runs).await {
                    return why;
                }
            }
            command = inbox.recv() => {
                let Some(command) = command else { return Ended::Stopping };
                let sent = match command {
                    Command::Start { run_id, board, kind, request, tracker, ended } => {
                        runs.insert(run_id, InFlight::new(board, kind, tracker, ended));
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
                    return Ended::Silent(heard.elapsed().as_secs());
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return Ended::Closed;
                }
            }
        }
    }
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

async fn send(socket: &mut WebSocket, message: &ToAgent) -> Result<(), Ended> {
    let text = serde_json::to_string(message).map_err(Ended::Encoding)?;
    socket.send(Message::Text(text.into())).await.map_err(Ended::Failed)
}

async fn refuse(mut socket: WebSocket, reason: Ended) {
    tracing::warn!("agent refused: {reason}");
    let _ = send(&mut socket, &ToAgent::Refused { reason: reason.to_string() }).await;
    let _ = socket.send(Message::Close(None)).await;
}
