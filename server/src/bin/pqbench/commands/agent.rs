//! `pqbench agent`: this host's boards served to a central server until
//! the process is stopped.

use std::sync::Arc;

use anyhow::Context;

use super::{board_side, serve};
use crate::cli::AgentArgs;

pub async fn agent(args: AgentArgs) -> anyhow::Result<()> {
    let AgentArgs { server, ca, token, host, dist, wiring } = args;
    serve::check_sendable(&token).context("the agent token")?;
    let host = match host {
        Some(host) => host,
        None => serve::system_host_name()?,
    };
    let boards = Arc::new(wiring.boards(&dist)?);
    board_side::watch_ports(&boards);
    let options = pqbench_agent::AgentOptions { server, token, host, ca };
    tokio::select! {
        ended = pqbench_agent::run(&options, boards) => Ok(ended?),
        () = serve::shutdown() => Ok(()),
    }
}
