//! The agent's side (`pqbench agent`): connects to the central server,
//! registers this host's boards, runs what the server asks on them and
//! streams every record back. A lost connection is made again, with a
//! growing pause, for as long as the agent runs; a refused one (a wrong
//! token, another protocol) ends the agent with the server's reason.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use pqbench_api::Board;
use pqbench_types::RunStatus;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode, header};
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_util::sync::CancellationToken;

use pqbench_api::agents::{FromAgent, HostName, PROTOCOL_VERSION, ToAgent};
use pqbench_collect::boards::Boards;
use pqbench_collect::collector::Progress;
use pqbench_collect::record::SharedRecorder;
use pqbench_collect::runner;

use crate::{Uplink, tls};

pub struct AgentOptions {
    /// The central server's address: `http://host:port` or
    /// `https://host:port` (or `ws://`, `wss://`).
    pub server: String,
    pub token: String,
    /// How this host is named on the dashboard.
    pub host: String,
    /// PEM certificates of the CA that signed an `https://` server's
    /// certificate (a lab's private CA); the Mozilla roots when None.
    pub ca: Option<std::path::PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// Trying again would not help: the server said no, or the options are wrong.
    #[error("{0}")]
    Refused(String),
    /// The connection failed or ended; the agent connects again.
    #[error("{0}")]
    Lost(String),
}

/// How often the boards are listed again (a probe plugged in or out).
const LIST_BOARDS_EVERY: Duration = Duration::from_secs(5);
/// The server pings every 10 s: silence this long is a dead connection.
const SERVER_SILENCE: Duration = Duration::from_secs(35);
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const LONGEST_PAUSE: Duration = Duration::from_secs(30);

/// Serves `boards` to the server until a refusal; reconnects otherwise.
pub async fn run(options: &AgentOptions, boards: Arc<Boards>) -> Result<(), AgentError> {
    HostName::new(options.host.as_str()).map_err(|e| AgentError::Refused(e.to_string()))?;
    let mut pause = FIRST_PAUSE;
    loop {
        let mut welcomed = false;
        let lost = match session(options, &boards, &mut welcomed).await {
            AgentError::Refused(why) => return Err(AgentError::Refused(why)),
            AgentError::Lost(why) => why,
        };
        // A connection that was up starts the pauses over; failing ones
        // wait longer each time, up to LONGEST_PAUSE.
        if welcomed {
            pause = FIRST_PAUSE;
        }
        tracing::warn!("{lost}; connecting again in {} s", pause.as_secs());
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// The connection URL for a server address given as http(s) or ws(s).
pub fn connect_url(server: &str) -> Result<String, AgentError> {
    let server = server.trim_end_matches('/');
    let rest = if let Some(rest) = server.strip_prefix("http://") {
        format!("ws://{rest}")
    } else if let Some(rest) = server.strip_prefix("ws://") {
        format!("ws://{rest}")
    } else if let Some(rest) = server.strip_prefix("https://").or_else(|| server.strip_prefix("wss://")) {
        format!("wss://{rest}")
    } else {
        return Err(AgentError::Refused(format!("--server {server:?}: give an http:// or https:// address")));
    };
    Ok(format!("{rest}/api/agents/connect"))
}

/// One connection, to its end; says why it ended, and sets `welcomed` once
/// the server has taken the agent.
async fn session(options: &AgentOptions, boards: &Arc<Boards>, welcomed: &mut bool) -> AgentError {
    match connected(options, boards, welcomed).await {
        Ok(never) => match never {},
        Err(e) => e,
    }
}

async fn connected(
    options: &AgentOptions,
    boards: &Arc<Boards>,
    welcomed: &mut bool,
) -> Result<std::convert::Infallible, AgentError> {
    let mut request = connect_url(&options.server)?
        .into_client_request()
        .map_err(|e| AgentError::Refused(format!("--server {}: {e}", options.server)))?;
    let bearer = HeaderValue::from_str(&format!("Bearer {}", options.token))
        .map_err(|_| AgentError::Refused("the token cannot be sent in a header".into()))?;
    request.headers_mut().insert(header::AUTHORIZATION, bearer);
    let connector = tls::connector(options)?;
    let connecting = tokio_tungstenite::connect_async_tls_with_config(request, None, false, connector);
    let (socket, _) = connecting.await.map_err(|e| match e {
        tungstenite::Error::Http(response) => {
            let status = response.status();
            let body = response.body().as_deref().map(String::from_utf8_lossy).unwrap_or_default();
            let why = format!("the server answered {status}: {body}");
            // 400: plain HTTP sent to an HTTPS server, which says so.
            if matches!(
                status,
                StatusCode::BAD_REQUEST
                    | StatusCode::UNAUTHORIZED
                    | StatusCode::FORBIDDEN
                    | StatusCode::NOT_FOUND
            ) {
                AgentError::Refused(why)
            } else {
                AgentError::Lost(why)
            }
        }
        // A certificate that does not match or that no trusted CA signed:
        // trying again would meet the same certificate.
        tungstenite::Error::Tls(e) => AgentError::Refused(format!(
            "the TLS connection to {} failed: {e} (a private CA's certificate goes to --ca)",
            options.server
        )),
        tungstenite::Error::Io(e) if e.get_ref().is_some_and(|inner| inner.is::<rustls::Error>()) => {
            AgentError::Refused(format!(
                "the TLS connection to {} failed: {e} (a private CA's certificate goes to --ca)",
                options.server
            ))
        }
        e => AgentError::Lost(format!("connecting to {}: {e}", options.server)),
    })?;
    let (mut sink, mut stream) = socket.split();
    let listed = list(boards).await;
    let hello = FromAgent::Hello {
        protocol: PROTOCOL_VERSION,
        host: options.host.clone(),
        version: env!("CARGO_PKG_VERSION").into(),
        boards: listed.clone(),
    };
    send(&mut sink, &hello).await?;
    match tokio::time::timeout(SERVER_SILENCE, next_message(&mut stream)).await {
        Ok(Ok(ToAgent::Welcome)) => *welcomed = true,
        Ok(Ok(ToAgent::Refused { reason })) if reason.contains("connected already") => {
            // The server has not yet seen this host's last connection end.
            return Err(AgentError::Lost(format!("the server refused: {reason}")));
        }
        Ok(Ok(ToAgent::Refused { reason })) => {
            return Err(AgentError::Refused(format!("the server refused: {reason}")));
        }
        Ok(Ok(other)) => {
            return Err(AgentError::Lost(format!("the server began with {other:?}, not welcome")));
        }
        Ok(Err(e)) => return Err(e),
        Err(_) => return Err(AgentError::Lost("the server did not answer hello".into())),
    }
    tracing::info!(host = options.host, "connected to {}: {} boards served", options.server, listed.len());

    let (outbox, mut outgoing) = mpsc::channel::<FromAgent>(256);
    let (ended_tx, mut ended) = mpsc::unbounded_channel::<i64>();
    let mut jobs: HashMap<i64, CancellationToken> = HashMap::new();
    let mut tasks = tokio::task::JoinSet::new();
    let mut shown = listed;
    let mut relist = tokio::time::interval(LIST_BOARDS_EVERY);
    // The server pings every 10 s: a connection silent for longer than
    // SERVER_SILENCE is dead even if TCP has not said so (a host gone
    // without closing it). Checked at each listing, not by a timeout on
    // the read, which every other branch of the loop would start over.
    let mut heard = Instant::now();
    let lost = loop {
        tokio::select! {
            message = stream.next() => {
                heard = Instant::now();
                let message = match message {
                    None => break "the server closed the connection".to_string(),
                    Some(Err(e)) => break format!("the connection failed: {e}"),
                    Some(Ok(message)) => message,
                };
                let text = match message {
                    Message::Text(text) => text,
                    Message::Close(_) => break "the server closed the connection".to_string(),
                    // tungstenite answers pings itself.
                    _ => continue,
                };
                match serde_json::from_str::<ToAgent>(&text) {
                    Ok(ToAgent::Run { run, request }) => {
                        let uplink = Uplink::new(run, outbox.clone());
                        // The central server wrote the run's row; records go up this connection.
                        let recorder: SharedRecorder = Arc::new(uplink.clone());
                        match runner::prepare(boards, &request, |_| async { Ok(recorder) }).await {
                            Err(e) => {
                                tracing::warn!(run, "cannot start: {e}");
                                // Not awaited here: this loop is what drains
                                // the outbox the message waits for.
                                tasks.spawn(async move {
                                    let _ = uplink.finished(RunStatus::Failed, Some(e.to_string()), None).await;
                                });
                            }
                            Ok(prepared) => {
                                tracing::info!(run, board = request.board, "run started");
                                jobs.insert(run, prepared.canceller());
                                let ended_tx = ended_tx.clone();
                                tasks.spawn(async move {
                                    let progress = |event: Progress| {
                                        if let Progress::Operation { algorithm, operation, index, total } = event {
                                            uplink.progress(FromAgent::Progress { run, algorithm, operation, index, total });
                                        }
                                    };
                                    match prepared.execute(progress).await {
                                        Ok(outcome) => tracing::info!(run, "run ended: {outcome:?}"),
                                        Err(e) => tracing::warn!(run, "run ended unrecorded: {e}"),
                                    }
                                    let _ = ended_tx.send(run);
                                });
                            }
                        }
                    }
                    Ok(ToAgent::Cancel { run }) => {
                        if let Some(job) = jobs.get(&run) {
                            job.cancel();
                        }
                    }
                    // Its token revoked: the next connection is refused
                    // as a whole, and ends the agent.
                    Ok(ToAgent::Refused { reason }) => break format!("the server ended the connection: {reason}"),
                    Ok(other) => tracing::warn!("unexpected from the server: {other:?}"),
                    Err(e) => break format!("the server sent an unreadable message: {e}"),
                }
            }
            Some(message) = outgoing.recv() => {
                if let Err(AgentError::Lost(why) | AgentError::Refused(why)) = send(&mut sink, &message).await {
                    break why;
                }
            }
            Some(run) = ended.recv() => {
                jobs.remove(&run);
                // The board is free again: say so now, not at the next listing.
                relist.reset_immediately();
            }
            _ = relist.tick() => {
                if heard.elapsed() > SERVER_SILENCE {
                    break format!("nothing from the server for {} s", heard.elapsed().as_secs());
                }
                let listed = list(boards).await;
                if listed != shown {
                    shown = listed.clone();
                    if let Err(AgentError::Lost(why) | AgentError::Refused(why)) =
                        send(&mut sink, &FromAgent::Boards { boards: listed }).await
                    {
                        break why;
                    }
                }
            }
        }
    };
    // Nothing a run measures now can reach the server: stop them, so the
    // boards are free (and torn down) before connecting again.
    for job in jobs.values() {
        job.cancel();
    }
    drop(outgoing);
    while tasks.join_next().await.is_some() {}
    Err(AgentError::Lost(lost))
}

async fn list(boards: &Arc<Boards>) -> Vec<Board> {
    // Listing probes walks USB, which blocks.
    let boards = boards.clone();
    tokio::task::spawn_blocking(move || boards.list()).await.unwrap_or_default()
}

async fn send<S>(sink: &mut S, message: &FromAgent) -> Result<(), AgentError>
where
    S: futures_util::Sink<Message, Error = tungstenite::Error> + Unpin,
{
    let text =
        serde_json::to_string(message).map_err(|e| AgentError::Lost(format!("encoding a message: {e}")))?;
    sink.send(Message::text(text)).await.map_err(|e| AgentError::Lost(format!("the connection failed: {e}")))
}

async fn next_message<S>(stream: &mut S) -> Result<ToAgent, AgentError>
where
    S: futures_util::Stream<Item = Result<Message, tungstenite::Error>> + Unpin,
{
    loop {
        match stream.next().await {
            Some(Ok(Message::Text(text))) => {
                return serde_json::from_str(&text)
                    .map_err(|e| AgentError::Lost(format!("the server sent an unreadable message: {e}")));
            }
            Some(Ok(Message::Close(_))) | None => {
                return Err(AgentError::Lost("the server closed the connection".into()));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(AgentError::Lost(format!("the connection failed: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_address_becomes_its_agents_endpoint() {
        assert_eq!(connect_url("http://lab:8080/").unwrap(), "ws://lab:8080/api/agents/connect");
        assert_eq!(connect_url("ws://127.0.0.1:9").unwrap(), "ws://127.0.0.1:9/api/agents/connect");
        assert_eq!(connect_url("https://lab:8443").unwrap(), "wss://lab:8443/api/agents/connect");
        assert_eq!(connect_url("wss://lab").unwrap(), "wss://lab/api/agents/connect");
        assert!(matches!(connect_url("ftp://lab"), Err(AgentError::Refused(_))));
        assert!(matches!(connect_url("lab:8080"), Err(AgentError::Refused(_))));
    }
}
