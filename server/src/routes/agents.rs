//! `GET /api/agents/connect`: an agent's WebSocket, with its own token.

use std::net::SocketAddr;

use axum::Extension;
use axum::extract::ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use crate::AppState;
use crate::error::ApiError;
use crate::hub;
use crate::security::{OwnToken, TokenDigest, bearer_token, too_many_guesses, unauthorized};

/// An agent connecting (`pqbench agent`): with the agents' shared token
/// (any host name) or a host's own (`pqbench agent-token add`: that host
/// alone), the connection becomes a WebSocket that [`hub::serve`] follows
/// to its end.
pub async fn connect_agent(
    State(state): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let shared = state.agent_token();
    let Some(given) = bearer_token(&headers).map(TokenDigest::of) else {
        if shared.is_none() && state.store.agent_token_hosts().await?.is_empty() {
            return Err(takes_no_agents());
        }
        return Ok(unauthorized("an agent must send its token: `Authorization: Bearer <token>`"));
    };
    let guess = match state.guesses.take(peer.map(|Extension(ConnectInfo(peer))| peer.ip())) {
        Ok(guess) => guess,
        Err(wait) => return Ok(too_many_guesses(wait)),
    };
    let bound = if shared.is_some_and(|shared| shared.matches(&given)) {
        None
    } else {
        // A digest of a random 256-bit token: looking it up by value
        // tells a guesser nothing a constant-time compare would hide.
        match state.store.agent_token_host(&given.hex()).await? {
            Some(host) => Some(OwnToken { host, digest: given.hex() }),
            None if shared.is_none() && state.store.agent_token_hosts().await?.is_empty() => {
                return Err(takes_no_agents());
            }
            None => return Ok(unauthorized("that is not this server's agent token, nor a host's own")),
        }
    };
    guess.was_right();
    let upgrade = upgrade.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    let (agents, store) = (state.agents.clone(), state.store.clone());
    // An agent's largest message is its list of boards: a few KiB.
    let upgrade = upgrade.max_message_size(hub::MAX_MESSAGE_BYTES).max_frame_size(hub::MAX_MESSAGE_BYTES);
    Ok(upgrade.on_upgrade(move |socket| hub::serve(socket, agents, store, bound)))
}

fn takes_no_agents() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "this server takes no agents: start it with --agent-token (or PQBENCH_AGENT_TOKEN), or give a host its own token with `pqbench agent-token add HOST`",
    )
}
