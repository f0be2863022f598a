//! `pqbench serve`, and what the server and the agent need of the host:
//! its name, their tokens checked, a clean shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use pqbench::AppState;
use pqbench::security::ServedHosts;
use pqbench_collect::boards::Boards;

use super::store::open_store;
use crate::cli::Paths;

pub async fn serve(
    paths: Paths,
    boards: Boards,
    listen: SocketAddr,
    token: Option<String>,
    agent_token: Option<String>,
    allow_hosts: &[String],
    tls: Option<Tls>,
) -> anyhow::Result<()> {
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
    let store = open_store(&paths.db).await?;
    let interrupted = store.interrupt_unfinished().await?;
    if interrupted > 0 {
        tracing::warn!("{interrupted} runs left unfinished by an earlier server are marked interrupted");
    }
    if !paths.dist.join("index.html").is_file() {
        tracing::warn!("no dashboard in {}: build it with `cargo xtask build`", paths.dist.display());
    }
    let boards = Arc::new(boards);
    let mut state = AppState::new(store, boards);
    if let Some(token) = &agent_token {
        state = state.accepting_agents(token);
    }
    let mut hosts = ServedHosts::default();
    for name in allow_hosts {
        if name.is_empty() || name.contains([':', '/', '[', ']']) {
            bail!("--allow-host takes a host name without scheme or port, such as bench.lab; not {name:?}");
        }
        hosts = hosts.allowing(name);
    }
    let tls = match &tls {
        Some(Tls { cert, key }) => Some(pqbench::tls::server_config(cert, key)?),
        None => None,
    };
    let app = pqbench::router(state, &paths.dist, token, hosts);
    let listener =
        tokio::net::TcpListener::bind(listen).await.with_context(|| format!("listening on {listen}"))?;
    match tls {
        Some(config) => {
            tracing::info!("pqbench serving https://{}", listener.local_addr()?);
            pqbench::tls::serve(listener, app, config, shutdown()).await?;
        }
        None => {
            tracing::info!("pqbench serving http://{}", listener.local_addr()?);
            axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
        }
    }
    Ok(())
}

/// `--tls-cert` and `--tls-key`: PEM files.
pub struct Tls {
    pub cert: PathBuf,
    pub key: PathBuf,
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

/// A token that protects something and that a client can send: an empty
/// one (`--token ""`) would let anyone write, and a client sends it in an
/// `Authorization` header, which holds printable ASCII only and loses the
/// spaces around a value.
pub fn check_token(token: &str) -> anyhow::Result<()> {
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
