//! `/api/session`: the dashboard signed in to a token-protected server
//! (`security/sessions.rs` says how the cookie is kept safe). Not behind
//! the write guard: signing in is how a browser comes by the right to
//! write, and signing out takes nothing from anyone.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pqbench_api::{NewSession, Session};

use crate::error::{ApiError, json_body};
use crate::listen::{over_tls, peer_of};
use crate::security::sessions::{session_of, set_cookie};
use crate::security::{Credentials, WriteGuard};

/// A token is at most a line; a sign-in's body is small.
pub const MAX_SESSION_BYTES: usize = 4 * 1024;

/// Whether writes need the token here, and whether this browser is signed in.
pub async fn session(State(guard): State<WriteGuard>, request: Request) -> Json<Session> {
    Json(state_of(&guard, &request))
}

fn state_of(guard: &WriteGuard, request: &Request) -> Session {
    let token_required = guard.token.is_some();
    let signed_in =
        token_required && session_of(request.headers()).is_some_and(|id| guard.sessions.holds(id));
    Session { token_required, signed_in }
}

/// Signs in with the write token: `201` and the session cookie, `401` for
/// a wrong token (a guess, as any), `400` where no token is needed.
pub async fn sign_in(State(guard): State<WriteGuard>, request: Request) -> Response {
    if guard.token.is_none() {
        let why = "this server takes writes without a token: there is nothing to sign in to";
        return ApiError::new(StatusCode::BAD_REQUEST, why).into_response();
    }
    let (peer, tls) = (peer_of(&request).map(|peer| peer.ip()), over_tls(&request));
    let body: Result<Json<NewSession>, JsonRejection> = Json::from_request(request, &()).await;
    let given = match json_body(body, MAX_SESSION_BYTES) {
        Ok(given) => given,
        Err(e) => return e.into_response(),
    };
    if let Credentials::Refused(answer) = guard.check_token(&given.token, peer) {
        return answer;
    }
    let id = match guard.sessions.open() {
        Ok(id) => id,
        Err(e) => {
            tracing::error!("the OS random generator failed: {e}");
            let why = "no session id could be drawn; see the server log";
            return ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, why).into_response();
        }
    };
    let signed_in = Session { token_required: true, signed_in: true };
    with_cookie((StatusCode::CREATED, Json(signed_in)).into_response(), set_cookie(Some(&id), tls))
}

/// Signs out: the session ends here, and the browser is told to drop it.
pub async fn sign_out(State(guard): State<WriteGuard>, request: Request) -> Response {
    if let Some(id) = session_of(request.headers()) {
        guard.sessions.close(id);
    }
    let signed_out = Session { token_required: guard.token.is_some(), signed_in: false };
    with_cookie(Json(signed_out).into_response(), set_cookie(None, over_tls(&request)))
}

fn with_cookie(mut response: Response, cookie: HeaderValue) -> Response {
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    // A session's answer is this browser's alone.
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
