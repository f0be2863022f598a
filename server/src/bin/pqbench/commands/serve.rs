//! `pqbench serve`, and what the server and the agent need of the host:
//! its name, their tokens checked, a clean shutdown.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use pqbench::AppState;
use pqbench::listen::Limits;
use pqbench::security::ServedHosts;
use pqbench_store::{Abandoned, Store};

use tokio_rustls::TlsAcceptor;

use super::board_side;
use super::store::open_store;
use crate::cli::ServeArgs;

pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let ServeArgs {
        paths,
        listen,
        token,
        token_file,
        agent_token,
        agent_token_file,
        allow_hosts,
        tls_cert,
        tls_key,
        max_connections,
        max_connections_per_peer,
        wiring,
    } = args;
    let token = given_token(token, token_file.as_deref(), "--token")?;
    let agent_token = given_token(agent_token, agent_token_file.as_deref(), "--agent-token")?;
    if let Some(token) = &token {
        check_token(token)?;
    }
    if let Some(token) = &agent_token {
        check_token(token).context("the agent token (--agent-token or PQBENCH_AGENT_TOKEN)")?;
    }
    if !listen.ip().is_loopback() && token.is_none() {
        bail!(
            "listening on {listen} lets other machines reach this server, and anyone who can reach it \
             could write: give a token with --token (or PQBENCH_TOKEN) that writes must send, or listen \
             on 127.0.0.1"
        );
    }
    if max_connections == 0 || max_connections_per_peer == 0 {
        bail!("--max-connections and --max-connections-per-peer take at least 1");
    }
    let limits = Limits { max_connections, max_per_peer: max_connections_per_peer, ..Limits::default() };
    let boards = wiring.boards(&paths.dist)?;
    board_side::watch_ports(&boards);
    // Bound first: the address it has is part of this server's name.
    let listener =
        tokio::net::TcpListener::bind(listen).await.with_context(|| format!("listening on {listen}"))?;
    // Named apart from every other live server on a shared database (a
    // lab's PostgreSQL), as a host has one server per address, and the same
    // when this server is started again, so that it interrupts the runs it
    // left at once rather than when their leases lapse.
    let owner = format!("{} {}", system_host_name().unwrap_or_else(|_| "?".into()), listener.local_addr()?);
    let store = open_store(&paths.db).await?.leasing_runs(owner, RUN_LEASE);
    let interrupted = store.interrupt_abandoned(Abandoned::AtStart).await?;
    if interrupted > 0 {
        tracing::warn!("{interrupted} runs left unfinished by an earlier server are marked interrupted");
    }
    tokio::spawn(keep_leases(store.clone()));
    if !paths.dist.join("index.html").is_file() {
        tracing::warn!("no dashboard in {}: build it with `cargo xtask build`", paths.dist.display());
    }
    let boards = Arc::new(boards);
    let mut state = AppState::new(store, boards);
    if let Some(token) = &agent_token {
        state = state.accepting_agents(token);
    }
    let mut hosts = ServedHosts::default();
    for name in &allow_hosts {
        if name.is_empty() || name.contains([':', '/', '[', ']']) {
            bail!("--allow-host takes a host name without scheme or port, such as bench.lab; not {name:?}");
        }
        hosts = hosts.allowing(name);
    }
    let tls = match tls_cert.zip(tls_key) {
        Some((cert, key)) => Some(TlsAcceptor::from(pqbench::tls::server_config(&cert, &key)?)),
        None => None,
    };
    let app = pqbench::router(state, &paths.dist, token, hosts);
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!("pqbench serving {scheme}://{}", listener.local_addr()?);
    pqbench::listen::serve(listener, app, tls, limits, shutdown()).await?;
    Ok(())
}

/// How long a run's lease lasts unless renewed: a server that died beside
/// this one on a shared database has its runs interrupted within about
/// this and [`RENEW_EVERY`] (clocks of the servers' hosts must agree to
/// well within it).
const RUN_LEASE: Duration = Duration::from_secs(60);
const RENEW_EVERY: Duration = Duration::from_secs(15);

/// Renews the leases of this server's runs, and interrupts the runs whose
/// lease lapsed (a server that died beside this one), while serving.
async fn keep_leases(store: Store) {
    let mut ticks = tokio::time::interval(RENEW_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(e) = store.renew_leases().await {
            tracing::error!("renewing the leases of this server's runs: {e}");
        }
        match store.interrupt_abandoned(Abandoned::Lapsed).await {
            Ok(0) => {}
            Ok(n) => tracing::warn!("{n} runs whose server stopped renewing them are marked interrupted"),
            Err(e) => tracing::error!("interrupting runs whose lease lapsed: {e}"),
        }
    }
}

/// A token from its option (or variable), or the first line of its file.
fn given_token(given: Option<String>, file: Option<&Path>, option: &str) -> anyhow::Result<Option<String>> {
    let Some(file) = file else { return Ok(given) };
    let text = std::fs::read_to_string(file).with_context(|| format!("{option}-file {}", file.display()))?;
    let token = text.lines().next().unwrap_or_default().trim_end_matches('\r').to_string();
    Ok(Some(token))
}

/// The system's name for this host, as an agent's name: what
/// `gethostname` gives, up to its first dot.
pub fn system_host_name() -> anyhow::Result<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length, and gethostname writes
    // at most that many bytes.
    let failed = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]);
    let name = name.split('.').next().unwrap_or_default().to_string();
    if failed || pqbench_api::agents::HostName::new(name.as_str()).is_err() {
        bail!("this host's name ({name:?}) cannot name an agent: give one with --host");
    }
    Ok(name)
}

/// The shortest token a server takes, and the fewest different characters
/// in it:
/// `s3cret` or `aaaaaaaaaaaaaaaa` falls to a guesser's first list, and
/// `pqbench agent-token add` makes 43 random characters.
pub const MIN_TOKEN_LEN: usize = 16;
pub const MIN_TOKEN_DISTINCT: usize = 8;

/// A token that protects something (the server's): one a client can send
/// ([`check_sendable`]) and not easily guessed.
pub fn check_token(token: &str) -> anyhow::Result<()> {
    check_sendable(token)?;
    let distinct = token.chars().collect::<std::collections::BTreeSet<_>>().len();
    if token.len() < MIN_TOKEN_LEN || distinct < MIN_TOKEN_DISTINCT {
        bail!(
            "the token is too easily guessed: give at least {MIN_TOKEN_LEN} characters, {MIN_TOKEN_DISTINCT} of \
             them different (`openssl rand -base64 32` makes one)"
        );
    }
    Ok(())
}

/// A token a client can send: an empty one (`--token ""`) would let anyone
/// write, and a client sends it in an `Authorization` header, which holds
/// printable ASCII only and loses the spaces around a value. (A client
/// checks no more: the server it sends to judges its strength.)
pub fn check_sendable(token: &str) -> anyhow::Result<()> {
    if token.trim().is_empty() {
        bail!("the token (--token or PQBENCH_TOKEN) is empty: give one that writes must send");
    }
    if token.trim() != token || !token.chars().all(|c| c == ' ' || c.is_ascii_graphic()) {
        bail!(
            "the token (--token or PQBENCH_TOKEN) must be printable ASCII without spaces at its ends: \
             a client sends it in an `Authorization: Bearer` header, which can hold nothing else"
        );
    }
    Ok(())
}

/// Ctrl-C or SIGTERM (a service manager's stop) ends the server gracefully.
pub async fn shutdown() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
}
