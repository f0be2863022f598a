//! `GET /api/agents/connect`: an agent's WebSocket, with its own token.

use axum::extract::State;
use axum::extract::ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use crate::AppState;
use crate::error::ApiError;
use crate::hub;
use crate::security::{TokenDigest, bearer_token, unauthorized};

/// An agent connecting (`pqbench agent`): with the agents' token, the
/// connection becomes a WebSocket that [`hub::serve`] follows to its end.
pub async fn connect_agent(
    State(state): State<AppState>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(expected) = state.agent_token() else {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this server takes no agents: start it with --agent-token (or PQBENCH_AGENT_TOKEN)",
        ));
    };
    let refusal = match bearer_token(&headers) {
        None => Some("an agent must send the agents' token: `Authorization: Bearer <token>`"),
        Some(token) if !expected.matches(&TokenDigest::of(token)) => {
            Some("that is not this server's agent token")
        }
        Some(_) => None,
    };
    if let Some(why) = refusal {
        return Ok(unauthorized(why));
    }
    let upgrade = upgrade.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    let (agents, store) = (state.agents.clone(), state.store.clone());
    // An agent's largest message is its list of boards: a few KiB.
    let upgrade = upgrade.max_message_size(hub::MAX_MESSAGE_BYTES).max_frame_size(hub::MAX_MESSAGE_BYTES);
    Ok(upgrade.on_upgrade(move |socket| hub::serve(socket, agents, store)))
}
